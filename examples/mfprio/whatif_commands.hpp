#pragma once
// `mfprio whatif`: what a configuration change would do to a cluster's pending queue. The
// cluster is read as `mfprio sprio` reads it (files, --live, --from); each `--set Key=Value`
// changes one thing; both queues are built in Slurm's scheduling order (slurm/order.hpp:
// partition PriorityTier, then priority, then submit time, then job id), each (job,
// partition, QOS) entry sprio would list counting once, and compared.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include <mfprio/read/slurm_conf.hpp>
#include <mfprio/report/sprio.hpp>
#include <mfprio/report/whatif.hpp>
#include <mfprio/slurm/order.hpp>

#include "commands.hpp"
#include "fairshare_commands.hpp"
#include "queue_commands.hpp"

namespace mfprio::cli {


/// What --set's help says: every slurm.conf key whatif changes (config::slurm_conf_keys'
/// settable ones), then the keys of the other tables.
inline constexpr auto whatif_set_help = [] {
    constant_text<1024> t;
    t.add("a change (give --set once for each); KEY is one of");
    bool first = true;
    for (const config::slurm_conf_key& k : config::slurm_conf_keys) {
        if (!k.settable) continue;
        if (first) t.add("\n");
        t.add_wrapped(first ? "" : ", ", k.name, 72);
        if (k.setting == config::slurm_conf_setting::flags) t.add(" (the whole value, or +FLAG / -FLAG)");
        first = false;
    }
    for (const std::string_view key : {"partition.NAME.PriorityJobFactor", "partition.NAME.PriorityTier", "qos.NAME.Priority",
                                       "qos.NAME.UsageFactor", "assoc.ACCOUNT.Shares",
                                       "assoc.ACCOUNT/USER.Shares (a number or parent);"})
        t.add_wrapped(", ", key, 72);
    t.add("\nVALUE is one word on one line, checked as the setting's reader checks it");
    return t;
}();

/// `mfprio whatif`'s options: its --help lists them, its parser takes them and no other.
inline constexpr option_row whatif_option_rows[] = {
    {"--set KEY=VALUE", whatif_set_help.view()},
    {"--site-policy FILE", "the policy site_factor/mfprio runs now: each pending job's SITE, on both\n"
                           "sides, as the plugin computes it (see mfprio sprio --site-policy)"},
    {"--new-site-policy FILE", "the policy after the change: the SITE of the after side (with or\n"
                               "without --set; with --site-policy for the cluster as it is)"},
    {"--top N", "the N entries that move most (default 10)"},
    {"--head N", "the first N positions for the per-account and per-user shares\n"
                 "(default: 10% of the queue, at least 1)"},
    {"--now T", "as for mfprio sprio"},
    {"--json", "the same as a JSON object (for scripts)"},
    {"--svg FILE", "also draw the accounts' shares of the head of the queue, before and\n"
                   "after, as an SVG chart"},
    {"--after D", "compare a while later (a Slurm time string, e.g. 7-0): both sides'\n"
                  "usage decayed and charged by the running jobs as `mfprio usage` does\n"
                  "(each under its own configuration), fair-share recomputed, jobs aged;\n"
                  "jobs keep their states"},
    {"--new-submissions", "with a Flux bundle: for jobs submitted anew (see mfprio queue)"},
    {"--help", "this text"},
};

inline const std::vector<option_spelling> whatif_option_spellings = option_spellings_of({whatif_option_rows, input_option_rows});
inline const std::vector<std::string_view> whatif_option_names = option_names_of(whatif_option_spellings);

inline const std::string whatif_help = render_help(
    "usage: mfprio whatif (--conf FILE... --qos FILE --assoc FILE... --jobs FILE | --live | --from DIR)\n"
    "                     --set KEY=VALUE... [options]\n"
    "\n"
    "What a configuration change would do to the pending queue: each (partition) queue in Slurm's\n"
    "order (PriorityTier, priority, submit time, job id) before and after the changes.\n"
    "\n",
    {whatif_option_rows}, 19,
    input_options_summary() +
        std::string("\n"
                    "A change to shares, PriorityFlags or FairShareDampeningFactor recomputes fair-share from\n"
                    "RawShares and RawUsage on both sides, so that only the change differs.\n"
                    "\n"
                    "A Flux bundle given to --from (it holds flux_jobs.json) is answered as\n"
                    "`mfprio queue --from DIR --set ...` answers it: Flux's keys are weight.FACTOR,\n"
                    "queue.NAME, bank.NAME, bankshares.NAME, shares.USER[@BANK] and usage.USER[@BANK].\n"
                    "\n"
                    "Example: mfprio whatif --from bundle --set PriorityWeightFairshare=100000 --set PriorityFlags=+NO_FAIR_TREE\n"));

/// `mfprio whatif --json`: the text report's content as one JSON object, every entry
/// compared included.
inline std::string whatif_json(const config::slurm_model& m, const report::whatif_result& r,
                               const report::whatif_summary& sum,
                               std::span<const std::pair<std::string, std::string>> changes, std::int64_t now) {
    const auto names = [&](const report::whatif_entry& e) {
        const auto& j = m.jobs[e.job_index];
        return nlohmann::ordered_json{{"job_id", e.job_id},
                                      {"partition", m.cluster.partition_names()[e.partition]},
                                      {"qos", m.cluster.qos_names()[e.qos]},
                                      {"user", m.user_names[j.user]},
                                      {"account", m.cluster.assoc_accounts()[j.association]},
                                      {"old_priority", e.old_priority},
                                      {"new_priority", e.new_priority},
                                      {"old_position", e.old_position},
                                      {"new_position", e.new_position},
                                      {"move", e.move()}};
    };
    const std::size_t n = sum.entries;
    nlohmann::ordered_json j;
    j["changes"] = nlohmann::ordered_json::array();
    for (const auto& [k, v] : changes) j["changes"].push_back({{"key", k}, {"value", v}});
    j["now"] = now;
    j["entries_compared"] = n;
    j["kendall_tau"] = r.tau;
    j["moved_up"] = r.up;
    j["moved_down"] = r.down;
    j["unchanged"] = n - r.up - r.down;
    j["median_move"] = r.median_move;
    j["largest_move"] = r.largest_move;
    j["largest_moves"] = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < sum.movers.size(); ++i) {
        auto e = names(r.entries[sum.movers[i]]);
        e["term"] = sum.terms[i];
        j["largest_moves"].push_back(std::move(e));
    }
    // Every entry compared, in the old queue's order, moved or not.
    j["entries"] = nlohmann::ordered_json::array();
    for (const auto& e : r.entries) j["entries"].push_back(names(e));
    j["head"] = {{"positions", sum.head}, {"of", n}};
    for (const bool by_account : {true, false}) {
        auto& list = j["head"][by_account ? "by_account" : "by_user"] = nlohmann::ordered_json::array();
        for (const auto& c : by_account ? sum.by_account : sum.by_user)
            list.push_back({{"name", c.who}, {"before", c.before}, {"after", c.after}});
    }
    // Names are bytes as Slurm gives them: invalid UTF-8 is written as U+FFFD, not thrown.
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

/// What `mfprio whatif` was asked (its options).
struct whatif_request {
    cluster_options copt;
    std::vector<std::pair<std::string, std::string>> changes;
    std::optional<std::int64_t> now;
    std::size_t top = 10;
    std::optional<std::size_t> head;
    std::optional<std::int64_t> after_s;
    std::string svg_path, site_policy, new_site_policy;
    bool json = false;
};

/// Reads `mfprio whatif`'s options into `r`; false when `o` holds what the command returns
/// (its help, or a usage error).
[[nodiscard]] inline bool parse_whatif_args(std::span<const std::string_view> args, whatif_request& r, outcome& o) {
    const auto usage = usage_reporter(o, "whatif");
    const auto refuse = [&](const std::string& message) {
        (void)usage(message);
        return false;
    };
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view a = args[i];
        if (help_or_unknown(o, "whatif", a, whatif_option_names, whatif_help)) return false;
        std::string error;
        if (cluster_option(args, i, r.copt, error)) {
            if (!error.empty()) return refuse(error);
            continue;
        }
        if (a == "--new-submissions") return refuse("--new-submissions goes with a Flux bundle (--from DIR holding flux_jobs.json)");
        if (a == "--json") {
            r.json = true;
            continue;
        }
        if (!takes_value(whatif_option_spellings, a)) return refuse("unknown option '" + std::string(a) + "'");
        const auto value = option_value(args, i, error);
        if (!value) return refuse(error);
        const std::string_view v = *value;
        if (a == "--set") {
            const std::size_t eq = v.find('=');
            if (eq == std::string_view::npos || eq == 0) return refuse("--set takes KEY=VALUE, not '" + std::string(v) + "'");
            const std::string key(config::trim(v.substr(0, eq)));
            const std::string_view value = config::trim(v.substr(eq + 1));
            // Each change is one key's value: a line end, a space or a '#' would let slurm.conf
            // read another key, a directive (Include) or a comment out of it.
            if (const auto bad = std::find_if(value.begin(), value.end(),
                                              [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f || c == ' ' || c == '#'; });
                bad != value.end())
                return refuse("--set " + key + ": the value must be one word (no spaces, line ends, control characters or '#')");
            r.changes.emplace_back(key, std::string(value));
        } else if (a == "--svg") {
            r.svg_path = v;
        } else if (a == "--site-policy") {
            r.site_policy = v;
        } else if (a == "--new-site-policy") {
            r.new_site_policy = v;
        } else if (a == "--after") {
            const auto d = config::parse_slurm_time(v);
            if (!d || d->unlimited || d->seconds <= 0 || d->seconds > 3650LL * 86400)
                return refuse("--after takes a Slurm time string up to 3650 days (e.g. 7-0), not '" + std::string(v) + "'");
            r.after_s = d->seconds;
        } else if (a == "--now") {
            r.now = parse_now(v);
            if (!r.now)
                return refuse("--now takes epoch seconds or YYYY-MM-DDTHH:MM:SS from 1970 to 9999, not '" +
                             std::string(v) + "'");
        } else {
            const auto n = config::parse_unsigned<std::uint32_t>(v);
            if (!n || *n == 0) return refuse(std::string(a) + " takes a positive integer, not '" + std::string(v) + "'");
            (a == "--top" ? r.top : r.head.emplace()) = *n;
        }
    }
    return true;
}

} // namespace mfprio::cli
