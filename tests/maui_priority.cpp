// Tests for mfprio/maui/priority.hpp: the Maui engine with its weights and caps, the result
// policy (floor, ceiling, negative priorities, system priorities, truncation), run priority
// and start order. Values from seed 002 and reference flux_maui.md B1 and B4, worked by hand.
#include <doctest/doctest.h>

#include <mfprio/maui/job.hpp>
#include <mfprio/maui/priority.hpp>

#include <limits>
#include <vector>


using namespace mfprio::maui;

namespace {
constexpr std::int64_t now = 1'800'000'000;

struct cluster {
    std::vector<credential> users, groups, accounts, qos, classes;
    context c{};
    cluster() { c.now = now; }
    const context& ctx() {
        c.creds = {std::span<const credential>(users), std::span<const credential>(groups),
                   std::span<const credential>(accounts), std::span<const credential>(qos),
                   std::span<const credential>(classes)};
        return c;
    }
};

mfprio::maui::job queued_for(std::int64_t seconds) {
    mfprio::maui::job j;
    j.submit_time = now - seconds;
    j.wclimit = 3600;
    return j;
}

weights only(component_id keep) {
    weights w;
    w.component_weight = {0, 0, 0, 0, 0, 0, 0};
    w.sub_weight = {};
    w[keep] = 1;
    return w;
}
} // namespace

TEST_CASE("maui: with the default configuration a job's priority is its minutes queued, floored at 1") {
    // Reference B4.6: all component weights 1, subweights 0 but QUEUETIME 1: priority = minutes
    // queued, clamped to at least 1; Maui truncates the double.
    cluster k;
    const auto e = make_maui_engine(weights{});
    CHECK(e.priority(queued_for(600), k.ctx()) == priority_value{10, priority_status::computed});
    CHECK(e.priority(queued_for(90), k.ctx()).value == 1);   // 1.5 minutes, truncated
    CHECK(e.priority(queued_for(150), k.ctx()).value == 2);  // 2.5 minutes
    CHECK(e.priority(queued_for(30), k.ctx()) == priority_value{1, priority_status::floored}); // 0.5 < 1
    CHECK(e.priority(queued_for(0), k.ctx()) == priority_value{1, priority_status::floored});
    CHECK(e.priority(queued_for(86400), k.ctx()).value == 1440);
}

TEST_CASE("maui: seed 002's credential example") {
    // Seed 002: CREDWEIGHT 1, USERWEIGHT 1, GROUPWEIGHT 1, USERCFG[john] PRIORITY=2000,
    // USERCFG[paul] PRIORITY=-1000, GROUPCFG[staff] PRIORITY=10000. Queue time still counts
    // (QUEUETIMEWEIGHT 1 by default): 10 minutes.
    cluster k;
    k.users = {credential{.priority = 2000}, credential{.priority = -1000}};
    k.groups = {credential{.priority = 10000}};
    weights w;
    w[subcomponent::user] = 1;
    w[subcomponent::group] = 1;
    const auto e = make_maui_engine(w);
    mfprio::maui::job john = queued_for(600);
    john.user = 0;
    john.group = 0;
    mfprio::maui::job paul = john;
    paul.user = 1;
    CHECK(e.priority(john, k.ctx()).value == 2000 + 10000 + 10);
    CHECK(e.priority(paul, k.ctx()).value == -1000 + 10000 + 10);
    // Paul outside staff: -1000 + 10 is negative: floored to 1 unless negatives are enabled.
    paul.group = no_cred;
    CHECK(e.priority(paul, k.ctx()) == priority_value{1, priority_status::floored});
    options neg;
    neg.enable_negative = true;
    CHECK(make_maui_engine(w, neg).priority(paul, k.ctx()) == priority_value{-990, priority_status::computed});
}

TEST_CASE("maui: seed 002's fair-share example") {
    // Seed 002: FSWEIGHT 100, FSUSERWEIGHT 10, FSGROUPWEIGHT 20, FSACCOUNTWEIGHT 30,
    // FSQOSWEIGHT 40, FSCLASSWEIGHT 0. User A target 50 usage 45; group B no target, usage
    // 65; account C target 25 usage 35; QOS D target 10+ usage 25 (a floor: no effect);
    // class E no target, usage 20. "Priority += 100 * (10 * 5 + 20 * 0 + 30 * (-10) + 40 * 0
    // + 0 * 0)" = 100 x (-250) = -25000.
    cluster k;
    k.users = {credential{.target = {50, fs_target_mode::target}, .fs_usage = 45}};
    k.groups = {credential{.fs_usage = 65}};
    k.accounts = {credential{.target = {25, fs_target_mode::target}, .fs_usage = 35}};
    k.qos = {credential{.target = {10, fs_target_mode::floor}, .fs_usage = 25}};
    k.classes = {credential{.fs_usage = 20}};
    k.c.fs_active = true;
    weights w = only(component_id::fs);
    w[component_id::fs] = 100;
    w[subcomponent::fsuser] = 10;
    w[subcomponent::fsgroup] = 20;
    w[subcomponent::fsaccount] = 30;
    w[subcomponent::fsqos] = 40;
    w[subcomponent::fsclass] = 0;
    mfprio::maui::job x = queued_for(0);
    x.user = x.group = x.account = x.qos = x.job_class = 0;

    options neg;
    neg.enable_negative = true;
    const auto e = make_maui_engine(w, neg);
    CHECK(e.score(x, k.ctx()) == -25000.0);
    CHECK(e.priority(x, k.ctx()).value == -25000);
    const auto fs = e.get<4>().factor.explain(x, k.ctx());
    CHECK(fs.subterms[0].contribution == 50.0);   // 10 x 5
    CHECK(fs.subterms[1].contribution == 0.0);    // no group target
    CHECK(fs.subterms[2].contribution == -300.0); // 30 x (-10)
    CHECK(fs.subterms[3].factor == 0.0);          // the QOS floor
    CHECK(fs.value == -250.0);

    // The default settings floor it at 1; REJECTNEGPRIOJOBS keeps it and blocks the job.
    CHECK(make_maui_engine(w).priority(x, k.ctx()) == priority_value{1, priority_status::floored});
    options reject;
    reject.reject_negative = true;
    const auto r = make_maui_engine(w, reject).priority(x, k.ctx());
    CHECK(r == priority_value{-25000, priority_status::negative_rejected});
    CHECK_FALSE(r.startable());

    // FSCAP caps the pre-weighted sum (reference B1): min(FSCAP, sum). One-sided in Maui, so
    // -250 stays; symmetric in Moab: clamp(-250, -100, 100) = -100 -> -10000.
    w.component_cap[index(component_id::fs)] = 100;
    CHECK(make_maui_engine(w, neg).score(x, k.ctx()) == -25000.0);
    options moab = neg;
    moab.caps = cap_style::symmetric;
    CHECK(make_maui_engine(w, moab).score(x, k.ctx()) == -10000.0);
    // With usage 20 for user A, the sum is 10 x 30 - 300 = 0; with usage 5 and the account at
    // its target: 10 x 45 = 450, capped at 100 either way -> 10000.
    k.users[0].fs_usage = 5;
    k.accounts[0].fs_usage = 25;
    CHECK(make_maui_engine(w, neg).score(x, k.ctx()) == 10000.0);
    CHECK(make_maui_engine(w, moab).score(x, k.ctx()) == 10000.0);
    // Fair-share off (FSPOLICY NONE): the component is 0.
    k.c.fs_active = false;
    CHECK(make_maui_engine(w, neg).score(x, k.ctx()) == 0.0);
}

TEST_CASE("maui: subcomponent caps, one-sided and symmetric") {
    // XFACTORCAP 3 on a 1-hour job queued 4 hours (XFACTOR 5, seed table): 3 x XFACTORWEIGHT 10.
    cluster k;
    k.qos = {credential{}};
    weights w = only(component_id::serv);
    w[subcomponent::xfactor] = 10;
    w.sub_cap[index(subcomponent::xfactor)] = 3;
    mfprio::maui::job j = queued_for(4 * 3600);
    j.qos = 0;
    CHECK(make_maui_engine(w).score(j, k.ctx()) == 30.0);
    // A negative subfactor under a symmetric cap: WALLTIMEWEIGHT -1 favours short jobs
    // (reference B1); WALLTIMECAP 1000 bounds the 3600 s limit to -1000 only in Moab style.
    weights r = only(component_id::res);
    r[subcomponent::walltime] = -1;
    r.sub_cap[index(subcomponent::walltime)] = 1000;
    options neg;
    neg.enable_negative = true;
    CHECK(make_maui_engine(r, neg).score(j, k.ctx()) == -1000.0); // min(1000, 3600) x -1
    r[subcomponent::walltime] = 1;
    CHECK(make_maui_engine(r, neg).score(j, k.ctx()) == 1000.0);
    // Symmetric caps bound a negative subfactor too: PERCENT is positive, so use a component
    // weight -1 with CREDCAP on a negative priority.
    k.users = {credential{.priority = -5000}};
    j.user = 0;
    weights c = only(component_id::cred);
    c[subcomponent::user] = 1;
    c.component_cap[index(component_id::cred)] = 2000;
    CHECK(make_maui_engine(c, neg).score(j, k.ctx()) == -5000.0);
    options moab = neg;
    moab.caps = cap_style::symmetric;
    CHECK(make_maui_engine(c, moab).score(j, k.ctx()) == -2000.0);
}

TEST_CASE("maui: QOS QTWEIGHT, XFWEIGHT and group CLASSWEIGHT in the engine") {
    cluster k;
    // Seed 002: 'QOSCFG[special] QTWEIGHT=5000' increases the queue time weight by 5000.
    k.qos = {credential{}, credential{.qt_weight = 5000, .xf_weight = 100}};
    k.groups = {credential{.class_weight = 7}};
    k.classes = {credential{.priority = 3}};
    weights w; // QUEUETIMEWEIGHT 1, SERVICEWEIGHT 1
    w[subcomponent::xfactor] = 2;
    w[subcomponent::job_class] = 1;
    mfprio::maui::job j = queued_for(600); // 10 minutes; 1-hour limit: XFACTOR (600 + 3600) / 3600
    j.qos = 0;
    const auto e = make_maui_engine(w);
    const double xf = (600.0 + 3600.0) / 3600.0;
    CHECK(e.score(j, k.ctx()) == 10.0 + 2.0 * xf);
    j.qos = 1;
    CHECK(e.score(j, k.ctx()) == (1.0 + 5000.0) * 10.0 + 102.0 * xf);
    j.qos = 0;
    j.job_class = 0; // CLASS priority 3 x CLASSWEIGHT 1
    CHECK(e.score(j, k.ctx()) == 10.0 + 2.0 * xf + 3.0);
    j.group = 0;     // the group's CLASSWEIGHT 7 replaces it
    CHECK(e.score(j, k.ctx()) == 10.0 + 2.0 * xf + 21.0);
}

TEST_CASE("maui: ceiling, system priorities and truncation") {
    // Reference B4: min(Prio, 1e9); setspri N: 1e9 + N; setspri -r N: += N after the clamp.
    constexpr maui_result r{};
    CHECK(r.finish(12.7) == priority_value{12, priority_status::computed});
    CHECK(r.finish(2e9) == priority_value{1'000'000'000, priority_status::ceiling});
    CHECK(r.finish(0.2) == priority_value{1, priority_status::floored});
    // The floor's edges: 1 itself is computed, anything below it (NaN too) floored.
    CHECK(r.finish(1.0) == priority_value{1, priority_status::computed});
    CHECK(r.finish(1.9) == priority_value{1, priority_status::computed});
    CHECK(r.finish(0.9999999999999999) == priority_value{1, priority_status::floored});
    CHECK(r.finish(-0.0) == priority_value{1, priority_status::floored});
    CHECK(r.finish(-5e10) == priority_value{1, priority_status::floored});
    CHECK(r.finish(std::numeric_limits<double>::quiet_NaN()) == priority_value{1, priority_status::floored});
    CHECK(r.finish(-std::numeric_limits<double>::infinity()) == priority_value{1, priority_status::floored});
    CHECK(r.finish(5, system_priority_kind::absolute, 500) ==
          priority_value{1'000'000'500, priority_status::system_absolute});
    CHECK(r.finish(2e9, system_priority_kind::relative, -20) ==
          priority_value{999'999'980, priority_status::system_relative});
    CHECK(r.finish(-300, system_priority_kind::relative, 50) ==
          priority_value{51, priority_status::system_relative}); // floored to 1, then +50
    constexpr maui_result neg{false, true};
    CHECK(neg.finish(-3.7) == priority_value{-3, priority_status::computed}); // toward zero
    CHECK(neg.finish(-300, system_priority_kind::relative, 50).value == -250);
    constexpr maui_result reject{true, false};
    CHECK(reject.finish(-0.5) == priority_value{0, priority_status::computed}); // truncates to 0: startable
    CHECK(reject.finish(-1.5) == priority_value{-1, priority_status::negative_rejected});
    CHECK(reject.finish(-1.5, system_priority_kind::absolute, 1).status == priority_status::system_absolute);
    // `setspri 0` stores SystemPrio 0, and MJobGetStartPriority applies a system priority only
    // when SystemPrio > 0: none at all.
    CHECK(reject.finish(-1.5, system_priority_kind::absolute, 0) ==
          priority_value{-1, priority_status::negative_rejected});
    CHECK(r.finish(90, system_priority_kind::absolute, 0) == priority_value{90, priority_status::computed});
    // Below the 64-bit range (an infinite factor): held at INT64_MIN, never an undefined cast.
    CHECK(neg.finish(-std::numeric_limits<double>::infinity()).value == std::numeric_limits<std::int64_t>::min());
    CHECK(neg.finish(-1e300).value == std::numeric_limits<std::int64_t>::min());

    // Through the engine: the job's setspri fields.
    cluster k;
    const auto e = make_maui_engine(weights{});
    mfprio::maui::job j = queued_for(600);
    j.system_priority = 1000;
    j.system_priority_mode = system_priority_kind::absolute;
    CHECK(e.priority(j, k.ctx()).value == 1'000'001'000);
    j.system_priority = -4;
    j.system_priority_mode = system_priority_kind::relative;
    CHECK(e.priority(j, k.ctx()).value == 6);
}

TEST_CASE("maui: explain and batch agree with priority") {
    cluster k;
    k.users = {credential{.priority = 20}};
    k.c.cluster = resources{64, 0, 0, 0};
    weights w;
    w[subcomponent::user] = 3;
    w[component_id::res] = 2;
    w[subcomponent::proc] = 5;
    w[subcomponent::xfactor] = 1;
    const auto e = make_maui_engine(w);
    std::vector<mfprio::maui::job> jobs;
    for (std::uint32_t i = 0; i < 70; ++i) {
        mfprio::maui::job j = queued_for(37 * i);
        j.id = i + 1;
        j.user = i % 2 == 0 ? 0 : no_cred;
        j.procs = i % 5 + 1;
        jobs.push_back(j);
    }
    std::vector<priority_value> out(jobs.size());
    e.batch(std::span<const mfprio::maui::job>(jobs), k.ctx(), std::span<priority_value>(out));
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        const auto x = e.explain(jobs[i], k.ctx());
        CHECK(out[i] == e.priority(jobs[i], k.ctx()));
        CHECK(x.priority == out[i]);
        CHECK(x.score == e.score(jobs[i], k.ctx()));
        // Cred: 3 x 20 for even jobs; Res: 2 x 5 x procs.
        CHECK(x.terms[2].contribution == (i % 2 == 0 ? 60.0 : 0.0));
        CHECK(x.terms[5].contribution == 2.0 * 5.0 * static_cast<double>(i % 5 + 1));
    }
}

TEST_CASE("maui: the run priority in MJobGetRunPriority's integer arithmetic, without caps or EXECUTIONTIME") {
    cluster k;
    weights w;
    w[subcomponent::consumed] = 2;
    w[subcomponent::remaining] = -1;
    w[subcomponent::percent] = 5;
    w[subcomponent::executiontime] = 7; // commented out of MJobGetRunPriority: no effect
    w[component_id::usage] = 4;
    w.sub_cap[index(subcomponent::percent)] = 10; // MJobGetRunPriority applies no cap
    w.component_cap[index(component_id::usage)] = 1;
    options opts;
    opts.preempt_prio_margin = 25;
    mfprio::maui::job j = queued_for(7200);
    j.procs = 3;
    j.wclimit = 1000;
    j.state = mfprio::job_state::running;
    j.start_time = now - 700;
    // MJobGetRunPriority (MJob.c), by hand: Duration 1000, WallTime 700, ResourcesRequired 3:
    // consumed 3 x 700 = 2100, remaining 3 x 300 = 900, percent 700 x 100 / max(1, 300) = 233
    // (long division, not 233.33); 4 x (2 x 2100 - 1 x 900 + 5 x 233) = 4 x 4465 = 17860,
    // + StartPriority 1000 + PREEMPTPRIOMARGIN 25.
    CHECK(run_priority(w, opts, j, k.ctx(), 1000) == 18885.0);
    // Past its limit: remaining 3 x (1000 - 1500) = -1500, percent 1500 x 100 / max(1, -500) =
    // 150000; 4 x (2 x 4500 + 1500 + 5 x 150000) = 3042000, + 1025.
    j.start_time = now - 1500;
    CHECK(run_priority(w, opts, j, k.ctx(), 1000) == 3043025.0);
    // A job that is not running has none.
    j.start_time = 0;
    CHECK(run_priority(w, opts, j, k.ctx(), 1000) == 0.0);
}

TEST_CASE("maui: USAGE counts in the run priority, and in the start priority only for Moab") {
    cluster k;
    weights w;
    w[subcomponent::consumed] = 1;
    w[subcomponent::remaining] = 2;
    w[component_id::usage] = 3;
    options opts;
    opts.preempt_prio_margin = 100;
    mfprio::maui::job j = queued_for(7200);
    j.procs = 4;
    j.wclimit = 3600;
    j.start_time = now - 900;
    j.state = mfprio::job_state::running;
    // Reference B2: USAGEWEIGHT x (CONSUMEDW x procs x walltime + REMAININGW x procs x
    // (WCLimit - walltime) + ...) + StartPriority + PreemptPrioMargin
    // = 3 x (4 x 900 + 2 x 4 x 2700) + 500 + 100.
    CHECK(run_priority(w, opts, j, k.ctx(), 500) == 3.0 * (3600.0 + 21600.0) + 600.0);
    // Not in Maui's start priority: 120 minutes queued only.
    CHECK(make_maui_engine(w, opts).score(j, k.ctx()) == 120.0);
    opts.usage_in_start_priority = true;
    CHECK(make_maui_engine(w, opts).score(j, k.ctx()) == 120.0 + 3.0 * 25200.0);
}

TEST_CASE("maui: start order breaks Maui's ties by submission time then job id") {
    std::vector<mfprio::maui::job> jobs(4);
    jobs[0].id = 10; jobs[0].submit_time = 500;
    jobs[1].id = 11; jobs[1].submit_time = 400;
    jobs[2].id = 9;  jobs[2].submit_time = 500;
    jobs[3].id = 12; jobs[3].submit_time = 900;
    const std::vector<priority_value> prio{{50, {}}, {50, {}}, {50, {}}, {70, {}}};
    const auto order = start_order(std::span<const mfprio::maui::job>(jobs), std::span<const priority_value>(prio));
    CHECK(order == std::vector<std::size_t>{3, 1, 2, 0});
}
