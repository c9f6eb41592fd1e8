#pragma once
/// \file
/// flux-accounting's fair-share, the weighted tree (reference flux_maui.md A2.5;
/// `flux account-update-fshare`): every association gets a weight among its siblings,
/// (shares / sibling shares) / (usage / sibling usage); a depth-first walk visits siblings by
/// weight, descending, and gives each user rank / N, N the number of users.
///
/// Where flux-accounting leaves things unspecified or loses precision, mfprio chooses
/// (reference flux_maui.md D4):
/// - sibling usage sums are doubles; flux's truncation of the sum to an integer after every
///   addition is `flux_tree_options::truncate_usage_sums`;
/// - ties are resolved deterministically: siblings are sorted exactly (weight descending,
///   users first, lineage order), then a run of neighbours whose weights are equal within
///   flux's relative epsilon is one tie group (flux's `std::sort` leaves the order inside a
///   tie unspecified, and its tie test is not transitive);
/// - FairShare=parent does not exist in flux: such an association keeps its place under its
///   direct parent and counts as RawShares 1 (the tree's fs-parent flattening is Slurm's and
///   is not used here);
/// - flux's database reader ignores the users of a bank that has sub-banks; mfprio ranks
///   them by default and offers flux's reading as
///   `flux_tree_options::ignore_users_of_banks_with_sub_banks`.
///
/// Cost: O(A) for the weights plus one sort per visited sibling group; no allocation once a
/// `flux_tree_workspace` has served a tree of that size.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include <mfprio/core/assert.hpp>
#include <mfprio/fairshare/columns.hpp>
#include <mfprio/fairshare/fair_tree.hpp>
#include <mfprio/fairshare/tree.hpp>

namespace mfprio::fairshare {

/// The weight flux gives an association that has shares and no usage: 2^64, i.e.
/// double(UINT64_MAX) + 1, above any weight computed from usage; all such siblings tie.
inline constexpr double flux_no_usage_weight = 18446744073709551616.0;

/// flux-accounting's tie test for weights: |a - b| < DBL_EPSILON * max(|a|, |b|, 1), an
/// absolute epsilon below 1 and a relative one above (about one or two ulps).
[[nodiscard]] inline bool flux_weights_tie(double a, double b) noexcept {
    return std::fabs(a - b) < std::numeric_limits<double>::epsilon() * std::max({std::fabs(a), std::fabs(b), 1.0});
}

/// flux-accounting's weight of one association among its siblings, from its shares and
/// usage and the siblings' sums (itself included):
/// - shares 0: 0, even with no usage;
/// - |usage| < 1e-9: `flux_no_usage_weight`;
/// - otherwise (shares / shares_sum) / (usage / usage_sum), in double; 0 when usage_sum is
///   0 (only with truncated sums: flux divides by an infinite usage share).
[[nodiscard]] inline double flux_weight(std::uint64_t shares, double usage, std::uint64_t shares_sum,
                                        double usage_sum) noexcept {
    if (shares == 0) return 0.0;
    if (std::fabs(usage) < 1e-9) return flux_no_usage_weight;
    if (usage_sum == 0.0) return 0.0;
    const double s = static_cast<double>(shares) / static_cast<double>(shares_sum);
    const double u = usage / usage_sum;
    return s / u;
}

/// Choices where mfprio and flux-accounting differ; the defaults are mfprio's.
struct flux_tree_options {
    /// flux-accounting accumulates the sibling usage sum in a uint64, truncating after every
    /// addition (usages 0.6, 0.7, 2.9 sum to 2, not 4.2). true reproduces it.
    bool truncate_usage_sums = false;
    /// flux-accounting's database reader reads the users of a bank only when the bank has no
    /// sub-banks. true reproduces it: such users are left out of the tree (not ranked, not in
    /// N, their usage not in their bank's), and get a factor of 0.
    bool ignore_users_of_banks_with_sub_banks = false;
};

namespace detail {

/// One sibling group (or merged group) being walked.
struct flux_tree_frame {
    const std::uint32_t* pos;
    const std::uint32_t* end;
    std::uint32_t merged_mark; ///< top of the merged buffer to restore when the group ends
};

/// flux's shares of an association: RawShares, FairShare=parent read as 1.
[[nodiscard]] inline std::uint64_t flux_shares(const tree& t, std::uint32_t a) noexcept {
    return t.is_use_parent(a) ? 1u : t.shares_raw[a];
}

/// flux's truncating accumulation: the running sum is a uint64, each addition is done in
/// double and converted back (clamped to the uint64 range, where flux's cast would be
/// undefined).
[[nodiscard]] inline std::uint64_t flux_truncating_add(std::uint64_t sum, double usage) noexcept {
    const double x = static_cast<double>(sum) + usage;
    if (!(x >= 0.0)) return 0;
    if (x >= flux_no_usage_weight) return std::numeric_limits<std::uint64_t>::max();
    return static_cast<std::uint64_t>(x);
}

} // namespace detail

/// Scratch memory for `flux_tree`, kept between passes so a pass allocates nothing once the
/// buffers have grown to the tree's size. One workspace per thread.
struct flux_tree_workspace {
    std::vector<double> usage;               ///< per association, in double, summed up the direct parents
    std::vector<double> weight;              ///< per association
    std::vector<std::uint8_t> has_sub_bank;  ///< per association
    std::vector<std::uint32_t> child_begin;  ///< direct children lists (CSR), each sorted when visited
    std::vector<std::uint32_t> children;
    std::vector<std::uint32_t> merged;       ///< virtual nodes' children lists, used as a stack
    std::vector<std::uint64_t> keys;         ///< the radix sort's two buffers
    std::vector<detail::flux_tree_frame> frames;
};

/// flux-accounting's weighted tree over `t` (direct parents), written into `c` (resized to
/// the tree when its size differs):
/// - every association but the root: `shares_norm` = shares / sibling shares,
///   `usage_efctv` = usage / sibling usage (0 when that sum is 0), `level_fs` = the weight
///   (`flux_weight`); the root (which has no weight) and users left out by the options keep
///   0, 0, NaN;
/// - users: `fs_factor` = rank / N in (0, 1], N = the number of users ranked; accounts get 0;
///   `has_level_fs` = true.
///
/// The walk (flux_maui.md A2.5): the rank counter starts at N. In each sibling list, sorted
/// by weight descending, a tie group (neighbours whose weights tie by `flux_weights_tie`)
/// is handled users first: its users all get the current rank / N, then the counter drops by
/// their number (tied users share the higher value). Its banks come next: one bank is
/// descended into; two or more form a virtual node whose children are the union of theirs
/// (each keeping the weight computed in its own parent), sorted again, then walked the same
/// way. A user and a bank never share a rank.
inline void flux_tree(const tree& t, columns& c, flux_tree_workspace& ws, flux_tree_options opt = {}) {
    const std::size_t n = t.size();
    if (c.shares_norm.size() != n || c.usage_efctv.size() != n || c.level_fs.size() != n || c.fs_factor.size() != n)
        c.resize(n);
    c.has_level_fs = true;
    if (n == 0) return;

    const std::uint8_t* const user = t.user.data();
    // Who is in flux's tree.
    ws.has_sub_bank.assign(n, 0);
    if (opt.ignore_users_of_banks_with_sub_banks)
        for (std::uint32_t a = 1; a < n; ++a)
            if (!user[a]) ws.has_sub_bank[t.parent[a]] = 1;
    const auto in_tree = [&](std::uint32_t a) { return !(user[a] && ws.has_sub_bank[t.parent[a]]); };

    // Usage in double, users' usage summed up the direct parents (children come after
    // parents, so one backward sweep suffices).
    ws.usage.assign(n, 0.0);
    for (std::uint32_t a = 1; a < n; ++a)
        if (user[a] && in_tree(a)) ws.usage[a] = static_cast<double>(t.usage_raw[a]);
    for (std::size_t a = n; a-- > 1;) ws.usage[t.parent[a]] += ws.usage[a];

    // Direct children lists, in lineage order.
    ws.child_begin.assign(n + 1, 0);
    std::size_t users_in_tree = 0;
    for (std::uint32_t a = 1; a < n; ++a)
        if (in_tree(a)) {
            ++ws.child_begin[t.parent[a] + 1];
            users_in_tree += user[a];
        }
    for (std::size_t a = 0; a < n; ++a) ws.child_begin[a + 1] += ws.child_begin[a];
    ws.children.resize(ws.child_begin[n]);
    if (ws.merged.size() < n) ws.merged.resize(n);
    {
        // fill cursors: `merged` serves as scratch before the walk needs it
        std::uint32_t* const cursor = ws.merged.data();
        std::copy_n(ws.child_begin.begin(), n, cursor);
        for (std::uint32_t a = 1; a < n; ++a)
            if (in_tree(a)) ws.children[cursor[t.parent[a]]++] = a;
    }

    // Weights, sibling list by sibling list.
    ws.weight.assign(n, 0.0);
    c.shares_norm[0] = 0.0;
    c.usage_efctv[0] = 0.0L;
    c.level_fs[0] = std::numeric_limits<long double>::quiet_NaN();
    for (std::uint32_t a = 0; a < n; ++a) c.fs_factor[a] = 0.0;
    for (std::uint32_t a = 1; a < n; ++a)
        if (!in_tree(a)) {
            c.shares_norm[a] = 0.0;
            c.usage_efctv[a] = 0.0L;
            c.level_fs[a] = std::numeric_limits<long double>::quiet_NaN();
        }
    for (std::uint32_t p = 0; p < n; ++p) {
        const std::uint32_t* const b = ws.children.data() + ws.child_begin[p];
        const std::uint32_t* const e = ws.children.data() + ws.child_begin[p + 1];
        if (b == e) continue;
        std::uint64_t shares_sum = 0;
        double usage_sum = 0.0;
        std::uint64_t truncated_sum = 0;
        for (const std::uint32_t* x = b; x != e; ++x) {
            shares_sum += detail::flux_shares(t, *x);
            if (opt.truncate_usage_sums)
                truncated_sum = detail::flux_truncating_add(truncated_sum, ws.usage[*x]);
            else
                usage_sum += ws.usage[*x];
        }
        if (opt.truncate_usage_sums) usage_sum = static_cast<double>(truncated_sum);
        for (const std::uint32_t* x = b; x != e; ++x) {
            const std::uint64_t s = detail::flux_shares(t, *x);
            const double w = flux_weight(s, ws.usage[*x], shares_sum, usage_sum);
            MFPRIO_ASSERT(w == w); // NaN usage breaks the sort's ordering
            ws.weight[*x] = w;
            c.shares_norm[*x] = shares_sum != 0 ? static_cast<double>(s) / static_cast<double>(shares_sum) : 0.0;
            c.usage_efctv[*x] = usage_sum != 0.0 ? static_cast<long double>(ws.usage[*x] / usage_sum) : 0.0L;
            c.level_fs[*x] = w;
        }
    }

    const double* const weight = ws.weight.data();
    const detail::sibling_order<double> before{weight, user};
    if (ws.keys.size() < 2 * n) ws.keys.resize(2 * n);
    ws.frames.clear();
    std::uint32_t merged_top = 0;
    const auto sort = [&](std::uint32_t* b, std::uint32_t* e) {
        detail::sort_siblings(b, e, before, ws.keys.data(), ws.keys.data() + n);
    };
    const auto push_children = [&](std::uint32_t a) {
        std::uint32_t* const b = ws.children.data() + ws.child_begin[a];
        std::uint32_t* const e = ws.children.data() + ws.child_begin[a + 1];
        sort(b, e);
        ws.frames.push_back({.pos = b, .end = e, .merged_mark = merged_top});
    };

    const double users = static_cast<double>(users_in_tree);
    std::uint64_t rank = users_in_tree;
    push_children(0);
    while (!ws.frames.empty()) {
        detail::flux_tree_frame& f = ws.frames.back();
        if (f.pos == f.end) {
            merged_top = f.merged_mark;
            ws.frames.pop_back();
            continue;
        }
        // The tie group starting here.
        const std::uint32_t* const g = f.pos;
        const std::uint32_t* ge = g + 1;
        while (ge != f.end && flux_weights_tie(weight[ge[-1]], weight[*ge])) ++ge;
        f.pos = ge;
        std::uint64_t group_users = 0;
        std::size_t banks = 0;
        const std::uint32_t* first_bank = nullptr;
        for (const std::uint32_t* x = g; x != ge; ++x) {
            if (user[*x]) {
                c.fs_factor[*x] = static_cast<double>(rank) / users;
                ++group_users;
            } else if (banks++ == 0) {
                first_bank = x;
            }
        }
        rank -= group_users;
        if (banks == 0) continue;
        if (banks == 1) {
            push_children(*first_bank); // f is stale from here
            continue;
        }
        // A virtual node: the union of the tied banks' children.
        const std::uint32_t mark = merged_top;
        std::uint32_t* const b = ws.merged.data() + merged_top;
        std::uint32_t* e = b;
        for (const std::uint32_t* x = first_bank; x != ge; ++x)
            if (!user[*x])
                for (std::uint32_t k = ws.child_begin[*x]; k != ws.child_begin[*x + 1]; ++k) *e++ = ws.children[k];
        merged_top = static_cast<std::uint32_t>(e - ws.merged.data());
        sort(b, e);
        ws.frames.push_back({.pos = b, .end = e, .merged_mark = mark}); // f is stale from here
    }
}

/// flux-accounting's weighted tree with a scratch workspace of its own (allocates on every
/// call).
inline void flux_tree(const tree& t, columns& c, flux_tree_options opt = {}) {
    flux_tree_workspace ws;
    flux_tree(t, c, ws, opt);
}

} // namespace mfprio::fairshare
