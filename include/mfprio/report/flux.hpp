#pragma once
/// \file
/// Flux's side of the reports: job ids as Flux prints them (f58), and one job's priority
/// explained term by term as flux-accounting's plugin computed it (config/flux_plugin.hpp's
/// replay), with where each factor came from.

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

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

} // namespace mfprio::report
