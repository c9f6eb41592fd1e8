// Maui: the full engine per job, and the fair-share window update.
//
// Workload (fixed seed, built once before anything is timed): 1,000,000 pending `maui::job`
// records (10,000 with MFPRIO_BENCH_SMALL=1) of 2,000 users (a few with many jobs), 200
// groups, 300 accounts, 8 QOS and 6 classes; submitted over the last week, some eligible
// later (a hold released, a few in the future), some blocked by a queue policy lately;
// wallclock limits of 10 minutes to 2 days (a few with none), 1 to 1,024 processors (most
// small), memory, swap, disk, nodes, bypass counts, soft-policy violations and a few system
// priorities. Besides them, one running job for every 20 pending ones: they give each user's
// running processors and jobs (UPROC, UJOB) and are charged to the fair-share ledger, eight
// 12-hour windows of them, whose percentages (`fs_ledger::apply`) are the credentials'
// fs_usage. Credentials carry priorities (some 0: the DEFAULT's applies; some negative),
// fair-share targets of every mode (target, floor, ceiling, both caps, none: the DEFAULT's
// applies), QOS with QTWEIGHT, XFWEIGHT, QTTARGET and XFTARGET, groups with a CLASSWEIGHT;
// FSPOLICY DEDICATEDPES, JOBPRIOACCRUALPOLICY QUEUEPOLICY, Maui's upper caps.
//
// Engine benchmarks (ns_per_job; after the table, each as a speed-up over the dispatched
// baseline and a time relative to the hand-written code, both of the same run):
//   full/batch          `make_maui_engine(w, opts).batch` with every start-priority
//                       subcomponent weighted (SERV, TARG, CRED, ATTR, FS, RES; USAGE is not
//                       in Maui's start priority) and some caps, weights read at run time;
//   full/chunks_1024_planned    the same batch in chunks of 1,024 jobs, as a queue pass
//                       calls it, with one plan (`prepare_batch`) for all the chunks;
//   full/chunks_1024_unplanned  the same chunks, each preparing its own tables (CRED, FS
//                       and RES tabulate every credential and user once per batch);
//   full/priority       the same engine's one-job path, `priority`, job by job;
//   dispatched          the baseline: one virtual call per subcomponent per job, weights and
//                       caps in vectors, the generic loop of a runtime-configured scheduler;
//   hand_written        Maui's formulas written out in one function, as a scheduler's C code
//                       would have them (same arithmetic, same order);
//   prepared_sketch     not the library: a sketch of a prepared hook per component
//                       (per-credential terms tabulated once per batch, no branch on
//                       configuration, pow only where its value is not known exactly); the
//                       library's hooks go further (no branch on the job's data, two jobs at
//                       a time);
//   default_config      `make_maui_engine(weights{})`: Maui's defaults, QUEUETIME alone;
//   memory_floor        not an engine: reads the job fields and credential entries the full
//                       engine reads and adds them up, no factor arithmetic;
//   component/<C>       the engine with component C's weight alone (the others 0).
// Before anything is timed, every engine's batch is checked against its `priority` for every
// job, and the full engine, the dispatched, the hand-written and the sketch against each
// other; and every start-priority subcomponent must contribute to some jobs.
//
// Fair-share window update (`maui::fs_ledger`, the workload's tables: 2,514 credentials):
//   fs/charge           `fs_ledger::charge` of every running job (amounts computed
//                       beforehand): ns_per_charge;
//   fs/charge_pes       `fs_charge(DEDICATEDPES, ...)` then `charge`, the per-iteration cost;
//   fs/advance/depth:D  `advance` across one FSINTERVAL boundary (one rotation of D windows):
//                       time per call and ns_per_cred;
//   fs/apply/depth:D    `apply`: every credential's percentage into the tables;
//   fs/iteration        what a scheduler iteration does: charge every running job, advance
//                       (no boundary), apply, fs_active;
// and /large variants of advance and apply with 25 times the tables (62,850 credentials).

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include <mfprio/core/component.hpp>
#include <mfprio/maui/context.hpp>
#include <mfprio/maui/fairshare.hpp>
#include <mfprio/maui/job.hpp>
#include <mfprio/maui/model.hpp>
#include <mfprio/maui/priority.hpp>

namespace {

namespace mm = mfprio::maui;
using K = mm::cred_kind;
using C = mm::component_id;
using S = mm::subcomponent;

constexpr std::size_t full_jobs = 1'000'000;
constexpr std::size_t small_jobs = 10'000;

/// True when MFPRIO_BENCH_SMALL is set to anything but "" or "0".
bool small_run() {
    const char* v = std::getenv("MFPRIO_BENCH_SMALL");
    return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
}

[[noreturn]] void fail(const char* what) {
    std::fprintf(stderr, "mfprio bench: %s\n", what);
    std::abort();
}

// ---- Configuration ---------------------------------------------------------------------------

/// FSPOLICY DEDICATEDPES, JOBPRIOACCRUALPOLICY QUEUEPOLICY, Moab's rules for UPROC and UJOB
/// (weighted: every RES subcomponent has work to do) and TARGETQUEUETIME (a power per job
/// rather than Maui 3.3's constant), the rest Maui 3.3's defaults (XFMINWCLIMIT 120 for jobs
/// with a QOS, upper caps, negatives floored at 1).
mm::options bench_options() {
    mm::options o;
    o.fs_policy = mm::fs_metric::dedicated_pes;
    o.accrual = mm::accrual_policy::queuepolicy;
    o.res_user_terms = true;
    o.target_queuetime = mm::target_queuetime_form::moab;
    return o;
}

/// FSINTERVAL 12:00:00, FSDEPTH 8, FSDECAY 0.8.
constexpr mm::fs_config bench_fs{43200, 8, 0.8};

/// Every start-priority subcomponent weighted, with a few caps:
///   SERVICEWEIGHT 1   QUEUETIMEWEIGHT 10 XFACTORWEIGHT 100 SPVIOLATIONWEIGHT -500 BYPASSWEIGHT 50
///   TARGETWEIGHT 1    TARGETQUEUETIMEWEIGHT 10 TARGETXFACTORWEIGHT 1 TARGETXFACTORCAP 1000000
///   CREDWEIGHT 10     USERWEIGHT 1 GROUPWEIGHT 2 ACCOUNTWEIGHT 3 QOSWEIGHT 10 CLASSWEIGHT 5
///   ATTRWEIGHT 1      ATTRATTRWEIGHT 1 ATTRSTATEWEIGHT 1 (0 in Maui 3.3 whatever the weight)
///   FSWEIGHT 100      FSUSERWEIGHT 10 FSGROUPWEIGHT 5 FSACCOUNTWEIGHT 5 FSQOSWEIGHT 2
///                     FSCLASSWEIGHT 1 FSUSERCAP 50 FSCAP 2000
///   RESWEIGHT 1       NODEWEIGHT 10 PROCWEIGHT 2 MEMWEIGHT 1 SWAPWEIGHT 1 DISKWEIGHT 1
///                     PSWEIGHT 1 PEWEIGHT 4 WALLTIMEWEIGHT -1 UPROCWEIGHT -1 UJOBWEIGHT -10
///                     MEMCAP 65536 PSCAP 100000 WALLTIMECAP 86400 RESCAP 200000
mm::weights full_weights() {
    mm::weights w;
    w.component_weight = {1, 1, 10, 1, 100, 1, 1};
    w[S::queuetime] = 10;
    w[S::xfactor] = 100;
    w[S::spviolation] = -500;
    w[S::bypass] = 50;
    w[S::targetqueuetime] = 10;
    w[S::targetxfactor] = 1;
    w[S::user] = 1;
    w[S::group] = 2;
    w[S::account] = 3;
    w[S::qos] = 10;
    w[S::job_class] = 5;
    w[S::attrattr] = 1;
    w[S::attrstate] = 1;
    w[S::fsuser] = 10;
    w[S::fsgroup] = 5;
    w[S::fsaccount] = 5;
    w[S::fsqos] = 2;
    w[S::fsclass] = 1;
    w[S::node] = 10;
    w[S::proc] = 2;
    w[S::mem] = 1;
    w[S::swap] = 1;
    w[S::disk] = 1;
    w[S::ps] = 1;
    w[S::pe] = 4;
    w[S::walltime] = -1;
    w[S::uproc] = -1;
    w[S::ujob] = -10;
    w.sub_cap[mm::index(S::targetxfactor)] = 1e6;
    w.sub_cap[mm::index(S::fsuser)] = 50;
    w.sub_cap[mm::index(S::mem)] = 65536;
    w.sub_cap[mm::index(S::ps)] = 1e5;
    w.sub_cap[mm::index(S::walltime)] = 86400;
    w.component_cap[mm::index(C::fs)] = 2000;
    w.component_cap[mm::index(C::res)] = 2e5;
    return w;
}

/// The full weights with component `keep` alone weighted.
mm::weights only_component(C keep) {
    mm::weights w = full_weights();
    for (std::size_t c = 0; c < mm::component_count; ++c)
        if (c != mm::index(keep)) w.component_weight[c] = 0;
    return w;
}

// ---- Workload ----------------------------------------------------------------------------------

struct maui_workload {
    static constexpr std::uint32_t user_count = 2000, group_count = 200, account_count = 300, qos_count = 8,
                                   class_count = 6;
    static constexpr std::int64_t now = 1'767'225'600; ///< 2026-01-01T00:00:00Z

    std::array<std::vector<mm::credential>, mm::cred_kind_count> tables;
    std::vector<std::uint32_t> group_of, account_of; ///< each user's usual group and account
    std::vector<std::uint32_t> active_procs, active_jobs;
    std::vector<mm::job> jobs;    ///< the queue: pending jobs, in submission order of the generator
    std::vector<mm::job> running; ///< running jobs: UPROC, UJOB, and fair-share charges
    std::vector<double> running_seconds; ///< each running job's seconds since the last iteration
    mm::fs_ledger ledger{bench_fs, {user_count, group_count, account_count, qos_count, class_count}};
    mm::context ctx{};

    explicit maui_workload(std::size_t n, std::uint64_t seed = 20260101u) {
        std::mt19937_64 rng(seed);
        auto uniform = [&](std::int64_t lo, std::int64_t hi) { // inclusive
            return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
        };
        auto real = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
        auto one_in = [&](std::int64_t k) { return uniform(0, k - 1) == 0; };

        ctx.now = now;
        ctx.opts = bench_options();
        // 1,024 nodes of 32 processors, 256 GB of memory, 64 GB of swap, 1 TB of disk.
        ctx.cluster = mm::resources{32768.0, 1024.0 * 262144.0, 1024.0 * 65536.0, 1024.0 * 1048576.0};

        // Credentials. Targets in percent of the delivered usage; the mode is drawn among the six.
        const auto target = [&](double lo, double hi) {
            const auto mode = static_cast<mm::fs_target_mode>(uniform(0, 5));
            if (mode == mm::fs_target_mode::none) return mm::fs_target{};
            return mm::fs_target{std::round(real(lo, hi) * 100.0) / 100.0, mode};
        };
        auto& users = tables[mm::index(K::user)];
        users.resize(user_count);
        group_of.resize(user_count);
        account_of.resize(user_count);
        for (std::uint32_t u = 0; u < user_count; ++u) {
            users[u].priority = one_in(3) ? 0 : uniform(-100, 1000);
            users[u].target = target(0.01, 0.5);
            group_of[u] = static_cast<std::uint32_t>(uniform(0, group_count - 1));
            account_of[u] = static_cast<std::uint32_t>(uniform(0, account_count - 1));
        }
        auto& groups = tables[mm::index(K::group)];
        groups.resize(group_count);
        for (auto& g : groups) {
            g.priority = one_in(4) ? 0 : uniform(0, 5000);
            g.target = target(0.1, 2.0);
            g.class_weight = one_in(10) ? uniform(1, 20) : 0;
        }
        auto& accounts = tables[mm::index(K::account)];
        accounts.resize(account_count);
        for (auto& a : accounts) {
            a.priority = one_in(3) ? 0 : uniform(-1000, 3000);
            a.target = target(0.1, 1.0);
        }
        auto& qos = tables[mm::index(K::qos)];
        qos.resize(qos_count);
        for (std::uint32_t q = 0; q < qos_count; ++q) {
            qos[q].priority = q == 0 ? 0 : uniform(100, 10'000);
            qos[q].target = mm::fs_target{5.0 + 3.0 * q, static_cast<mm::fs_target_mode>(q % 6)};
            if (q % 6 == 0) qos[q].target = {};
        }
        qos[1].xf_target = 2.0;
        qos[3].xf_target = 4.0;
        qos[6].xf_target = 8.0;
        qos[2].qt_target = 3600;
        qos[3].qt_target = 4 * 3600;
        qos[5].qt_target = 12 * 3600;
        qos[1].qt_weight = 5;
        qos[4].qt_weight = 20;
        qos[2].xf_weight = 50;
        qos[5].xf_weight = -20;
        auto& classes = tables[mm::index(K::job_class)];
        classes.resize(class_count);
        for (std::uint32_t k = 0; k < class_count; ++k) {
            classes[k].priority = k == 0 || k == 3 ? 0 : uniform(1, 2000);
            classes[k].rm_priority = k == 3 ? 500 : 0; // class 0: 0 (no DEFAULT for a job with a class); class 3: the queue's
        }
        // Every mode among the classes and the QOS; class 0 has none: the DEFAULT's applies.
        classes[1].target = {20.0, mm::fs_target_mode::target};
        classes[2].target = {25.0, mm::fs_target_mode::floor};
        classes[3].target = {10.0, mm::fs_target_mode::ceiling};
        classes[4].target = {30.0, mm::fs_target_mode::cap_absolute};
        classes[5].target = {15.0, mm::fs_target_mode::cap_relative};
        ctx.defaults[mm::index(K::user)] = mm::credential{.priority = 10, .target = {0.05, mm::fs_target_mode::floor}};
        ctx.defaults[mm::index(K::group)] = mm::credential{.priority = 100};
        ctx.defaults[mm::index(K::account)] = mm::credential{.priority = 0, .target = {0.3, mm::fs_target_mode::target}};
        ctx.defaults[mm::index(K::qos)] = mm::credential{.priority = 1000}; // QOS: never falls back
        ctx.defaults[mm::index(K::job_class)] = mm::credential{.priority = 1, .target = {15.0, mm::fs_target_mode::ceiling}};

        // A job of a user drawn with a skew (user u with probability ~ 1/sqrt(u)).
        const auto make_job = [&](std::uint32_t id) {
            mm::job j;
            j.id = id;
            const double r = real(0.0, 1.0);
            j.user = std::min(user_count - 1, static_cast<std::uint32_t>(r * r * user_count));
            j.group = one_in(20) ? static_cast<std::uint32_t>(uniform(0, group_count - 1)) : group_of[j.user];
            j.account = one_in(10) ? static_cast<std::uint32_t>(uniform(0, account_count - 1)) : account_of[j.user];
            j.qos = one_in(10) ? mm::no_cred : static_cast<std::uint32_t>(uniform(0, qos_count - 1));
            j.job_class = one_in(50) ? mm::no_cred : static_cast<std::uint32_t>(uniform(0, class_count - 1));
            j.submit_time = now - uniform(0, 7 * 86400);
            j.wclimit = one_in(200) ? 0u : static_cast<std::uint32_t>(uniform(600, 2 * 86400));
            const auto top = std::int64_t{1} << uniform(0, 10);
            j.procs = static_cast<std::uint32_t>(uniform(1, top));
            j.nodes = (j.procs + 31) / 32;
            j.mem_mb = j.procs * static_cast<std::uint32_t>(uniform(1, 8)) * 1024u;
            j.swap_mb = one_in(4) ? j.mem_mb / 2 : 0u;
            j.disk_mb = one_in(3) ? static_cast<std::uint32_t>(uniform(1, 100)) * 1024u : 0u;
            return j;
        };

        jobs.resize(n);
        for (std::size_t k = 0; k < n; ++k) {
            mm::job j = make_job(static_cast<std::uint32_t>(k + 1));
            if (one_in(10)) j.eligible_time = j.submit_time + uniform(60, 2 * 86400); // some in the future
            if (one_in(8)) j.policy_blocked_time = now - uniform(0, 4 * 3600);
            if (one_in(20)) j.blocked_time = now - uniform(0, 3600); // not counted under QUEUEPOLICY
            j.bypass = one_in(10) ? static_cast<std::uint32_t>(uniform(1, 20)) : 0u;
            j.spviolation = one_in(25);
            if (one_in(1000)) {
                j.system_priority_mode = mm::system_priority_kind::absolute;
                j.system_priority = static_cast<std::int32_t>(uniform(0, 1000));
            } else if (one_in(1000)) {
                j.system_priority_mode = mm::system_priority_kind::relative;
                j.system_priority = static_cast<std::int32_t>(uniform(-5000, 5000));
            }
            jobs[k] = j;
        }

        // Running jobs: UPROC and UJOB, and the fair-share windows.
        const std::size_t r = std::max<std::size_t>(1, n / 20);
        running.resize(r);
        running_seconds.resize(r);
        active_procs.assign(user_count, 0);
        active_jobs.assign(user_count, 0);
        for (std::size_t k = 0; k < r; ++k) {
            mm::job j = make_job(static_cast<std::uint32_t>(n + k + 1));
            if (j.wclimit == 0) j.wclimit = 3600;
            j.state = mfprio::job_state::running;
            j.start_time = now - uniform(60, j.wclimit);
            running[k] = j;
            running_seconds[k] = static_cast<double>(uniform(1, 60)); // since the last iteration
            active_procs[j.user] += j.procs;
            active_jobs[j.user] += 1;
        }
        ctx.user_active_procs = active_procs;
        ctx.user_active_jobs = active_jobs;

        // Eight windows of usage: each running job charged a random time in each window.
        const std::int64_t depth = static_cast<std::int64_t>(ledger.depth());
        for (std::int64_t w = depth - 1; w >= 0; --w) {
            ledger.advance(now - w * ledger.interval());
            for (const mm::job& j : running)
                if (!one_in(3))
                    ledger.charge(j, mm::fs_charge(ctx.opts.fs_policy, j, ctx.cluster,
                                                   static_cast<double>(uniform(60, 43200))));
        }
        ledger.apply(spans());
        ctx.fs_active = mm::fs_active(ctx.opts, ledger);
        for (std::size_t k = 0; k < mm::cred_kind_count; ++k) ctx.creds[k] = tables[k];
    }

    maui_workload(const maui_workload&) = delete;
    maui_workload& operator=(const maui_workload&) = delete;

    std::array<std::span<mm::credential>, mm::cred_kind_count> spans() {
        return {tables[0], tables[1], tables[2], tables[3], tables[4]};
    }
    [[nodiscard]] std::array<std::size_t, mm::cred_kind_count> sizes() const {
        return {tables[0].size(), tables[1].size(), tables[2].size(), tables[3].size(), tables[4].size()};
    }
};

/// The workload of this run, built on first use (outside any timed region).
const maui_workload& workload() {
    static const maui_workload w(small_run() ? small_jobs : full_jobs);
    return w;
}

// ---- The runtime-dispatched baseline ---------------------------------------------------------

struct dyn_sub {
    virtual ~dyn_sub() = default;
    virtual double eval(const mm::job& j, const mm::context& c) const noexcept = 0;
    virtual double weight_for(double w, const mm::job& j, const mm::context& c) const noexcept = 0;
};

template <class F>
struct dyn_sub_of final : dyn_sub {
    F factor{};
    double eval(const mm::job& j, const mm::context& c) const noexcept override { return factor(j, c); }
    double weight_for(double w, const mm::job& j, const mm::context& c) const noexcept override {
        if constexpr (mfprio::weight_adjusting_factor<F, mm::job, mm::context>) return factor.adjust_weight(w, j, c);
        else return w;
    }
};

/// Subcomponents as a list of virtual factors per component, weights and caps in vectors:
/// the same factor policies, weights, caps and order of addition as the engine.
class dyn_engine {
public:
    dyn_engine(const mm::weights& w, const mm::options& o) : result_(mm::maui_result::from(o)) {
        add<mm::serv_component>(w, o, C::serv);
        add<mm::targ_component>(w, o, C::targ);
        add<mm::cred_component>(w, o, C::cred);
        add<mm::attr_component>(w, o, C::attr);
        add<mm::fs_component>(w, o, C::fs);
        add<mm::res_component>(w, o, C::res);
        add<mm::usage_component>(w, o, C::usage);
        if (!o.usage_in_start_priority) parts_.back().weight = 0.0;
    }

    void batch(std::span<const mm::job> jobs, const mm::context& c, std::span<mm::priority_value> out) const {
        for (std::size_t k = 0; k < jobs.size(); ++k) {
            const mm::job& j = jobs[k];
            double sum = 0.0;
            for (const part& p : parts_) {
                if (p.weight == 0) continue;
                double total = 0.0;
                for (std::size_t s = 0; s < p.subs.size(); ++s) {
                    const double w = p.subs[s]->weight_for(p.sub_weights[s], j, c);
                    if (w == 0) continue;
                    const double contribution = w * p.sub_caps[s](p.subs[s]->eval(j, c));
                    total = total + contribution;
                }
                const double contribution = p.limit(total) * p.weight;
                sum = sum + contribution;
            }
            out[k] = result_(j, [sum]() noexcept { return sum; });
        }
    }

private:
    struct part {
        std::vector<std::unique_ptr<dyn_sub>> subs;
        std::vector<double> sub_weights;
        std::vector<mfprio::cap> sub_caps;
        mfprio::cap limit;
        double weight = 0;
    };

    template <class Component>
    void add(const mm::weights& w, const mm::options& o, C c) {
        part p;
        const std::size_t first = mm::index(mm::components[mm::index(c)].first);
        add_subs<Component>(p, w, o, first, std::make_index_sequence<Component::size>{});
        p.limit = mfprio::cap{w.component_cap[mm::index(c)], o.caps};
        p.weight = static_cast<double>(w[c]);
        parts_.push_back(std::move(p));
    }
    template <class Component, std::size_t... I>
    static void add_subs(part& p, const mm::weights& w, const mm::options& o, std::size_t first,
                         std::index_sequence<I...>) {
        using subterms = decltype(Component{}.subterms);
        (
            [&] {
                using F = typename std::tuple_element_t<I, subterms>::factor_type;
                p.subs.push_back(std::make_unique<dyn_sub_of<F>>());
                p.sub_weights.push_back(static_cast<double>(w.sub_weight[first + I]));
                p.sub_caps.push_back(mfprio::cap{w.sub_cap[first + I], o.caps});
            }(),
            ...);
    }

    std::vector<part> parts_;
    mm::maui_result result_;
};

// ---- Maui's formulas written out ---------------------------------------------------------------

/// Maui's start priority in one function, every formula written out (Maui 3.3's forms as
/// the options select them; USAGE is not in the start priority): what a scheduler's own code
/// would do with the same configuration. Same arithmetic in the same order as the engine.
class hand_written {
public:
    hand_written(const mm::weights& w, const mm::options& o) : result_(mm::maui_result::from(o)) {
        if (o.usage_in_start_priority) fail("hand_written: USAGE in the start priority is not written out");
        for (std::size_t c = 0; c < mm::component_count; ++c) {
            cw_[c] = static_cast<double>(w.component_weight[c]);
            ccap_[c] = mfprio::cap{w.component_cap[c], o.caps};
        }
        for (std::size_t s = 0; s < mm::subcomponent_count; ++s) {
            sw_[s] = static_cast<double>(w.sub_weight[s]);
            scap_[s] = mfprio::cap{w.sub_cap[s], o.caps};
        }
    }

    void batch(std::span<const mm::job> jobs, const mm::context& c, std::span<mm::priority_value> out) const {
        for (std::size_t k = 0; k < jobs.size(); ++k) out[k] = priority(jobs[k], c);
    }

    [[nodiscard]] mm::priority_value priority(const mm::job& j, const mm::context& c) const noexcept {
        const mm::options& o = c.opts;
        const mm::credential* u = c.find(K::user, j.user);
        const mm::credential* g = c.find(K::group, j.group);
        const mm::credential* a = c.find(K::account, j.account);
        const mm::credential* q = c.find(K::qos, j.qos);
        const mm::credential* cl = c.find(K::job_class, j.job_class);

        std::int64_t start = j.eligible_time != 0 ? j.eligible_time : j.submit_time;
        if (o.accrual != mm::accrual_policy::always) start = std::max(start, j.policy_blocked_time);
        if (o.accrual == mm::accrual_policy::fullpolicy) start = std::max(start, j.blocked_time);
        const std::int64_t queued = std::max<std::int64_t>(0, c.now - start);
        const double wclimit = static_cast<double>(j.wclimit);
        const double denominator =
            !o.xf_min_wclimit_needs_qos || q != nullptr ? std::max(o.xf_min_wclimit, wclimit) : wclimit;
        double xf = 0.0;
        if (denominator > 0)
            xf = o.xfactor == mm::xfactor_form::doc ? 1.0 + static_cast<double>(queued) / denominator
                                                    : (static_cast<double>(queued) + wclimit) / denominator;

        double sum = 0.0;
        const auto add_component = [&](C comp, double total) {
            const double w = cw_[mm::index(comp)];
            if (w == 0) return;
            const double contribution = ccap_[mm::index(comp)](total) * w;
            sum = sum + contribution;
        };
        const auto add = [&](double& total, S s, double w, double f) {
            if (w == 0) return;
            const double contribution = w * scap_[mm::index(s)](f);
            total = total + contribution;
        };

        if (cw_[mm::index(C::serv)] != 0) { // SERV
            double t = 0.0;
            const double qt = o.queuetime == mm::queuetime_unit::whole_minutes
                                  ? static_cast<double>(queued / 60)
                                  : static_cast<double>(queued) / 60.0;
            add(t, S::queuetime, q != nullptr ? sw(S::queuetime) + static_cast<double>(q->qt_weight) : sw(S::queuetime),
                qt);
            add(t, S::xfactor, q != nullptr ? sw(S::xfactor) + static_cast<double>(q->xf_weight) : sw(S::xfactor), xf);
            add(t, S::spviolation, sw(S::spviolation), j.spviolation ? 1.0 : 0.0);
            add(t, S::bypass, sw(S::bypass), static_cast<double>(j.bypass));
            add_component(C::serv, t);
        }
        if (cw_[mm::index(C::targ)] != 0) { // TARG
            double t = 0.0;
            if (sw(S::targetqueuetime) != 0) {
                double f = 0.0;
                if (q != nullptr && q->qt_target > 0)
                    f = o.target_queuetime == mm::target_queuetime_form::maui33
                            ? std::pow(std::max(0.0001, q->qt_target - static_cast<double>(start)), -2.0)
                            : std::pow(1000.0, std::min(1.0, static_cast<double>(queued) / q->qt_target));
                add(t, S::targetqueuetime, sw(S::targetqueuetime), f);
            }
            if (sw(S::targetxfactor) != 0) {
                double f = 0.0;
                if (q != nullptr && q->xf_target > 0) f = std::pow(std::max(0.0001, q->xf_target - xf), -2.0);
                add(t, S::targetxfactor, sw(S::targetxfactor), f);
            }
            add_component(C::targ, t);
        }
        if (cw_[mm::index(C::cred)] != 0) { // CRED
            const auto prio = [&](const mm::credential* cred, K kind) {
                std::int64_t p = cred != nullptr ? cred->priority : 0;
                if (p == 0) p = c.default_of(kind).priority;
                return static_cast<double>(p);
            };
            double t = 0.0;
            add(t, S::user, sw(S::user), prio(u, K::user));
            add(t, S::group, sw(S::group), prio(g, K::group));
            add(t, S::account, sw(S::account), prio(a, K::account));
            add(t, S::qos, sw(S::qos), q != nullptr ? static_cast<double>(q->priority) : 0.0);
            // A job with a class: its priority, else the queue's, even 0 (MClassGetPrio);
            // DEFAULT only for a job without one.
            std::int64_t p = cl != nullptr ? cl->priority : 0;
            if (p == 0 && cl != nullptr) p = cl->rm_priority;
            if (cl == nullptr) p = c.default_of(K::job_class).priority;
            add(t, S::job_class, g != nullptr && g->class_weight > 0 ? static_cast<double>(g->class_weight) : sw(S::job_class),
                static_cast<double>(p));
            add_component(C::cred, t);
        }
        if (cw_[mm::index(C::attr)] != 0) { // ATTR: not implemented in Maui 3.3
            double t = 0.0;
            add(t, S::attrattr, sw(S::attrattr), 0.0);
            add(t, S::attrstate, sw(S::attrstate), 0.0);
            add_component(C::attr, t);
        }
        if (cw_[mm::index(C::fs)] != 0) { // FS
            const auto delta = [&](const mm::credential* cred, K kind) {
                if (!c.fs_active || cred == nullptr) return 0.0; // no credential: 0
                const mm::fs_target tg = cred->target.value > 0 ? cred->target : c.default_of(kind).target;
                if (!(tg.value > 0)) return 0.0;
                const double usage = cred != nullptr ? cred->fs_usage : 0.0;
                const double d = o.fs_percent_based ? 1.0 - usage / tg.value : tg.value - usage;
                switch (tg.mode) {
                case mm::fs_target_mode::target: return d;
                case mm::fs_target_mode::floor: return d < 0.0 ? 0.0 : d;   // std::max(d, 0.0)
                case mm::fs_target_mode::ceiling: return 0.0 < d ? 0.0 : d; // std::min(d, 0.0)
                default: return 0.0;
                }
            };
            double t = 0.0;
            add(t, S::fsuser, sw(S::fsuser), delta(u, K::user));
            add(t, S::fsgroup, sw(S::fsgroup), delta(g, K::group));
            add(t, S::fsaccount, sw(S::fsaccount), delta(a, K::account));
            add(t, S::fsqos, sw(S::fsqos), delta(q, K::qos));
            add(t, S::fsclass, sw(S::fsclass), delta(cl, K::job_class));
            add_component(C::fs, t);
        }
        if (cw_[mm::index(C::res)] != 0) { // RES
            const mm::resources& r = c.cluster;
            double pe = 0.0;
            if (r.procs > 0) {
                double share = static_cast<double>(j.procs) / r.procs;
                const auto consider = [&share](double requested, double total) {
                    if (requested > 0 && total > 0) share = std::max(share, requested / total);
                };
                consider(static_cast<double>(j.mem_mb), r.mem);
                consider(static_cast<double>(j.disk_mb), r.disk);
                consider(static_cast<double>(j.swap_mb), r.swap);
                pe = r.procs * share;
            }
            const std::size_t user = j.user;
            double t = 0.0;
            add(t, S::node, sw(S::node), static_cast<double>(j.nodes));
            add(t, S::proc, sw(S::proc), static_cast<double>(j.procs));
            add(t, S::mem, sw(S::mem), static_cast<double>(j.mem_mb));
            add(t, S::swap, sw(S::swap), static_cast<double>(j.swap_mb));
            add(t, S::disk, sw(S::disk), static_cast<double>(j.disk_mb));
            add(t, S::ps, sw(S::ps), static_cast<double>(j.procs) * wclimit);
            add(t, S::pe, sw(S::pe), pe);
            add(t, S::walltime, sw(S::walltime), wclimit);
            add(t, S::uproc, sw(S::uproc),
                user < c.user_active_procs.size() ? static_cast<double>(c.user_active_procs[user]) : 0.0);
            add(t, S::ujob, sw(S::ujob),
                user < c.user_active_jobs.size() ? static_cast<double>(c.user_active_jobs[user]) : 0.0);
            add_component(C::res, t);
        }
        return result_.finish(sum, j.system_priority_mode, j.system_priority);
    }

private:
    [[nodiscard]] double sw(S s) const noexcept { return sw_[mm::index(s)]; }

    std::array<double, mm::component_count> cw_{};
    std::array<mfprio::cap, mm::component_count> ccap_{};
    std::array<double, mm::subcomponent_count> sw_{};
    std::array<mfprio::cap, mm::subcomponent_count> scap_{};
    mm::maui_result result_;
};

// ---- A sketch of a prepared engine -------------------------------------------------------------

/// Not the library: what Maui's engine can do with a prepared hook per component, written out
/// as a point of comparison. Once per batch it tabulates what depends on
/// one credential only, already weighted and capped: each credential's PRIORITY term (with
/// the DEFAULT fallbacks) and its fair-share term (target, mode and usage), each user's UPROC
/// and UJOB terms, each QOS's adjusted QUEUETIME and XFACTOR weights, XFMINWCLIMIT rule and
/// targets, and ATTR's constant. Per job it then adds table entries and computes only what
/// depends on the job's own fields, without a branch on configuration (caps as min/max with
/// infinite bounds when off), and it calls pow only where its value is not known exactly
/// beforehand: pow(1000, 1) is 1000 (a queue time past QTTARGET), and pow(0.0001, -2) is
/// computed once (an expansion factor past XFTARGET).
///
/// Exactness: every subterm's weight x cap(factor) is the same operation on the same values
/// as in the engine, and the sums are taken in the same order from 0.0. The engine skips a
/// subterm or a component whose weight is 0; adding its 0 x (finite value), +0.0 or -0.0,
/// instead leaves a sum that starts at +0.0 unchanged (such a sum is never -0.0), and every
/// value here is finite. A cap is `(hi < x ? hi : x)` then `(y < lo ? lo : y)`, with hi = +inf
/// and lo = -inf where the engine's cap does nothing: the same result for every x. Only the
/// bench's options are written out (Moab's TARGETQUEUETIME, USAGE not in the start priority);
/// it stops otherwise. Checked against the engine for every job before timing.
class prepared_sketch {
public:
    prepared_sketch(const mm::weights& w, const mm::options& o) : result_(mm::maui_result::from(o)) {
        if (o.usage_in_start_priority || o.target_queuetime != mm::target_queuetime_form::moab)
            fail("prepared_sketch: options not written out");
        for (std::size_t c = 0; c < mm::component_count; ++c)
            comp_[c] = term(static_cast<double>(w.component_weight[c]), mfprio::cap{w.component_cap[c], o.caps});
        for (std::size_t s = 0; s < mm::subcomponent_count; ++s)
            sub_[s] = term(static_cast<double>(w.sub_weight[s]), mfprio::cap{w.sub_cap[s], o.caps});
    }

    void batch(std::span<const mm::job> jobs, const mm::context& c, std::span<mm::priority_value> out) const {
        const prepared p = prepare(c);
        for (std::size_t k = 0; k < jobs.size(); ++k) out[k] = priority(jobs[k], c, p);
    }

private:
    /// A weight and a cap as bounds: weight x cap(x), without a branch.
    struct term {
        double w = 0, hi = HUGE_VAL, lo = -HUGE_VAL;
        term() = default;
        term(double weight, mfprio::cap c) : w(weight) {
            if (c.active()) {
                hi = c.limit;
                if (c.style == mfprio::cap_style::symmetric) lo = -c.limit;
            }
        }
        [[nodiscard]] double capped(double x) const noexcept {
            const double y = hi < x ? hi : x;
            return y < lo ? lo : y;
        }
        [[nodiscard]] double operator()(double x) const noexcept { return w * capped(x); }
        /// The engine's order for a component: cap(sum) x weight.
        [[nodiscard]] double component(double sum) const noexcept { return capped(sum) * w; }
    };
    struct qos_row {
        double qt_weight = 0, xf_weight = 0; ///< QUEUETIMEWEIGHT + QTWEIGHT, XFACTORWEIGHT + XFWEIGHT
        double xf_min = 0;                   ///< XFMINWCLIMIT, or -inf where it does not apply
        double qt_target = 0, xf_target = 0;
    };
    /// Per credential kind, size + 1 entries: the last one for jobs without that credential.
    struct prepared {
        std::array<std::uint32_t, mm::cred_kind_count> size{};
        std::array<std::vector<double>, mm::cred_kind_count> cred; ///< weighted capped PRIORITY (CLASS: capped only)
        std::vector<double> class_weight;                          ///< by group: CLASSWEIGHT or the group's
        std::array<std::vector<double>, mm::cred_kind_count> fs;   ///< weighted capped fair-share terms
        std::vector<double> uproc, ujob;                           ///< by user
        std::vector<qos_row> qos;
        std::array<double, 2> spviolation{};
        double attr = 0;        ///< ATTR's contribution to the sum
        double txf_ceiling = 0; ///< pow(0.0001, -2)
        double pe_procs = 0, pe_mem = HUGE_VAL, pe_disk = HUGE_VAL, pe_swap = HUGE_VAL; ///< totals; inf: not configured
    };

    [[nodiscard]] const term& sub(S s) const noexcept { return sub_[mm::index(s)]; }
    /// The engine's skip of a zero weight, for the tables (their values need not be finite).
    [[nodiscard]] double weighted(S s, double w, double f) const noexcept {
        return w == 0 ? 0.0 : w * sub(s).capped(f);
    }

    [[nodiscard]] prepared prepare(const mm::context& c) const {
        prepared p;
        for (std::size_t k = 0; k < mm::cred_kind_count; ++k) {
            p.size[k] = static_cast<std::uint32_t>(c.creds[k].size());
            p.cred[k].resize(p.size[k] + 1);
            p.fs[k].resize(p.size[k] + 1);
            const auto kind = static_cast<K>(k);
            const mm::credential& def = c.default_of(kind);
            const S sub_prio = static_cast<S>(mm::index(S::user) + k);
            const S sub_fs = static_cast<S>(mm::index(S::fsuser) + k);
            for (std::uint32_t i = 0; i <= p.size[k]; ++i) {
                const mm::credential* cred = i < p.size[k] ? &c.creds[k][i] : nullptr;
                std::int64_t prio = cred != nullptr ? cred->priority : 0;
                if (kind == K::job_class && prio == 0 && cred != nullptr) prio = cred->rm_priority;
                if (kind != K::qos && prio == 0 && !(kind == K::job_class && cred != nullptr)) prio = def.priority;
                p.cred[k][i] = kind == K::job_class ? sub(sub_prio).capped(static_cast<double>(prio))
                                                    : weighted(sub_prio, sub(sub_prio).w, static_cast<double>(prio));
                double delta = 0.0;
                if (c.fs_active && cred != nullptr) { // no credential: 0
                    const mm::fs_target target = cred->target.value > 0 ? cred->target : def.target;
                    delta = mm::fs_delta(target, cred->fs_usage, c.opts.fs_percent_based);
                }
                p.fs[k][i] = weighted(sub_fs, sub(sub_fs).w, delta);
            }
        }
        const std::uint32_t groups = p.size[mm::index(K::group)];
        p.class_weight.resize(groups + 1);
        for (std::uint32_t g = 0; g <= groups; ++g) {
            const mm::credential* cred = g < groups ? &c.creds[mm::index(K::group)][g] : nullptr;
            p.class_weight[g] = cred != nullptr && cred->class_weight > 0 ? static_cast<double>(cred->class_weight)
                                                                         : sub(S::job_class).w;
        }
        const std::uint32_t users = p.size[mm::index(K::user)];
        p.uproc.resize(users + 1);
        p.ujob.resize(users + 1);
        for (std::uint32_t u = 0; u <= users; ++u) {
            const double procs = u < c.user_active_procs.size() ? static_cast<double>(c.user_active_procs[u]) : 0.0;
            const double jobs = u < c.user_active_jobs.size() ? static_cast<double>(c.user_active_jobs[u]) : 0.0;
            p.uproc[u] = weighted(S::uproc, sub(S::uproc).w, procs);
            p.ujob[u] = weighted(S::ujob, sub(S::ujob).w, jobs);
        }
        const std::uint32_t qn = p.size[mm::index(K::qos)];
        p.qos.resize(qn + 1);
        for (std::uint32_t q = 0; q <= qn; ++q) {
            const mm::credential* cred = q < qn ? &c.creds[mm::index(K::qos)][q] : nullptr;
            qos_row& r = p.qos[q];
            r.qt_weight = cred != nullptr ? sub(S::queuetime).w + static_cast<double>(cred->qt_weight) : sub(S::queuetime).w;
            r.xf_weight = cred != nullptr ? sub(S::xfactor).w + static_cast<double>(cred->xf_weight) : sub(S::xfactor).w;
            r.xf_min = !c.opts.xf_min_wclimit_needs_qos || cred != nullptr ? c.opts.xf_min_wclimit : -HUGE_VAL;
            r.qt_target = cred != nullptr ? cred->qt_target : 0.0;
            r.xf_target = cred != nullptr ? cred->xf_target : 0.0;
        }
        p.spviolation = {weighted(S::spviolation, sub(S::spviolation).w, 0.0),
                         weighted(S::spviolation, sub(S::spviolation).w, 1.0)};
        double attr = 0.0;
        attr = attr + weighted(S::attrattr, sub(S::attrattr).w, 0.0);
        attr = attr + weighted(S::attrstate, sub(S::attrstate).w, 0.0);
        p.attr = comp_[mm::index(C::attr)].component(attr);
        volatile double tenk = 0.0001; // a real pow call, as the engine's
        p.txf_ceiling = std::pow(static_cast<double>(tenk), -2.0);
        // processor_equivalents: x / inf is 0 for a resource the cluster does not have, and
        // max(share, 0.0) is share (share >= 0): the same as not considering it.
        const mm::resources& r = c.cluster;
        p.pe_procs = r.procs;
        if (r.mem > 0) p.pe_mem = r.mem;
        if (r.disk > 0) p.pe_disk = r.disk;
        if (r.swap > 0) p.pe_swap = r.swap;
        return p;
    }

    [[nodiscard]] [[gnu::always_inline]] inline mm::priority_value priority(const mm::job& j, const mm::context& c,
                                                                           const prepared& p) const noexcept {
        const mm::options& o = c.opts;
        const auto at = [](std::uint32_t i, std::uint32_t n) { return i < n ? i : n; };
        const std::uint32_t u = at(j.user, p.size[0]), g = at(j.group, p.size[1]), a = at(j.account, p.size[2]),
                            q = at(j.qos, p.size[3]), cl = at(j.job_class, p.size[4]);
        const qos_row& qr = p.qos[q];

        std::int64_t start = j.eligible_time != 0 ? j.eligible_time : j.submit_time;
        if (o.accrual != mm::accrual_policy::always) start = std::max(start, j.policy_blocked_time);
        if (o.accrual == mm::accrual_policy::fullpolicy) start = std::max(start, j.blocked_time);
        const std::int64_t queued = std::max<std::int64_t>(0, c.now - start);
        const double qd = static_cast<double>(queued);
        const double wclimit = static_cast<double>(j.wclimit);
        const double denominator = std::max(qr.xf_min, wclimit);
        const double xf_value =
            o.xfactor == mm::xfactor_form::doc ? 1.0 + qd / denominator : (qd + wclimit) / denominator;
        const double xf = denominator > 0 ? xf_value : 0.0;

        // SERV
        double serv = 0.0;
        {
            const double minutes = o.queuetime == mm::queuetime_unit::whole_minutes ? static_cast<double>(queued / 60)
                                                                                    : qd / 60.0;
            const term& qt = sub(S::queuetime);
            const term& xt = sub(S::xfactor);
            serv = serv + qr.qt_weight * qt.capped(minutes);
            serv = serv + qr.xf_weight * xt.capped(xf);
            serv = serv + p.spviolation[j.spviolation ? 1 : 0];
            serv = serv + sub(S::bypass)(static_cast<double>(j.bypass));
        }
        // TARG: pow only where its value is not known beforehand (one branch, mostly not taken).
        double targ = 0.0;
        {
            const double r = qd / qr.qt_target; // inf or NaN without a target: not used
            const double d = std::max(0.0001, qr.xf_target - xf);
            const bool has_qt = qr.qt_target > 0, has_xf = qr.xf_target > 0;
            double tq = has_qt ? 1000.0 : 0.0;       // pow(1000, 1) is 1000
            double tx = has_xf ? p.txf_ceiling : 0.0; // pow(0.0001, -2)
            if ((has_qt && r < 1.0) | (has_xf && d != 0.0001)) [[unlikely]] {
                if (has_qt && r < 1.0) tq = std::pow(1000.0, r);
                if (has_xf && d != 0.0001) tx = std::pow(d, -2.0);
            }
            targ = targ + sub(S::targetqueuetime)(tq);
            targ = targ + sub(S::targetxfactor)(tx);
        }
        // CRED
        double cred = 0.0;
        cred = cred + p.cred[0][u];
        cred = cred + p.cred[1][g];
        cred = cred + p.cred[2][a];
        cred = cred + p.cred[3][q];
        cred = cred + p.class_weight[g] * p.cred[4][cl];
        // FS
        double fs = 0.0;
        fs = fs + p.fs[0][u];
        fs = fs + p.fs[1][g];
        fs = fs + p.fs[2][a];
        fs = fs + p.fs[3][q];
        fs = fs + p.fs[4][cl];
        // RES
        double res = 0.0;
        {
            const double procs = static_cast<double>(j.procs);
            const double mem = static_cast<double>(j.mem_mb), swap = static_cast<double>(j.swap_mb),
                         disk = static_cast<double>(j.disk_mb);
            double share = procs / p.pe_procs;
            share = std::max(share, mem / p.pe_mem);
            share = std::max(share, disk / p.pe_disk);
            share = std::max(share, swap / p.pe_swap);
            const double pe = p.pe_procs > 0 ? p.pe_procs * share : 0.0;
            res = res + sub(S::node)(static_cast<double>(j.nodes));
            res = res + sub(S::proc)(procs);
            res = res + sub(S::mem)(mem);
            res = res + sub(S::swap)(swap);
            res = res + sub(S::disk)(disk);
            res = res + sub(S::ps)(procs * wclimit);
            res = res + sub(S::pe)(pe);
            res = res + sub(S::walltime)(wclimit);
            res = res + p.uproc[u];
            res = res + p.ujob[u];
        }
        double sum = 0.0;
        sum = sum + comp_[mm::index(C::serv)].component(serv);
        sum = sum + comp_[mm::index(C::targ)].component(targ);
        sum = sum + comp_[mm::index(C::cred)].component(cred);
        sum = sum + p.attr;
        sum = sum + comp_[mm::index(C::fs)].component(fs);
        sum = sum + comp_[mm::index(C::res)].component(res);
        return result_.finish(sum, j.system_priority_mode, j.system_priority);
    }

    std::array<term, mm::component_count> comp_{};
    std::array<term, mm::subcomponent_count> sub_{};
    mm::maui_result result_;
};

/// Not an engine: reads the job fields and credential entries the full engine reads and adds
/// them up, no factor arithmetic: the memory floor under the engines' figures.
struct memory_floor {
    void batch(std::span<const mm::job> jobs, const mm::context& c, std::span<mm::priority_value> out) const {
        for (std::size_t k = 0; k < jobs.size(); ++k) {
            const mm::job& j = jobs[k];
            double creds = 0.0;
            for (std::size_t kind = 0; kind < mm::cred_kind_count; ++kind) {
                const std::uint32_t i = kind == 0 ? j.user : kind == 1 ? j.group : kind == 2 ? j.account
                                      : kind == 3 ? j.qos : j.job_class;
                const mm::credential* cred = c.find(static_cast<K>(kind), i);
                if (cred != nullptr) creds += static_cast<double>(cred->priority) + cred->target.value + cred->fs_usage;
            }
            const std::uint64_t fields = static_cast<std::uint64_t>(j.submit_time) + static_cast<std::uint64_t>(j.eligible_time) +
                static_cast<std::uint64_t>(j.policy_blocked_time) + j.wclimit + j.procs + j.nodes + j.mem_mb + j.swap_mb +
                j.disk_mb + j.bypass + static_cast<std::uint32_t>(j.system_priority) + (j.spviolation ? 1u : 0u) +
                c.user_active_procs[j.user] + c.user_active_jobs[j.user];
            out[k] = {static_cast<std::int64_t>(fields) ^ static_cast<std::int64_t>(creds), mm::priority_status::computed};
        }
    }
};

// ---- Set-up checks: the engines must agree before anything is timed ----------------------------

void report(const char* what, std::size_t k, const mm::priority_value& a, const mm::priority_value& b) {
    std::fprintf(stderr, "mfprio bench: %s: job %zu: %lld (status %d) against %lld (status %d)\n", what, k,
                 static_cast<long long>(a.value), static_cast<int>(a.status), static_cast<long long>(b.value),
                 static_cast<int>(b.status));
}

/// `e.batch` gives what `e.priority` gives for every job.
void check_batch(const char* what, const mm::maui_engine& e, std::vector<mm::priority_value>& out) {
    const auto& w = workload();
    const std::span<const mm::job> jobs(w.jobs);
    e.batch(jobs, w.ctx, std::span<mm::priority_value>(out));
    for (std::size_t k = 0; k < jobs.size(); ++k) {
        const mm::priority_value single = e.priority(jobs[k], w.ctx);
        if (!(out[k] == single)) {
            report(what, k, out[k], single);
            fail("an engine's batch differs from its priority");
        }
    }
}

void check_identical() {
    const auto& w = workload();
    const std::span<const mm::job> jobs(w.jobs);
    const std::size_t n = jobs.size();
    std::vector<mm::priority_value> full(n), other(n);
    check_batch("full", mm::make_maui_engine(full_weights(), w.ctx.opts), full);
    check_batch("default", mm::make_maui_engine(mm::weights{}, w.ctx.opts), other);
    for (std::size_t c = 0; c < mm::component_count; ++c)
        check_batch(mm::components[c].name.data(), mm::make_maui_engine(only_component(static_cast<C>(c)), w.ctx.opts),
                    other);
    dyn_engine(full_weights(), w.ctx.opts).batch(jobs, w.ctx, other);
    for (std::size_t k = 0; k < n; ++k)
        if (!(full[k] == other[k])) {
            report("full engine against dispatched", k, full[k], other[k]);
            fail("the engines disagree");
        }
    hand_written(full_weights(), w.ctx.opts).batch(jobs, w.ctx, other);
    for (std::size_t k = 0; k < n; ++k)
        if (!(full[k] == other[k])) {
            report("full engine against hand-written", k, full[k], other[k]);
            fail("the engines disagree");
        }
    prepared_sketch(full_weights(), w.ctx.opts).batch(jobs, w.ctx, other);
    for (std::size_t k = 0; k < n; ++k)
        if (!(full[k] == other[k])) {
            report("full engine against the prepared sketch", k, full[k], other[k]);
            fail("the engines disagree");
        }
    // A check that every job floors to 1 would prove nothing: most must be computed sums, and
    // every subcomponent must count for some jobs (its component's value differs from 0).
    std::size_t computed = 0;
    for (const auto& p : full) computed += p.status == mm::priority_status::computed;
    if (computed * 2 < n) fail("fewer than half of the checked priorities are computed sums");
    if (!w.ctx.fs_active) fail("fair-share is not active");
    const auto e = mm::make_maui_engine(full_weights(), w.ctx.opts);
    std::array<std::size_t, mm::subcomponent_count> nonzero{};
    for (std::size_t k = 0; k < std::min<std::size_t>(n, 10'000); ++k) {
        const auto check = [&](const auto& comp, C which) {
            const auto x = comp.explain(jobs[k], w.ctx);
            const std::size_t first = mm::index(mm::components[mm::index(which)].first);
            for (std::size_t s = 0; s < x.subterms.size(); ++s) nonzero[first + s] += x.subterms[s].contribution != 0;
        };
        check(e.get<0>().factor, C::serv);
        check(e.get<1>().factor, C::targ);
        check(e.get<2>().factor, C::cred);
        check(e.get<4>().factor, C::fs);
        check(e.get<5>().factor, C::res);
    }
    for (std::size_t s = 0; s < mm::subcomponent_count; ++s) {
        const auto parent = mm::subcomponents[s].parent;
        if (parent == C::attr || parent == C::usage) continue;
        if (nonzero[s] == 0) {
            std::fprintf(stderr, "mfprio bench: %s contributes to no job\n", mm::subcomponents[s].name.data());
            fail("a start-priority subcomponent is never used");
        }
    }
}

// ---- Engine benchmarks ---------------------------------------------------------------------------

void per_job_counters(benchmark::State& state, std::size_t n) {
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
    state.counters["ns_per_job"] = benchmark::Counter(static_cast<double>(n),
        benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

template <class Engine>
void run_batch(benchmark::State& state, const Engine& e) {
    const auto& w = workload();
    const std::span<const mm::job> jobs(w.jobs);
    std::vector<mm::priority_value> out(jobs.size());
    for (auto _ : state) {
        e.batch(jobs, w.ctx, std::span<mm::priority_value>(out));
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    per_job_counters(state, jobs.size());
}

/// `batch` over the jobs in chunks of 1,024, as a queue pass (`queue::pass_builder`) calls
/// it: with one plan for the pass (`prepare_batch`, what the pass does), or each chunk
/// preparing its own (what `batch` alone does, and what the pass did before it had plans).
template <class Engine>
void run_chunked(benchmark::State& state, const Engine& e, bool planned) {
    const auto& w = workload();
    const std::span<const mm::job> jobs(w.jobs);
    std::vector<mm::priority_value> out(jobs.size());
    constexpr std::size_t chunk = 1024;
    for (auto _ : state) {
        if (planned) {
            const auto plan = e.template prepare_batch<mm::job>(w.ctx);
            for (std::size_t base = 0; base < jobs.size(); base += chunk) {
                const std::size_t m = std::min(chunk, jobs.size() - base);
                e.batch(plan, jobs.subspan(base, m), w.ctx, std::span<mm::priority_value>(out).subspan(base, m));
            }
        } else {
            for (std::size_t base = 0; base < jobs.size(); base += chunk) {
                const std::size_t m = std::min(chunk, jobs.size() - base);
                e.batch(jobs.subspan(base, m), w.ctx, std::span<mm::priority_value>(out).subspan(base, m));
            }
        }
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    per_job_counters(state, jobs.size());
}

void bm_full_priority(benchmark::State& state) {
    const auto& w = workload();
    const auto e = mm::make_maui_engine(full_weights(), w.ctx.opts);
    const std::size_t n = w.jobs.size();
    std::vector<mm::priority_value> out(n);
    for (auto _ : state) {
        for (std::size_t k = 0; k < n; ++k) out[k] = e.priority(w.jobs[k], w.ctx);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    per_job_counters(state, n);
}

// ---- Fair-share benchmarks -----------------------------------------------------------------------

void per_item_counter(benchmark::State& state, const char* name, std::size_t n) {
    state.counters[name] = benchmark::Counter(static_cast<double>(n),
        benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

std::size_t total_size(const std::array<std::size_t, mm::cred_kind_count>& sizes) {
    std::size_t n = 0;
    for (const std::size_t s : sizes) n += s;
    return n;
}

/// Charging every running job: the amounts computed beforehand (`charge` alone), or
/// DEDICATEDPES's processor equivalents times the seconds computed in the loop.
void bm_fs_charge(benchmark::State& state, bool with_metric) {
    const auto& w = workload();
    mm::fs_ledger ledger = w.ledger;
    const std::size_t r = w.running.size();
    std::vector<double> amounts(r);
    for (std::size_t k = 0; k < r; ++k)
        amounts[k] = mm::fs_charge(w.ctx.opts.fs_policy, w.running[k], w.ctx.cluster, w.running_seconds[k]);
    for (auto _ : state) {
        if (with_metric) {
            for (std::size_t k = 0; k < r; ++k)
                ledger.charge(w.running[k],
                              mm::fs_charge(w.ctx.opts.fs_policy, w.running[k], w.ctx.cluster, w.running_seconds[k]));
        } else {
            for (std::size_t k = 0; k < r; ++k) ledger.charge(w.running[k], amounts[k]);
        }
        benchmark::ClobberMemory();
    }
    benchmark::DoNotOptimize(ledger.total(0));
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(r));
    state.counters["running"] = static_cast<double>(r);
    per_item_counter(state, "ns_per_charge", r);
}

/// A ledger of `scale` times the workload's tables with `depth` windows of random usage.
mm::fs_ledger make_ledger(std::size_t depth, std::size_t scale, std::array<std::size_t, mm::cred_kind_count>& sizes) {
    const auto& w = workload();
    sizes = w.sizes();
    for (auto& s : sizes) s *= scale;
    mm::fs_config cfg = bench_fs;
    cfg.depth = depth;
    mm::fs_ledger ledger(cfg, sizes);
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> usage(0.0, 1e7);
    for (std::size_t k = 0; k < mm::cred_kind_count; ++k)
        for (std::size_t i = 0; i < sizes[k]; ++i)
            for (std::size_t win = 0; win < depth; ++win)
                ledger.set_usage(static_cast<K>(k), static_cast<std::uint32_t>(i), win, usage(rng));
    for (std::size_t win = 0; win < depth; ++win) ledger.set_total(win, 1e7 * static_cast<double>(sizes[0]));
    ledger.advance(maui_workload::now);
    return ledger;
}

/// `advance` across one boundary per call: one rotation of every table.
void bm_fs_advance(benchmark::State& state, std::size_t depth, std::size_t scale) {
    std::array<std::size_t, mm::cred_kind_count> sizes{};
    mm::fs_ledger ledger = make_ledger(depth, scale, sizes);
    std::int64_t t = maui_workload::now;
    for (auto _ : state) {
        t += ledger.interval();
        benchmark::DoNotOptimize(ledger.advance(t));
        benchmark::ClobberMemory();
    }
    const std::size_t creds = total_size(sizes);
    state.counters["creds"] = static_cast<double>(creds);
    per_item_counter(state, "ns_per_cred", creds);
}

/// `apply`: every credential's usage percentage into tables of the ledger's sizes.
void bm_fs_apply(benchmark::State& state, std::size_t depth, std::size_t scale) {
    std::array<std::size_t, mm::cred_kind_count> sizes{};
    const mm::fs_ledger ledger = make_ledger(depth, scale, sizes);
    std::array<std::vector<mm::credential>, mm::cred_kind_count> tables;
    std::array<std::span<mm::credential>, mm::cred_kind_count> spans;
    for (std::size_t k = 0; k < mm::cred_kind_count; ++k) {
        tables[k].resize(sizes[k]);
        spans[k] = tables[k];
    }
    for (auto _ : state) {
        benchmark::DoNotOptimize(ledger.apply(spans));
        benchmark::ClobberMemory();
    }
    const std::size_t creds = total_size(sizes);
    state.counters["creds"] = static_cast<double>(creds);
    per_item_counter(state, "ns_per_cred", creds);
}

/// A scheduler iteration's fair-share work: charge every running job (DEDICATEDPES), advance
/// (the same window: no rotation), apply the percentages, fs_active.
void bm_fs_iteration(benchmark::State& state) {
    const auto& w = workload();
    mm::fs_ledger ledger = w.ledger;
    std::array<std::vector<mm::credential>, mm::cred_kind_count> tables = w.tables;
    std::array<std::span<mm::credential>, mm::cred_kind_count> spans;
    for (std::size_t k = 0; k < mm::cred_kind_count; ++k) spans[k] = tables[k];
    const std::size_t r = w.running.size();
    for (auto _ : state) {
        for (std::size_t k = 0; k < r; ++k)
            ledger.charge(w.running[k],
                          mm::fs_charge(w.ctx.opts.fs_policy, w.running[k], w.ctx.cluster, w.running_seconds[k]));
        benchmark::DoNotOptimize(ledger.advance(maui_workload::now));
        ledger.apply(spans);
        benchmark::DoNotOptimize(mm::fs_active(w.ctx.opts, ledger));
        benchmark::ClobberMemory();
    }
    state.counters["running"] = static_cast<double>(r);
    state.counters["creds"] = static_cast<double>(total_size(w.sizes()));
}

// ---- Console output plus ratios against the baseline ----------------------------------------------

/// The console table, then each engine benchmark's ns_per_job with its speed-up over the
/// dispatched baseline and its time relative to the hand-written code, both of the same run.
/// With --benchmark_repetitions the best (lowest) repetition of each is used.
class ratio_reporter : public benchmark::ConsoleReporter {
public:
    ratio_reporter() : benchmark::ConsoleReporter(OO_Tabular) {}

    void ReportRuns(const std::vector<Run>& runs) override {
        benchmark::ConsoleReporter::ReportRuns(runs);
        for (const Run& r : runs) {
            if (r.run_type != Run::RT_Iteration || r.error_occurred) continue;
            const auto it = r.counters.find("ns_per_job");
            if (it == r.counters.end()) continue;
            const double ns = it->second.value * 1e9;
            bool found = false;
            for (auto& [name, value] : results_)
                if (name == r.run_name.function_name) {
                    if (ns < value) value = ns;
                    found = true;
                }
            if (!found) results_.emplace_back(r.run_name.function_name, ns);
        }
    }

    void Finalize() override {
        benchmark::ConsoleReporter::Finalize();
        double base = 0.0, hand = 0.0;
        for (const auto& [name, ns] : results_) {
            if (name == "engine/dispatched") base = ns;
            if (name == "engine/hand_written") hand = ns;
        }
        auto& os = GetOutputStream();
        os << "\nns per job (best repetition), speed-up over the dispatched baseline, and time relative to the "
              "hand-written code, of this run:\n";
        for (const auto& [name, ns] : results_) {
            char line[200];
            int used = std::snprintf(line, sizeof line, "  %-24s %8.2f ns/job", name.c_str(), ns);
            if (base > 0.0 && used > 0 && static_cast<std::size_t>(used) < sizeof line)
                used += std::snprintf(line + used, sizeof line - static_cast<std::size_t>(used), "  %6.2fx", base / ns);
            if (hand > 0.0 && used > 0 && static_cast<std::size_t>(used) < sizeof line)
                std::snprintf(line + used, sizeof line - static_cast<std::size_t>(used), "  %6.2f", ns / hand);
            os << line << '\n';
        }
        os.flush();
    }

private:
    std::vector<std::pair<std::string, double>> results_;
};

void register_benchmarks() {
    constexpr auto ms = benchmark::kMillisecond;
    constexpr auto us = benchmark::kMicrosecond;
    const mm::options o = bench_options();
    benchmark::RegisterBenchmark("engine/dispatched", [o](benchmark::State& s) { run_batch(s, dyn_engine(full_weights(), o)); })
        ->Unit(ms);
    benchmark::RegisterBenchmark("engine/hand_written", [o](benchmark::State& s) { run_batch(s, hand_written(full_weights(), o)); })
        ->Unit(ms);
    benchmark::RegisterBenchmark("engine/prepared_sketch",
                                 [o](benchmark::State& s) { run_batch(s, prepared_sketch(full_weights(), o)); })
        ->Unit(ms);
    benchmark::RegisterBenchmark("engine/memory_floor", [](benchmark::State& s) { run_batch(s, memory_floor{}); })->Unit(ms);
    benchmark::RegisterBenchmark("engine/default_config",
                                 [o](benchmark::State& s) { run_batch(s, mm::make_maui_engine(mm::weights{}, o)); })
        ->Unit(ms);
    benchmark::RegisterBenchmark("engine/full/batch",
                                 [o](benchmark::State& s) { run_batch(s, mm::make_maui_engine(full_weights(), o)); })
        ->Unit(ms);
    benchmark::RegisterBenchmark("engine/full/chunks_1024_planned",
                                 [o](benchmark::State& s) { run_chunked(s, mm::make_maui_engine(full_weights(), o), true); })
        ->Unit(ms);
    benchmark::RegisterBenchmark("engine/full/chunks_1024_unplanned",
                                 [o](benchmark::State& s) { run_chunked(s, mm::make_maui_engine(full_weights(), o), false); })
        ->Unit(ms);
    benchmark::RegisterBenchmark("engine/full/priority", bm_full_priority)->Unit(ms);
    for (const C c : {C::serv, C::targ, C::cred, C::attr, C::fs, C::res}) {
        std::string name = "component/";
        name += mm::components[mm::index(c)].name;
        benchmark::RegisterBenchmark(name.c_str(), [o, c](benchmark::State& s) {
            run_batch(s, mm::make_maui_engine(only_component(c), o));
        })->Unit(ms);
    }
    benchmark::RegisterBenchmark("fs/charge", [](benchmark::State& s) { bm_fs_charge(s, false); })->Unit(us);
    benchmark::RegisterBenchmark("fs/charge_pes", [](benchmark::State& s) { bm_fs_charge(s, true); })->Unit(us);
    for (const std::size_t depth : {std::size_t{8}, std::size_t{24}}) {
        for (const std::size_t scale : {std::size_t{1}, std::size_t{25}}) {
            std::string suffix = "/depth:";
            suffix += std::to_string(depth);
            if (scale != 1) suffix += "/large";
            benchmark::RegisterBenchmark((std::string("fs/advance") += suffix).c_str(),
                                         [depth, scale](benchmark::State& s) { bm_fs_advance(s, depth, scale); })
                ->Unit(us);
            benchmark::RegisterBenchmark((std::string("fs/apply") += suffix).c_str(),
                                         [depth, scale](benchmark::State& s) { bm_fs_apply(s, depth, scale); })
                ->Unit(us);
        }
    }
    benchmark::RegisterBenchmark("fs/iteration", bm_fs_iteration)->Unit(us);
}

} // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    check_identical();
    register_benchmarks();
    ratio_reporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::Shutdown();
    return 0;
}
