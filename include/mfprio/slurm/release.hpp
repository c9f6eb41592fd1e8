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
    /// A job in several partitions: each sprio row is built afresh for its partition. Before,
    /// a row copied the factors of the job record (its weighted TRES factors of the record's
    /// partition, weighted again where the row's partition has none of a TRES) and an
    /// administrator-set priority did not make the rows show it (the factors slurmctld cleared,
    /// SITE and NICE -2147483648, the partition term as the priority).
    sprio_rows_per_partition,
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
     "priority_multifactor.c _create_prio_list_qos (23.02 to 26.05: direct_set_prio tested per row, "
     "_get_tres_factors per partition); 22.05: _filter_job copies job_ptr->prio_factors for each partition"},
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
