#pragma once
/// \file
/// Slurm's partition factor (`PriorityWeightPartition`, partition `PriorityJobFactor`,
/// `NO_NORMAL_PART`).

#include <string_view>

#include <mfprio/core/job.hpp>
#include <mfprio/slurm/context.hpp>

namespace mfprio::slurm {

/// PriorityJobFactor over the largest PriorityJobFactor of all partitions (at least 1); the
/// raw PriorityJobFactor under NO_NORMAL_PART. A PriorityJobFactor of 0 adds nothing.
struct partition_factor {
    static constexpr std::string_view name = "partition";
    bool normalize = true; ///< false = PriorityFlags NO_NORMAL_PART

    /// The factor for partition index `p` (multi-partition jobs evaluate each partition).
    [[nodiscard]] constexpr double for_partition(std::uint32_t p, const context& c) const noexcept {
        const partition_info* part = c.partition(p);
        if (part == nullptr || part->priority_job_factor == 0) return 0.0;
        return normalize ? part->norm_priority : static_cast<double>(part->priority_job_factor);
    }

    template <class J>
        requires has_partition<J>
    [[nodiscard]] constexpr double operator()(const J& j, const context& c) const noexcept {
        return for_partition(static_cast<std::uint32_t>(job_traits<J>::partition(j)), c);
    }
};

} // namespace mfprio::slurm
