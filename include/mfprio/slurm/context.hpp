#pragma once
/// \file
/// The evaluation context of Slurm's factors: everything beyond the job itself (the time of
/// the pass, cluster totals, the partition and QOS tables, per-association columns). It is a
/// set of views over tables the caller owns (see `slurm::cluster`), immutable during a pass.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>

#include <mfprio/core/job.hpp>

namespace mfprio::slurm {

namespace detail {
/// All ones when `b`, else all zeros: a mask that selects without a branch.
[[nodiscard]] constexpr std::uint64_t mask_if(bool b) noexcept { return -static_cast<std::uint64_t>(b); }
} // namespace detail

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

/// The jobs' requested TRES counts: a row-major table with one row per job (the job's
/// `tres_row`) and `stride` doubles per row. By default column k holds TRES id k. A table may
/// keep only the TRES it needs (e.g. the weighted ones) and say where each is with
/// `columns`, the column of each TRES id (`no_column`: none). A TRES without a column, and a
/// row past the end of the table (`no_tres_row`), count 0. Memory is in MB, as Slurm counts.
struct tres_table {
    std::span<const double> counts{};         ///< rows x stride counts, row-major
    std::uint32_t stride = 0;                 ///< doubles per row
    std::span<const std::uint32_t> columns{}; ///< column of each TRES id; empty: TRES id k is column k

    /// Sentinel column: the TRES has none.
    static constexpr std::uint32_t no_column = 0xffffffffu;

    /// Number of rows.
    [[nodiscard]] constexpr std::size_t rows() const noexcept { return stride == 0 ? 0 : counts.size() / stride; }
    /// The counts of row `r`, or nullptr when there is no such row. (No division: (r + 1) x
    /// stride < 2^64 for 32-bit r and stride.)
    [[nodiscard]] constexpr const double* row(std::uint32_t r) const noexcept {
        const std::uint64_t end = (std::uint64_t{r} + 1) * stride;
        return stride != 0 && end <= counts.size() ? counts.data() + static_cast<std::size_t>(end - stride) : nullptr;
    }
    /// The column holding TRES `id`, or `no_column`.
    [[nodiscard]] constexpr std::uint32_t column_of(std::uint32_t id) const noexcept {
        const std::uint32_t k = columns.empty() ? id : (id < columns.size() ? columns[id] : no_column);
        return k < stride ? k : no_column;
    }
    /// Row `r`'s count of TRES `id` (0 when the table has no such row or column).
    [[nodiscard]] constexpr double count(std::uint32_t r, std::uint32_t id) const noexcept {
        const double* p = row(r);
        const std::uint32_t k = column_of(id);
        return p != nullptr && k != no_column ? p[k] : 0.0;
    }
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
    tres_table tres_requests{};                    ///< the jobs' requested TRES, by `tres_row`

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
