// Tests for mfprio/core/result.hpp: Slurm's floor/clamp/truncate, held and admin-set jobs
// (decided without computing the sum), and the raw result.
#include <mfprio/core/result.hpp>

#include <cstdint>
#include <limits>

#include <doctest/doctest.h>

namespace {
using mfprio::priority_status;
using mfprio::priority_value;
using mfprio::slurm_result;

/// A job type without state or admin priority: the result policy only finishes the sum.
struct bare_job {};

/// Runs slurm_result on `j` with a score function that records whether it was called.
template <class J>
priority_value run(const J& j, double sum, bool& called) {
    called = false;
    return slurm_result{}(j, [&]() noexcept {
        called = true;
        return sum;
    });
}
} // namespace

TEST_CASE("core: slurm_result floors sums below 1 (0 is reserved for held jobs)") {
    // reference slurm.md 1: "if P < 1: P = 1"
    CHECK(slurm_result::finish(0.4) == priority_value{1u, priority_status::floored});
    CHECK(slurm_result::finish(0.0) == priority_value{1u, priority_status::floored});
    CHECK(slurm_result::finish(-0.0) == priority_value{1u, priority_status::floored});
    CHECK(slurm_result::finish(-5.0) == priority_value{1u, priority_status::floored});
    CHECK(slurm_result::finish(0.9999999999999999) == priority_value{1u, priority_status::floored});
    CHECK(slurm_result::finish(-std::numeric_limits<double>::infinity()) ==
          priority_value{1u, priority_status::floored});
    // NaN never compares below 1; Slurm's (uint64) cast of NaN, compiled for x86-64, gives
    // 2^63 (cvttsd2si's integer-indefinite value), over 0xFFFFFFFF: clamped to 4294967295.
    CHECK(slurm_result::finish(std::numeric_limits<double>::quiet_NaN()) ==
          priority_value{4294967295u, priority_status::clamped});
    // Exactly 1 is not floored.
    CHECK(slurm_result::finish(1.0) == priority_value{1u, priority_status::computed});
}

TEST_CASE("core: slurm_result clamps sums past 2^32-1") {
    // reference slurm.md 1: "if (uint64)P > 0xFFFFFFFF: P = 4294967295"
    // (uint64)4294967296.0 = 2^32 > 0xFFFFFFFF: clamped
    CHECK(slurm_result::finish(4294967296.0) == priority_value{4294967295u, priority_status::clamped});
    CHECK(slurm_result::finish(1e300) == priority_value{4294967295u, priority_status::clamped});
    CHECK(slurm_result::finish(std::numeric_limits<double>::infinity()) ==
          priority_value{4294967295u, priority_status::clamped});
    // (uint64)4294967295.7 = 4294967295, not > 0xFFFFFFFF: Slurm's test is false, and the
    // truncation gives 4294967295 as an ordinary computed value.
    CHECK(slurm_result::finish(4294967295.7) == priority_value{4294967295u, priority_status::computed});
    CHECK(slurm_result::finish(4294967295.0) == priority_value{4294967295u, priority_status::computed});
    // The largest double below 2^32 (2^32 - 2^-20) still truncates to 4294967295.
    CHECK(slurm_result::finish(4294967296.0 - 0x1p-20) == priority_value{4294967295u, priority_status::computed});
}

TEST_CASE("core: slurm_result truncates toward zero") {
    // reference slurm.md 1: "return (uint32)P   # truncation toward zero (no rounding)"
    CHECK(slurm_result::finish(1234.99) == priority_value{1234u, priority_status::computed});
    CHECK(slurm_result::finish(1234.0) == priority_value{1234u, priority_status::computed});
    CHECK(slurm_result::finish(1.5) == priority_value{1u, priority_status::computed});
    CHECK(slurm_result::finish(2147483648.5) == priority_value{2147483648u, priority_status::computed});
}

TEST_CASE("core: slurm_result gives 0 to a held job without computing its sum") {
    mfprio::job j{};
    j.state = mfprio::job_state::held;
    bool called = true;
    CHECK(run(j, 5000.0, called) == priority_value{0u, priority_status::held});
    CHECK_FALSE(called);
    // Held wins over an administrator-set priority (a held job is priority 0).
    j.admin_priority = 77;
    CHECK(run(j, 5000.0, called) == priority_value{0u, priority_status::held});
    CHECK_FALSE(called);
}

TEST_CASE("core: slurm_result passes an administrator-set priority through without computing") {
    // reference slurm.md 1: "if job.direct_set_prio && job.priority > 0: return job.priority"
    mfprio::job j{};
    j.admin_priority = 77;
    bool called = true;
    CHECK(run(j, 5000.0, called) == priority_value{77u, priority_status::admin_set});
    CHECK_FALSE(called);
    j.admin_priority = 0xffffffffu;
    CHECK(run(j, 5000.0, called) == priority_value{0xffffffffu, priority_status::admin_set});
    CHECK_FALSE(called);
    // 0 means "not set": the sum is computed.
    j.admin_priority = 0;
    CHECK(run(j, 5000.0, called) == priority_value{5000u, priority_status::computed});
    CHECK(called);
}

TEST_CASE("core: slurm_result computes the sum for pending, running and state-less jobs") {
    bool called = false;
    mfprio::job j{};
    CHECK(run(j, 1234.99, called) == priority_value{1234u, priority_status::computed});
    CHECK(called);
    j.state = mfprio::job_state::running;
    CHECK(run(j, 0.4, called) == priority_value{1u, priority_status::floored});
    CHECK(called);
    CHECK(run(bare_job{}, 4294967296.0, called) == priority_value{4294967295u, priority_status::clamped});
    CHECK(called);
}

TEST_CASE("core: raw_result returns the sum unchanged") {
    const mfprio::raw_result r{};
    CHECK(r(bare_job{}, [] { return -5.5; }) == -5.5);
    CHECK(r(mfprio::job{}, [] { return 4294967296.5; }) == 4294967296.5);
}

TEST_CASE("core: the result_policy concept") {
    CHECK(mfprio::result_policy<slurm_result, mfprio::job>);
    CHECK(mfprio::result_policy<slurm_result, bare_job>);
    CHECK(mfprio::result_policy<mfprio::raw_result, mfprio::job>);
    CHECK_FALSE(mfprio::result_policy<int, mfprio::job>);
    CHECK(priority_value{} == priority_value{0u, priority_status::computed});
}
