#pragma once
// `mfprio diagnose`: Maui's `diagnose -p` for a jobs table, from maui.cfg, the cluster's
// nodes and Maui's fair-share window files.

#include <cstdint>
#include <ctime>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <mfprio/read/maui_cfg.hpp>
#include <mfprio/read/maui_fs.hpp>
#include <mfprio/read/maui_jobs.hpp>
#include <mfprio/model/maui_model.hpp>
#include <mfprio/read/maui_outputs.hpp>
#include <mfprio/read/slurm_conf.hpp>
#include <mfprio/report/diagnose.hpp>

#include "commands.hpp"

namespace mfprio::cli {

/// `mfprio diagnose`'s options: its --help lists them, its parser takes them and no other.
inline constexpr option_row diagnose_option_rows[] = {
    {"--maui-cfg FILE", "maui.cfg (weights, caps, *CFG credentials, FS and accrual settings)"},
    {"--jobs FILE", "the jobs: checkjob's output (one job or many; needs --stats or --now),\n"
                    "the simulator's workload trace, or a jobs table\n"
                    "(JobID|User|Group|Account|QOS|Class|SubmitTime|WCLimit|Procs|...)"},
    {"--nodes FILE", "the simulator's resource trace, or a nodes table Name|Procs|Mem|Swap|Disk\n"
                     "(resources for PE)"},
    {"--stats FILE", "showstats -v's output: the scheduler's time (instead of --now)"},
    {"--showq FILE", "showq's output: list the idle jobs in its order, the order of Maui's last\n"
                     "iteration (as diagnose -p does; else by final priority)"},
    {"--from DIR", "a capture: DIR/maui.cfg, checkjob.txt (or workload.trace, jobs.txt),\n"
                   "resources.trace (or nodes.txt), showstats.txt, showq.txt, fs/ when there"},
    {"--check", "with --from: compare with DIR/diagnose.txt byte for byte and each idle job's\n"
                "final priority with checkjob's StartPriority; exit 1 on a difference"},
    {"--conf FILE", "or a slurm.conf whose NodeName lines give Procs and Mem"},
    {"--fs-dir DIR", "Maui's fair-share window files FS.<epoch>"},
    {"--now T", "time of the calculation: epoch seconds or YYYY-MM-DDTHH:MM:SS\n"
                "(TZ, else UTC); default: the current time"},
    {"--running", "running jobs and their run priority (MJobGetRunPriority), in mfprio's\n"
                  "own table (Maui's diagnose -p lists idle jobs only)"},
    {"--explain JOBID", "every component and subcomponent of one job's priority, and the\n"
                        "final priority"},
    {"--xfactor F", "code (default: (queued + WCLimit) / max(XFMINWCLIMIT, WCLimit))\n"
                    "or doc (1 + queued / max(XFMINWCLIMIT, WCLimit))"},
    {"--caps S", "maui (default: one-sided) or moab (symmetric)", "maui moab"},
    {"--qttarget F", "maui33 (default: Maui 3.3's max(0.0001, QTTARGET - EffQTime)^-2, which is\n"
                     "1e8 whenever a QTTARGET is set) or moab (1000^min(1, queued/QTTARGET))", "maui33 moab"},
    {"--uproc-ujob F", "maui33 (default: UPROC and UJOB are not weighted, as in Maui 3.3's code)\n"
                       "or moab (UPROCWEIGHT and UJOBWEIGHT apply)", "maui33 moab"},
    {"--group-classweight F", "maui33 (default: a GROUPCFG CLASSWEIGHT has no effect, as Maui 3.3\n"
                              "stores 0 for it) or doc (it replaces CLASSWEIGHT for the group's jobs)", "maui33 doc"},
    {"--help", "this text"},
};

inline const std::vector<option_spelling> diagnose_option_spellings = option_spellings_of({diagnose_option_rows});
inline const std::vector<std::string_view> diagnose_option_names = option_names_of(diagnose_option_spellings);

inline const std::string diagnose_help = render_help(
    "usage: mfprio diagnose --maui-cfg FILE --jobs FILE [options]\n"
    "\n"
    "Prints what Maui 3.3's `diagnose -p` prints, in its layout: each idle job's priority\n"
    "(the weighted sum, before the floor, ceiling and system priority; '*' marks a system\n"
    "priority) and each component's share, computed by mfprio from maui.cfg and a jobs table.\n"
    "\n",
    {diagnose_option_rows}, 20,
    
    "\n"
    "Ties are broken by submission time, then job id (Maui itself has no tie-break).\n"
    "\n"
    "Example: mfprio diagnose --maui-cfg maui.cfg --jobs jobs.txt --nodes nodes.txt --fs-dir stats\n"
    "         mfprio diagnose --maui-cfg maui.cfg --jobs checkjob.txt --stats showstats.txt \\\n"
    "             --showq showq.txt --nodes resources.trace --fs-dir $MAUIHOMEDIR/stats\n");

/// Embedded Maui inputs (the demo's): maui.cfg, jobs and nodes texts, and a label.
struct maui_sources {
    std::string_view cfg, jobs, nodes;
    std::string_view name;
};

/// `diagnose --check`: `o.out` (mfprio's diagnose -p) against DIR/diagnose.txt byte for
/// byte, and each idle job's final priority against the StartPriority checkjob printed.
inline outcome check_diagnose(outcome o, const std::string& dir, const config::maui_model& model,
                              const std::optional<config::maui_checkjob_jobs>& checkjob) {
    const std::string expected_path = (std::filesystem::path(dir) / "diagnose.txt").string();
    auto expected_text = config::read_text_file(expected_path, config::max_input_bytes, config::file_source::regular);
    if (!expected_text) {
        o.status = exit_data;
        o.err += "mfprio: " + expected_text.error().to_string() + "\n";
        o.out.clear();
        return o;
    }
    const std::string mine = std::move(o.out);
    o.out.clear();
    bool same = true;
    if (mine == *expected_text) {
        o.out += "diagnose -p: identical to " + expected_path + "\n";
    } else {
        same = false;
        const auto a = text::split_lines(*expected_text), b = text::split_lines(mine);
        std::size_t n = 0;
        while (n < a.size() && n < b.size() && a[n].text == b[n].text) ++n;
        o.out += "diagnose -p: differs from " + expected_path + " at line " + std::to_string(n + 1) + "\n";
        o.out += "  maui:   " + (n < a.size() ? std::string(a[n].text) : std::string("(end)")) + "\n";
        o.out += "  mfprio: " + (n < b.size() ? std::string(b[n].text) : std::string("(end)")) + "\n";
        if (n == a.size() && n == b.size()) o.out += "  (the line ends differ)\n";
    }
    std::size_t idle = 0, agree = 0;
    if (checkjob) {
        const auto e = model.engine();
        const auto ctx = model.context();
        for (std::size_t k = 0; k < model.jobs.size(); ++k) {
            const auto& j = model.jobs[k];
            if (j.state != job_state::pending) continue;
            ++idle;
            const std::int64_t maui_value = checkjob->printed[k].start_priority;
            const std::int64_t mine_value = e.priority(j, ctx).value;
            if (maui_value == mine_value) ++agree;
            else
                o.out += "job " + std::to_string(j.id) + ": checkjob's StartPriority " + std::to_string(maui_value) +
                         ", mfprio " + std::to_string(mine_value) + "\n";
        }
        o.out += "StartPriority: " + std::to_string(agree) + " of " + std::to_string(idle) + " idle jobs identical\n";
    }
    if (same && agree == idle) {
        o.out += "mfprio and Maui agree: diagnose -p byte for byte" +
                 (checkjob ? ", StartPriority of " + std::to_string(idle) + " idle jobs" : std::string()) + "\n";
    } else {
        o.status = 1;
        o.out += "mfprio and Maui differ\n";
    }
    return o;
}

/// The forms `mfprio diagnose` may choose where Maui 3.3's code and its documentation differ
/// (none chosen: maui.cfg's, or Maui 3.3's).
struct maui_forms {
    std::optional<maui::xfactor_form> xf;
    std::optional<maui::cap_style> caps;
    std::optional<maui::target_queuetime_form> qt;
    std::optional<bool> user_terms;
    std::optional<bool> group_class_weight;

    /// Option `a` (--xfactor, --caps, --group-classweight, --uproc-ujob, --qttarget) set to
    /// `v`; the usage error when `v` is not one of its two words.
    [[nodiscard]] std::optional<std::string> set(std::string_view a, std::string_view v) {
        const auto pick = [&](auto& dst, std::string_view first, auto first_value, std::string_view second,
                              auto second_value) -> std::optional<std::string> {
            if (v == first) dst = first_value;
            else if (v == second) dst = second_value;
            else return std::string(a) + " takes " + std::string(first) + " or " + std::string(second);
            return std::nullopt;
        };
        if (a == "--xfactor") return pick(xf, "code", maui::xfactor_form::code, "doc", maui::xfactor_form::doc);
        if (a == "--caps") return pick(caps, "maui", maui::cap_style::upper, "moab", maui::cap_style::symmetric);
        if (a == "--group-classweight") return pick(group_class_weight, "maui33", false, "doc", true);
        if (a == "--uproc-ujob") return pick(user_terms, "maui33", false, "moab", true);
        return pick(qt, "moab", maui::target_queuetime_form::moab, "maui33", maui::target_queuetime_form::maui33);
    }

    /// The chosen forms, into `cfg`.
    void apply(config::maui_cfg& cfg) const {
        if (xf) cfg.opts.xfactor = *xf;
        if (caps) cfg.opts.caps = *caps;
        if (qt) cfg.opts.target_queuetime = *qt;
        if (user_terms) cfg.opts.res_user_terms = *user_terms;
        if (group_class_weight) cfg.apply_group_class_weight = *group_class_weight;
    }
};

/// The files `mfprio diagnose` reads (empty: not given), and the capture directory (--from).
struct maui_paths {
    std::string cfg, jobs, nodes, conf, fs_dir, stats, showq, from;

    /// The files of the capture in `from` that no option named: maui.cfg, the jobs (checkjob,
    /// a workload trace or a jobs table), the nodes (unless --conf), showstats (unless --now:
    /// `have_now`), showq and the fair-share directory. The usage error when it lacks maui.cfg
    /// or the jobs.
    [[nodiscard]] std::optional<std::string> pick_capture_files(bool have_now) {
        namespace fs = std::filesystem;
        const auto in = [&](std::string_view name) { return (fs::path(from) / name).string(); };
        const auto pick = [&](std::string& dst, std::initializer_list<std::string_view> names) {
            if (!dst.empty()) return;
            for (const auto name : names) {
                std::error_code ec;
                if (fs::exists(in(name), ec)) {
                    dst = in(name);
                    return;
                }
            }
        };
        pick(cfg, {"maui.cfg"});
        pick(jobs, {"checkjob.txt", "workload.trace", "jobs.txt"});
        if (conf.empty()) pick(nodes, {"resources.trace", "nodes.txt"});
        if (!have_now) pick(stats, {"showstats.txt"});
        pick(showq, {"showq.txt"});
        pick(fs_dir, {"fs"});
        if (cfg.empty()) return from + " has no maui.cfg";
        if (jobs.empty()) return from + " has no checkjob.txt, workload.trace or jobs.txt";
        return std::nullopt;
    }
};

/// The jobs in `path`: a jobs table, a workload trace or checkjob's output (into `checkjob`
/// too, which needs the scheduler's time `now`), told apart by content.
[[nodiscard]] inline expected<config::maui_jobs_table> read_maui_jobs_input(const std::string& path,
                                                                           std::optional<std::int64_t> now,
                                                                           std::optional<config::maui_checkjob_jobs>& checkjob) {
    auto text = config::read_text_file(path);
    if (!text) return text.error();
    switch (config::detect_maui_input(*text)) {
    case config::maui_input_kind::workload_trace: return config::parse_maui_workload_trace(*text, path);
    case config::maui_input_kind::checkjob: {
        if (!now)
            return text::make_error(path, 1, 1, "checkjob", "checkjob prints durations: give the scheduler's time with --stats FILE or --now");
        auto c = config::parse_maui_checkjob(*text, path, *now);
        if (!c) return c.error();
        checkjob = std::move(*c);
        return checkjob->table;
    }
    default: return config::parse_maui_jobs(*text, path);
    }
}

/// The cluster's resources: a nodes table or the simulator's resource trace (--nodes), or
/// slurm.conf's nodes (--conf); none given, no resources.
[[nodiscard]] inline expected<maui::resources> read_maui_resources(const maui_paths& p) {
    if (!p.nodes.empty()) {
        auto text = config::read_text_file(p.nodes);
        if (!text) return text.error();
        return config::detect_maui_input(*text) == config::maui_input_kind::resource_trace
                   ? config::parse_maui_resource_trace(*text, p.nodes)
                   : config::parse_maui_nodes(*text, p.nodes);
    }
    if (!p.conf.empty()) {
        auto conf = config::read_slurm_conf(p.conf);
        if (!conf) return conf.error();
        return config::maui_nodes_from(*conf);
    }
    return maui::resources{};
}

} // namespace mfprio::cli
