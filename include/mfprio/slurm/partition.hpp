#pragma once
/// \file
/// Slurm's partition factor (`PriorityWeightPartition`, partition `PriorityJobFactor`,
/// `NO_NORMAL_PART`).

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include <mfprio/core/job.hpp>
#include <mfprio/slurm/context.hpp>
#include <mfprio/slurm/lookup_table.hpp>

namespace mfprio::slurm {

/// PriorityJobFactor over the largest PriorityJobFactor of all partitions (at least 1); the
/// raw PriorityJobFactor under NO_NORMAL_PART. A PriorityJobFactor of 0 adds nothing.
struct partition_factor {
    static constexpr std::string_view name = "partition";
    bool normalize = true; ///< false = PriorityFlags NO_NORMAL_PART

    /// The factor for partition index `p` (multi-partition jobs evaluate each partition).
    [[nodiscard]] constexpr double for_partition(std::uint32_t p, const context& c) const noexcept {
        const partition_info* part = c.partition(p);
        if (part == nullptr) return 0.0;
        const double v = normalize ? part->norm_priority : static_cast<double>(part->priority_job_factor);
        return part->priority_job_factor == 0 ? 0.0 : v;
    }

    template <class J>
        requires has_partition<J>
    [[nodiscard]] constexpr double operator()(const J& j, const context& c) const noexcept {
        return for_partition(static_cast<std::uint32_t>(job_traits<J>::partition(j)), c);
    }

    /// Most partitions `prepare` lays out.
    static constexpr std::size_t table_limit = lookup_table::limit;
    /// Every partition's factor, laid out once per batch for `block`.
    using factor_table = lookup_table;

    [[nodiscard]] constexpr factor_table prepare(const context& c) const noexcept {
        return lookup_table::make(c.partitions.size(), [&](std::uint32_t i) noexcept { return for_partition(i, c); });
    }

    /// The factor of each job of a block into `out`, exactly as the call operator: a lookup
    /// in the laid-out table.
    template <class J, std::size_t N>
        requires has_partition<J> && (N != std::dynamic_extent)
    constexpr void block(const factor_table& t, std::span<const J, N> jobs, const context& c,
                         std::span<double, N> out) const noexcept {
        if (!t.usable) {
            for (std::size_t i = 0; i < N; ++i) out[i] = (*this)(jobs[i], c);
            return;
        }
        for (std::size_t i = 0; i < N; ++i) {
            const auto p = static_cast<std::uint32_t>(job_traits<J>::partition(jobs[i]));
            out[i] = t.at(p);
        }
    }
};

} // namespace mfprio::slurm
