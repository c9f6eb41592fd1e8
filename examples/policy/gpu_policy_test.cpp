// The test suite of the site's GPU-hours fair-use policy (gpu_policy.hpp), written the way a
// policy author writes theirs: doctest plus <mfprio/testing.hpp> (builders, the clock, the
// factor contract checks, queue order assertions). Every expected priority is worked out by
// hand in a comment next to it.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <mfprio/testing.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gpu_policy.hpp"

namespace {

namespace ms = mfprio::slurm;
using mfprio::testing::basic_job_builder;
using mfprio::testing::monotone;
using mfprio::testing::slurm_cluster_builder;
using mfprio::testing::test_clock;
using site::gpu_fair_use;
using site::gpu_job;

/// Builds the site's own job type; `gpus` and `owner_gpu_hours` are set with `set`.
using gpu_job_builder = basic_job_builder<gpu_job>;

constexpr std::uint16_t normal = 0; ///< QOS normal, Priority 10: factor 10/100 = 0.1
constexpr std::uint16_t high = 1;   ///< QOS high, Priority 100: factor 1
constexpr std::int64_t hour = 3600;
constexpr std::int64_t day = 86400;

/// The site: 16 nodes of 32 CPUs, one partition, two QOS.
slurm_cluster_builder site_cluster() {
    return slurm_cluster_builder{}.nodes(16).cpus(512).partition("gpu").qos("normal", 10).qos("high", 100);
}

/// The jobs of the hand-worked examples (see "hand-worked priorities" for their numbers).
struct queue {
    test_clock clock; // 1'700'000'000
    slurm_cluster_builder cluster = site_cluster();
    gpu_job light = gpu_job_builder{}.id(1).qos(normal).submitted_ago(clock, 1 * hour).time_limit_minutes(120)
                        .set(&gpu_job::gpus, 1).set(&gpu_job::owner_gpu_hours, 100.0).build();
    gpu_job heavy = gpu_job_builder{}.id(2).qos(normal).submitted_ago(clock, 1 * hour).time_limit_minutes(1440)
                        .set(&gpu_job::gpus, 8).set(&gpu_job::owner_gpu_hours, 100.0).build();
    gpu_job heavy_high_old = gpu_job_builder{}.id(3).qos(high).submitted_ago(clock, 3 * day).time_limit_minutes(1440)
                                 .set(&gpu_job::gpus, 8).set(&gpu_job::owner_gpu_hours, 100.0).build();
    gpu_job cpu_only = gpu_job_builder{}.id(4).qos(normal).submitted_ago(clock, 0).time_limit_minutes(600)
                           .cpus(64).build();
    gpu_job over_budget = gpu_job_builder{}.id(5).qos(normal).submitted_ago(clock, 2 * day).time_limit_minutes(60)
                              .set(&gpu_job::gpus, 1).set(&gpu_job::owner_gpu_hours, 2000.0).build();

    [[nodiscard]] std::vector<gpu_job> all() const { return {light, heavy, heavy_high_old, cpu_only, over_budget}; }
};

/// Jobs reaching every edge of the policy's inputs: no GPUs, a huge request, no time limit,
/// UNLIMITED, a limit of 0, usage negative, NaN, infinite and far past the budget.
std::vector<gpu_job> edge_jobs(const test_clock& clock) {
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    constexpr double inf = std::numeric_limits<double>::infinity();
    std::vector<gpu_job> jobs;
    std::uint32_t id = 100;
    for (std::uint32_t gpus : {0u, 1u, 4u, 8u, 64u, 0xffffffffu})
        for (std::uint32_t minutes : {0u, 1u, 60u, 1440u, 43200u, mfprio::no_val32, mfprio::infinite32})
            for (double used : {0.0, 10.5, 999.0, 1000.0, 5e6, -50.0, nan, inf})
                jobs.push_back(gpu_job_builder{}.id(id++).submitted_ago(clock, hour).time_limit_minutes(minutes)
                                   .with([&](gpu_job& j) {
                                       j.gpus = gpus;
                                       j.owner_gpu_hours = used;
                                   })
                                   .build());
    return jobs;
}

} // namespace

// ---------------------------------------------------------------- the factor's contract

// At compile time: the concept, noexcept, double; and the constraint does its job: a job type
// without the site's fields is not accepted (a concept check says no instead of breaking).
static_assert(mfprio::testing::assert_factor_policy<gpu_fair_use, gpu_job, ms::context>());
static_assert(!mfprio::factor_policy<gpu_fair_use, mfprio::job, ms::context>);
static_assert(mfprio::factor_policy<ms::age_factor, gpu_job, ms::context>); // Slurm's factors read it too
static_assert(mfprio::factor_policy<ms::qos_factor, gpu_job, ms::context>);

TEST_CASE("gpu_fair_use: finite, pure and within [0, 1] for every edge of its inputs") {
    const test_clock clock;
    const auto cluster = site_cluster();
    const auto jobs = edge_jobs(clock);
    REQUIRE(jobs.size() == 6 * 7 * 8);
    for (const double budget : {1000.0, 1.0, 1e-300, 0.0, -5.0, std::numeric_limits<double>::infinity(),
                                std::numeric_limits<double>::quiet_NaN()}) {
        CAPTURE(budget);
        MFPRIO_CHECK_FACTOR_CONTRACT(gpu_fair_use{budget, 1440}, jobs, cluster.context(clock),
                                     mfprio::testing::unit_range);
    }
    // The two factors of Slurm it is combined with keep their own contract on these jobs.
    MFPRIO_CHECK_FACTOR_CONTRACT(ms::age_factor{site::max_age_seconds}, jobs, cluster.context(clock),
                                 mfprio::testing::unit_range);
    MFPRIO_CHECK_FACTOR_CONTRACT(ms::qos_factor{}, jobs, cluster.context(clock), mfprio::testing::unit_range);
}

TEST_CASE("gpu_fair_use: non-increasing in GPUs, in the time limit and in the owner's usage") {
    const test_clock clock;
    const auto cluster = site_cluster();
    const auto ctx = cluster.context(clock);
    const auto jobs = edge_jobs(clock);
    const gpu_fair_use f{};
    // GPUs 0, 1, 2, ... 15 (from 0: a CPU-only job's 1 is the top of the range).
    MFPRIO_CHECK_MONOTONE(f, jobs, ctx, [](gpu_job& j, int k) { j.gpus = static_cast<std::uint32_t>(k); },
                          monotone::non_increasing);
    // Time limits 1 minute to ~5 days, in steps of 7 hours (not the sentinels: no limit and
    // UNLIMITED count a day, by design).
    MFPRIO_CHECK_MONOTONE(f, jobs, ctx,
                          [](gpu_job& j, int k) { j.time_limit = 1 + 420 * static_cast<std::uint32_t>(k); },
                          monotone::non_increasing, 18);
    // Usage 0 to 1200 GPU-hours, past the budget.
    MFPRIO_CHECK_MONOTONE(f, jobs, ctx, [](gpu_job& j, int k) { j.owner_gpu_hours = 40.0 * k; },
                          monotone::non_increasing, 31);
}

TEST_CASE("as the clock moves: age is non-decreasing, the GPU factor does not move") {
    test_clock clock;
    const auto cluster = site_cluster();
    const auto jobs = edge_jobs(clock);
    // 40 steps of 6 hours: 10 days, past PriorityMaxAge (7 days).
    MFPRIO_CHECK_MONOTONE_IN_TIME(ms::age_factor{site::max_age_seconds}, jobs, clock, cluster, 6 * hour,
                                  monotone::non_decreasing, 40);
    MFPRIO_CHECK_MONOTONE_IN_TIME(gpu_fair_use{}, jobs, clock, cluster, 6 * hour, monotone::non_decreasing, 40);
    MFPRIO_CHECK_MONOTONE_IN_TIME(gpu_fair_use{}, jobs, clock, cluster, 6 * hour, monotone::non_increasing, 40);
    CHECK(clock.now() == test_clock::default_start); // the check puts the clock back
}

TEST_CASE("gpu_fair_use reads nothing of the context: it does not move as the context does") {
    // check_monotone_in_context gives the context of each step; here the pass time moves a
    // day a step. Both directions hold only for a value that does not move.
    const test_clock clock;
    const auto cluster = site_cluster();
    const auto jobs = edge_jobs(clock);
    const auto context_at = [&](int k) { return cluster.context(clock.now() + k * day); };
    MFPRIO_CHECK_MONOTONE_IN_CONTEXT(gpu_fair_use{}, jobs, context_at, monotone::non_increasing, 5);
    MFPRIO_CHECK_MONOTONE_IN_CONTEXT(gpu_fair_use{}, jobs, context_at, monotone::non_decreasing, 5);
}

// ---------------------------------------------------------------- priorities by hand

TEST_CASE("hand-worked priorities") {
    const queue q;
    const auto ctx = q.cluster.context(q.clock);
    constexpr auto engine = site::make_site_engine();
    // Weights: age 1000 (PriorityMaxAge 7 days = 604800 s), QOS 2000, GPU 5000. QOS factors:
    // normal 10/100 = 0.1 -> 200 points, high 100/100 = 1 -> 2000 points.

    // Job 1, light: 1 GPU x 120 min = 2 GPU-hours, owner used 100 of 1000.
    //   age 3600/604800 = 0.00595238... -> 5.952; QOS 200; GPU 1 - 102/1000 = 0.898 -> 4490
    //   sum 4695.952 -> 4695
    CHECK(engine.priority(q.light, ctx).value == 4695);
    // Job 2, heavy: 8 GPUs x 1440 min = 192 GPU-hours, owner used 100.
    //   age 5.952; QOS 200; GPU 1 - 292/1000 = 0.708 -> 3540; sum 3745.952 -> 3745
    CHECK(engine.priority(q.heavy, ctx).value == 3745);
    // Job 3, heavy in QOS high, 3 days old: age 259200/604800 = 0.428571... -> 428.571;
    //   QOS 2000; GPU 3540; sum 5968.571 -> 5968
    CHECK(engine.priority(q.heavy_high_old, ctx).value == 5968);
    // Job 4, CPU only, just submitted: age 0; QOS 200; GPU factor 1 -> 5000; sum 5200
    CHECK(engine.priority(q.cpu_only, ctx).value == 5200);
    // Job 5, owner past the budget (2000 + 1 of 1000 GPU-hours), 2 days old:
    //   age 172800/604800 = 0.285714... -> 285.714; QOS 200; GPU 0; sum 485.714 -> 485
    CHECK(engine.priority(q.over_budget, ctx).value == 485);

    // The breakdown the engine gives is the one the message of a failing assertion shows.
    const auto why = engine.explain(q.light, ctx);
    CHECK(why.terms[2].name == "gpu_fair_use");
    CHECK(why.terms[2].factor == doctest::Approx(0.898));
    CHECK(why.terms[2].contribution == doctest::Approx(4490.0));
}

// ---------------------------------------------------------------- queue order

TEST_CASE("queue order: a GPU-light job is ahead of a GPU-heavy one of the same age") {
    const queue q;
    const auto ctx = q.cluster.context(q.clock);
    constexpr auto engine = site::make_site_engine();
    MFPRIO_CHECK_BEFORE(engine, q.light, q.heavy, ctx);    // 4695 > 3745
    MFPRIO_CHECK_BEFORE(engine, q.cpu_only, q.light, ctx); // 5200 > 4695: no GPUs, no penalty
    // QOS high and 3 days of age outweigh the GPU penalty; the user past the budget is last.
    MFPRIO_CHECK_ORDER(engine, q.all(), ctx, {3, 4, 1, 2, 5}); // 5968, 5200, 4695, 3745, 485
}

TEST_CASE("queue order over time: age lets a heavy job overtake, then the light one catches up") {
    test_clock clock;
    const auto cluster = site_cluster();
    constexpr auto engine = site::make_site_engine();
    const auto heavy = gpu_job_builder{}.id(2).submitted_ago(clock, 0).time_limit_minutes(1440)
                           .set(&gpu_job::gpus, 8).set(&gpu_job::owner_gpu_hours, 100.0).build();
    clock.advance(7 * day);
    const auto light = gpu_job_builder{}.id(1).submitted_ago(clock, 0).time_limit_minutes(120)
                           .set(&gpu_job::gpus, 1).set(&gpu_job::owner_gpu_hours, 100.0).build();
    // Now the heavy job is 7 days old: age 1 -> 1000; QOS 200; GPU 3540: 4740.
    // The light one was just submitted: age 0; QOS 200; GPU 4490: 4690. The heavy job leads
    // by 50 points.
    MFPRIO_CHECK_BEFORE(engine, heavy, light, cluster.context(clock));
    CHECK(engine.priority(heavy, cluster.context(clock)).value == 4740);
    CHECK(engine.priority(light, cluster.context(clock)).value == 4690);
    // 9 hours later the heavy job's age is capped at 1000 and the light one has 32400/604800
    // = 0.0535714... -> 53.571 points: 4743.571 -> 4743 against 4740.
    clock.advance(9 * hour);
    MFPRIO_CHECK_BEFORE(engine, light, heavy, cluster.context(clock));
    CHECK(engine.priority(light, cluster.context(clock)).value == 4743);
}

// ---------------------------------------------------------------- what failures say

TEST_CASE("a failing order assertion shows both breakdowns side by side") {
    const queue q;
    const auto ctx = q.cluster.context(q.clock);
    constexpr auto engine = site::make_site_engine();
    // The wrong expectation: the heavy job ahead of the light one.
    const auto r = mfprio::testing::check_before(engine, q.heavy, q.light, ctx);
    CHECK_FALSE(r.ok);
    // Every number is the shortest text that reads back as the same double: the sum of job 2
    // is 3745.9523809523807, not a rounded 3745.952, so a truncation surprise shows.
    CHECK(r.message == std::string(
        "job 2 should be ahead of job 1, but its priority 3745 is below 4695\n"
        "             | job 2                                            | job 1                                           | job 2 - job 1\n"
        "term         |               factor  weight        contribution |               factor  weight       contribution |  contribution\n"
        "-------------+--------------------------------------------------+-------------------------------------------------+--------------\n"
        "age          | 0.005952380952380952    1000   5.952380952380952 | 0.005952380952380952    1000  5.952380952380952 |             0\n"
        "qos          |                  0.1    2000                 200 |                  0.1    2000                200 |             0\n"
        "gpu_fair_use |                0.708    5000                3540 |                0.898    5000               4490 |          -950\n"
        "-------------+--------------------------------------------------+-------------------------------------------------+--------------\n"
        "sum          |                               3745.9523809523807 |                               4695.952380952381 |          -950\n"
        "priority     |                                             3745 |                                            4695 |          -950\n"));
}

TEST_CASE("a failing queue order names the expected and actual orders") {
    const queue q;
    const auto ctx = q.cluster.context(q.clock);
    constexpr auto engine = site::make_site_engine();
    const auto r = mfprio::testing::check_order(engine, q.all(), ctx, {3, 2, 1});
    CHECK_FALSE(r.ok);
    const auto has = [&](const char* text) { return r.message.find(text) != std::string::npos; };
    CHECK(has("  expected: 3, 2, 1\n"));
    CHECK(has("  actual:   3 at 5968, 4 at 5200, 1 at 4695, 2 at 3745, 5 at 485\n"));
    CHECK(has("  job 2 should be ahead of job 1: priority 3745 vs 4695\n"));
    CHECK(has("gpu_fair_use"));
    // An id that is not in the set, and an order of one job, are mistakes of the test itself.
    CHECK(mfprio::testing::check_order(engine, q.all(), ctx, {3, 9}).message == "no job with id 9 among the 5 jobs\n");
    CHECK_FALSE(mfprio::testing::check_order(engine, q.all(), ctx, {3}).ok);
}

namespace {
/// A broken policy, to see what the contract checks say: it forgets to clamp (8 GPUs give 2)
/// and counts its calls (impure).
struct broken_gpu_factor {
    static constexpr std::string_view name = "broken_gpu";
    static inline int calls = 0;
    template <class J, class Ctx>
        requires site::gpu_request<J>
    double operator()(const J& j, const Ctx&) const noexcept {
        ++calls;
        if (j.gpus == 3) return static_cast<double>(calls); // a different value every time
        return static_cast<double>(j.gpus) / 4.0;
    }
};
} // namespace

TEST_CASE("a failing contract check names the factor, the job and the values") {
    const test_clock clock;
    const auto cluster = site_cluster();
    std::vector<gpu_job> jobs;
    for (std::uint32_t g : {0u, 4u, 8u, 3u})
        jobs.push_back(gpu_job_builder{}.id(10 + g).set(&gpu_job::gpus, g).build());
    broken_gpu_factor::calls = 0;
    const auto r = mfprio::testing::check_factor_contract(broken_gpu_factor{}, jobs, cluster.context(clock),
                                                          mfprio::testing::unit_range);
    CHECK_FALSE(r.ok);
    CHECK(r.message == std::string("factor 'broken_gpu' broke its contract on 2 of 4 jobs:\n"
                                   "  job #2 (id 18): 2 is outside the declared range [0, 1]\n"
                                   "  job #3 (id 13): 7 is outside the declared range [0, 1]\n"
                                   "  job #3 (id 13): not pure: 7, then 8 for the same job and context\n"));
    // Declared non-decreasing in GPUs, it is, but not non-increasing:
    const auto m = mfprio::testing::check_monotone(
        gpu_fair_use{}, jobs, cluster.context(clock), [](gpu_job& j, int k) { j.gpus = static_cast<std::uint32_t>(k); },
        monotone::non_decreasing, 3);
    CHECK_FALSE(m.ok);
    // (Job 10 has no time limit: a day. 1 GPU: 1 - 24/1000; 2 GPUs: 1 - 48/1000.)
    CHECK(m.message.rfind("factor 'gpu_fair_use' is not non-decreasing as the job changes for 4 of 4 jobs:\n"
                          "  job #0 (id 10): step 0 gives 1, step 1 gives 0.976; values by step: 1, 0.976, 0.952\n",
                          0) == 0);
    // An empty set cannot pass: a check that checks nothing would hide a broken test.
    CHECK_FALSE(mfprio::testing::check_factor_contract(gpu_fair_use{}, std::vector<gpu_job>{}, cluster.context(clock),
                                                       mfprio::testing::unit_range).ok);
}

// This test case fails on purpose (doctest counts it as passed because it is marked
// should_fail): its output is what a policy author sees when an order assertion fails.
TEST_CASE("what a failing MFPRIO_CHECK_BEFORE prints (this one fails on purpose)" * doctest::should_fail()) {
    const queue q;
    constexpr auto engine = site::make_site_engine();
    MFPRIO_CHECK_BEFORE(engine, q.heavy, q.light, q.cluster.context(q.clock));
}
