#pragma once
/// \file
/// The association tree of Slurm's fair-share (root, accounts, users) as flat arrays in
/// lineage order (parents before children, each account's users before its sub-accounts,
/// then alphabetical): shares with FairShare=parent, level shares, the fair-share parent and
/// the flattened children lists, usage aggregated up the direct-parent chain. Indices, not
/// pointers; the root is index 0. Build one with `tree_builder`.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <mfprio/core/assert.hpp>
#include <mfprio/core/job.hpp>

namespace mfprio::fairshare {

/// RawShares of an association with FairShare=parent (Slurm's SLURMDB_FS_USE_PARENT).
inline constexpr std::uint32_t use_parent = 0x7FFFFFFFu;
/// "No association" (the root's parent).
inline constexpr std::uint32_t none = 0xFFFFFFFFu;

/// The association tree. Every per-association vector has `size()` entries in lineage order.
struct tree {
    std::vector<std::uint32_t> parent;       ///< direct parent (`none` for the root)
    std::vector<std::uint32_t> fs_parent;    ///< nearest proper ancestor whose shares are not `use_parent`, else the root
    std::vector<std::uint32_t> shares_raw;   ///< RawShares; `use_parent`; the root holds no_val32
    std::vector<std::uint32_t> level_shares; ///< sum of the shares of the fs-siblings (root: no_val32)
    std::vector<std::uint32_t> depth;        ///< 0 for the root
    std::vector<std::uint8_t> user;          ///< 1 for user associations (leaves)
    std::vector<std::uint32_t> child_begin;  ///< children of a are children[child_begin[a] .. child_begin[a+1])
    std::vector<std::uint32_t> children;     ///< fs-children (the flattened lists), lineage order
    std::vector<long double> usage_raw;      ///< RawUsage; accounts hold the sum of their users
    // Derived from the shares by `tree_builder::derive` (the shares change when an
    // administrator edits them, usage at every pass: the passes read these instead of
    // dividing again).
    std::vector<double> classic_shares;      ///< classic normalized shares (`fairshare::classic_shares`)
    std::vector<double> fair_tree_shares;    ///< Fair Tree normalized shares (`fairshare::fair_tree_shares`)
    std::vector<long double> level_part;     ///< shares_raw / level_shares in long double (classic UE's weight; 0 where either is unusable)
    std::vector<std::string> account;        ///< account name (of the user's account for users)
    std::vector<std::string> user_name;      ///< user name, empty for accounts
    std::vector<std::string> partition;      ///< partition of a per-partition user association
    std::size_t user_count = 0;              ///< number of user associations (Fair Tree's N)

    [[nodiscard]] std::size_t size() const noexcept { return parent.size(); }
    [[nodiscard]] bool is_user(std::uint32_t a) const noexcept { return user[a] != 0; }
    [[nodiscard]] bool is_use_parent(std::uint32_t a) const noexcept { return shares_raw[a] == use_parent; }
    /// The fs-children of `a` (the flattened children list).
    [[nodiscard]] std::span<const std::uint32_t> children_of(std::uint32_t a) const noexcept {
        return {children.data() + child_begin[a], children.data() + child_begin[a + 1]};
    }
    /// The association of user `u` under account `acct` (and `part`), if any.
    [[nodiscard]] std::optional<std::uint32_t> find_user(std::string_view acct, std::string_view u,
                                                         std::string_view part = {}) const {
        for (std::uint32_t a = 0; a < size(); ++a)
            if (user[a] && account[a] == acct && user_name[a] == u && partition[a] == part) return a;
        return std::nullopt;
    }
    [[nodiscard]] std::optional<std::uint32_t> find_account(std::string_view acct) const {
        for (std::uint32_t a = 0; a < size(); ++a)
            if (!user[a] && account[a] == acct) return a;
        return std::nullopt;
    }

    /// Recomputes the accounts' usage as the sum of their users' usage up the direct-parent
    /// chain (values given to accounts are overwritten, as Slurm does). Children come after
    /// parents, so one backward sweep suffices.
    void aggregate_usage() noexcept {
        for (std::size_t a = 0; a < size(); ++a)
            if (!user[a]) usage_raw[a] = 0;
        for (std::size_t a = size(); a-- > 1;) usage_raw[parent[a]] += usage_raw[a];
    }
};

/// Builds a tree from accounts and users given in any order, then sorts it into lineage
/// order and derives the fair-share parents, children lists and level shares.
class tree_builder {
public:
    /// The root (`root`, no shares) exists from the start with index 0.
    tree_builder() { add("root", "", "", none, no_val32, false, 0); }

    /// Adds an account under `parent_account` (an index returned earlier; 0 = root) with
    /// `shares` (or `use_parent`). Returns the account's builder index.
    std::uint32_t add_account(std::uint32_t parent_account, std::string name, std::uint32_t shares) {
        return add(std::move(name), "", "", parent_account, shares, false, 0);
    }
    /// Adds a user association under `account` with `shares` (or `use_parent`) and its raw
    /// usage. Returns the association's builder index.
    std::uint32_t add_user(std::uint32_t account, std::string user, std::uint32_t shares, long double usage = 0,
                           std::string partition = {}) {
        MFPRIO_ASSERT(account < names_.size()); // before names_[account] is read
        return add(names_[account], std::move(user), std::move(partition), account, shares, true, usage);
    }

    [[nodiscard]] std::size_t size() const noexcept { return parent_.size(); }

    /// Where builder index `i` ended up in the built tree (valid after `build`).
    [[nodiscard]] std::uint32_t position(std::uint32_t i) const noexcept { return position_[i]; }

    /// Sorts into lineage order and derives everything. The builder can be built again.
    [[nodiscard]] tree build() {
        const std::size_t n = parent_.size();
        // lineage strings: "/" for root, parent + name + "/" for accounts, parent + "0-" +
        // user + "/" (+ partition + "/") for users, so users sort before sub-accounts.
        std::vector<std::string> lineage(n);
        for (std::size_t i = 0; i < n; ++i) {
            if (i == 0) {
                lineage[i] = "/";
                continue;
            }
            const std::uint32_t p = parent_[i];
            MFPRIO_ASSERT(p < i); // parents are added before children
            lineage[i] = lineage[p] + (user_[i] ? "0-" + users_[i] + "/" : names_[i] + "/");
            if (user_[i] && !partitions_[i].empty()) lineage[i] += partitions_[i] + "/";
        }
        std::vector<std::uint32_t> order(n);
        std::iota(order.begin(), order.end(), 0u);
        std::stable_sort(order.begin() + 1, order.end(),
                         [&](std::uint32_t a, std::uint32_t b) { return lineage[a] < lineage[b]; });
        position_.assign(n, 0);
        for (std::uint32_t k = 0; k < n; ++k) position_[order[k]] = k;

        tree t;
        t.parent.resize(n);
        t.fs_parent.resize(n);
        t.shares_raw.resize(n);
        t.level_shares.assign(n, no_val32);
        t.depth.resize(n);
        t.user.resize(n);
        t.usage_raw.resize(n);
        t.account.resize(n);
        t.user_name.resize(n);
        t.partition.resize(n);
        for (std::uint32_t k = 0; k < n; ++k) {
            const std::uint32_t i = order[k];
            t.parent[k] = i == 0 ? none : position_[parent_[i]];
            t.shares_raw[k] = shares_[i];
            t.user[k] = user_[i];
            t.usage_raw[k] = usage_[i];
            t.account[k] = names_[i];
            t.user_name[k] = users_[i];
            t.partition[k] = partitions_[i];
            t.depth[k] = k == 0 ? 0 : t.depth[t.parent[k]] + 1;
            t.user_count += user_[i];
        }
        derive(t);
        return t;
    }

    /// Derives fs parents, children lists, level shares and the normalized shares of a tree
    /// whose parent, shares and user columns are set and in lineage order; aggregates usage.
    /// (Defined after shares.hpp's functions, at the end of that header.)
    static void derive(tree& t);

private:
    /// `derive` but the normalized shares.
    static void derive_links(tree& t) {
        const std::size_t n = t.size();
        t.fs_parent.assign(n, none);
        for (std::uint32_t a = 1; a < n; ++a) {
            std::uint32_t p = t.parent[a];
            while (p != 0 && t.shares_raw[p] == use_parent) p = t.parent[p];
            t.fs_parent[a] = p;
        }
        // children lists (CSR), in lineage order
        t.child_begin.assign(n + 1, 0);
        for (std::uint32_t a = 1; a < n; ++a) ++t.child_begin[t.fs_parent[a] + 1];
        for (std::size_t a = 0; a < n; ++a) t.child_begin[a + 1] += t.child_begin[a];
        t.children.assign(n == 0 ? 0 : n - 1, 0);
        std::vector<std::uint32_t> fill(t.child_begin.begin(), t.child_begin.end() - 1);
        for (std::uint32_t a = 1; a < n; ++a) t.children[fill[t.fs_parent[a]]++] = a;
        // level shares: the sum of the non-parent children's shares, given to every child
        // (a use_parent child has no children of its own, so it contributes 0)
        t.level_shares.assign(n, no_val32);
        for (std::uint32_t p = 0; p < n; ++p) {
            std::uint64_t sum = 0;
            for (auto c : t.children_of(p))
                if (t.shares_raw[c] != use_parent) sum += t.shares_raw[c];
            for (auto c : t.children_of(p)) t.level_shares[c] = static_cast<std::uint32_t>(std::min<std::uint64_t>(sum, 0xffffffffu));
        }
        t.aggregate_usage();
    }

    std::uint32_t add(std::string name, std::string user, std::string partition, std::uint32_t parent,
                      std::uint32_t shares, bool is_user, long double usage) {
        MFPRIO_ASSERT(parent == none || parent < parent_.size());
        MFPRIO_ASSERT(parent == none || !user_[parent]); // users are leaves
        names_.push_back(std::move(name));
        users_.push_back(std::move(user));
        partitions_.push_back(std::move(partition));
        parent_.push_back(parent);
        shares_.push_back(shares);
        user_.push_back(is_user ? 1 : 0);
        usage_.push_back(usage);
        return static_cast<std::uint32_t>(parent_.size() - 1);
    }

    std::vector<std::string> names_, users_, partitions_;
    std::vector<std::uint32_t> parent_, shares_, position_;
    std::vector<std::uint8_t> user_;
    std::vector<long double> usage_;
};

} // namespace mfprio::fairshare

// tree_builder::derive needs the normalized shares' functions, which need the tree.
#include <mfprio/fairshare/shares.hpp>
