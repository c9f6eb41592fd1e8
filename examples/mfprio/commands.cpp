// `mfprio sprio` and `mfprio lint`.
#include "commands.hpp"

namespace mfprio::cli {

namespace {

/// `--site-snapshot` (the fair-share the plugin's snapshot holds) and `--site-policy` (each
/// job's SITE as site_factor/mfprio computes it) taken into `lc`; false with `o` filled when
/// either does not read.
bool site_inputs_taken(const std::string& site_snapshot, const std::string& site_policy, const sprio_times& times,
                       loaded_cluster& lc, outcome& o) {
    std::optional<config::site_snapshot> snapshot;
    if (!site_snapshot.empty()) {
        bool failed = false;
        snapshot = read_site_snapshot(site_snapshot, times.calc, lc.conf.calc_period, failed, o);
        if (failed) return false;
    }
    if (snapshot && !snapshot_fairshare_taken(lc, *snapshot, site_snapshot, o)) return false;
    if (site_policy.empty()) return true;
    auto site = queue::load_site_policy_file(site_policy, queue::site_factors());
    if (!site) {
        o.status = exit_data;
        o.err += "mfprio: " + site.error().to_string() + "\n";
        return false;
    }
    // Without the plugin's snapshot, its update is taken to run at the recalculation's
    // start (it runs within the same pass, usually the same second).
    const auto now_gpu = gpu_minutes_of(lc.assoc);
    const auto pass_gpu = snapshot ? config::snapshot_gpu_minutes(*snapshot, lc.assoc)
                                   : std::vector<std::optional<std::uint64_t>>{};
    apply_site_policy(*site, lc.model, snapshot ? snapshot->pass : times.calc, now_gpu, pass_gpu);
    return true;
}

} // namespace

/// `mfprio sprio ...`
outcome run_sprio(std::span<const std::string_view> args, const slurm_sources* embedded) {
    outcome o;
    cluster_options copt;
    report::sprio_options opt;
    std::optional<std::int64_t> now;
    std::optional<std::uint32_t> explain;
    std::string site_policy, site_snapshot;
    bool verify = false;
    const auto usage = usage_reporter(o, "sprio");
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view a = args[i];
        if (help_or_unknown(o, "sprio", a, sprio_option_names, sprio_help)) return o;
        std::string error;
        if (cluster_option(args, i, copt, error)) {
            if (!error.empty()) return usage(error);
            continue;
        }
        if (a == "-l" || a == "--long") opt.long_list = true;
        else if (a == "-n" || a == "--norm") opt.normalized = true;
        else if (a == "-w" || a == "--weights") opt.weights = true;
        else if (a == "-h" || a == "--noheader") opt.no_header = true;
        else if (a == "--verify") verify = true;
        else if (takes_value(sprio_option_spellings, a)) {
            const auto v = option_value(args, i, error);
            if (!v) return usage(error);
            if (a == "--site-policy") site_policy = *v;
            else if (a == "--site-snapshot") site_snapshot = *v;
            else if (a == "--now") {
                now = parse_now(*v);
                if (!now)
                    return usage("--now takes epoch seconds or YYYY-MM-DDTHH:MM:SS from 1970 to 9999, not '" +
                                 std::string(*v) + "'");
            } else if (a == "-o" || a == "--format") opt.format = *v;
            else if (a == "-S" || a == "--sort") opt.sort = *v;
            else if (a == "-u" || a == "--user") opt.users = split_list(*v);
            else if (a == "-p" || a == "--partition") opt.partitions = split_list(*v);
            else if (a == "-j" || a == "--jobs-ids" || a == "--explain") {
                std::vector<std::uint32_t> ids;
                if (auto e = parse_job_ids(*v, ids)) return usage(*e);
                if (a != "--explain") opt.jobs.insert(opt.jobs.end(), ids.begin(), ids.end());
                else if (!ids.empty()) explain = ids.back();
            }
        } else if (a.starts_with("--format=")) opt.format = a.substr(9);
        else return usage("unknown option '" + std::string(a) + "'");
    }
    if (opt.long_list && !opt.format.empty()) return usage("-l and -o cannot be used together");
    copt.sprio_listing = true;
    std::optional<cluster_inputs> ci;
    // sprio's own listing is read while the other outputs are awaited (--live) or read.
    // (Declared after `ci`: destroyed first, waiting for a read of ci's text to end.)
    std::future<expected<config::sprio_listing>> listing_read;
    copt.sprio_done = [&listing_read](const std::string& text) { listing_read = sprio_listing_reader(text); };
    if (embedded != nullptr) ci = inputs_of(*embedded, o);
    else ci = gather_inputs(copt, true, "sprio", o);
    if (!ci) return o;
    if (!listing_read.valid()) listing_read = sprio_listing_reader(*ci);
    auto lc = load_cluster(*ci, copt.fs, o, copt.live || !copt.from.empty());
    if (!lc) return o;
    opt.slurm_version = config::slurm_version_number(lc->slurm_version);
    const sprio_times times = times_of(*ci, now);
    if (!site_inputs_taken(site_snapshot, site_policy, times, *lc, o)) return o;
    bool bad_listing = false;
    const auto listing = sprio_listing_of(*ci, bad_listing, o, &listing_read);
    if (bad_listing) return o;
    // Without a policy, each job's SITE is what slurmctld holds, where sprio printed it.
    if (listing && site_policy.empty()) (void)config::take_site_factors(lc->model, *listing);
    const std::vector<job> unplaced = lc->model.jobs; // before their stored priorities are placed
    auto placed = place_stored(lc->model, lc->fairshare_taken, times, listing ? &*listing : nullptr);
    const auto& model = lc->model;
    if (copt.live && !now && !ci->calc_time)
        o.err += "mfprio sprio: warning: the time of slurmctld's last priority recalculation is unknown "
                 "(StateSaveLocation/priority_last_decay_ran is not readable here); the factors are computed "
                 "for now, sprio shows them as of that recalculation (at most PriorityCalcPeriod ago)\n";
    auto rows = sprio_rows_of(lc->model, lc->slurm_version, times, listing ? &*listing : nullptr);
    const report::sprio_weights w{model.weights, model.tres_weight_text};
    // The text is rendered on a second thread while the rows are compared with sprio's own
    // (both only read them); where the rows change below, it is rendered again.
    std::future<report::sprio_output> rendered;
    if (listing && !verify && !explain)
        rendered = std::async(std::launch::async, [&rows, &w, &opt] { return report::render_sprio(rows, w, opt); });
    auto diffs = listing ? report::compare_sprio(rows, w, *listing) : std::vector<report::sprio_difference>{};
    // The priorities slurmctld stores: `rows`, but for the PARTITION term of a job in several
    // partitions in the window after a reconfigure (below).
    std::optional<std::vector<report::sprio_row>> stored_rows;
    if (listing && !diffs.empty() && times.from_cluster) {
        if (rendered.valid()) rendered.wait(); // done with `rows` before they may change
        if (held_weights(*lc, unplaced, rows, w, *listing, *ci, times, "sprio", o)) {
            rendered = {};
            placed = place_stored(lc->model, lc->fairshare_taken, times, &*listing);
            stored_rows = sprio_rows_of(lc->model, lc->slurm_version, times, &*listing);
            rows = sprio_rows_after_reconfigure(*stored_rows, rows);
            diffs = report::compare_sprio(rows, w, *listing);
        }
    }
    const auto& stored = stored_rows ? *stored_rows : rows;
    name_unexplained(*lc, stored, placed, diffs, listing.has_value(), "sprio", o);
    if (verify) {
        verify_priorities(*lc, stored, placed, diffs, listing.has_value(), o);
        return o;
    }
    if (explain) {
        explain_sprio_job(rows, w, model, ci->jobs ? ci->jobs->name : std::string("the jobs input"), *explain, o);
        return o;
    }
    auto res = rendered.valid() ? rendered.get() : report::render_sprio(rows, w, opt);
    if (!res.error.empty()) return usage(res.error);
    for (const auto& w : res.warnings) o.err += "sprio: error: " + w + "\n"; // as sprio logs it, exit 0
    o.out = std::move(res.text);
    return o;
}

/// `mfprio lint ...`
outcome run_lint(std::span<const std::string_view> args) {
    outcome o;
    std::string conf_path, assoc_path, maui_path, site_path;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (help_or_unknown(o, "lint", args[i], lint_option_names, lint_help)) return o;
        const std::string_view a = args[i];
        std::string error;
        const auto v = option_value(args, i, error); // every option of lint takes a value
        if (!v) {
            usage_error(o, "lint", error);
            return o;
        }
        (a == "--conf" ? conf_path : a == "--assoc" ? assoc_path : a == "--maui-cfg" ? maui_path : site_path) = *v;
    }
    if (!site_path.empty()) {
        if (!conf_path.empty() || !assoc_path.empty() || !maui_path.empty()) {
            o.status = exit_usage;
            o.err = "mfprio lint: give --site-policy alone\nTry 'mfprio lint --help'.\n";
            return o;
        }
        auto site = queue::load_site_policy_file(site_path, queue::site_factors());
        if (!site) {
            o.status = exit_data;
            o.err = "mfprio: " + site.error().to_string() + "\n";
            return o;
        }
        std::string terms;
        for (const auto& name : site->names()) terms += (terms.empty() ? "" : ", ") + std::string(name);
        o.out = "ok: " + site_path + ": " + terms + "\n";
        return o;
    }
    if (!maui_path.empty()) {
        if (!conf_path.empty() || !assoc_path.empty()) {
            o.status = exit_usage;
            o.err = "mfprio lint: give --maui-cfg alone, or --conf [--assoc]\nTry 'mfprio lint --help'.\n";
            return o;
        }
        return run_lint_maui(maui_path);
    }
    if (conf_path.empty()) {
        o.status = exit_usage;
        o.err = "mfprio lint: --conf, --maui-cfg or --site-policy is required\nTry 'mfprio lint --help'.\n";
        return o;
    }
    auto conf = config::read_slurm_conf(conf_path);
    if (!conf) {
        o.status = exit_data;
        o.err = "mfprio: " + conf.error().to_string() + "\n";
        return o;
    }
    auto text = config::read_text_file(conf_path);
    auto r = report::lint_slurm_conf(*conf, text ? std::string_view(*text) : std::string_view(), conf_path);
    const auto print = [&] {
        for (const auto& line : r.lines) o.out += line + "\n";
        r.lines.clear();
    };
    print();
    if (!assoc_path.empty()) {
        auto assoc = config::read_assoc_table(assoc_path);
        if (!assoc) {
            o.status = exit_data;
            o.err = "mfprio: " + assoc.error().to_string() + "\n";
            return o;
        }
        report::lint_fair_tree_steps(*conf, *assoc, r);
        print();
    }
    if (r.warnings != 0) o.status = 1;
    return o;
}

} // namespace mfprio::cli
