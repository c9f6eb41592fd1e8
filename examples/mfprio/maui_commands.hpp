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

#include <mfprio/config/maui_cfg.hpp>
#include <mfprio/config/maui_fs.hpp>
#include <mfprio/config/maui_jobs.hpp>
#include <mfprio/config/maui_model.hpp>
#include <mfprio/config/maui_outputs.hpp>
#include <mfprio/config/slurm_conf.hpp>
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
    auto expected_text = config::read_text_file(expected_path);
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

/// `mfprio diagnose ...`; with `embedded`, the texts replace --maui-cfg, --jobs and --nodes.
inline outcome run_diagnose(std::span<const std::string_view> args, const maui_sources* embedded = nullptr) {
    outcome o;
    std::string cfg_path, jobs_path, nodes_path, conf_path, fs_dir, stats_path, showq_path, from_dir;
    bool check = false;
    std::optional<std::int64_t> now;
    std::optional<std::uint32_t> explain;
    bool running = false;
    std::optional<maui::xfactor_form> xf;
    std::optional<maui::cap_style> caps;
    std::optional<maui::target_queuetime_form> qt;
    std::optional<bool> user_terms;
    std::optional<bool> group_class_weight;
    const auto usage = [&](std::string msg) {
        o.status = exit_usage;
        o.err += "mfprio diagnose: " + msg + "\nTry 'mfprio diagnose --help'.\n";
        return o;
    };
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view a = args[i];
        if (a == "--help") {
            o.out = diagnose_help;
            return o;
        }
        if (!known_option(a, diagnose_option_names))
            return unknown_option("diagnose", a, diagnose_option_names, diagnose_help);
        if (a == "--running") {
            running = true;
            continue;
        }
        if (a == "--check") {
            check = true;
            continue;
        }
        if (a != "--maui-cfg" && a != "--jobs" && a != "--nodes" && a != "--conf" && a != "--fs-dir" && a != "--now" &&
            a != "--explain" && a != "--xfactor" && a != "--caps" && a != "--qttarget" && a != "--uproc-ujob" &&
            a != "--group-classweight" && a != "--stats" && a != "--showq" && a != "--from")
            return usage("unknown option '" + std::string(a) + "'");
        if (i + 1 >= args.size()) return usage("option " + std::string(a) + " needs a value");
        const std::string_view v = args[++i];
        if (a == "--maui-cfg") cfg_path = v;
        else if (a == "--jobs") jobs_path = v;
        else if (a == "--nodes") nodes_path = v;
        else if (a == "--conf") conf_path = v;
        else if (a == "--fs-dir") fs_dir = v;
        else if (a == "--stats") stats_path = v;
        else if (a == "--showq") showq_path = v;
        else if (a == "--from") from_dir = v;
        else if (std::string error; common_value(a, v, now, explain, error)) {
            if (!error.empty()) return usage(error);
        } else if (a == "--xfactor") {
            if (v == "code") xf = maui::xfactor_form::code;
            else if (v == "doc") xf = maui::xfactor_form::doc;
            else return usage("--xfactor takes code or doc");
        } else if (a == "--caps") {
            if (v == "maui") caps = maui::cap_style::upper;
            else if (v == "moab") caps = maui::cap_style::symmetric;
            else return usage("--caps takes maui or moab");
        } else if (a == "--group-classweight") {
            if (v == "maui33") group_class_weight = false;
            else if (v == "doc") group_class_weight = true;
            else return usage("--group-classweight takes maui33 or doc");
        } else if (a == "--uproc-ujob") {
            if (v == "maui33") user_terms = false;
            else if (v == "moab") user_terms = true;
            else return usage("--uproc-ujob takes maui33 or moab");
        } else {
            if (v == "moab") qt = maui::target_queuetime_form::moab;
            else if (v == "maui33") qt = maui::target_queuetime_form::maui33;
            else return usage("--qttarget takes moab or maui33");
        }
    }
    if (!from_dir.empty()) {
        namespace fs = std::filesystem;
        const auto in = [&](std::string_view name) { return (fs::path(from_dir) / name).string(); };
        const auto there = [&](std::string_view name) {
            std::error_code ec;
            return fs::exists(in(name), ec);
        };
        const auto pick = [&](std::string& dst, std::initializer_list<std::string_view> names) {
            if (!dst.empty()) return;
            for (const auto name : names)
                if (there(name)) {
                    dst = in(name);
                    return;
                }
        };
        pick(cfg_path, {"maui.cfg"});
        pick(jobs_path, {"checkjob.txt", "workload.trace", "jobs.txt"});
        if (conf_path.empty()) pick(nodes_path, {"resources.trace", "nodes.txt"});
        if (!now) pick(stats_path, {"showstats.txt"});
        pick(showq_path, {"showq.txt"});
        pick(fs_dir, {"fs"});
        if (cfg_path.empty()) return usage(from_dir + " has no maui.cfg");
        if (jobs_path.empty()) return usage(from_dir + " has no checkjob.txt, workload.trace or jobs.txt");
    }
    if (check && from_dir.empty()) return usage("--check needs --from DIR (DIR/diagnose.txt is what it compares with)");
    if (check && (running || explain)) return usage("--check compares diagnose -p: not with --running or --explain");
    if (embedded == nullptr && (cfg_path.empty() || jobs_path.empty()))
        return usage("--maui-cfg and --jobs are required (or --from DIR)");
    if (!nodes_path.empty() && !conf_path.empty()) return usage("give --nodes or --conf, not both");

    const auto fail = [&](const input_error& e) {
        o.status = exit_data;
        o.err += "mfprio: " + e.to_string() + "\n";
        return o;
    };
    const std::string label = embedded ? std::string(embedded->name) + "/" : std::string();
    auto cfg = embedded ? config::parse_maui_cfg(embedded->cfg, label + "maui.cfg") : config::read_maui_cfg(cfg_path);
    if (!cfg) return fail(cfg.error());
    for (const auto& w : cfg->warnings) o.err += "mfprio: warning: " + w.to_string() + "\n";
    if (xf) cfg->opts.xfactor = *xf;
    if (caps) cfg->opts.caps = *caps;
    if (qt) cfg->opts.target_queuetime = *qt;
    if (user_terms) cfg->opts.res_user_terms = *user_terms;
    if (group_class_weight) cfg->apply_group_class_weight = *group_class_weight;
    if (!stats_path.empty()) {
        auto text = config::read_text_file(stats_path);
        if (!text) return fail(text.error());
        auto st = config::parse_maui_showstats(*text, stats_path);
        if (!st) return fail(st.error());
        if (now && *now != st->now) return usage("--now and --stats give different times");
        now = st->now;
    }
    std::vector<std::uint32_t> queue_order;
    if (!showq_path.empty()) {
        auto text = config::read_text_file(showq_path);
        if (!text) return fail(text.error());
        auto q = config::parse_maui_showq(*text, showq_path);
        if (!q) return fail(q.error());
        for (const auto& j : *q)
            if (j.where == config::maui_showq_job::section::idle)
                if (const auto id = config::parse_unsigned<std::uint32_t>(j.id)) queue_order.push_back(*id);
    }
    // The jobs: a jobs table, a workload trace or checkjob's output, told apart by content.
    std::optional<config::maui_checkjob_jobs> checkjob;
    auto jobs = [&]() -> expected<config::maui_jobs_table> {
        if (embedded) return config::parse_maui_jobs(embedded->jobs, label + "jobs.txt");
        auto text = config::read_text_file(jobs_path);
        if (!text) return text.error();
        switch (config::detect_maui_input(*text)) {
        case config::maui_input_kind::workload_trace: return config::parse_maui_workload_trace(*text, jobs_path);
        case config::maui_input_kind::checkjob: {
            if (!now)
                return text::make_error(jobs_path, 1, 1, "checkjob",
                                  "checkjob prints durations: give the scheduler's time with --stats FILE or --now");
            auto c = config::parse_maui_checkjob(*text, jobs_path, *now);
            if (!c) return c.error();
            checkjob = std::move(*c);
            return checkjob->table;
        }
        default: return config::parse_maui_jobs(*text, jobs_path);
        }
    }();
    if (!jobs) return fail(jobs.error());
    maui::resources cluster{};
    if (embedded != nullptr) {
        auto r = config::parse_maui_nodes(embedded->nodes, label + "nodes.txt");
        if (!r) return fail(r.error());
        cluster = *r;
    } else if (!nodes_path.empty()) {
        auto text = config::read_text_file(nodes_path);
        if (!text) return fail(text.error());
        auto r = config::detect_maui_input(*text) == config::maui_input_kind::resource_trace
                     ? config::parse_maui_resource_trace(*text, nodes_path)
                     : config::parse_maui_nodes(*text, nodes_path);
        if (!r) return fail(r.error());
        cluster = *r;
    } else if (!conf_path.empty()) {
        auto conf = config::read_slurm_conf(conf_path);
        if (!conf) return fail(conf.error());
        cluster = config::maui_nodes_from(*conf);
    }
    const std::int64_t t = now ? *now : static_cast<std::int64_t>(std::time(nullptr));
    std::vector<config::maui_fs_window> windows;
    if (!fs_dir.empty()) {
        auto w = config::read_fs_dir(fs_dir, cfg->fs, t);
        if (!w) return fail(w.error());
        windows = std::move(*w);
    }
    auto model = config::build_maui_model(std::move(*cfg), *jobs, cluster, t, windows);
    if (!model) return fail(model.error());
    const auto ctx = model->context();
    const auto& w = model->cfg.weights;
    const auto rows = report::diagnose_rows(w, model->cfg.opts, std::span<const maui::job>(model->jobs), ctx, running);
    if (explain) {
        for (const auto& j : model->jobs)
            if (j.id == *explain) {
                o.out = report::render_diagnose_explain(model->engine(), j, ctx, model->cfg.opts);
                return o;
            }
        o.status = exit_data;
        o.err += "mfprio: " + jobs_path + ": job " + std::to_string(*explain) + " is not in the jobs table\n";
        return o;
    }
    if (running) o.out = report::render_diagnose(rows, w, report::diagnose_columns_for(w, ctx, running), running);
    else o.out = report::render_maui_diagnose(w, model->cfg.opts, std::span<const maui::job>(model->jobs), ctx,
                                              queue_order);
    if (check) return check_diagnose(std::move(o), from_dir, *model, checkjob);
    return o;
}

} // namespace mfprio::cli
