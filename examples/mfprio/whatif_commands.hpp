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
    {"--help", "this text"},
};

inline const std::vector<std::string_view> whatif_option_names = option_names_of({whatif_option_rows, input_option_rows});

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
                    "Example: mfprio whatif --from bundle --set PriorityWeightFairshare=100000 --set PriorityFlags=+NO_FAIR_TREE\n"));

/// `mfprio whatif ...`
inline outcome run_whatif(std::span<const std::string_view> args) {
    outcome o;
    cluster_options copt;
    std::vector<std::pair<std::string, std::string>> changes;
    std::optional<std::int64_t> now;
    std::size_t top = 10;
    std::optional<std::size_t> head;
    std::optional<std::int64_t> after_s;
    std::string svg_path;
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
        if (a == "--json") {
            json = true;
            continue;
        }
        if (a != "--set" && a != "--top" && a != "--head" && a != "--now" && a != "--after" && a != "--svg") return usage("unknown option '" + std::string(a) + "'");
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
    if (changes.empty()) return usage("nothing to compare: give at least one --set KEY=VALUE");
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
        placed = place_stored(*present, times);
    }
    if (after_s) {
        // Both sides a while later: usage decayed and charged by the running jobs under each
        // side's configuration, fair-share recomputed from it, every job aged.
        for (parsed_cluster* side : {&*pc, &changed}) {
            if (!side->assoc.has_column("RawUsage")) {
                o.status = exit_data;
                o.err += "mfprio: " + side->assoc_name + ": RawUsage: whatif --after needs each association's "
                         "RawUsage (sshare -a -l -P prints it)\n";
                return o;
            }
            auto ft = config::fairshare_tree_from(side->assoc, side->assoc_name);
            if (!ft) {
                o.status = exit_data;
                o.err += "mfprio: " + ft.error().to_string() + "\n";
                return o;
            }
            config::charge_running_jobs(*ft, side->conf, side->qos, *side->jobs, t, *after_s);
            for (std::size_t row = 0; row < side->assoc.rows.size(); ++row)
                side->assoc.rows[row].raw_usage = static_cast<double>(ft->tree.usage_raw[ft->tree_index_of_row[row]]);
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
    const report::whatif_result r = report::compare_queues(*before, *after, t, std::max(t, times.listed));

    // Names of an entry, from the model before the change (the same jobs on both sides).
    const auto& m = *before;
    const auto user_of = [&](const report::whatif_entry& e) -> const std::string& { return m.user_names[m.jobs[e.job_index].user]; };
    const auto account_of = [&](const report::whatif_entry& e) -> const std::string& {
        return m.cluster.assoc_accounts()[m.jobs[e.job_index].association];
    };
    const auto partition_of = [&](const report::whatif_entry& e) -> const std::string& { return m.cluster.partition_names()[e.partition]; };
    const auto qos_of = [&](const report::whatif_entry& e) -> const std::string& { return m.cluster.qos_names()[e.qos]; };
    // The largest moves, and the shares of the head of the queue.
    std::vector<const report::whatif_entry*> movers;
    for (const auto& e : r.entries)
        if (e.move() != 0) movers.push_back(&e);
    std::stable_sort(movers.begin(), movers.end(), [](const report::whatif_entry* x, const report::whatif_entry* y) {
        const long a = std::labs(x->move()), b = std::labs(y->move());
        return a != b ? a > b : x->old_position < y->old_position;
    });
    if (movers.size() > top) movers.resize(top);
    std::vector<std::string> terms;
    for (const auto* e : movers) terms.push_back(report::changed_term(*before, *after, t, *e));
    const std::size_t n = r.entries.size();
    const std::size_t h = std::min(n, head ? *head : std::max<std::size_t>(1, n / 10));
    struct share {
        std::string who;
        std::size_t before = 0, after = 0;
    };
    std::vector<share> shares[2]; // by account, by user
    for (const int by : {0, 1}) {
        std::map<std::string, share> count;
        for (const auto& e : r.entries) {
            const std::string& who = by == 0 ? account_of(e) : user_of(e);
            auto& c = count[who];
            c.who = who;
            c.before += e.old_position <= h ? 1 : 0;
            c.after += e.new_position <= h ? 1 : 0;
        }
        for (auto& [who, c] : count)
            if (c.before + c.after != 0) shares[by].push_back(c);
        std::stable_sort(shares[by].begin(), shares[by].end(), [](const share& x, const share& y) {
            return x.after != y.after ? x.after > y.after : x.before > y.before;
        });
    }
    const auto percent = [&](std::size_t c) { return h == 0 ? 0.0 : 100.0 * static_cast<double>(c) / static_cast<double>(h); };
    if (!svg_path.empty()) {
        std::vector<report::head_share> chart;
        for (const auto& c : shares[0]) chart.push_back({c.who, percent(c.before), percent(c.after)});
        std::string title;
        for (const auto& [k, v] : changes) title += (title.empty() ? "" : ", ") + k + "=" + v;
        if (after_s) title += " (after " + std::to_string(*after_s) + " s)";
        const std::string svg = report::whatif_svg(chart, title, h, n);
        std::ofstream f(svg_path, std::ios::binary);
        f.write(svg.data(), static_cast<std::streamsize>(svg.size()));
        if (!f) {
            o.status = exit_data;
            o.err += "mfprio: " + svg_path + ": cannot write file\n";
            return o;
        }
    }

    if (json) {
        nlohmann::ordered_json j;
        j["changes"] = nlohmann::ordered_json::array();
        for (const auto& [k, v] : changes) j["changes"].push_back({{"key", k}, {"value", v}});
        j["now"] = t;
        j["entries_compared"] = n;
        j["kendall_tau"] = r.tau;
        j["moved_up"] = r.up;
        j["moved_down"] = r.down;
        j["unchanged"] = n - r.up - r.down;
        j["median_move"] = r.median_move;
        j["largest_move"] = r.largest_move;
        j["largest_moves"] = nlohmann::ordered_json::array();
        for (std::size_t i = 0; i < movers.size(); ++i) {
            const report::whatif_entry& e = *movers[i];
            j["largest_moves"].push_back({{"job_id", e.job_id},           {"partition", partition_of(e)},
                                          {"qos", qos_of(e)},             {"user", user_of(e)},
                                          {"account", account_of(e)},     {"old_priority", e.old_priority},
                                          {"new_priority", e.new_priority}, {"old_position", e.old_position},
                                          {"new_position", e.new_position}, {"move", e.move()},
                                          {"term", terms[i]}});
        }
        // Every entry compared, in the old queue's order, moved or not.
        j["entries"] = nlohmann::ordered_json::array();
        for (const auto& e : r.entries)
            j["entries"].push_back({{"job_id", e.job_id},
                                    {"partition", partition_of(e)},
                                    {"qos", qos_of(e)},
                                    {"user", user_of(e)},
                                    {"account", account_of(e)},
                                    {"old_priority", e.old_priority},
                                    {"new_priority", e.new_priority},
                                    {"old_position", e.old_position},
                                    {"new_position", e.new_position},
                                    {"move", e.move()}});
        j["head"] = {{"positions", h}, {"of", n}};
        for (const int by : {0, 1}) {
            auto& list = j["head"][by == 0 ? "by_account" : "by_user"] = nlohmann::ordered_json::array();
            for (const auto& c : shares[by])
                list.push_back({{"name", c.who}, {"before", percent(c.before)}, {"after", percent(c.after)}});
        }
        // Names are bytes as Slurm gives them: invalid UTF-8 is written as U+FFFD, not thrown.
        o.out = j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
        return o;
    }

    char buf[512];
    std::string changes_text;
    for (const auto& [k, v] : changes) changes_text += (changes_text.empty() ? "" : ", ") + k + "=" + v;
    o.out += "whatif: " + changes_text + "\n";
    std::snprintf(buf, sizeof buf, "queue entries compared: %zu   Kendall's tau: %.4f\n", n, r.tau);
    o.out += buf;
    std::snprintf(buf, sizeof buf, "moved up: %zu   moved down: %zu   unchanged: %zu   median move: %g   largest move: %zu\n",
                  r.up, r.down, n - r.up - r.down, r.median_move, r.largest_move);
    o.out += buf;
    if (!movers.empty()) {
        o.out += "\nlargest moves:\n";
        std::snprintf(buf, sizeof buf, "%10s %-10s %-10s %-10s %10s %10s %7s %7s %5s  %s\n", "JOBID", "PARTITION", "USER",
                      "ACCOUNT", "OLD_PRIO", "NEW_PRIO", "OLD_POS", "NEW_POS", "MOVE", "TERM");
        o.out += buf;
        for (std::size_t i = 0; i < movers.size(); ++i) {
            const report::whatif_entry& e = *movers[i];
            std::snprintf(buf, sizeof buf, "%10u %-10.10s %-10.10s %-10.10s %10u %10u %7zu %7zu %+5ld  %s\n", e.job_id,
                          partition_of(e).c_str(), user_of(e).c_str(), account_of(e).c_str(), e.old_priority,
                          e.new_priority, e.old_position, e.new_position, e.move(), terms[i].c_str());
            o.out += buf;
        }
    }
    if (n != 0) {
        for (const int by : {0, 1}) {
            std::snprintf(buf, sizeof buf, "\nhead of the queue (first %zu of %zu positions), by %s:\n", h, n,
                          by == 0 ? "account" : "user");
            o.out += buf;
            std::snprintf(buf, sizeof buf, "%-20s %8s %8s\n", by == 0 ? "ACCOUNT" : "USER", "BEFORE", "AFTER");
            o.out += buf;
            for (const auto& c : shares[by]) {
                std::snprintf(buf, sizeof buf, "%-20.20s %7.1f%% %7.1f%%\n", c.who.c_str(), percent(c.before), percent(c.after));
                o.out += buf;
            }
        }
    }
    return o;
}

} // namespace mfprio::cli
