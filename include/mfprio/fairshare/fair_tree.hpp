#pragma once
/// \file
/// Slurm's Fair Tree (the default fair-share algorithm; reference slurm.md 3.3), exact: the
/// level fair-share LF = S / U of every association, then one depth-first walk that ranks
/// the users, each sibling group sorted by LF, and gives each user rank / N.
///
/// Two tie modes: Slurm as its code behaves (tied sibling accounts are descended one after
/// the other, in lineage order; the default) and Fair Tree as documented (tied sibling
/// accounts have their children lists merged before sorting).
///
/// Cost: O(A) for the level fair-shares plus one sort per sibling group (and per merged
/// group with merged ties); no allocation once a `fair_tree_workspace` has served a tree of
/// that size. The level fair-shares and the sorts can be shared among threads; the walk that
/// ranks the users runs on the calling thread.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include <mfprio/core/assert.hpp>
#include <mfprio/core/parallel.hpp>
#include <mfprio/fairshare/columns.hpp>
#include <mfprio/fairshare/shares.hpp>
#include <mfprio/fairshare/tree.hpp>

namespace mfprio::fairshare {

/// Slurm's NO_VAL (0xfffffffe) as a long double: the root's level fair-share, the level
/// fair-share of an account with FairShare=parent, and the "previous LF" a sibling group
/// starts its tie test with.
inline constexpr long double fair_tree_no_val = 4294967294.0L;

namespace detail {

/// One sibling group being walked: a range of association indices sorted by LF, the next
/// one to visit, the previous LF, and whether the group's account was tied.
struct fair_tree_frame {
    const std::uint32_t* begin;
    const std::uint32_t* pos;
    const std::uint32_t* end;
    long double prev;
    std::uint32_t merged_mark; ///< top of the merged buffer to restore when the group ends
    bool account_tied;
};

/// Sibling order (Fair Tree's, and flux's before its tie groups): `value` (LF or weight)
/// descending; users first at equal value; then association index, which is lineage order
/// (also across the lists of merged accounts, whose subtrees are contiguous in lineage
/// order). A total order, so any correct sort gives the result a stable sort of the
/// lineage-ordered list gives (Slurm's glibc merge sort).
template <class T>
struct sibling_order {
    const T* value;
    const std::uint8_t* user;
    [[nodiscard]] bool operator()(std::uint32_t x, std::uint32_t y) const noexcept {
        if (value[x] != value[y]) return value[x] > value[y];
        if (user[x] != user[y]) return user[x] > user[y];
        return x < y;
    }
};

/// A 32-bit key that never decreases as the value decreases: the high half of the
/// order-preserving bit pattern of (double)value, inverted. Rounding to double is monotone,
/// so two entries with different keys are in key order; entries with equal keys are sorted
/// again with the exact comparison.
template <class T>
[[nodiscard]] inline std::uint32_t coarse_descending_key(T x) noexcept {
    double d = static_cast<double>(x);
    if (d == 0.0) d = 0.0; // -0 and +0 are one LF
    std::uint64_t b = std::bit_cast<std::uint64_t>(d);
    b = (b >> 63) != 0 ? ~b : (b | 0x8000000000000000ull); // ascending with the value
    return static_cast<std::uint32_t>(~b >> 32);           // descending
}

/// The LSD radix sort of `sort_siblings_by`: entry i of [b, b + m) goes into `src` as
/// key(b[i]) in the high half and b[i] in the low, then is stably sorted on the key's low
/// 8 * `Passes` bits (through `dst`), a pass skipped when all entries share its digit; returns
/// the buffer (`src` or `dst`) that holds the result.
template <unsigned Passes, class Key>
    requires(Passes == 2 || Passes == 4)
[[nodiscard, gnu::always_inline]] inline std::uint64_t* radix_passes(const std::uint32_t* b, std::size_t m, Key key,
                                                                     std::uint64_t* src, std::uint64_t* dst) noexcept {
    std::uint32_t hist[Passes][256] = {};
    for (std::size_t i = 0; i < m; ++i) {
        const std::uint32_t k = key(b[i]);
        src[i] = (std::uint64_t{k} << 32) | b[i];
        ++hist[0][k & 255u];
        ++hist[1][(k >> 8) & 255u];
        if constexpr (Passes == 4) {
            ++hist[2][(k >> 16) & 255u];
            ++hist[3][k >> 24];
        }
    }
    for (unsigned pass = 0; pass < Passes; ++pass) {
        const unsigned shift = 32 + 8 * pass;
        if (hist[pass][(src[0] >> shift) & 255u] == m) continue; // one digit for all
        std::uint32_t offset[256];
        std::uint32_t sum = 0;
        for (unsigned d = 0; d < 256; ++d) {
            offset[d] = sum;
            sum += hist[pass][d];
        }
        for (std::size_t i = 0; i < m; ++i) dst[offset[(src[i] >> shift) & 255u]++] = src[i];
        std::swap(src, dst);
    }
    return src;
}

/// Sorts [b, e) in `sibling_order` order. Large groups: a stable LSD radix sort on the coarse
/// key with the index as payload, then each run of equal keys sorted exactly. Groups of up to
/// 4,096 sort on the top 16 bits of each key's distance from the group's smallest (two byte
/// passes: the bit patterns of doubles are close to logarithmic, so 16 bits over the group's
/// own range of magnitudes separate almost every entry); larger ones on the whole key (four,
/// a pass skipped when all entries share its digit). `key_of(x)` is entry x's
/// `coarse_descending_key` (computed here, or read where the caller kept it). `tmp_a` and
/// `tmp_b` hold at least e - b entries. Small groups: a plain comparison sort.
template <class T, class KeyOf>
void sort_siblings_by(std::uint32_t* b, std::uint32_t* e, const sibling_order<T>& before, KeyOf key_of,
                      std::uint64_t* tmp_a, std::uint64_t* tmp_b) noexcept {
    const auto m = static_cast<std::size_t>(e - b);
    if (m < 64) {
        std::sort(b, e, before);
        return;
    }
    const std::uint64_t* src = nullptr;
    if (m <= 4096) {
        std::uint32_t lo = 0xffffffffu, hi = 0;
        for (std::size_t i = 0; i < m; ++i) {
            const std::uint32_t k = key_of(b[i]);
            lo = std::min(lo, k);
            hi = std::max(hi, k);
        }
        const auto width = static_cast<unsigned>(std::bit_width(hi - lo));
        const unsigned drop = width > 16 ? width - 16 : 0;
        src = radix_passes<2>(b, m, [&](std::uint32_t x) noexcept { return (key_of(x) - lo) >> drop; }, tmp_a, tmp_b);
    } else {
        src = radix_passes<4>(b, m, key_of, tmp_a, tmp_b);
    }
    for (std::size_t i = 0; i < m;) {
        const std::uint64_t key = src[i] >> 32;
        std::size_t j = i;
        for (; j < m && (src[j] >> 32) == key; ++j) b[j] = static_cast<std::uint32_t>(src[j]);
        if (j - i > 1) std::sort(b + i, b + j, before);
        i = j;
    }
}

/// `sort_siblings_by` with each entry's key computed from its value.
template <class T>
void sort_siblings(std::uint32_t* b, std::uint32_t* e, const sibling_order<T>& before, std::uint64_t* tmp_a,
                   std::uint64_t* tmp_b) noexcept {
    sort_siblings_by(b, e, before, [&](std::uint32_t x) noexcept { return coarse_descending_key(before.value[x]); },
                     tmp_a, tmp_b);
}

} // namespace detail

/// Level fair-share of one association (Slurm's `_calc_assoc_fs`) from its level-local
/// normalized shares `s` (double) and effective usage `u` = usage_raw / fs parent's
/// usage_raw (long double; 0 when the parent has none):
/// - FairShare=parent: +inf for a user, NO_VAL for an account;
/// - s == 0: 0, even when u is 0;
/// - u == 0: +inf;
/// - otherwise s / u in long double.
[[nodiscard]] inline long double fair_tree_level_fs(double s, long double u, bool is_user,
                                                    bool is_use_parent) noexcept {
    if (is_use_parent) return is_user ? std::numeric_limits<long double>::infinity() : fair_tree_no_val;
    if (s == 0.0) return 0.0L;
    if (u == 0.0L) return std::numeric_limits<long double>::infinity();
    return static_cast<long double>(s) / u;
}

/// Scratch memory for `fair_tree`, kept between passes so a pass allocates nothing once the
/// buffers have grown to the tree's size. One workspace per thread.
struct fair_tree_workspace {
    std::vector<std::uint32_t> order;  ///< the tree's children lists, each sorted when visited
    std::vector<std::uint32_t> merged; ///< merged children lists (merge mode), used as a stack
    std::vector<std::uint64_t> keys;   ///< the radix sort's two buffers
    std::vector<std::uint32_t> key;    ///< each association's coarse sort key, kept by the level pass
    std::vector<detail::fair_tree_frame> frames; ///< the walk's stack, one frame per level
};

namespace detail {

/// Fair Tree's level pass over the associations [b, e) (the root excluded): S, U, LF and a
/// zero factor each, and each LF's coarse sort key into `key` (here, while the value is at
/// hand). Each value depends on the association and its fs parent only.
inline void fair_tree_levels(const tree& t, columns& c, std::uint32_t* key, std::uint32_t b, std::uint32_t e) noexcept {
    for (std::uint32_t a = b < 1 ? 1 : b; a < e; ++a) {
        const long double parent_usage = t.usage_raw[t.fs_parent[a]];
        const long double u = parent_usage != 0.0L ? t.usage_raw[a] / parent_usage : 0.0L;
        const double s = t.fair_tree_shares[a]; // `fair_tree_share`, derived with the tree
        MFPRIO_ASSERT(u == u);                  // NaN usage breaks the sort's ordering
        c.shares_norm[a] = s;
        c.usage_efctv[a] = u;
        const long double v = fair_tree_level_fs(s, u, t.user[a] != 0, t.is_use_parent(a));
        c.level_fs[a] = v;
        c.fs_factor[a] = 0.0;
        key[a] = coarse_descending_key(v);
    }
}

/// Sorts the children lists (in `ws.order`) of the accounts [b, e) by the LFs of `c`: a list
/// at offset k sorts in the key buffers' slice at 2k (the lists are disjoint, so are the
/// slices, and parts of the tree can be sorted at once).
inline void fair_tree_sort_lists(const tree& t, const columns& c, fair_tree_workspace& ws, std::uint32_t b,
                                 std::uint32_t e) noexcept {
    const sibling_order<long double> before{c.level_fs.data(), t.user.data()};
    const std::uint32_t* const key = ws.key.data();
    for (std::uint32_t a = b; a < e; ++a) {
        if (t.user[a] != 0) continue;
        const std::uint32_t lo = t.child_begin[a], hi = t.child_begin[a + 1];
        if (hi - lo < 2) continue;
        std::uint64_t* const keys = ws.keys.data() + 2 * std::size_t{lo};
        sort_siblings_by(ws.order.data() + lo, ws.order.data() + hi, before,
                         [key](std::uint32_t x) noexcept { return key[x]; }, keys, keys + (hi - lo));
    }
}

/// The users' ranks so far: the next rank to take (`rnt`), the last given (`rank`), and the
/// factor of rank r, r / N.
struct fair_tree_ranks {
    std::uint32_t rank, rnt;
    double users;
};

/// Ranks the run of users that starts at `f.pos` (most of a large tree's entries: users
/// come first in a group at equal LF, and most groups hold only users), with the position
/// and the previous LF in locals, and leaves `f` after the run.
inline void fair_tree_rank_users(fair_tree_frame& f, const long double* lf, const std::uint8_t* user,
                                 double* fs_factor, fair_tree_ranks& r) noexcept {
    const std::uint32_t* pos = f.pos;
    long double prev = f.prev;
    bool tied = pos == f.begin && f.account_tied;
    do {
        const std::uint32_t a = *pos++;
        const long double v = lf[a];
        tied = tied || prev == v;
        prev = v;
        if (!tied) r.rank = r.rnt;
        fs_factor[a] = static_cast<double>(r.rank) / r.users;
        --r.rnt;
        tied = false;
    } while (pos != f.end && user[*pos] != 0);
    f.pos = pos;
    f.prev = prev;
}

/// Fair Tree's walk from the root over the sorted lists of `ws.order` (and in merge mode the
/// merged lists of tied accounts, sorted when they are built), giving each user its factor.
inline void fair_tree_walk(const tree& t, columns& c, fair_tree_workspace& ws, bool merge_ties) {
    const std::size_t n = t.size();
    const long double* const lf = c.level_fs.data();
    const std::uint8_t* const user = t.user.data();
    const sibling_order<long double> before{lf, user};
    const std::uint32_t* const key = ws.key.data();
    const auto key_of = [key](std::uint32_t x) noexcept { return key[x]; };
    std::uint32_t merged_top = 0;
    const auto push_children = [&](std::uint32_t a, bool tied) {
        std::uint32_t* const b = ws.order.data() + t.child_begin[a];
        std::uint32_t* const e = ws.order.data() + t.child_begin[a + 1];
        ws.frames.push_back(
            {.begin = b, .pos = b, .end = e, .prev = fair_tree_no_val, .merged_mark = merged_top, .account_tied = tied});
    };
    fair_tree_ranks ranks{static_cast<std::uint32_t>(t.user_count), static_cast<std::uint32_t>(t.user_count),
                          static_cast<double>(t.user_count)};
    ws.frames.clear();
    push_children(0, false);
    while (!ws.frames.empty()) {
        fair_tree_frame& f = ws.frames.back();
        if (f.pos == f.end) {
            merged_top = f.merged_mark;
            ws.frames.pop_back();
            continue;
        }
        if (user[*f.pos] != 0) {
            fair_tree_rank_users(f, lf, user, c.fs_factor.data(), ranks);
            continue;
        }
        const std::uint32_t a = *f.pos;
        const bool tied = (f.pos == f.begin && f.account_tied) || f.prev == lf[a];
        f.prev = lf[a];
        ++f.pos;
        if (merge_ties) {
            // Following accounts with the same LF (sorted right after `a`: users come first
            // at equal LF) join `a`.
            const std::uint32_t* run_end = f.pos;
            while (run_end != f.end && user[*run_end] == 0 && lf[*run_end] == lf[a]) ++run_end;
            if (run_end != f.pos) {
                const std::uint32_t mark = merged_top;
                std::uint32_t* const b = ws.merged.data() + merged_top;
                std::uint32_t* e = b;
                for (const std::uint32_t* p = f.pos - 1; p != run_end; ++p)
                    for (const std::uint32_t ch : t.children_of(*p)) *e++ = ch;
                f.pos = run_end;
                merged_top = static_cast<std::uint32_t>(e - ws.merged.data());
                sort_siblings_by(b, e, before, key_of, ws.keys.data(), ws.keys.data() + n);
                // (The push may move the frames: f is stale from here.)
                ws.frames.push_back(
                    {.begin = b, .pos = b, .end = e, .prev = fair_tree_no_val, .merged_mark = mark, .account_tied = tied});
                continue;
            }
        }
        push_children(a, tied); // f is stale from here
    }
}

} // namespace detail

/// Slurm's Fair Tree over `t`, written into `c` (resized to the tree when its size differs):
/// - every association: `shares_norm` = S (level-local), `usage_efctv` = U = usage_raw /
///   fs parent's usage_raw (0 when that is 0), `level_fs` = LF (`fair_tree_level_fs`);
///   the root gets S = 0, U = 1 (the value Slurm's plugin init gives it) and LF = NO_VAL;
/// - users: `fs_factor` = rank / N, N = `t.user_count` (every user association, active or
///   not); accounts and the root get 0; `has_level_fs` = true.
///
/// The walk (slurm.md 3.3.2): rank = rnt = N; each sibling group is sorted by LF descending,
/// users before accounts at equal LF, lineage order among equal-LF entries of one kind. An
/// entry is tied when it is the first of a group whose account was tied, or when its LF
/// equals the previous entry's (exactly; the previous LF starts as NO_VAL). A user takes
/// rank = rnt unless tied (then it keeps the last rank given), then rnt decreases: tied
/// users share a rank and the next untied one skips ("1224"). An account passes its tie on
/// to its first child; a childless account consumes no rank but its LF still counts as the
/// previous one.
///
/// `merge_ties` false (Slurm's behaviour, slurm.md 3.3.4): sibling accounts with equal LF are
/// descended separately in lineage order; the second starts tied, so its first user gets
/// the rank of the last user assigned. `merge_ties` true (the documented rule, 3.3.3 rule 3):
/// their children lists are merged (each child keeps the LF computed in its own parent) and
/// sorted together, recursively.
///
/// Floating point as Slurm on x86-64 (slurm.md 3.3.5): S in double, U and LF in long double,
/// exact equality for ties. Inputs: usages must not be NaN.
///
/// `threads` > 1 computes the level fair-shares, then sorts the sibling groups, on that many
/// threads (started for the pass and joined before it returns) when the tree is big enough;
/// the walk follows on the calling thread. The columns are bit-identical to one thread's (the
/// sort order is total, so every way sorts a group alike).
inline void fair_tree(const tree& t, columns& c, fair_tree_workspace& ws, bool merge_ties = false,
                      unsigned threads = 1) {
    const std::size_t n = t.size();
    if (c.shares_norm.size() != n || c.usage_efctv.size() != n || c.level_fs.size() != n || c.fs_factor.size() != n)
        c.resize(n);
    c.has_level_fs = true;
    if (n == 0) return;
    MFPRIO_ASSERT(t.fair_tree_shares.size() == n); // derived with the tree

    c.shares_norm[0] = 0.0;
    c.usage_efctv[0] = 1.0L;
    c.level_fs[0] = fair_tree_no_val;
    c.fs_factor[0] = 0.0;
    ws.order.assign(t.children.begin(), t.children.end());
    if (merge_ties && ws.merged.size() < n) ws.merged.resize(n);
    if (ws.keys.size() < 2 * n) ws.keys.resize(2 * n);
    if (ws.key.size() < n) ws.key.resize(n);

    // Every level fair-share before any list is sorted (a list's order reads its members').
    const unsigned parts = mfprio::detail::parts_for(n, threads, 8192);
    const auto range = [n, parts](unsigned part) {
        return std::pair{static_cast<std::uint32_t>(mfprio::detail::part_begin(n, parts, part)),
                         static_cast<std::uint32_t>(mfprio::detail::part_begin(n, parts, part + 1))};
    };
    mfprio::detail::parallel_rounds(
        parts,
        [&](unsigned part) noexcept {
            const auto [b, e] = range(part);
            detail::fair_tree_levels(t, c, ws.key.data(), b, e);
        },
        [] {},
        [&](unsigned part) noexcept {
            const auto [b, e] = range(part);
            detail::fair_tree_sort_lists(t, c, ws, b, e);
        });
    detail::fair_tree_walk(t, c, ws, merge_ties);
}

/// Slurm's Fair Tree with a scratch workspace of its own (allocates on every call).
inline void fair_tree(const tree& t, columns& c, bool merge_ties = false, unsigned threads = 1) {
    fair_tree_workspace ws;
    fair_tree(t, c, ws, merge_ties, threads);
}

} // namespace mfprio::fairshare
