#pragma once
/// \file
/// Where Slurm releases differ in what mfprio reproduces: one row per difference, naming the
/// first release that behaves the newer way and where the sources show it. Releases are
/// major*100+minor (2205 for 22.05); 0 stands for an unknown release and means the newest.

#include <cstddef>
#include <string_view>

namespace mfprio::slurm {

/// A behaviour that changed between Slurm releases.
enum class release_change : unsigned char {
    /// sprio -l gained the ACCOUNT and QOSNAME columns, and -n prints an administrator-set
    /// job's factors as blank rather than 0.0000000.
    sprio_long_columns,
    /// PriorityFavorSmall: a job asking for more nodes than the cluster has gets a node term
    /// of 0 (the N > n test) instead of one wrapped in uint32 arithmetic.
    favor_small_node_test,
    /// A job in several partitions with a priority set by an administrator: each sprio row
    /// shows that priority and every factor 0, as for a job in one partition. Before, the rows
    /// showed the factors slurmctld cleared (SITE and NICE -2147483648, the partition term as
    /// the priority). (In every release each row copies the job record's factors and
    /// recomputes its partition's TRES factors, so a TRES its partition has none of keeps the
    /// record partition's weighted factor, weighted again: report::sprio_rows'
    /// `record_partitions`.)
    sprio_rows_per_partition,
    /// sshare's FairShare column: blank for account rows under NO_FAIR_TREE as under Fair Tree,
    /// the user rows printing slurmctld's fs_factor; before, sshare computed the classic
    /// factor of every row, accounts included, from its effective usage and shares.
    sshare_fairshare_users_only,
};

/// One row of release_changes.
struct release_change_row {
    release_change change;
    int since;                ///< the first release with the newer behaviour
    std::string_view source;  ///< where the sources show it (the newer release's, then the older's)
};

/// Every difference, in the order of release_change.
inline constexpr release_change_row release_changes[] = {
    {release_change::sprio_long_columns, 2302,
     "src/sprio/sprio.c, the long formats (%.8o and %.10n; 22.05: neither); src/sprio/print.c, the normalized fields"},
    {release_change::favor_small_node_test, 2302,
     "priority_multifactor.c _get_priority_internal: `if (node_count > min_nodes)` before node_count - min_nodes "
     "(22.05: the subtraction alone)"},
    {release_change::sprio_rows_per_partition, 2302,
     "priority_multifactor.c _create_prio_list_qos: `if (job_ptr->direct_set_prio)` for each row; 22.05: "
     "_filter_job tests it only for a job in one partition"},
    {release_change::sshare_fairshare_users_only, 2511,
     "src/sshare/process.c, PRINT_FSFACTOR: `share->user ? share->fs_factor : NO_VAL64` (25.05: "
     "priority_g_calc_fs_factor for every row unless PRIORITY_FLAGS_FAIR_TREE)"},
};

/// True when `release` behaves the newer way for `c`.
[[nodiscard]] constexpr bool has(int release, release_change c) noexcept {
    for (const release_change_row& r : release_changes)
        if (r.change == c) return release == 0 || release >= r.since;
    return true;
}

static_assert([] {
    for (std::size_t i = 0; i < std::size(release_changes); ++i)
        if (static_cast<std::size_t>(release_changes[i].change) != i) return false;
    return true;
}(), "release_changes holds every release_change, in order");

} // namespace mfprio::slurm
