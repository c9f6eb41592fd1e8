// Tests for mfprio/maui/factors.hpp: every subcomponent of reference flux_maui.md B2, the
// effective queue time of B5, with values from seed 002 and the reference worked by hand.
#include <doctest/doctest.h>

#include <mfprio/maui/factors.hpp>
#include <mfprio/maui/job.hpp>

#include <array>
#include <cmath>
#include <vector>

using namespace mfprio;
using namespace mfprio::maui;

namespace {
// 0.0001^-2, "1e8" in reference B2: 0.0001 is 1.00000000000000004792e-4 in binary, its square
// 1.0000000000000000958e-8, the reciprocal 99999999.99999999042, whose nearest double is
// 99999999.999999985 (doubles are 1.49e-8 apart there), one step below 1e8.
constexpr double target_ceiling = 99999999.999999985;
static_assert(target_ceiling < 1e8);
constexpr std::int64_t now = 1'800'000'000;
constexpr std::int64_t hour = 3600;

// A context with one QOS (index 0) and empty other tables.
struct fixture {
    std::vector<credential> users, groups, accounts, qos{credential{}}, classes;
    context c{};
    fixture() {
        c.now = now;
        rebind();
    }
    void rebind() {
        c.creds = {std::span<const credential>(users), std::span<const credential>(groups),
                   std::span<const credential>(accounts), std::span<const credential>(qos),
                   std::span<const credential>(classes)};
    }
};

maui::job queued_for(std::int64_t seconds, std::uint32_t wclimit, std::uint32_t qos = 0) {
    maui::job j;
    j.submit_time = now - seconds;
    j.wclimit = wclimit;
    j.qos = qos;
    return j;
}
} // namespace

TEST_CASE("maui: QUEUETIME is minutes since the effective queue start") {
    fixture f;
    // Reference B2: QUEUETIME = max(0, (now - EffQTime) / 60.0), fractional in Maui.
    CHECK(queuetime{}(queued_for(90, 0), f.c) == 1.5);
    CHECK(queuetime{}(queued_for(-300, 0), f.c) == 0.0); // a start in the future counts 0
    // Moab counts whole minutes.
    f.c.opts.queuetime = queuetime_unit::whole_minutes;
    CHECK(queuetime{}(queued_for(90, 0), f.c) == 1.0);
    CHECK(queuetime{}(queued_for(119, 0), f.c) == 1.0);
}

TEST_CASE("maui: JOBPRIOACCRUALPOLICY decides the effective queue start") {
    fixture f;
    maui::job j = queued_for(10 * hour, 0);
    j.eligible_time = now - 8 * hour;        // released from a hold 8 hours ago (B5)
    j.policy_blocked_time = now - 5 * hour;  // a queue policy (MAXIJOB) held it back until 5 hours ago
    j.blocked_time = now - 2 * hour;         // a dependency was satisfied 2 hours ago
    // ALWAYS: from eligibility (hold release): 8 h = 480 min.
    f.c.opts.accrual = accrual_policy::always;
    CHECK(queuetime{}(j, f.c) == 480.0);
    // QUEUEPOLICY (default): not while a queue policy blocked it: 5 h.
    f.c.opts.accrual = accrual_policy::queuepolicy;
    CHECK(queuetime{}(j, f.c) == 300.0);
    // FULLPOLICY: not while any check failed: 2 h.
    f.c.opts.accrual = accrual_policy::fullpolicy;
    CHECK(queuetime{}(j, f.c) == 120.0);
    // A job blocked on this very pass accrues nothing.
    j.blocked_time = now;
    CHECK(queuetime{}(j, f.c) == 0.0);
    // No eligibility time: submission.
    maui::job plain = queued_for(2 * hour, 0);
    CHECK(queuetime{}(plain, f.c) == 120.0);
}

TEST_CASE("maui: QOS QTWEIGHT and XFWEIGHT add to the subcomponent weights") {
    fixture f;
    f.qos[0].qt_weight = 5000; // seed 002: "QOSCFG[special] QTWEIGHT=5000 ... increased by 5000"
    f.qos[0].xf_weight = 700;
    CHECK(queuetime{}.adjust_weight(1.0, queued_for(0, 0, 0), f.c) == 5001.0);
    CHECK(xfactor{}.adjust_weight(10.0, queued_for(0, 0, 0), f.c) == 710.0);
    // Jobs without a QOS keep the configured weight.
    CHECK(queuetime{}.adjust_weight(1.0, queued_for(0, 0, no_cred), f.c) == 1.0);
}

TEST_CASE("maui: XFACTOR reproduces seed 002's table") {
    fixture f;
    // Seed 002: "XFactor for 1 hour job | 2.00 | 3.00 | 5.00 | 9.00 | 17.0" and
    // "XFactor for 4 hour job | 1.25 | 1.50 | 2.00 | 3.00 | 5.0" for queue times 1, 2, 4, 8, 16 h.
    const std::array<std::int64_t, 5> queued{1, 2, 4, 8, 16};
    const std::array<double, 5> one_hour{2.00, 3.00, 5.00, 9.00, 17.0};
    const std::array<double, 5> four_hours{1.25, 1.50, 2.00, 3.00, 5.0};
    for (const auto form : {xfactor_form::code, xfactor_form::doc}) {
        f.c.opts.xfactor = form; // both forms agree when WCLimit >= XFMINWCLIMIT (reference B2)
        for (std::size_t k = 0; k < queued.size(); ++k) {
            CHECK(xfactor{}(queued_for(queued[k] * hour, 1 * hour), f.c) == one_hour[k]);
            CHECK(xfactor{}(queued_for(queued[k] * hour, 4 * hour), f.c) == four_hours[k]);
        }
    }
}

TEST_CASE("maui: XFACTOR with a limit below XFMINWCLIMIT, code form and documented form") {
    fixture f; // XFMINWCLIMIT 120 s (code default, reference B4.6)
    const maui::job short_job = queued_for(600, 60);
    // Code: (600 + 60) / max(120, 60) = 5.5.
    CHECK(xfactor{}(short_job, f.c) == 5.5);
    // Doc: 1 + 600 / max(120, 60) = 6.
    f.c.opts.xfactor = xfactor_form::doc;
    CHECK(xfactor{}(short_job, f.c) == 6.0);
    // Maui's quirk: without a QOS, XFMINWCLIMIT is not read: (600 + 60) / 60 = 11.
    f.c.opts.xfactor = xfactor_form::code;
    CHECK(xfactor{}(queued_for(600, 60, no_cred), f.c) == 11.0);
    f.c.opts.xf_min_wclimit_needs_qos = false;
    CHECK(xfactor{}(queued_for(600, 60, no_cred), f.c) == 5.5);
    // No limit and no minimum: Maui divides by zero; we give 0.
    f.c.opts.xf_min_wclimit_needs_qos = true;
    CHECK(xfactor{}(queued_for(600, 0, no_cred), f.c) == 0.0);
}

TEST_CASE("maui: SPVIOLATION and BYPASS") {
    fixture f;
    maui::job j;
    CHECK(spviolation{}(j, f.c) == 0.0);
    j.spviolation = true;
    CHECK(spviolation{}(j, f.c) == 1.0);
    j.bypass = 7;
    CHECK(bypass{}(j, f.c) == 7.0);
}

TEST_CASE("maui: TARGETXFACTOR grows toward 1e8 as the target approaches") {
    fixture f;
    // Reference B2: (max(0.0001, XFTARGET - XFACTOR))^-2 when XFTARGET > 0.
    const maui::job j = queued_for(1 * hour, 1 * hour); // XFACTOR 2 (seed table)
    CHECK(target_xfactor{}(j, f.c) == 0.0);             // no target
    f.qos[0].xf_target = 3.0;
    CHECK(target_xfactor{}(j, f.c) == 1.0);  // (3 - 2)^-2
    f.qos[0].xf_target = 2.5;
    CHECK(target_xfactor{}(j, f.c) == 4.0);  // 0.5^-2
    f.qos[0].xf_target = 1.5;                // target passed: stays at the ceiling
    CHECK(target_xfactor{}(j, f.c) == target_ceiling); // 0.0001^-2
    CHECK(target_xfactor{}(queued_for(1 * hour, 1 * hour, no_cred), f.c) == 0.0); // no QOS
}

TEST_CASE("maui: TARGETQUEUETIME, Moab's form and Maui 3.3's") {
    fixture f;
    f.qos[0].qt_target = 2.0 * hour;
    // Moab (option): 1000^min(1, queued / QTTARGET): 1 at 0, 1000^0.5 at half, 1000 from the target on.
    f.c.opts.target_queuetime = target_queuetime_form::moab;
    CHECK(target_queuetime{}(queued_for(0, 0), f.c) == 1.0);
    CHECK(target_queuetime{}(queued_for(1 * hour, 0), f.c) == doctest::Approx(31.622776601683793));
    CHECK(target_queuetime{}(queued_for(2 * hour, 0), f.c) == 1000.0);
    CHECK(target_queuetime{}(queued_for(6 * hour, 0), f.c) == 1000.0);
    // Maui 3.3 (the default): MJobGetStartPriority's pow(MAX(.0001, QTTarget - EffQTime), -2.0)
    // with EffQTime an epoch time: always the 0.0001^-2 ceiling (reference maui_source.md).
    f.c.opts.target_queuetime = options{}.target_queuetime;
    CHECK(f.c.opts.target_queuetime == target_queuetime_form::maui33);
    CHECK(target_queuetime{}(queued_for(0, 0), f.c) == target_ceiling);
    CHECK(target_queuetime{}(queued_for(6 * hour, 0), f.c) == target_ceiling);
    f.qos[0].qt_target = 0; // no target: 0
    CHECK(target_queuetime{}(queued_for(6 * hour, 0), f.c) == 0.0);
}

TEST_CASE("maui: credential priorities with DEFAULT fallbacks and negatives") {
    fixture f;
    // Seed 002: USERCFG[john] PRIORITY=2000, USERCFG[paul] PRIORITY=-1000, GROUPCFG[staff] PRIORITY=10000.
    f.users = {credential{.priority = 2000}, credential{.priority = -1000}, credential{}};
    f.groups = {credential{.priority = 10000}, credential{.class_weight = 3}};
    f.accounts = {credential{}};
    f.qos = {credential{.priority = 0}, credential{.priority = -50}};
    f.classes = {credential{.priority = 0, .rm_priority = 40}, credential{}, credential{.priority = 9}};
    f.c.defaults[index(cred_kind::user)].priority = 11;
    f.c.defaults[index(cred_kind::account)].priority = 22;
    f.c.defaults[index(cred_kind::qos)].priority = 33;
    f.c.defaults[index(cred_kind::job_class)].priority = 44;
    f.rebind();
    maui::job j;
    j.user = 0;
    CHECK(user_priority{}(j, f.c) == 2000.0);
    j.user = 1;
    CHECK(user_priority{}(j, f.c) == -1000.0); // negatives allowed
    j.user = 2;
    CHECK(user_priority{}(j, f.c) == 11.0);    // 0 -> the DEFAULT user's
    j.user = no_cred;
    CHECK(user_priority{}(j, f.c) == 11.0);
    j.group = 0;
    CHECK(group_priority{}(j, f.c) == 10000.0);
    j.group = 1;
    CHECK(group_priority{}(j, f.c) == 0.0);    // no DEFAULT group priority set
    j.account = 0;
    CHECK(account_priority{}(j, f.c) == 22.0);
    j.qos = 0;
    CHECK(qos_priority{}(j, f.c) == 0.0);      // QOS: no DEFAULT fallback (reference B2)
    j.qos = 1;
    CHECK(qos_priority{}(j, f.c) == -50.0);
    j.job_class = 0;
    CHECK(class_priority{}(j, f.c) == 40.0);   // the resource manager's queue priority
    // A class whose priority is 0: MClassGetPrio finds the job's class (its requested class
    // slot) and succeeds with that class's priority, 0; DEFAULT is never reached.
    j.job_class = 1;
    CHECK(class_priority{}(j, f.c) == 0.0);
    // No class: MClassGetPrio fails, so CLASSCFG[DEFAULT]'s priority applies.
    j.job_class = no_cred;
    CHECK(class_priority{}(j, f.c) == 44.0);
    j.job_class = 2;
    CHECK(class_priority{}(j, f.c) == 9.0);
    // GROUPCFG[x] CLASSWEIGHT > 0 replaces CLASSWEIGHT for the group's jobs (reference B1).
    j.group = 1;
    CHECK(class_priority{}.adjust_weight(5.0, j, f.c) == 3.0);
    j.group = 0;
    CHECK(class_priority{}.adjust_weight(5.0, j, f.c) == 5.0);
}

TEST_CASE("maui: fair-share deltas for every target kind") {
    // Seed 002: user target 50 usage 45 -> 5; account 25 usage 35 -> -10; QOS 10+ usage 25 -> 0
    // (a floor only raises); group without a target -> 0.
    CHECK(fs_delta({50, fs_target_mode::target}, 45, false) == 5.0);
    CHECK(fs_delta({25, fs_target_mode::target}, 35, false) == -10.0);
    CHECK(fs_delta({10, fs_target_mode::floor}, 25, false) == 0.0);
    CHECK(fs_delta({}, 65, false) == 0.0);
    // A floor below usage... and above: 30+ with usage 25 -> 5.
    CHECK(fs_delta({30, fs_target_mode::floor}, 25, false) == 5.0);
    // A ceiling only lowers: 30- with usage 25 -> 0, with usage 40 -> -10.
    CHECK(fs_delta({30, fs_target_mode::ceiling}, 25, false) == 0.0);
    CHECK(fs_delta({30, fs_target_mode::ceiling}, 40, false) == -10.0);
    // Caps limit what may start, not priority (reference B2).
    CHECK(fs_delta({30, fs_target_mode::cap_absolute}, 40, false) == 0.0);
    CHECK(fs_delta({30, fs_target_mode::cap_relative}, 10, false) == 0.0);
    // FSPOLICY ...%: 1 - usage / target: 1 - 45/50 = 0.1, 1 - 35/25 = -0.4.
    CHECK(fs_delta({50, fs_target_mode::target}, 45, true) == doctest::Approx(0.1));
    CHECK(fs_delta({25, fs_target_mode::target}, 35, true) == doctest::Approx(-0.4));
}

TEST_CASE("maui: FS subcomponents read usage and targets, with DEFAULT targets") {
    fixture f;
    f.users = {credential{.target = {50, fs_target_mode::target}, .fs_usage = 45}, credential{.fs_usage = 20}};
    f.c.defaults[index(cred_kind::user)].target = {30, fs_target_mode::ceiling};
    f.rebind();
    maui::job j;
    j.user = 0;
    CHECK(fs_user{}(j, f.c) == 0.0); // fair-share off (FSPOLICY NONE or no usage)
    f.c.fs_active = true;
    CHECK(fs_user{}(j, f.c) == 5.0);
    j.user = 1; // DEFAULT target 30-: usage 20 is under a ceiling -> 0
    CHECK(fs_user{}(j, f.c) == 0.0);
    f.users[1].fs_usage = 42; // over it -> -12
    CHECK(fs_user{}(j, f.c) == -12.0);
    j.user = no_cred; // unknown user: usage 0 against the DEFAULT ceiling -> 0
    CHECK(fs_user{}(j, f.c) == 0.0);
}

TEST_CASE("maui: resource subcomponents") {
    fixture f;
    f.c.cluster = resources{128, 256000, 0, 1000000};
    std::vector<std::uint32_t> uprocs{0, 48}, ujobs{0, 3};
    f.c.user_active_procs = uprocs;
    f.c.user_active_jobs = ujobs;
    maui::job j;
    j.user = 1;
    j.nodes = 2;
    j.procs = 32;         // 25% of 128 processors
    j.mem_mb = 128000;    // 50% of the memory
    j.swap_mb = 4096;     // swap not configured: not counted in PE
    j.disk_mb = 1000;
    j.wclimit = 7200;
    CHECK(nodes{}(j, f.c) == 2.0);
    CHECK(procs{}(j, f.c) == 32.0);
    CHECK(memory{}(j, f.c) == 128000.0);
    CHECK(swap{}(j, f.c) == 4096.0);
    CHECK(disk{}(j, f.c) == 1000.0);
    CHECK(proc_seconds{}(j, f.c) == 32.0 * 7200.0);
    CHECK(walltime{}(j, f.c) == 7200.0);
    // Seed 002: "25% of the processors and 50% of the total memory on a 128 processor O2K
    // system ... PE value of MAX(25,50) * 128, or 64".
    CHECK(processor_equivalent{}(j, f.c) == 64.0);
    j.mem_mb = 0; // processors only: PE = procs
    CHECK(processor_equivalent{}(j, f.c) == 32.0);
    f.c.cluster.procs = 0; // no processors configured: no PE
    CHECK(processor_equivalent{}(j, f.c) == 0.0);
    CHECK(user_procs{}(j, f.c) == 48.0);
    CHECK(user_jobs{}(j, f.c) == 3.0);
    j.user = 7; // a user past the table has nothing running
    CHECK(user_procs{}(j, f.c) == 0.0);
}

TEST_CASE("maui: usage subcomponents of running jobs") {
    fixture f;
    maui::job j;
    j.procs = 4;
    j.wclimit = 3600;
    // Not started: everything 0.
    CHECK(consumed{}(j, f.c) == 0.0);
    CHECK(remaining{}(j, f.c) == 0.0);
    CHECK(percent{}(j, f.c) == 0.0);
    j.start_time = now - 900;
    j.state = job_state::running;
    // Reference B2: CONSUMED = procs x walltime = 4 x 900; REMAINING = procs x (WCLimit -
    // walltime) = 4 x 2700; PERCENT = walltime x 100 / max(1, WCLimit - walltime) = 90000/2700.
    CHECK(consumed{}(j, f.c) == 3600.0);
    CHECK(remaining{}(j, f.c) == 10800.0);
    CHECK(percent{}(j, f.c) == 90000.0 / 2700.0);
    // EXECUTIONTIME: commented out in Maui 3.3 (0); seconds since start in Moab.
    CHECK(execution_time{}(j, f.c) == 0.0);
    f.c.opts.usage_executiontime = true;
    CHECK(execution_time{}(j, f.c) == 900.0);
    // Past its limit: REMAINING goes negative, PERCENT divides by max(1, ...) = 1.
    j.start_time = now - 4000;
    CHECK(remaining{}(j, f.c) == -1600.0);
    CHECK(percent{}(j, f.c) == 400000.0);
}
