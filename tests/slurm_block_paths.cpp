// The two paths of the Slurm block hooks that have an SSE2 path (age, job size, the TRES
// factor's dense path): on x86-64 a block hook called at run time takes its SSE2 path, and
// in constant evaluation it takes the scalar path that other targets use. Both must give
// each job's call-operator value (reference slurm.md 1.1) bit for bit; this file computes the
// scalar path's block at compile time and compares the two, job by job, so that a target
// without SSE2 is held to the same values as the one the suite runs on. The TRES factor's
// dense path also has an AVX path (up to four weighted TRES: one job at a time, its TRES in
// the lanes, `core/simd.hpp`), taken at run time where the processor has AVX: it is compared
// too, and the SSE2 path with AVX turned off.
#include <mfprio/core/simd.hpp>
#include <mfprio/slurm/age.hpp>
#include <mfprio/slurm/job_size.hpp>
#include <mfprio/slurm/tres.hpp>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>

#include <doctest/doctest.h>

namespace {
namespace ms = mfprio::slurm;
using ms::tres_weight_entry;
constexpr std::size_t n = mfprio::block_size;
constexpr std::int64_t now = 1'700'000'000;

// Partition 0: 512 CPUs, 4 nodes, no memory total; partition 1: 256 CPUs, 1 TB, 2 nodes.
constexpr std::array<double, 4> totals0{512, 0, 0, 4};
constexpr std::array<double, 4> totals1{256, 1048576, 0, 2};
constexpr std::array<ms::partition_info, 2> parts{{
    {.priority_job_factor = 1, .norm_priority = 1.0, .priority_tier = 1, .max_time = 60, .tres_totals = totals0},
    {.priority_job_factor = 1, .norm_priority = 1.0, .priority_tier = 1, .max_time = 60, .tres_totals = totals1},
}};

/// Rows of requested counts by TRES id (cpu, mem, energy, node): 30 rows, so that the jobs
/// pointing past them, or at no row, read 0.
constexpr std::array<double, 4 * 30> requests = [] {
    std::array<double, 4 * 30> t{};
    for (std::size_t r = 0; r < 30; ++r) {
        t[4 * r + 0] = static_cast<double>(r * 37 % 700);         // CPUs, some past the total
        t[4 * r + 1] = r % 3 == 0 ? 0.0 : static_cast<double>(r) * 1536.5;
        t[4 * r + 3] = static_cast<double>(r % 5);
    }
    return t;
}();

/// 32 jobs reaching the edges: not accruing (0), accruing from the future, from now, past
/// PriorityMaxAge and past 2^32 seconds (the uint32 difference wraps); 0 nodes and CPUs,
/// more than the cluster's; no TRES row, a row past the table, an unknown partition.
constexpr std::array<mfprio::job, n> jobs = [] {
    std::array<mfprio::job, n> js{};
    constexpr std::int64_t accrue[8] = {0, now + 5, now, now - 1, now - 86'400, now - 604'800, now - 700'000,
                                        now - 4'294'967'296 - 17};
    for (std::size_t k = 0; k < n; ++k) {
        auto& j = js[k];
        j.accrue_time = accrue[k % 8];
        j.min_nodes = static_cast<std::uint32_t>(k % 7 == 0 ? 0 : k * 3 % 40); // cluster: 32 nodes
        j.cpus = static_cast<std::uint32_t>(k % 5 == 0 ? 0 : k * 211 % 5000);   // cluster: 4096 CPUs
        j.tres_row = static_cast<std::uint32_t>(k);                              // 30 and 31: past the table
        j.partition = static_cast<std::uint16_t>(k % 3);                         // 2: unknown
    }
    js[9].tres_row = mfprio::no_tres_row;
    return js;
}();

constexpr ms::context make_context() {
    ms::context c{};
    c.now = now;
    c.node_count = 32;
    c.cluster_cpus = 4096;
    c.partitions = parts;
    c.tres_requests = {requests, 4, {}};
    return c;
}

/// The block of factor `f` over `jobs`: the scalar path when constant-evaluated.
template <class F>
constexpr std::array<double, n> block_of(const F& f) {
    std::array<double, n> out{};
    const ms::context c = make_context();
    if constexpr (requires { f.prepare(c); })
        f.block(f.prepare(c), std::span<const mfprio::job, n>(jobs), c, std::span<double, n>(out));
    else
        f.block(std::span<const mfprio::job, n>(jobs), c, std::span<double, n>(out));
    return out;
}

/// Compares the compile-time block (scalar path), the run-time one and the call operator.
template <class F>
void check_paths(const F& f, const std::array<double, n>& scalar) {
    const std::array<double, n> runtime = block_of(f);
    const ms::context c = make_context();
    for (std::size_t k = 0; k < n; ++k) {
        CAPTURE(k);
        const double one = f(jobs[k], c);
        CHECK(std::bit_cast<std::uint64_t>(runtime[k]) == std::bit_cast<std::uint64_t>(one));
        CHECK(std::bit_cast<std::uint64_t>(scalar[k]) == std::bit_cast<std::uint64_t>(one));
    }
}

/// The first `m` of six weighted TRES: two have no column in the request table and no
/// total (billing, and id 9), energy has a column but no total. 1 to 4 weighted TRES take
/// the SSE2 path's unrolled forms, 5 and 6 its general loop.
constexpr ms::tres_factor tres_weights(std::uint32_t m = 4) {
    constexpr tres_weight_entry all[6] = {{ms::tres_id::cpu, 1000.0}, {ms::tres_id::mem, -20.0 / 1024.0},
                                         {ms::tres_id::energy, 7.0},  {ms::tres_id::node, 3000.0},
                                         {ms::tres_id::billing, 5.0}, {9, 11.0}};
    ms::tres_factor t{};
    for (std::uint32_t k = 0; k < m; ++k) t.add(all[k].id, all[k].weight);
    return t;
}
} // namespace

TEST_CASE("slurm block paths: age, scalar and SSE2, give the call operator's bits") {
    constexpr ms::age_factor week{604800}, none{0}, short_max{100};
    constexpr auto s_week = block_of(week);
    constexpr auto s_none = block_of(none);
    constexpr auto s_short = block_of(short_max);
    check_paths(week, s_week);
    check_paths(none, s_none);
    check_paths(short_max, s_short);
    // job 4 accrues from a day ago: 86400 / 604800 exactly as divided
    CHECK(s_week[4] == 86400.0 / 604800.0);
}

TEST_CASE("slurm block paths: job size favouring large and small, scalar and SSE2, give the call operator's bits") {
    constexpr ms::job_size_factor large{}, small{true, false};
    constexpr auto s_large = block_of(large);
    constexpr auto s_small = block_of(small);
    check_paths(large, s_large);
    check_paths(small, s_small);
    // job 1: 3 nodes of 32, 211 CPUs of 4096: (3/32 + 211/4096) / 2
    CHECK(s_large[1] == (3.0 / 32.0 + 211.0 / 4096.0) / 2);
}

TEST_CASE("slurm block paths: the TRES factor's dense path, scalar and SSE2, gives the call operator's bits") {
    constexpr std::array<std::array<double, n>, 6> scalar{block_of(tres_weights(1)), block_of(tres_weights(2)),
                                                         block_of(tres_weights(3)), block_of(tres_weights(4)),
                                                         block_of(tres_weights(5)), block_of(tres_weights(6))};
    for (std::uint32_t m = 1; m <= 6; ++m) {
        CAPTURE(m);
        const ms::tres_factor t = tres_weights(m);
        REQUIRE(t.prepare(make_context()).usable);
        check_paths(t, scalar[m - 1]);
    }
    // job 1 (row 1, partition 1), four weighted TRES: 37/256 x 1000 + 1536.5/1048576 x
    // (-20/1024) + 0 (no energy total) + 1/2 x 3000
    CHECK(scalar[3][1] == 37.0 / 256.0 * 1000.0 + 1536.5 / 1048576.0 * (-20.0 / 1024.0) + 1.0 / 2.0 * 3000.0);
}

#if MFPRIO_AVX_DISPATCH
namespace {
/// Sets `mfprio::detail::avx_override` for a scope.
struct avx_mode {
    int saved = mfprio::detail::avx_override;
    explicit avx_mode(int mode) { mfprio::detail::avx_override = mode; }
    ~avx_mode() { mfprio::detail::avx_override = saved; }
    avx_mode(const avx_mode&) = delete;
    avx_mode& operator=(const avx_mode&) = delete;
};
} // namespace

TEST_CASE("slurm block paths: the TRES factor's dense path, AVX (where the processor has it) and SSE2, gives the call "
          "operator's bits") {
    constexpr std::array<std::array<double, n>, 6> scalar{block_of(tres_weights(1)), block_of(tres_weights(2)),
                                                         block_of(tres_weights(3)), block_of(tres_weights(4)),
                                                         block_of(tres_weights(5)), block_of(tres_weights(6))};
    __builtin_cpu_init();
    const bool cpu_avx = __builtin_cpu_supports("avx") != 0;
    MESSAGE("this processor ", cpu_avx ? "has" : "lacks", " AVX: the AVX path is ", cpu_avx ? "" : "not ", "tested here");
    for (const int mode : {0, -1, 1}) {
        CAPTURE(mode);
        const avx_mode scope(mode);
        for (std::uint32_t m = 1; m <= 6; ++m) {
            CAPTURE(m);
            const ms::tres_factor t = tres_weights(m);
            const auto d = t.prepare(make_context());
            REQUIRE(d.usable);
            // AVX is taken exactly where the processor has it and it is not turned off.
            CHECK(d.avx == (cpu_avx && mode != 0));
            check_paths(t, scalar[m - 1]);
        }
    }
}
#endif
