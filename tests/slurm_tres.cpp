// Tests for mfprio/slurm/tres.hpp (reference slurm.md 1.1 TRES factors), for every TRES i:
//   v = the job's count of TRES i
//   NO_NORMAL_TRES: f_i = v;  elif v != 0 and part.tres_cnt[i] != 0: f_i = v / part.tres_cnt[i]
//   (NOT clamped to 1);  else 0
//   weighted_tres = sum_i f_i * W_tres[i]   (double weights, may be negative), in TRES id order
// part.tres_cnt of a global TRES (license, burst buffer) is the system-wide count.
#include <mfprio/slurm/tres.hpp>

#include <array>
#include <cstdint>
#include <vector>

#include <doctest/doctest.h>

namespace {
using mfprio::slurm::context;
using mfprio::slurm::partition_info;
using mfprio::slurm::tres_factor;
using mfprio::slurm::tres_weight_entry;
namespace tres_id = mfprio::slurm::tres_id;

constexpr std::uint32_t license = tres_id::first_dynamic;     // 8: license/matlab (global)
constexpr std::uint32_t gpu = tres_id::first_dynamic + 1;     // 9: gres/gpu

// Partition 0: 64 CPUs, 262144 MB, 4 nodes, 10 licenses system-wide, no GPUs (no entry).
// Partition 1: 32 CPUs, 131072 MB, 2 nodes, the same 10 licenses, 4 GPUs.
// Partition 2: a TRES table with explicit zeros.
constexpr std::array<double, 9> totals0{64, 262144, 0, 4, 0, 0, 0, 0, 10};
constexpr std::array<double, 10> totals1{32, 131072, 0, 2, 0, 0, 0, 0, 10, 4};
constexpr std::array<double, 10> totals2{0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
constexpr std::array<partition_info, 3> parts{{
    {.priority_job_factor = 1, .norm_priority = 1.0, .priority_tier = 1, .max_time = 60, .tres_totals = totals0},
    {.priority_job_factor = 1, .norm_priority = 1.0, .priority_tier = 1, .max_time = 60, .tres_totals = totals1},
    {.priority_job_factor = 1, .norm_priority = 1.0, .priority_tier = 1, .max_time = 60, .tres_totals = totals2},
}};

context make_context() {
    context c{};
    c.partitions = parts;
    return c;
}

struct tres_job {
    std::vector<double> counts; // by TRES id
    mfprio::job j{};
    tres_job(std::vector<double> v, std::uint32_t partition) : counts(std::move(v)) {
        j.partition = partition;
        j.tres = counts;
    }
};

tres_factor weights(std::initializer_list<tres_weight_entry> e, bool normalize = true) {
    tres_factor t{};
    for (const auto& x : e) CHECK(t.add(x.id, x.weight));
    t.normalize = normalize;
    return t;
}
} // namespace

TEST_CASE("slurm: the TRES ids are Slurm's") {
    CHECK(tres_id::cpu == 0u);
    CHECK(tres_id::mem == 1u);
    CHECK(tres_id::energy == 2u);
    CHECK(tres_id::node == 3u);
    CHECK(tres_id::billing == 4u);
    CHECK(tres_id::fs_disk == 5u);
    CHECK(tres_id::vmem == 6u);
    CHECK(tres_id::pages == 7u);
    CHECK(tres_id::first_dynamic == 8u);
    CHECK(tres_factor::name == "tres");
}

TEST_CASE("slurm: a TRES factor is the job's count over the partition's") {
    // PriorityWeightTRES=CPU=1000,Mem=2000: 16/64 CPUs = 0.25 -> 250; 65536/262144 MB = 0.25 -> 500
    const auto t = weights({{tres_id::cpu, 1000.0}, {tres_id::mem, 2000.0}});
    const tres_job tj({16, 65536}, 0);
    CHECK(t(tj.j, make_context()) == 750.0); // 0 + 250 + 500
    // the same request in partition 1 (32 CPUs, 131072 MB): 0.5 * 1000 + 0.5 * 2000 = 1500
    CHECK(t.for_partition(tj.j, 1, make_context()) == 1500.0);
    // each() reports every weighted TRES: (entry, factor, weighted)
    std::vector<std::array<double, 3>> seen;
    t.each(tj.j, 0, make_context(), [&](const tres_weight_entry& e, double f, double w) noexcept {
        seen.push_back({static_cast<double>(e.id), f, w});
    });
    REQUIRE(seen.size() == 2);
    CHECK(seen[0] == std::array<double, 3>{0.0, 0.25, 250.0});
    CHECK(seen[1] == std::array<double, 3>{1.0, 0.25, 500.0});
}

TEST_CASE("slurm: a TRES factor is not clamped to 1") {
    // 128 CPUs asked in a 64-CPU partition: 128/64 = 2 -> 2 * 1000 = 2000 (job size would clamp)
    const auto t = weights({{tres_id::cpu, 1000.0}});
    const tres_job tj({128}, 0);
    CHECK(t(tj.j, make_context()) == 2000.0);
}

TEST_CASE("slurm: NO_NORMAL_TRES weighs raw counts") {
    const auto t = weights({{tres_id::cpu, 1000.0}, {tres_id::mem, 2000.0}}, false);
    const tres_job tj({16, 65536}, 0);
    // 16 * 1000 + 65536 * 2000 = 16000 + 131072000 = 131088000
    CHECK(t(tj.j, make_context()) == 131088000.0);
    // raw counts need no partition: an unknown partition still gives 16 * 1000 + 65536 * 2000
    CHECK(t.for_partition(tj.j, 99, make_context()) == 131088000.0);
    // and a TRES the partition lacks still counts raw: 2 GPUs * 3000 in partition 0
    const auto g = weights({{gpu, 3000.0}}, false);
    const tres_job gj({0, 0, 0, 0, 0, 0, 0, 0, 0, 2}, 0);
    CHECK(g(gj.j, make_context()) == 6000.0);
}

TEST_CASE("slurm: a TRES the partition lacks contributes 0") {
    const auto t = weights({{gpu, 3000.0}});
    const tres_job tj({0, 0, 0, 0, 0, 0, 0, 0, 0, 2}, 0); // 2 GPUs
    // partition 0 has no GPU entry at all
    CHECK(t(tj.j, make_context()) == 0.0);
    // partition 2 has an explicit 0
    CHECK(t.for_partition(tj.j, 2, make_context()) == 0.0);
    // partition 1 has 4 GPUs: 2/4 * 3000 = 1500
    CHECK(t.for_partition(tj.j, 1, make_context()) == 1500.0);
    // an unknown partition: 0
    CHECK(t.for_partition(tj.j, 99, make_context()) == 0.0);
}

TEST_CASE("slurm: a TRES the job does not ask for contributes 0") {
    const auto t = weights({{tres_id::cpu, 1000.0}, {gpu, 3000.0}});
    // the job's count array stops before the GPU id: v = 0
    const tres_job tj({16}, 1);
    CHECK(t(tj.j, make_context()) == 500.0); // 16/32 * 1000 + 0
    // a job with no TRES at all
    mfprio::job none{};
    CHECK(t(none, make_context()) == 0.0);
}

TEST_CASE("slurm: TRES weights may be negative") {
    // CPU=-500: 16/64 * -500 = -125; Mem=2000: 0.25 * 2000 = 500; -125 + 500 = 375
    const auto t = weights({{tres_id::cpu, -500.0}, {tres_id::mem, 2000.0}});
    const tres_job tj({16, 65536}, 0);
    CHECK(t(tj.j, make_context()) == 375.0);
    const auto neg = weights({{tres_id::cpu, -500.0}});
    CHECK(neg(tj.j, make_context()) == -125.0);
}

TEST_CASE("slurm: a global TRES is normalized by the system-wide count") {
    // license/matlab: 10 system-wide, the same in every partition's totals; 5 asked -> 0.5
    const auto t = weights({{license, 400.0}});
    const tres_job tj({0, 0, 0, 0, 0, 0, 0, 0, 5}, 0);
    CHECK(t(tj.j, make_context()) == 200.0); // 5/10 * 400
    CHECK(t.for_partition(tj.j, 1, make_context()) == 200.0);
}

TEST_CASE("slurm: memory weights with a unit suffix") {
    // PriorityWeightTRES=Mem=20G: G divides by 1024 (base unit MB): 20/1024 = 0.01953125 per MB.
    // Seed 004 (MSU) "20 per GB": 1024 MB raw (NO_NORMAL_TRES) -> 1024 * 0.01953125 = 20
    const auto t = weights({{tres_id::mem, 20.0 / 1024.0}}, false);
    const tres_job tj({1, 1024}, 0);
    CHECK(t(tj.j, make_context()) == 20.0);
}

TEST_CASE("slurm: TRES terms are added in TRES id order, whatever the order of configuration") {
    // Raw counts of 1 and weights cpu +1e16, mem -1e16, license +1 (NO_NORMAL_TRES).
    // In id order (cpu, mem, license): ((0 + 1e16) + -1e16) + 1 = 1.
    // In configuration order (license, mem, cpu): ((0 + 1) + -1e16) + 1e16 = -1e16 + 1e16 = 0,
    // since -1e16 + 1 is a tie between -1e16 and -1e16 + 2 that rounds to even, -1e16.
    tres_factor t{};
    t.normalize = false;
    CHECK(t.add(license, 1.0));
    CHECK(t.add(tres_id::mem, -1e16));
    CHECK(t.add(tres_id::cpu, 1e16));
    REQUIRE(t.count == 3u);
    CHECK(t.entries[0].id == tres_id::cpu);
    CHECK(t.entries[1].id == tres_id::mem);
    CHECK(t.entries[2].id == license);
    const tres_job tj({1, 1, 0, 0, 0, 0, 0, 0, 1}, 0);
    CHECK(t(tj.j, make_context()) == 1.0);
}

TEST_CASE("slurm: a TRES factor without weights is 0, and a full one refuses more") {
    const tres_factor none{};
    const tres_job tj({16, 65536}, 0);
    CHECK(none(tj.j, make_context()) == 0.0);
    tres_factor full{};
    for (std::uint32_t k = 0; k < tres_factor::max_weighted; ++k) CHECK(full.add(k, 1.0));
    CHECK_FALSE(full.add(100, 1.0));
    CHECK(full.count == tres_factor::max_weighted);
}
