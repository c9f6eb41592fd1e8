#pragma once
/// \file
/// Flux's side of the reports: job ids as Flux prints them (f58), one job's priority
/// explained term by term as flux-accounting's plugin computed it (replay/flux_plugin.hpp's
/// replay), with where each factor came from, and the tables of `mfprio queue` (the queue,
/// --set's what-if, --check's comparison with what Flux holds).

#include <cstdint>
#include <cstdio>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include <mfprio/replay/flux_plugin.hpp>
#include <mfprio/flux/job.hpp>
#include <mfprio/flux/presets.hpp>

namespace mfprio::report {

/// Flux's printed form of a job id: "ƒ" and the id in base 58 (FLUID f58).
[[nodiscard]] inline std::string flux_f58(std::uint64_t id) {
    static constexpr std::string_view digits = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
    std::string s;
    do {
        s.insert(s.begin(), digits[id % 58]);
        id /= 58;
    } while (id != 0);
    return "\xc6\x92" + s;
}

/// Every term of one Flux job's priority as the replay computed it, and where the plugin's
/// factors came from.
inline std::string explain_flux_job(const config::flux_job_row& j, const std::optional<config::flux_plugin_priority>& p,
                                    std::optional<std::int64_t> priority, bool plugin, const config::flux_plugin_options& opt) {
    std::string out = "job " + flux_f58(j.id) + " (" + std::to_string(j.id) + "): user " +
                      (j.username.empty() ? std::to_string(j.userid) : j.username) + ", bank " + (j.bank.empty() ? "-" : j.bank) +
                      ", queue " + (j.queue.empty() ? "-" : j.queue) + ", urgency " + std::to_string(j.urgency) + ", " + j.state + "\n";
    if (!priority) return out + "  no priority: the job is not pending, or flux-accounting does not hold its user and bank\n";
    if (!plugin) return out + "  priority " + std::to_string(*priority) + ": flux-core's own, the urgency\n";
    char buf[256];
    if (j.urgency == flux::urgency_hold || j.urgency == flux::urgency_expedite)
        return out + "  priority " + std::to_string(*priority) + ": urgency " + std::to_string(j.urgency) +
               (j.urgency == 0 ? " holds the job\n" : " expedites the job\n");
    const auto w = opt.exact_products ? p->weights : flux::truncate_weights(p->weights);
    static constexpr std::string_view causes[] = {
        "when it was submitted", "at a priority-update",
        "at the first priority-update since the plugin was loaded, which held the job without data until then "
        "(its pair took the job's own queue)",
        "when its urgency changed (flux job urgency)", "when its queue or bank changed (flux update)"};
    std::snprintf(buf, sizeof buf, "  computed %s (t = %.6f)\n", causes[static_cast<std::size_t>(p->cause)].data(), p->computed_at);
    out += buf;
    if (p->pair_deleted)
        out += "  its user and bank are no longer in the database: the plugin keeps the association it last received\n";
    // The int x int products: in 32 bits as the plugin computes them (the low 32 bits of each
    // operand), or exactly (in double, as the engine adds every term).
    const auto int_product = [&](std::int64_t weight, std::int64_t factor) -> double {
        if (opt.exact_products) return static_cast<double>(weight) * static_cast<double>(factor);
        return static_cast<double>(static_cast<std::int32_t>(static_cast<std::uint32_t>(weight) * static_cast<std::uint32_t>(factor)));
    };
    const auto wrapped = [](std::int64_t weight, std::int64_t factor, double got) {
        return static_cast<double>(weight) * static_cast<double>(factor) != got ? " (wrapped in 32 bits)" : "";
    };
    const std::int64_t urgency_term = static_cast<std::int64_t>(j.urgency) - 16;
    const double fs = static_cast<double>(w.fairshare) * p->fairshare;
    const double q = int_product(w.queue, p->queue_factor);
    const double bk = static_cast<double>(w.bank) * p->bank_factor;
    const double u = int_product(w.urgency, urgency_term);
    std::snprintf(buf, sizeof buf, "  fairshare %12lld x %.6f = %.6f (%s)\n", static_cast<long long>(w.fairshare), p->fairshare, fs,
                  p->fairshare_from_memo ? "the fair-share the job's memo records: no table the bundle holds has the association"
                                         : "the stored fair-share of the user in the bank");
    out += buf;
    std::snprintf(buf, sizeof buf, "  queue     %12lld x %lld = %.0f (the pair's cached queue factor: its latest job's queue)%s\n",
                  static_cast<long long>(w.queue), static_cast<long long>(p->queue_factor), q, wrapped(w.queue, p->queue_factor, q));
    out += buf;
    std::snprintf(buf, sizeof buf, "  bank      %12lld x %g = %.6f (%s)\n", static_cast<long long>(w.bank), p->bank_factor, bk,
                  p->bank_factor_reset ? "0: the plugin's map was empty when the pair was created, and it has not submitted since"
                                       : "the bank's priority when the pair last submitted");
    out += buf;
    std::snprintf(buf, sizeof buf, "  urgency   %12lld x (%u - 16) = %.0f%s\n", static_cast<long long>(w.urgency),
                  static_cast<unsigned>(j.urgency), u, wrapped(w.urgency, urgency_term, u));
    out += buf;
    std::snprintf(buf, sizeof buf, "  priority  %lld (the sum rounded%s; no upper clamp)\n", static_cast<long long>(*priority),
                  *priority == 0 ? ", 0 or below is 0: held" : "");
    out += buf;
    return out;
}

/// How a Flux job's user is named: its name, else its user id.
[[nodiscard]] inline std::string flux_user(const config::flux_job_row& j) {
    return j.username.empty() ? std::to_string(j.userid) : j.username;
}

namespace detail {

/// A job id in f58, right-aligned to 12 display columns ("ƒ" is two bytes and one column).
[[nodiscard]] inline std::string flux_id_column(std::uint64_t id) {
    const std::string f = flux_f58(id);
    return std::string(f.size() - 1 < 12 ? 12 - (f.size() - 1) : 0, ' ') + f;
}

} // namespace detail

/// One warning line per pending job mfprio cannot compute (`priority` none: its user and bank
/// in none of the databases the plugin received, an association deleted, a user never added):
/// said, not dropped in silence.
[[nodiscard]] inline std::string flux_uncomputed_warnings(std::span<const config::flux_job_row> jobs,
                                                          std::span<const std::optional<std::int64_t>> priority) {
    std::string out;
    for (std::size_t k = 0; k < jobs.size(); ++k) {
        const auto& j = jobs[k];
        if (!j.pending() || priority[k]) continue;
        out += "mfprio queue: warning: job " + flux_f58(j.id) + " (user " + flux_user(j) + ", bank " +
               (j.bank.empty() ? std::string("default") : j.bank) +
               "): its user has no association in that bank in the database flux-accounting's plugin received; "
               "its priority " + (j.priority ? std::to_string(*j.priority) : std::string("(none printed)")) +
               " is not computed\n";
    }
    return out;
}

/// The pending jobs in `order` (config::flux_queue_order) with their priorities: the table of
/// `mfprio queue --from/--live`.
[[nodiscard]] inline std::string render_flux_queue(std::span<const config::flux_job_row> jobs,
                                                   std::span<const std::size_t> order,
                                                   std::span<const std::optional<std::int64_t>> priority) {
    std::string out;
    char buf[256];
    std::snprintf(buf, sizeof buf, "%12s %-8s %3s %20s %-10s %s\n", "JOBID", "USER", "URG", "PRI", "QUEUE", "BANK");
    out += buf;
    for (const std::size_t k : order) {
        const auto& j = jobs[k];
        std::snprintf(buf, sizeof buf, "%s %-8.8s %3u %20lld %-10.10s %s\n", detail::flux_id_column(j.id).c_str(),
                      flux_user(j).c_str(), static_cast<unsigned>(j.urgency), static_cast<long long>(*priority[k]),
                      j.queue.empty() ? "-" : j.queue.c_str(), j.bank.empty() ? "-" : j.bank.c_str());
        out += buf;
    }
    return out;
}

/// `mfprio queue --set`'s report: what changed, how many pending jobs moved up and down, and
/// each job's priority and place before (`before`) and after (`after`), in the new order.
[[nodiscard]] inline std::string render_flux_whatif(std::span<const config::flux_job_row> jobs,
                                                    std::span<const std::optional<std::int64_t>> before,
                                                    std::span<const std::optional<std::int64_t>> after,
                                                    std::span<const std::pair<std::string, std::string>> changes,
                                                    bool new_submissions) {
    const auto order = config::flux_queue_order(jobs, before);
    const auto new_order = config::flux_queue_order(jobs, after);
    std::vector<std::size_t> old_pos(jobs.size(), 0), new_pos(jobs.size(), 0);
    for (std::size_t p = 0; p < order.size(); ++p) old_pos[order[p]] = p + 1;
    for (std::size_t p = 0; p < new_order.size(); ++p) new_pos[new_order[p]] = p + 1;
    std::size_t up = 0, down = 0;
    for (const std::size_t k : new_order) {
        if (old_pos[k] == 0) continue;
        up += new_pos[k] < old_pos[k] ? 1 : 0;
        down += new_pos[k] > old_pos[k] ? 1 : 0;
    }
    std::string what;
    for (const auto& [k, v] : changes) what += (what.empty() ? "" : ", ") + k + "=" + v;
    std::string out = "whatif: " + what + (new_submissions ? " (for new submissions)\n" : " (after flux account-priority-update)\n");
    out += "pending jobs compared: " + std::to_string(new_order.size()) + "   moved up: " + std::to_string(up) +
           "   moved down: " + std::to_string(down) + "   unchanged: " + std::to_string(new_order.size() - up - down) + "\n\n";
    char buf[256];
    std::snprintf(buf, sizeof buf, "%12s %-8s %3s %20s %20s %7s %7s %5s\n", "JOBID", "USER", "URG", "OLD_PRI", "NEW_PRI",
                  "OLD_POS", "NEW_POS", "MOVE");
    out += buf;
    for (const std::size_t k : new_order) {
        const auto& j = jobs[k];
        std::snprintf(buf, sizeof buf, "%s %-8.8s %3u %20s %20lld %7zu %7zu %+5ld\n", detail::flux_id_column(j.id).c_str(),
                      flux_user(j).c_str(), static_cast<unsigned>(j.urgency),
                      before[k] ? std::to_string(*before[k]).c_str() : "-", static_cast<long long>(*after[k]), old_pos[k],
                      new_pos[k], static_cast<long>(old_pos[k]) - static_cast<long>(new_pos[k]));
        out += buf;
    }
    return out;
}

/// `--check`: each pending job's priority against what Flux holds, and the queue order against
/// the one Flux listed (`listed`, when the bundle has it).
struct flux_check {
    std::string text;       ///< a line per job that differs, the orders when they differ, and the summary
    std::size_t compared = 0;
    std::size_t differ = 0; ///< jobs that differ, and one more when the order does
};

[[nodiscard]] inline flux_check check_flux(std::span<const config::flux_job_row> jobs,
                                           std::span<const std::optional<std::int64_t>> priority,
                                           const std::optional<std::vector<std::uint64_t>>& listed) {
    flux_check c;
    for (std::size_t k = 0; k < jobs.size(); ++k) {
        const auto& j = jobs[k];
        if (!j.pending()) continue;
        ++c.compared;
        // (No priority on either side: a job the plugin holds without data, in PRIORITY.)
        if (priority[k] ? j.priority && *priority[k] == *j.priority : !j.priority) continue;
        ++c.differ;
        c.text += "job " + flux_f58(j.id) + " (" + flux_user(j) + ", " + (j.bank.empty() ? "-" : j.bank) + ", " +
                  (j.queue.empty() ? "-" : j.queue) + ", urgency " + std::to_string(j.urgency) + "): flux " +
                  (j.priority ? std::to_string(*j.priority) : std::string("none")) + ", mfprio " +
                  (priority[k] ? std::to_string(*priority[k]) : std::string("none")) + "\n";
    }
    std::string order_note;
    if (listed) {
        // (Jobs without a priority, which the plugin holds without data, have no place in it.)
        std::unordered_set<std::uint64_t> unprioritized;
        for (const auto& j : jobs)
            if (!j.priority) unprioritized.insert(j.id);
        std::vector<std::string> theirs;
        for (const std::uint64_t id : *listed)
            if (!unprioritized.contains(id)) theirs.push_back(flux_f58(id));
        std::vector<std::string> mine;
        for (const std::size_t k : config::flux_queue_order(jobs, priority)) mine.push_back(flux_f58(jobs[k].id));
        order_note = mine == theirs ? ", queue order identical" : ", queue order differs";
        if (mine != theirs) {
            ++c.differ;
            c.text += "order: flux";
            for (const auto& id : theirs) c.text += " " + id;
            c.text += "\norder: mfprio";
            for (const auto& id : mine) c.text += " " + id;
            c.text += "\n";
        }
    }
    c.text += "check: " + std::to_string(c.compared) + " pending jobs compared, " + std::to_string(c.differ) + " differ" +
              order_note + "\n";
    return c;
}

} // namespace mfprio::report
