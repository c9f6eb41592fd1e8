// `mfprio queue`: a runtime-configured engine over a jobs table.
#include "queue_commands.hpp"

#include <unordered_set>

namespace mfprio::cli {

/// `mfprio queue ...`
outcome run_queue(std::span<const std::string_view> args) {
    if ((std::find(args.begin(), args.end(), std::string_view("--from")) != args.end() ||
         std::find(args.begin(), args.end(), std::string_view("--live")) != args.end()) &&
        std::find(args.begin(), args.end(), std::string_view("--help")) == args.end())
        return run_queue_from(args);
    outcome o;
    std::string policy;
    detail::flux_table_paths paths;
    std::optional<std::int64_t> now;
    std::optional<std::uint32_t> explain;
    std::optional<fairshare::algorithm> algorithm;
    std::unordered_map<std::string, std::string> default_banks;
    const auto usage = usage_reporter(o, "queue");
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view a = args[i];
        if (help_or_unknown(o, "queue", a, queue_option_names, queue_help)) return o;
        if (a == "--check" || a == "--exact-products" || a == "--save" || a == "--force" || a == "--set" ||
            a == "--new-submissions" || a == "--next-update")
            return usage(std::string(a) + " goes with --from or --live");
        if (a == "--from" || !takes_value(queue_option_spellings, a)) return usage("unknown option '" + std::string(a) + "'");
        std::string error;
        const auto value = option_value(args, i, error);
        if (!value) return usage(error);
        const std::string_view v = *value;
        if (a == "--policy") policy = v;
        else if (a == "--jobs") paths.jobs = v;
        else if (a == "--assoc") paths.assoc = v;
        else if (a == "--queues") paths.queues = v;
        else if (a == "--banks") paths.banks = v;
        else if (a == "--conf") paths.conf = v;
        else if (a == "--qos") paths.qos = v;
        else if (a == "--default-bank") {
            const std::size_t eq = v.find('=');
            if (eq == std::string_view::npos || eq == 0 || eq + 1 == v.size())
                return usage("--default-bank takes USER=BANK, not '" + std::string(v) + "'");
            default_banks[std::string(v.substr(0, eq))] = std::string(v.substr(eq + 1));
        } else if (std::string error; common_value(a, v, now, explain, error)) {
            if (!error.empty()) return usage(error);
        } else {
            algorithm = fairshare::parse_algorithm(v);
            if (!algorithm) return usage("unknown algorithm '" + std::string(v) + "'");
        }
    }
    if (policy.empty() || paths.jobs.empty()) return usage("--policy and --jobs are required");
    if (paths.conf.empty() != paths.qos.empty()) return usage("--conf and --qos go together");
    if (!paths.conf.empty() && paths.assoc.empty()) return usage("--conf needs --assoc too");

    const auto fail = [&](const input_error& e) {
        o.status = exit_data;
        o.err += "mfprio: " + e.to_string() + "\n";
        return o;
    };
    // The engine: a preset by name, else a policy file.
    const auto reg = queue::builtin_registry();
    auto engine = reg.find_preset(policy) != nullptr ? queue::load_preset(policy, reg, flux::flux_result{})
                                                     : queue::load_policy_file(policy, reg, flux::flux_result{});
    if (!engine) return fail(engine.error());

    detail::flux_tables tables;
    if (auto e = tables.read(paths)) return fail(*e);
    tables.in.algorithm = algorithm;
    if (!default_banks.empty()) tables.in.default_banks = &default_banks;
    auto model = config::build_flux_model(tables.in);
    if (!model) return fail(model.error());
    const std::int64_t t = now ? *now : static_cast<std::int64_t>(std::time(nullptr));
    const auto ctx = model->context(t);

    if (explain) {
        for (const auto& j : model->jobs) {
            if (j.id != *explain) continue;
            o.out = detail::explain_policy_job(j, std::to_string(j.id), model->user_names[j.user], engine->explain(j, ctx));
            return o;
        }
        o.status = exit_data;
        o.err += "mfprio: " + paths.jobs + ": job " + std::to_string(*explain) + " is not in the jobs table\n";
        return o;
    }

    // Pending jobs only (held ones included: their priority is 0), in Flux's queue order.
    std::vector<flux::job> pending;
    for (const auto& j : model->jobs)
        if (j.state == job_state::pending || j.state == job_state::held) pending.push_back(j);
    std::vector<flux::priority_value> prio(pending.size());
    engine->batch(std::span<const flux::job>(pending), ctx, std::span<flux::priority_value>(prio));
    const auto order = flux::start_order(std::span<const flux::job>(pending), std::span<const flux::priority_value>(prio));

    o.out = detail::render_policy_queue(*engine, ctx, pending, prio, order, model->user_names);
    return o;
}

/// `mfprio queue --from/--live` over a bundle of mfprio's own plugin (mfprio_priority.so):
/// what it gives each pending job under the policy it reported (or `policy`), the queue or
/// --check against what Flux holds, or one job's terms (`explain`). The options of
/// flux-accounting's plugin (`accounting_options`) are a usage error.
outcome run_jobtap_twin(outcome o, const inputs::flux_bundle& b, const std::string& policy, bool check,
                        std::optional<std::uint64_t> explain, bool accounting_options) {
    if (accounting_options)
        return usage_reporter(o, "queue")("--set, --next-update, --new-submissions and --exact-products are for flux-accounting's "
                                          "plugin; " + b.dir + " holds mfprio_priority.so's priorities");
    const inputs::jobtap_report& r = *b.mfprio;
    auto engine = inputs::jobtap_engine(r, policy);
    if (!engine) {
        o.status = exit_data;
        o.err += "mfprio: " + engine.error().to_string() + "\n";
        return o;
    }
    if (!policy.empty()) {
        const auto text = config::jobtap_policy_text(policy);
        if (text && *text != r.policy_text)
            o.err += "mfprio queue: warning: mfprio_priority.so runs another policy than " + policy +
                     " (its text differs from the one flux jobtap query prints); the priorities below are " + policy + "'s\n";
    }
    if (!r.policy_error.empty())
        o.err += "mfprio queue: note: mfprio_priority.so refused the last change of its policy (" + r.policy_error +
                 "); the policy before it is in force\n";
    const config::jobtap_model model(r.inputs);
    const auto prio = inputs::jobtap_priorities(b.jobs, model, *engine);
    if (explain) {
        const auto k = std::find_if(b.jobs.begin(), b.jobs.end(), [&](const auto& j) { return j.id == *explain; });
        if (k == b.jobs.end() || !k->pending()) {
            o.status = exit_data;
            o.err += "mfprio queue: job " + flux_f58(*explain) + " is not among the pending jobs of the bundle\n";
            return o;
        }
        const flux::job j = model.job(inputs::jobtap_job_of(*k));
        o.out = detail::explain_policy_job(j, flux_f58(k->id), report::flux_user(*k), engine->explain(j, model.context())) +
                "  (at " + std::to_string(r.inputs.now) + ", mfprio_priority.so's last refresh)\n";
        return o;
    }
    if (!check) {
        o.out += report::render_flux_queue(b.jobs, config::flux_queue_order(b.jobs, prio), prio);
        return o;
    }
    const auto c = report::check_flux(b.jobs, prio, b.expected_order);
    o.out += c.text;
    if (c.differ != 0) o.status = 1;
    return o;
}

/// `queue --live`'s capture into `dir`, taken again (at most three times in all) while it does
/// not show one refresh of mfprio's plugin (jobtap_capture_settled).
bool capture_flux_settled(const std::string& dir, std::string& err, std::vector<std::pair<std::string, std::string>>& ran) {
    for (int attempt = 0;; ++attempt) {
        timespec t{};
        clock_gettime(CLOCK_REALTIME, &t);
        const double started = static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
        ran.clear();
        if (!capture_flux_live(dir, err, ran)) return false;
        if (jobtap_capture_settled(dir, started)) return true;
        if (attempt == 2) {
            err = "mfprio_priority.so refreshed during each of three captures (its period is too short for a capture?)";
            return false;
        }
    }
}

outcome run_queue_from(std::span<const std::string_view> args) {
    outcome o;
    std::string dir, save, policy;
    bool check = false, live = false, new_submissions = false, force = false, next_update = false;
    std::optional<std::uint64_t> explain;
    std::vector<std::pair<std::string, std::string>> changes;
    config::flux_plugin_options opt;
    const auto usage = usage_reporter(o, "queue");
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view a = args[i];
        if (help_or_unknown(o, "queue", a, queue_option_names, queue_help)) return o;
        if (a == "--check") check = true;
        else if (a == "--exact-products") opt.exact_products = true;
        else if (a == "--live") live = true;
        else if (a == "--force") force = true;
        else if (a == "--new-submissions") new_submissions = true;
        else if (a == "--next-update") next_update = true;
        else if (a == "--explain" || a == "--set" || a == "--from" || a == "--save" || a == "--policy") {
            std::string error;
            const auto value = option_value(args, i, error);
            if (!value) return usage(error);
            const std::string_view v = *value;
            if (a == "--explain") {
                explain = inputs::parse_flux_jobid(v);
                if (!explain || *explain == 0) return usage("--explain takes a Flux job id (f58 or decimal), not '" + std::string(v) + "'");
            } else if (a == "--set") {
                const std::size_t eq = v.find('=');
                if (eq == std::string_view::npos || eq == 0) return usage("--set takes KEY=VALUE, not '" + std::string(v) + "'");
                changes.emplace_back(std::string(text::trim(v.substr(0, eq))), std::string(text::trim(v.substr(eq + 1))));
            } else {
                (a == "--from" ? dir : a == "--save" ? save : policy) = v;
            }
        } else return usage("option " + std::string(a) + " does not go with --from or --live");
    }
    if (live == !dir.empty()) return usage("give --from DIR or --live");
    if (!save.empty() && !live) return usage("--save needs --live (a bundle is what --live captured)");
    if (force && save.empty()) return usage("--force goes with --save DIR");
    if (!save.empty())
        if (auto e = inputs::save_dir_error(save, force)) return usage(*e);
    if (new_submissions && changes.empty()) return usage("--new-submissions goes with --set");
    if (!changes.empty() && check) return usage("--check compares with what Flux printed; it does not go with --set");
    if (explain && (check || !changes.empty())) return usage("--explain goes with neither --check nor --set");
    if (next_update && (check || !changes.empty()))
        return usage("--next-update predicts what Flux has not computed yet: it goes with neither --check nor --set (--set predicts the next update too)");
    std::string scratch; // --live without --save: a bundle in a directory of its own, removed after
    std::vector<std::pair<std::string, std::string>> ran; // --live: each file's command line
    if (live) {
        if (save.empty()) {
            std::string t = std::filesystem::temp_directory_path().string() + "/mfprio-flux.XXXXXX";
            if (mkdtemp(t.data()) == nullptr) {
                o.status = exit_data;
                o.err += "mfprio queue --live: cannot make a temporary directory\n";
                return o;
            }
            scratch = save = t;
        }
        std::string err;
        if (!capture_flux_settled(save, err, ran)) {
            if (!scratch.empty()) std::filesystem::remove_all(scratch);
            o.status = exit_data;
            o.err += "mfprio queue --live: " + err + "\n";
            return o;
        }
        dir = save;
    }
    struct remove_scratch {
        std::string dir;
        ~remove_scratch() {
            std::error_code ec;
            if (!dir.empty()) std::filesystem::remove_all(dir, ec);
        }
    } cleanup{scratch};
    const auto fail = [&](input_error e) {
        // What a command printed into the scratch bundle is named by the command: the file
        // is gone when mfprio exits.
        if (!scratch.empty())
            for (const auto& [file, line] : ran)
                if (e.file == (std::filesystem::path(scratch) / file).string()) e.file = "`" + line + "` output";
        o.status = exit_data;
        o.err += "mfprio: " + e.to_string() + "\n";
        return o;
    };
    auto h = inputs::read_flux_history(dir);
    if (!h) return fail(h.error());
    const inputs::flux_bundle& b = h->latest;
    if (b.mfprio)
        return run_jobtap_twin(std::move(o), b, policy, check, explain,
                               !changes.empty() || next_update || opt.exact_products || new_submissions);
    if (!policy.empty())
        return usage("--policy with --from or --live is mfprio_priority.so's, not loaded in " + (live ? std::string("the instance") : dir));
    const inputs::flux_computed ours = inputs::compute_flux_priorities(*h, opt, next_update);
    o.err += report::flux_uncomputed_warnings(b.jobs, ours.priority);
    if (explain) {
        const auto k = std::find_if(b.jobs.begin(), b.jobs.end(), [&](const auto& j) { return j.id == *explain; });
        if (k == b.jobs.end()) {
            o.status = exit_data;
            o.err += "mfprio queue: job " + flux_f58(*explain) + " is not among the jobs of " + dir + "\n";
            return o;
        }
        const std::size_t idx = static_cast<std::size_t>(k - b.jobs.begin());
        o.out = explain_flux_job(*k, idx < ours.terms.size() ? ours.terms[idx] : std::nullopt, ours.priority[idx], b.plugin, opt);
        return o;
    }
    if (!changes.empty()) {
        if (!b.plugin || h->updates.empty())
            return usage("--set needs flux-accounting's plugin: " + dir + " holds flux-core's own priorities");
        const auto after = inputs::flux_whatif(*h, changes, opt, new_submissions);
        if (!after.error.empty()) return usage("--set " + after.error);
        o.out += report::render_flux_whatif(b.jobs, ours.priority, after.priority, changes, new_submissions);
        return o;
    }
    if (!check) {
        o.out += report::render_flux_queue(b.jobs, config::flux_queue_order(b.jobs, ours.priority), ours.priority);
        return o;
    }
    const auto c = report::check_flux(b.jobs, ours.priority, b.expected_order);
    o.out += c.text;
    if (c.differ != 0) o.status = 1;
    return o;
}

} // namespace mfprio::cli
