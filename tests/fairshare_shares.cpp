// Tests for mfprio/fairshare/shares.hpp (reference slurm.md 3.1): classic normalized shares
// (product of shares_raw / level_shares up the direct-parent chain, FairShare=parent takes
// the fs parent's, root 1) and Fair Tree's level-local shares (root 0). Values from seed 000
// (users 1-5) and seed 001 (the Limoges hierarchy).
#include <doctest/doctest.h>

#include <mfprio/fairshare/shares.hpp>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

using namespace mfprio::fairshare;

namespace {

std::string percent1(double x) { // the seed's one-decimal percentages
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", x * 100.0);
    return buf;
}

// Seed 001's hierarchy: partenaires 100 (cistem 1, ingenomix 1), unilim 900 (XLIM 283,
// IPAM 283, GEIST 283, SHS 150), one user per lab account.
struct limoges {
    tree t;
    std::uint32_t partenaires, cistem, ingenomix, unilim, xlim, ipam, geist, shs, xlim_user;
    limoges() {
        tree_builder b;
        const auto pa = b.add_account(0, "partenaires", 100);
        const auto ci = b.add_account(pa, "cistem", 1);
        const auto in = b.add_account(pa, "ingenomix", 1);
        const auto un = b.add_account(0, "unilim", 900);
        const auto xl = b.add_account(un, "XLIM", 283);
        const auto ip = b.add_account(un, "IPAM", 283);
        const auto ge = b.add_account(un, "GEIST", 283);
        const auto sh = b.add_account(un, "SHS", 150);
        const auto xu = b.add_user(xl, "alice", 1);
        t = b.build();
        partenaires = b.position(pa);
        cistem = b.position(ci);
        ingenomix = b.position(in);
        unilim = b.position(un);
        xlim = b.position(xl);
        ipam = b.position(ip);
        geist = b.position(ge);
        shs = b.position(sh);
        xlim_user = b.position(xu);
    }
};

} // namespace

TEST_CASE("fairshare: classic shares of seed 000's worked example") {
    // A 40, D 60; A: B 30, C 10; D: E 25, F 35; B: user1; C: user2, user3 (1 each);
    // E: user4; F: user5.
    tree_builder b;
    const auto A = b.add_account(0, "A", 40);
    const auto D = b.add_account(0, "D", 60);
    const auto B = b.add_account(A, "B", 30);
    const auto C = b.add_account(A, "C", 10);
    const auto E = b.add_account(D, "E", 25);
    const auto F = b.add_account(D, "F", 35);
    const auto u1 = b.add_user(B, "user1", 1);
    const auto u2 = b.add_user(C, "user2", 1);
    const auto u3 = b.add_user(C, "user3", 1);
    const auto u4 = b.add_user(E, "user4", 1);
    const auto u5 = b.add_user(F, "user5", 1);
    const tree t = b.build();
    const auto s = classic_shares(t);
    auto S = [&](std::uint32_t i) { return s[b.position(i)]; };
    CHECK(s[0] == 1.0);
    CHECK(S(A) == doctest::Approx(0.4));  // 40 / 100
    CHECK(S(D) == doctest::Approx(0.6));  // 60 / 100
    CHECK(S(B) == doctest::Approx(0.3));  // 30/40 * 0.4
    CHECK(S(C) == doctest::Approx(0.1));  // 10/40 * 0.4
    CHECK(S(E) == doctest::Approx(0.25)); // 25/60 * 0.6
    CHECK(S(F) == doctest::Approx(0.35)); // 35/60 * 0.6
    // The seed: users 1-5 have 0.3, 0.05, 0.05, 0.25, 0.35.
    CHECK(S(u1) == doctest::Approx(0.3));  // 1/1 * 30/40 * 40/100
    CHECK(S(u2) == doctest::Approx(0.05)); // 1/2 * 10/40 * 40/100
    CHECK(S(u3) == doctest::Approx(0.05));
    CHECK(S(u4) == doctest::Approx(0.25)); // 1/1 * 25/60 * 60/100
    CHECK(S(u5) == doctest::Approx(0.35)); // 1/1 * 35/60 * 60/100
    // Bit-exact order: Slurm starts from 1.0 and multiplies the own ratio first, upward.
    CHECK(S(u2) == 1.0 * (1.0 / 2.0) * (10.0 / 40.0) * (40.0 / 100.0));
    CHECK(S(u5) == 1.0 * (1.0 / 1.0) * (35.0 / 60.0) * (60.0 / 100.0));
    // The seed's aside: with 4 shares instead of 1, user 2 would have 4/5 * 0.1 = 0.08.
    tree_builder b2;
    const auto C2 = b2.add_account(b2.add_account(0, "A", 40), "C", 10);
    b2.add_account(0, "D", 60);
    const auto u2b = b2.add_user(C2, "user2", 4);
    b2.add_user(C2, "user3", 1);
    const tree t2 = b2.build();
    // A's only child is C here, so C has all of A's 0.4: user2 = 4/5 * 10/10 * 40/100 = 0.32;
    // with B's 30 shares back (level 40) it is 4/5 * 10/40 * 40/100 = 0.08.
    CHECK(classic_shares(t2)[b2.position(u2b)] == doctest::Approx(0.32));
    tree_builder b3;
    const auto A3 = b3.add_account(0, "A", 40);
    b3.add_account(0, "D", 60);
    b3.add_account(A3, "B", 30);
    const auto C3 = b3.add_account(A3, "C", 10);
    const auto u2c = b3.add_user(C3, "user2", 4);
    b3.add_user(C3, "user3", 1);
    const tree t3 = b3.build();
    CHECK(classic_shares(t3)[b3.position(u2c)] == doctest::Approx(0.08));
}

TEST_CASE("fairshare: classic shares of seed 001's Limoges hierarchy") {
    const limoges l;
    const auto s = classic_shares(l.t);
    // partenaires 100 / (100 + 900) = 10%; cistem, ingenomix 1/2 of that = 5% of the total.
    CHECK(s[l.partenaires] == doctest::Approx(0.1));
    CHECK(s[l.cistem] == doctest::Approx(0.05));
    CHECK(s[l.ingenomix] == doctest::Approx(0.05));
    CHECK(percent1(s[l.cistem]) == "5.0%");
    // unilim 900 / 1000 = 90%.
    CHECK(s[l.unilim] == doctest::Approx(0.9));
    // unilim's level: 283 * 3 + 150 = 999, so XLIM/IPAM/GEIST have 283/999 = 28.3% of unilim
    // and 283/999 * 0.9 = 0.254954955 of the total; SHS 150/999 = 15.0% and 0.135135135.
    // (The seed prints 25.4% and 13.5%: it took 28.3% x 90% = 25.47% and truncated; the
    // exact 0.25495 rounds to 25.5%.)
    CHECK(s[l.xlim] == doctest::Approx(0.254954955));
    CHECK(s[l.ipam] == doctest::Approx(0.254954955));
    CHECK(s[l.geist] == doctest::Approx(0.254954955));
    CHECK(s[l.shs] == doctest::Approx(0.135135135));
    CHECK(percent1(s[l.xlim]) == "25.5%");
    CHECK(percent1(s[l.shs]) == "13.5%");
    CHECK(s[l.xlim] == 1.0 * (283.0 / 999.0) * (900.0 / 1000.0));
    // A lone user of XLIM has all of XLIM: 1/1 * 283/999 * 900/1000.
    CHECK(s[l.xlim_user] == 1.0 * (1.0 / 1.0) * (283.0 / 999.0) * (900.0 / 1000.0));
}

TEST_CASE("fairshare: Fair Tree shares are level-local (seed 001)") {
    const limoges l;
    const auto s = fair_tree_shares(l.t);
    CHECK(s[0] == 0.0);                             // root: 0 / NO_VAL
    CHECK(s[l.partenaires] == 100.0 / 1000.0);      // 10%
    CHECK(s[l.cistem] == 1.0 / 2.0);                // 50% of partenaires
    CHECK(s[l.ingenomix] == 1.0 / 2.0);
    CHECK(s[l.unilim] == 900.0 / 1000.0);           // 90%
    CHECK(s[l.xlim] == 283.0 / 999.0);              // the seed's 28.3%
    CHECK(s[l.shs] == 150.0 / 999.0);               // the seed's 15%
    CHECK(percent1(s[l.xlim]) == "28.3%");
    CHECK(percent1(s[l.shs]) == "15.0%");
    CHECK(s[l.xlim_user] == 1.0);                   // alone in XLIM
}

TEST_CASE("fairshare: shares with FairShare=parent and zero level shares") {
    //   root
    //   ├── a (3)
    //   │   ├── u (parent)       classic: a's 3/4; Fair Tree: a's 3/4
    //   │   ├── v (1)            level of a's children: u 0 + v 1 + w 3 + p 0 + x 2 = 6
    //   │   ├── w (3)
    //   │   └── p (parent)
    //   │       └── x (2)        fs parent a; classic product skips p: 2/6 * 3/4
    //   ├── r (parent)           user directly under root: classic 1 (root's), Fair Tree 0
    //   ├── z (1)
    //   │   ├── z1 (0)           level 0: classic 0, Fair Tree 0
    //   │   └── z2 (0)
    //   └── y (0)                root level = 3 + 1 + 0 = 4 (r is `parent`, contributes 0)
    //       └── y1 (5)           classic 5/5 * 0/4 = 0
    tree_builder b;
    const auto a = b.add_account(0, "a", 3);
    const auto u = b.add_user(a, "u", use_parent);
    const auto v = b.add_user(a, "v", 1);
    const auto w = b.add_user(a, "w", 3);
    const auto p = b.add_account(a, "p", use_parent);
    const auto x = b.add_user(p, "x", 2);
    const auto r = b.add_user(0, "r", use_parent);
    const auto z = b.add_account(0, "z", 1);
    const auto z1 = b.add_user(z, "z1", 0);
    const auto z2 = b.add_user(z, "z2", 0);
    const auto y = b.add_account(0, "y", 0);
    const auto y1 = b.add_user(y, "y1", 5);
    const tree t = b.build();
    const auto c = classic_shares(t);
    const auto f = fair_tree_shares(t);
    auto C = [&](std::uint32_t i) { return c[b.position(i)]; };
    auto F = [&](std::uint32_t i) { return f[b.position(i)]; };

    CHECK(C(a) == 3.0 / 4.0);
    CHECK(C(u) == C(a)); // FairShare=parent: the fs parent's
    CHECK(C(p) == C(a));
    CHECK(C(v) == 1.0 * (1.0 / 6.0) * (3.0 / 4.0));
    CHECK(C(w) == 1.0 * (3.0 / 6.0) * (3.0 / 4.0));
    CHECK(C(x) == 1.0 * (2.0 / 6.0) * (3.0 / 4.0)); // p skipped on the chain
    CHECK(C(r) == 1.0);                             // the root's 1
    CHECK(C(z) == 1.0 / 4.0);
    CHECK(C(z1) == 0.0); // level_shares 0 on the chain
    CHECK(C(z2) == 0.0);
    CHECK(C(y) == 0.0);  // 0 shares
    CHECK(C(y1) == 0.0); // 5/5 * 0/4

    CHECK(F(a) == 3.0 / 4.0);
    CHECK(F(u) == 3.0 / 4.0); // a's level-local share
    CHECK(F(p) == 3.0 / 4.0);
    CHECK(F(v) == 1.0 / 6.0);
    CHECK(F(x) == 2.0 / 6.0);
    CHECK(F(r) == 0.0); // the root's 0
    CHECK(F(z1) == 0.0);
    CHECK(F(y) == 0.0);
    CHECK(F(y1) == 1.0); // level-local: 5/5, whatever y has

    // The span overload writes into a caller's column.
    std::vector<double> col(t.size(), -1.0);
    classic_shares(t, col);
    CHECK(col == c);
}

TEST_CASE("fairshare: classic shares of a tree in parent-before-child order that is not depth-first") {
    // A `tree` filled by hand (its contract is parent-before-child order, not lineage
    // order): root, p (depth 1), y under p, x (depth 1, another branch), then a under y.
    // a's parent y was seen before x, so the last association seen at each depth is not
    // a's chain; the product must still be a's own chain: a, y, p. Expected values:
    // reference slurm.md 3.1's classic rule (the product of shares_raw / level_shares from
    // the association up to the root's child, its own term first) with this tree's shares.
    //   root: level 4; p 3, x 1 | p's children: y 2 of level 5 | y's children: a 7 of level 8
    tree t;
    t.parent = {none, 0, 1, 0, 2};
    t.fs_parent = {none, 0, 1, 0, 2};
    t.depth = {0, 1, 2, 1, 3};
    t.shares_raw = {mfprio::no_val32, 3, 2, 1, 7};
    t.level_shares = {mfprio::no_val32, 4, 5, 4, 8};
    t.user = {0, 0, 0, 0, 1};
    const std::vector<double> s = classic_shares(t);
    CHECK(s[0] == 1.0);
    CHECK(s[1] == 3.0 / 4.0);
    CHECK(s[2] == 1.0 * (2.0 / 5.0) * (3.0 / 4.0));
    CHECK(s[3] == 1.0 / 4.0);
    CHECK(s[4] == 1.0 * (7.0 / 8.0) * (2.0 / 5.0) * (3.0 / 4.0)); // not x's 1/4 in place of p's 3/4
}
