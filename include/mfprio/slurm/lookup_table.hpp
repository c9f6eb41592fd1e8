#pragma once
/// \file
/// A factor's value for every entry of a small table (partitions, QOS), laid out once per
/// batch so that a block of jobs is evaluated by lookups. Shared by the partition and QOS
/// factors' block hooks.

#include <cstddef>
#include <cstdint>

namespace mfprio::slurm {

/// Values of a factor by index, plus one last entry for an unknown index (its value for an
/// index past the table, 0 for Slurm's factors). `usable` is false when the table has more
/// entries than `limit`: callers then evaluate job by job.
struct lookup_table {
    static constexpr std::size_t limit = 256; ///< most entries laid out
    bool usable = false;
    std::uint32_t count = 0;
    double value[limit + 1];

    /// Lays out `f(i)` for i in [0, n], the last one being the unknown index's value.
    template <class F>
    [[nodiscard]] static constexpr lookup_table make(std::size_t n, F&& f) noexcept {
        lookup_table t{};
        if (n > limit) return t;
        t.count = static_cast<std::uint32_t>(n);
        for (std::uint32_t i = 0; i <= t.count; ++i) t.value[i] = f(i);
        t.usable = true;
        return t;
    }

    /// The value of index `i` (the unknown entry's past the table).
    [[nodiscard]] constexpr double at(std::uint32_t i) const noexcept { return value[i < count ? i : count]; }
};

} // namespace mfprio::slurm
