#pragma once
/// \file
/// Slurm's TRES factors (`PriorityWeightTRES`, `NO_NORMAL_TRES`).

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <mfprio/core/assert.hpp>
#include <mfprio/core/job.hpp>
#include <mfprio/slurm/context.hpp>

namespace mfprio::slurm {

/// Slurm's fixed TRES ids (the first eight rows of its tres table); GRES, licenses and
/// burst buffers get ids from 8 on, in the order a cluster defines them.
namespace tres_id {
inline constexpr std::uint32_t cpu = 0, mem = 1, energy = 2, node = 3, billing = 4, fs_disk = 5,
                               vmem = 6, pages = 7, first_dynamic = 8;
} // namespace tres_id

/// One weighted TRES: its id and its (double, possibly negative) weight.
struct tres_weight_entry {
    std::uint32_t id = 0;
    double weight = 0.0;
};

/// The weighted sum of the job's TRES factors: for each weighted TRES i, the job's requested
/// count over the partition's count of that TRES (not clamped to 1), or the raw count under
/// NO_NORMAL_TRES, times its weight. A TRES the partition has none of contributes 0. The
/// weights are part of this policy, so its term takes a weight of 1. Sums run in TRES id
/// order, as Slurm's do.
struct tres_factor {
    static constexpr std::string_view name = "tres";
    static constexpr std::size_t max_weighted = 32; ///< most TRES a PriorityWeightTRES can weight

    std::array<tres_weight_entry, max_weighted> entries{}; ///< sorted by id
    std::uint32_t count = 0;
    bool normalize = true; ///< false = PriorityFlags NO_NORMAL_TRES

    /// Adds a weighted TRES, keeping the entries in id order. Returns false when full.
    constexpr bool add(std::uint32_t id, double weight) noexcept {
        if (count == max_weighted) return false;
        std::uint32_t k = count;
        while (k > 0 && entries[k - 1].id > id) {
            entries[k] = entries[k - 1];
            --k;
        }
        entries[k] = {id, weight};
        ++count;
        return true;
    }

    /// The unweighted factor of TRES entry `e` for the job's count `v` in partition `p`.
    [[nodiscard]] constexpr double factor_of(std::uint32_t id, double v, const partition_info* p) const noexcept {
        if (!normalize) return v;
        if (v == 0.0 || p == nullptr || id >= p->tres_totals.size() || p->tres_totals[id] == 0.0) return 0.0;
        return v / p->tres_totals[id];
    }

    /// Calls `fn(entry, factor, weighted)` for each weighted TRES, for partition index `part`.
    template <class J, class Fn>
        requires has_tres<J>
    constexpr void each(const J& j, std::uint32_t part, const context& c, Fn&& fn) const noexcept {
        const auto counts = job_traits<J>::tres(j);
        const partition_info* p = c.partition(part);
        for (std::uint32_t k = 0; k < count; ++k) {
            const auto& e = entries[k];
            const double v = e.id < counts.size() ? static_cast<double>(counts[e.id]) : 0.0;
            const double f = factor_of(e.id, v, p);
            fn(e, f, f * e.weight);
        }
    }

    /// The weighted TRES sum for partition index `part` (multi-partition jobs).
    template <class J>
        requires has_tres<J>
    [[nodiscard]] constexpr double for_partition(const J& j, std::uint32_t part, const context& c) const noexcept {
        double sum = 0.0;
        each(j, part, c, [&](const tres_weight_entry&, double, double weighted) noexcept { sum += weighted; });
        return sum;
    }

    template <class J>
        requires has_tres<J> && has_partition<J>
    [[nodiscard]] constexpr double operator()(const J& j, const context& c) const noexcept {
        if (count == 0) return 0.0;
        return for_partition(j, static_cast<std::uint32_t>(job_traits<J>::partition(j)), c);
    }
};

} // namespace mfprio::slurm
