// Tests for mfprio/slurm/tres.hpp (reference slurm.md 1.1 TRES factors), for every TRES i:
//   v = the job's count of TRES i
//   NO_NORMAL_TRES: f_i = v;  elif v != 0 and part.tres_cnt[i] != 0: f_i = v / part.tres_cnt[i]
//   (NOT clamped to 1);  else 0
//   weighted_tres = sum_i f_i * W_tres[i]   (double weights, may be negative), in TRES id order
// part.tres_cnt of a global TRES (license, burst buffer) is the system-wide count.
#include <mfprio/slurm/tres.hpp>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
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

/// A job whose requested counts (by TRES id) are row 0 of a one-row TRES request table.
struct tres_job {
    std::vector<double> counts; // by TRES id
    mfprio::job j{};
    tres_job(std::vector<double> v, std::uint32_t partition) : counts(std::move(v)) {
        j.partition = static_cast<std::uint16_t>(partition);
        j.tres_row = 0;
    }
    /// make_context() with the job's request table.
    [[nodiscard]] context ctx() const {
        context c = make_context();
        c.tres_requests = {counts, static_cast<std::uint32_t>(counts.size()), {}};
        return c;
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
    CHECK(t(tj.j, tj.ctx()) == 750.0); // 0 + 250 + 500
    // the same request in partition 1 (32 CPUs, 131072 MB): 0.5 * 1000 + 0.5 * 2000 = 1500
    CHECK(t.for_partition(tj.j, 1, tj.ctx()) == 1500.0);
    // each() reports every weighted TRES: (entry, factor, weighted)
    std::vector<std::array<double, 3>> seen;
    t.each(tj.j, 0, tj.ctx(), [&](const tres_weight_entry& e, double f, double w) noexcept {
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
    CHECK(t(tj.j, tj.ctx()) == 2000.0);
}

TEST_CASE("slurm: NO_NORMAL_TRES weighs raw counts") {
    const auto t = weights({{tres_id::cpu, 1000.0}, {tres_id::mem, 2000.0}}, false);
    const tres_job tj({16, 65536}, 0);
    // 16 * 1000 + 65536 * 2000 = 16000 + 131072000 = 131088000
    CHECK(t(tj.j, tj.ctx()) == 131088000.0);
    // raw counts need no partition: an unknown partition still gives 16 * 1000 + 65536 * 2000
    CHECK(t.for_partition(tj.j, 99, tj.ctx()) == 131088000.0);
    // and a TRES the partition lacks still counts raw: 2 GPUs * 3000 in partition 0
    const auto g = weights({{gpu, 3000.0}}, false);
    const tres_job gj({0, 0, 0, 0, 0, 0, 0, 0, 0, 2}, 0);
    CHECK(g(gj.j, gj.ctx()) == 6000.0);
}

TEST_CASE("slurm: a TRES the partition lacks contributes 0") {
    const auto t = weights({{gpu, 3000.0}});
    const tres_job tj({0, 0, 0, 0, 0, 0, 0, 0, 0, 2}, 0); // 2 GPUs
    // partition 0 has no GPU entry at all
    CHECK(t(tj.j, tj.ctx()) == 0.0);
    // partition 2 has an explicit 0
    CHECK(t.for_partition(tj.j, 2, tj.ctx()) == 0.0);
    // partition 1 has 4 GPUs: 2/4 * 3000 = 1500
    CHECK(t.for_partition(tj.j, 1, tj.ctx()) == 1500.0);
    // an unknown partition: 0
    CHECK(t.for_partition(tj.j, 99, tj.ctx()) == 0.0);
}

TEST_CASE("slurm: a TRES the job does not ask for contributes 0") {
    const auto t = weights({{tres_id::cpu, 1000.0}, {gpu, 3000.0}});
    // the job's count array stops before the GPU id: v = 0
    const tres_job tj({16}, 1);
    CHECK(t(tj.j, tj.ctx()) == 500.0); // 16/32 * 1000 + 0
    // a job with no TRES at all
    mfprio::job none{};
    CHECK(t(none, make_context()) == 0.0);
}

TEST_CASE("slurm: TRES weights may be negative") {
    // CPU=-500: 16/64 * -500 = -125; Mem=2000: 0.25 * 2000 = 500; -125 + 500 = 375
    const auto t = weights({{tres_id::cpu, -500.0}, {tres_id::mem, 2000.0}});
    const tres_job tj({16, 65536}, 0);
    CHECK(t(tj.j, tj.ctx()) == 375.0);
    const auto neg = weights({{tres_id::cpu, -500.0}});
    CHECK(neg(tj.j, tj.ctx()) == -125.0);
}

TEST_CASE("slurm: a global TRES is normalized by the system-wide count") {
    // license/matlab: 10 system-wide, the same in every partition's totals; 5 asked -> 0.5
    const auto t = weights({{license, 400.0}});
    const tres_job tj({0, 0, 0, 0, 0, 0, 0, 0, 5}, 0);
    CHECK(t(tj.j, tj.ctx()) == 200.0); // 5/10 * 400
    CHECK(t.for_partition(tj.j, 1, tj.ctx()) == 200.0);
}

TEST_CASE("slurm: memory weights with a unit suffix") {
    // PriorityWeightTRES=Mem=20G: G divides by 1024 (base unit MB): 20/1024 = 0.01953125 per MB.
    // Seed 004 (MSU) "20 per GB": 1024 MB raw (NO_NORMAL_TRES) -> 1024 * 0.01953125 = 20
    const auto t = weights({{tres_id::mem, 20.0 / 1024.0}}, false);
    const tres_job tj({1, 1024}, 0);
    CHECK(t(tj.j, tj.ctx()) == 20.0);
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
    CHECK(t(tj.j, tj.ctx()) == 1.0);
}

TEST_CASE("slurm: a TRES factor without weights is 0, and a full one refuses more") {
    const tres_factor none{};
    const tres_job tj({16, 65536}, 0);
    CHECK(none(tj.j, tj.ctx()) == 0.0);
    tres_factor full{};
    for (std::uint32_t k = 0; k < tres_factor::max_weighted; ++k) CHECK(full.add(k, 1.0));
    CHECK_FALSE(full.add(100, 1.0));
    CHECK(full.count == tres_factor::max_weighted);
}

TEST_CASE("slurm: a TRES request table may keep only the TRES it needs") {
    // The same request (16 CPUs, 2 GPUs) as a full row by TRES id and as a compact row of
    // two columns: cpu in column 0, gres/gpu (id 9) in column 1, no other TRES.
    // PriorityWeightTRES=CPU=1000,GRES/gpu=3000 in partition 1 (32 CPUs, 4 GPUs):
    // 16/32 x 1000 + 2/4 x 3000 = 500 + 1500 = 2000.
    const auto t = weights({{tres_id::cpu, 1000.0}, {gpu, 3000.0}});
    const tres_job full({16, 0, 0, 0, 0, 0, 0, 0, 0, 2}, 1);
    CHECK(t(full.j, full.ctx()) == 2000.0);

    constexpr std::uint32_t none = mfprio::slurm::tres_table::no_column;
    const std::array<std::uint32_t, 10> columns{0, none, none, none, none, none, none, none, none, 1};
    const std::array<double, 4> rows{8, 1,   // row 0: another job
                                     16, 2}; // row 1: this one
    context c = make_context();
    c.tres_requests = {rows, 2, columns};
    mfprio::job j{};
    j.partition = 1;
    j.tres_row = 1;
    CHECK(c.tres_requests.rows() == 2);
    CHECK(c.tres_requests.count(1, gpu) == 2.0);
    CHECK(c.tres_requests.count(1, tres_id::mem) == 0.0); // no column: 0
    CHECK(t(j, c) == 2000.0);
    // A weighted TRES the table has no column for counts 0: mem here.
    const auto with_mem = weights({{tres_id::cpu, 1000.0}, {tres_id::mem, 5000.0}, {gpu, 3000.0}});
    CHECK(with_mem(j, c) == 2000.0);
    // A row past the end of the table, and no row at all, request nothing.
    j.tres_row = 2;
    CHECK(t(j, c) == 0.0);
    j.tres_row = mfprio::no_tres_row;
    CHECK(t(j, c) == 0.0);
}

namespace {
/// A scheduler's own job type carrying its counts by TRES id (no request table).
struct span_job {
    std::span<const double> tres{};
    std::uint32_t partition = 0;
};
} // namespace

TEST_CASE("slurm: a job type may carry its TRES counts itself") {
    static_assert(mfprio::factor_policy<tres_factor, span_job, context>);
    // 16/64 CPUs x 1000 + 65536/262144 MB x 2000 = 250 + 500 (the first test's job)
    const auto t = weights({{tres_id::cpu, 1000.0}, {tres_id::mem, 2000.0}});
    const std::array<double, 2> counts{16, 65536};
    const span_job j{counts, 0};
    CHECK(t(j, make_context()) == 750.0);
}

TEST_CASE("slurm: the TRES block hook gives the call operator's values, bit for bit") {
    // 32 jobs covering: counts of 0, a total of 0 (partition 2, and no GPU in partition 0),
    // an unknown partition, no row, a row past the end, fractional and large counts; with
    // normalized and raw weights, negative ones included.
    constexpr std::size_t n = mfprio::block_size;
    std::vector<double> table;
    std::array<mfprio::job, n> jobs{};
    for (std::size_t k = 0; k < n; ++k) {
        const double v = static_cast<double>(k);
        table.insert(table.end(), {v * 1.5, k % 3 == 0 ? 0.0 : v * 1024.0, 0, 1, 0, 0, 0, 0, v / 4, k % 4 == 0 ? 0.0 : v});
        jobs[k].tres_row = static_cast<std::uint32_t>(k);
        jobs[k].partition = static_cast<std::uint16_t>(k % 4); // partition 3 does not exist
    }
    jobs[5].tres_row = mfprio::no_tres_row;
    jobs[6].tres_row = 1000;
    context c = make_context();
    c.tres_requests = {table, 10, {}};
    // The same jobs all in partition 1, every row present: the hook's unchecked path.
    std::array<mfprio::job, n> in_range = jobs;
    for (std::size_t k = 0; k < n; ++k) {
        in_range[k].partition = 1;
        in_range[k].tres_row = static_cast<std::uint32_t>(k);
    }
    for (const auto* set : {&jobs, &in_range})
        for (const bool normalize : {true, false}) {
            const auto t = weights(
                {{tres_id::cpu, 1000.0}, {tres_id::mem, -20.0 / 1024.0}, {license, 400.0}, {gpu, 3000.0}}, normalize);
            std::array<double, n> out{};
            t.block(std::span<const mfprio::job, n>(*set), c, std::span<double, n>(out));
            for (std::size_t k = 0; k < n; ++k) {
                CAPTURE(k);
                CAPTURE(normalize);
                CHECK(std::bit_cast<std::uint64_t>(out[k]) == std::bit_cast<std::uint64_t>(t((*set)[k], c)));
            }
        }
}

TEST_CASE("slurm: TRES prepare lays out the totals unless one is NaN, and block agrees either way") {
    // Partition 1 with a NaN GPU total: Slurm's factor for a job asking no GPU there is 0 (a
    // count of 0 short-circuits), never 0/NaN. prepare sees the NaN and block then takes the
    // general path.
    std::array<double, 10> nan_totals = totals1;
    nan_totals[9] = std::numeric_limits<double>::quiet_NaN();
    std::array<partition_info, 3> with_nan = parts;
    with_nan[1].tres_totals = nan_totals;
    const auto t = weights({{tres_id::cpu, 1000.0}, {gpu, 3000.0}});
    context c{};
    c.partitions = with_nan;
    CHECK_FALSE(t.prepare(c).usable);
    c.partitions = parts;
    CHECK(t.prepare(c).usable);
    auto raw = t;
    raw.normalize = false;
    CHECK_FALSE(raw.prepare(c).usable); // NO_NORMAL_TRES divides nothing

    std::vector<double> table;
    std::array<mfprio::job, mfprio::block_size> jobs{};
    for (std::size_t k = 0; k < jobs.size(); ++k) {
        table.insert(table.end(), {static_cast<double>(k + 1), 0, 0, 0, 0, 0, 0, 0, 0, k % 2 == 0 ? 0.0 : 2.0});
        jobs[k].tres_row = static_cast<std::uint32_t>(k);
        jobs[k].partition = static_cast<std::uint16_t>(k % 3);
    }
    for (const std::array<partition_info, 3>* partitions : {&parts, static_cast<const std::array<partition_info, 3>*>(&with_nan)}) {
        c.partitions = *partitions;
        c.tres_requests = {table, 10, {}};
        std::array<double, mfprio::block_size> out{};
        t.block(t.prepare(c), std::span<const mfprio::job, mfprio::block_size>(jobs), c,
                std::span<double, mfprio::block_size>(out));
        for (std::size_t k = 0; k < jobs.size(); ++k) {
            CAPTURE(k);
            CHECK(std::bit_cast<std::uint64_t>(out[k]) == std::bit_cast<std::uint64_t>(t(jobs[k], c)));
        }
    }
    // job 4 (partition 1, no GPU): 5/32 x 1000 + 0 even with the NaN total
    c.partitions = with_nan;
    CHECK(t(jobs[4], c) == 156.25);
}

TEST_CASE("slurm: the TRES ratio's masked division gives the bits of Slurm's branch") {
    // priority_multifactor.c's normalized TRES factor: v / t when both are not 0, else 0. The
    // library computes it without a branch (masks in the vector layer at run time, bit masks in
    // a constant expression): both must give the branch's bits for every pair, signed zeros,
    // infinities, NaN and subnormals among them.
    const double inf = std::numeric_limits<double>::infinity();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double values[] = {0.0, -0.0, 1.0, -3.0, 0.1, 7e300, 5e-324, -5e-324, inf, -inf, nan, 65536.0};
    const auto bits = [](double x) { return std::bit_cast<std::uint64_t>(x); };
    for (const double v : values)
        for (const double t : values) {
            CAPTURE(v);
            CAPTURE(t);
            const double want = (v != 0.0 && t != 0.0) ? v / t : 0.0;
            CHECK(bits(mfprio::simd::ratio_or_zero(v, t)) == bits(want));
            CHECK(bits(mfprio::slurm::detail::tres_ratio(v, t)) == bits(want));
        }
    static_assert(mfprio::slurm::detail::tres_ratio(3.0, 4.0) == 0.75);
    static_assert(std::bit_cast<std::uint64_t>(mfprio::slurm::detail::tres_ratio(-0.0, 4.0)) == 0u);
    static_assert(std::bit_cast<std::uint64_t>(mfprio::slurm::detail::tres_ratio(3.0, 0.0)) == 0u);
}
