// `mfprio whatif`.
#include "whatif_commands.hpp"

namespace mfprio::cli {

/// `mfprio whatif ...`
outcome run_whatif(std::span<const std::string_view> args) {
    // A Flux bundle (its manifest lists flux_jobs.json or flux_jobs_table.txt): Flux's what-if.
    for (std::size_t i = 0; i + 1 < args.size(); ++i)
        if (args[i] == "--from" && std::find(args.begin(), args.end(), std::string_view("--help")) == args.end()) {
            auto listed = inputs::read_manifest_files(std::string(args[i + 1]));
            if (listed && std::any_of(listed->begin(), listed->end(), [](const auto& f) {
                    return f.first == inputs::flux_files::jobs_json || f.first == inputs::flux_files::jobs_table;
                }))
                return run_queue_from(args);
        }
    outcome o;
    whatif_request req;
    if (!parse_whatif_args(args, req, o)) return o;
    const auto usage = usage_reporter(o, "whatif");
    auto& [copt, changes, now, top, head, after_s, svg_path, site_policy, new_site_policy, json] = req;
    if (changes.empty() && new_site_policy.empty())
        return usage("nothing to compare: give at least one --set KEY=VALUE or --new-site-policy FILE");
    std::optional<queue::site_engine> site, new_site;
    for (auto [path, dst] : {std::pair{&site_policy, &site}, std::pair{&new_site_policy, &new_site}}) {
        if (path->empty()) continue;
        auto e = queue::load_site_policy_file(*path, queue::site_factors());
        if (!e) {
            o.status = exit_data;
            o.err += "mfprio: " + e.error().to_string() + "\n";
            return o;
        }
        *dst = std::move(*e);
    }
    copt.usage_factors = after_s.has_value(); // charging reads the QOS UsageFactor
    copt.sprio_listing = true;
    auto ci = gather_inputs(copt, true, "whatif", o);
    if (!ci) return o;
    bool bad_listing = false;
    const auto listing = sprio_listing_of(*ci, bad_listing, o);
    if (bad_listing) return o;
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
        else if (listing) (void)config::take_site_factors(present->model, *listing);
        placed = place_stored(present->model, present->fairshare_taken, times, listing ? &*listing : nullptr);
        const auto rows = sprio_rows_of(present->model, present->slurm_version, times, listing ? &*listing : nullptr);
        const report::sprio_weights w{present->model.weights, present->model.tres_weight_text};
        const auto diffs = listing ? report::compare_sprio(rows, w, *listing) : std::vector<report::sprio_difference>{};
        name_unexplained(*present, rows, placed, diffs, listing.has_value(), "whatif", o);
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
