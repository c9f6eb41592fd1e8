#pragma once
/// \file
/// Normalized shares (sshare's NormShares), the two ways Slurm computes them (reference
/// slurm.md 3.1):
/// - classic (`PriorityFlags=NO_FAIR_TREE`, also DEPTH_OBLIVIOUS): the share of the whole
///   machine, a product of shares_raw / level_shares up the direct-parent chain;
/// - Fair Tree (the default): level-local, shares_raw / level_shares of the association
///   itself.
/// Both write one double per association of the tree, in the tree's order; call them with
/// `columns::shares_norm` (sized to the tree) or use the overloads returning a vector.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <mfprio/core/assert.hpp>
#include <mfprio/fairshare/tree.hpp>

namespace mfprio::fairshare {

namespace detail {

/// Association `x`'s own term of the classic product (x is not the root): 1.0 for
/// FairShare=parent (skipped: s x 1.0 is s), 0.0 where level_shares is 0 (the product is
/// then 0.0 from that point up, as Slurm's assignment makes it: every other term is finite
/// and not negative), else shares_raw / level_shares. With these terms laid out,
/// `chain_product` gives the classic product with one division per association instead of
/// one per association and level.
[[nodiscard]] inline double share_ratio(const tree& t, std::size_t x) noexcept {
    const std::uint32_t level = t.level_shares[x];
    const std::uint32_t raw = t.shares_raw[x];
    const double q = static_cast<double>(raw) / static_cast<double>(level == 0 ? 1u : level);
    return raw == use_parent ? 1.0 : level == 0 ? 0.0 : q;
}

/// `share_ratio` of every association of [begin, end) but the root into `r`.
inline void share_ratios(const tree& t, double* r, std::size_t begin, std::size_t end) noexcept {
    for (std::size_t x = begin < 1 ? 1 : begin; x < end; ++x) r[x] = share_ratio(t, x);
}

/// The classic product of association `a` (not FairShare=parent, not the root) from the
/// terms `share_ratios` laid out: 1.0 times each term up the direct-parent chain from `a`,
/// `a`'s own first, as Slurm multiplies them.
[[nodiscard]] inline double chain_product(const tree& t, const double* r, std::uint32_t a) noexcept {
    double s = 1.0;
    for (std::uint32_t x = a; x != 0; x = t.parent[x]) s *= r[x];
    return s;
}

/// The terms of the classic product along the current path of a depth-first sweep of the
/// tree (lineage order is one): entering an association keeps its `share_ratio` at its
/// depth, so its product multiplies the same terms, its own first and then its ancestors'
/// upward, as `chain_product` does, without walking the parent links or laying the terms
/// out first. Up to 63 levels; `enter` refuses a deeper association, and one whose
/// ancestors are not the path's (a tree not in depth-first order).
class share_path {
public:
    /// Makes association `a` (not the root) the path's last and sets `product` to its
    /// classic product (meaningless for FairShare=parent, whose term is 1.0); false,
    /// changing nothing, when it cannot be (see the class comment).
    [[nodiscard]] bool enter(const tree& t, std::uint32_t a, double& product) noexcept {
        // node_[0 .. depth_] is the chain of the association entered last, each entry the
        // parent of the next; a's ancestors are node_[0 .. d-1] exactly when d - 1 is within
        // it and node_[d - 1] is a's parent. (The parent check alone would accept a child
        // whose parent was entered before a shallower association from another branch.)
        const std::uint32_t d = t.depth[a];
        if (d == 0 || d >= max_depth || d > depth_ + 1 || t.parent[a] != node_[d - 1]) return false;
        const double r = share_ratio(t, a);
        depth_ = d;
        node_[d] = a;
        term_[d] = r;
        double s = r; // 1.0 x its own term
        for (std::uint32_t k = d - 1; k != 0; --k) s *= term_[k];
        product = s;
        return true;
    }

private:
    static constexpr std::uint32_t max_depth = 64;
    std::uint32_t node_[max_depth] = {}; // node_[d]: the path's association at depth d (the root at 0)
    double term_[max_depth] = {};
    std::uint32_t depth_ = 0; // the depth of the association entered last (0: the root)
};

} // namespace detail

/// Classic normalized shares (Slurm's `_normalize_assoc_shares_traditional`):
/// - the root has 1;
/// - an association with FairShare=parent takes its fs parent's value;
/// - any other association has the product, over the direct-parent chain from itself up to
///   (excluding) the root and skipping FairShare=parent associations, of
///   shares_raw / level_shares (each a double); 0 if some level_shares on the chain is 0.
/// The product starts from 1.0 and multiplies the association's own ratio first, then its
/// parent's, and so on upward, as Slurm does, so the result is bit-identical (a level_shares
/// of 0 makes its term 0.0, and the product 0.0 from there up, as Slurm's assignment does:
/// the other terms are finite and not negative). O(depth) per association, one division
/// each. `out` must have `t.size()` entries.
inline void classic_shares(const tree& t, std::span<double> out) noexcept {
    MFPRIO_ASSERT(out.size() == t.size());
    const std::size_t n = t.size();
    if (n == 0) return;
    double* const r = out.data();
    // In one sweep along the depth-first path (an fs parent, a proper ancestor, is final
    // before its FairShare=parent children copy it), unless the tree is too deep or not in
    // depth-first order.
    detail::share_path path;
    r[0] = 1.0;
    std::uint32_t a = 1;
    double product = 0.0;
    for (; a < n && path.enter(t, a, product); ++a) r[a] = t.is_use_parent(a) ? r[t.fs_parent[a]] : product;
    if (a == n) return;
    // Else each association's term first, in `out`; then each product in place, from the last
    // association back (a product reads the terms of the association and its ancestors,
    // which come earlier and are still terms); then FairShare=parent copies, forward (an fs
    // parent is a proper ancestor, never FairShare=parent itself, and already final).
    detail::share_ratios(t, r, 0, n);
    for (std::size_t x = n - 1; x >= 1; --x)
        if (!t.is_use_parent(static_cast<std::uint32_t>(x))) r[x] = detail::chain_product(t, r, static_cast<std::uint32_t>(x));
    r[0] = 1.0;
    for (std::uint32_t x = 1; x < n; ++x)
        if (t.is_use_parent(x)) r[x] = r[t.fs_parent[x]];
}

/// Classic normalized shares as a new vector (see the span overload).
[[nodiscard]] inline std::vector<double> classic_shares(const tree& t) {
    std::vector<double> out(t.size());
    classic_shares(t, out);
    return out;
}

/// One association's Fair Tree normalized shares: level-local, a = fs parent for a
/// FairShare=parent association, S = shares_raw / level_shares as doubles, 0 when the level
/// has no shares; 0 for the root.
[[nodiscard]] inline double fair_tree_share(const tree& t, std::uint32_t a) noexcept {
    const std::uint32_t s = t.is_use_parent(a) ? t.fs_parent[a] : a;
    if (s == 0 || t.level_shares[s] == 0) return 0.0;
    return static_cast<double>(t.shares_raw[s]) / static_cast<double>(t.level_shares[s]);
}

/// Fair Tree normalized shares (Slurm's `_normalize_assoc_shares_fair_tree`): with
/// a = the fs parent for a FairShare=parent association and the association itself
/// otherwise, S = a.shares_raw / a.level_shares (as doubles; 0 if level_shares is 0). This is
/// level-local, not a product. The root has 0 (Slurm divides the root's 0 shares by its
/// NO_VAL level shares). A FairShare=parent association directly under the root therefore
/// gets 0. `out` must have `t.size()` entries.
inline void fair_tree_shares(const tree& t, std::span<double> out) noexcept {
    MFPRIO_ASSERT(out.size() == t.size());
    for (std::uint32_t a = 0; a < t.size(); ++a) out[a] = fair_tree_share(t, a);
}

/// Fair Tree normalized shares as a new vector (see the span overload).
[[nodiscard]] inline std::vector<double> fair_tree_shares(const tree& t) {
    std::vector<double> out(t.size());
    fair_tree_shares(t, out);
    return out;
}

inline void tree_builder::derive(tree& t) {
    derive_links(t);
    const std::size_t n = t.size();
    t.classic_shares.resize(n);
    classic_shares(t, t.classic_shares);
    t.fair_tree_shares.resize(n);
    fair_tree_shares(t, t.fair_tree_shares);
    t.level_part.assign(n, 0.0L);
    for (std::uint32_t a = 1; a < n; ++a)
        if (!t.is_use_parent(a) && t.level_shares[a] != 0)
            t.level_part[a] = static_cast<long double>(t.shares_raw[a]) / static_cast<long double>(t.level_shares[a]);
}

} // namespace mfprio::fairshare
