// `mfprio sshare` and `mfprio usage`.
#include "fairshare_commands.hpp"

namespace mfprio::cli {

/// `mfprio sshare ...`
outcome run_sshare(std::span<const std::string_view> args) {
    outcome o;
    cluster_options copt;
    report::sshare_options opt;
    std::optional<fairshare::algorithm> algo;
    std::optional<std::uint16_t> damping;
    const auto usage = usage_reporter(o, "sshare");
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view a = args[i];
        if (help_or_unknown(o, "sshare", a, sshare_option_names, sshare_help)) return o;
        std::string error;
        if (cluster_option(args, i, copt, error)) {
            if (!error.empty()) return usage(error);
            continue;
        }
        if (a == "-l" || a == "--long") opt.long_list = true;
        else if (a == "-p" || a == "--parsable") opt.parsable = 1;
        else if (a == "-P" || a == "--parsable2") opt.parsable = 2;
        else if (a == "-a" || a == "--all") opt.all = true;
        else if (a == "-U" || a == "--Users") opt.users_only = true;
        else if (a == "-m" || a == "--partition") opt.partitions = true;
        else if (a == "-n" || a == "-h" || a == "--noheader") opt.no_header = true;
        else if (takes_value(sshare_option_spellings, a)) {
            const auto v = option_value(args, i, error);
            if (!v) return usage(error);
            if (a == "-u" || a == "--users") opt.users = split_list(*v);
            else if (a == "-A" || a == "--accounts") opt.accounts = split_list(*v);
            else if (a == "-o" || a == "--format") opt.format = *v;
            else if (a == "--algorithm") {
                algo = fairshare::parse_algorithm(*v);
                if (!algo)
                    return usage("unknown algorithm '" + std::string(*v) + "' (" +
                                 std::string(algorithm_list_text.view()) + ")");
            } else {
                const auto d = config::parse_unsigned<std::uint16_t>(*v);
                if (!d || *d == 0) return usage("--damping takes an integer from 1 to 65535, not '" + std::string(*v) + "'");
                damping = *d;
            }
        } else {
            return usage("unknown option '" + std::string(a) + "'");
        }
    }
    auto ci = gather_inputs(copt, false, "sshare", o);
    if (!ci) return o;
    const auto fail = [&](const input_error& e) {
        o.status = exit_data;
        o.err = "mfprio: " + e.to_string() + "\n";
        return o;
    };
    std::string version;
    auto conf = config::read_slurm_conf_inputs(ci->conf, &version);
    if (!conf) return fail(conf.error());
    auto assoc = config::read_assoc_inputs(ci->assoc);
    if (!assoc) return fail(assoc.error());
    auto ft = config::fairshare_tree_from(*assoc, ci->assoc.front().name);
    if (!ft) return fail(ft.error());
    fairshare::options fo;
    fo = config::fairshare_options_of(*conf);
    if (algo) fo.algo = *algo;
    if (damping) fo.damping = *damping;
    // Taken or computed, as `mfprio sprio` decides; --algorithm and --damping ask for a
    // computation.
    const bool cluster_output = copt.live || !copt.from.empty();
    bool taken = config::fairshare_taken(copt.fs, cluster_output, ci->assoc, fo.algo == fairshare::algorithm::fair_tree,
                                 *conf, *assoc);
    if (algo || damping) taken = false;
    bool from_cluster = cluster_output;
    for (const auto& a : ci->assoc) from_cluster = from_cluster || config::detect_kind(a.text) == config::input_kind::assoc_mgr;
    if (taken && !assoc->has_column("FairShare"))
        return fail(text::file_error(ci->assoc.front().name, "FairShare",
                                     "no FairShare column to take the values from (sshare -a -l -P prints it)"));
    fairshare::columns cols;
    fairshare::compute(ft->tree, cols, fo);
    const report::sshare_reported rep = reported_of(*assoc, *ft, taken);
    if (from_cluster || taken) opt.reported = &rep;
    opt.fair_tree = fairshare::is_fair_tree_family(fo.algo);
    opt.slurm_version = config::slurm_version_number(ci->slurm_version.empty() ? version : ci->slurm_version);
    opt.tres_names = sshare_tres_names(*conf);
    opt.cluster = conf->cluster_name;
    if (const char* u = std::getenv("USER")) opt.caller = u;
    auto res = report::render_sshare(ft->tree, cols, opt);
    if (!res.error.empty()) return usage(res.error);
    o.out = std::move(res.text);
    return o;
}

/// `mfprio usage ...`
outcome run_usage(std::span<const std::string_view> args) {
    outcome o;
    std::string conf_path, qos_path, assoc_path, jobs_path;
    std::optional<std::int64_t> elapsed;
    std::string_view elapsed_text;
    std::int64_t start = 1767225600; // 2026-01-01T00:00:00Z
    std::optional<fairshare::algorithm> algo;
    const auto usage = usage_reporter(o, "usage");
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view a = args[i];
        if (help_or_unknown(o, "usage", a, usage_option_names, usage_help)) return o;
        std::string error;
        const auto value = option_value(args, i, error); // every option of usage takes a value
        if (!value) return usage(error);
        const std::string_view v = *value;
        if (a == "--conf") conf_path = v;
        else if (a == "--qos") qos_path = v;
        else if (a == "--assoc") assoc_path = v;
        else if (a == "--jobs") jobs_path = v;
        else if (a == "--elapsed") {
            elapsed_text = v;
            auto d = config::parse_slurm_time(v);
            if (!d || d->unlimited) return usage("--elapsed takes a Slurm time string (e.g. 7-0), not '" + std::string(v) + "'");
            elapsed = d->seconds;
        } else if (a == "--start") {
            auto t = parse_now(v);
            if (!t) return usage("--start takes epoch seconds or YYYY-MM-DDTHH:MM:SS, not '" + std::string(v) + "'");
            start = *t;
        } else if (a == "--algorithm") {
            algo = fairshare::parse_algorithm(v);
            if (!algo) return usage("unknown algorithm '" + std::string(v) + "'");
        } else {
            return usage("unknown option '" + std::string(a) + "'");
        }
    }
    if (conf_path.empty() || qos_path.empty() || assoc_path.empty() || jobs_path.empty() || !elapsed)
        return usage("--conf, --qos, --assoc, --jobs and --elapsed are required");
    const auto fail = [&](const input_error& e) {
        o.status = exit_data;
        o.err = "mfprio: " + e.to_string() + "\n";
        return o;
    };
    auto conf = config::read_slurm_conf(conf_path);
    if (!conf) return fail(conf.error());
    auto qos = config::read_qos_table(qos_path);
    if (!qos) return fail(qos.error());
    auto assoc = config::read_assoc_table(assoc_path);
    if (!assoc) return fail(assoc.error());
    auto jobs = config::read_jobs_table(jobs_path, *conf, *qos, *assoc);
    if (!jobs) return fail(jobs.error());
    auto ft = config::fairshare_tree_from(*assoc, assoc_path);
    if (!ft) return fail(ft.error());

    // The work is bounded, as every other input is (5 s of CPU at most on 1 MB of input).
    const auto cost = config::charge_cost_of(*ft, *conf, *jobs, *elapsed);
    if (cost.steps() > config::max_charge_steps)
        return usage("--elapsed " + std::string(elapsed_text) + " is " + std::to_string(cost.passes) +
                     " passes of PriorityCalcPeriod over " + std::to_string(ft->tree.size()) + " associations and " +
                     std::to_string(cost.running) + " running jobs, more than " + std::to_string(config::max_charge_steps) +
                     " steps; charge it in shorter periods, each output the next --assoc");
    config::charge_running_jobs(*ft, *conf, *qos, *jobs, start, *elapsed);
    if (auto e = config::usage_past_sshare(*ft, *assoc, assoc_path)) return fail(*e);

    fairshare::options fo = config::fairshare_options_of(*conf);
    if (algo) fo.algo = *algo;
    fairshare::columns cols;
    fairshare::compute(ft->tree, cols, fo);
    report::sshare_options opt;
    opt.long_list = true;
    opt.parsable = 2;
    opt.all = true;
    opt.fair_tree = fairshare::is_fair_tree_family(fo.algo);
    opt.tres_names = sshare_tres_names(*conf);
    auto res = report::render_sshare(ft->tree, cols, opt);
    o.out = std::move(res.text);
    return o;
}

} // namespace mfprio::cli
