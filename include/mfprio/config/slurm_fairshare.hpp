#pragma once
/// \file
/// Fair-share for a Slurm model: when the association table carries RawUsage, the users'
/// fair-share factors are computed from RawShares and RawUsage with the algorithm slurm.conf
/// selects (or another one), replacing the table's FairShare column. Without RawUsage the
/// FairShare column stays the factor (what `sshare` printed is taken as is).

#include <cstdint>
#include <optional>
#include <string_view>

#include <mfprio/core/expected.hpp>
#include <mfprio/config/assoc_table.hpp>
#include <mfprio/config/fairshare_tree.hpp>
#include <mfprio/config/slurm_conf.hpp>
#include <mfprio/fairshare/compute.hpp>
#include <mfprio/slurm/cluster.hpp>

namespace mfprio::config {

/// The fair-share algorithm slurm.conf's PriorityFlags select: DEPTH_OBLIVIOUS, else classic
/// when FAIR_TREE is off (NO_FAIR_TREE), else Fair Tree; FairShareDampeningFactor.
[[nodiscard]] inline fairshare::options fairshare_options_of(const slurm_conf& conf) {
    fairshare::options o;
    if (conf.flags.has(slurm::priority_flag::depth_oblivious)) o.algo = fairshare::algorithm::depth_oblivious;
    else if (!conf.flags.has(slurm::priority_flag::fair_tree)) o.algo = fairshare::algorithm::classic;
    else o.algo = fairshare::algorithm::fair_tree;
    o.damping = conf.fairshare_dampening;
    return o;
}

/// Computes the users' fair-share factors from the association table's RawShares and
/// RawUsage and stores them in `cl` (whose associations are the table's rows, in order, as
/// `build_slurm_model` adds them). Returns false, changing nothing, when the table has no
/// RawUsage column. Errors come from the tree (e.g. a blank RawShares on a user row).
[[nodiscard]] inline expected<bool> apply_computed_fairshare(slurm::cluster& cl, const assoc_table& assoc,
                                                             const fairshare::options& o,
                                                             std::string_view assoc_file = "<string>") {
    if (!assoc.has_column("RawUsage")) return false;
    auto ft = fairshare_tree_from(assoc, assoc_file);
    if (!ft) return ft.error();
    fairshare::columns cols;
    fairshare::compute(ft->tree, cols, o);
    MFPRIO_ASSERT(cl.fairshare().size() == assoc.rows.size());
    for (std::uint32_t r = 0; r < assoc.rows.size(); ++r)
        cl.set_fairshare(r, assoc.rows[r].is_user() ? cols.fs_factor[ft->tree_index_of_row[r]] : 0.0);
    return true;
}

} // namespace mfprio::config
