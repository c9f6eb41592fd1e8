// The block hooks of Maui's components (maui/priority.hpp: `prepare` once per batch, then
// `block` per block of jobs) against their call operators, bit for bit: every component
// over generated jobs and contexts with the edge cases a hook could get wrong. Credential
// indices past the tables and `no_cred` (the "none" row of the tables), negative priorities
// and weights, every fair-share target mode with and without FSPOLICY '%', fair-share off,
// usages and targets that make a fair-share factor infinite or NaN (a zero weight must skip
// it, not add 0 x inf), caps of both styles, zero weights, a QOS whose QTWEIGHT or XFWEIGHT
// cancels QUEUETIMEWEIGHT or XFACTORWEIGHT (an adjusted weight of 0 on an infinite expansion
// factor), groups whose CLASSWEIGHT replaces CLASSWEIGHT, QTTARGET and XFTARGET reached and
// not, both TARGETQUEUETIME forms, both XFACTOR forms, every accrual policy, processor
// equivalents of clusters without some resources (or with a NaN or infinite total), and a
// job type of its own with signed and floating-point fields. Then the engine's batch
// against its one-job path (including spans that are not whole blocks), and the dynamic
// engine's Maui components against the compile-time engine.
//
// Two values match when their bits are equal; two NaNs count as a match whatever their
// payloads (NaN only arises here from NaN or infinite inputs, and x86 may propagate either
// operand's payload of a sum of two NaNs).
#include <doctest/doctest.h>

#include <mfprio/maui/factors.hpp>
#include <mfprio/maui/job.hpp>
#include <mfprio/maui/priority.hpp>
#include <mfprio/queue/builtin.hpp>
#include <mfprio/queue/policy.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <vector>

using namespace mfprio::maui;

namespace {

constexpr std::int64_t now = 1'800'000'000;
constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double not_a_number = std::numeric_limits<double>::quiet_NaN();

bool same(double a, double b) {
    if (std::isnan(a) && std::isnan(b)) return true;
    return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

/// A job type of its own: signed processors, floating-point memory and wallclock limit,
/// 64-bit credential indices (read through `job_traits` like `maui::job`).
struct odd_job {
    std::uint32_t id = 0;
    std::int64_t user = 0, group = 0, account = 0, qos = 0, job_class = 0;
    std::int64_t submit_time = 0, eligible_time = 0, policy_blocked_time = 0, blocked_time = 0, start_time = 0;
    double wclimit = 0;
    std::int32_t procs = 1;
    std::int32_t nodes = 1;
    double mem_mb = 0, swap_mb = 0, disk_mb = 0;
    std::uint32_t bypass = 0;
    bool spviolation = false;
};

const fs_target_mode all_modes[] = {fs_target_mode::none,    fs_target_mode::target,       fs_target_mode::floor,
                                    fs_target_mode::ceiling, fs_target_mode::cap_absolute, fs_target_mode::cap_relative};

struct world {
    std::vector<credential> tables[cred_kind_count];
    std::vector<std::uint32_t> uprocs, ujobs;
    std::vector<requirement> reqs;
    context c{};
    std::vector<job> jobs;
    std::vector<odd_job> odd;

    world(std::uint64_t seed, std::int64_t w_qt, std::int64_t w_xf) {
        std::mt19937_64 rng(seed);
        auto pick = [&](std::uint64_t n) { return static_cast<std::uint32_t>(rng() % n); };
        const std::size_t sizes[cred_kind_count] = {7 + pick(5), 1 + pick(6), pick(4), 3 + pick(6), 1 + pick(5)};
        for (std::size_t k = 0; k < cred_kind_count; ++k) {
            for (std::size_t i = 0; i < sizes[k]; ++i) {
                credential cr;
                cr.priority = pick(4) == 0 ? 0 : static_cast<std::int64_t>(pick(4001)) - 2000;
                cr.target = {pick(5) == 0 ? 0.0 : static_cast<double>(pick(60)) / (1 + pick(3)), all_modes[pick(6)]};
                cr.fs_usage = static_cast<double>(pick(10001)) / 100.0;
                if (pick(15) == 0) cr.fs_usage = pick(2) == 0 ? not_a_number : inf; // a NaN or infinite factor
                if (pick(15) == 0) cr.target.value = 1e-310;               // '%': 1 - usage / target is -inf
                // QOS: QTWEIGHT or XFWEIGHT cancelling the configured weight now and then.
                cr.qt_weight = pick(3) == 0 ? -w_qt : static_cast<std::int64_t>(pick(40)) - 10;
                cr.xf_weight = pick(3) == 0 ? -w_xf : static_cast<std::int64_t>(pick(100)) - 50;
                cr.qt_target = pick(2) == 0 ? 0.0 : static_cast<double>(1 + pick(4 * 86400));
                if (pick(10) == 0) cr.qt_target = -5.0;
                cr.xf_target = pick(2) == 0 ? 0.0 : 1.0 + static_cast<double>(pick(100)) / 10.0;
                cr.class_weight = static_cast<std::int64_t>(pick(5)) - 1;
                cr.rm_priority = pick(2) == 0 ? 0 : static_cast<std::int64_t>(pick(50));
                tables[k].push_back(cr);
            }
        }
        for (std::size_t i = 0; i < sizes[0] - 2 - pick(3); ++i) uprocs.push_back(pick(500)); // shorter than the users
        for (std::size_t i = 0; i < sizes[0] + pick(3); ++i) ujobs.push_back(pick(20));       // maybe longer
        c.now = now;
        for (std::size_t k = 0; k < cred_kind_count; ++k) c.creds[k] = tables[k];
        for (std::size_t k = 0; k < cred_kind_count; ++k) {
            c.defaults[k].priority = pick(3) == 0 ? 0 : static_cast<std::int64_t>(pick(201)) - 100;
            c.defaults[k].target = {pick(3) == 0 ? 0.0 : static_cast<double>(1 + pick(40)), all_modes[pick(6)]};
        }
        c.fs_active = pick(5) != 0;
        const double totals[] = {0.0, 1024.0, 4'096'000.0, 1e-300, inf, not_a_number, -1.0};
        c.cluster = resources{pick(8) == 0 ? totals[pick(7)] : 1024.0, totals[pick(7)], totals[pick(7)], totals[pick(7)]};
        c.user_active_procs = uprocs;
        c.user_active_jobs = ujobs;
        // Indices in the tables, just past them, far past them, and no_cred.
        auto cred = [&](std::size_t k) -> std::uint32_t {
            switch (pick(12)) {
            case 0: return no_cred;
            case 1: return static_cast<std::uint32_t>(sizes[k]);
            case 2: return static_cast<std::uint32_t>(sizes[k] + 1 + pick(1000));
            default: return sizes[k] == 0 ? 0 : pick(sizes[k]);
            }
        };
        for (std::uint32_t i = 0; i < 32 * 13 + 7; ++i) {
            job j;
            j.id = i + 1;
            j.user = cred(0);
            j.group = cred(1);
            j.account = cred(2);
            j.qos = cred(3);
            j.job_class = cred(4);
            j.submit_time = now - static_cast<std::int64_t>(pick(14 * 86400)) + (pick(20) == 0 ? 7200 : 0);
            j.eligible_time = pick(3) == 0 ? j.submit_time + pick(3600) : 0;
            j.policy_blocked_time = pick(3) == 0 ? now - pick(7200) : 0;
            j.blocked_time = pick(4) == 0 ? now - pick(7200) : 0;
            j.wclimit = pick(8) == 0 ? 0 : pick(3 * 86400);
            j.procs = pick(20) == 0 ? 0 : 1 + pick(2048);
            j.nodes = 1 + pick(64);
            j.mem_mb = pick(3) == 0 ? 0 : pick(200'000);
            j.swap_mb = pick(2) == 0 ? 0 : pick(50'000);
            j.disk_mb = pick(3) == 0 ? 0 : pick(10'000);
            j.bypass = pick(4) == 0 ? pick(30) : 0;
            j.spviolation = pick(5) == 0;
            // A requirement list now and then (PE over the list), and an index past the lists.
            if (pick(5) == 0) {
                j.req = static_cast<std::uint32_t>(reqs.size() + 1);
                const std::uint32_t n = 1 + pick(3);
                for (std::uint32_t r = 0; r < n; ++r)
                    reqs.push_back({1 + pick(16), pick(4), pick(8), pick(3) == 0 ? 0 : pick(20'000),
                                    pick(2) == 0 ? 0 : pick(5'000), pick(3) == 0 ? 0 : pick(1'000), r + 1 == n});
            } else if (pick(40) == 0) {
                j.req = 1'000'000;
            }
            if (pick(6) == 0) {
                j.state = mfprio::job_state::running;
                j.start_time = now - pick(4 * 86400);
            }
            jobs.push_back(j);
            odd_job o;
            o.id = j.id;
            o.user = pick(10) == 0 ? -1 : static_cast<std::int64_t>(j.user == no_cred ? 1u << 31 : j.user);
            o.group = j.group == no_cred ? -3 : j.group;
            o.account = pick(10) == 0 ? std::int64_t{1} << 40 : static_cast<std::int64_t>(j.account);
            o.qos = j.qos;
            o.job_class = j.job_class;
            o.submit_time = j.submit_time;
            o.eligible_time = j.eligible_time;
            o.policy_blocked_time = j.policy_blocked_time;
            o.blocked_time = j.blocked_time;
            o.wclimit = pick(10) == 0 ? not_a_number : static_cast<double>(j.wclimit) + 0.5;
            o.procs = pick(5) == 0 ? -static_cast<std::int32_t>(pick(64)) : static_cast<std::int32_t>(j.procs);
            o.nodes = static_cast<std::int32_t>(j.nodes);
            o.mem_mb = pick(10) == 0 ? -100.0 : pick(10) == 0 ? not_a_number : static_cast<double>(j.mem_mb);
            o.swap_mb = static_cast<double>(j.swap_mb);
            o.disk_mb = pick(10) == 0 ? inf : static_cast<double>(j.disk_mb);
            o.bypass = j.bypass;
            o.spviolation = j.spviolation;
            o.start_time = j.start_time;
            odd.push_back(o);
        }
        c.requirements = reqs;
    }
};

/// Random weights (a third 0, some negative) and caps (some 0: none).
weights random_weights(std::mt19937_64& rng) {
    weights wt;
    for (auto& x : wt.component_weight) x = static_cast<std::int64_t>(rng() % 21) - 5;
    for (auto& x : wt.sub_weight) x = rng() % 3 == 0 ? 0 : static_cast<std::int64_t>(rng() % 201) - 100;
    for (auto& x : wt.component_cap) x = rng() % 2 == 0 ? 0.0 : static_cast<double>(rng() % 100000) / 7.0;
    for (auto& x : wt.sub_cap) x = rng() % 3 == 0 ? static_cast<double>(rng() % 1000) / 3.0 : 0.0;
    return wt;
}

options random_options(std::mt19937_64& rng, int round) {
    options o;
    o.caps = round % 2 == 0 ? mfprio::cap_style::upper : mfprio::cap_style::symmetric;
    o.queuetime = rng() % 2 == 0 ? queuetime_unit::fractional_minutes : queuetime_unit::whole_minutes;
    o.xfactor = rng() % 2 == 0 ? xfactor_form::code : xfactor_form::doc;
    o.target_queuetime = rng() % 2 == 0 ? target_queuetime_form::moab : target_queuetime_form::maui33;
    const accrual_policy policies[] = {accrual_policy::always, accrual_policy::queuepolicy, accrual_policy::fullpolicy};
    o.accrual = policies[rng() % 3];
    o.fs_percent_based = rng() % 2 == 0;
    o.xf_min_wclimit_needs_qos = rng() % 3 != 0;
    const double mins[] = {120.0, 0.0, 1e-310, 3600.0};
    o.xf_min_wclimit = mins[rng() % 4];
    o.usage_executiontime = rng() % 2 == 0;
    o.usage_in_start_priority = rng() % 4 == 0;
    o.enable_negative = round % 3 == 0;
    o.reject_negative = round % 5 == 0;
    return o;
}

/// Component C's block hook (prepared once, then block by block, blocks of `n` jobs) against
/// its call operator.
template <std::size_t n = mfprio::block_size, class Component, class J>
std::size_t check_hook(const Component& comp, std::span<const J> jobs, const context& c, int round) {
    std::size_t checked = 0;
    double out[n];
    const auto compare = [&](std::size_t base) {
        for (std::size_t i = 0; i < n; ++i) {
            const double expected = comp(jobs[base + i], c);
            INFO(Component::name, " round ", round, " job ", base + i, ": hook ", out[i], " call ", expected);
            CHECK(same(out[i], expected));
            ++checked;
        }
    };
    for (std::size_t base = 0; base + n <= jobs.size(); base += n) {
        const std::span<const J, n> block(jobs.data() + base, n);
        const std::span<double, n> o(out, n);
        if constexpr (mfprio::prepared_block_factor_policy<Component, J, context>) {
            comp.block(comp.prepare(c), block, c, o);
        } else {
            static_assert(mfprio::block_factor_policy<Component, J, context>);
            comp.block(block, c, o);
        }
        compare(base);
    }
    return checked;
}

template <class J>
void check_all_hooks(const weights& wt, const options& o, std::span<const J> jobs, const context& c, int round) {
    const cap_style s = o.caps;
    std::size_t checked = 0;
    checked += check_hook(detail::build_component<serv_component>(wt, s, component_id::serv), jobs, c, round);
    checked += check_hook(detail::build_component<targ_component>(wt, s, component_id::targ), jobs, c, round);
    checked += check_hook(detail::build_component<cred_component>(wt, s, component_id::cred), jobs, c, round);
    checked += check_hook(detail::build_component<attr_component>(wt, s, component_id::attr), jobs, c, round);
    checked += check_hook(detail::build_component<fs_component>(wt, s, component_id::fs), jobs, c, round);
    checked += check_hook(detail::build_component<res_component>(wt, s, component_id::res), jobs, c, round);
    CHECK(checked == 6 * (jobs.size() / mfprio::block_size) * mfprio::block_size);
    // Blocks of another size than the engine's: TARG's hook takes its jobs 64 at a time (a
    // bit mask each), so a block of 100 is a full 64 and a part of 36.
    constexpr std::size_t odd_size = 100;
    CHECK(check_hook<odd_size>(detail::build_component<targ_component>(wt, s, component_id::targ), jobs, c, round) ==
          jobs.size() / odd_size * odd_size);
    CHECK(check_hook<odd_size>(detail::build_component<res_component>(wt, s, component_id::res), jobs, c, round) ==
          jobs.size() / odd_size * odd_size);
    // An odd block: the RES, SERV and TARG hooks take their jobs two at a time, and the last
    // one alone.
    constexpr std::size_t odder_size = 37;
    CHECK(check_hook<odder_size>(detail::build_component<targ_component>(wt, s, component_id::targ), jobs, c, round) ==
          jobs.size() / odder_size * odder_size);
    CHECK(check_hook<odder_size>(detail::build_component<res_component>(wt, s, component_id::res), jobs, c, round) ==
          jobs.size() / odder_size * odder_size);
    CHECK(check_hook<odder_size>(detail::build_component<serv_component>(wt, s, component_id::serv), jobs, c, round) ==
          jobs.size() / odder_size * odder_size);
}

} // namespace

static_assert(mfprio::prepared_block_factor_policy<serv_component, job, context>);
static_assert(mfprio::prepared_block_factor_policy<targ_component, job, context>);
static_assert(mfprio::prepared_block_factor_policy<cred_component, job, context>);
static_assert(mfprio::block_factor_policy<attr_component, job, context>);
static_assert(mfprio::prepared_block_factor_policy<fs_component, job, context>);
static_assert(mfprio::prepared_block_factor_policy<res_component, job, context>);
static_assert(mfprio::prepared_block_factor_policy<res_component, odd_job, context>);

TEST_CASE("Maui batch: every component's block hook equals its call operator, bit for bit") {
    std::mt19937_64 rng(2026);
    for (int round = 0; round < 60; ++round) {
        const weights wt = random_weights(rng);
        const options o = random_options(rng, round);
        world w(1000 + static_cast<std::uint64_t>(round), wt[subcomponent::queuetime], wt[subcomponent::xfactor]);
        w.c.opts = o;
        check_all_hooks<job>(wt, o, std::span<const job>(w.jobs), w.c, round);
        check_all_hooks<odd_job>(wt, o, std::span<const odd_job>(w.odd), w.c, round);
    }
}

TEST_CASE("Maui batch: zero weights skip infinite and NaN factors") {
    // Every fair-share usage NaN or infinite and the FS weights 0 but one; an XFMINWCLIMIT
    // that makes XFACTOR infinite with XFACTORWEIGHT cancelled by XFWEIGHT; a cluster of
    // infinite processors (PE is inf x 0, NaN) with PEWEIGHT 0.
    world w(77, 10, 100);
    for (auto& t : w.tables)
        for (std::size_t i = 0; i < t.size(); ++i) t[i].fs_usage = i % 2 == 0 ? not_a_number : inf;
    for (auto& q : w.tables[index(cred_kind::qos)]) q.xf_weight = -100;
    w.c.fs_active = true;
    w.c.cluster = resources{inf, 1000.0, 0.0, 0.0};
    weights wt;
    wt[subcomponent::queuetime] = 10;
    wt[subcomponent::xfactor] = 100;
    wt[subcomponent::fsuser] = 0;
    wt[subcomponent::fsgroup] = 0;
    wt[subcomponent::fsaccount] = 0;
    wt[subcomponent::fsqos] = 0;
    wt[subcomponent::fsclass] = 3;
    wt[subcomponent::pe] = 0;
    wt[subcomponent::proc] = 2;
    for (const bool percent : {false, true}) {
        options o;
        o.fs_percent_based = percent;
        o.xf_min_wclimit = 1e-310;
        o.xf_min_wclimit_needs_qos = false;
        w.c.opts = o;
        for (auto& j : w.jobs) j.wclimit = 0;
        check_all_hooks<job>(wt, o, std::span<const job>(w.jobs), w.c, percent ? 1 : 0);
        // The values are finite where only zero-weighted factors are not.
        const auto fs = detail::build_component<fs_component>(wt, o.caps, component_id::fs);
        const auto res = detail::build_component<res_component>(wt, o.caps, component_id::res);
        const auto serv = detail::build_component<serv_component>(wt, o.caps, component_id::serv);
        for (const auto& j : w.jobs) {
            CHECK(std::isfinite(res(j, w.c)));
            if (w.c.find(cred_kind::qos, j.qos) != nullptr) CHECK(std::isfinite(serv(j, w.c)));
            const credential* cl = w.c.find(cred_kind::job_class, j.job_class);
            if (cl == nullptr) CHECK(std::isfinite(fs(j, w.c)));
        }
    }
}

TEST_CASE("Maui batch: TARG's powers at their thresholds, and Maui 3.3's form near the epoch") {
    // TARG's hook computes a power only past a threshold: Moab's 1000^min(1, queued / QTTARGET)
    // below the target (at or past it the value is 1000^1, known), TARGETXFACTOR's and Maui
    // 3.3's max(0.0001, t - x)^-2 where t - x exceeds 0.0001. Here jobs sit on both sides of
    // each threshold and on it: queued equal to QTTARGET, one second under and over; XFACTOR
    // within 0.0001 of XFTARGET; and, for Maui 3.3's form (QTTARGET minus an epoch time),
    // queue starts near the epoch, where QTTARGET - EffQTime is positive.
    world w(4242, 10, 100);
    auto& qos = w.tables[index(cred_kind::qos)];
    for (std::size_t i = 0; i < qos.size(); ++i) {
        qos[i].qt_target = i % 3 == 0 ? 0.0 : 3600.0 * static_cast<double>(i);
        qos[i].xf_target = i % 2 == 0 ? 0.0 : 1.5 + static_cast<double>(i);
    }
    std::mt19937_64 rng(11);
    for (std::size_t k = 0; k < w.jobs.size(); ++k) {
        job& j = w.jobs[k];
        j.eligible_time = j.policy_blocked_time = j.blocked_time = 0;
        const std::uint32_t q = static_cast<std::uint32_t>(k % (qos.size() + 1)); // qos.size(): none
        j.qos = q;
        const double qt = q < qos.size() ? qos[q].qt_target : 3600.0;
        const double xt = q < qos.size() ? qos[q].xf_target : 2.0;
        switch (k % 6) {
        case 0: j.submit_time = now - static_cast<std::int64_t>(qt); break;     // queued == QTTARGET
        case 1: j.submit_time = now - static_cast<std::int64_t>(qt) + 1; break; // just under
        case 2: j.submit_time = now - static_cast<std::int64_t>(qt) - 1; break; // just over
        case 3: j.submit_time = static_cast<std::int64_t>(rng() % 3000); break; // near the epoch
        case 4: { // XFACTOR (code form, XFMINWCLIMIT 120 below the limit) just under XFTARGET
            j.wclimit = 86400;
            const auto queued = static_cast<std::int64_t>((xt - 1.0) * 86400.0) - static_cast<std::int64_t>(rng() % 20);
            j.submit_time = now - queued;
            break;
        }
        default: j.submit_time = now - static_cast<std::int64_t>(rng() % (3 * 86400)); break;
        }
    }
    weights wt;
    wt[subcomponent::targetqueuetime] = 7;
    wt[subcomponent::targetxfactor] = 3;
    std::size_t checked = 0;
    for (const auto form : {target_queuetime_form::moab, target_queuetime_form::maui33}) {
        for (const auto xform : {xfactor_form::code, xfactor_form::doc}) {
            options o;
            o.target_queuetime = form;
            o.xfactor = xform;
            w.c.opts = o;
            const auto targ = detail::build_component<targ_component>(wt, o.caps, component_id::targ);
            checked += check_hook(targ, std::span<const job>(w.jobs), w.c, static_cast<int>(form));
            checked += check_hook<100>(targ, std::span<const job>(w.jobs), w.c, static_cast<int>(form));
        }
    }
    CHECK(checked > 0);
    // The thresholds were crossed: some jobs take each power, some the known value.
    const context& c = w.c;
    std::size_t moab_pow = 0, moab_known = 0, maui33_pow = 0, xf_pow = 0, xf_ceiling = 0;
    for (const job& j : w.jobs) {
        const credential* q = c.find(cred_kind::qos, j.qos);
        if (q == nullptr) continue;
        const auto queued = static_cast<double>(effective_queue_duration(j, c));
        if (q->qt_target > 0) {
            (queued < q->qt_target ? moab_pow : moab_known) += 1;
            if (q->qt_target - static_cast<double>(effective_queue_start(j, c)) > 0.0001) ++maui33_pow;
        }
        if (q->xf_target > 0) {
            options o;
            context cx = c;
            cx.opts = o;
            (q->xf_target - xfactor{}(j, cx) > 0.0001 ? xf_pow : xf_ceiling) += 1;
        }
    }
    CHECK(moab_pow > 20);
    CHECK(moab_known > 20);
    CHECK(maui33_pow > 20);
    CHECK(xf_pow > 20);
    CHECK(xf_ceiling > 20);
}

TEST_CASE("Maui batch: terms that are all -0.0 add up to +0.0, as a sum from 0.0 does") {
    // Negative weights times factors of 0 are -0.0: a job queued no time, no wallclock limit
    // (XFACTOR 0 with XFMINWCLIMIT 0), no soft-policy violation, never bypassed, no requests.
    // Each component's sum starts at +0.0, so it is +0.0, never -0.0, in every hook (the
    // two-jobs-at-a-time paths included).
    world w(31, -3, -5);
    for (auto& q : w.tables[index(cred_kind::qos)]) q.qt_weight = q.xf_weight = 0;
    for (job& j : w.jobs) {
        j.submit_time = now;
        j.eligible_time = j.policy_blocked_time = j.blocked_time = 0;
        j.wclimit = 0;
        j.spviolation = false;
        j.bypass = 0;
        j.procs = j.nodes = j.mem_mb = j.swap_mb = j.disk_mb = 0;
        j.req = 0;
    }
    w.c.user_active_procs = {};
    w.c.user_active_jobs = {};
    weights wt;
    for (auto& x : wt.sub_weight) x = -7;
    options o;
    o.xf_min_wclimit = 0.0;
    w.c.opts = o;
    for (const auto comp : {component_id::serv, component_id::res}) {
        double out[mfprio::block_size];
        const std::span<const job, mfprio::block_size> block(w.jobs.data(), mfprio::block_size);
        if (comp == component_id::serv) {
            const auto serv = detail::build_component<serv_component>(wt, o.caps, comp);
            serv.block(serv.prepare(w.c), block, w.c, std::span<double, mfprio::block_size>(out));
            CHECK(std::signbit(serv(w.jobs[0], w.c)) == false);
        } else {
            const auto res = detail::build_component<res_component>(wt, o.caps, comp);
            res.block(res.prepare(w.c), block, w.c, std::span<double, mfprio::block_size>(out));
            CHECK(std::signbit(res(w.jobs[0], w.c)) == false);
        }
        for (const double v : out) {
            CHECK(v == 0.0);
            CHECK_FALSE(std::signbit(v));
        }
    }
}

TEST_CASE("Maui batch: fair-share off, DEFAULT targets and every target mode") {
    std::mt19937_64 rng(5);
    for (const fs_target_mode mode : all_modes) {
        for (const bool active : {true, false}) {
            world w(300 + static_cast<std::uint64_t>(mode), 1, 1);
            for (auto& t : w.tables)
                for (auto& cr : t) cr.target.mode = mode;
            for (auto& d : w.c.defaults) d.target = {12.5, mode};
            w.c.fs_active = active;
            const weights wt = random_weights(rng);
            for (const bool percent : {false, true}) {
                options o;
                o.fs_percent_based = percent;
                w.c.opts = o;
                check_hook(detail::build_component<fs_component>(wt, o.caps, component_id::fs),
                           std::span<const job>(w.jobs), w.c, static_cast<int>(mode));
                o.caps = mfprio::cap_style::symmetric;
                w.c.opts = o;
                check_hook(detail::build_component<fs_component>(wt, o.caps, component_id::fs),
                           std::span<const job>(w.jobs), w.c, static_cast<int>(mode));
            }
        }
    }
}

TEST_CASE("Maui batch: the engine's batch equals its one-job path, whole blocks or not") {
    std::mt19937_64 rng(99);
    for (int round = 0; round < 30; ++round) {
        const weights wt = random_weights(rng);
        const options o = random_options(rng, round);
        world w(5000 + static_cast<std::uint64_t>(round), wt[subcomponent::queuetime], wt[subcomponent::xfactor]);
        w.c.opts = o;
        const auto e = make_maui_engine(wt, o);
        for (const std::size_t n : {w.jobs.size(), std::size_t{31}, std::size_t{64}, std::size_t{0}}) {
            std::vector<priority_value> out(n);
            std::vector<double> scores(n);
            e.batch(std::span<const job>(w.jobs.data(), n), w.c, std::span<priority_value>(out));
            e.batch_scores(std::span<const job>(w.jobs.data(), n), w.c, std::span<double>(scores));
            for (std::size_t i = 0; i < n; ++i) {
                INFO("round ", round, " n ", n, " job ", i);
                CHECK(out[i] == e.priority(w.jobs[i], w.c));
                CHECK(same(scores[i], e.score(w.jobs[i], w.c)));
            }
        }
        std::vector<priority_value> odd_out(w.odd.size());
        e.batch(std::span<const odd_job>(w.odd), w.c, std::span<priority_value>(odd_out));
        for (std::size_t i = 0; i < w.odd.size(); ++i) {
            INFO("round ", round, " odd job ", i);
            CHECK(odd_out[i] == e.priority(w.odd[i], w.c));
        }
    }
}

TEST_CASE("Maui batch: the dynamic engine's Maui components equal the compile-time engine") {
    // The preset `maui` (weights 1, USAGE 0), through the registry's components (prepared
    // once per chunk of the dynamic engine); tests/queue_dynamic.cpp checks random policies.
    const auto reg = mfprio::queue::maui_registry();
    world w(42, 1, 1);
    w.c.opts = options{};
    auto dyn = mfprio::queue::load_preset("maui", reg, maui_result{});
    REQUIRE(dyn.has_value());
    const auto e = make_maui_engine(weights{});
    std::vector<priority_value> a(w.jobs.size()), b(w.jobs.size());
    dyn->batch(std::span<const job>(w.jobs), w.c, std::span<priority_value>(a));
    e.batch(std::span<const job>(w.jobs), w.c, std::span<priority_value>(b));
    for (std::size_t i = 0; i < w.jobs.size(); ++i) {
        INFO("job ", i);
        CHECK(a[i] == b[i]);
    }
}

namespace {
/// Every job's value of `comp` is +0.0 or -0.0: what `idle` promises.
template <class Component>
bool all_zero(const Component& comp, const world& w) {
    for (const job& j : w.jobs)
        if (comp(j, w.c) != 0.0) return false;
    for (const odd_job& j : w.odd)
        if (comp(j, w.c) != 0.0) return false;
    return true;
}
} // namespace

TEST_CASE("Maui batch: an idle component is 0 for every job, and the engine skips it exactly") {
    // Maui's defaults (reference B4: every component weight 1, every subweight 0 but
    // QUEUETIME's): SERV is on; TARG, CRED, ATTR, FS and RES are idle, unless a credential
    // adjusts a weight (a QOS's QTWEIGHT or XFWEIGHT, a group's CLASSWEIGHT) or, for TARG and
    // FS, whatever their weights, no QOS has a target or fair-share is off.
    world w(7, 0, 0);
    w.c.opts = options{};
    auto& qos = w.tables[index(cred_kind::qos)];
    auto& groups = w.tables[index(cred_kind::group)];
    for (auto& q : qos) q.qt_weight = q.xf_weight = 0, q.qt_target = q.xf_target = 0;
    for (auto& g : groups) g.class_weight = 0;
    const weights defaults{};
    const cap_style s = cap_style::upper;
    const auto serv = detail::build_component<serv_component>(defaults, s, component_id::serv);
    const auto targ = detail::build_component<targ_component>(defaults, s, component_id::targ);
    const auto cred = detail::build_component<cred_component>(defaults, s, component_id::cred);
    const auto attr = detail::build_component<attr_component>(defaults, s, component_id::attr);
    const auto fs = detail::build_component<fs_component>(defaults, s, component_id::fs);
    const auto res = detail::build_component<res_component>(defaults, s, component_id::res);
    CHECK_FALSE(serv.idle(w.c));
    CHECK(targ.idle(w.c));
    CHECK(cred.idle(w.c));
    CHECK(attr.idle(w.c));
    CHECK(fs.idle(w.c));
    CHECK(res.idle(w.c));
    CHECK_FALSE(all_zero(serv, w));

    // Sets one credential field, checks that the component is then neither idle nor 0 for
    // every job, and clears the field again.
    const auto live_with = [&w](const auto& comp, auto& field, auto value) {
        field = value;
        CHECK_FALSE(comp.idle(w.c));
        CHECK_FALSE(all_zero(comp, w));
        field = {};
    };
    const auto idle_and_zero = [&w](const auto& comp) {
        CHECK(comp.idle(w.c));
        CHECK(all_zero(comp, w));
    };

    // QUEUETIME's weight 0 but a QOS with a QTWEIGHT: SERV is not idle, and it is not 0.
    weights no_qt = defaults;
    no_qt[subcomponent::queuetime] = 0;
    const auto serv0 = detail::build_component<serv_component>(no_qt, s, component_id::serv);
    idle_and_zero(serv0);
    live_with(serv0, qos[1].qt_weight, std::int64_t{3});
    live_with(serv0, qos[2].xf_weight, std::int64_t{-2});

    // CLASS's weight 0 but a group with CLASSWEIGHT (and classes with priorities): CRED is on.
    for (auto& cl : w.tables[index(cred_kind::job_class)]) cl.priority = 7;
    live_with(cred, groups[0].class_weight, std::int64_t{4});
    groups[0].class_weight = -4; // only a CLASSWEIGHT > 0 replaces the weight
    CHECK(cred.idle(w.c));
    groups[0].class_weight = 0;

    // TARG weighted, but no QOS has a target: idle; one QTTARGET makes it count.
    weights targets = defaults;
    targets[subcomponent::targetqueuetime] = 10;
    targets[subcomponent::targetxfactor] = -3;
    const auto targ_on = detail::build_component<targ_component>(targets, s, component_id::targ);
    idle_and_zero(targ_on);
    live_with(targ_on, qos[0].qt_target, 3600.0);
    live_with(targ_on, qos[0].xf_target, 2.0);

    // FS weighted: idle exactly when fair-share is off.
    weights fair = defaults;
    fair[subcomponent::fsuser] = 100;
    for (auto& u : w.tables[index(cred_kind::user)]) u.target = {50.0, fs_target_mode::target}, u.fs_usage = 10.0;
    const auto fs_on = detail::build_component<fs_component>(fair, s, component_id::fs);
    w.c.fs_active = false;
    idle_and_zero(fs_on);
    live_with(fs_on, w.c.fs_active, true);

    // ATTR is 0 whatever its weights.
    weights attrs = defaults;
    attrs[subcomponent::attrattr] = 50;
    attrs[subcomponent::attrstate] = -50;
    const auto attr_on = detail::build_component<attr_component>(attrs, s, component_id::attr);
    idle_and_zero(attr_on);

    // The engine skips what is idle and still gives its one-job path's priority, bit for bit:
    // Maui's defaults (each job: its minutes in the queue, floored at 1), then with every idle
    // case above at once and negative component weights (w x -0.0 is -0.0).
    weights mixed = targets;
    mixed[subcomponent::fsuser] = 100;
    mixed[subcomponent::attrattr] = 50;
    mixed[component_id::targ] = -7;
    mixed[component_id::attr] = -1;
    w.c.fs_active = false;
    for (const weights& wt : {defaults, mixed}) {
        const auto e = make_maui_engine(wt, w.c.opts);
        std::vector<priority_value> out(w.jobs.size());
        std::vector<double> scores(w.jobs.size());
        e.batch(std::span<const job>(w.jobs), w.c, std::span<priority_value>(out));
        e.batch_scores(std::span<const job>(w.jobs), w.c, std::span<double>(scores));
        for (std::size_t i = 0; i < w.jobs.size(); ++i) {
            INFO("job ", i);
            CHECK(out[i] == e.priority(w.jobs[i], w.c));
            CHECK(same(scores[i], e.score(w.jobs[i], w.c)));
        }
    }
}

TEST_CASE("Maui batch: idle is never claimed for a component that is not 0 (random worlds)") {
    // The contract behind the engine's skipping, over random weights in which whole
    // components often have every subweight 0 and credentials often adjust no weight.
    std::mt19937_64 rng(2026);
    std::size_t idle_seen = 0, busy_seen = 0;
    for (int round = 0; round < 40; ++round) {
        weights wt = random_weights(rng);
        for (std::size_t k = 0; k < wt.sub_weight.size(); ++k)
            if (rng() % 2 == 0) wt.sub_weight[k] = 0;
        world w(9000 + static_cast<std::uint64_t>(round), wt[subcomponent::queuetime], wt[subcomponent::xfactor]);
        w.c.opts = random_options(rng, round);
        for (std::size_t k = 0; k < cred_kind_count; ++k)
            for (auto& cr : w.tables[k]) {
                if (round % 2 == 0) cr.qt_weight = cr.xf_weight = cr.class_weight = 0;
                if (round % 4 == 0) cr.qt_target = cr.xf_target = 0;
            }
        const cap_style s = w.c.opts.caps;
        const auto check = [&](const auto& comp) {
            INFO(comp.name, " round ", round);
            if (comp.idle(w.c)) {
                ++idle_seen;
                CHECK(all_zero(comp, w));
            } else {
                ++busy_seen;
            }
        };
        check(detail::build_component<serv_component>(wt, s, component_id::serv));
        check(detail::build_component<targ_component>(wt, s, component_id::targ));
        check(detail::build_component<cred_component>(wt, s, component_id::cred));
        check(detail::build_component<fs_component>(wt, s, component_id::fs));
        check(detail::build_component<res_component>(wt, s, component_id::res));
        check(detail::build_component<usage_component>(wt, s, component_id::usage));
    }
    CHECK(idle_seen > 20);
    CHECK(busy_seen > 20);
}
