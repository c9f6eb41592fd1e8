// Tests for mfprio/flux/result.hpp, presets.hpp and order.hpp: flux-accounting's formula with
// its default and edited weights, HOLD and EXPEDITE urgencies, rounding, priority-hold, the
// upper clamp, seed 003's FCFS, flux-core's default plugin, the weight truncation and Flux's
// queue order. Values from reference flux_maui.md A1, A2.1, A2.4 and seed 003, worked by hand.
#include <doctest/doctest.h>

#include "flux_fixture.hpp"

#include <mfprio/core/engine.hpp>
#include <mfprio/core/result.hpp>
#include <mfprio/flux.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

using namespace mfprio::flux;
using flux_test::make_job;
using flux_test::tables;

namespace {

constexpr std::int64_t max_prio = 4294967295; // FLUX_JOB_PRIORITY_MAX

/// A factor that counts its calls and returns NaN: proves when the sum is not evaluated.
struct probe_factor {
    static constexpr std::string_view name = "probe";
    int* calls = nullptr;
    template <class J>
    double operator()(const J&, const context&) const noexcept {
        ++*calls;
        return std::numeric_limits<double>::quiet_NaN();
    }
};

/// A simple deterministic generator for the batch tests.
struct lcg {
    std::uint64_t s;
    std::uint32_t next(std::uint32_t n) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<std::uint32_t>((s >> 33) % n);
    }
};

} // namespace

// ------------------------------------------------------------------ concepts

static_assert(mfprio::result_policy<flux_result, job>);
static_assert(mfprio::result_policy<urgency_result, job>);
// Both decide on the urgency: a job type without one does not qualify.
static_assert(!mfprio::result_policy<flux_result, mfprio::job>);
static_assert(!mfprio::result_policy<urgency_result, mfprio::job>);

// HOLD, EXPEDITE and flux-core's default decide at compile time.
static_assert(flux_result{}(make_job(1, 0, no_index, no_index, 0), [] { return 5.0; }) ==
              priority_value{0, priority_status::held_urgency});
static_assert(make_flux_core_engine().priority(make_job(1, 0, no_index, no_index, 7), context{}) ==
              priority_value{7, priority_status::computed});
static_assert(truncate_weight(std::int64_t{1} << 31) == -2147483648LL);

// ------------------------------------------------------------------ HOLD and EXPEDITE

TEST_CASE("flux result: urgency 0 holds and urgency 31 expedites without evaluating the sum") {
    // Reference A2.1: urgency 0 -> 0 and urgency 31 -> 4294967295, the first checks of the
    // calculation. The probe would make the sum NaN and count its calls: it is never called.
    int calls = 0;
    const auto e = mfprio::make_engine(flux_result{}, mfprio::term<probe_factor, mfprio::fixed_weight<1u>>{
                                                          probe_factor{&calls}, {}});
    const context c{};
    const auto held = e.priority(make_job(1, 0, no_index, no_index, 0), c);
    CHECK(held == priority_value{0, priority_status::held_urgency});
    CHECK(held.held());
    const auto fast = e.priority(make_job(2, 0, no_index, no_index, 31), c);
    CHECK(fast == priority_value{max_prio, priority_status::expedited});
    CHECK_FALSE(fast.held());
    CHECK(calls == 0);
    // Any other urgency evaluates the sum once; NaN gives a held 0, never garbage.
    const auto nan = e.priority(make_job(3, 0, no_index, no_index, 16), c);
    CHECK(calls == 1);
    CHECK(nan == priority_value{0, priority_status::priority_hold});
}

TEST_CASE("flux-accounting engine: HOLD and EXPEDITE with the default weights") {
    // Reference A2.1: whatever the factors, urgency 0 -> 0, urgency 31 -> 4294967295.
    tables t;
    t.fairshare = {1.0};
    t.queues = {500000};
    const auto e = make_flux_accounting_engine();
    CHECK(e.priority(make_job(1, 0, 0, no_index, 0), t.ctx()) == priority_value{0, priority_status::held_urgency});
    CHECK(e.priority(make_job(2, 0, 0, no_index, 31), t.ctx()) ==
          priority_value{max_prio, priority_status::expedited});
}

// ------------------------------------------------------------------ the formula

TEST_CASE("flux-accounting engine: default weights") {
    // Reference A2.1 defaults: fair-share 100000, queue 10000, bank 0, urgency 1000.
    // Fair-share 0.5, queue priority 2, unknown bank, urgency 16:
    // 100000 x 0.5 + 10000 x 2 + 0 x 0 + 1000 x (16 - 16) = 50000 + 20000 = 70000.
    tables t;
    t.fairshare = {0.5};
    t.queues = {0, 2};
    const auto e = make_flux_accounting_engine();
    CHECK(flux_accounting_engine::names[0] == "fairshare");
    CHECK(flux_accounting_engine::names[1] == "queue");
    CHECK(flux_accounting_engine::names[2] == "bank");
    CHECK(flux_accounting_engine::names[3] == "urgency");

    const job j = make_job(1, 0, 1, no_index, 16);
    CHECK(e.score(j, t.ctx()) == 70000.0);
    CHECK(e.priority(j, t.ctx()) == priority_value{70000, priority_status::computed});
    const auto x = e.explain(j, t.ctx());
    CHECK(x.terms[0].contribution == 50000.0);
    CHECK(x.terms[1].factor == 2.0);
    CHECK(x.terms[1].contribution == 20000.0);
    CHECK(x.terms[2].contribution == 0.0);
    CHECK(x.terms[3].contribution == 0.0);
    CHECK(x.priority.value == 70000);

    // Urgency 20: + 1000 x 4 = 74000. Urgency 12: + 1000 x (-4) = 66000.
    CHECK(e.priority(make_job(2, 0, 1, no_index, 20), t.ctx()).value == 74000);
    CHECK(e.priority(make_job(3, 0, 1, no_index, 12), t.ctx()).value == 66000);
}

TEST_CASE("flux-accounting engine: a sum of 0 or below holds the job (t1056)") {
    // Reference A2.4.3 and t1056: only the urgency weight set (1000). Urgency 15:
    // round(1000 x (15 - 16)) = -1000 < 0 -> 0, which flux-core treats as priority-hold.
    const auto e = make_flux_accounting_engine({.fairshare = 0, .queue = 0, .bank = 0, .urgency = 1000});
    const context c{};
    const auto p15 = e.priority(make_job(1, 0, no_index, no_index, 15), c);
    CHECK(e.score(make_job(1, 0, no_index, no_index, 15), c) == -1000.0);
    CHECK(p15 == priority_value{0, priority_status::priority_hold});
    CHECK(p15.held());
    // Urgency 17: 1000 x 1 = 1000.
    CHECK(e.priority(make_job(2, 0, no_index, no_index, 17), c) == priority_value{1000, priority_status::computed});
    // Urgency 16: a sum of exactly 0 is priority 0 too, equally held by flux-core (reference A1).
    CHECK(e.priority(make_job(3, 0, no_index, no_index, 16), c) == priority_value{0, priority_status::priority_hold});
}

TEST_CASE("flux result: C round, halves away from zero") {
    // Reference A2.1: the sum is rounded with C round(). Exact binary halves:
    // fair-share 0.25 x weight 10 = 2.5 -> 3 (banker's rounding would give 2).
    tables t;
    t.fairshare = {0.25};
    const auto e = make_flux_accounting_engine({.fairshare = 10, .queue = 0, .bank = 0, .urgency = 1});
    CHECK(e.score(make_job(1, 0, no_index, no_index, 16), t.ctx()) == 2.5);
    CHECK(e.priority(make_job(1, 0, no_index, no_index, 16), t.ctx()).value == 3);
    // + urgency 17 x weight 1 = 2.5 + 1 = 3.5 -> 4.
    CHECK(e.priority(make_job(2, 0, no_index, no_index, 17), t.ctx()).value == 4);
    // Fair-share 0.25 x 2 = 0.5 -> 1 (not 0: that would hold the job).
    const auto half = make_flux_accounting_engine({.fairshare = 2, .queue = 0, .bank = 0, .urgency = 0});
    CHECK(half.priority(make_job(3, 0, no_index, no_index, 16), t.ctx()) == priority_value{1, priority_status::computed});
    // Negative side, before the floor: 2.5 + 1 x (11 - 16) = -2.5, which round() takes to -3
    // (away from zero), then the floor to 0.
    const job neg = make_job(4, 0, no_index, no_index, 11);
    CHECK(e.score(neg, t.ctx()) == -2.5);
    CHECK(std::round(e.score(neg, t.ctx())) == -3.0);
    CHECK(e.priority(neg, t.ctx()) == priority_value{0, priority_status::priority_hold});

    // finish() directly.
    const flux_result r{};
    CHECK(r.finish(2.5) == priority_value{3, priority_status::computed});
    CHECK(r.finish(3.5).value == 4);
    CHECK(r.finish(2.4999999999999996).value == 2); // largest double below 2.5
    CHECK(r.finish(1.0).value == 1);
    // 0.49999999999999994 (the largest double below 0.5) rounds to 0: held. A naive
    // floor(x + 0.5) would give 1, because x + 0.5 rounds up to 1.0 in double.
    CHECK(r.finish(0.49999999999999994) == priority_value{0, priority_status::priority_hold});
    CHECK(r.finish(0.5) == priority_value{1, priority_status::computed});
    CHECK(r.finish(-0.4) == priority_value{0, priority_status::priority_hold}); // round gives -0.0
    CHECK(r.finish(-0.5) == priority_value{0, priority_status::priority_hold}); // round gives -1
    CHECK(r.finish(-1e300) == priority_value{0, priority_status::priority_hold});
    CHECK(r.finish(-std::numeric_limits<double>::infinity()) == priority_value{0, priority_status::priority_hold});
    CHECK(r.finish(std::numeric_limits<double>::quiet_NaN()) == priority_value{0, priority_status::priority_hold});
}

TEST_CASE("flux result: the upper clamp, on by default, off to mirror the plugin") {
    // Reference A2.4.4: queue priority 500000 x weight 10000 = 5e9 > 4294967295. The plugin
    // returns 5000000000; mfprio clamps by default.
    tables t;
    t.queues = {500000};
    const job j = make_job(1, 0, 0, no_index, 16); // association 0 past the empty fair-share column: 0
    const auto clamped = make_flux_accounting_engine();
    CHECK(clamped.score(j, t.ctx()) == 5e9);
    CHECK(clamped.priority(j, t.ctx()) == priority_value{max_prio, priority_status::clamped});
    const auto plugin = make_flux_accounting_engine({}, flux_result{.clamp_upper = false});
    CHECK(plugin.priority(j, t.ctx()) == priority_value{5000000000, priority_status::computed});

    // The boundary: 4294967295 itself is computed; anything rounding above it is clamped.
    const flux_result r{};
    CHECK(r.finish(4294967295.0) == priority_value{max_prio, priority_status::computed});
    CHECK(r.finish(4294967295.4) == priority_value{max_prio, priority_status::computed}); // rounds down
    CHECK(r.finish(4294967295.5) == priority_value{max_prio, priority_status::clamped});  // rounds to 2^32
    const flux_result open{.clamp_upper = false};
    CHECK(open.finish(4294967295.5) == priority_value{4294967296, priority_status::computed});
    // Beyond int64 there is nothing to pass through: saturate (the plugin's cast is undefined).
    CHECK(open.finish(1e19) ==
          priority_value{std::numeric_limits<std::int64_t>::max(), priority_status::clamped});
    CHECK(open.finish(std::numeric_limits<double>::infinity()) ==
          priority_value{std::numeric_limits<std::int64_t>::max(), priority_status::clamped});
    CHECK(r.finish(std::numeric_limits<double>::infinity()) == priority_value{max_prio, priority_status::clamped});
    // 2^63 - 1024 is the largest double below 2^63: it passes.
    CHECK(open.finish(9223372036854774784.0) == priority_value{9223372036854774784, priority_status::computed});
}

TEST_CASE("flux-accounting engine: bank priority 3.5 (t1054)") {
    // Reference A2.1: the bank priority is a double; t1054 uses 3.5. Default weights with the
    // bank weight set. Fair-share 0.5, no queue, urgency 16:
    //   bank weight 1000: 50000 + 0 + 1000 x 3.5 + 0 = 53500;
    //   bank weight 1:    50000 + 3.5 = 50003.5 -> round -> 50004.
    tables t;
    t.fairshare = {0.5};
    t.banks = {0.0, 3.5};
    const job j = make_job(1, 0, no_index, 1, 16);
    const auto e1000 = make_flux_accounting_engine({.bank = 1000});
    CHECK(e1000.priority(j, t.ctx()).value == 53500);
    CHECK(e1000.explain(j, t.ctx()).terms[2].factor == 3.5);
    const auto e1 = make_flux_accounting_engine({.bank = 1});
    CHECK(e1.score(j, t.ctx()) == 50003.5);
    CHECK(e1.priority(j, t.ctx()).value == 50004);
    // The default bank weight is 0: the bank does not count.
    CHECK(make_flux_accounting_engine().priority(j, t.ctx()).value == 50000);
    // An unknown bank counts 0.0.
    CHECK(e1000.priority(make_job(2, 0, no_index, 7, 16), t.ctx()).value == 50000);
}

TEST_CASE("flux-accounting engine: two jobs of one association in different queues") {
    // Reference A2.4.1: the plugin would give both the last job's queue factor on a
    // reprioritization; mfprio gives each its own. Defaults, fair-share 0.5, urgency 16:
    //   queue priority 1: 50000 + 10000 x 1 = 60000;  queue priority 2: 50000 + 20000 = 70000.
    tables t;
    t.fairshare = {0.5};
    t.queues = {1, 2};
    const auto e = make_flux_accounting_engine();
    const job bronze = make_job(1, 0, 0, no_index, 16);
    const job silver = make_job(2, 0, 1, no_index, 16);
    CHECK(e.priority(silver, t.ctx()).value == 70000);
    CHECK(e.priority(bronze, t.ctx()).value == 60000);
    CHECK(e.priority(silver, t.ctx()).value == 70000);
}

// ------------------------------------------------------------------ weights

TEST_CASE("flux weights: the plugin keeps them in an int") {
    // Reference A2.1: weights are unpacked as 64-bit JSON integers and stored as int: the low
    // 32 bits, two's complement.
    CHECK(truncate_weight(100000) == 100000);
    CHECK(truncate_weight(0) == 0);
    CHECK(truncate_weight(-1) == -1);
    CHECK(truncate_weight(2147483647) == 2147483647);               // INT_MAX: unchanged
    CHECK(truncate_weight(2147483648LL) == -2147483648LL);          // 2^31 -> INT_MIN
    CHECK(truncate_weight(3000000000LL) == -1294967296LL);          // 3e9 - 2^32
    CHECK(truncate_weight(4294967296LL + 5) == 5);                  // 2^32 + 5
    CHECK(truncate_weight(-2147483649LL) == 2147483647);            // -2^31 - 1 + 2^32
    const auto w = truncate_weights({.fairshare = 4294967296LL + 100000, .queue = 10000, .bank = 2147483648LL,
                                     .urgency = 1000});
    CHECK(w.fairshare == 100000);
    CHECK(w.queue == 10000);
    CHECK(w.bank == -2147483648LL);
    CHECK(w.urgency == 1000);

    // Through the engine: an urgency weight configured as 2^32 + 1000 acts as 1000 in the
    // plugin. Urgency 20, nothing else: 1000 x 4 = 4000. Untruncated it would be
    // 4294968296 x 4 = 17179873184, clamped to 4294967295.
    const flux_accounting_weights configured{.fairshare = 0, .queue = 0, .bank = 0, .urgency = 4294967296LL + 1000};
    const job j = make_job(1, 0, no_index, no_index, 20);
    const context c{};
    CHECK(make_flux_accounting_engine(truncate_weights(configured)).priority(j, c).value == 4000);
    CHECK(make_flux_accounting_engine(configured).priority(j, c) == priority_value{max_prio, priority_status::clamped});
}

TEST_CASE("flux-accounting: the plugin's int x int products wrap; the exact engine does not") {
    // priority_calculation (flux-accounting src/plugins/mf_priority.cpp): `queue_weight *
    // queue_factor` and `urgency_weight * (urgency - 16)` are int x int. Queue priority
    // 300000 under the default queue weight 10000: 3000000000 exactly, which as a 32-bit int
    // is 3000000000 - 2^32 = -1294967296; the sum is then negative and the plugin returns
    // FLUX_JOB_PRIORITY_MIN, 0.
    const std::int64_t queue_priority[] = {300000, 5};
    context c{};
    c.queue_priority = queue_priority;
    const job big = make_job(1, 0, 0, no_index, 16);
    CHECK(make_flux_accounting_engine().priority(big, c).value == 3000000000);
    const auto plugin = make_flux_accounting_plugin_engine();
    CHECK(plugin.score(big, c) == -1294967296.0);
    CHECK(plugin.priority(big, c).value == 0);
    // Urgency weight 2147483647 and urgency 18: 2147483647 x 2 = 4294967294, as an int -2.
    const flux_accounting_weights heavy{.fairshare = 0, .queue = 0, .bank = 0, .urgency = 2147483647};
    const job urgent = make_job(2, 0, no_index, no_index, 18);
    CHECK(make_flux_accounting_engine(heavy).priority(urgent, c).value == 4294967294);
    CHECK(make_flux_accounting_plugin_engine(heavy).score(urgent, c) == -2.0);
    // Within the int range both agree: queue 5 and urgency 20, 10000 x 5 + 1000 x 4 = 54000.
    const job small = make_job(3, 0, 1, no_index, 20);
    CHECK(plugin.priority(small, c).value == 54000);
    CHECK(make_flux_accounting_engine().priority(small, c).value == 54000);
    CHECK(flux_accounting_plugin_engine::names[1] == "queue");
    CHECK(flux_accounting_plugin_engine::names[3] == "urgency");
}

// ------------------------------------------------------------------ FCFS and flux-core

TEST_CASE("flux FCFS engine: 4294967295 minus the submission number") {
    // Seed 003: first job 0xFFFFFFFF, each next one one less. Urgency 16 (default): the
    // rounding of an exact integer changes nothing.
    const auto e = make_fcfs_engine();
    const context c{};
    CHECK(e.priority(make_job(1, 0, no_index, no_index, 16, 0), c) == priority_value{4294967295, priority_status::computed});
    CHECK(e.priority(make_job(2, 0, no_index, no_index, 16, 1), c) == priority_value{4294967294, priority_status::computed});
    CHECK(e.priority(make_job(3, 0, no_index, no_index, 16, 2), c) == priority_value{4294967293, priority_status::computed});
    // Other urgencies do not matter, except HOLD and EXPEDITE.
    CHECK(e.priority(make_job(4, 0, no_index, no_index, 3, 2), c).value == 4294967293);
    CHECK(e.priority(make_job(5, 0, no_index, no_index, 0, 2), c) == priority_value{0, priority_status::held_urgency});
    CHECK(e.priority(make_job(6, 0, no_index, no_index, 31, 2), c) ==
          priority_value{max_prio, priority_status::expedited});
    // The 2^32 - 1-th job after the first reaches 0: held.
    CHECK(e.priority(make_job(7, 0, no_index, no_index, 16, 4294967295u), c) ==
          priority_value{0, priority_status::priority_hold});
}

TEST_CASE("flux-core default engine: priority = urgency, ties by job id") {
    // Reference A1: .priority-default sets priority = urgency; HOLD -> 0 and EXPEDITE ->
    // 4294967295 are forced by the job manager; equal priorities run by job id.
    const auto e = make_flux_core_engine();
    const context c{};
    CHECK(e.priority(make_job(1, 0, no_index, no_index, 16), c) == priority_value{16, priority_status::computed});
    CHECK(e.priority(make_job(1, 0, no_index, no_index, 5), c) == priority_value{5, priority_status::computed});
    CHECK(e.priority(make_job(1, 0, no_index, no_index, 30), c) == priority_value{30, priority_status::computed});
    CHECK(e.priority(make_job(1, 0, no_index, no_index, 0), c) == priority_value{0, priority_status::held_urgency});
    CHECK(e.priority(make_job(1, 0, no_index, no_index, 31), c) == priority_value{max_prio, priority_status::expedited});
    CHECK(e.score(make_job(1, 0, no_index, no_index, 5), c) == 5.0);
    CHECK(e.explain(make_job(1, 0, no_index, no_index, 5), c).terms[0].name == "flux_urgency");

    // flux_result over the urgency with weight 1 gives the same for every urgency.
    const auto same = mfprio::make_engine(flux_result{}, mfprio::term<urgency_value, mfprio::fixed_weight<1u>>{});
    for (int u = 0; u <= 31; ++u) {
        const job j = make_job(1, 0, no_index, no_index, static_cast<std::uint8_t>(u));
        CHECK(same.priority(j, c) == e.priority(j, c));
    }

    // Ids 7, 3, 5 at urgency 16 and 9 at urgency 20: 9 first, then 3, 5, 7.
    const std::vector<job> jobs{make_job(7, 0, no_index, no_index, 16), make_job(3, 0, no_index, no_index, 16),
                                make_job(5, 0, no_index, no_index, 16), make_job(9, 0, no_index, no_index, 20)};
    std::vector<priority_value> prio(jobs.size());
    e.batch(std::span<const job>(jobs), c, std::span<priority_value>(prio));
    const auto order = start_order(std::span<const job>(jobs), std::span<const priority_value>(prio));
    CHECK(order == std::vector<std::size_t>{3, 1, 2, 0});
}

// ------------------------------------------------------------------ order

TEST_CASE("flux order: priority descending, then job id ascending") {
    // Reference A1: job_priority_comparator.
    CHECK(schedules_before(10, 5, 9, 1));  // higher priority first, whatever the ids
    CHECK_FALSE(schedules_before(9, 1, 10, 5));
    CHECK(schedules_before(10, 1, 10, 5)); // equal priority: lower id first
    CHECK_FALSE(schedules_before(10, 5, 10, 1));
    CHECK_FALSE(schedules_before(10, 5, 10, 5));

    // Priorities 70000 (id 4), 0 held (id 1), 70000 (id 2), 4294967295 (id 9), 66000 (id 3).
    // Order: id 9, then id 2 and id 4 (tie, by id), id 3, and the held job last.
    const std::vector<job> jobs{make_job(4, 0, no_index, no_index, 16), make_job(1, 0, no_index, no_index, 0),
                                make_job(2, 0, no_index, no_index, 16), make_job(9, 0, no_index, no_index, 31),
                                make_job(3, 0, no_index, no_index, 12)};
    const std::vector<priority_value> prio{{70000, priority_status::computed},
                                           {0, priority_status::held_urgency},
                                           {70000, priority_status::computed},
                                           {max_prio, priority_status::expedited},
                                           {66000, priority_status::computed}};
    const auto order = start_order(std::span<const job>(jobs), std::span<const priority_value>(prio));
    CHECK(order == std::vector<std::size_t>{3, 2, 0, 4, 1});
    CHECK(prio[order.back()].held());
}

// ------------------------------------------------------------------ batch

TEST_CASE("flux presets: batch and explain agree with priority over generated jobs") {
    tables t;
    t.fairshare = {1.0, 0.5, 0.25, 1.0 / 3.0, 0.125, 0.9};
    t.queues = {0, 1, 2, 500000, -4};
    t.banks = {0.0, 3.5, -1.5, 0.1};
    lcg g{42};
    std::vector<job> jobs;
    for (std::uint32_t i = 0; i < 301; ++i) { // not a multiple of the block size: the tail too
        job j = make_job(i + 1, g.next(7), g.next(7), g.next(6), static_cast<std::uint8_t>(g.next(32)), g.next(1000));
        if (i % 11 == 0) j.queue = no_index;
        if (i % 13 == 0) j.bank = no_index;
        jobs.push_back(j);
    }
    const auto check = [&](const auto& e) {
        std::vector<priority_value> out(jobs.size());
        e.batch(std::span<const job>(jobs), t.ctx(), std::span<priority_value>(out));
        std::vector<double> scores(jobs.size());
        e.batch_scores(std::span<const job>(jobs), t.ctx(), std::span<double>(scores));
        for (std::size_t k = 0; k < jobs.size(); ++k) {
            const auto p = e.priority(jobs[k], t.ctx());
            CHECK(out[k] == p);
            CHECK(e.explain(jobs[k], t.ctx()).priority == p);
            CHECK(scores[k] == e.score(jobs[k], t.ctx()));
            CHECK(p.value >= 0);
        }
    };
    check(make_flux_accounting_engine());
    check(make_flux_accounting_engine({.fairshare = 7, .queue = 3, .bank = 1000, .urgency = 1}));
    check(make_flux_accounting_engine({.bank = 10}, flux_result{.clamp_upper = false}));
    check(make_fcfs_engine());
    check(make_flux_core_engine());
}
