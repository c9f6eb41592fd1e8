// `mfprio diagnose`: Maui 3.3's diagnose -p.
#include "maui_commands.hpp"

namespace mfprio::cli {

/// `mfprio diagnose ...`; with `embedded`, the texts replace --maui-cfg, --jobs and --nodes.
outcome run_diagnose(std::span<const std::string_view> args, const maui_sources* embedded) {
    outcome o;
    maui_paths paths;
    auto& [cfg_path, jobs_path, nodes_path, conf_path, fs_dir, stats_path, showq_path, from_dir] = paths;
    bool check = false;
    std::optional<std::int64_t> now;
    std::optional<std::uint32_t> explain;
    bool running = false;
    maui_forms forms;
    const auto usage = usage_reporter(o, "diagnose");
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view a = args[i];
        if (help_or_unknown(o, "diagnose", a, diagnose_option_names, diagnose_help)) return o;
        if (a == "--running") {
            running = true;
            continue;
        }
        if (a == "--check") {
            check = true;
            continue;
        }
        if (!takes_value(diagnose_option_spellings, a)) return usage("unknown option '" + std::string(a) + "'");
        std::string error;
        const auto value = option_value(args, i, error);
        if (!value) return usage(error);
        const std::string_view v = *value;
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
        } else if (auto e = forms.set(a, v)) {
            return usage(*e);
        }
    }
    if (!from_dir.empty())
        if (auto e = paths.pick_capture_files(now.has_value())) return usage(*e);
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
    // A capture's files (--from) are read as regular files only: a FIFO there would wait for a
    // writer forever (the readers take pipes where a user names one, as --jobs -).
    if (!from_dir.empty())
        for (const std::string* p : {&cfg_path, &jobs_path, &nodes_path, &stats_path, &showq_path})
            if (!p->empty() && p->starts_with((std::filesystem::path(from_dir) / "").string()))
                if (const auto e = config::not_regular_file_error(*p)) return fail(*e);
    const std::string label = embedded ? std::string(embedded->name) + "/" : std::string();
    auto cfg = embedded ? config::parse_maui_cfg(embedded->cfg, label + "maui.cfg") : config::read_maui_cfg(cfg_path);
    if (!cfg) return fail(cfg.error());
    for (const auto& w : cfg->warnings) o.err += "mfprio: warning: " + w.to_string() + "\n";
    forms.apply(*cfg);
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
    auto jobs = embedded ? config::parse_maui_jobs(embedded->jobs, label + "jobs.txt") : read_maui_jobs_input(jobs_path, now, checkjob);
    if (!jobs) return fail(jobs.error());
    auto cluster = embedded ? config::parse_maui_nodes(embedded->nodes, label + "nodes.txt") : read_maui_resources(paths);
    if (!cluster) return fail(cluster.error());
    const std::int64_t t = now ? *now : static_cast<std::int64_t>(std::time(nullptr));
    std::vector<config::maui_fs_window> windows;
    if (!fs_dir.empty()) {
        auto w = config::read_fs_dir(fs_dir, cfg->fs, t);
        if (!w) return fail(w.error());
        windows = std::move(*w);
    }
    auto model = config::build_maui_model(std::move(*cfg), *jobs, *cluster, t, windows);
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
