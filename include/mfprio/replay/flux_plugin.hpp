#pragma once
/// \file
/// flux-accounting's priority plugin (`mf_priority.so`, flux-accounting 0.60) as it behaves,
/// replayed over what a Flux instance printed: the database states the plugin received
/// (`flux account-priority-update`, each at a time) and the jobs (`flux jobs -A -a --json`).
///
/// What the plugin does, and this replay with it:
/// - It keeps **one queue factor and one bank priority per user-bank pair**, set when the
///   pair submits a job: the priority of that job's queue and of the pair's bank in the
///   database the plugin last received. A recomputation (every `priority-update`) gives every
///   pending job of the pair the factors of the pair's latest submission, so an edited queue
///   or bank priority reaches a pending job only when its pair submits again.
/// - The fair-share factor is the one the database stores, written with 6 decimals
///   (`std::to_string` of the weighted-tree value): 0.571429, not 4/7.
/// - `queue weight x queue factor` and `urgency weight x (urgency - 16)` are int x int
///   products, which wrap past 2^31 - 1 (3 x 1000000000 is -1294967296); weights are ints.
///   `flux_plugin_options::exact_products` computes them exactly instead.
/// - No upper clamp: flux-core keeps sums above 4294967295 (5368712266, say) and orders them
///   above expedited jobs. A sum of 0 or below is 0, which flux-core holds.
/// - Urgency 0 is 0 and urgency 31 is 4294967295, whatever the factors.
/// A job submitted before the plugin had any data, or by a user-bank pair the database does
/// not hold, has no priority here (the plugin keeps it in PRIORITY or rejects it).
///
/// Pure computation over parsed inputs: the readers are in `mfprio/inputs/flux.hpp`.

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <limits>
#include <cstdio>
#include <cstdlib>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <mfprio/fairshare/flux_tree.hpp>
#include <mfprio/fairshare/tree.hpp>
#include <mfprio/flux/context.hpp>
#include <mfprio/flux/job.hpp>
#include <mfprio/flux/presets.hpp>
#include <mfprio/flux/result.hpp>
#include <mfprio/read/flux_tables.hpp>
#include <mfprio/text/text.hpp>

namespace mfprio::config {

/// An association (user in a bank) of flux-accounting's association_table.
struct flux_user_row {
    std::string username;
    std::uint32_t userid = 0;
    std::string bank;
    std::string default_bank;
    double fairshare = 0.5; ///< as stored: 6 decimals
    bool active = true;
    std::uint32_t shares = 1;
    double job_usage = 0;
};

/// What `flux account-priority-update` sends the plugin: the weights, queues, banks and
/// associations of the database.
struct flux_db {
    flux::flux_accounting_weights weights;
    std::vector<flux_queue_row> queues;
    std::vector<flux_bank_row> banks;
    std::vector<flux_user_row> users;

    [[nodiscard]] const flux_user_row* user(std::uint32_t uid, std::string_view bank) const noexcept {
        for (const auto& u : users)
            if (u.userid == uid && u.bank == bank) return &u;
        return nullptr;
    }
    /// The default bank of user `uid`, empty when the database does not hold the user.
    [[nodiscard]] std::string_view default_bank(std::uint32_t uid) const noexcept {
        for (const auto& u : users)
            if (u.userid == uid && !u.default_bank.empty()) return u.default_bank;
        return {};
    }
    /// The priority of queue `name`; 0 when none is named or flux-accounting does not know it.
    [[nodiscard]] std::int64_t queue_priority(std::string_view name) const noexcept {
        for (const auto& q : queues)
            if (q.name == name) return q.priority;
        return 0;
    }
    /// The priority of bank `name`; 0.0 when unknown.
    [[nodiscard]] double bank_priority(std::string_view name) const noexcept {
        for (const auto& b : banks)
            if (b.name == name) return b.priority;
        return 0.0;
    }
};

/// The fair-share of each association of `db` (by index into `db.users`) as
/// `flux account-update-fshare` stores it: flux-accounting's weighted tree over the banks'
/// and users' shares and the users' usage, read as its database reader does
/// (src/fairness/reader/data_reader_db.cpp, get_sub_banks: sub-banks in name order, users in
/// name order, the users of a bank with sub-banks left out, inactive banks and associations
/// left out, sibling usage sums truncated to integers), then written with 6 decimals
/// (`std::to_string`). An association left out of the tree keeps its stored fair-share
/// (update_fairshare_values writes only the tree's).
[[nodiscard]] inline std::vector<double> flux_fairshare_as_stored(const flux_db& db) {
    fairshare::tree_builder b;
    std::vector<std::pair<std::size_t, std::uint32_t>> user_node; // users index, builder index
    // The root: the bank without a parent.
    const auto root = std::find_if(db.banks.begin(), db.banks.end(), [](const flux_bank_row& k) { return k.parent.empty(); });
    std::vector<double> out(db.users.size());
    for (std::size_t u = 0; u < db.users.size(); ++u) out[u] = db.users[u].fairshare;
    if (root == db.banks.end()) return out;
    const auto add_bank = [&](const auto& self, const flux_bank_row& bank, std::uint32_t node) -> void {
        // A bank with sub-banks (active or not) holds no users in the tree; its active
        // sub-banks do.
        std::vector<const flux_bank_row*> subs;
        bool has_subs = false;
        for (const auto& k : db.banks)
            if (k.parent == bank.name) {
                has_subs = true;
                if (k.active) subs.push_back(&k);
            }
        std::sort(subs.begin(), subs.end(), [](const auto* x, const auto* y) { return x->name < y->name; });
        for (const auto* k : subs) self(self, *k, b.add_account(node, k->name, k->shares));
        if (has_subs) return;
        std::vector<std::size_t> users;
        for (std::size_t u = 0; u < db.users.size(); ++u)
            if (db.users[u].bank == bank.name && db.users[u].active) users.push_back(u);
        std::sort(users.begin(), users.end(), [&](std::size_t x, std::size_t y) { return db.users[x].username < db.users[y].username; });
        for (const std::size_t u : users)
            user_node.emplace_back(u, b.add_user(node, db.users[u].username, db.users[u].shares,
                                                 static_cast<long double>(db.users[u].job_usage), {}));
    };
    add_bank(add_bank, *root, 0);
    const fairshare::tree t = b.build();
    fairshare::columns c;
    fairshare::flux_tree(t, c, {.truncate_usage_sums = true, .ignore_users_of_banks_with_sub_banks = true});
    // Stored as flux-accounting stores it: six decimals (printf's %f, in any locale).
    for (const auto& [u, node] : user_node) {
        char buf[400];
        const double v = c.fs_factor[b.position(node)];
        const auto printed = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, 6);
        out[u] = v;
        if (printed.ec == std::errc()) std::from_chars(buf, printed.ptr, out[u]);
    }
    return out;
}

/// Applies one administrator's change to `db`, as flux-accounting's commands would make it:
/// `weight.fairshare|queue|bank|urgency=N` (`flux account edit-factor`), `queue.NAME=P`
/// (`edit-queue --priority`), `bank.NAME=P` (`edit-bank --priority`), `bankshares.NAME=N`
/// (`edit-bank --shares`), `shares.USER=N` or
/// `shares.USER@BANK=N` (`edit-user --shares`), `usage.USER[@BANK]=X` (the job usage
/// job-archive charged); after shares or usage every fair-share is recomputed as
/// `flux account-update-fshare` stores it. Returns why the change cannot be made (and
/// changes nothing then), or an empty string.
[[nodiscard]] inline std::string apply_flux_change(flux_db& db, std::string_view key, std::string_view value) {
    const auto integer = [&](std::int64_t lo, std::int64_t hi) -> std::optional<std::int64_t> {
        std::int64_t v = 0;
        const auto r = std::from_chars(value.data(), value.data() + value.size(), v);
        if (r.ec != std::errc{} || r.ptr != value.data() + value.size() || v < lo || v > hi) return std::nullopt;
        return v;
    };
    const auto bad = [&](std::string_view what) { return std::string(key) + ": '" + std::string(value) + "' is not " + std::string(what); };
    // After shares or usage change, every fair-share as update-fshare would store it.
    const auto recompute_fairshare = [&db] {
        const auto fs = flux_fairshare_as_stored(db);
        for (std::size_t u = 0; u < db.users.size(); ++u) db.users[u].fairshare = fs[u];
    };
    if (key.starts_with("weight.")) {
        const std::string_view f = key.substr(7);
        std::int64_t* w = f == "fairshare" ? &db.weights.fairshare
                          : f == "queue"   ? &db.weights.queue
                          : f == "bank"    ? &db.weights.bank
                          : f == "urgency" ? &db.weights.urgency
                                           : nullptr;
        if (w == nullptr) return "unknown factor '" + std::string(f) + "' (fairshare, queue, bank, urgency)";
        const auto v = integer(INT64_MIN, INT64_MAX);
        if (!v) return bad("an integer weight");
        *w = *v;
        return {};
    }
    if (key.starts_with("queue.")) {
        const std::string_view name = key.substr(6);
        const auto q = std::find_if(db.queues.begin(), db.queues.end(), [&](const flux_queue_row& r) { return r.name == name; });
        if (q == db.queues.end()) return "no queue '" + std::string(name) + "' in flux-accounting's queue table";
        const auto v = integer(INT64_MIN, INT64_MAX);
        if (!v) return bad("an integer priority");
        q->priority = *v;
        return {};
    }
    if (key.starts_with("bank.")) {
        const std::string_view name = key.substr(5);
        const auto k = std::find_if(db.banks.begin(), db.banks.end(), [&](const flux_bank_row& r) { return r.name == name; });
        if (k == db.banks.end()) return "no bank '" + std::string(name) + "'";
        const auto v = text::parse_double(value);
        if (!v || *v > 1e300 || *v < -1e300) return bad("a number");
        k->priority = *v;
        return {};
    }
    if (key.starts_with("bankshares.")) {
        const std::string_view name = key.substr(11);
        const auto k = std::find_if(db.banks.begin(), db.banks.end(), [&](const flux_bank_row& r) { return r.name == name; });
        if (k == db.banks.end()) return "no bank '" + std::string(name) + "'";
        const auto v = integer(1, 2147483647);
        if (!v) return bad("a number of shares from 1 to 2147483647");
        k->shares = static_cast<std::uint32_t>(*v);
        recompute_fairshare();
        return {};
    }
    if (key.starts_with("shares.") || key.starts_with("usage.")) {
        const bool shares = key.starts_with("shares.");
        const std::string_view who = key.substr(shares ? 7 : 6);
        const std::size_t at = who.find('@');
        const std::string_view user = who.substr(0, at), bank = at == std::string_view::npos ? std::string_view() : who.substr(at + 1);
        std::optional<std::int64_t> n;
        double usage = 0;
        if (shares) {
            n = integer(1, 2147483647);
            if (!n) return bad("a number of shares from 1 to 2147483647");
        } else {
            const auto v = text::parse_double(value);
            if (!v || !(*v >= 0) || *v > 1e300) return bad("a usage of 0 or more");
            usage = *v;
        }
        bool found = false;
        for (auto& u : db.users)
            if (u.username == user && (bank.empty() || u.bank == bank)) {
                if (shares) u.shares = static_cast<std::uint32_t>(*n);
                else u.job_usage = usage;
                found = true;
            }
        if (!found) return "no association of user '" + std::string(user) + (bank.empty() ? "" : "' in bank '" + std::string(bank)) + "'";
        recompute_fairshare();
        return {};
    }
    return "unknown key '" + std::string(key) +
           "' (weight.FACTOR, queue.NAME, bank.NAME, bankshares.NAME, shares.USER[@BANK], usage.USER[@BANK])";
}

/// The database the plugin received at `time` (epoch seconds, fractional as Flux prints).
struct flux_update {
    double time = 0;
    flux_db db;
    /// An update that has not happened (what --set and --next-update predict): no eventlog
    /// records its pass, so the replay reads no memo for it (memos near its time are an
    /// earlier pass's) and computes every pending job, in id order.
    bool predicted = false;
};

/// What a job's eventlog (`flux job eventlog`) says happened to it after its submission that
/// the plugin acts on.
struct flux_job_event {
    enum class kind : std::uint8_t {
        urgency, ///< `flux job urgency`: the job is recomputed at once (its pair's cached factors)
        queue,   ///< jobspec-update of attributes.system.queue (`flux update JOBID queue=`)
        bank,    ///< jobspec-update of attributes.system.bank
    };
    double time = 0;
    kind what = kind::urgency;
    std::uint8_t urgency = 0; ///< kind::urgency: the new urgency
    std::string value;        ///< kind::queue or kind::bank: the new queue or bank
};

/// A job as `flux jobs --json` prints it.
struct flux_job_row {
    std::uint64_t id = 0;     ///< Flux's 64-bit job id
    std::uint32_t userid = 0;
    std::string username;     ///< from the users input (flux jobs prints the id when it has no name)
    std::string bank;         ///< empty: the user's default bank
    std::string queue;        ///< empty: none
    std::uint8_t urgency = flux::urgency_default;
    std::optional<std::int64_t> priority; ///< as Flux printed it, when it did
    std::string state;        ///< DEPEND, PRIORITY, SCHED, RUN, CLEANUP or INACTIVE
    double t_submit = 0;
    std::int64_t nnodes = 0;  ///< nodes it asks for (0: not known: its jobspec names none)
    std::int64_t ncores = 0;  ///< cores it asks for (0: not known)
    double duration = 0;      ///< its time limit in seconds (0: none)
    std::size_t line = 0;     ///< where the job starts in its input
    std::size_t column = 1;   ///< (its column there)
    /// From its eventlog, when the bundle holds it: the urgency it was submitted with, and
    /// the changes since, in time order.
    bool eventlog = false;
    std::uint8_t submit_urgency = flux::urgency_default;
    std::vector<flux_job_event> events;
    std::vector<double> computed; ///< when the plugin computed it (its "memo" events)
    std::vector<double> computed_fairshare; ///< the fair-share each memo says it used
    /// The bank and queue of its jobspec as submitted, when the bundle holds them (`bank` and
    /// `queue` are the current ones, after any jobspec-update).
    std::optional<std::string> submit_bank, submit_queue;

    /// Waiting to run: a priority that can still change.
    [[nodiscard]] bool pending() const noexcept { return state == "DEPEND" || state == "PRIORITY" || state == "SCHED"; }
};

/// A user-bank pair as the plugin holds it (`flux jobtap query mf_priority.so`): its cached
/// queue factor (the queue of the pair's latest job) and its fair-share. The plugin prints
/// no bank factor.
struct flux_cached_pair {
    std::uint32_t userid = 0;
    std::string bank;
    std::int64_t queue_factor = 0;
    double fairshare = 0;
};

/// What the plugin printed it held (`flux jobtap query`) at a time: the replay takes each
/// pair's queue factor from it from then on (a pass over the jobs after a reload leaves each
/// pair with the queue of whichever of its jobs came last, in an order Flux does not print).
struct flux_observation {
    double time = 0;
    std::vector<flux_cached_pair> pairs;
};

/// How the replay computes.
struct flux_plugin_options {
    bool exact_products = false; ///< int x int products computed exactly (no 32-bit wrap)
    bool clamp_upper = false;    ///< lower sums above 4294967295 to it (the plugin does not)
};

/// What made the plugin compute a job's priority.
enum class flux_cause : std::uint8_t {
    submission,   ///< the job arrived (job.new, then job.state.priority)
    update,       ///< `flux account-priority-update` (every pending job)
    first_update, ///< the first update since the plugin was loaded, which held the job by a
                  ///< placeholder: the job found its pair and set the pair's queue factor to its
                  ///< own queue
    urgency,      ///< `flux job urgency`
    job_update,   ///< `flux update` of its queue or bank
};

/// One job's priority as the plugin last computed it, and the factors it used.
struct flux_plugin_priority {
    flux::priority_value value;
    std::int64_t queue_factor = 0; ///< the pair's cached queue factor
    double bank_factor = 0;        ///< the pair's cached bank priority
    double fairshare = 0;          ///< the association's fair-share as the plugin held it
    double computed_at = 0;        ///< the time of the computation
    bool at_submission = false;    ///< computed when the job was submitted (no update since)
    flux_cause cause = flux_cause::update;
    bool pair_deleted = false;     ///< the pair is no longer in the database (the plugin keeps it)
    bool bank_factor_reset = false; ///< 0: created into an empty map, the pair has not submitted since
    bool fairshare_from_memo = false; ///< no table holds the pair: its fair-share is the job's memo
    flux::flux_accounting_weights weights; ///< the weights of the database then, as configured
};

namespace detail {

/// How far after its trigger (a submission, an urgency change, a jobspec-update) a job's own
/// computation posts its memo, in seconds.
inline constexpr double flux_own_window = 0.5;
/// How long one pass over all jobs (an update's reprioritization) lasts at most, in seconds.
inline constexpr double flux_pass_window = 1.0;
/// How many of each job's memos a bundle keeps (its last ones; one is posted at every update).
inline constexpr std::size_t flux_memos_kept = 256;

/// True when computation `c` of job `j` (a memo's time) is the job's own: the first memo
/// within `window` seconds after its submission, its own urgency change or a jobspec-update
/// (each starts one computation, which posts one memo unless the urgency is then 0 or 31);
/// false for a pass over all jobs, which may come within the window too.
[[nodiscard]] inline bool flux_own_computation(const flux_job_row& j, double c, double window = flux_own_window) noexcept {
    const auto own = [&](double t, std::uint8_t urgency) {
        if (urgency == flux::urgency_hold || urgency == flux::urgency_expedite || c < t || c - t >= window) return false;
        return std::none_of(j.computed.begin(), j.computed.end(), [&](double m) { return m >= t && m < c; });
    };
    std::uint8_t urgency = j.eventlog ? j.submit_urgency : j.urgency;
    if (own(j.t_submit, urgency)) return true;
    for (const auto& e : j.events) {
        if (e.what == flux_job_event::kind::urgency) urgency = e.urgency;
        if (own(e.time, urgency)) return true;
    }
    return false;
}

/// True when job `j`'s eventlog shows the plugin computed it when it arrived: a memo within
/// `window` seconds of its submission that no pass over all jobs explains (a pass starts at
/// one of `passes` and lasts at most `pass_window` seconds).
[[nodiscard]] inline bool flux_computed_at_submission(const flux_job_row& j, std::span<const double> passes,
                                                      double window = flux_own_window,
                                                      double pass_window = flux_pass_window) noexcept {
    return j.eventlog && std::any_of(j.computed.begin(), j.computed.end(), [&](double c) {
        return c >= j.t_submit && c - j.t_submit < window &&
               std::none_of(passes.begin(), passes.end(), [&](double p) { return c >= p && c - p < pass_window; });
    });
}

/// True when job `j`'s eventlog shows that the plugin held no data for it when it arrived:
/// new_cb found no association (the plugin loaded, no update received since) and attached a
/// placeholder (add_special_association), which computes nothing and posts no memo until an
/// update lets priority_cb find the pair: no computation at submission. Urgencies 0 and 31
/// post no memo either way: no evidence. Nor is there any when the bundle's memos (its last
/// flux_memos_kept) may not reach back to the submission.
[[nodiscard]] inline bool flux_held_at_submission(const flux_job_row& j, std::span<const double> passes) noexcept {
    return j.eventlog && j.submit_urgency != flux::urgency_hold && j.submit_urgency != flux::urgency_expedite &&
           j.computed.size() < flux_memos_kept && !flux_computed_at_submission(j, passes);
}

} // namespace detail

/// What happened to the plugin, beyond the databases it received: when it was loaded (`flux
/// jobtap load`, which empties its tables until the next update), and what it printed it held.
struct flux_plugin_history {
    std::span<const double> loads;
    std::span<const flux_observation> observations;
};

/// Replays the plugin over `updates` (in any order) and `jobs`, event by event, as
/// flux-accounting 0.60's src/plugins/mf_priority.cpp behaves:
/// - a submission (new_cb) sets its pair's cached queue factor (get_queue_info) and bank
///   factor (get_bank_priority) and computes the job;
/// - an update (rec_update_cb merges the associations into the plugin's map, which never
///   drops one: an association deleted from the database keeps its last fair-share and its
///   jobs keep their priorities; rec_q_cb, rec_bank_cb and rec_factor_cb replace queues, banks
///   and weights; reprior_cb recomputes every pending job with its pair's cached factors);
/// - `flux job urgency` and a jobspec-update (job_updated: a new queue sets the pair's queue
///   factor, a new bank moves the job to that pair and sets its bank factor) put the job back
///   in PRIORITY, which recomputes it at once;
/// - a load (flux_plugin_init) empties the tables: every job is held by a placeholder
///   association (add_special_association) and keeps the priority it has until the next
///   update, when each finds its pair again in priority_cb and sets the pair's queue factor to
///   its own queue; pairs created then have bank factor 0 until they submit again.
/// The result is the last computation of each job, by job index (nullopt for a job that is
/// not pending, or that the plugin cannot place). Jobs submitted before the first database of
/// the history are taken as computed with it (each pair caching its latest job's queue and its
/// bank's priority), but for those whose eventlog shows no computation at submission
/// (detail::flux_held_at_submission) and those submitted before a load: held by placeholders,
/// they are found at the first update as after a load. A pair none of whose jobs is listed
/// takes its queue factor from `held` (what the plugin printed it held) when given there,
/// else from the queue of its job being
/// computed; its bank factor is its bank's priority in the database of the time (the plugin
/// prints none). `history.observations` set the pairs' queue factors to what the plugin
/// printed from their time on.
[[nodiscard]] inline std::vector<std::optional<flux_plugin_priority>>
replay_flux_plugin(std::span<const flux_update> updates, std::span<const flux_job_row> jobs, flux_plugin_options o = {},
                   std::span<const flux_cached_pair> held = {}, flux_plugin_history history = {}) {
    // The timeline: loads, updates, submissions, the jobs' events and the observations, in
    // time order; at one time in that order (flux.sh captures after it acts).
    enum rank : std::uint8_t { load, update, submission, job_event, observation };
    struct step {
        double time;
        rank what;
        std::size_t index; // into updates, jobs or observations
        std::size_t event; // job_event: into the job's events
    };
    std::vector<step> steps;
    std::vector<double> update_times;
    for (const auto& u : updates) update_times.push_back(u.time);
    std::sort(update_times.begin(), update_times.end());
    for (std::size_t i = 0; i < history.loads.size(); ++i)
        steps.push_back({.time = history.loads[i], .what = load, .index = i, .event = 0});
    for (std::size_t i = 0; i < updates.size(); ++i)
        steps.push_back({.time = updates[i].time, .what = update, .index = i, .event = 0});
    for (std::size_t k = 0; k < jobs.size(); ++k) {
        steps.push_back({.time = jobs[k].t_submit, .what = submission, .index = k, .event = 0});
        for (std::size_t e = 0; e < jobs[k].events.size(); ++e)
            steps.push_back({.time = jobs[k].events[e].time, .what = job_event, .index = k, .event = e});
    }
    for (std::size_t i = 0; i < history.observations.size(); ++i)
        steps.push_back({.time = history.observations[i].time, .what = observation, .index = i, .event = 0});
    std::stable_sort(steps.begin(), steps.end(), [&](const step& a, const step& b) {
        if (a.time != b.time) return a.time < b.time;
        if (a.what != b.what) return a.what < b.what;
        if (a.what == submission) return jobs[a.index].id < jobs[b.index].id;
        return false;
    });

    // The plugin's tables.
    struct pair_state {
        std::uint32_t userid;
        std::string bank;
        double fairshare = 0;
        std::int64_t queue_factor = 0;
        double bank_factor = 0;
        bool cached = false;      // queue and bank factors known (else: from before the history)
        bool bank_reset = false;  // created after a load: bank factor 0 until the pair submits
        bool in_db = true;        // in the latest database received
    };
    std::vector<pair_state> pairs;
    std::vector<std::pair<std::uint32_t, std::string>> default_banks;
    const flux_db* db = nullptr;
    bool loaded_in_history = false, seen_update = false;
    // Each job as the plugin knows it.
    enum class attach : std::uint8_t { none, before_history, placeholder, pair };
    struct job_state {
        attach how = attach::none;
        std::size_t pair = 0;
        std::string queue, bank;
        std::uint8_t urgency = flux::urgency_default;
        bool submitted = false;
    };
    std::vector<job_state> js(jobs.size());
    for (std::size_t k = 0; k < jobs.size(); ++k) {
        js[k].queue = jobs[k].queue;
        js[k].bank = jobs[k].bank;
        js[k].urgency = jobs[k].eventlog ? jobs[k].submit_urgency : jobs[k].urgency;
        if (jobs[k].submit_bank) js[k].bank = *jobs[k].submit_bank;
        if (jobs[k].submit_queue) js[k].queue = *jobs[k].submit_queue;
    }

    const auto find_pair = [&](std::uint32_t uid, std::string_view bank) -> std::optional<std::size_t> {
        for (std::size_t i = 0; i < pairs.size(); ++i)
            if (pairs[i].userid == uid && pairs[i].bank == bank) return i;
        return std::nullopt;
    };
    // How far from an update's time its memo events may be: the time a bundle records is
    // taken when `flux account-priority-update` returns, and the plugin's pass runs after.
    constexpr double memo_window = 2.0;
    // The fair-share job `k`'s memo records for its computation at `now`.
    bool reading_memos = true; // false during a predicted update's pass
    const auto memo_fairshare = [&](std::size_t k, double now) -> std::optional<double> {
        if (!reading_memos) return std::nullopt;
        const auto& j = jobs[k];
        std::optional<double> best;
        double best_at = 0;
        for (std::size_t m = 0; m < j.computed.size() && m < j.computed_fairshare.size(); ++m)
            if (j.computed[m] >= now - memo_window && (!best || j.computed[m] < best_at)) {
                best = j.computed_fairshare[m];
                best_at = j.computed[m];
            }
        return best;
    };
    // A pair no database of the history holds but the plugin printed it held (`flux jobtap
    // query`: an association deleted before the history began keeps its entry there): taken
    // as printed, its bank factor its bank's priority. Failing that, a pair none of the
    // plugin's printed tables holds (deleted before the history began, and the plugin reloaded
    // since): its fair-share is the one job `k`'s memo records, its queue factor that job's
    // queue.
    std::vector<char> from_memo; // by pair: created from a job's memo
    const auto observed_pair = [&](std::uint32_t uid, std::string_view bank, std::size_t k,
                                   double now) -> std::optional<std::size_t> {
        if (const auto p = find_pair(uid, bank)) return p;
        if (db == nullptr) return std::nullopt;
        const flux_cached_pair* seen = nullptr;
        for (const auto& h : held)
            if (h.userid == uid && h.bank == bank) seen = &h;
        for (const auto& ob : history.observations)
            for (const auto& h : ob.pairs)
                if (h.userid == uid && h.bank == bank) seen = &h;
        pair_state ps;
        ps.userid = uid;
        ps.bank = std::string(bank);
        if (seen != nullptr) {
            ps.fairshare = seen->fairshare;
            ps.queue_factor = seen->queue_factor;
        } else if (const auto fs = memo_fairshare(k, now)) {
            ps.fairshare = *fs;
            ps.queue_factor = db->queue_priority(js[k].queue);
        } else {
            return std::nullopt;
        }
        ps.bank_factor = db->bank_priority(bank);
        ps.cached = true;
        ps.in_db = false;
        pairs.push_back(std::move(ps));
        from_memo.resize(pairs.size(), 0);
        from_memo.back() = seen == nullptr ? 1 : 0;
        return pairs.size() - 1;
    };
    const auto default_bank = [&](std::uint32_t uid) -> std::string_view {
        for (const auto& [u, b] : default_banks)
            if (u == uid) return b;
        return {};
    };

    std::vector<std::pair<std::size_t, std::size_t>> consumed; // job events a pass took (job, event)
    std::vector<std::optional<flux_plugin_priority>> out(jobs.size());
    const auto key_bank = [&](std::size_t k) -> std::string {
        return js[k].bank.empty() ? std::string(default_bank(jobs[k].userid)) : js[k].bank;
    };
    const auto compute = [&](std::size_t k, double now, flux_cause cause) {
        const flux_job_row& j = jobs[k];
        job_state& s = js[k];
        if (db == nullptr || !j.pending()) return; // no data: the job keeps what it has
        if (s.how == attach::placeholder || s.how == attach::before_history || s.how == attach::none) {
            const auto p = observed_pair(j.userid, key_bank(k), k, now);
            if (!p) return; // the plugin cannot place it: it keeps what it has (or is rejected)
            pair_state& ps = pairs[*p];
            if (s.how == attach::placeholder) {
                // priority_cb's look-up after a load: the pair's queue factor is this job's queue.
                ps.queue_factor = db->queue_priority(s.queue);
                ps.cached = true;
                cause = flux_cause::first_update;
            } else if (!ps.cached) {
                // A pair whose latest submission the history does not hold: the cache the
                // plugin printed, else its job's own queue.
                ps.queue_factor = db->queue_priority(s.queue);
                for (const auto& h : held)
                    if (h.userid == ps.userid && h.bank == ps.bank) ps.queue_factor = h.queue_factor;
                ps.bank_factor = db->bank_priority(ps.bank);
                ps.cached = true;
            }
            s.how = attach::pair;
            s.pair = *p;
        }
        pair_state& ps = pairs[s.pair];
        if (s.pair < from_memo.size() && from_memo[s.pair] != 0)
            if (const auto fs = memo_fairshare(k, now)) ps.fairshare = *fs;
        flux::job fj;
        fj.id = static_cast<std::uint32_t>(j.id);
        fj.association = 0;
        fj.queue = 0;
        fj.bank = 0;
        fj.urgency = s.urgency;
        const std::int64_t qf[] = {ps.queue_factor};
        const double bf[] = {ps.bank_factor};
        const double fs[] = {ps.fairshare};
        flux::context ctx;
        ctx.queue_priority = qf;
        ctx.bank_priority = bf;
        ctx.fairshare = fs;
        const flux::flux_result r{.clamp_upper = o.clamp_upper};
        flux_plugin_priority p;
        p.value = o.exact_products ? flux::make_flux_accounting_engine(db->weights, r).priority(fj, ctx)
                                   : flux::make_flux_accounting_plugin_engine(db->weights, r).priority(fj, ctx);
        p.queue_factor = ps.queue_factor;
        p.bank_factor = ps.bank_factor;
        p.fairshare = ps.fairshare;
        p.computed_at = now;
        p.at_submission = cause == flux_cause::submission;
        p.cause = cause;
        p.pair_deleted = !ps.in_db;
        p.bank_factor_reset = ps.bank_reset;
        p.fairshare_from_memo = s.pair < from_memo.size() && from_memo[s.pair] != 0;
        p.weights = db->weights;
        out[k] = p;
    };

    for (const step& st : steps) {
        switch (st.what) {
        case load:
            // A load before the history's first database is the plugin's start (or a reload)
            // that database, or one the history does not hold, followed: it empties no table
            // the replay knows, but the jobs pending then are held by placeholders all the same.
            if (seen_update) {
                pairs.clear();
                default_banks.clear();
                db = nullptr;
                loaded_in_history = true;
            }
            for (auto& s : js)
                if (s.submitted) s.how = attach::placeholder;
            break;
        case update: {
            const flux_update& u = updates[st.index];
            reading_memos = !u.predicted;
            const bool first_data = !seen_update;
            seen_update = true;
            // The plugin's map was empty before this update (a load, or jobs held without
            // data): the pairs it creates have bank factor 0 until they submit.
            const bool fresh = loaded_in_history ||
                               std::any_of(js.begin(), js.end(), [](const job_state& s) { return s.submitted && s.how == attach::placeholder; });
            db = &u.db;
            for (auto& ps : pairs) ps.in_db = false;
            for (const auto& row : u.db.users) {
                auto p = find_pair(row.userid, row.bank);
                if (!p) {
                    pair_state ps;
                    ps.userid = row.userid;
                    ps.bank = row.bank;
                    // After a load the plugin's map starts empty: its factors are 0 until set.
                    ps.cached = loaded_in_history;
                    ps.bank_reset = fresh;
                    pairs.push_back(std::move(ps));
                    p = pairs.size() - 1;
                }
                pairs[*p].fairshare = row.fairshare;
                pairs[*p].in_db = true;
                if (!row.default_bank.empty()) {
                    bool found = false;
                    for (auto& [uid, b] : default_banks)
                        if (uid == row.userid) {
                            b = row.default_bank;
                            found = true;
                        }
                    if (!found) default_banks.emplace_back(row.userid, row.default_bank);
                }
            }
            if (first_data) {
                // The submissions before the history's first database: taken as computed with
                // it, so that each pair caches its latest job's queue and its bank's priority.
                for (const step& earlier : steps) {
                    if (earlier.what != submission || !js[earlier.index].submitted) continue;
                    job_state& e = js[earlier.index];
                    if (e.how != attach::before_history) continue;
                    if (e.bank.empty()) e.bank = std::string(default_bank(jobs[earlier.index].userid));
                    if (const auto p = find_pair(jobs[earlier.index].userid, e.bank)) {
                        pairs[*p].queue_factor = u.db.queue_priority(e.queue);
                        pairs[*p].bank_factor = u.db.bank_priority(e.bank);
                        pairs[*p].bank_reset = false;
                        pairs[*p].cached = true;
                        e.how = attach::pair;
                        e.pair = *p;
                    }
                }
            }
            // The pass in the order the plugin took the jobs, where their eventlogs say: each
            // computation posts a memo (but for urgencies 0 and 31), and a job found again
            // after a load is moved to its user's default bank (a jobspec-update) first. The
            // last job of a pair found again leaves the pair its queue factor. Jobs without
            // either near the update come after, by id.
            std::vector<std::pair<double, std::size_t>> pass;
            for (std::size_t k = 0; k < jobs.size(); ++k) {
                if (!js[k].submitted) continue;
                double at = std::numeric_limits<double>::infinity();
                const auto near = [&](double c) {
                    if (!u.predicted && c > u.time - memo_window && c < u.time + memo_window) at = std::min(at, c);
                };
                // (A job held by a placeholder has no computation of its own: all its memos
                // are passes'.)
                for (const double c : jobs[k].computed)
                    if (js[k].how == attach::placeholder || !detail::flux_own_computation(jobs[k], c)) near(c);
                for (const auto& e : jobs[k].events)
                    if (e.what == flux_job_event::kind::bank) near(e.time);
                pass.emplace_back(at, k);
            }
            std::stable_sort(pass.begin(), pass.end(), [&](const auto& a, const auto& b) {
                return a.first != b.first ? a.first < b.first : jobs[a.second].id < jobs[b.second].id;
            });
            // A pass the eventlogs show: a job whose eventlog covers it but shows neither was
            // not computed by it (flux-core's walk over its jobs can miss some while the
            // plugin moves others between banks); it keeps the priority it had and, after a
            // load, stays to be found again.
            const bool observed = !pass.empty() && pass.front().first != std::numeric_limits<double>::infinity();
            for (const auto& [at, k] : pass) {
                const auto& j = jobs[k];
                const bool covered = j.t_submit < u.time - memo_window &&
                                     (j.computed.size() < detail::flux_memos_kept || j.computed.front() < u.time - memo_window);
                // (Urgencies 0 and 31 post no memo: such a job found already is computed, to 0
                // or 4294967295 whatever the pass.)
                const bool fixed = js[k].urgency == flux::urgency_hold || js[k].urgency == flux::urgency_expedite;
                if (observed && j.eventlog && covered && at == std::numeric_limits<double>::infinity() &&
                    (js[k].how == attach::placeholder || (out[k] && !fixed)))
                    continue;
                compute(k, u.time, flux_cause::update);
                if (!out[k] || out[k]->cause != flux_cause::first_update) continue;
                // Found again after a load, the job is moved to its user's default bank
                // (priority_cb's jobspec-update, handled before the pass goes on: job_updated
                // gives the new pair its bank's priority, which the pair's later jobs in the
                // pass see). The priority computed before the move stands.
                const auto& events = jobs[k].events;
                for (std::size_t e = 0; !u.predicted && e < events.size(); ++e) {
                    if (events[e].what != flux_job_event::kind::bank || events[e].time < u.time - memo_window ||
                        events[e].time > u.time + memo_window)
                        continue;
                    consumed.emplace_back(k, e);
                    if (events[e].value == js[k].bank) break;
                    js[k].bank = events[e].value;
                    if (const auto p = find_pair(jobs[k].userid, events[e].value)) {
                        pairs[*p].bank_factor = db->bank_priority(events[e].value);
                        pairs[*p].bank_reset = false;
                        js[k].pair = *p;
                    }
                    break;
                }
            }
            reading_memos = true;
            break;
        }
        case submission: {
            const std::size_t k = st.index;
            job_state& s = js[k];
            s.submitted = true;
            if (db == nullptr) {
                s.how = loaded_in_history || detail::flux_held_at_submission(jobs[k], update_times) ? attach::placeholder
                                                                                                    : attach::before_history;
                break;
            }
            if (s.bank.empty()) s.bank = std::string(default_bank(jobs[k].userid));
            if (const auto p = observed_pair(jobs[k].userid, s.bank, k, st.time)) {
                pair_state& ps = pairs[*p];
                ps.queue_factor = db->queue_priority(s.queue);
                ps.bank_factor = db->bank_priority(ps.bank);
                ps.cached = true;
                ps.bank_reset = false;
                s.how = attach::pair;
                s.pair = *p;
            } else {
                s.how = attach::placeholder;
            }
            compute(k, st.time, flux_cause::submission);
            break;
        }
        case job_event: {
            const std::size_t k = st.index;
            job_state& s = js[k];
            const flux_job_event& e = jobs[k].events[st.event];
            if (!s.submitted) break;
            if (std::find(consumed.begin(), consumed.end(), std::pair{k, st.event}) != consumed.end()) break;
            if (e.what == flux_job_event::kind::urgency) {
                s.urgency = e.urgency;
                compute(k, e.time, flux_cause::urgency);
                break;
            }
            if (e.what == flux_job_event::kind::bank) {
                const bool same = e.value == key_bank(k);
                s.bank = e.value;
                if (same || db == nullptr) break; // the plugin's own default-bank update at job.new
                if (const auto p = find_pair(jobs[k].userid, e.value)) {
                    pairs[*p].bank_factor = db->bank_priority(e.value);
                    pairs[*p].bank_reset = false;
                    s.how = attach::pair;
                    s.pair = *p;
                }
            } else {
                s.queue = e.value;
                if (db != nullptr && s.how == attach::pair) pairs[s.pair].queue_factor = db->queue_priority(e.value);
            }
            compute(k, e.time, flux_cause::job_update);
            break;
        }
        case observation:
            for (const auto& h : history.observations[st.index].pairs)
                if (const auto p = find_pair(h.userid, h.bank); p && pairs[*p].cached) pairs[*p].queue_factor = h.queue_factor;
            break;
        }
    }
    return out;
}

/// When the plugin recomputed every pending job (`flux account-priority-update`, or the first
/// update after a load), read from the jobs' eventlogs: each computation posts a "memo"
/// event, and one that neither the job's submission nor its own urgency change or
/// jobspec-update explains (those are computed within `own_window` seconds) comes from a pass
/// over all jobs. Such memos within `pass_window` seconds of each other are one pass, counted
/// when it reached at least two jobs (or the only one pending then). Times in order.
[[nodiscard]] inline std::vector<double> flux_passes_from_eventlogs(std::span<const flux_job_row> jobs,
                                                                    double own_window = detail::flux_own_window,
                                                                    double pass_window = detail::flux_pass_window) {
    std::vector<std::pair<double, std::size_t>> memos; // time, job
    for (std::size_t k = 0; k < jobs.size(); ++k) {
        const auto& j = jobs[k];
        for (const double c : j.computed)
            if (!detail::flux_own_computation(j, c, own_window)) memos.emplace_back(c, k);
    }
    std::sort(memos.begin(), memos.end());
    std::vector<double> out;
    for (std::size_t i = 0; i < memos.size();) {
        std::size_t end = i;
        std::vector<std::size_t> reached;
        while (end < memos.size() && memos[end].first - memos[i].first < pass_window) {
            if (std::find(reached.begin(), reached.end(), memos[end].second) == reached.end()) reached.push_back(memos[end].second);
            ++end;
        }
        std::size_t pending_then = 0;
        for (const auto& j : jobs) pending_then += j.eventlog && j.t_submit <= memos[i].first ? 1 : 0;
        if (reached.size() >= 2 || pending_then <= 1) out.push_back(memos[i].first);
        i = end;
    }
    return out;
}

/// flux-core's default priority (the plugin unloaded): the urgency, 0 and 4294967295 for
/// urgencies 0 and 31. nullopt for a job that is not pending.
[[nodiscard]] inline std::vector<std::optional<flux::priority_value>> flux_core_priorities(std::span<const flux_job_row> jobs) {
    std::vector<std::optional<flux::priority_value>> out(jobs.size());
    const auto e = flux::make_flux_core_engine();
    for (std::size_t k = 0; k < jobs.size(); ++k) {
        if (!jobs[k].pending()) continue;
        flux::job fj;
        fj.urgency = jobs[k].urgency;
        out[k] = e.priority(fj, flux::context{});
    }
    return out;
}

/// Flux's queue order of the pending jobs with a priority: higher priority first, then the
/// lower job id (the earlier submission). Indices into `jobs`.
[[nodiscard]] inline std::vector<std::size_t> flux_queue_order(std::span<const flux_job_row> jobs,
                                                               std::span<const std::optional<std::int64_t>> priority) {
    std::vector<std::size_t> order;
    for (std::size_t k = 0; k < jobs.size(); ++k)
        if (k < priority.size() && priority[k]) order.push_back(k);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return *priority[a] != *priority[b] ? *priority[a] > *priority[b] : jobs[a].id < jobs[b].id;
    });
    return order;
}

/// What the replays below take of a capture of Flux (mfprio/inputs/flux.hpp builds it from a
/// bundle and the bundles before it): the jobs Flux printed and when, whether flux-accounting's
/// plugin was loaded, the databases it received, its cache in the oldest capture and its
/// history. It views what it is built from.
struct flux_capture {
    std::span<const flux_job_row> jobs{};
    std::optional<double> captured{}; ///< when the commands ran
    bool plugin = false;              ///< flux-accounting's plugin was loaded
    std::span<const flux_update> updates{};
    std::span<const flux_cached_pair> held{};
    flux_plugin_history history{};
};

/// The time of a priority-update sent after everything `c` holds (its jobs' submissions and
/// events, its capture) and after `t`: a second after the latest of them.
[[nodiscard]] inline double flux_time_after(const flux_capture& c, double t) {
    for (const auto& j : c.jobs) t = std::max(t, j.t_submit);
    for (const auto& j : c.jobs)
        for (const auto& e : j.events) t = std::max(t, e.time);
    if (c.captured) t = std::max(t, *c.captured);
    return t + 1;
}

/// The latest of `updates` (which must hold one).
[[nodiscard]] inline const flux_update& latest_flux_update(std::span<const flux_update> updates) {
    MFPRIO_ASSERT(!updates.empty());
    return *std::max_element(updates.begin(), updates.end(), [](const auto& x, const auto& y) { return x.time < y.time; });
}

/// Each job's priority as mfprio computes it from a capture, by job index (none: not
/// pending, or a user and bank no database the plugin received holds).
struct flux_computed {
    std::vector<std::optional<std::int64_t>> priority;
    /// The plugin's terms and where its factors came from (--explain); empty without
    /// flux-accounting's plugin.
    std::vector<std::optional<flux_plugin_priority>> terms;
};

/// What Flux holds now: flux-accounting's plugin replayed over every update of `c` (or
/// flux-core's own priorities, the urgency, without the plugin). With `next_update`, what the
/// next `flux account-priority-update` gives: the latest database sent again after everything
/// the capture holds, the pairs keeping their caches.
[[nodiscard]] inline flux_computed flux_priorities_now(const flux_capture& c, const flux_plugin_options& opt,
                                                       bool next_update = false) {
    flux_computed out;
    out.priority.resize(c.jobs.size());
    if (!c.plugin) {
        const auto r = flux_core_priorities(c.jobs);
        for (std::size_t k = 0; k < r.size(); ++k)
            if (r[k]) out.priority[k] = r[k]->value;
        return out;
    }
    if (next_update && !c.updates.empty()) {
        std::vector<flux_update> after(c.updates.begin(), c.updates.end());
        flux_update next = latest_flux_update(c.updates);
        next.time = flux_time_after(c, next.time);
        next.predicted = true;
        after.push_back(std::move(next));
        out.terms = replay_flux_plugin(after, c.jobs, opt, c.held, c.history);
    } else {
        out.terms = replay_flux_plugin(c.updates, c.jobs, opt, c.held, c.history);
    }
    for (std::size_t k = 0; k < out.terms.size(); ++k)
        if (out.terms[k]) out.priority[k] = out.terms[k]->value.value;
    return out;
}

/// What `flux account` edits would give (`mfprio queue --set`): `changes` (KEY=VALUE, as
/// `apply_flux_change` takes them) made to the latest database of `c`, which needs
/// flux-accounting's plugin and an update. With `new_submissions`, each job computed as it
/// arrives under the changed database; otherwise the next priority-update after everything
/// the capture holds, the pairs keeping their caches. `error`: the change that cannot be
/// made, and why.
struct flux_whatif_result {
    std::string error;
    std::vector<std::optional<std::int64_t>> priority; ///< by job index, as flux_priorities_now
};

[[nodiscard]] inline flux_whatif_result flux_whatif(const flux_capture& c,
                                                    std::span<const std::pair<std::string, std::string>> changes,
                                                    const flux_plugin_options& opt, bool new_submissions) {
    flux_whatif_result out;
    MFPRIO_ASSERT(c.plugin && !c.updates.empty());
    const flux_update& latest = latest_flux_update(c.updates);
    flux_update changed{.time = latest.time, .db = latest.db, .predicted = true};
    for (const auto& [k, v] : changes)
        if (auto why = apply_flux_change(changed.db, k, v); !why.empty()) {
            out.error = std::move(why);
            return out;
        }
    std::vector<flux_update> after;
    std::span<const flux_cached_pair> held;
    if (new_submissions) {
        changed.time = 0; // before every submission: each job computed as it arrives
        after.push_back(std::move(changed));
    } else {
        changed.time = flux_time_after(c, changed.time);
        after.assign(c.updates.begin(), c.updates.end());
        after.push_back(std::move(changed));
        held = c.held;
    }
    const auto r = replay_flux_plugin(after, c.jobs, opt, held, new_submissions ? flux_plugin_history{} : c.history);
    out.priority.resize(c.jobs.size());
    for (std::size_t k = 0; k < r.size(); ++k)
        if (r[k]) out.priority[k] = r[k]->value.value;
    return out;
}

} // namespace mfprio::config
