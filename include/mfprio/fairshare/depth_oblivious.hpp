#pragma once
/// \file
/// Slurm's DEPTH_OBLIVIOUS fair-share (`PriorityFlags=DEPTH_OBLIVIOUS`, which implies
/// NO_FAIR_TREE; reference slurm.md 3.2.2): classic fair-share whose effective usage is
/// rescaled so that an association's factor does not depend on how deep it sits in the
/// tree. With P the fs parent:
///
///     r_p = P.UE / P.S                               the parent's usage ratio
///     r_s = (sum of UN over P's children that are not FairShare=parent) / P.S
///     r_l = (UN / S) / r_s                           the local usage ratio
///     k   = 1                  if r_p == 0, r_l == 0 or ln(r_p) ln(r_l) >= 0
///           1 / (1 + (5 ln r_p)^2)   otherwise
///     UE  = r_p * r_l^k * S                          so F = 2^(-r_p r_l^k / d)
///
/// when S, P.S, P.UE and UN are all non-zero, else UE = UN; the classic rules that come
/// first still apply (fs parent is the root: UE = UN; FairShare=parent: UE = P.UE).
///
/// Steady state: Slurm sums the siblings' *cached* normalized usage, which on the first
/// pass after a start holds garbage and otherwise lags a pass; mfprio uses every sibling's
/// current UN (what Slurm produces from its second pass on when usage is stable). Slurm
/// also recomputes that sum for every child, which is quadratic in the number of siblings;
/// here each fs parent's sum is computed once, so the pass is linear in the tree size (the
/// sum is the same long double accumulation in children-list order, so the values agree).
///
/// Types follow Slurm on x86-64: the ratios and the sum are long double; ln and pow are C's
/// double functions, so their arguments are rounded to double and k is computed in double.

#include <cmath>
#include <cstdint>
#include <vector>

#include <mfprio/core/assert.hpp>
#include <mfprio/fairshare/classic.hpp>
#include <mfprio/fairshare/columns.hpp>
#include <mfprio/fairshare/shares.hpp>
#include <mfprio/fairshare/tree.hpp>

namespace mfprio::fairshare {

/// DEPTH_OBLIVIOUS effective usage of one association from its own UN and S and its fs
/// parent's UE, S and children's UN sum `sibling_un` (Slurm's
/// `_depth_oblivious_set_usage_efctv`, steady state; see the file comment).
[[nodiscard]] inline long double depth_oblivious_usage_efctv(long double un, double s, long double parent_ue,
                                                             double parent_s, long double sibling_un) noexcept {
    if (s == 0.0 || parent_s == 0.0 || parent_ue == 0.0L || un == 0.0L) return un;
    const long double r_p = parent_ue / static_cast<long double>(parent_s);
    const long double r_s = sibling_un / static_cast<long double>(parent_s);
    const long double r_l = (un / static_cast<long double>(s)) / r_s;
    long double k = 1.0L;
    if (r_p != 0.0L && r_l != 0.0L) {
        const double ln_p = std::log(static_cast<double>(r_p));
        const double ln_l = std::log(static_cast<double>(r_l));
        if (ln_p * ln_l < 0.0) k = 1.0 / (1.0 + std::pow(5.0 * ln_p, 2.0));
    }
    return r_p * std::pow(static_cast<double>(r_l), static_cast<double>(k)) * static_cast<long double>(s);
}

/// Slurm's DEPTH_OBLIVIOUS fair-share over the whole tree, steady state: fills
/// `shares_norm` (classic product), `usage_efctv` (root 1.0) and `fs_factor` (classic
/// F = 2^(-UE/S/d), incl. the FairShare=parent rule) for every association, and sets
/// `has_level_fs = false`. `damping` is FairShareDampeningFactor (at least 1). Linear in
/// the tree size (plus the classic shares' O(depth) per association).
inline void depth_oblivious(const tree& t, columns& c, std::uint16_t damping = 1) {
    MFPRIO_ASSERT(damping >= 1);
    c.resize(t.size());
    c.has_level_fs = false;
    if (t.size() == 0) return;
    classic_shares(t, c.shares_norm);

    // Each fs parent's sum of its non-FairShare=parent children's UN, once per parent,
    // accumulated in long double in children-list order as Slurm does.
    std::vector<long double> sibling_un(t.size(), 0.0L);
    for (std::uint32_t p = 0; p < t.size(); ++p) {
        long double sum = 0.0L;
        for (const std::uint32_t ch : t.children_of(p))
            if (!t.is_use_parent(ch)) sum += usage_norm(t, ch);
        sibling_un[p] = sum;
    }

    // Top-down: every fs parent precedes its children in lineage order.
    c.usage_efctv[0] = 1.0L;
    for (std::uint32_t a = 1; a < t.size(); ++a) {
        const std::uint32_t p = t.fs_parent[a];
        const long double un = usage_norm(t, a);
        if (p == 0)
            c.usage_efctv[a] = un;
        else if (t.is_use_parent(a))
            c.usage_efctv[a] = c.usage_efctv[p];
        else
            c.usage_efctv[a] = depth_oblivious_usage_efctv(un, c.shares_norm[a], c.usage_efctv[p],
                                                           c.shares_norm[p], sibling_un[p]);
    }
    detail::classic_factors(t, c, damping);
}

} // namespace mfprio::fairshare
