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

#include <mfprio/config/slurm_conf.hpp>
#include <mfprio/report/sprio.hpp>
#include <mfprio/report/whatif.hpp>
#include <mfprio/slurm/order.hpp>

#include "commands.hpp"
#include "fairshare_commands.hpp"
#include "queue_commands.hpp"

namespace mfprio::cli {


/// `mfprio whatif`'s options: its --help lists them, its parser takes them and no other.
inline constexpr option_row whatif_option_rows[] = {
    {"--set KEY=VALUE", "a change (give --set once for each); KEY is one of\n"
                        "PriorityWeightAge|Assoc|Fairshare|JobSize|Partition|QOS, PriorityWeightTRES,\n"
                        "PriorityMaxAge, PriorityFavorSmall, FairShareDampeningFactor,\n"
                        "PriorityFlags (the whole value, or +FLAG / -FLAG),\n"
                        "partition.NAME.PriorityJobFactor, partition.NAME.PriorityTier,\n"
                        "qos.NAME.Priority, qos.NAME.UsageFactor,\n"
                        "assoc.ACCOUNT.Shares, assoc.ACCOUNT/USER.Shares (a number or parent);\n"
                        "VALUE is one word on one line, checked as the setting's reader checks it"},
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
                    "queue.NAME, bank.NAME, shares.USER[@BANK] and usage.USER[@BANK].\n"
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

/// `mfprio whatif ...`
inline outcome run_whatif(std::span<const std::string_view> args) {
    // A Flux bundle (its manifest lists flux_jobs.json): Flux's what-if.
    for (std::size_t i = 0; i + 1 < args.size(); ++i)
        if (args[i] == "--from" && std::find(args.begin(), args.end(), std::string_view("--help")) == args.end()) {
            auto listed = inputs::read_manifest_files(std::string(args[i + 1]));
            if (listed && std::any_of(listed->begin(), listed->end(), [](const auto& f) { return f.first == "flux_jobs.json"; }))
                return run_queue_from(args);
        }
    outcome o;
    cluster_options copt;
    std::vector<std::pair<std::string, std::string>> changes;
    std::optional<std::int64_t> now;
    std::size_t top = 10;
    std::optional<std::size_t> head;
    std::optional<std::int64_t> after_s;
    std::string svg_path, site_policy, new_site_policy;
    bool json = false;
    const auto usage = [&](const std::string& msg) {
        o.status = exit_usage;
        o.err += "mfprio whatif: " + msg + "\nTry 'mfprio whatif --help'.\n";
        return o;
    };
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view a = args[i];
        if (a == "--help") {
            o.out = whatif_help;
            return o;
        }
        if (!known_option(a, whatif_option_names)) return unknown_option("whatif", a, whatif_option_names, whatif_help);
        std::string error;
        if (cluster_option(args, i, copt, error)) {
            if (!error.empty()) return usage(error);
            continue;
        }
        if (a == "--new-submissions") return usage("--new-submissions goes with a Flux bundle (--from DIR holding flux_jobs.json)");
        if (a == "--json") {
            json = true;
            continue;
        }
        if (a != "--set" && a != "--top" && a != "--head" && a != "--now" && a != "--after" && a != "--svg" &&
            a != "--site-policy" && a != "--new-site-policy")
            return usage("unknown option '" + std::string(a) + "'");
        if (i + 1 >= args.size()) return usage("option " + std::string(a) + " needs a value");
        const std::string_view v = args[++i];
        if (a == "--set") {
            const std::size_t eq = v.find('=');
            if (eq == std::string_view::npos || eq == 0) return usage("--set takes KEY=VALUE, not '" + std::string(v) + "'");
            const std::string key(config::trim(v.substr(0, eq)));
            const std::string_view value = config::trim(v.substr(eq + 1));
            // Each change is one key's value: a line end, a space or a '#' would let slurm.conf
            // read another key, a directive (Include) or a comment out of it.
            if (const auto bad = std::find_if(value.begin(), value.end(),
                                              [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f || c == ' ' || c == '#'; });
                bad != value.end())
                return usage("--set " + key + ": the value must be one word (no spaces, line ends, control characters or '#')");
            changes.emplace_back(key, std::string(value));
        } else if (a == "--svg") {
            svg_path = v;
        } else if (a == "--site-policy") {
            site_policy = v;
        } else if (a == "--new-site-policy") {
            new_site_policy = v;
        } else if (a == "--after") {
            const auto d = config::parse_slurm_time(v);
            if (!d || d->unlimited || d->seconds <= 0 || d->seconds > 3650LL * 86400)
                return usage("--after takes a Slurm time string up to 3650 days (e.g. 7-0), not '" + std::string(v) + "'");
            after_s = d->seconds;
        } else if (a == "--now") {
            now = parse_now(v);
            if (!now)
                return usage("--now takes epoch seconds or YYYY-MM-DDTHH:MM:SS from 1970 to 9999, not '" +
                             std::string(v) + "'");
        } else {
            const auto n = config::parse_unsigned<std::uint32_t>(v);
            if (!n || *n == 0) return usage(std::string(a) + " takes a positive integer, not '" + std::string(v) + "'");
            (a == "--top" ? top : head.emplace()) = *n;
        }
    }
    if (changes.empty() && new_site_policy.empty())
        return usage("nothing to compare: give at least one --set KEY=VALUE or --new-site-policy FILE");
    std::optional<queue::site_engine> site, new_site;
    for (auto [path, dst] : {std::pair{&site_policy, &site}, std::pair{&new_site_policy, &new_site}}) {
        if (path->empty()) continue;
        auto e = queue::load_site_policy_file(*path, site::site_factor_registry());
        if (!e) {
            o.status = exit_data;
            o.err += "mfprio: " + e.error().to_string() + "\n";
            return o;
        }
        *dst = std::move(*e);
    }
    copt.usage_factors = after_s.has_value(); // charging reads the QOS UsageFactor
    auto ci = gather_inputs(copt, true, "whatif", o);
    if (!ci) return o;
    auto pc = parse_cluster(*ci, o);
    if (!pc) return o;
    parsed_cluster changed = *pc;
    const auto applied = report::apply_whatif(changed, ci->conf, changes);
    if (!applied.error.empty()) return usage(applied.error);
    for (const auto& w : applied.warnings) o.err += "mfprio whatif: warning: " + w + "\n";
    const bool cluster_output = copt.live || !copt.from.empty();
    const bool fair_tree = pc->conf.flags.has(slurm::priority_flag::fair_tree) &&
                           !pc->conf.flags.has(slurm::priority_flag::depth_oblivious);
    bool taken = config::fairshare_taken(copt.fs, cluster_output, ci->assoc, fair_tree, pc->conf, pc->assoc);
    if (applied.fairshare) taken = false;
    const sprio_times times = times_of(*ci, now);
    std::int64_t t = times.calc;
    // Each job's stored priority placed in time on the cluster as read (jobs submitted or
    // updated since the last recalculation, administrator-set priorities); both sides keep
    // those placements, and a later pass (--after) keeps the administrator-set ones.
    std::optional<loaded_cluster> present;
    config::stored_priorities placed;
    if (times.from_cluster) {
        present.emplace();
        auto m = build_model(*pc, taken, o);
        if (!m) return o;
        present->model = std::move(*m);
        present->fairshare_taken = taken;
        if (site) apply_site_policy(*site, present->model, times.calc, gpu_minutes_of(pc->assoc));
        placed = place_stored(*present, times);
    }
    if (after_s) {
        // Both sides a while later: usage decayed and charged by the running jobs under each
        // side's configuration, fair-share recomputed from it, every job aged.
        for (parsed_cluster* side : {&*pc, &changed})
            if (auto e = config::charge_cluster(*side, t, *after_s)) {
                if (e->kind == error_kind::shape) e->message = "whatif --after needs each association's RawUsage (sshare -a -l -P prints it)";
                o.status = exit_data;
                o.err += "mfprio: " + e->to_string() + "\n";
                return o;
            }
        taken = false;
        t += *after_s;
    }
    auto before = build_model(*pc, taken, o);
    if (!before) return o;
    auto after = build_model(changed, taken, o);
    if (!after) return o;
    if (present) {
        for (config::slurm_model* side : {&*before, &*after}) {
            if (after_s) config::keep_administrator_priorities(placed, present->model, *side);
            else config::keep_placements(placed, present->model, *side);
        }
    }
    const auto gpu_minutes = gpu_minutes_of(pc->assoc);
    if (site) apply_site_policy(*site, *before, t, gpu_minutes);
    if (new_site) apply_site_policy(*new_site, *after, t, gpu_minutes);
    else if (site) apply_site_policy(*site, *after, t, gpu_minutes);
    const report::whatif_result r = report::compare_queues(*before, *after, t, std::max(t, times.listed));

    const report::whatif_summary sum = report::summarize_whatif(*before, *after, t, r, top, head);
    std::string changes_text;
    for (const auto& [k, v] : changes) changes_text += (changes_text.empty() ? "" : ", ") + k + "=" + v;
    if (new_site) changes_text += (changes_text.empty() ? "" : ", ") + std::string("site policy ") + new_site_policy;
    if (!svg_path.empty()) {
        std::string title = changes_text;
        if (after_s) title += " (after " + std::to_string(*after_s) + " s)";
        const std::string svg = report::whatif_svg(sum.by_account, title, sum.head, sum.entries);
        std::ofstream f(svg_path, std::ios::binary);
        f.write(svg.data(), static_cast<std::streamsize>(svg.size()));
        if (!f) {
            o.status = exit_data;
            o.err += "mfprio: " + svg_path + ": cannot write file\n";
            return o;
        }
    }
    o.out = json ? whatif_json(*before, r, sum, changes, t) : report::render_whatif(*before, r, sum, changes_text);
    return o;
}

} // namespace mfprio::cli
