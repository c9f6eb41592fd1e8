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

namespace mfprio::config {

/// A queue of flux-accounting's queue_table.
struct flux_queue_row {
    std::string name;
    std::int64_t priority = 0;
};

/// A bank of flux-accounting's bank_table.
struct flux_bank_row {
    std::string name;
    std::string parent; ///< empty for the root bank
    double priority = 0;
    std::uint32_t shares = 1;
    bool active = true;
};

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
    for (const auto& [u, node] : user_node) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%f", c.fs_factor[b.position(node)]);
        out[u] = std::strtod(buf, nullptr);
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
        char* end = nullptr;
        const std::string text(value);
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size() || !(v == v) || v > 1e300 || v < -1e300) return bad("a number");
        k->priority = v;
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
            char* end = nullptr;
            const std::string text(value);
            usage = std::strtod(text.c_str(), &end);
            if (text.empty() || end != text.c_str() + text.size() || !(usage >= 0) || usage > 1e300) return bad("a usage of 0 or more");
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
    std::size_t line = 0;     ///< where the job starts in its input
    std::size_t column = 1;   ///< (its column there)

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

/// How the replay computes.
struct flux_plugin_options {
    bool exact_products = false; ///< int x int products computed exactly (no 32-bit wrap)
    bool clamp_upper = false;    ///< lower sums above 4294967295 to it (the plugin does not)
};

/// One job's priority as the plugin last computed it, and the factors it used.
struct flux_plugin_priority {
    flux::priority_value value;
    std::int64_t queue_factor = 0; ///< the pair's cached queue factor
    double bank_factor = 0;        ///< the pair's cached bank priority
    double fairshare = 0;          ///< the association's stored fair-share
    double computed_at = 0;        ///< the submission or update that computed it
    bool at_submission = false;    ///< computed when the job was submitted (no update since)
    flux::flux_accounting_weights weights; ///< the weights of the database then, as configured
};

namespace detail {

/// The pair key of a job: its user and bank (the user's default bank when it names none).
[[nodiscard]] inline std::pair<std::uint32_t, std::string> flux_pair(const flux_job_row& j, const flux_db& db) {
    return {j.userid, j.bank.empty() ? std::string(db.default_bank(j.userid)) : j.bank};
}

} // namespace detail

/// Replays the plugin over `updates` (in any order) and `jobs`: each job is computed when it
/// is submitted (after the updates before it) and again at every later update while it is
/// pending, as the plugin's reprioritization does; the result is the last computation, by
/// job index (nullopt for a job that is not pending, or that the plugin cannot place). The
/// pair caches follow submissions in time order (ties by job id). A pair whose latest
/// submission is older than the history takes its queue factor from `held` (what the plugin
/// printed it held) when given there, else from the queue of its job being computed; its bank
/// factor is its bank's priority in the database of the time (the plugin prints none).
[[nodiscard]] inline std::vector<std::optional<flux_plugin_priority>>
replay_flux_plugin(std::span<const flux_update> updates, std::span<const flux_job_row> jobs, flux_plugin_options o = {},
                   std::span<const flux_cached_pair> held = {}) {
    std::vector<std::size_t> by_update(updates.size()), by_submit(jobs.size());
    for (std::size_t i = 0; i < by_update.size(); ++i) by_update[i] = i;
    for (std::size_t i = 0; i < by_submit.size(); ++i) by_submit[i] = i;
    std::stable_sort(by_update.begin(), by_update.end(),
                     [&](std::size_t a, std::size_t b) { return updates[a].time < updates[b].time; });
    std::stable_sort(by_submit.begin(), by_submit.end(), [&](std::size_t a, std::size_t b) {
        return jobs[a].t_submit != jobs[b].t_submit ? jobs[a].t_submit < jobs[b].t_submit : jobs[a].id < jobs[b].id;
    });
    struct cache {
        std::uint32_t userid;
        std::string bank;
        std::int64_t queue_factor;
        double bank_factor;
    };
    std::vector<cache> caches;
    const auto find_cache = [&](const std::pair<std::uint32_t, std::string>& key) -> cache* {
        for (auto& c : caches)
            if (c.userid == key.first && c.bank == key.second) return &c;
        return nullptr;
    };
    std::vector<std::optional<flux_plugin_priority>> out(jobs.size());
    std::vector<char> submitted(jobs.size(), 0);
    const flux_db* db = nullptr;
    double now = 0;
    const auto compute = [&](std::size_t k) {
        const flux_job_row& j = jobs[k];
        out[k].reset();
        if (db == nullptr || !j.pending()) return;
        const auto key = detail::flux_pair(j, *db);
        const flux_user_row* u = db->user(key.first, key.second);
        if (u == nullptr) return;
        cache* c = find_cache(key);
        if (c == nullptr) {
            // A pair whose latest submission the history does not hold: the cache the plugin
            // printed, else its job's own queue (as the plugin looks a queue up for a job that
            // arrived before it had data).
            std::int64_t queue = db->queue_priority(j.queue);
            for (const auto& h : held)
                if (h.userid == key.first && h.bank == key.second) queue = h.queue_factor;
            caches.push_back({key.first, key.second, queue, db->bank_priority(key.second)});
            c = &caches.back();
        }
        flux::job fj;
        fj.id = static_cast<std::uint32_t>(j.id);
        fj.association = 0;
        fj.queue = 0;
        fj.bank = 0;
        fj.urgency = j.urgency;
        const std::int64_t qf[] = {c->queue_factor};
        const double bf[] = {c->bank_factor};
        const double fs[] = {u->fairshare};
        flux::context ctx;
        ctx.queue_priority = qf;
        ctx.bank_priority = bf;
        ctx.fairshare = fs;
        const flux::flux_result r{.clamp_upper = o.clamp_upper};
        flux_plugin_priority p;
        p.value = o.exact_products ? flux::make_flux_accounting_engine(db->weights, r).priority(fj, ctx)
                                   : flux::make_flux_accounting_plugin_engine(db->weights, r).priority(fj, ctx);
        p.queue_factor = c->queue_factor;
        p.bank_factor = c->bank_factor;
        p.fairshare = u->fairshare;
        p.computed_at = now;
        p.weights = db->weights;
        out[k] = p;
    };
    std::size_t ui = 0, si = 0;
    while (ui < by_update.size() || si < by_submit.size()) {
        const bool update_next = ui < by_update.size() &&
                                 (si == by_submit.size() || updates[by_update[ui]].time <= jobs[by_submit[si]].t_submit);
        if (update_next) {
            const flux_update& u = updates[by_update[ui++]];
            db = &u.db;
            now = u.time;
            for (std::size_t k = 0; k < jobs.size(); ++k)
                if (submitted[k]) compute(k);
            continue;
        }
        const std::size_t k = by_submit[si++];
        const flux_job_row& j = jobs[k];
        submitted[k] = 1;
        now = j.t_submit;
        if (db != nullptr) {
            const auto key = detail::flux_pair(j, *db);
            const cache fresh{key.first, key.second, db->queue_priority(j.queue), db->bank_priority(key.second)};
            if (cache* c = find_cache(key)) *c = fresh;
            else if (db->user(key.first, key.second) != nullptr) caches.push_back(fresh);
        }
        compute(k);
        if (out[k]) out[k]->at_submission = true;
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

} // namespace mfprio::config
