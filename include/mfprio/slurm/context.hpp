#pragma once
/// \file
/// The evaluation context of Slurm's factors: everything beyond the job itself (the time of
/// the pass, cluster totals, the partition and QOS tables, per-association columns). It is a
/// set of views over tables the caller owns (see `slurm::cluster`), immutable during a pass.

#include <cstdint>
#include <span>

#include <mfprio/core/job.hpp>

namespace mfprio::slurm {

/// Slurm's normalization of an integer priority against the maximum, as its code does it:
/// `(double)value / (double)max`, 0 when the maximum is 0.
[[nodiscard]] constexpr double normalize_priority(std::uint32_t value, std::uint32_t max) noexcept {
    return max == 0 ? 0.0 : static_cast<double>(value) / static_cast<double>(max);
}

/// A partition as the factors see it (slurm.conf `PartitionName=` line).
struct partition_info {
    std::uint32_t priority_job_factor = 1;  ///< PriorityJobFactor (u16 in Slurm, default 1)
    double norm_priority = 1.0;             ///< PriorityJobFactor / max(1, max over partitions)
    std::uint32_t priority_tier = 1;        ///< PriorityTier (scheduling order, not priority)
    std::uint32_t max_time = infinite32;    ///< MaxTime in minutes; infinite32 = UNLIMITED
    std::span<const double> tres_totals;    ///< TRES counts of the partition by TRES id (global TRES system-wide)
};

/// A QOS as the factors see it (`sacctmgr show qos`).
struct qos_info {
    std::uint32_t priority = 0;  ///< QOS Priority
    double norm_priority = 0.0;  ///< Priority / max over all QOS (0 when that max is 0)
    double usage_factor = 1.0;   ///< UsageFactor (fair-share charging)
};

/// Everything Slurm's factors read besides the job.
struct context {
    std::int64_t now = 0;                 ///< the pass's start time (epoch seconds)
    std::uint32_t node_count = 0;         ///< nodes in the cluster (job size normalization)
    std::uint32_t cluster_cpus = 0;       ///< CPUs in the cluster (job size normalization)
    std::span<const partition_info> partitions;
    std::span<const qos_info> qos;
    std::span<const double> fairshare;             ///< fs_factor by association index
    std::span<const std::uint32_t> assoc_priority; ///< association Priority by association index
    std::span<const double> assoc_priority_norm;   ///< Priority / max over all associations

    /// The partition with index `p`, or nullptr if there is none.
    [[nodiscard]] constexpr const partition_info* partition(std::uint32_t p) const noexcept {
        return p < partitions.size() ? &partitions[p] : nullptr;
    }
    /// The QOS with index `q`, or nullptr if there is none.
    [[nodiscard]] constexpr const qos_info* qos_at(std::uint32_t q) const noexcept {
        return q < qos.size() ? &qos[q] : nullptr;
    }
};

} // namespace mfprio::slurm
