// Tests for mfprio/fairshare/tree.hpp (reference slurm.md 0): lineage order, fs parents
// with FairShare=parent on users and on accounts, the flattened children lists, level
// shares, usage aggregation up the direct-parent chain, the root's NO_VAL fields.
#include <doctest/doctest.h>

#include <mfprio/fairshare/tree.hpp>

#include <cstdint>
#include <vector>

using namespace mfprio::fairshare;

namespace {

// The tree every case below reads (shares in parentheses, raw usage after the colon):
//
//   root
//   ├── b (2)                       added first, sorts last
//   │   └── carl (5): 3
//   └── a (3)
//       ├── zed (1): 10             added before bob, sorts after him
//       ├── a1 (4)
//       │   └── amy (1): 5
//       ├── bob (parent): 7         FairShare=parent on a user
//       └── p (parent)              FairShare=parent on an account
//           ├── pat (2): 11
//           └── q (6)
//               └── quinn (1): 13
//
// Lineage strings: /  /a/  /a/0-bob/  /a/0-zed/  /a/a1/  /a/a1/0-amy/  /a/p/  /a/p/0-pat/
// /a/p/q/  /a/p/q/0-quinn/  /b/  /b/0-carl/ -> that is the tree order, indices 0..11.
struct sample {
    tree_builder b;
    std::uint32_t root = 0, a = 0, b_ = 0, zed = 0, a1 = 0, amy = 0, bob = 0, p = 0, pat = 0, q = 0, quinn = 0,
                  carl = 0;
    tree t;
    sample() {
        b_ = b.add_account(0, "b", 2);
        carl = b.add_user(b_, "carl", 5, 3);
        a = b.add_account(0, "a", 3);
        zed = b.add_user(a, "zed", 1, 10);
        a1 = b.add_account(a, "a1", 4);
        amy = b.add_user(a1, "amy", 1, 5);
        bob = b.add_user(a, "bob", use_parent, 7);
        p = b.add_account(a, "p", use_parent);
        pat = b.add_user(p, "pat", 2, 11);
        q = b.add_account(p, "q", 6);
        quinn = b.add_user(q, "quinn", 1, 13);
        t = b.build();
    }
    std::uint32_t at(std::uint32_t builder_index) const { return b.position(builder_index); }
};

std::vector<std::uint32_t> children(const tree& t, std::uint32_t a) {
    const auto c = t.children_of(a);
    return {c.begin(), c.end()};
}

} // namespace

TEST_CASE("fairshare: tree lineage order puts users before sub-accounts, alphabetically") {
    const sample s;
    const tree& t = s.t;
    REQUIRE(t.size() == 12);
    // Expected order from the lineage strings in the comment above.
    CHECK(s.at(s.root) == 0);
    CHECK(s.at(s.a) == 1);
    CHECK(s.at(s.bob) == 2);
    CHECK(s.at(s.zed) == 3);
    CHECK(s.at(s.a1) == 4);
    CHECK(s.at(s.amy) == 5);
    CHECK(s.at(s.p) == 6);
    CHECK(s.at(s.pat) == 7);
    CHECK(s.at(s.q) == 8);
    CHECK(s.at(s.quinn) == 9);
    CHECK(s.at(s.b_) == 10);
    CHECK(s.at(s.carl) == 11);

    CHECK(t.account[0] == "root");
    CHECK(t.account[2] == "a"); // a user shows its account's name
    CHECK(t.user_name[2] == "bob");
    CHECK(t.user_name[1].empty());
    CHECK(t.is_user(2));
    CHECK_FALSE(t.is_user(1));
    CHECK(t.user_count == 6); // bob, zed, amy, pat, quinn, carl

    // direct parents and depths follow the input tree
    CHECK(t.parent[0] == none);
    CHECK(t.parent[9] == 8);  // quinn -> q
    CHECK(t.parent[8] == 6);  // q -> p
    CHECK(t.parent[6] == 1);  // p -> a
    CHECK(t.depth[0] == 0);
    CHECK(t.depth[1] == 1);
    CHECK(t.depth[9] == 4);   // root / a / p / q / quinn

    CHECK(t.find_user("a", "zed") == 3u);
    CHECK(t.find_account("q") == 8u);
    CHECK_FALSE(t.find_user("b", "zed"));
}

TEST_CASE("fairshare: tree fs parents and children lists with FairShare=parent") {
    const sample s;
    const tree& t = s.t;
    // Reference 0: fs parent = nearest proper ancestor whose shares are not `parent`, else root.
    CHECK(t.fs_parent[0] == none);
    CHECK(t.fs_parent[1] == 0);  // a -> root
    CHECK(t.fs_parent[2] == 1);  // bob (parent) -> a: his own FairShare=parent does not matter
    CHECK(t.fs_parent[3] == 1);  // zed -> a
    CHECK(t.fs_parent[5] == 4);  // amy -> a1
    CHECK(t.fs_parent[6] == 1);  // p (parent) -> a
    CHECK(t.fs_parent[7] == 1);  // pat: direct parent p is `parent`, so a
    CHECK(t.fs_parent[8] == 1);  // q: same
    CHECK(t.fs_parent[9] == 8);  // quinn -> q (q itself has shares)
    CHECK(t.fs_parent[11] == 10);

    // children of X = every association whose fs parent is X, in lineage order: p's children
    // move up to a, and p itself stays in a's list; p has none of its own.
    CHECK(children(t, 0) == std::vector<std::uint32_t>{1, 10});
    CHECK(children(t, 1) == std::vector<std::uint32_t>{2, 3, 4, 6, 7, 8});
    CHECK(children(t, 4) == std::vector<std::uint32_t>{5});
    CHECK(children(t, 6).empty());
    CHECK(children(t, 8) == std::vector<std::uint32_t>{9});
    CHECK(children(t, 2).empty()); // users are leaves
    CHECK(t.is_use_parent(2));
    CHECK(t.is_use_parent(6));
    CHECK_FALSE(t.is_use_parent(7));
}

TEST_CASE("fairshare: tree level shares (a FairShare=parent child contributes 0; root NO_VAL)") {
    const sample s;
    const tree& t = s.t;
    CHECK(t.level_shares[0] == mfprio::no_val32); // never set for the root
    CHECK(t.shares_raw[0] == mfprio::no_val32);
    // root's children a (3) + b (2) = 5
    CHECK(t.level_shares[1] == 5);
    CHECK(t.level_shares[10] == 5);
    // a's children: bob (parent) 0 + zed 1 + a1 4 + p (parent) 0 + pat 2 + q 6 = 13
    for (std::uint32_t c : {2u, 3u, 4u, 6u, 7u, 8u}) {
        CAPTURE(c);
        CHECK(t.level_shares[c] == 13);
    }
    CHECK(t.level_shares[5] == 1);  // amy alone under a1
    CHECK(t.level_shares[9] == 1);  // quinn alone under q
    CHECK(t.level_shares[11] == 5); // carl alone under b
    CHECK(t.shares_raw[4] == 4);
    CHECK(t.shares_raw[6] == use_parent);
}

TEST_CASE("fairshare: tree usage aggregation up the direct-parent chain overwrites accounts") {
    sample s;
    tree& t = s.t;
    // users: bob 7, zed 10, amy 5, pat 11, quinn 13, carl 3
    auto check_sums = [&] {
        CHECK(t.usage_raw[4] == 5.0L);   // a1 = amy
        CHECK(t.usage_raw[8] == 13.0L);  // q = quinn
        CHECK(t.usage_raw[6] == 24.0L);  // p = pat 11 + q 13 (direct parent, not fs parent)
        CHECK(t.usage_raw[1] == 46.0L);  // a = bob 7 + zed 10 + a1 5 + p 24
        CHECK(t.usage_raw[10] == 3.0L);  // b = carl
        CHECK(t.usage_raw[0] == 49.0L);  // root = 46 + 3, the cluster total
        CHECK(t.usage_raw[3] == 10.0L);  // users keep theirs
    };
    check_sums();
    // Values given to accounts are reset and re-aggregated, as Slurm does.
    t.usage_raw[1] = 1000.0L;
    t.usage_raw[0] = 1.0L;
    t.usage_raw[8] = 99.0L;
    t.aggregate_usage();
    check_sums();
    // A user's change reaches every ancestor.
    t.usage_raw[9] = 20.0L; // quinn 13 -> 20
    t.aggregate_usage();
    CHECK(t.usage_raw[8] == 20.0L);
    CHECK(t.usage_raw[6] == 31.0L);
    CHECK(t.usage_raw[1] == 53.0L);
    CHECK(t.usage_raw[0] == 56.0L);
}

TEST_CASE("fairshare: tree per-partition user associations and an empty tree") {
    tree_builder b;
    const auto acct = b.add_account(0, "chem", 1);
    const auto gpu = b.add_user(acct, "dave", 1, 4, "gpu");
    const auto plain = b.add_user(acct, "dave", 1, 6);
    const tree t = b.build();
    // /chem/0-dave/ sorts before /chem/0-dave/gpu/
    CHECK(b.position(plain) == 2);
    CHECK(b.position(gpu) == 3);
    CHECK(t.partition[3] == "gpu");
    CHECK(t.find_user("chem", "dave", "gpu") == 3u);
    CHECK(t.find_user("chem", "dave") == 2u);
    CHECK(t.user_count == 2);
    CHECK(t.level_shares[2] == 2);  // both associations count
    CHECK(t.usage_raw[0] == 10.0L); // 4 + 6

    const tree only_root = tree_builder{}.build();
    REQUIRE(only_root.size() == 1);
    CHECK(only_root.children_of(0).empty());
    CHECK(only_root.user_count == 0);
}
