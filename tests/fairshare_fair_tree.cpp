// Tests for mfprio/fairshare/fair_tree.hpp: Slurm's Fair Tree (reference slurm.md 3.3).
// Every expected value is derived by hand from the reference, the arithmetic in a comment.
// Notation: S = level-local normalized shares, U = usage / fs parent's usage, LF = S / U,
// N = number of user associations, a user's factor = rank / N.
#include <mfprio/fairshare/fair_tree.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "fairshare_oracles.hpp"

namespace {
namespace fs = mfprio::fairshare;
using fs::tree_builder;
using fs::use_parent;

/// "<prefix><i>" or "<prefix><i>_<j>", built by appending (gcc 12 -O3 warns, wrongly, about
/// a literal + std::string).
std::string label(const char* prefix, int i, int j = -1) {
    std::string s = prefix;
    s += std::to_string(i);
    if (j >= 0) {
        s += '_';
        s += std::to_string(j);
    }
    return s;
}

constexpr long double inf = std::numeric_limits<long double>::infinity();
constexpr long double no_val = 4294967294.0L;

/// A built tree with its Fair Tree columns, read through builder indices.
struct run {
    tree_builder& b;
    fs::tree t;
    fs::columns c;
    run(tree_builder& builder, bool merge = false) : b(builder), t(builder.build()) { fs::fair_tree(t, c, merge); }
    [[nodiscard]] double f(std::uint32_t id) const { return c.fs_factor[b.position(id)]; }
    [[nodiscard]] long double lf(std::uint32_t id) const { return c.level_fs[b.position(id)]; }
    [[nodiscard]] double s(std::uint32_t id) const { return c.shares_norm[b.position(id)]; }
    [[nodiscard]] long double u(std::uint32_t id) const { return c.usage_efctv[b.position(id)]; }
};
} // namespace

TEST_CASE("fairshare: Fair Tree level fair-share: S, U and LF of every kind of association") {
    // root ── A (1) ── a1 (1, usage 30), a2 (3, usage 10), a3 (0, usage 0), a4 (parent, 0)
    //      ├─ B (3) ── b1 (1, usage 0)
    //      └─ P (parent) ── p1 (4, usage 0)          p1's fs parent is the root (3.1)
    // Root's fs children: A, B, P, p1; level shares 1 + 3 + 0 (P) + 4 = 8.
    // A's fs children: a1..a4; level shares 1 + 3 + 0 + 0 (a4 is FairShare=parent) = 4.
    // Usage: A = 30 + 10 = 40, B = 0, P = 0, root = 40.
    tree_builder b;
    const auto A = b.add_account(0, "A", 1);
    const auto a1 = b.add_user(A, "a1", 1, 30);
    const auto a2 = b.add_user(A, "a2", 3, 10);
    const auto a3 = b.add_user(A, "a3", 0, 0);
    const auto a4 = b.add_user(A, "a4", use_parent, 0);
    const auto B = b.add_account(0, "B", 3);
    const auto b1 = b.add_user(B, "b1", 1, 0);
    const auto P = b.add_account(0, "P", use_parent);
    const auto p1 = b.add_user(P, "p1", 4, 0);
    const run r(b);

    CHECK(r.c.has_level_fs);
    // root: S = 0 (0 / NO_VAL), U = 1 (plugin init), LF = NO_VAL
    CHECK(r.c.shares_norm[0] == 0.0);
    CHECK(r.c.usage_efctv[0] == 1.0L);
    CHECK(r.c.level_fs[0] == no_val);
    // A: S = 1/8, U = 40/40 = 1, LF = 1/8
    CHECK(r.s(A) == 0.125);
    CHECK(r.u(A) == 1.0L);
    CHECK(r.lf(A) == 0.125L);
    // B: S = 3/8, U = 0/40 = 0 -> LF = +inf
    CHECK(r.s(B) == 0.375);
    CHECK(r.u(B) == 0.0L);
    CHECK(r.lf(B) == inf);
    // P (FairShare=parent account): LF = NO_VAL; S = its fs parent's = the root's = 0; U = 0/40
    CHECK(r.lf(P) == no_val);
    CHECK(r.s(P) == 0.0);
    CHECK(r.u(P) == 0.0L);
    // p1: S = 4/8, U = 0/40 = 0 -> +inf
    CHECK(r.s(p1) == 0.5);
    CHECK(r.lf(p1) == inf);
    // a1: S = 1/4, U = 30/40 = 3/4, LF = (1/4)/(3/4) = 1/3 (both roundings of the exact 1/3)
    CHECK(r.s(a1) == 0.25);
    CHECK(r.u(a1) == 0.75L);
    CHECK(r.lf(a1) == 1.0L / 3.0L);
    // a2: S = 3/4, U = 10/40 = 1/4, LF = 3
    CHECK(r.s(a2) == 0.75);
    CHECK(r.u(a2) == 0.25L);
    CHECK(r.lf(a2) == 3.0L);
    // a3: S = 0 -> LF = 0, even though U = 0/40 = 0 too
    CHECK(r.s(a3) == 0.0);
    CHECK(r.u(a3) == 0.0L);
    CHECK(r.lf(a3) == 0.0L);
    // a4 (FairShare=parent user): LF = +inf; S = its fs parent A's = 1/8
    CHECK(r.lf(a4) == inf);
    CHECK(r.s(a4) == 0.125);
    // b1: S = 1/1; U = 0 because its fs parent B has no usage -> +inf
    CHECK(r.s(b1) == 1.0);
    CHECK(r.u(b1) == 0.0L);
    CHECK(r.lf(b1) == inf);

    // Ranking, N = 6 (a1..a4, b1, p1). Root's siblings sorted: p1 (user, inf), B (account,
    // inf), P (NO_VAL), A (1/8).
    //   p1: prev NO_VAL != inf -> untied, rank = rnt = 6 -> 6/6; rnt 5
    //   B:  inf == inf -> tied; b1 first of a tied account -> keeps rank 6 -> 6/6; rnt 4
    //   P:  inf != NO_VAL, childless: no rank; prev = NO_VAL
    //   A:  untied; its sorted children a4 (inf), a2 (3), a1 (1/3), a3 (0), all untied:
    //       ranks 4, 3, 2, 1
    CHECK(r.f(p1) == 1.0);
    CHECK(r.f(b1) == 1.0);
    CHECK(r.f(a4) == 4.0 / 6);
    CHECK(r.f(a2) == 3.0 / 6);
    CHECK(r.f(a1) == 2.0 / 6);
    CHECK(r.f(a3) == 1.0 / 6);
    // accounts and the root get no factor
    CHECK(r.f(A) == 0.0);
    CHECK(r.f(B) == 0.0);
    CHECK(r.f(P) == 0.0);
    CHECK(r.c.fs_factor[0] == 0.0);
}

TEST_CASE("fairshare: Fair Tree with no usage at all: U = 0 and LF = +inf everywhere") {
    // root ── A (1) ── a1 (1, 0);  root ── B (1) ── b1 (1, 0). Root usage 0, so every U = 0
    // (fs parent's usage 0) and every LF = S / 0 = +inf (S = 1/2 or 1).
    // A and B tie (inf == inf): A untied -> a1 rank 2 -> 2/2; B tied -> b1 keeps rank 2.
    tree_builder b;
    const auto A = b.add_account(0, "A", 1);
    const auto a1 = b.add_user(A, "a1", 1, 0);
    const auto B = b.add_account(0, "B", 1);
    const auto b1 = b.add_user(B, "b1", 1, 0);
    const run r(b);
    CHECK(r.u(A) == 0.0L);
    CHECK(r.u(a1) == 0.0L);
    CHECK(r.lf(A) == inf);
    CHECK(r.lf(B) == inf);
    CHECK(r.lf(a1) == inf);
    CHECK(r.lf(b1) == inf);
    CHECK(r.f(a1) == 1.0);
    CHECK(r.f(b1) == 1.0);
}

TEST_CASE("fairshare: Fair Tree level_fs helper follows 3.3.1 case by case") {
    CHECK(fs::fair_tree_level_fs(0.5, 0.25L, true, true) == inf);      // parent user
    CHECK(fs::fair_tree_level_fs(0.5, 0.25L, false, true) == no_val);  // parent account
    CHECK(fs::fair_tree_level_fs(0.0, 0.0L, true, false) == 0.0L);     // S == 0 wins over U == 0
    CHECK(fs::fair_tree_level_fs(0.0, 0.5L, false, false) == 0.0L);
    CHECK(fs::fair_tree_level_fs(0.5, 0.0L, true, false) == inf);      // U == 0
    CHECK(fs::fair_tree_level_fs(0.5, 0.25L, true, false) == 2.0L);    // 0.5 / 0.25
    CHECK(fs::fair_tree_no_val == no_val);
}

TEST_CASE("fairshare: Fair Tree ranks a simple tree as rank / N, the tree before the users' own LF") {
    // root ── A (1) ── u1 (1, 10), u2 (1, 30)      A usage 40
    //      └─ B (1) ── u3 (1, 20), u4 (1, 40)      B usage 60; root 100
    // LF(A) = (1/2)/(40/100) = 1.25 > LF(B) = (1/2)/(60/100) = 0.833: A first.
    // In A: u1 = (1/2)/(10/40) = 2, u2 = (1/2)/(30/40) = 0.667. In B: u3 = (1/2)/(20/60) = 1.5,
    // u4 = (1/2)/(40/60) = 0.75. Visit order u1, u2, u3, u4: ranks 4, 3, 2, 1 (N = 4), so u3
    // ranks below u2 although its own LF is higher.
    tree_builder b;
    const auto A = b.add_account(0, "A", 1);
    const auto u1 = b.add_user(A, "u1", 1, 10);
    const auto u2 = b.add_user(A, "u2", 1, 30);
    const auto B = b.add_account(0, "B", 1);
    const auto u3 = b.add_user(B, "u3", 1, 20);
    const auto u4 = b.add_user(B, "u4", 1, 40);
    const run r(b);
    CHECK(r.lf(A) == 1.25L);
    CHECK(r.lf(u1) == 2.0L);
    CHECK(r.f(u1) == 1.0);
    CHECK(r.f(u2) == 0.75);
    CHECK(r.f(u3) == 0.5);
    CHECK(r.f(u4) == 0.25);
    CHECK(r.lf(u3) > r.lf(u2));
}

TEST_CASE("fairshare: Fair Tree tied users share a rank and the next one skips (1224)") {
    // root ── u1 (2, 10), u2 (2, 20), u3 (2, 20), u4 (2, 50); level shares 8, root usage 100.
    // S = 1/4 each; U = .1, .2, .2, .5; LF = 2.5, 1.25, 1.25, 0.5 (u2 and u3 are the same
    // computation, so exactly equal).
    // u1 rank 4; u2 rank 3; u3 tied: keeps 3; u4 untied: rank = rnt = 1.
    tree_builder b;
    const auto u1 = b.add_user(0, "u1", 2, 10);
    const auto u2 = b.add_user(0, "u2", 2, 20);
    const auto u3 = b.add_user(0, "u3", 2, 20);
    const auto u4 = b.add_user(0, "u4", 2, 50);
    const run r(b);
    CHECK(r.lf(u2) == r.lf(u3));
    CHECK(r.f(u1) == 1.0);
    CHECK(r.f(u2) == 0.75);
    CHECK(r.f(u3) == 0.75);
    CHECK(r.f(u4) == 0.25);
}

TEST_CASE("fairshare: Fair Tree sorts users before accounts at equal LF, and a user tied with an account shares its rank") {
    // root ── K (1) ── k1 (1, usage 2), k2 (1, usage 8)      K usage 10
    //      └─ P (parent) ── y (1, usage 10)                  y's fs parent is the root
    // Root's fs children in lineage order: K (/K/), P (/P/), y (/P/0-y/): the account K comes
    // before the user y in the list. Level shares: K 1 + P 0 + y 1 = 2; root usage 20.
    // LF(K) = (1/2)/(10/20) = 1 = LF(y); LF(P) = NO_VAL.
    // Sorted: P (NO_VAL), y (user, 1), K (account, 1).  N = 3.
    //   P: first, prev NO_VAL == NO_VAL -> tied, but childless: no rank
    //   y: NO_VAL != 1 -> rank = rnt = 3 -> 1; rnt 2
    //   K: 1 == 1 -> tied. k1 = (1/2)/(2/10) = 2.5, k2 = (1/2)/(8/10) = 0.625.
    //      k1 first of a tied account: keeps rank 3 -> 1; rnt 1. k2: rank 1 -> 1/3.
    // (Lineage order instead would give k1 3/3, k2 2/3, and y tied with k2: 2/3.)
    tree_builder b;
    const auto K = b.add_account(0, "K", 1);
    const auto k1 = b.add_user(K, "k1", 1, 2);
    const auto k2 = b.add_user(K, "k2", 1, 8);
    const auto P = b.add_account(0, "P", use_parent);
    const auto y = b.add_user(P, "y", 1, 10);
    const run r(b);
    CHECK(r.lf(K) == 1.0L);
    CHECK(r.lf(y) == 1.0L);
    CHECK(r.lf(P) == no_val);
    CHECK(r.f(y) == 1.0);
    CHECK(r.f(k1) == 1.0);
    CHECK(r.f(k2) == 1.0 / 3);
}

TEST_CASE("fairshare: Fair Tree: an account without users consumes no rank") {
    // root ── r1 (1, 10), r2 (1, 30), A (2, no users); level shares 4, root usage 40.
    // LF(A) = (2/4)/0 = +inf, r1 = (1/4)/(10/40) = 1, r2 = (1/4)/(30/40) = 1/3.
    // Sorted A, r1, r2. A takes no rank: r1 = 2/2, r2 = 1/2.
    tree_builder b;
    const auto r1 = b.add_user(0, "r1", 1, 10);
    const auto r2 = b.add_user(0, "r2", 1, 30);
    const auto A = b.add_account(0, "A", 2);
    const run r(b);
    CHECK(r.lf(A) == inf);
    CHECK(r.f(r1) == 1.0);
    CHECK(r.f(r2) == 0.5);
}

TEST_CASE("fairshare: Fair Tree: an account without users still sets the previous LF") {
    // root ── r1 (1, 10), E (0, no users), G (0) ── g1 (1, 10); level shares 1 + 0 + 0 = 1,
    // root usage 20. LF(r1) = 1/(10/20) = 2; LF(E) = LF(G) = 0 (S = 0). N = 2.
    // Sorted r1, E, G (E before G: lineage order at equal LF).
    // Slurm: r1 rank 2 -> 1. E: 2 != 0, untied, no rank, prev = 0. G: 0 == 0 -> tied; g1,
    //   first of a tied account, keeps rank 2 -> 1 (without E setting prev it would get 1/2).
    // Merged (documented rule): E and G tie, their children lists merge into {g1}, the group
    //   is untied (E was): g1 takes rank = rnt = 1 -> 1/2.
    tree_builder b;
    const auto r1 = b.add_user(0, "r1", 1, 10);
    const auto E = b.add_account(0, "E", 0);
    const auto G = b.add_account(0, "G", 0);
    const auto g1 = b.add_user(G, "g1", 1, 10);
    const run r(b);
    CHECK(r.lf(E) == 0.0L);
    CHECK(r.lf(G) == 0.0L);
    CHECK(r.f(r1) == 1.0);
    CHECK(r.f(g1) == 1.0);
    const run m(b, true);
    CHECK(m.f(r1) == 1.0);
    CHECK(m.f(g1) == 0.5);
}

namespace {
// root ── <first> (1) ── a1 (1, 10), a2 (1, 30)       usage 40
//      └─ <second> (1) ── b1 (1, 15), b2 (1, 25)      usage 40; root 80
// LF of both accounts: (1/2)/(40/80) = 1, exactly equal.
// a1 = (1/2)/(10/40) = 2, a2 = (1/2)/(30/40) = 2/3, b1 = (1/2)/(15/40) = 4/3,
// b2 = (1/2)/(25/40) = 0.8. N = 4.
struct tied_accounts {
    tree_builder b;
    std::uint32_t A, a1, a2, B, b1, b2;
    explicit tied_accounts(const char* a_name) {
        A = b.add_account(0, a_name, 1);
        a1 = b.add_user(A, "a1", 1, 10);
        a2 = b.add_user(A, "a2", 1, 30);
        B = b.add_account(0, "B", 1);
        b1 = b.add_user(B, "b1", 1, 15);
        b2 = b.add_user(B, "b2", 1, 25);
    }
};
} // namespace

TEST_CASE("fairshare: Fair Tree, Slurm-exact: tied sibling accounts are descended separately") {
    // A before B (lineage). A: a1 rank 4 -> 1, a2 rank 3 -> 3/4; rnt 2.
    // B starts tied: b1 keeps the LAST rank given (a2's 3) -> 3/4; rnt 1. b2 (0.8 != 4/3):
    // rank = rnt = 1 -> 1/4.
    tied_accounts x("A");
    const run r(x.b);
    CHECK(r.lf(x.A) == 1.0L);
    CHECK(r.lf(x.A) == r.lf(x.B));
    CHECK(r.f(x.a1) == 1.0);
    CHECK(r.f(x.a2) == 0.75);
    CHECK(r.f(x.b1) == 0.75);
    CHECK(r.f(x.b2) == 0.25);
}

TEST_CASE("fairshare: Fair Tree, merged ties (documented rule): tied accounts' children are sorted together") {
    // Merged list sorted by LF: a1 (2), b1 (4/3), b2 (0.8), a2 (2/3): ranks 4, 3, 2, 1.
    tied_accounts x("A");
    const run r(x.b, true);
    CHECK(r.f(x.a1) == 1.0);
    CHECK(r.f(x.b1) == 0.75);
    CHECK(r.f(x.b2) == 0.5);
    CHECK(r.f(x.a2) == 0.25);
}

TEST_CASE("fairshare: Fair Tree, Slurm-exact: tied accounts go in lineage order") {
    // The same tree with the first account named Z: B now comes first.
    // B: b1 rank 4 -> 1, b2 rank 3 -> 3/4. Z tied: a1 keeps 3 -> 3/4; a2 rank 1 -> 1/4.
    tied_accounts x("Z");
    const run r(x.b);
    CHECK(r.f(x.b1) == 1.0);
    CHECK(r.f(x.b2) == 0.75);
    CHECK(r.f(x.a1) == 0.75);
    CHECK(r.f(x.a2) == 0.25);
}

TEST_CASE("fairshare: Fair Tree, merged ties apply again among the merged children") {
    // root ── A (1) ── a1 (1, 10)                               A usage 40
    //      │       └─ A1 (1) ── x1 (1, 5), x2 (1, 25)          A1 usage 30
    //      └─ B (1) ── b1 (1, 10)                               B usage 40; root 80
    //              └─ B1 (1) ── y1 (1, 10), y2 (1, 20)         B1 usage 30
    // LF(A) = LF(B) = (1/2)/(40/80) = 1. a1 = b1 = (1/2)/(10/40) = 2;
    // A1 = B1 = (1/2)/(30/40) = 2/3 (same computation, exactly equal).
    // x1 = (1/2)/(5/30) = 3, x2 = (1/2)/(25/30) = 0.6, y1 = (1/2)/(10/30) = 1.5,
    // y2 = (1/2)/(20/30) = 0.75. N = 6.
    tree_builder b;
    const auto A = b.add_account(0, "A", 1);
    const auto a1 = b.add_user(A, "a1", 1, 10);
    const auto A1 = b.add_account(A, "A1", 1);
    const auto x1 = b.add_user(A1, "x1", 1, 5);
    const auto x2 = b.add_user(A1, "x2", 1, 25);
    const auto B = b.add_account(0, "B", 1);
    const auto b1 = b.add_user(B, "b1", 1, 10);
    const auto B1 = b.add_account(B, "B1", 1);
    const auto y1 = b.add_user(B1, "y1", 1, 10);
    const auto y2 = b.add_user(B1, "y2", 1, 20);

    SUBCASE("Slurm-exact") {
        // A untied: a1 rank 6; A1 untied: x1 5, x2 4 (rnt 3).
        // B tied: b1 keeps 4 (rnt 2); B1 untied: y1 2, y2 1.
        const run r(b);
        CHECK(r.lf(A1) == r.lf(B1));
        CHECK(r.f(a1) == 1.0);
        CHECK(r.f(x1) == 5.0 / 6);
        CHECK(r.f(x2) == 4.0 / 6);
        CHECK(r.f(b1) == 4.0 / 6);
        CHECK(r.f(y1) == 2.0 / 6);
        CHECK(r.f(y2) == 1.0 / 6);
    }
    SUBCASE("merged") {
        // {a1, A1, b1, B1} sorted: a1 (2), b1 (2, tied: shares rank 6), A1, B1 (2/3, merged):
        // {x1 3, y1 1.5, y2 0.75, x2 0.6}: ranks 4, 3, 2, 1.
        const run r(b, true);
        CHECK(r.f(a1) == 1.0);
        CHECK(r.f(b1) == 1.0);
        CHECK(r.f(x1) == 4.0 / 6);
        CHECK(r.f(y1) == 3.0 / 6);
        CHECK(r.f(y2) == 2.0 / 6);
        CHECK(r.f(x2) == 1.0 / 6);
    }
}

TEST_CASE("fairshare: Fair Tree ranks 40/170 / 20/110 and 50/170 / 25/110 apart, as Slurm does") {
    // root ── u1 (40, 20), u2 (50, 25), u3 (80, 65); level shares 170, root usage 110.
    // As fractions LF(u1) = LF(u2) = 22/17, but S is a double:
    //  - 4/17 = 2^-3 x 1.(11110000 repeating): bits 54.. are 000 1111..., below half an ulp,
    //    so double(40/170) rounds down (relative error -1.39e-17);
    //  - 5/17 = 2^-2 x 1.(0010110 1001011 ...): bits 54.. are 11 0100..., above half,
    //    so double(50/170) rounds up (+3.33e-17);
    //  - U = 20/110 = 2/11 and 25/110 = 5/22 carry the same long double error (+2.7e-20,
    //    by exact rational arithmetic).
    // So LF(u2) / LF(u1) = 1 + about 4.7e-17: far above the long double resolution (5.4e-20),
    // LF(u2) > LF(u1), they are not tied. u3: (80/170)/(65/110) = 0.796, last.
    // Ranks: u2 3, u1 2, u3 1 (tied, u1 and u2 would both get 1).
    tree_builder b;
    const auto u1 = b.add_user(0, "u1", 40, 20);
    const auto u2 = b.add_user(0, "u2", 50, 25);
    const auto u3 = b.add_user(0, "u3", 80, 65);
    const run r(b);
    CHECK(r.lf(u1) != r.lf(u2));
    CHECK(r.lf(u2) > r.lf(u1));
    CHECK(r.f(u2) == 1.0);
    CHECK(r.f(u1) == 2.0 / 3);
    CHECK(r.f(u3) == 1.0 / 3);
}

TEST_CASE("fairshare: Fair Tree counts every user association in N, zero shares and no usage included") {
    // root ── u1 (1, 10), u2 (0, 0), u3 (0, 0); level shares 1, root usage 10. N = 3.
    // LF: u1 = 1/(10/10) = 1; u2 = u3 = 0 (S = 0). u1 rank 3 -> 1; u2 rank 2 -> 2/3;
    // u3 tied -> 2/3.
    tree_builder b;
    const auto u1 = b.add_user(0, "u1", 1, 10);
    const auto u2 = b.add_user(0, "u2", 0, 0);
    const auto u3 = b.add_user(0, "u3", 0, 0);
    const run r(b);
    CHECK(r.t.user_count == 3);
    CHECK(r.f(u1) == 1.0);
    CHECK(r.f(u2) == 2.0 / 3);
    CHECK(r.f(u3) == 2.0 / 3);
}

namespace {
using fairshare_test::naive_fair_tree;

// Accounts x sub-accounts x users with shares and usage drawn from small sets (many exact
// ties: equal S and U give the same LF), some FairShare=parent, groups large enough for the
// radix path.
fs::tree random_tree(std::uint32_t seed, int accounts, int subs, int users, bool coarse) {
    std::mt19937 rng(seed);
    const auto pick = [&](int k) { return static_cast<std::uint32_t>(rng() % static_cast<std::uint32_t>(k)); };
    tree_builder b;
    for (int i = 0; i < accounts; ++i) {
        const auto A = b.add_account(0, label("a", i), pick(10) == 0 ? use_parent : 1 + pick(3));
        for (int j = 0; j < subs; ++j) {
            const auto S = b.add_account(A, label("s", i, j),
                                         pick(8) == 0 ? use_parent : pick(4));
            for (int k = 0; k < users; ++k) {
                const std::uint32_t sh = pick(20) == 0 ? use_parent : (coarse ? pick(4) : 1 + pick(100));
                const long double us = coarse ? 10.0L * pick(4) : static_cast<long double>(rng() % 1000000u);
                b.add_user(S, label("u", k), sh, us);
            }
        }
    }
    return b.build();
}
} // namespace

TEST_CASE("fairshare: Fair Tree agrees with a plain transcription of the reference on random trees") {
    for (const bool coarse : {true, false})
        for (const bool merge : {false, true})
            for (std::uint32_t seed = 1; seed <= 3; ++seed) {
                CAPTURE(coarse);
                CAPTURE(merge);
                CAPTURE(seed);
                const fs::tree t = random_tree(seed, 3, 4, 150, coarse);
                fs::columns c;
                fs::fair_tree(t, c, merge);
                const naive_fair_tree ref(t, merge);
                std::size_t differ = 0;
                for (std::uint32_t a = 0; a < t.size(); ++a)
                    differ += c.fs_factor[a] != ref.out[a] || c.level_fs[a] != ref.lf[a];
                CHECK(differ == 0);
            }
}

TEST_CASE("fairshare: Fair Tree agrees with the plain transcription on sibling groups of both radix widths") {
    // Groups of 3,000 users (sorted on 16 bits of the key's distance from the group's
    // smallest) and of 5,000 (sorted on the whole key), with many exact ties (coarse) and with
    // LFs spread over many magnitudes, zero and +inf among them (fine: usage 0 gives +inf).
    for (const int users : {3000, 5000})
        for (const bool coarse : {true, false}) {
            CAPTURE(users);
            CAPTURE(coarse);
            const fs::tree t = random_tree(7, 1, 2, users, coarse);
            fs::columns c;
            fs::fair_tree(t, c);
            const naive_fair_tree ref(t, false);
            std::size_t differ = 0;
            for (std::uint32_t a = 0; a < t.size(); ++a)
                differ += c.fs_factor[a] != ref.out[a] || c.level_fs[a] != ref.lf[a];
            CHECK(differ == 0);
        }
}

TEST_CASE("fairshare: Fair Tree on 100,000 associations gives every user a factor in (0, 1]") {
    // 10 accounts x 10 sub-accounts x 999 users, shares 1-100, random usage.
    std::mt19937 rng(2024);
    tree_builder b;
    for (int i = 0; i < 10; ++i) {
        const auto A = b.add_account(0, label("a", i), 1 + rng() % 100);
        for (int j = 0; j < 10; ++j) {
            const auto S = b.add_account(A, label("a", i, j), 1 + rng() % 100);
            for (int k = 0; k < 999; ++k)
                b.add_user(S, label("u", k), 1 + rng() % 100, static_cast<long double>(rng() % 1000000u));
        }
    }
    const fs::tree t = b.build();
    REQUIRE(t.size() == 100011);
    REQUIRE(t.user_count == 99900);
    fs::fair_tree_workspace ws;
    for (const bool merge : {false, true}) {
        fs::columns c;
        fs::fair_tree(t, c, ws, merge);
        std::size_t outside = 0;
        double top = 0;
        for (std::uint32_t a = 0; a < t.size(); ++a)
            if (t.is_user(a)) {
                outside += !(c.fs_factor[a] > 0.0 && c.fs_factor[a] <= 1.0);
                top = std::max(top, c.fs_factor[a]);
            }
        CHECK(outside == 0);
        CHECK(top == 1.0);
        // a second pass with the same workspace gives the same columns
        fs::columns again;
        fs::fair_tree(t, again, ws, merge);
        CHECK(again.fs_factor == c.fs_factor);
    }
}
