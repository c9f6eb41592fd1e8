// Tests for mfprio/fairshare/flux_tree.hpp: flux-accounting's weighted tree (reference
// flux_maui.md A2.5). Every expected value is derived by hand from the reference, the
// arithmetic in a comment. Notation: w = (shares / sibling shares) / (usage / sibling
// usage); N = number of users; a user's factor = rank / N, the counter starting at N.
#include <mfprio/fairshare/flux_tree.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "fairshare_oracles.hpp"

namespace {
namespace fs = mfprio::fairshare;
using fs::tree_builder;

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

constexpr double two_64 = 18446744073709551616.0; // double(UINT64_MAX) + 1

/// A built tree with its flux columns, read through builder indices.
struct run {
    tree_builder& b;
    fs::tree t;
    fs::columns c;
    run(tree_builder& builder, fs::flux_tree_options o = {}) : b(builder), t(builder.build()) { fs::flux_tree(t, c, o); }
    [[nodiscard]] double f(std::uint32_t id) const { return c.fs_factor[b.position(id)]; }
    [[nodiscard]] double w(std::uint32_t id) const { return static_cast<double>(c.level_fs[b.position(id)]); }
    [[nodiscard]] double s(std::uint32_t id) const { return c.shares_norm[b.position(id)]; }
    [[nodiscard]] double u(std::uint32_t id) const { return static_cast<double>(c.usage_efctv[b.position(id)]); }
};
} // namespace

TEST_CASE("fairshare: flux weights: shares over usage among siblings, zero shares, zero usage") {
    // root ── A (1) ── a1 (1, 30);  B (3) ── b1 (1, 10);  Z (0) ── z1 (1, 0)
    // Root's children: shares sum 1 + 3 + 0 = 4, usage sum 30 + 10 + 0 = 40.
    // w(A) = (1/4)/(30/40) = 0.25/0.75 = 1/3; w(B) = (3/4)/(10/40) = 3;
    // w(Z) = 0 (shares 0, although its usage is 0 too).
    // w(a1) = (1/1)/(30/30) = 1; w(b1) = 1; w(z1) = 2^64 (no usage).
    // Order B, A, Z, N = 3: b1 3/3, a1 2/3, z1 1/3.
    tree_builder b;
    const auto A = b.add_account(0, "A", 1);
    const auto a1 = b.add_user(A, "a1", 1, 30);
    const auto B = b.add_account(0, "B", 3);
    const auto b1 = b.add_user(B, "b1", 1, 10);
    const auto Z = b.add_account(0, "Z", 0);
    const auto z1 = b.add_user(Z, "z1", 1, 0);
    const run r(b);
    CHECK(r.c.has_level_fs);
    CHECK(r.w(A) == 1.0 / 3.0);
    CHECK(r.w(B) == 3.0);
    CHECK(r.w(Z) == 0.0);
    CHECK(r.w(a1) == 1.0);
    CHECK(r.w(b1) == 1.0);
    CHECK(r.w(z1) == two_64);
    CHECK(r.s(A) == 0.25);
    CHECK(r.s(B) == 0.75);
    CHECK(r.s(Z) == 0.0);
    CHECK(r.u(A) == 0.75);
    CHECK(r.u(B) == 0.25);
    CHECK(r.u(Z) == 0.0);
    CHECK(std::isnan(r.c.level_fs[0])); // the root has no weight
    CHECK(r.f(b1) == 1.0);
    CHECK(r.f(a1) == 2.0 / 3);
    CHECK(r.f(z1) == 1.0 / 3);
    CHECK(r.f(A) == 0.0); // banks get no factor
}

TEST_CASE("fairshare: flux weight helper and tie test") {
    CHECK(fs::flux_weight(0, 0.0, 4, 40.0) == 0.0);         // shares 0 wins over no usage
    CHECK(fs::flux_weight(1, 0.0, 4, 40.0) == two_64);      // no usage
    CHECK(fs::flux_weight(1, 5e-10, 4, 40.0) == two_64);    // |usage| < 1e-9 counts as none
    CHECK(fs::flux_weight(1, 10.0, 4, 40.0) == 1.0);        // (1/4)/(10/40)
    CHECK(fs::flux_weight(1, 0.5, 4, 0.0) == 0.0);          // truncated sum 0: 1/4 over an infinite share
    CHECK(fs::flux_no_usage_weight == two_64);
    // |a - b| < DBL_EPSILON * max(|a|, |b|, 1), DBL_EPSILON = 2^-52:
    // 1 and 1 + 2^-52 (one ulp): 2^-52 < 2^-52 x (1 + 2^-52)
    CHECK(fs::flux_weights_tie(1.0, 1.0 + 0x1p-52));
    // below 1 the bound is absolute: 0.5 + 2^-53 (one ulp) ties, 0.5 + 2^-52 (two) does not
    CHECK(fs::flux_weights_tie(0.5, 0.5 + 0x1p-53));
    CHECK_FALSE(fs::flux_weights_tie(0.5, 0.5 + 0x1p-52));
    // above 1 it is relative: 1000 is in [2^9, 2^10), one ulp 2^-43 < 1000 x 2^-52 = 2^-43 x 1.95;
    // two ulps 2^-42 are not
    CHECK(fs::flux_weights_tie(1000.0, 1000.0 + 0x1p-43));
    CHECK_FALSE(fs::flux_weights_tie(1000.0, 1000.0 + 0x1p-42));
    CHECK(fs::flux_weights_tie(two_64, two_64));
}

TEST_CASE("fairshare: flux: every user without usage gets 2^64 and they all tie") {
    // root ── u1, u2, u3 (1, usage 0), u4 (1, usage 10). Sums: shares 4, usage 10.
    // w(u1..u3) = 2^64; w(u4) = (1/4)/(10/10) = 0.25. N = 4.
    // u1..u3 tie: all get 4/4, the counter drops by 3; u4 gets 1/4.
    tree_builder b;
    const auto u1 = b.add_user(0, "u1", 1, 0);
    const auto u2 = b.add_user(0, "u2", 1, 0);
    const auto u3 = b.add_user(0, "u3", 1, 0);
    const auto u4 = b.add_user(0, "u4", 1, 10);
    const run r(b);
    CHECK(r.w(u1) == two_64);
    CHECK(r.w(u4) == 0.25);
    CHECK(r.f(u1) == 1.0);
    CHECK(r.f(u2) == 1.0);
    CHECK(r.f(u3) == 1.0);
    CHECK(r.f(u4) == 0.25);
}

TEST_CASE("fairshare: flux ties weights one ulp apart (relative epsilon)") {
    // root ── u1 (40, 20), u2 (50, 25), u3 (80, 65). Sums: shares 170, usage 110.
    // As fractions w(u1) = w(u2) = 22/17 = 1.294; in double:
    //  double(40/170) rounds down (-1.39e-17 relative), double(20/110) up (+2.78e-17):
    //  w(u1) is low by about 4.2e-17; double(50/170) rounds up (+3.33e-17), double(25/110)
    //  down (-3.33e-17): w(u2) is high by about 6.7e-17. Their gap, 1.1e-16 relative, is one
    //  ulp in [1, 2) (2^-52 = 2.2e-16 absolute, once rounded). The tie threshold is
    //  DBL_EPSILON x 1.294 > one ulp: they tie and share 3/3.
    // w(u3) = (80/170)/(65/110) = 0.796: 3 - 2 = 1 -> 1/3.
    tree_builder b;
    const auto u1 = b.add_user(0, "u1", 40, 20);
    const auto u2 = b.add_user(0, "u2", 50, 25);
    const auto u3 = b.add_user(0, "u3", 80, 65);
    const run r(b);
    CHECK(r.w(u1) != r.w(u2));
    CHECK(std::nextafter(r.w(u1), 2.0) == r.w(u2));
    CHECK(r.f(u1) == 1.0);
    CHECK(r.f(u2) == 1.0);
    CHECK(r.f(u3) == 1.0 / 3);
}

TEST_CASE("fairshare: flux puts a user before a bank it ties with, and they do not share a rank") {
    // root ── u (40, 20), B (50) ── b1 (1, 25), v (80, 65). Sums: shares 170, usage 110.
    // w(u) = (40/170)/(20/110), w(B) = (50/170)/(25/110): one ulp apart, B's the larger
    // (previous test), a tie. Users go first in a tie: u 3/3, counter 2; then B: b1 2/3
    // (users never share a rank with a bank); v (0.796): 1/3.
    tree_builder b;
    const auto u = b.add_user(0, "u", 40, 20);
    const auto B = b.add_account(0, "B", 50);
    const auto b1 = b.add_user(B, "b1", 1, 25);
    const auto v = b.add_user(0, "v", 80, 65);
    const run r(b);
    CHECK(r.w(B) > r.w(u));
    CHECK(fs::flux_weights_tie(r.w(B), r.w(u)));
    CHECK(r.f(u) == 1.0);
    CHECK(r.f(b1) == 2.0 / 3);
    CHECK(r.f(v) == 1.0 / 3);
}

TEST_CASE("fairshare: flux merges tied banks into a virtual node") {
    // root ── A (1) ── a1 (1, 10), a2 (1, 30)     A usage 40
    //      └─ B (1) ── b1 (1, 15), b2 (1, 25)     B usage 40
    // w(A) = w(B) = (1/2)/(40/80) = 1: a virtual node with children a1, a2, b1, b2 keeping
    // their weights: a1 = (1/2)/(10/40) = 2, a2 = (1/2)/(30/40) = 2/3,
    // b1 = (1/2)/(15/40) = 4/3, b2 = (1/2)/(25/40) = 0.8.
    // Sorted a1, b1, b2, a2: 4/4, 3/4, 2/4, 1/4.
    tree_builder b;
    const auto A = b.add_account(0, "A", 1);
    const auto a1 = b.add_user(A, "a1", 1, 10);
    const auto a2 = b.add_user(A, "a2", 1, 30);
    const auto B = b.add_account(0, "B", 1);
    const auto b1 = b.add_user(B, "b1", 1, 15);
    const auto b2 = b.add_user(B, "b2", 1, 25);
    const run r(b);
    CHECK(r.w(A) == 1.0);
    CHECK(r.w(B) == 1.0);
    CHECK(r.w(a1) == 2.0);
    CHECK(r.f(a1) == 1.0);
    CHECK(r.f(b1) == 0.75);
    CHECK(r.f(b2) == 0.5);
    CHECK(r.f(a2) == 0.25);
}

TEST_CASE("fairshare: flux virtual nodes nest: tied banks among a virtual node's children merge again") {
    // root ── A (1) ── a1 (1, 10), A1 (1) ── x1 (1, 5), x2 (1, 25)
    //      └─ B (1) ── b1 (1, 10), B1 (1) ── y1 (1, 10), y2 (1, 20)
    // A, B: 40 each, w = (1/2)/(40/80) = 1: virtual node {a1, A1, b1, B1}.
    // w(a1) = w(b1) = (1/2)/(10/40) = 2; w(A1) = w(B1) = (1/2)/(30/40) = 2/3.
    // Tie group {a1, b1}: both 6/6, counter 4. Tie group {A1, B1}: virtual node
    // {x1 = (1/2)/(5/30) = 3, x2 = (1/2)/(25/30) = 0.6, y1 = (1/2)/(10/30) = 1.5,
    //  y2 = (1/2)/(20/30) = 0.75}: x1 4/6, y1 3/6, y2 2/6, x2 1/6.
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
    const run r(b);
    CHECK(r.f(a1) == 1.0);
    CHECK(r.f(b1) == 1.0);
    CHECK(r.f(x1) == 4.0 / 6);
    CHECK(r.f(y1) == 3.0 / 6);
    CHECK(r.f(y2) == 2.0 / 6);
    CHECK(r.f(x2) == 1.0 / 6);
}

TEST_CASE("fairshare: flux usage sums: double by default, flux's truncation as an option") {
    // root ── u1 (1, 0.6), u2 (1, 0.7), u3 (1, 2.9); shares sum 3.
    // Double sum: 0.6 + 0.7 + 2.9 = 4.2; truncated after every addition: 0.6 -> 0,
    // 0 + 0.7 -> 0, 0 + 2.9 -> 2.
    // w(u1) = (1/3)/(0.6/4.2) = 7/3 = 2.333 with the double sum, (1/3)/(0.6/2) = 10/9 = 1.111
    // truncated. The order is the same (one divisor for all): u1, u2, u3: 1, 2/3, 1/3.
    tree_builder b;
    const auto u1 = b.add_user(0, "u1", 1, 0.6);
    const auto u2 = b.add_user(0, "u2", 1, 0.7);
    const auto u3 = b.add_user(0, "u3", 1, 2.9);
    const run r(b);
    CHECK(r.u(u1) == doctest::Approx(0.6 / 4.2));
    CHECK(r.w(u1) == doctest::Approx(7.0 / 3.0));
    const run q(b, {.truncate_usage_sums = true});
    CHECK(q.u(u1) == doctest::Approx(0.3));    // 0.6 / 2
    CHECK(q.w(u1) == doctest::Approx(10.0 / 9.0));
    CHECK(q.w(u3) == doctest::Approx((1.0 / 3.0) / (2.9 / 2.0)));
    for (const run* x : {&r, &q}) {
        CHECK(x->f(u1) == 1.0);
        CHECK(x->f(u2) == 2.0 / 3);
        CHECK(x->f(u3) == 1.0 / 3);
    }
}

TEST_CASE("fairshare: flux truncated usage sum of 0 gives users with usage a weight of 0") {
    // root ── u1 (1, 0.3), u2 (1, 0.4), u3 (1, 0).
    // Truncated: 0.3 -> 0, 0.4 -> 0, 0 -> 0: sum 0; u1, u2 weigh (1/3)/inf = 0 and tie;
    //   u3 (no usage) 2^64. u3 3/3; u1, u2 share 2/3.
    // Double: sum 0.7; u1 = (1/3)/(0.3/0.7) = 0.778, u2 = (1/3)/(0.4/0.7) = 0.583:
    //   u3 1, u1 2/3, u2 1/3.
    tree_builder b;
    const auto u1 = b.add_user(0, "u1", 1, 0.3);
    const auto u2 = b.add_user(0, "u2", 1, 0.4);
    const auto u3 = b.add_user(0, "u3", 1, 0);
    const run q(b, {.truncate_usage_sums = true});
    CHECK(q.w(u1) == 0.0);
    CHECK(q.w(u2) == 0.0);
    CHECK(q.f(u3) == 1.0);
    CHECK(q.f(u1) == 2.0 / 3);
    CHECK(q.f(u2) == 2.0 / 3);
    const run r(b);
    CHECK(r.w(u1) == doctest::Approx(7.0 / 9.0));
    CHECK(r.f(u3) == 1.0);
    CHECK(r.f(u1) == 2.0 / 3);
    CHECK(r.f(u2) == 1.0 / 3);
}

TEST_CASE("fairshare: flux reads FairShare=parent as shares 1 under the direct parent") {
    // root ── A (parent) ── a1 (1, 10);  B (3) ── b1 (1, 10).
    // flux: A counts as 1 share and keeps a1: sums 1 + 3 = 4, usage 20.
    // w(A) = (1/4)/(10/20) = 0.5, w(B) = (3/4)/(10/20) = 1.5. a1 is A's only child:
    // shares_norm 1/1. B first: b1 2/2, a1 1/2.
    tree_builder b;
    const auto A = b.add_account(0, "A", fs::use_parent);
    const auto a1 = b.add_user(A, "a1", 1, 10);
    const auto B = b.add_account(0, "B", 3);
    const auto b1 = b.add_user(B, "b1", 1, 10);
    const run r(b);
    CHECK(r.w(A) == 0.5);
    CHECK(r.w(B) == 1.5);
    CHECK(r.s(a1) == 1.0);
    CHECK(r.f(b1) == 1.0);
    CHECK(r.f(a1) == 0.5);
}

TEST_CASE("fairshare: flux can ignore the users of a bank that has sub-banks, as its reader does") {
    // root ── A (1) ── a0 (1, 10), A1 (1) ── a1 (1, 10);  B (1) ── b1 (1, 30)
    // Default: N = 3; A usage 20, B 30: w(A) = (1/2)/(20/50) = 1.25 > w(B) = (1/2)/(30/50).
    //   In A: a0 = (1/2)/(10/20) = 1 = A1: a tie, the user first: a0 3/3, then A1: a1 2/3;
    //   b1 1/3.
    // Ignoring a0: N = 2; A usage 10 (a0's no longer counts): w(A) = (1/2)/(10/40) = 2,
    //   w(B) = (1/2)/(30/40) = 2/3: a1 2/2, b1 1/2; a0 gets 0 and no weight.
    tree_builder b;
    const auto A = b.add_account(0, "A", 1);
    const auto a0 = b.add_user(A, "a0", 1, 10);
    const auto A1 = b.add_account(A, "A1", 1);
    const auto a1 = b.add_user(A1, "a1", 1, 10);
    const auto B = b.add_account(0, "B", 1);
    const auto b1 = b.add_user(B, "b1", 1, 30);
    const run r(b);
    CHECK(r.w(A) == 1.25);
    CHECK(r.w(a0) == 1.0);
    CHECK(r.w(A1) == 1.0);
    CHECK(r.f(a0) == 1.0);
    CHECK(r.f(a1) == 2.0 / 3);
    CHECK(r.f(b1) == 1.0 / 3);
    const run q(b, {.ignore_users_of_banks_with_sub_banks = true});
    CHECK(q.w(A) == 2.0);
    CHECK(q.f(a1) == 1.0);
    CHECK(q.f(b1) == 0.5);
    CHECK(q.f(a0) == 0.0);
    CHECK(std::isnan(q.c.level_fs[b.position(a0)]));
}

namespace {
using fairshare_test::naive_flux;

fs::tree random_tree(std::uint32_t seed, bool coarse) {
    std::mt19937 rng(seed);
    const auto pick = [&](std::uint32_t k) { return static_cast<std::uint32_t>(rng() % k); };
    tree_builder b;
    for (int i = 0; i < 3; ++i) {
        const auto A = b.add_account(0, label("a", i), pick(10) == 0 ? fs::use_parent : 1 + pick(3));
        for (int j = 0; j < 4; ++j) {
            const auto S = b.add_account(A, label("s", i, j), pick(4));
            for (int k = 0; k < 150; ++k)
                b.add_user(S, label("u", k), coarse ? pick(4) : 1 + pick(100),
                           coarse ? 10.0L * pick(4) : static_cast<long double>(pick(1000000)));
        }
    }
    return b.build();
}
} // namespace

TEST_CASE("fairshare: flux agrees with a plain transcription of the reference on random trees") {
    for (const bool coarse : {true, false})
        for (std::uint32_t seed = 1; seed <= 3; ++seed) {
            CAPTURE(coarse);
            CAPTURE(seed);
            const fs::tree t = random_tree(seed, coarse);
            fs::columns c;
            fs::flux_tree(t, c);
            const naive_flux ref(t);
            std::size_t differ = 0;
            for (std::uint32_t a = 1; a < t.size(); ++a)
                differ += c.fs_factor[a] != ref.out[a] || static_cast<double>(c.level_fs[a]) != ref.w[a];
            CHECK(differ == 0);
        }
}

TEST_CASE("fairshare: flux on 100,000 associations gives every user a factor in (0, 1]") {
    // 10 banks x 10 sub-banks x 999 users, shares 1-100, random usage.
    std::mt19937 rng(2025);
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
    REQUIRE(t.user_count == 99900);
    fs::flux_tree_workspace ws;
    for (const bool truncate : {false, true}) {
        fs::columns c;
        fs::flux_tree(t, c, ws, {.truncate_usage_sums = truncate});
        std::size_t outside = 0;
        double top = 0, bottom = 2;
        for (std::uint32_t a = 0; a < t.size(); ++a)
            if (t.is_user(a)) {
                outside += !(c.fs_factor[a] > 0.0 && c.fs_factor[a] <= 1.0);
                top = std::max(top, c.fs_factor[a]);
                bottom = std::min(bottom, c.fs_factor[a]);
            }
        CHECK(outside == 0);
        CHECK(top == 1.0);
        CHECK(bottom >= 1.0 / 99900);
        fs::columns again;
        fs::flux_tree(t, again, ws, {.truncate_usage_sums = truncate});
        CHECK(again.fs_factor == c.fs_factor);
    }
}
