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
/// Types follow Slurm on Linux (`priority_multifactor.c`, the branch that is not FreeBSD's):
/// the ratios, the sum and k are long double, the sign test and k use `logl` and k's square
/// `powl(y, 2)` (a multiplication, as gcc and clang compile it); r_l^k is C's double `pow`,
/// so r_l and k are rounded to double for it.

#include <algorithm>
#include <array>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
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
    double ln_p = 0.0;    ///< logl(r_p), rounded to double (only its sign is used)
    double k_cross = 1.0; ///< 1 / (1 + (5 logl r_p)^2) in long double, rounded to double for pow

    depth_oblivious_parent(long double parent_ue, double parent_s, long double sibling_un) noexcept {
        if (parent_s == 0.0 || parent_ue == 0.0L) return;
        zero = false;
        r_p = parent_ue / static_cast<long double>(parent_s);
        r_s = sibling_un / static_cast<long double>(parent_s);
        if (r_p != 0.0L) {
            // Slurm on Linux: k = 1 / (1 + powl(f * logl(ratio_p), 2)) with f = 5, all long
            // double; powl(y, 2) as gcc and clang compile it from -O1 on, a multiplication
            // (written out, so that an unoptimized build gives the same k). The double pow that
            // takes k rounds it to double. A nonzero logl rounds to a nonzero double of the same
            // sign (|logl r_p| >= 2^-64 for r_p != 1).
            const long double ln = std::log(r_p);
            ln_p = static_cast<double>(ln);
            const long double y = 5.0L * ln;
            k_cross = static_cast<double>(1.0L / (1.0L + y * y));
        }
    }

    /// UE of a child with normalized usage `un` and normalized shares `s`.
    ///
    /// Two library calls of Slurm's formula are replaced by what they are known to return:
    /// - only the sign of logl(r_l) matters (logl r_p · logl r_l < 0), and that is the sign of
    ///   r_l - 1 (logl(1) is 0; for r_l != 1 the true value is at least 2^-64 away from 0, so
    ///   a logl within one ulp keeps its sign; r_l = 0 gives -inf), while r_l < 0 or NaN gives
    ///   NaN and the test fails. The test here takes x = (double)r_l and the sign of x - 1: it
    ///   differs from r_l - 1's only where x is 1.0, and there pow(x, k) is x, the value of
    ///   the other branch, so UE is the same;
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
/// long double in children-list order, as Slurm sums them, and in `accounts` whether any of
/// them is an account. A FairShare=parent child adds +0.0 instead of being skipped: the same
/// sum (it starts at +0.0, so it is never -0.0). Not inlined: inside the passes gcc 12 keeps
/// the sum on the stack, a store and a reload for every child, where alone it keeps it in a
/// register.
[[nodiscard]]
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline))
#endif
inline long double children_un_sum(const tree& t, std::uint32_t p, const long double* ue, bool& accounts) noexcept {
    long double sum = 0.0L;
    bool users = true; // every child so far is a user
    for (const std::uint32_t ch : t.children_of(p)) {
        const long double un = ue[ch];
        sum += t.is_use_parent(ch) ? 0.0L : un;
        users &= t.is_user(ch);
    }
    accounts = !users;
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

/// Sets the UE and F of child `ch` of fs parent `p` from `parent` (the parent's prepared
/// values). A FairShare=parent child copies the fs parent's UE (except under the root, where
/// UE stays UN) and F; any other child's entry in `ue` holds its UN on entry.
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

/// Whether `nearest_double_clear` may answer true: long double is x87's extended format
/// (64-bit significand, 15-bit exponent) with its arithmetic rounded to nearest at full
/// precision (x86-64 Linux's default precision control), double arithmetic without excess
/// precision, no fast-math. MFPRIO_EXACT_QUOTIENTS turns the shortcuts off: every quotient
/// is then divided as Slurm divides it.
#if !defined(MFPRIO_EXACT_QUOTIENTS) && LDBL_MANT_DIG == 64 && LDBL_MAX_EXP == 16384 && FLT_EVAL_METHOD == 0 && \
    !defined(__FAST_MATH__)
inline constexpr bool quotient_shortcuts = true;
#else
inline constexpr bool quotient_shortcuts = false;
#endif

/// Rounds `v` to double in `d`, and tells whether every real number within 8 units in the
/// last place of v (ulp64: v has a 64-bit significand) rounds to the same d: true when d is
/// normal, 2^-900 <= |d| < 2^901, not a power of 2, and v lies at least 9 ulp64 from every
/// midpoint between two doubles. Then a value computed differently but known to lie within
/// 8 ulp64 of v has the same nearest double: `depth_oblivious_children` replaces Slurm's
/// divisions by cheaper operations that way.
///
/// How: r = v - d is exact (v and d agree but in v's last 11 bits) and so is its rounding to
/// double (at most 11 significant bits, |d| >= 2^-900). With d not a power of 2, v lies in
/// d's binade [2^E, 2^(E+1)), where ulp64 is 2^(E-63) and the midpoints around d are
/// d +- 1024 ulp64 (a midpoint further away is at least 1024 ulp64 beyond these): v is 9 ulp64
/// clear of them when |r| <= 1015 x 2^(E-63). (A d that is a power of 2 may come from a v in
/// the binade below, with half the ulp64: refused, rare.) Always false without
/// `quotient_shortcuts`.
[[nodiscard]] inline bool nearest_double_clear(long double v, double& d) noexcept {
    d = static_cast<double>(v);
    if constexpr (!quotient_shortcuts) return false;
    const double r = static_cast<double>(v - static_cast<long double>(d));
    const std::uint64_t b = std::bit_cast<std::uint64_t>(d);
    const double binade = std::bit_cast<double>(b & 0x7ff0000000000000u); // 2^E
    const bool range = ((b >> 52) & 0x7ffu) - (1023u - 900u) <= 1800u;    // -900 <= E <= 900
    const bool power = (b & 0x000fffffffffffffu) == 0;
    return range & !power & (std::fabs(r) <= binade * 0x3f7p-63); // 1015 x 2^-63
}

/// Which children of an fs parent a call sets: all of them (the one-thread pass), or the
/// accounts only or the users only (the several-thread pass sets the accounts on the calling
/// thread, then the users split among the threads). The others are left as they are, their
/// entries not even read.
enum class children_kind : std::uint8_t { all, accounts, users };

/// `depth_oblivious_child` for every child of fs parent `p` in `children` (not the root;
/// `parent` not `zero`) of the `kind` asked for, the same values, in batches of 64 children
/// (a batch's children of the other kind skipped; `children` may be any part of p's list):
/// 1. each child's r_l rounded to double (x) and whether its UE takes the power (no branch
///    on that: it is as good as random, and a mispredicted branch behind two long double
///    divisions held up every child after it); FairShare=parent children and those with no
///    shares or no usage are left to `depth_oblivious_child`;
/// 2. pow(x, k) for the children that take it, one call after the other;
/// 3. UE = r_p * g * S (g the power, or x: pow(x, 1.0) is x) and the factor's exponent.
/// fairshare_bench's depth_oblivious/ref shows what the three steps save over one child at a
/// time.
///
/// Two of Slurm's long double divisions (x87's fdiv, about 18 cycles each) are replaced by
/// cheaper operations known to give the same double (`nearest_double_clear`), falling back
/// to the divisions themselves elsewhere (about 1% of the children):
/// - x = (double)((UN / S) / r_s): q = UN / (S r_s) is within 4.0002 ulp64 of the long
///   double (UN / S) / r_s (each has two roundings of relative error at most 2^-64, so
///   |q / r_l - 1| <= (1 + 2^-64) / (1 - 2^-64)^3 - 1 < 4.0001 x 2^-64), so where q is clear
///   x is q's nearest double; and r_l, then within 5 ulp64 of q, is not 0. No intermediate
///   value is subnormal or overflows: |r_s| lies in [2^-4000, 2^4000] (else no shortcut for
///   the parent), S is a double, so |S r_s| lies in [2^-5074, 2^5024]; |q| in
///   [2^-901, 2^901], so |UN / S| = |q r_s| (within rounding) in [2^-4901, 2^4901].
/// - the factor's exponent -(double)(UE / S) with UE = t S, t = r_p g (long double): UE / S
///   rounds t S twice, so it lies within 2.0001 ulp64 of t: where t is clear (and S > 0,
///   damping 1), the exponent is -(double)t. |t| in [2^-901, 2^901] and S a double keep t S
///   and UE / S normal.
///
/// Always inlined (as is `depth_oblivious_list`): gcc 12 calls the template out of line
/// otherwise, which costs the pass a third of its time.
template <children_kind kind = children_kind::all>
[[gnu::always_inline]] inline void
depth_oblivious_children(const tree& t, std::uint32_t p, std::span<const std::uint32_t> children,
                         const depth_oblivious_parent& parent, long double* ue, const double* s, double* f,
                         std::uint16_t damping, pow2_writer& w) noexcept {
    MFPRIO_ASSERT(p != 0 && !parent.zero);
    constexpr std::size_t batch = 64;
    double xs[batch]; // x
    double gs[batch]; // x, or pow(x, k) for the children that take the power
    // usage_efctv's test: r_p != 0, r_l != 0 and ln r_p ln r_l < 0, ln r_l's sign that of x - 1.
    const bool can_pow = parent.r_p != 0.0L;
    const bool above = parent.ln_p < 0.0; // the power applies to x > 1
    const bool below = parent.ln_p > 0.0; // the power applies to 0 <= x < 1
    const long double r_s_magnitude = parent.r_s < 0.0L ? -parent.r_s : parent.r_s;
    const bool quick = r_s_magnitude >= 0x1p-4000L && r_s_magnitude <= 0x1p4000L;
    const bool quick_exponent = damping == 1;
    for (std::size_t first = 0; first < children.size(); first += batch) {
        const std::size_t m = std::min(batch, children.size() - first);
        const std::uint32_t* const ch = children.data() + first;
        std::uint64_t special = 0; // bit i: child i is left to depth_oblivious_child
        [[maybe_unused]] std::uint64_t skipped = 0; // bit i: child i is not of the kind asked for
        std::uint64_t powers = 0;                    // bit i: child i takes the power
        for (std::size_t i = 0; i < m; ++i) {
            const std::uint32_t c = ch[i];
            if constexpr (kind != children_kind::all) {
                if (t.is_user(c) != (kind == children_kind::users)) {
                    skipped |= std::uint64_t{1} << i;
                    continue;
                }
            }
            const long double un = ue[c];
            const double sc = s[c];
            if (t.is_use_parent(c) || sc == 0.0 || un == 0.0L) {
                special |= std::uint64_t{1} << i;
                continue;
            }
            const long double q = un / (static_cast<long double>(sc) * parent.r_s);
            double x = 0.0;
            bool nonzero = true; // r_l != 0
            if (!(quick && nearest_double_clear(q, x))) [[unlikely]] {
                const long double r_l = (un / static_cast<long double>(sc)) / parent.r_s;
                x = static_cast<double>(r_l);
                nonzero = r_l != 0.0L;
            }
            xs[i] = x;
            gs[i] = x;
            const bool power = can_pow & nonzero & ((above & (x > 1.0)) | (below & (x >= 0.0) & (x < 1.0)));
            powers |= static_cast<std::uint64_t>(power) << i;
        }
        for (; powers != 0; powers &= powers - 1) {
            const auto i = static_cast<std::size_t>(std::countr_zero(powers));
            gs[i] = std::pow(xs[i], parent.k_cross);
        }
        for (std::size_t i = 0; i < m; ++i) {
            const std::uint32_t c = ch[i];
            if constexpr (kind != children_kind::all)
                if (((skipped >> i) & 1u) != 0) continue;
            if (((special >> i) & 1u) != 0) {
                depth_oblivious_child(t, p, c, parent, ue, s, f, damping, w);
                continue;
            }
            const double sc = s[c];
            const long double r = parent.r_p * gs[i]; // t above
            const long double v = r * static_cast<long double>(sc);
            ue[c] = v;
            double d = 0.0;
            if (quick_exponent && sc > 0.0 && nearest_double_clear(r, d)) [[likely]]
                w.put(-d, f + c);
            else
                classic_factor_to(v, sc, damping, f + c, w);
        }
    }
}

/// The children in `children` (p's list or any part of it) of the `kind` asked for, from
/// `parent`, p's prepared values: `depth_oblivious_children` unless p is the root or
/// `parent` is `zero`, where each child is set on its own (`depth_oblivious_child`).
template <children_kind kind = children_kind::all>
[[gnu::always_inline]] inline void
depth_oblivious_list(const tree& t, std::uint32_t p, std::span<const std::uint32_t> children,
                     const depth_oblivious_parent& parent, long double* ue, const double* s, double* f,
                     std::uint16_t damping, pow2_writer& w) noexcept {
    if (p != 0 && !parent.zero) {
        depth_oblivious_children<kind>(t, p, children, parent, ue, s, f, damping, w);
        return;
    }
    for (const std::uint32_t ch : children)
        if (kind == children_kind::all || t.is_user(ch) == (kind == children_kind::users))
            depth_oblivious_child(t, p, ch, parent, ue, s, f, damping, w);
}

} // namespace detail

namespace detail {

/// `depth_oblivious` on one thread, after `classic_columns` (see it).
inline void depth_oblivious_serial(const tree& t, columns& c, std::uint16_t damping) {
    const std::size_t n = t.size();
    long double* const ue = c.usage_efctv.data();
    double* const s = c.shares_norm.data();
    double* const f = c.fs_factor.data();
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
        detail::depth_oblivious_list(t, p, children, parent, ue, s, f, damping, w);
    }
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
/// user's fs parent is an account, now final), the flattened children lists split among the
/// threads (a part may begin or end inside a parent's list). Both ways set an fs parent's
/// children with `depth_oblivious_list`, the several-thread way its accounts and its users
/// apart: the same values, so the columns are bit-identical (`tests/fairshare_threads.cpp`
/// compares the two ways). It allocates the prepared values of the fs parents (one entry per
/// association that has children).
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
        detail::depth_oblivious_serial(t, c, damping);
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
            bool accounts_below = false; // (most lists hold users only)
            // A const local passed on, not the vector's entry: see users_round.
            const detail::depth_oblivious_parent parent(ue[p], s[p], detail::children_un_sum(t, p, ue, accounts_below));
            parent_ids.push_back(p);
            prepared.push_back(parent);
            if (accounts_below)
                detail::depth_oblivious_list<detail::children_kind::accounts>(t, p, children, parent, ue, s, f, damping,
                                                                             accounts_writer);
        }
    };

    // Last the users, the flattened children lists cut among the threads. The three steps
    // run on threads started once.
    const std::size_t listed = t.child_begin[n];
    auto users_round = [&](unsigned part) noexcept {
        const std::size_t b = mfprio::detail::part_begin(listed, parts, part);
        const std::size_t e = mfprio::detail::part_begin(listed, parts, part + 1);
        if (b == e) return;
        // The fs parent whose list holds position b: the last in parent_ids (the parents with a
        // non-empty list, in order, so their lists follow one another) whose list starts at or
        // before b. Then each parent's part of [b, e) in turn, the first and the last possibly
        // part of a list only.
        auto k = static_cast<std::size_t>(std::upper_bound(parent_ids.begin(), parent_ids.end(), b,
                                                           [&](std::size_t at, std::uint32_t id) {
                                                               return at < t.child_begin[id];
                                                           }) -
                                          parent_ids.begin() - 1);
        detail::pow2_writer w; // flushed when it goes, before the round ends
        for (std::size_t i = b; i < e; ++k) {
            const std::uint32_t p = parent_ids[k];
            const std::size_t end = std::min<std::size_t>(e, t.child_begin[p + 1]);
            // A const copy of the prepared values, which no store can change: the vector's
            // entry might be changed by the batches' stores of long doubles and doubles as far
            // as the compiler knows, and it reloads it after each of them otherwise.
            const detail::depth_oblivious_parent parent = prepared[k];
            detail::depth_oblivious_list<detail::children_kind::users>(t, p, {t.children.data() + i, end - i}, parent,
                                                                      ue, s, f, damping, w);
            i = end;
        }
    };
    mfprio::detail::parallel_rounds(parts, shares_round, accounts, users_round);
}

} // namespace mfprio::fairshare
