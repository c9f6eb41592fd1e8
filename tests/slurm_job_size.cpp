// Tests for mfprio/slurm/job_size.hpp (reference slurm.md 1.1 Job size). N = cluster nodes,
// C = cluster CPUs (system-wide, not per partition), n = min_nodes, c = the job's CPUs:
//   SMALL_RELATIVE_TO_TIME: js = max(n*C/N, c) / T / C  (1 - that when favoring small),
//       T = job time limit (minutes) if != NO_VAL, else its partition's MaxTime, else 1
//   PriorityFavorSmall:     js = (N > n) ? (N-n)/N : 0;  if c: js = (js + (uint32)(C-c)/C)/2
//   favor large (default):  js = n/N;                    if c: js = (js + c/C)/2
//   js = clamp(js, 0, 1); 0 when N or C is 0.
#include <mfprio/slurm/job_size.hpp>

#include <array>
#include <cstdint>
#include <span>

#include <doctest/doctest.h>

namespace {
using mfprio::infinite32;
using mfprio::no_val32;
using mfprio::slurm::context;
using mfprio::slurm::job_size_factor;
using mfprio::slurm::partition_info;

constexpr job_size_factor favor_large{false, false};
constexpr job_size_factor favor_small{true, false};
constexpr job_size_factor large_relative{false, true};
constexpr job_size_factor small_relative{true, true};

// Partition 0: MaxTime 16 minutes; partition 1: MaxTime=UNLIMITED; partition 2: MaxTime 0.
constexpr std::array<partition_info, 3> parts{{
    {.priority_job_factor = 1, .norm_priority = 1.0, .priority_tier = 1, .max_time = 16, .tres_totals = {}},
    {.priority_job_factor = 1, .norm_priority = 1.0, .priority_tier = 1, .max_time = infinite32, .tres_totals = {}},
    {.priority_job_factor = 1, .norm_priority = 1.0, .priority_tier = 1, .max_time = 0, .tres_totals = {}},
}};

context cluster(std::uint32_t nodes, std::uint32_t cpus) {
    context c{};
    c.node_count = nodes;
    c.cluster_cpus = cpus;
    c.partitions = parts;
    return c;
}
mfprio::job job(std::uint32_t n, std::uint32_t cpus, std::uint32_t time_limit = no_val32, std::uint32_t part = 0) {
    mfprio::job j{};
    j.min_nodes = n;
    j.cpus = cpus;
    j.time_limit = time_limit;
    j.partition = part;
    return j;
}
} // namespace

TEST_CASE("slurm: job size favoring large jobs") {
    CHECK(job_size_factor::name == "jobsize");
    CHECK_FALSE(job_size_factor{}.favor_small);
    CHECK_FALSE(job_size_factor{}.small_relative_to_time);
    // N = 8, C = 256, n = 2, c = 64: (2/8 + 64/256)/2 = (0.25 + 0.25)/2 = 0.25, exact
    CHECK(favor_large(job(2, 64), cluster(8, 256)) == 0.25);
    // N = 10, C = 320, n = 2, c = 16: (2/10 + 16/320)/2 = 0.125 (the same double operations)
    CHECK(favor_large(job(2, 16), cluster(10, 320)) == (2.0 / 10.0 + 16.0 / 320.0) / 2.0);
    CHECK(favor_large(job(2, 16), cluster(10, 320)) == doctest::Approx(0.125).epsilon(1e-15));
    // seed 000: "A job that requests all the nodes on the machine will get a job size factor of 1.0"
    CHECK(favor_large(job(8, 256), cluster(8, 256)) == 1.0);
    // 1 node, 1 CPU: (1/8 + 1/256)/2 = (0.125 + 0.00390625)/2 = 0.064453125
    CHECK(favor_large(job(1, 1), cluster(8, 256)) == 0.064453125);
}

TEST_CASE("slurm: job size favoring large jobs without a CPU count uses nodes alone") {
    // c = 0: js = n/N = 2/8
    CHECK(favor_large(job(2, 0), cluster(8, 256)) == 0.25);
    CHECK(favor_large(job(8, 0), cluster(8, 256)) == 1.0);
}

TEST_CASE("slurm: job size favoring large jobs is clamped to 1") {
    // n = 16 > N = 8: 16/8 = 2 -> 1
    CHECK(favor_large(job(16, 0), cluster(8, 256)) == 1.0);
    // (16/8 + 512/256)/2 = 2 -> 1
    CHECK(favor_large(job(16, 512), cluster(8, 256)) == 1.0);
    // (1/8 + 512/256)/2 = 1.0625 -> 1
    CHECK(favor_large(job(1, 512), cluster(8, 256)) == 1.0);
}

TEST_CASE("slurm: job size with PriorityFavorSmall") {
    // N = 8, C = 256, n = 2, c = 64: ((8-2)/8 + (256-64)/256)/2 = (0.75 + 0.75)/2 = 0.75
    CHECK(favor_small(job(2, 64), cluster(8, 256)) == 0.75);
    // c = 0: (8-2)/8 = 0.75
    CHECK(favor_small(job(2, 0), cluster(8, 256)) == 0.75);
    // 1 node, 1 CPU: (7/8 + 255/256)/2 = (0.875 + 0.99609375)/2 = 0.935546875. Note the seed's
    // page says "the single node job will receive the 1.0 job size factor"; Slurm's code (our
    // reference) gives (N-1)/N for the node part, so not quite 1.
    CHECK(favor_small(job(1, 1), cluster(8, 256)) == 0.935546875);
    // The whole machine: (0/8 + 0/256)/2 = 0
    CHECK(favor_small(job(8, 256), cluster(8, 256)) == 0.0);
}

TEST_CASE("slurm: job size with PriorityFavorSmall: n >= N gives a node part of 0") {
    // n = N: node part 0; c = 0: 0
    CHECK(favor_small(job(8, 0), cluster(8, 256)) == 0.0);
    // n = 10 > N = 8 (no uint32 wrap on the node part): (0 + (256-128)/256)/2 = 0.25
    CHECK(favor_small(job(10, 128), cluster(8, 256)) == 0.25);
}

TEST_CASE("slurm: job size with PriorityFavorSmall before Slurm 23.02: N - n wraps as uint32") {
    // Slurm 22.05.8's set_priority_factors: js = (double)(node_record_count - min_nodes) /
    // (double)node_record_count, uint32 subtraction, no N > n test (23.02 added it).
    constexpr job_size_factor favor_small_2205{true, false, true};
    // n = 10 > N = 8: (uint32)(8 - 10) = 4294967294; 4294967294/8 = 536870911.75, plus
    // (256-128)/256 = 0.5, halved: 268435456.125 > 1 -> 1 (23.02 and later: 0.25, above)
    CHECK(favor_small_2205(job(10, 128), cluster(8, 256)) == 1.0);
    // c = 0: 536870911.75 -> 1
    CHECK(favor_small_2205(job(10, 0), cluster(8, 256)) == 1.0);
    // n = N: 0 as before; n < N: the same as 23.02 and later
    CHECK(favor_small_2205(job(8, 0), cluster(8, 256)) == 0.0);
    CHECK(favor_small_2205(job(2, 64), cluster(8, 256)) == 0.75);
    // The block path gives the call operator's values.
    std::array<mfprio::job, 4> jobs{job(10, 128), job(2, 64), job(9, 0), job(8, 256)};
    std::array<double, 4> out{};
    const auto c = cluster(8, 256);
    favor_small_2205.block(std::span<const mfprio::job, 4>(jobs), c, std::span<double, 4>(out));
    for (std::size_t i = 0; i < 4; ++i) CHECK(out[i] == favor_small_2205(jobs[i], c));
    CHECK(out[2] == 1.0);
}

TEST_CASE("slurm: job size with PriorityFavorSmall: (C - c) wraps as uint32 when c > C") {
    // reference slurm.md 1.1 (NOTE) and 7.6: N = 10, C = 100, n = 1, c = 150:
    //   (C - c) as uint32 = 2^32 - 50 = 4294967246
    //   js = (9/10 + 4294967246/100)/2 = (0.9 + 42949672.46)/2 ~ 21474836.68 > 1 -> clamped to 1
    // (without the wrap it would be (0.9 - 0.5)/2 = 0.2)
    CHECK(favor_small(job(1, 150), cluster(10, 100)) == 1.0);
    // c = C + 1 still wraps: (C - c) = 2^32 - 1
    CHECK(favor_small(job(1, 101), cluster(10, 100)) == 1.0);
    // c = C does not: ((10-1)/10 + 0/100)/2 = 0.45 (the same double operations)
    CHECK(favor_small(job(1, 100), cluster(10, 100)) == (9.0 / 10.0 + 0.0 / 100.0) / 2.0);
}

TEST_CASE("slurm: job size SMALL_RELATIVE_TO_TIME with the job's time limit") {
    // N = 8, C = 256, n = 2, c = 16, T = 4: max(2*256/8, 16) = max(64, 16) = 64; 64/4/256 = 0.0625
    CHECK(large_relative(job(2, 16, 4), cluster(8, 256)) == 0.0625);
    // c above n average nodes: n = 1, c = 128, T = 2: max(32, 128) = 128; 128/2/256 = 0.25
    CHECK(large_relative(job(1, 128, 2), cluster(8, 256)) == 0.25);
    // seed 000: "a full-system job with a time limit of one will receive a job size factor of 1.0"
    CHECK(large_relative(job(8, 256, 1), cluster(8, 256)) == 1.0);
    // bigger than the system for one minute: 512/1/256 = 2 -> clamped to 1
    CHECK(large_relative(job(16, 0, 1), cluster(8, 256)) == 1.0);
    // a job whose own time limit is UNLIMITED (INFINITE, not NO_VAL): used as is -> tiny
    CHECK(large_relative(job(2, 16, infinite32), cluster(8, 256)) == 64.0 / 4294967295.0 / 256.0);
}

TEST_CASE("slurm: job size SMALL_RELATIVE_TO_TIME without a time limit uses the partition's MaxTime") {
    // NO_VAL limit, partition 0 MaxTime 16: 64/16/256 = 0.015625
    CHECK(large_relative(job(2, 16, no_val32, 0), cluster(8, 256)) == 0.015625);
    // partition 1 MaxTime=UNLIMITED (0xffffffff): 64/4294967295/256, about 5.8e-11
    const double unlimited = large_relative(job(2, 16, no_val32, 1), cluster(8, 256));
    CHECK(unlimited == 64.0 / 4294967295.0 / 256.0);
    CHECK(unlimited > 0.0);
    CHECK(unlimited < 1e-10);
}

TEST_CASE("slurm: job size SMALL_RELATIVE_TO_TIME without a limit or a partition uses T = 1") {
    // partition 7 does not exist: T = 1; 64/1/256 = 0.25
    CHECK(large_relative(job(2, 16, no_val32, 7), cluster(8, 256)) == 0.25);
    CHECK(small_relative(job(2, 16, no_val32, 7), cluster(8, 256)) == 0.75); // 1 - 0.25
}

TEST_CASE("slurm: job size SMALL_RELATIVE_TO_TIME with a time limit of 0") {
    // 64/0 = inf (IEEE division by zero); clamp -> 1. Favor small: 1 - inf = -inf -> clamp 0.
    CHECK(large_relative(job(2, 16, 0), cluster(8, 256)) == 1.0);
    CHECK(small_relative(job(2, 16, 0), cluster(8, 256)) == 0.0);
    // The same through a partition MaxTime of 0 (partition 2)
    CHECK(large_relative(job(2, 16, no_val32, 2), cluster(8, 256)) == 1.0);
    CHECK(small_relative(job(2, 16, no_val32, 2), cluster(8, 256)) == 0.0);
}

TEST_CASE("slurm: job size SMALL_RELATIVE_TO_TIME favoring small") {
    // 1 - 64/4/256 = 1 - 0.0625 = 0.9375
    CHECK(small_relative(job(2, 16, 4), cluster(8, 256)) == 0.9375);
    // full system, one minute: 1 - 1 = 0
    CHECK(small_relative(job(8, 256, 1), cluster(8, 256)) == 0.0);
    // bigger than the system: 1 - 2 = -1 -> clamped to 0
    CHECK(small_relative(job(16, 0, 1), cluster(8, 256)) == 0.0);
    // UNLIMITED partition: 1 - (about 5.8e-11), the same double operations
    CHECK(small_relative(job(2, 16, no_val32, 1), cluster(8, 256)) == 1.0 - 64.0 / 4294967295.0 / 256.0);
}

TEST_CASE("slurm: job size is 0 on a cluster without nodes or CPUs") {
    for (const auto& f : {favor_large, favor_small, large_relative, small_relative}) {
        CHECK(f(job(2, 16, 4), cluster(0, 256)) == 0.0);
        CHECK(f(job(2, 16, 4), cluster(8, 0)) == 0.0);
        CHECK(f(job(2, 16, 4), cluster(0, 0)) == 0.0);
    }
}
