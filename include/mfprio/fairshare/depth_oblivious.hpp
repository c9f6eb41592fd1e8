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

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <mfprio/core/assert.hpp>
#include <mfprio/core/parallel.hpp>
#include <mfprio/fairshare/classic.hpp>
#include <mfprio/fairshare/columns.hpp>
#include <mfprio/fairshare/shares.hpp>
#include <mfprio/fairshare/tree.hpp>

namespace mfprio::fairshare {

namespace detail {

/// What DEPTH_OBLIVIOUS's effective usage takes from the fs parent, computed once per
/// parent: r_p = P.UE / P.S, r_s = (children's UN sum) / P.S, ln(r_p) and the exponent k
/// of the children whose local ratio lies on the other side of 1 (`depth_oblivious.hpp`'s
/// file comment). The same operations on the same values as one call per child, in the
/// same types, so the same results.
struct depth_oblivious_parent {
    bool zero = true;   ///< P.S or P.UE is 0: every child gets UE = UN
    long double r_p = 0.0L;
    long double r_s = 0.0L;
    double ln_p = 0.0;
    double k_cross = 1.0; ///< 1 / (1 + (5 ln r_p)^2)

    depth_oblivious_parent(long double parent_ue, double parent_s, long double sibling_un) noexcept {
        if (parent_s == 0.0 || parent_ue == 0.0L) return;
        zero = false;
        r_p = parent_ue / static_cast<long double>(parent_s);
        r_s = sibling_un / static_cast<long double>(parent_s);
        if (r_p != 0.0L) {
            ln_p = std::log(static_cast<double>(r_p));
            k_cross = 1.0 / (1.0 + std::pow(5.0 * ln_p, 2.0));
        }
    }

    /// UE of a child with normalized usage `un` and normalized shares `s`.
    ///
    /// Two library calls of Slurm's formula are replaced by what they are known to return:
    /// - only the sign of ln(r_l) matters (ln r_p · ln r_l < 0), and with x = (double)r_l
    ///   that sign is the sign of x - 1 for x > 0 (log(1) is 0; for x != 1 the true value is
    ///   at least 1.1e-16 away from 0, so a log within one ulp keeps its sign; x = 0 gives
    ///   -inf), while x < 0 or NaN gives NaN and the test fails;
    /// - pow(x, 1.0) is x: an exact result, which glibc's pow (error < 0.55 ulp) and
    ///   fdlibm's (it tests y == 1) both return.
    [[nodiscard]] long double usage_efctv(long double un, double s) const noexcept {
        if (s == 0.0 || zero || un == 0.0L) return un;
        const long double r_l = (un / static_cast<long double>(s)) / r_s;
        const double x = static_cast<double>(r_l);
        if (r_p != 0.0L && r_l != 0.0L && ((ln_p < 0.0 && x > 1.0) || (ln_p > 0.0 && x >= 0.0 && x < 1.0)))
            return r_p * std::pow(x, k_cross) * static_cast<long double>(s);
        return r_p * x * static_cast<long double>(s);
    }
};

/// The sum of the UN held in `ue` of p's children that are not FairShare=parent, in
/// long double in children-list order, as Slurm sums them. A FairShare=parent child adds
/// +0.0 instead of being skipped: the same sum (it starts at +0.0, so it is never -0.0).
/// Not inlined: inside the passes gcc 12 keeps the sum on the stack, a store and a reload
/// for every child, where alone it keeps it in a register.
[[nodiscard]]
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline))
#endif
inline long double children_un_sum(const tree& t, std::uint32_t p, const long double* ue) noexcept {
    long double sum = 0.0L;
    for (const std::uint32_t ch : t.children_of(p)) {
        const long double un = ue[ch];
        sum += t.is_use_parent(ch) ? 0.0L : un;
    }
    return sum;
}

} // namespace detail

/// DEPTH_OBLIVIOUS effective usage of one association from its own UN and S and its fs
/// parent's UE, S and children's UN sum `sibling_un` (Slurm's
/// `_depth_oblivious_set_usage_efctv`, steady state; see the file comment).
[[nodiscard]] inline long double depth_oblivious_usage_efctv(long double un, double s, long double parent_ue,
                                                             double parent_s, long double sibling_un) noexcept {
    return detail::depth_oblivious_parent(parent_ue, parent_s, sibling_un).usage_efctv(un, s);
}

namespace detail {

/// The children of fs parent `p` whose UE and F `depth_oblivious` sets from `parent` (the
/// parent's prepared values): all of them, or the accounts only (`users` false) or the users
/// only (`users` true), in children-list order. A FairShare=parent child copies the fs
/// parent's UE (except under the root, where UE stays UN) and F; any other child's entry
/// in `ue` holds its UN on entry.
inline void depth_oblivious_child(const tree& t, std::uint32_t p, std::uint32_t ch,
                                  const depth_oblivious_parent& parent, long double* ue, const double* s, double* f,
                                  std::uint16_t damping, pow2_writer& w) noexcept {
    if (t.is_use_parent(ch)) {
        if (p != 0) ue[ch] = ue[p]; // under the root UE stays UN
        w.flush();                  // the parent's factor may wait in the writer
        f[ch] = f[p];
        return;
    }
    if (p != 0) ue[ch] = parent.usage_efctv(ue[ch], s[ch]);
    classic_factor_to(ue[ch], s[ch], damping, f + ch, w);
}

} // namespace detail

/// Slurm's DEPTH_OBLIVIOUS fair-share over the whole tree, steady state: fills
/// `shares_norm` (classic product), `usage_efctv` (root 1.0) and `fs_factor` (classic
/// F = 2^(-UE/S/d), incl. the FairShare=parent rule) for every association, and sets
/// `has_level_fs = false` (`level_fs` empty). `damping` is FairShareDampeningFactor (at
/// least 1). Linear in the tree size (plus the classic shares' O(depth) per association);
/// allocates nothing once the columns have the tree's size.
///
/// `threads` > 1 shares the pass among that many threads (started for the pass and joined
/// before it returns) when the tree is big enough: every association's shares and UN split
/// among the threads; then, on this thread, each fs parent's children sum and prepared
/// values and its account children's UE and F, top-down; then the users' UE and F (a
/// user's fs parent is an account, now final), the children lists split among the threads.
/// The same functions on the same inputs as one thread, so the columns are bit-identical;
/// it allocates the prepared values of the fs parents (one entry per association that has
/// children).
inline void depth_oblivious(const tree& t, columns& c, std::uint16_t damping = 1, unsigned threads = 1) {
    MFPRIO_ASSERT(damping >= 1);
    const std::size_t n = t.size();
    const unsigned parts = mfprio::detail::parts_for(n, threads, 8192);
    detail::classic_columns(t, c);
    if (n == 0) return;
    long double* const ue = c.usage_efctv.data();
    double* const s = c.shares_norm.data();
    double* const f = c.fs_factor.data();
    if (parts <= 1) {
        s[0] = 1.0;
        ue[0] = 1.0L;
        f[0] = detail::classic_factor(ue[0], s[0], damping);
        detail::pow2_writer w;
        // Top-down, one fs parent at a time (every fs parent precedes its children in lineage
        // order, so its UE, S and F are final when its turn comes). First its children's
        // shares and UN (kept in their UE entries) and the UN's sum, once per parent,
        // accumulated in long double in children-list order as Slurm does; then the
        // children's UE and F.
        double chain[64]; // the terms of the classic product from p up, while p is shallow
        for (std::uint32_t p = 0; p < n; ++p) {
            const auto children = t.children_of(p);
            if (children.empty()) continue;
            std::size_t terms = 0;
            bool cached = true;
            for (std::uint32_t x = p; x != 0 && cached; x = t.parent[x]) {
                if (terms == std::size(chain)) cached = false;
                else chain[terms++] = detail::share_ratio(t, x);
            }
            // The children's classic shares (`classic_shares`: the child's term, then its
            // ancestors' upward, the same multiplications in the same order; a child whose
            // direct parent is not p, below FairShare=parent accounts, or a p too deep, walks
            // up the links) and UN, summed as they are computed (the additions of
            // `children_un_sum`).
            long double sum = 0.0L;
            for (const std::uint32_t ch : children) {
                if (t.is_use_parent(ch)) {
                    s[ch] = s[p]; // p is its fs parent, final already
                } else if (cached && t.parent[ch] == p) {
                    double v = detail::share_ratio(t, ch);
                    for (std::size_t k = 0; k < terms; ++k) v *= chain[k];
                    s[ch] = v;
                } else {
                    double v = detail::share_ratio(t, ch);
                    for (std::uint32_t x = t.parent[ch]; x != 0; x = t.parent[x]) v *= detail::share_ratio(t, x);
                    s[ch] = v;
                }
                const long double un = usage_norm(t, ch);
                ue[ch] = un;
                sum += t.is_use_parent(ch) ? 0.0L : un;
            }
            const detail::depth_oblivious_parent parent(ue[p], s[p], sum);
            for (const std::uint32_t ch : children) detail::depth_oblivious_child(t, p, ch, parent, ue, s, f, damping, w);
        }
        return;
    }

    // Shares (FairShare=parent copies after, if the parts counted any: an fs parent is never
    // FairShare=parent) and UN: the accounts' terms of the classic product here, laid out in
    // the factor column (overwritten below), then the users' terms and the rest split among
    // the threads.
    s[0] = 1.0;
    for (std::uint32_t a = 1; a < n; ++a)
        if (!t.is_user(a)) f[a] = detail::share_ratio(t, a);
    std::array<std::size_t, 64> copies{};
    auto shares_round = [&](unsigned part) noexcept {
        const std::size_t b = std::max<std::size_t>(1, mfprio::detail::part_begin(n, parts, part));
        const std::size_t e = mfprio::detail::part_begin(n, parts, part + 1);
        for (auto a = static_cast<std::uint32_t>(b); a < e; ++a)
            if (t.is_user(a)) f[a] = detail::share_ratio(t, a);
        std::size_t copying = 0;
        for (auto a = static_cast<std::uint32_t>(b); a < e; ++a) {
            if (t.is_use_parent(a)) ++copying;
            else s[a] = detail::chain_product(t, f, a);
            ue[a] = usage_norm(t, a);
        }
        copies[part] = copying;
    };

    // Then on this thread: the FairShare=parent shares, and the fs parents top-down
    // (children sums, prepared values, the account children).
    std::vector<std::uint32_t> parent_ids;
    std::vector<detail::depth_oblivious_parent> prepared;
    const std::size_t accounts_and_root = n - std::min(n, t.user_count); // only they have children:
    parent_ids.reserve(accounts_and_root); // no allocation (and no exception) between the rounds
    prepared.reserve(accounts_and_root);
    auto accounts = [&]() noexcept {
        detail::copy_from_fs_parents(t, c, {copies.data(), parts}, false);
        ue[0] = 1.0L;
        f[0] = detail::classic_factor(ue[0], s[0], damping);
        detail::pow2_writer accounts_writer; // flushed when it goes: the users read these factors
        for (std::uint32_t p = 0; p < n; ++p) {
            const auto children = t.children_of(p);
            if (children.empty()) continue;
            parent_ids.push_back(p);
            prepared.emplace_back(ue[p], s[p], detail::children_un_sum(t, p, ue));
            for (const std::uint32_t ch : children)
                if (!t.is_user(ch))
                    detail::depth_oblivious_child(t, p, ch, prepared.back(), ue, s, f, damping, accounts_writer);
        }
    };

    // Last the users, the flattened children lists cut among the threads. The three steps
    // run on threads started once.
    const std::size_t listed = t.child_begin[n];
    auto users_round = [&](unsigned part) noexcept {
        const std::size_t b = mfprio::detail::part_begin(listed, parts, part);
        const std::size_t e = mfprio::detail::part_begin(listed, parts, part + 1);
        if (b == e) return;
        // The fs parent whose list holds position b, and its prepared values.
        auto p = static_cast<std::uint32_t>(
            std::upper_bound(t.child_begin.begin(), t.child_begin.begin() + static_cast<std::ptrdiff_t>(n) + 1, b) -
            t.child_begin.begin() - 1);
        std::size_t k = static_cast<std::size_t>(std::lower_bound(parent_ids.begin(), parent_ids.end(), p) -
                                                 parent_ids.begin());
        detail::pow2_writer w;
        for (std::size_t i = b; i < e; ++i) {
            while (i >= t.child_begin[p + 1]) ++p;
            while (parent_ids[k] != p) ++k;
            const std::uint32_t ch = t.children[i];
            if (t.is_user(ch)) detail::depth_oblivious_child(t, p, ch, prepared[k], ue, s, f, damping, w);
        }
    };
    mfprio::detail::parallel_rounds(parts, shares_round, accounts, users_round);
}

} // namespace mfprio::fairshare
