#pragma once
/// \file
/// From a Slurm cluster's parsed inputs to its model: where the users' fair-share factors come
/// from (sshare's FairShare column as the cluster computed it, or computed from RawShares and
/// RawUsage), Fair Tree's exact ranks restored from sshare's six decimals, and the release the
/// inputs print.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include <mfprio/read/assoc_table.hpp>
#include <mfprio/read/slurm_conf.hpp>
#include <mfprio/model/slurm_fairshare.hpp>
#include <mfprio/model/slurm_model.hpp>
#include <mfprio/read/slurm_native.hpp>
#include <mfprio/slurm/cluster.hpp>

namespace mfprio::config {

/// How the users' fair-share factors are obtained.
enum class fairshare_source {
    automatic, ///< `taken` for a cluster's own outputs (assoc_mgr given, --from, --live), else `computed` when RawUsage is there
    taken,     ///< sshare's FairShare column, as the cluster computed it (Fair Tree's rank/N restored exactly)
    computed,  ///< recomputed from RawShares and RawUsage with the algorithm slurm.conf selects
};

/// "22.05.8" -> 2205; 0 when unreadable.
[[nodiscard]] inline int slurm_version_number(std::string_view v) {
    const std::size_t dot = v.find('.');
    if (dot == std::string_view::npos) return 0;
    const auto major = parse_unsigned<unsigned>(v.substr(0, dot));
    std::string_view rest = v.substr(dot + 1);
    const auto minor = parse_unsigned<unsigned>(rest.substr(0, rest.find('.')));
    if (!major || !minor || *major > 99 || *minor > 99) return 0;
    return static_cast<int>(*major * 100 + *minor);
}

/// Under Fair Tree a user's factor is rank / (number of user associations) (Slurm's
/// fair_tree.c); sshare prints it with six decimals. The exact quotient is restored where the
/// printed value is within rounding of one.
inline void restore_fair_tree_ranks(slurm::cluster& cl, const assoc_table& assoc) {
    std::uint32_t users = 0;
    for (const auto& r : assoc.rows) users += r.is_user() ? 1 : 0;
    if (users == 0) return;
    for (std::uint32_t i = 0; i < assoc.rows.size(); ++i) {
        const auto& r = assoc.rows[i];
        if (!r.is_user() || !r.fairshare) continue;
        const double rank = std::nearbyint(*r.fairshare * users);
        const double exact = rank / static_cast<double>(users);
        if (std::fabs(exact - *r.fairshare) <= 5.000001e-7) cl.set_fairshare(i, exact);
    }
}

/// Whether the users' fair-share factors are taken from sshare's FairShare column rather than
/// computed. `automatic`: computed from files, as mfprio always did; for a cluster's own
/// outputs (assoc_mgr among the inputs, --live, --from) taken, because Fair Tree's factors are
/// rank / users (restored exactly from six decimals) and the classic and depth-oblivious ones
/// depend on usage digits no command prints. One case is computed: usage that does not decay
/// (PriorityDecayHalfLife=0) and does not grow (no running jobs' TRESRunMins) is whole
/// CPU-seconds, which assoc_mgr prints exactly, and recomputing gives Slurm's factors to the
/// bit. (With jobs running, slurmctld's classic columns trail its RawUsage.)
[[nodiscard]] inline bool fairshare_taken(fairshare_source fs, bool cluster_output,
                                          std::span<const conf_input> assoc_inputs, bool fair_tree,
                                          const slurm_conf& conf, const assoc_table& assoc) {
    if (fs != fairshare_source::automatic) return fs == fairshare_source::taken;
    bool assoc_mgr = false;
    for (const auto& a : assoc_inputs) assoc_mgr = assoc_mgr || detect_kind(a.text) == input_kind::assoc_mgr;
    if (!cluster_output && !assoc_mgr) return false;
    const bool exact_usage = assoc_mgr && conf.decay_half_life == 0 && !usage_accruing(assoc);
    return fair_tree || !exact_usage;
}

/// The model of a cluster's parsed inputs, its fair-share factors taken from the association
/// table's FairShare column (`taken`; Fair Tree's ranks restored) or computed where the table
/// has RawUsage (the algorithm slurm.conf selects), and the release its inputs print.
[[nodiscard]] inline expected<slurm_model> build_cluster_model(const parsed_cluster& pc, bool taken) {
    auto model = build_slurm_model(pc.conf, pc.qos, pc.assoc, *pc.jobs, pc.conf_name);
    if (!model) return model.error();
    if (taken) {
        if (!pc.assoc.has_column("FairShare"))
            return text::file_error(pc.assoc_name, "FairShare",
                                    "no FairShare column to take the factors from (sshare -a -l -P prints it)");
        if (pc.conf.flags.has(slurm::priority_flag::fair_tree) && !pc.conf.flags.has(slurm::priority_flag::depth_oblivious))
            restore_fair_tree_ranks(model->cluster, pc.assoc);
    } else {
        // With RawUsage in the association table, fair-share is computed (the algorithm
        // slurm.conf selects) instead of taken from its FairShare column.
        auto computed = apply_computed_fairshare(model->cluster, pc.assoc, fairshare_options_of(pc.conf), pc.assoc_name);
        if (!computed) return computed.error();
    }
    model->settings.slurm_release = slurm_version_number(pc.slurm_version);
    return model;
}

/// The cluster `seconds` after `now`: the usage in `pc`'s association table (its RawUsage
/// column) decayed and charged by the running jobs as config::charge_running_jobs does, so
/// that fair-share computed from it is the cluster's then.
[[nodiscard]] inline std::optional<input_error> charge_cluster(parsed_cluster& pc, std::int64_t now, std::int64_t seconds) {
    if (!pc.assoc.has_column("RawUsage"))
        return text::file_error(pc.assoc_name, "RawUsage",
                                "each association's RawUsage is needed to charge usage (sshare -a -l -P prints it)",
                                error_kind::shape);
    auto ft = fairshare_tree_from(pc.assoc, pc.assoc_name);
    if (!ft) return ft.error();
    charge_running_jobs(*ft, pc.conf, pc.qos, *pc.jobs, now, seconds);
    for (std::size_t row = 0; row < pc.assoc.rows.size(); ++row)
        pc.assoc.rows[row].raw_usage = static_cast<double>(ft->tree.usage_raw[ft->tree_index_of_row[row]]);
    return std::nullopt;
}

} // namespace mfprio::config
