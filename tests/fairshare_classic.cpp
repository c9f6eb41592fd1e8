// Tests for mfprio/fairshare/classic.hpp (reference slurm.md 3.2): classic effective usage
// UE = UN + (UE_parent - UN) * shares / level_shares, fs parent == root first, the
// FairShare=parent and level_shares == 0 branches, F = 2^(-UE/S/d). Seed 000's worked
// example with its printed factors (sshare prints %f).
#include <doctest/doctest.h>

#include <mfprio/fairshare/classic.hpp>
#include <mfprio/fairshare/fair_tree.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

using namespace mfprio::fairshare;

namespace {

std::string f6(double x) { // sshare's parsable rendering
    char buf[64];
    std::snprintf(buf, sizeof buf, "%f", x);
    return buf;
}

// Seed 000's example (Figure 3): A 40, D 60; A: B 30, C 10; D: E 25, F 35; B: user1;
// C: user2, user3 (1 share each); E: user4; F: user5. "User 1's actual usage is 0.2 of the
// machine; user 2 is 0.25, and user 4 is 0.25", and account A's usage is 0.45, D's 0.25.
//
// The page's usages are fractions of the machine, but Slurm's UN is usage / root usage and
// the root holds the sum of all users' usage, so users summing to 0.7 would give
// UN = 0.2/0.7 etc. To keep the page's numbers and Slurm's definition both, the missing 0.3
// is charged to a sixth user (`idle`, 1 share) in an account `other` with 0 shares: the
// root's level stays 40 + 60 + 0 = 100, so no share on the page changes; raw usages are
// user1 200, user2 250, user4 250, idle 300, the rest 0 -> root 1000, UN exactly as printed.
struct seed000 {
    tree t;
    std::uint32_t A, D, B, C, E, F, u1, u2, u3, u4, u5, other, idle;
    seed000() {
        tree_builder b;
        const auto a = b.add_account(0, "A", 40);
        const auto d = b.add_account(0, "D", 60);
        const auto bb = b.add_account(a, "B", 30);
        const auto c = b.add_account(a, "C", 10);
        const auto e = b.add_account(d, "E", 25);
        const auto f = b.add_account(d, "F", 35);
        const auto x1 = b.add_user(bb, "user1", 1, 200);
        const auto x2 = b.add_user(c, "user2", 1, 250);
        const auto x3 = b.add_user(c, "user3", 1, 0);
        const auto x4 = b.add_user(e, "user4", 1, 250);
        const auto x5 = b.add_user(f, "user5", 1, 0);
        const auto o = b.add_account(0, "other", 0);
        const auto i = b.add_user(o, "idle", 1, 300);
        t = b.build();
        A = b.position(a);
        D = b.position(d);
        B = b.position(bb);
        C = b.position(c);
        E = b.position(e);
        F = b.position(f);
        u1 = b.position(x1);
        u2 = b.position(x2);
        u3 = b.position(x3);
        u4 = b.position(x4);
        u5 = b.position(x5);
        other = b.position(o);
        idle = b.position(i);
    }
};

long double ue(const columns& c, std::uint32_t a) { return c.usage_efctv[a]; }

} // namespace

TEST_CASE("fairshare: classic, seed 000's worked example") {
    const seed000 s;
    columns c;
    classic(s.t, c);
    CHECK_FALSE(c.has_level_fs);
    REQUIRE(c.fs_factor.size() == s.t.size());
    CHECK(s.t.usage_raw[0] == 1000.0L);
    CHECK(usage_norm(s.t, s.u1) == doctest::Approx(0.2));
    CHECK(usage_norm(s.t, s.A) == doctest::Approx(0.45)); // 200 + 250
    CHECK(usage_norm(s.t, s.D) == doctest::Approx(0.25));

    // normalized shares: users 0.3, 0.05, 0.05, 0.25, 0.35
    CHECK(c.shares_norm[0] == 1.0);
    CHECK(c.shares_norm[s.u1] == doctest::Approx(0.3));
    CHECK(c.shares_norm[s.u2] == doctest::Approx(0.05));
    CHECK(c.shares_norm[s.u3] == doctest::Approx(0.05));
    CHECK(c.shares_norm[s.u4] == doctest::Approx(0.25));
    CHECK(c.shares_norm[s.u5] == doctest::Approx(0.35));

    // effective usage, accounts (the page's list):
    CHECK(ue(c, 0) == 1.0L);                              // root: PM:init
    CHECK(ue(c, s.A) == doctest::Approx(0.45));           // first tier: UE = UN
    CHECK(ue(c, s.D) == doctest::Approx(0.25));
    CHECK(ue(c, s.B) == doctest::Approx(0.3875));         // 0.2 + (0.45 - 0.2) * 30/40
    CHECK(ue(c, s.C) == doctest::Approx(0.3));            // 0.25 + (0.45 - 0.25) * 10/40
    CHECK(ue(c, s.E) == doctest::Approx(0.25));           // 0.25 + (0.25 - 0.25) * 25/60
    CHECK(ue(c, s.F) == doctest::Approx(0.25 * 35 / 60)); // 0.0 + (0.25 - 0.0) * 35/60 = 0.1458333
    // users:
    CHECK(ue(c, s.u1) == doctest::Approx(0.3875));        // 0.2 + (0.3875 - 0.2) * 1/1
    CHECK(ue(c, s.u2) == doctest::Approx(0.275));         // 0.25 + (0.3 - 0.25) * 1/2
    CHECK(ue(c, s.u3) == doctest::Approx(0.15));          // 0.0 + (0.3 - 0.0) * 1/2
    CHECK(ue(c, s.u4) == doctest::Approx(0.25));          // 0.25 + (0.25 - 0.25) * 1/1
    CHECK(ue(c, s.u5) == doctest::Approx(0.1458333333));  // 0.0 + (0.1458333 - 0.0) * 1/1

    // factors as the page prints them: 2^(-.3875/.3), 2^(-.275/.05), 2^(-.15/.05),
    // 2^(-.25/.25), 2^(-.1458333/.35)
    CHECK(f6(c.fs_factor[s.u1]) == "0.408479");
    CHECK(f6(c.fs_factor[s.u2]) == "0.022097");
    CHECK(f6(c.fs_factor[s.u3]) == "0.125000");
    CHECK(f6(c.fs_factor[s.u4]) == "0.500000");
    CHECK(f6(c.fs_factor[s.u5]) == "0.749154");
    CHECK(c.fs_factor[s.u5] > c.fs_factor[s.u4]); // "user 5's job would be granted the highest"

    // The stand-in for the unaccounted 0.3: 0 shares, so F = 0, and it changes nobody's S.
    CHECK(c.shares_norm[s.idle] == 0.0);
    CHECK(c.fs_factor[s.idle] == 0.0);
    CHECK(ue(c, s.other) == doctest::Approx(0.3)); // root child: UN
    // accounts get factors too: A: 2^(-0.45/0.4)
    CHECK(c.fs_factor[s.A] == doctest::Approx(std::pow(2.0, -0.45 / 0.4)));
    // The classic family computes no LevelFS: the column is left empty, read as NaN.
    CHECK(c.level_fs.empty());
    CHECK(std::isnan(static_cast<double>(c.level_fs_of(s.u1))));
}

TEST_CASE("fairshare: a classic pass after a Fair Tree pass on the same columns leaves no stale LevelFS") {
    seed000 s;
    columns c;
    fair_tree(s.t, c);
    REQUIRE(c.has_level_fs);
    REQUIRE(c.level_fs.size() == s.t.size());
    CHECK_FALSE(std::isnan(static_cast<double>(c.level_fs_of(s.u1)))); // Fair Tree set it
    classic(s.t, c);
    CHECK_FALSE(c.has_level_fs);
    CHECK(c.level_fs.empty());
    CHECK(std::isnan(static_cast<double>(c.level_fs_of(s.u1))));
    CHECK(c.fs_factor.size() == s.t.size());
    CHECK(f6(c.fs_factor[s.u1]) == "0.408479"); // seed 000, as above
    // and Fair Tree again sizes the column back
    fair_tree(s.t, c);
    CHECK(c.level_fs.size() == s.t.size());
    CHECK_FALSE(std::isnan(static_cast<double>(c.level_fs_of(s.u1))));
}

TEST_CASE("fairshare: classic long double arithmetic in Slurm's order") {
    const seed000 s;
    columns c;
    classic(s.t, c);
    // user2: UN + (UE_parent - UN) * (shares / level_shares), all long double
    const long double un = 250.0L / 1000.0L;
    const long double ue_parent = c.usage_efctv[s.C];
    CHECK(c.usage_efctv[s.u2] == un + (ue_parent - un) * (1.0L / 2.0L));
    // F = pow(2.0, (double)-((UE / (long double)S) / d))
    const long double x = -((c.usage_efctv[s.u2] / static_cast<long double>(c.shares_norm[s.u2])) / 1.0L);
    CHECK(c.fs_factor[s.u2] == std::pow(2.0, static_cast<double>(x)));
}

TEST_CASE("fairshare: classic factor is the C library's pow(2, y) with every compiler") {
    // Slurm (built with gcc) calls pow(2.0, y). Clang rewrites a literal pow(2.0, y) into
    // exp2(y), and glibc's exp2 and pow differ in the last bit for about one y in a thousand
    // (glibc 2.36: y = -0x1.aa6491f0bf093p+1 is one). Volatile inputs keep the compiler from
    // folding either side; the factor must equal a real pow call, under gcc and clang alike.
    volatile double two = 2.0;
    volatile double y0 = -0x1.aa6491f0bf093p+1;
    const double y = y0;
    CHECK(detail::classic_factor(-static_cast<long double>(y), 1.0, 1) == std::pow(two, y));
    int differ = 0;
    for (int k = 1; k <= 20000; ++k) {
        volatile double yv = -static_cast<double>(k) * 0.000977; // a double: exact as a long double
        const double yk = yv;
        differ += detail::classic_factor(-static_cast<long double>(yk), 1.0, 1) != std::pow(two, yk);
    }
    CHECK(differ == 0);
}

namespace {

/// A random tree (fixed seed): accounts `depth` levels deep along one chain, each level
/// with its own sibling accounts and users; 1 in 10 shares is FairShare=parent, 1 in 12
/// is 0, 1 in 8 usages is 0.
tree random_tree(std::uint32_t seed, std::uint32_t depth) {
    std::uint32_t state = seed;
    const auto pick = [&state](std::uint32_t k) {
        state = state * 1664525u + 1013904223u;
        return (state >> 8) % k;
    };
    const auto shares = [&]() -> std::uint32_t {
        const std::uint32_t r = pick(120);
        if (r < 12) return use_parent;
        if (r < 22) return 0;
        return 1 + pick(100);
    };
    tree_builder b;
    std::uint32_t chain = 0, n = 0;
    for (std::uint32_t d = 0; d < depth; ++d) {
        const std::uint32_t next = b.add_account(chain, "c" + std::to_string(d), d % 7 == 3 ? use_parent : 1 + pick(10));
        for (std::uint32_t k = 0; k < 3; ++k) {
            const std::uint32_t side = b.add_account(chain, "s" + std::to_string(n++), shares());
            for (std::uint32_t u = 0; u < 4; ++u)
                b.add_user(side, "u" + std::to_string(n++), shares(), pick(8) == 0 ? 0.0L : static_cast<long double>(pick(100000)));
        }
        for (std::uint32_t u = 0; u < 3; ++u)
            b.add_user(next, "u" + std::to_string(n++), shares(), pick(8) == 0 ? 0.0L : static_cast<long double>(pick(100000)));
        chain = next;
    }
    tree t = b.build();
    t.aggregate_usage();
    return t;
}

/// The classic columns composed association by association from the documented pieces
/// (each product walked up the parent links with `chain_product`, `classic_usage_efctv`,
/// `classic_factor`, FairShare=parent copying the fs parent's shares and factor), with none
/// of the pass's sweeps.
struct classic_by_parts {
    std::vector<double> s, f;
    std::vector<long double> ue;
    classic_by_parts(const tree& t, std::uint16_t damping) : s(t.size()), f(t.size()), ue(t.size()) {
        std::vector<double> terms(t.size());
        detail::share_ratios(t, terms.data(), 0, t.size());
        s[0] = 1.0;
        for (std::uint32_t a = 1; a < t.size(); ++a)
            s[a] = t.is_use_parent(a) ? s[t.fs_parent[a]] : detail::chain_product(t, terms.data(), a);
        ue[0] = 1.0L;
        f[0] = detail::classic_factor(1.0L, s[0], damping);
        for (std::uint32_t a = 1; a < t.size(); ++a) {
            ue[a] = classic_usage_efctv(t, a, ue[t.fs_parent[a]]);
            f[a] = t.is_use_parent(a) ? f[t.fs_parent[a]] : detail::classic_factor(ue[a], s[a], damping);
        }
    }
};

} // namespace

TEST_CASE("fairshare: classic's columns and classic_shares are the pieces composed one association at a time, shallow or deep") {
    // 40 levels: `classic_shares`'s one-sweep path (it keeps the path's terms by depth, up to
    // 63); 90 levels: deeper than that, so it takes its general way. The pass reads the shares
    // `classic_shares` derived with the tree either way.
    for (const std::uint32_t depth : {40u, 90u}) {
        for (const std::uint16_t damping : {std::uint16_t{1}, std::uint16_t{3}}) {
            CAPTURE(depth);
            CAPTURE(damping);
            const tree t = random_tree(depth * 7 + damping, depth);
            REQUIRE(*std::max_element(t.depth.begin(), t.depth.end()) == depth + 1); // the chain's last users
            const classic_by_parts ref(t, damping);
            CHECK(classic_shares(t) == ref.s);
            columns c;
            classic(t, c, damping);
            std::size_t differ = 0;
            for (std::uint32_t a = 0; a < t.size(); ++a)
                differ += c.shares_norm[a] != ref.s[a] || c.usage_efctv[a] != ref.ue[a] || c.fs_factor[a] != ref.f[a];
            CHECK(differ == 0);
        }
    }
}

TEST_CASE("fairshare: classic FairShare=parent on users takes the account's factor") {
    // root: phys (1), chem (1). phys: alice (2): 30, bob (parent): 10, dave (1): 0.
    // chem: carol (3): 60. Root usage 100.
    tree_builder b;
    const auto phys = b.add_account(0, "phys", 1);
    const auto chem = b.add_account(0, "chem", 1);
    const auto alice = b.add_user(phys, "alice", 2, 30);
    const auto bob = b.add_user(phys, "bob", use_parent, 10);
    const auto dave = b.add_user(phys, "dave", 1, 0);
    const auto carol = b.add_user(chem, "carol", 3, 60);
    const tree t = b.build();
    columns c;
    classic(t, c);
    auto at = [&](std::uint32_t i) { return b.position(i); };
    // phys: UE = UN = 0.4, S = 1/2; bob: S, UE = phys's; F = 2^(-0.4/0.5) = 2^-0.8 = 0.574349
    CHECK(c.shares_norm[at(bob)] == 0.5);
    CHECK(c.usage_efctv[at(bob)] == c.usage_efctv[at(phys)]);
    CHECK(c.fs_factor[at(bob)] == c.fs_factor[at(phys)]);
    CHECK(f6(c.fs_factor[at(bob)]) == "0.574349");
    // level of phys's children: alice 2 + bob 0 + dave 1 = 3.
    // alice: S = 2/3 * 1/2 = 1/3; UE = 0.3 + (0.4 - 0.3) * 2/3 = 0.366667; F = 2^(-1.1) = 0.466516
    CHECK(c.shares_norm[at(alice)] == doctest::Approx(1.0 / 3.0));
    CHECK(c.usage_efctv[at(alice)] == doctest::Approx(0.3 + 0.1 * 2.0 / 3.0));
    CHECK(f6(c.fs_factor[at(alice)]) == "0.466516");
    // dave, zero usage: UE comes from the parent: 0 + (0.4 - 0) * 1/3 = 0.133333;
    // S = 1/3 * 1/2 = 1/6; F = 2^(-0.8) = 0.574349
    CHECK(c.usage_efctv[at(dave)] == doctest::Approx(0.4 / 3.0));
    CHECK(f6(c.fs_factor[at(dave)]) == "0.574349");
    // carol alone in chem: UE = 0.6 + (0.6 - 0.6) * 3/3 = 0.6, S = 0.5, F = 2^(-1.2) = 0.435275
    CHECK(f6(c.fs_factor[at(carol)]) == "0.435275");
}

TEST_CASE("fairshare: classic FairShare=parent on an account moves its users up") {
    // root: inst (3), other (1). inst: lab1 (parent), lab2 (1). lab1: u1 (1): 20, u2 (1): 0.
    // lab2: u3 (2): 20. other: u4 (1): 60. Root usage 100.
    // inst's fs children: lab1 (0), u1 (1), u2 (1), lab2 (1) -> level 3.
    tree_builder b;
    const auto inst = b.add_account(0, "inst", 3);
    const auto other = b.add_account(0, "other", 1);
    const auto lab1 = b.add_account(inst, "lab1", use_parent);
    const auto lab2 = b.add_account(inst, "lab2", 1);
    const auto u1 = b.add_user(lab1, "u1", 1, 20);
    const auto u2 = b.add_user(lab1, "u2", 1, 0);
    const auto u3 = b.add_user(lab2, "u3", 2, 20);
    const auto u4 = b.add_user(other, "u4", 1, 60);
    const tree t = b.build();
    columns c;
    classic(t, c);
    auto at = [&](std::uint32_t i) { return b.position(i); };
    // S: inst 3/4; u1 = 1/3 * 3/4 = 0.25 (lab1 skipped); lab2 0.25; u3 = 2/2 * 0.25; u4 = 1/4
    CHECK(c.shares_norm[at(lab1)] == 0.75);
    CHECK(c.shares_norm[at(u1)] == doctest::Approx(0.25));
    CHECK(c.shares_norm[at(u3)] == doctest::Approx(0.25));
    // UE: inst 0.4; lab1 = inst's 0.4; u1 = 0.2 + (0.4 - 0.2) * 1/3 = 0.266667 (fs parent inst);
    // u2 = 0 + 0.4 * 1/3 = 0.133333; lab2 = 0.2 + 0.2/3; u3 = 0.2 + (0.266667 - 0.2) * 2/2
    CHECK(c.usage_efctv[at(lab1)] == c.usage_efctv[at(inst)]);
    CHECK(c.usage_efctv[at(u1)] == doctest::Approx(0.2 + 0.2 / 3.0));
    CHECK(c.usage_efctv[at(u2)] == doctest::Approx(0.4 / 3.0));
    CHECK(c.usage_efctv[at(u3)] == doctest::Approx(0.2 + 0.2 / 3.0));
    CHECK(c.usage_efctv[at(u4)] == doctest::Approx(0.6));
    // F: u1, u3 = 2^(-0.266667/0.25) = 2^(-1.066667) = 0.477421; u2 = 2^(-0.533333) = 0.690956;
    // lab1 = inst = 2^(-0.4/0.75) = 0.690956; u4 = 2^(-0.6/0.25) = 2^-2.4 = 0.189465
    CHECK(f6(c.fs_factor[at(u1)]) == "0.477421");
    CHECK(f6(c.fs_factor[at(u3)]) == "0.477421");
    CHECK(f6(c.fs_factor[at(u2)]) == "0.690956");
    CHECK(f6(c.fs_factor[at(lab1)]) == "0.690956");
    CHECK(c.fs_factor[at(lab1)] == c.fs_factor[at(inst)]);
    CHECK(f6(c.fs_factor[at(u4)]) == "0.189465");

    SUBCASE("dampening: d = 2 gives 2^(-UE/S/2)") {
        columns d;
        classic(t, d, 2);
        // u4: 2^(-2.4/2) = 2^-1.2 = 0.435275; u2: 2^(-0.533333/2) = 2^(-0.266667) = 0.831238
        CHECK(f6(d.fs_factor[at(u4)]) == "0.435275");
        CHECK(f6(d.fs_factor[at(u2)]) == "0.831238");
        CHECK(d.usage_efctv[at(u4)] == c.usage_efctv[at(u4)]); // only F changes
        CHECK(d.fs_factor[at(u4)] == doctest::Approx(std::sqrt(c.fs_factor[at(u4)]))); // 2^(-x/2)
    }
}

TEST_CASE("fairshare: classic zero shares, zero level shares, zero usage") {
    // root: z (1), y (1). z: z1 (0): 10, z2 (0): 0 -> z's level 0. y: y1 (1): 0, y2 (0): 30.
    // Root usage 40.
    tree_builder b;
    const auto z = b.add_account(0, "z", 1);
    const auto y = b.add_account(0, "y", 1);
    const auto z1 = b.add_user(z, "z1", 0, 10);
    const auto z2 = b.add_user(z, "z2", 0, 0);
    const auto y1 = b.add_user(y, "y1", 1, 0);
    const auto y2 = b.add_user(y, "y2", 0, 30);
    const tree t = b.build();
    columns c;
    classic(t, c);
    auto at = [&](std::uint32_t i) { return b.position(i); };
    // level_shares == 0 (fs parent z is not the root): UE = z's UE = UN(z) = 10/40 = 0.25
    CHECK(t.level_shares[at(z1)] == 0);
    CHECK(c.usage_efctv[at(z1)] == c.usage_efctv[at(z)]);
    CHECK(c.usage_efctv[at(z2)] == doctest::Approx(0.25));
    // S = 0 -> F = 0
    CHECK(c.shares_norm[at(z1)] == 0.0);
    CHECK(c.fs_factor[at(z1)] == 0.0);
    CHECK(c.fs_factor[at(z2)] == 0.0);
    // y's level 1: y2 has 0 shares -> UE = UN = 0.75 + (..) * 0/1; F = 0 (S = 0)
    CHECK(c.usage_efctv[at(y2)] == doctest::Approx(0.75));
    CHECK(c.fs_factor[at(y2)] == 0.0);
    // y1, no usage of its own: UE = 0 + (0.75 - 0) * 1/1 = 0.75 from the parent;
    // S = 1/1 * 1/2; F = 2^(-1.5) = 0.353553
    CHECK(c.usage_efctv[at(y1)] == doctest::Approx(0.75));
    CHECK(f6(c.fs_factor[at(y1)]) == "0.353553");

    // No usage anywhere: UN = 0 (root usage 0), every UE 0 below the root, F = 1 where S > 0.
    tree_builder e;
    const auto ea = e.add_account(0, "a", 1);
    const auto eu = e.add_user(ea, "u", 1);
    const auto ev = e.add_user(ea, "v", 0);
    const tree te = e.build();
    columns ce;
    classic(te, ce);
    CHECK(ce.usage_efctv[e.position(eu)] == 0.0L);
    CHECK(ce.fs_factor[e.position(eu)] == 1.0);
    CHECK(ce.fs_factor[e.position(ev)] == 0.0);
    CHECK(ce.usage_efctv[0] == 1.0L);
}

TEST_CASE("fairshare: classic checks fs parent == root before FairShare=parent") {
    // root: r (user, parent): 50, zz (user, 0 shares): 10, a (1): a1 (1): 40. Root usage 100.
    // root's level: r 0 + zz 0 + a 1 = 1.
    tree_builder b;
    const auto r = b.add_user(0, "r", use_parent, 50);
    const auto zz = b.add_user(0, "zz", 0, 10);
    const auto a = b.add_account(0, "a", 1);
    const auto a1 = b.add_user(a, "a1", 1, 40);
    const tree t = b.build();
    columns c;
    classic(t, c);
    auto at = [&](std::uint32_t i) { return b.position(i); };
    // r: fs parent is the root, so UE = UN = 0.5 (not the root's UE 1.0) ...
    CHECK(c.usage_efctv[at(r)] == doctest::Approx(0.5));
    // ... S = the root's 1, and F reads the fs parent (root: UE 1, S 1): 2^-1 = 0.5
    CHECK(c.shares_norm[at(r)] == 1.0);
    CHECK(c.fs_factor[at(r)] == 0.5);
    // zz: a child of the root: UE = UN = 0.1 even with 0 shares; S = 0 -> F = 0
    CHECK(c.usage_efctv[at(zz)] == doctest::Approx(0.1));
    CHECK(c.fs_factor[at(zz)] == 0.0);
    // a: UE 0.4, S 1/1 = 1; a1: 0.4 + 0 = 0.4, S 1; F = 2^(-0.4) = 0.757858
    CHECK(f6(c.fs_factor[at(a1)]) == "0.757858");
    // single-association helper agrees
    CHECK(classic_usage_efctv(t, at(r), 1.0L) == c.usage_efctv[at(r)]);
}
