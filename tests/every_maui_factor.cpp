// The conformance suite for Maui's subfactors, like every_factor.cpp for Slurm's: every
// subfactor over a few hundred generated jobs (fixed-seed RNG) in a context with credential
// tables, DEFAULTs and cluster resources, including credential indices past the tables,
// `no_cred`, a zero wallclock limit, future submit times and running jobs. Properties:
//   - the factor_policy concept holds for maui::job and the call operator is noexcept;
//   - the result is finite and the same when asked twice (factors are pure);
//   - bounds stated by reference B2: SPVIOLATION in {0, 1}; TARGETQUEUETIME in [1, 1000] in
//     Moab's form when a target is set; TARGETXFACTOR in (0, 1e8]; QUEUETIME >= 0; the
//     resource and usage values >= 0 but REMAINING (negative past the limit);
//   - monotonicity in time where the formula declares it: QUEUETIME, XFACTOR,
//     TARGETQUEUETIME and TARGETXFACTOR do not decrease as now grows for a pending job;
//   - the engine's batch equals its one-job path under random weights, caps of both
//     styles and random options.
#include <doctest/doctest.h>

#include <mfprio/maui/factors.hpp>
#include <mfprio/maui/job.hpp>
#include <mfprio/maui/priority.hpp>

#include <cmath>
#include <random>
#include <tuple>
#include <vector>

using namespace mfprio::maui;

namespace {
using all_factors =
    std::tuple<queuetime, xfactor, spviolation, bypass, target_queuetime, target_xfactor, user_priority,
               group_priority, account_priority, qos_priority, class_priority, unimplemented<subcomponent::attrattr>,
               unimplemented<subcomponent::attrstate>, fs_user, fs_group, fs_account, fs_qos, fs_class, nodes, procs,
               memory, swap, disk, proc_seconds, processor_equivalent, walltime, user_procs, user_jobs, consumed,
               execution_time, remaining, percent>;
static_assert(std::tuple_size_v<all_factors> == subcomponent_count);

constexpr std::int64_t now = 1'800'000'000;

struct world {
    std::vector<credential> tables[cred_kind_count];
    std::vector<std::uint32_t> uprocs, ujobs;
    context c{};
    std::vector<mfprio::maui::job> jobs;

    explicit world(std::uint64_t seed) {
        std::mt19937_64 rng(seed);
        auto pick = [&](std::uint64_t n) { return static_cast<std::uint32_t>(rng() % n); };
        const fs_target_mode modes[] = {fs_target_mode::none, fs_target_mode::target, fs_target_mode::floor,
                                        fs_target_mode::ceiling, fs_target_mode::cap_absolute,
                                        fs_target_mode::cap_relative};
        for (auto& t : tables) {
            for (int i = 0; i < 6; ++i) {
                credential cr;
                cr.priority = static_cast<std::int64_t>(pick(2001)) - 1000;
                cr.target = {static_cast<double>(pick(101)), modes[pick(6)]};
                cr.fs_usage = static_cast<double>(pick(10001)) / 100.0;
                cr.qt_weight = pick(3) == 0 ? 0 : static_cast<std::int64_t>(pick(100));
                cr.xf_weight = static_cast<std::int64_t>(pick(100)) - 50;
                cr.qt_target = pick(2) == 0 ? 0.0 : static_cast<double>(1 + pick(86400));
                cr.xf_target = pick(2) == 0 ? 0.0 : 1.0 + static_cast<double>(pick(100)) / 10.0;
                cr.class_weight = static_cast<std::int64_t>(pick(5)) - 1;
                cr.rm_priority = static_cast<std::int64_t>(pick(50));
                t.push_back(cr);
            }
        }
        for (int i = 0; i < 6; ++i) {
            uprocs.push_back(pick(500));
            ujobs.push_back(pick(20));
        }
        c.now = now;
        for (std::size_t k = 0; k < cred_kind_count; ++k) c.creds[k] = tables[k];
        c.defaults[index(cred_kind::user)] = credential{.priority = 3, .target = {20, fs_target_mode::ceiling}};
        c.defaults[index(cred_kind::job_class)].priority = 9;
        c.fs_active = true;
        c.cluster = resources{1024, 4'096'000, 100'000, 0};
        c.user_active_procs = uprocs;
        c.user_active_jobs = ujobs;
        // Credential indices 0..5 are in the tables, 6..7 past them, plus no_cred.
        auto cred = [&] { return pick(10) == 0 ? no_cred : pick(8); };
        for (std::uint32_t i = 0; i < 400; ++i) {
            mfprio::maui::job j;
            j.id = i + 1;
            j.user = cred();
            j.group = cred();
            j.account = cred();
            j.qos = cred();
            j.job_class = cred();
            j.submit_time = now - static_cast<std::int64_t>(pick(14 * 86400)) + (pick(20) == 0 ? 7200 : 0);
            j.eligible_time = pick(3) == 0 ? j.submit_time + pick(3600) : 0;
            j.policy_blocked_time = pick(3) == 0 ? now - pick(7200) : 0;
            j.blocked_time = pick(4) == 0 ? now - pick(7200) : 0;
            j.wclimit = pick(10) == 0 ? 0 : pick(3 * 86400);
            j.procs = 1 + pick(2048);
            j.nodes = 1 + pick(64);
            j.mem_mb = pick(200'000);
            j.swap_mb = pick(2) == 0 ? 0 : pick(50'000);
            j.disk_mb = pick(10'000);
            j.bypass = pick(4) == 0 ? pick(30) : 0;
            j.spviolation = pick(5) == 0;
            if (pick(5) == 0) {
                j.state = mfprio::job_state::running;
                j.start_time = now - pick(4 * 86400);
            }
            jobs.push_back(j);
        }
    }
};

template <class F>
void check_factor(const world& w) {
    static_assert(mfprio::factor_policy<F, mfprio::maui::job, context>);
    static_assert(noexcept(F{}(std::declval<const mfprio::maui::job&>(), std::declval<const context&>())));
    for (const auto& j : w.jobs) {
        const double v = F{}(j, w.c);
        INFO(F::name, " job ", j.id, " = ", v);
        CHECK(std::isfinite(v));
        CHECK(std::bit_cast<std::uint64_t>(v) == std::bit_cast<std::uint64_t>(F{}(j, w.c)));
        if constexpr (std::is_same_v<F, spviolation>) CHECK((v == 0.0 || v == 1.0));
        if constexpr (std::is_same_v<F, queuetime> || std::is_same_v<F, nodes> || std::is_same_v<F, procs> ||
                      std::is_same_v<F, memory> || std::is_same_v<F, proc_seconds> ||
                      std::is_same_v<F, processor_equivalent> || std::is_same_v<F, consumed> ||
                      std::is_same_v<F, percent> || std::is_same_v<F, xfactor>)
            CHECK(v >= 0.0);
        if constexpr (std::is_same_v<F, target_xfactor>) CHECK((v >= 0.0 && v <= 1e8));
        if constexpr (std::is_same_v<F, target_queuetime>) {
            const credential* q = w.c.find(cred_kind::qos, j.qos);
            if (q == nullptr || !(q->qt_target > 0)) CHECK(v == 0.0);
            else if (w.c.opts.target_queuetime == target_queuetime_form::moab) CHECK((v >= 1.0 && v <= 1000.0));
            else CHECK(v == std::pow(0.0001, -2.0)); // Maui 3.3: always the ceiling
        }
    }
}

template <class F>
void check_monotone_in_now(world& w) {
    for (const auto& j : w.jobs) {
        if (j.state != mfprio::job_state::pending) continue;
        double last = -1;
        for (std::int64_t dt = 0; dt <= 3 * 86400; dt += 1800) {
            w.c.now = now + dt;
            const double v = F{}(j, w.c);
            INFO(F::name, " job ", j.id, " dt ", dt);
            CHECK(v >= last);
            last = v;
        }
    }
    w.c.now = now;
}
} // namespace

TEST_CASE("every Maui factor: concept, noexcept, finite, pure, bounded") {
    for (const std::uint64_t seed : {1u, 2u, 3u}) {
        world w(seed);
        std::apply([&](auto... f) { (check_factor<decltype(f)>(w), ...); }, all_factors{});
        w.c.opts.target_queuetime = target_queuetime_form::maui33;
        w.c.opts.xfactor = xfactor_form::doc;
        w.c.opts.queuetime = queuetime_unit::whole_minutes;
        w.c.opts.usage_executiontime = true;
        w.c.opts.fs_percent_based = true;
        std::apply([&](auto... f) { (check_factor<decltype(f)>(w), ...); }, all_factors{});
    }
}

TEST_CASE("every Maui factor: the service and target factors do not decrease with time") {
    world w(7);
    check_monotone_in_now<queuetime>(w);
    check_monotone_in_now<xfactor>(w);
    check_monotone_in_now<target_queuetime>(w);
    check_monotone_in_now<target_xfactor>(w);
    w.c.opts.xfactor = xfactor_form::doc;
    check_monotone_in_now<xfactor>(w);
}

TEST_CASE("every Maui factor: the engine's batch equals its one-job path") {
    std::mt19937_64 rng(11);
    for (int round = 0; round < 20; ++round) {
        world w(100 + static_cast<std::uint64_t>(round));
        weights wt;
        for (auto& x : wt.component_weight) x = static_cast<std::int64_t>(rng() % 21) - 5;
        for (auto& x : wt.sub_weight) x = rng() % 3 == 0 ? 0 : static_cast<std::int64_t>(rng() % 201) - 100;
        for (auto& x : wt.component_cap) x = rng() % 2 == 0 ? 0.0 : static_cast<double>(rng() % 100000);
        for (auto& x : wt.sub_cap) x = rng() % 3 == 0 ? static_cast<double>(rng() % 1000) : 0.0;
        options o;
        o.caps = round % 2 == 0 ? cap_style::upper : cap_style::symmetric;
        o.enable_negative = round % 3 == 0;
        o.reject_negative = round % 5 == 0;
        o.usage_in_start_priority = round % 4 == 0;
        w.c.opts = o;
        const auto e = make_maui_engine(wt, o);
        std::vector<priority_value> out(w.jobs.size());
        e.batch(std::span<const mfprio::maui::job>(w.jobs), w.c, std::span<priority_value>(out));
        for (std::size_t i = 0; i < w.jobs.size(); ++i) {
            INFO("round ", round, " job ", w.jobs[i].id);
            CHECK(out[i] == e.priority(w.jobs[i], w.c));
            CHECK(e.explain(w.jobs[i], w.c).priority == out[i]);
        }
    }
}
