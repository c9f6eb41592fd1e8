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
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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
};

/// An association (user in a bank) of flux-accounting's association_table.
struct flux_user_row {
    std::string username;
    std::uint32_t userid = 0;
    std::string bank;
    std::string default_bank;
    double fairshare = 0.5; ///< as stored: 6 decimals
    bool active = true;
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
