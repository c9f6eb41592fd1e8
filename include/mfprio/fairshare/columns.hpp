#pragma once
/// \file
/// What a fair-share algorithm writes: one column per quantity, one entry per association
/// of the tree (same order). Normalized usage is not stored: `usage_norm` derives it.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include <mfprio/fairshare/tree.hpp>

namespace mfprio::fairshare {

/// The fair-share algorithms mfprio implements.
enum class algorithm : std::uint8_t {
    classic,         ///< PriorityFlags=NO_FAIR_TREE: F = 2^(-UE/S/d)
    fair_tree,       ///< Slurm's Fair Tree as the code does it (tied accounts descended separately)
    fair_tree_merge, ///< Fair Tree as documented (tied sibling accounts' children merged)
    depth_oblivious, ///< PriorityFlags=DEPTH_OBLIVIOUS, steady-state semantics
    flux,            ///< flux-accounting's weighted tree
    linear,          ///< seed 004's description: 0.5 at the share, 0 at twice the share
};

/// Per-association results of a fair-share pass.
struct columns {
    std::vector<double> shares_norm;       ///< NormShares (classic product or Fair Tree level-local)
    std::vector<long double> usage_efctv;  ///< EffectvUsage (UE for classic, U = raw/parent raw for Fair Tree)
    std::vector<long double> level_fs;     ///< LevelFS (Fair Tree family; NaN where not computed; empty after a classic-family pass)
    std::vector<double> fs_factor;         ///< FairShare: the factor the job priority reads
    bool has_level_fs = false;             ///< true for the Fair Tree family, whose passes fill `level_fs`

    /// LevelFS of association `a`: NaN where the pass computed none, including every
    /// association after a classic-family pass (which leaves `level_fs` empty).
    [[nodiscard]] long double level_fs_of(std::size_t a) const noexcept {
        return a < level_fs.size() ? level_fs[a] : std::numeric_limits<long double>::quiet_NaN();
    }

    void resize(std::size_t n) {
        shares_norm.assign(n, 0.0);
        usage_efctv.assign(n, 0.0L);
        level_fs.assign(n, std::numeric_limits<long double>::quiet_NaN());
        fs_factor.assign(n, 0.0);
    }
};

/// Normalized usage (Slurm's `set_assoc_usage_norm`): usage over the root's usage, 0 when
/// the root has none, capped at 1. Computed in long double as Slurm does.
[[nodiscard]] inline long double usage_norm(long double usage, long double root) noexcept {
    if (root == 0.0L) return 0.0L;
    const long double un = usage / root;
    return un > 1.0L ? 1.0L : un;
}

/// Normalized usage of association `a` of `t` (`usage_norm` of its usage and the root's).
[[nodiscard]] inline long double usage_norm(const tree& t, std::uint32_t a) noexcept {
    return usage_norm(t.usage_raw[a], t.usage_raw[0]);
}

} // namespace mfprio::fairshare
