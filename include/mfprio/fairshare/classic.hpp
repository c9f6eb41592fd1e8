#pragma once
/// \file
/// Slurm's classic fair-share (`PriorityFlags=NO_FAIR_TREE`, reference slurm.md 3.2):
/// effective usage UE top-down through the fs-parent links, then F = 2^(-UE/S/d) with the
/// classic (whole-machine) normalized shares S and d = FairShareDampeningFactor.
///
/// Steady state: Slurm's periodic pass computes the accounts' UE before it applies this
/// pass's decay and new usage, and the users' UE lazily when a job or sshare asks
/// (reference 2.2 step 3). mfprio computes every association from the current usage in one
/// pass, which is what Slurm shows once usage stops changing (the reference's
/// recommendation); a live Slurm controller can lag by one PriorityCalcPeriod.

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>

#include <mfprio/core/assert.hpp>
#include <mfprio/core/parallel.hpp>
#include <mfprio/fairshare/columns.hpp>
#include <mfprio/fairshare/pow2.hpp>
#include <mfprio/fairshare/shares.hpp>
#include <mfprio/fairshare/tree.hpp>

namespace mfprio::fairshare {

namespace detail {

/// The exponent of Slurm's fair-share factor (`priority_p_calc_fs_factor` as called by
/// `_set_assoc_fs_factor`): -((UE / S) / d), or -infinity if S <= 0 (2^-inf is 0, the
/// factor Slurm gives there). UE is long double and S a double, so the quotient and the
/// division by d are long double; C's pow takes doubles, so the exponent is rounded to
/// double before the call (std::pow would otherwise pick its long double overload).
[[nodiscard]] inline double classic_exponent(long double ue, double s, std::uint16_t damping) noexcept {
    if (s <= 0.0) return -std::numeric_limits<double>::infinity();
    long double q = ue / static_cast<long double>(s);
    if (damping != 1) q /= static_cast<long double>(damping); // q / 1 is q exactly: skipped
    return static_cast<double>(-q);
}

/// Slurm's fair-share factor of one association: 0 if S <= 0, else pow(2.0, -((UE / S) / d))
/// (`classic_exponent`). `pow2` gives pow's bits, mostly without the call.
[[nodiscard]] inline double classic_factor(long double ue, double s, std::uint16_t damping) noexcept {
    return pow2(classic_exponent(ue, s, damping));
}

/// `classic_factor` written through `w` (at its next flush).
inline void classic_factor_to(long double ue, double s, std::uint16_t damping, double* out, pow2_writer& w) noexcept {
    w.put(classic_exponent(ue, s, damping), out);
}

/// Sizes the columns of a classic-family pass, which computes no LevelFS: `level_fs` is
/// emptied (its capacity kept, for a later Fair Tree pass on the same columns), the other
/// columns get the tree's size (a pass writes every entry of them, so nothing is refilled).
/// Not filling `level_fs` with NaN saves 16 bytes written per association: 9-14% of the
/// classic pass on the reference tree.
inline void classic_columns(const tree& t, columns& c) {
    const std::size_t n = t.size();
    c.has_level_fs = false;
    c.level_fs.clear();
    c.shares_norm.resize(n);
    c.usage_efctv.resize(n);
    c.fs_factor.resize(n);
}

} // namespace detail

/// Classic effective usage of association `a` (Slurm's `_set_assoc_usage_efctv` without
/// DEPTH_OBLIVIOUS), given its fs parent's UE `ue_parent`, in this order:
/// - fs parent is the root (checked first, also for FairShare=parent children of the root):
///   UE = UN;
/// - FairShare=parent: UE = the fs parent's UE;
/// - level_shares == 0: UE = the fs parent's UE;
/// - else UE = UN + (UE_parent - UN) * (shares_raw / level_shares), in long double, the
///   share ratio divided first as Slurm's `_set_usage_efctv` groups it (multiplying first
///   rounds differently: about one user in four of a large tree gets another last bit).
///
/// Always inlined: in a translation unit with several passes gcc 12 called it out of line
/// from the sweeps, passing UE_parent through the stack (a long double store and reload
/// per association); the classic pass in `bench/fairshare_bench` took 6% longer.
///
/// `root_usage` is the root's RawUsage (`t.usage_raw[0]`): the sweeps read it once, where
/// the compiler could not keep it in a register across their long double stores.
[[nodiscard, gnu::always_inline]] inline long double classic_usage_efctv(const tree& t, std::uint32_t a,
                                                                         long double ue_parent,
                                                                         long double root_usage) noexcept {
    MFPRIO_ASSERT(a != 0 && a < t.size());
    const long double un = usage_norm(t.usage_raw[a], root_usage);
    if (t.fs_parent[a] == 0) return un;
    if (t.is_use_parent(a)) return ue_parent;
    if (t.level_shares[a] == 0) return ue_parent;
    return un + (ue_parent - un) * t.level_part[a]; // shares_raw / level_shares, derived with the tree
}

/// `classic_usage_efctv` with the tree's own root usage.
[[nodiscard]] inline long double classic_usage_efctv(const tree& t, std::uint32_t a, long double ue_parent) noexcept {
    return classic_usage_efctv(t, a, ue_parent, t.usage_raw[0]);
}

namespace detail {

/// After a pass on several threads whose parts counted `copies` FairShare=parent
/// associations: each copies its fs parent's shares and, with `factors`, its factor (an fs
/// parent is never FairShare=parent itself, so its values are final). Stops after the last.
inline void copy_from_fs_parents(const tree& t, columns& c, std::span<const std::size_t> copies, bool factors) noexcept {
    std::size_t copying = 0;
    for (const std::size_t k : copies) copying += k;
    double* const s = c.shares_norm.data();
    double* const f = c.fs_factor.data();
    for (std::uint32_t a = 1; a < t.size() && copying != 0; ++a)
        if (t.is_use_parent(a)) {
            s[a] = s[t.fs_parent[a]];
            if (factors) f[a] = f[t.fs_parent[a]];
            --copying;
        }
}

/// The classic family's pass: `shares_norm` (the tree's classic normalized shares, derived
/// with it), `usage_efctv` (root 1.0) and `fs_factor` = factor(UE, S) of the association, or
/// of its fs parent for FairShare=parent (copied: the parent comes earlier, same inputs, same
/// value). Slurm never computes the root's own factor (no job charges the root association
/// itself); mfprio gives it the formula's value. No allocation once the columns have the
/// tree's size.
///
/// Lineage order puts every fs parent (a proper ancestor) before its fs children, so an index
/// sweep is a top-down walk of the children lists: each parent's UE is known, and so is its
/// factor. On one thread, UE and F in one sweep. With `threads` > 1 (and a tree big enough to
/// be worth it), two rounds of threads: first the accounts' UE, top-down on the first thread
/// (an account's UE needs its fs parent's, and the accounts are few); then the users' UE (a
/// user's fs parent is an account, now final) and every factor, split among the threads;
/// FairShare=parent associations copy their fs parent's factor last (an fs parent is never
/// FairShare=parent itself, and may lie in another part). Every way computes each value by
/// the same function from the same inputs, so the columns are bit-identical.
///
/// `factor(ue, s, out, w)` writes the factor of UE and S to `*out`, possibly through the
/// `pow2_writer` w (at its next flush: the sweep flushes before it copies a factor, and
/// each part's writer flushes when the part ends).
template <class Factor>
void classic_sweep(const tree& t, columns& c, Factor factor, unsigned threads = 1) {
    const std::size_t n = t.size();
    const unsigned parts = mfprio::detail::parts_for(n, threads, 8192);
    classic_columns(t, c);
    if (n == 0) return;
    MFPRIO_ASSERT(t.classic_shares.size() == n && t.level_part.size() == n); // derived with the tree
    long double* const ue = c.usage_efctv.data();
    double* const s = c.shares_norm.data();
    double* const f = c.fs_factor.data();
    const double* const shares = t.classic_shares.data();
    const long double root = t.usage_raw[0];
    ue[0] = 1.0L;
    s[0] = shares[0];
    if (parts <= 1) {
        pow2_writer w;
        factor(ue[0], s[0], f, w);
        for (std::uint32_t a = 1; a < n; ++a) {
            const std::uint32_t p = t.fs_parent[a];
            ue[a] = classic_usage_efctv(t, a, ue[p], root);
            s[a] = shares[a];
            if (t.is_use_parent(a)) {
                w.flush(); // the parent's factor may wait in the writer
                f[a] = f[p];
            } else {
                factor(ue[a], shares[a], f + a, w);
            }
        }
        return;
    }
    std::array<std::size_t, 64> copies{};
    auto accounts = [&](unsigned part) noexcept {
        if (part != 0) return; // the helpers start meanwhile
        for (std::uint32_t a = 1; a < n; ++a)
            if (!t.is_user(a)) ue[a] = classic_usage_efctv(t, a, ue[t.fs_parent[a]], root);
    };
    auto factors = [&](unsigned part) noexcept {
        const std::size_t begin = mfprio::detail::part_begin(n, parts, part);
        const auto b = static_cast<std::uint32_t>(begin == 0 ? 1 : begin);
        const auto e = static_cast<std::uint32_t>(mfprio::detail::part_begin(n, parts, part + 1));
        pow2_writer w;
        if (part == 0) factor(ue[0], s[0], f, w);
        std::size_t copying = 0;
        for (std::uint32_t a = b; a < e; ++a) {
            if (t.is_user(a)) ue[a] = classic_usage_efctv(t, a, ue[t.fs_parent[a]], root);
            s[a] = shares[a];
            if (t.is_use_parent(a)) ++copying;
            else factor(ue[a], shares[a], f + a, w);
        }
        copies[part] = copying;
    };
    mfprio::detail::parallel_rounds(parts, accounts, [] {}, factors);
    copy_from_fs_parents(t, c, {copies.data(), parts}, true);
}

} // namespace detail

/// Slurm's classic fair-share over the whole tree (`PriorityFlags=NO_FAIR_TREE`): fills
/// `shares_norm` (classic product, derived with the tree), `usage_efctv` (root 1.0, as Slurm's init sets it) and
/// `fs_factor` for every association (sshare prints the factor for users only), and sets
/// `has_level_fs = false` (`level_fs` empty: `columns::level_fs_of` gives NaN). `damping`
/// is FairShareDampeningFactor (at least 1, Slurm's default 1). O(size).
///
/// `threads` > 1 shares the pass among that many threads (started for the pass and joined
/// before it returns) when the tree is big enough; the columns are bit-identical to one
/// thread's.
inline void classic(const tree& t, columns& c, std::uint16_t damping = 1, unsigned threads = 1) {
    MFPRIO_ASSERT(damping >= 1);
    // Slurm's default damping (1) as a constant: the sweep then has no test per association.
    if (damping == 1) {
        detail::classic_sweep(t, c, [](long double ue, double s, double* out, detail::pow2_writer& w) noexcept {
            detail::classic_factor_to(ue, s, 1, out, w);
        }, threads);
        return;
    }
    detail::classic_sweep(t, c, [damping](long double ue, double s, double* out, detail::pow2_writer& w) noexcept {
        detail::classic_factor_to(ue, s, damping, out, w);
    }, threads);
}

} // namespace mfprio::fairshare
