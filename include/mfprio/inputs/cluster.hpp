#pragma once
// A cluster from its inputs: files read into cluster_inputs, then parsed and resolved into a
// config::parsed_cluster (slurm.conf, QOS, associations, jobs), then built into a model whose
// fair-share factors are taken from sshare's column or computed. What `mfprio sprio`,
// `sshare` and `whatif` do with --conf/--qos/--assoc/--jobs, --from DIR and --live, as
// library calls. Opt-in, as jobs_input.hpp (simdjson).

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <mfprio/read/jobs_table.hpp>
#include <mfprio/model/slurm_cluster.hpp>
#include <mfprio/model/slurm_model.hpp>
#include <mfprio/read/slurm_native.hpp>
#include <mfprio/core/expected.hpp>
#include <mfprio/inputs/bundle.hpp>
#include <mfprio/inputs/jobs_input.hpp>

namespace mfprio::inputs {

/// The files of a cluster, as paths ("-" is standard input).
struct cluster_files {
    std::vector<std::string> confs;  ///< slurm.conf-like texts, merged in order
    std::vector<std::string> assocs; ///< sshare / assoc_mgr / sacctmgr outputs, merged in order
    std::string qos;                 ///< `sacctmgr show qos -P`; empty: assoc_mgr's QOS
    std::string jobs;                ///< any jobs input (jobs_input_table); empty: none
};

/// Reads every file of `f` through the checked loader.
[[nodiscard]] inline expected<cluster_inputs> read_cluster_files(const cluster_files& f) {
    cluster_inputs ci;
    for (const auto* paths : {&f.confs, &f.assocs})
        for (const auto& p : *paths) {
            auto in = read_input(p);
            if (!in) return in.error();
            (paths == &f.confs ? ci.conf : ci.assoc).push_back(std::move(*in));
        }
    if (!f.qos.empty()) {
        auto in = read_input(f.qos);
        if (!in) return in.error();
        ci.qos = std::move(*in);
    }
    if (!f.jobs.empty()) {
        auto j = read_jobs_source(f.jobs);
        if (!j) return j.error();
        ci.jobs = std::move(*j);
    }
    return ci;
}

/// Reads and resolves a cluster's inputs: slurm.conf (merged), the QOS (sacctmgr's where
/// given, else slurmctld's assoc_mgr: no slurmdbd needed; it prints no UsageFactor, which
/// only charging usage reads), the associations (merged) and the jobs. `ci` must hold at
/// least one conf, one assoc and the jobs. The Slurm version is `ci`'s, else what the inputs
/// print.
[[nodiscard]] inline expected<config::parsed_cluster> parse_cluster(const cluster_inputs& ci) {
    if (ci.conf.empty() || ci.assoc.empty() || !ci.jobs)
        return text::file_error({}, {}, "a cluster needs a slurm.conf, the associations and the jobs",
                                error_kind::shape);
    config::parsed_cluster pc;
    pc.slurm_version = ci.slurm_version;
    pc.conf_name = ci.conf.front().name;
    pc.assoc_name = ci.assoc.front().name;
    std::string version;
    auto conf = config::read_slurm_conf_inputs(ci.conf, &version);
    if (!conf) return conf.error();
    if (pc.slurm_version.empty()) pc.slurm_version = version;
    auto qos = [&]() -> expected<config::qos_table> {
        if (ci.qos) return config::parse_qos_table(config::detail::without_bom(ci.qos->text), ci.qos->name);
        for (const auto& a : ci.assoc)
            if (config::detect_kind(a.text) == config::input_kind::assoc_mgr) return config::read_assoc_mgr_qos(a);
        return text::file_error(ci.assoc.front().name, "QOS",
                                "no QOS: give `sacctmgr show qos -P` output or `scontrol show assoc_mgr flags=assoc,qos`");
    }();
    if (!qos) return qos.error();
    auto assoc = config::read_assoc_inputs(ci.assoc);
    if (!assoc) return assoc.error();
    auto table = jobs_input_table(*ci.jobs, &version);
    if (!table) return table.error();
    if (pc.slurm_version.empty()) pc.slurm_version = version;
    auto jobs = config::jobs_table_from(*table, *conf, *qos, *assoc);
    if (!jobs) return jobs.error();
    pc.conf = std::move(*conf);
    pc.qos = std::move(*qos);
    pc.assoc = std::move(*assoc);
    pc.jobs = std::make_shared<const config::jobs_table>(std::move(*jobs));
    return pc;
}

/// A loaded cluster: the model and what the inputs said about the cluster.
struct loaded_cluster {
    config::slurm_model model;
    config::assoc_table assoc;
    config::slurm_conf conf;
    std::string slurm_version; ///< as the inputs print it ("22.05.8"), empty if unknown
    bool fairshare_taken = false;
};

/// Parses a cluster's inputs and builds its model, the fair-share factors taken or computed
/// as `fs` and config::fairshare_taken say. `cluster_output`: the inputs are what the
/// cluster printed (a bundle or --live), so that sshare's FairShare column is the cluster's.
[[nodiscard]] inline expected<loaded_cluster> load_cluster(const cluster_inputs& ci, config::fairshare_source fs,
                                                           bool cluster_output = false) {
    auto pc = parse_cluster(ci);
    if (!pc) return pc.error();
    const bool fair_tree = pc->conf.flags.has(slurm::priority_flag::fair_tree) &&
                           !pc->conf.flags.has(slurm::priority_flag::depth_oblivious);
    const bool taken = config::fairshare_taken(fs, cluster_output, ci.assoc, fair_tree, pc->conf, pc->assoc);
    auto model = config::build_cluster_model(*pc, taken);
    if (!model) return model.error();
    expected<loaded_cluster> lc(loaded_cluster{});
    lc->slurm_version = pc->slurm_version;
    lc->fairshare_taken = taken;
    lc->model = std::move(*model);
    lc->assoc = std::move(pc->assoc);
    lc->conf = std::move(pc->conf);
    return lc;
}

} // namespace mfprio::inputs
