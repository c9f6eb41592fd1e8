// `mfprio demo`: the seeds' clusters through sprio and diagnose.
#include "demo.hpp"

namespace mfprio::cli {

outcome run_demo_sprio(const demo_cluster& d, std::vector<std::string_view> extra) {
    slurm_sources src;
    src.texts = d.texts.data();
    src.name = d.name;
    std::vector<std::string_view> args{"--now", demo_now};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_sprio(args, &src);
}

outcome run_demo_diagnose(std::vector<std::string_view> extra) {
    static constexpr maui_sources src{maui_cfg, maui_jobs, maui_nodes, "maui"};
    std::vector<std::string_view> args{"--now", demo_now};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_diagnose(args, &src);
}

/// `mfprio demo`
outcome run_demo(std::span<const std::string_view> args) {
    outcome o;
    if (!args.empty()) {
        if (args[0] == "--help") {
            o.out = demo_help;
            return o;
        }
        if (args[0].starts_with("-")) return unknown_option("demo", args[0], demo_option_names, demo_help);
        o.status = exit_usage;
        o.err = "mfprio demo: takes no arguments\nusage: mfprio demo\nTry 'mfprio demo --help'.\n";
        return o;
    }
    for (const auto& d : demo_clusters) {
        o.out += "== " + std::string(d.title) + "\n\n$ mfprio sprio -l\n";
        auto s = run_demo_sprio(d, {"-l"});
        o.out += s.out;
        o.err += s.err;
        if (s.status != exit_ok) o.status = s.status;
        o.out += "\n$ mfprio sprio --explain " + std::string(d.explain_job) + "\n";
        auto e = run_demo_sprio(d, {"--explain", d.explain_job});
        o.out += e.out + "\n";
        o.err += e.err;
        if (e.status != exit_ok) o.status = e.status;
    }
    o.out += "== Seed 002: Maui (credential priorities, XFACTOR, QOS QTWEIGHT, queue time)\n\n$ mfprio diagnose\n";
    auto m = run_demo_diagnose({});
    o.out += m.out + "\n$ mfprio diagnose --explain 4\n";
    o.err += m.err;
    if (m.status != exit_ok) o.status = m.status;
    auto me = run_demo_diagnose({"--explain", "4"});
    o.out += me.out;
    o.err += me.err;
    if (me.status != exit_ok) o.status = me.status;
    return o;
}

} // namespace mfprio::cli
