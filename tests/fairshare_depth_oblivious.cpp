// Tests for mfprio/fairshare/depth_oblivious.hpp (reference slurm.md 3.2.2): steady-state
// DEPTH_OBLIVIOUS effective usage UE = r_p * r_l^k * S with the sibling sum over the fs
// parent's non-FairShare=parent children, both k branches, then the classic factor.
#include <doctest/doctest.h>

#include <mfprio/core/parallel.hpp>
#include <mfprio/fairshare/depth_oblivious.hpp>

#include <bit>
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "fairshare_fixture.hpp"
#include "fairshare_oracles.hpp"

using namespace mfprio::fairshare;

namespace {

std::string f6(double x) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%f", x);
    return buf;
}

} // namespace

TEST_CASE("fairshare: depth-oblivious effective usage, derived by hand") {
    //   root                         raw usage; root total 30+5+5+50+10 = 100
    //   ├── A (1)                    UN 0.4, S 1/2
    //   │   ├── A1 (1)               UN 0.3, S 1/2 * 1/2 = 0.25
    //   │   │   └── u1 (1): 30       UN 0.3, S 0.25
    //   │   └── A2 (1)               UN 0.1, S 0.25
    //   │       ├── u2 (1): 5        UN 0.05, S 1/1 * 0.25 (w contributes 0 to the level)
    //   │       └── w (parent): 5    UN 0.05
    //   └── B (1)                    UN 0.6, S 1/2
    //       ├── u3 (1): 50           UN 0.5, S 0.25
    //       └── u4 (1): 10           UN 0.1, S 0.25
    tree_builder b;
    const auto A = b.add_account(0, "A", 1);
    const auto B = b.add_account(0, "B", 1);
    const auto A1 = b.add_account(A, "A1", 1);
    const auto A2 = b.add_account(A, "A2", 1);
    const auto u1 = b.add_user(A1, "u1", 1, 30);
    const auto u2 = b.add_user(A2, "u2", 1, 5);
    const auto w = b.add_user(A2, "w", use_parent, 5);
    const auto u3 = b.add_user(B, "u3", 1, 50);
    const auto u4 = b.add_user(B, "u4", 1, 10);
    const tree t = b.build();
    columns c;
    depth_oblivious(t, c);
    CHECK_FALSE(c.has_level_fs);
    auto UE = [&](std::uint32_t i) { return static_cast<double>(c.usage_efctv[b.position(i)]); };
    auto F = [&](std::uint32_t i) { return c.fs_factor[b.position(i)]; };

    // Children of the root: UE = UN.
    CHECK(UE(A) == doctest::Approx(0.4));
    CHECK(UE(B) == doctest::Approx(0.6));
    CHECK(f6(F(A)) == "0.574349"); // 2^(-0.4/0.5) = 2^-0.8
    CHECK(f6(F(B)) == "0.435275"); // 2^(-0.6/0.5) = 2^-1.2

    // A1: r_p = 0.4/0.5 = 0.8; r_s = (0.3 + 0.1)/0.5 = 0.8; r_l = (0.3/0.25)/0.8 = 1.5.
    // ln 0.8 = -0.223144 < 0 < ln 1.5 -> k = 1/(1 + (5 ln 0.8)^2) = 1/(1 + 1.244826) = 0.445469
    // UE = 0.8 * 1.5^0.445469 * 0.25 = 0.8 * 1.197962 * 0.25 = 0.239592
    // F = 2^(-0.239592/0.25) = 2^(-0.958370) = 0.514638
    CHECK(UE(A1) == doctest::Approx(0.2395924662));
    CHECK(f6(F(A1)) == "0.514638");
    // A2: r_l = (0.1/0.25)/0.8 = 0.5; ln 0.8 and ln 0.5 both < 0 -> k = 1;
    // UE = 0.8 * 0.5 * 0.25 = 0.1; F = 2^(-0.4) = 0.757858
    CHECK(UE(A2) == doctest::Approx(0.1));
    CHECK(f6(F(A2)) == "0.757858");
    // u1 alone under A1: r_p = 0.239592/0.25 = 0.958370, r_s = 0.3/0.25 = 1.2,
    // r_l = (0.3/0.25)/1.2 = 1 -> ln r_l = 0 -> k = 1 (and r_l^k = 1 whatever k);
    // UE = r_p * 1 * 0.25 = A1's UE, F = A1's F.
    CHECK(UE(u1) == doctest::Approx(0.2395924662));
    CHECK(f6(F(u1)) == "0.514638");
    // u2 under A2: r_p = 0.1/0.25 = 0.4; r_s = 0.05/0.25 = 0.2 (w is FairShare=parent, not
    // summed: with it, r_s would be 0.4 and UE 0.05); r_l = (0.05/0.25)/0.2 = 1 -> k = 1;
    // UE = 0.4 * 1 * 0.25 = 0.1; F = 2^(-0.4) = 0.757858
    CHECK(UE(u2) == doctest::Approx(0.1));
    CHECK(f6(F(u2)) == "0.757858");
    // w: FairShare=parent: A2's UE, S and F
    CHECK(UE(w) == UE(A2));
    CHECK(F(w) == F(A2));
    // u3 under B: r_p = 0.6/0.5 = 1.2; r_s = (0.5 + 0.1)/0.5 = 1.2; r_l = (0.5/0.25)/1.2 = 1.666667.
    // ln 1.2 > 0, ln 1.666667 > 0 -> k = 1; UE = 1.2 * 1.666667 * 0.25 = 0.5; F = 2^-2 = 0.25
    // (classic would give 0.5 + (0.6 - 0.5) * 1/2 = 0.55).
    CHECK(UE(u3) == doctest::Approx(0.5));
    CHECK(f6(F(u3)) == "0.250000");
    // u4 under B: r_l = (0.1/0.25)/1.2 = 0.333333; ln 1.2 = 0.182322 > 0 > ln 0.333333 ->
    // k = 1/(1 + (5 * 0.182322)^2) = 1/(1 + 0.831029) = 0.546141;
    // UE = 1.2 * 0.333333^0.546141 * 0.25 = 1.2 * 0.548813 * 0.25 = 0.164644;
    // F = 2^(-0.164644/0.25) = 2^(-0.658576) = 0.633503
    CHECK(UE(u4) == doctest::Approx(0.1646439370));
    CHECK(f6(F(u4)) == "0.633503");

    SUBCASE("dampening applies as in classic") {
        columns d;
        depth_oblivious(t, d, 2);
        CHECK(d.usage_efctv[b.position(u4)] == c.usage_efctv[b.position(u4)]);
        CHECK(f6(d.fs_factor[b.position(u3)]) == "0.500000"); // 2^(-2/2)
    }
}

TEST_CASE("fairshare: depth-oblivious single-association formula branches") {
    // Any of S, P.S, P.UE, UN zero -> UE = UN.
    CHECK(depth_oblivious_usage_efctv(0.3L, 0.0, 0.4L, 0.5, 0.4L) == 0.3L);
    CHECK(depth_oblivious_usage_efctv(0.3L, 0.25, 0.4L, 0.0, 0.4L) == 0.3L);
    CHECK(depth_oblivious_usage_efctv(0.3L, 0.25, 0.0L, 0.5, 0.4L) == 0.3L);
    CHECK(depth_oblivious_usage_efctv(0.0L, 0.25, 0.4L, 0.5, 0.4L) == 0.0L);
    // Parent exactly at its share (r_p = 0.5/0.5 = 1, ln r_p = 0 -> k = 1):
    // r_s = 0.5/0.5 = 1, r_l = (0.1/0.25)/1 = 0.4 -> UE = 1 * 0.4 * 0.25 = 0.1
    CHECK(static_cast<double>(depth_oblivious_usage_efctv(0.1L, 0.25, 0.5L, 0.5, 0.5L)) ==
          doctest::Approx(0.1));
    // r_p = 0.25/0.5 = 0.5 < 1, r_l = (0.3/0.25)/(0.4/0.5) = 1.5 > 1: k = 1/(1 + (5 ln 0.5)^2)
    // = 1/(1 + 12.011325) = 0.076856; UE = 0.5 * 1.5^0.076856 * 0.25 = 0.5 * 1.031655 * 0.25
    // = 0.128957
    CHECK(static_cast<double>(depth_oblivious_usage_efctv(0.3L, 0.25, 0.25L, 0.5, 0.4L)) ==
          doctest::Approx(0.1289566386));
}

TEST_CASE("fairshare: depth-oblivious is linear in the tree size (200,000 users in one account)") {
    // Slurm re-sums every child's siblings, quadratic here (4e10 additions); mfprio sums each
    // fs parent's children once. Every user has 1 share and usage 1: the account is the
    // root's only child, so UE = UN = 1 and S = 1 (r_p = 1, k = 1); each user has
    // r_s = 1/1 = 1, r_l = ((1/n)/(1/n))/1 = 1, UE = 1 * 1 * 1/n, F = 2^-1 = 0.5.
    constexpr std::uint32_t n = 200000;
    tree_builder b;
    const auto big = b.add_account(0, "big", 1);
    for (std::uint32_t i = 0; i < n; ++i) {
        std::string name = std::to_string(i); // (no literal + string: gcc 12 -O3 -Wrestrict)
        name.insert(name.begin(), 'u');
        b.add_user(big, std::move(name), 1, 1);
    }
    const tree t = b.build();
    columns c;
    depth_oblivious(t, c);
    REQUIRE(t.size() == n + 2);
    CHECK(c.fs_factor[b.position(big)] == doctest::Approx(0.5));
    CHECK(c.fs_factor[2] == doctest::Approx(0.5));
    CHECK(c.fs_factor[n + 1] == doctest::Approx(0.5));
    CHECK(static_cast<double>(c.usage_efctv[n / 2]) == doctest::Approx(1.0 / n));
}

namespace {

/// A long double from its 64-bit significand (explicit leading bit included) and its
/// unbiased exponent: significand x 2^(exponent - 63).
long double from_bits(std::uint64_t significand, int exponent) {
    return std::ldexp(static_cast<long double>(significand), exponent - 63);
}

using fairshare_test::same_bits;
using fairshare_test::slurm_depth_oblivious;

/// Accounts under the root, sub-accounts under some, users under both, with more users under
/// an account than one batch (64) holds, and accounts with a single user (r_l = 1). Usage
/// spans 12 orders of magnitude, so that the accounts' usage ratios lie on both sides of 1.
/// About 1 in 12 shares is FairShare=parent, 1 in 15 is 0, 1 in 10 usages is 0.
tree random_tree(std::uint32_t seed, std::uint32_t accounts, std::uint32_t max_users) {
    std::mt19937_64 rng(seed);
    const auto pick = [&](std::uint32_t k) { return static_cast<std::uint32_t>(rng() % k); };
    const auto shares = [&]() -> std::uint32_t {
        const std::uint32_t r = pick(60);
        if (r < 5) return use_parent;
        if (r < 9) return 0;
        return 1 + pick(100);
    };
    const auto usage = [&]() -> long double {
        if (pick(10) == 0) return 0.0L;
        const long double mantissa = static_cast<long double>(1 + pick(1u << 30));
        return std::ldexp(mantissa, static_cast<int>(pick(40)));
    };
    tree_builder b;
    std::uint32_t serial = 0;
    const auto users = [&](std::uint32_t acct, std::uint32_t count) {
        for (std::uint32_t k = 0; k < count; ++k) {
            std::string u = std::to_string(serial++);
            u.insert(u.begin(), 'u');
            const std::uint32_t sh = shares();
            b.add_user(acct, std::move(u), sh, usage());
        }
    };
    for (std::uint32_t i = 0; i < accounts; ++i) {
        std::string name = std::to_string(i);
        name.insert(name.begin(), 'a');
        const auto a = b.add_account(0, name, i % 7 == 3 ? use_parent : 1 + pick(100));
        users(a, pick(max_users));
        const std::uint32_t subs = pick(4);
        for (std::uint32_t j = 0; j < subs; ++j) {
            std::string sub = name + "s" + std::to_string(j);
            const auto s = b.add_account(a, std::move(sub), j == 2 ? use_parent : shares());
            users(s, j == 1 ? 1 : pick(max_users));
        }
    }
    return b.build();
}

} // namespace

TEST_CASE("fairshare: nearest_double_clear tells a long double 9 ulp from every midpoint") {
    using mfprio::fairshare::detail::nearest_double_clear;
    using mfprio::fairshare::detail::quotient_shortcuts;
    // Its double is always the long double rounded.
    const long double third = 1.0L / 3.0L;
    double d = 0.0;
    (void)nearest_double_clear(third, d);
    CHECK(same_bits(d, static_cast<double>(third)));
    if constexpr (!quotient_shortcuts) {
        CHECK_FALSE(nearest_double_clear(third, d));
        return;
    }
    // With s the 53 leading bits of the significand, the low 11 bits L place v between the
    // double s and the next one; the midpoint is at L = 0x400. Clear: |L - 0x400| >= 9.
    const std::uint64_t base = 0xb504f333f9de6000u; // sqrt(2)/2's leading bits, L = 0
    for (const int e : {0, 1, -1, 7, -500, 800}) {
        CAPTURE(e);
        for (std::uint64_t L = 0x3f0; L <= 0x410; ++L) {
            CAPTURE(L);
            const long double v = from_bits(base | L, e);
            CHECK(nearest_double_clear(v, d) == (L <= 0x3f7 || L >= 0x409));
            CHECK(same_bits(d, static_cast<double>(v)));
            const long double w = -v;
            CHECK(nearest_double_clear(w, d) == (L <= 0x3f7 || L >= 0x409));
        }
        // Far from the midpoint, right next to the double below or above: clear.
        CHECK(nearest_double_clear(from_bits(base | 0x001, e), d));
        CHECK(nearest_double_clear(from_bits(base | 0x7ff, e), d));
        CHECK(nearest_double_clear(from_bits(base, e), d));
    }
    // Rounding to a power of 2 (from either side), or outside 2^-900 .. 2^901: refused.
    CHECK_FALSE(nearest_double_clear(from_bits(0x8000000000000001u, 0), d));
    CHECK_FALSE(nearest_double_clear(from_bits(0xffffffffffffff01u, 0), d));
    CHECK_FALSE(nearest_double_clear(1.0L, d));
    CHECK(nearest_double_clear(from_bits(base | 0x100, -900), d));
    CHECK_FALSE(nearest_double_clear(from_bits(base | 0x100, -901), d));
    CHECK(nearest_double_clear(from_bits(base | 0x100, 900), d));
    CHECK_FALSE(nearest_double_clear(from_bits(base | 0x100, 901), d));
    CHECK_FALSE(nearest_double_clear(0.0L, d));
    CHECK_FALSE(nearest_double_clear(std::numeric_limits<long double>::infinity(), d));
    CHECK_FALSE(nearest_double_clear(std::numeric_limits<long double>::quiet_NaN(), d));
    // Random significands: when clear, every long double within 8 ulp rounds to the same double.
    std::mt19937_64 g(77);
    std::size_t clear = 0;
    constexpr std::size_t trials = 20000;
    for (std::size_t i = 0; i < trials; ++i) {
        const std::uint64_t significand = g() | 0x8000000000000000u;
        const long double v = from_bits(significand, static_cast<int>(g() % 1700) - 850);
        if (!nearest_double_clear(v, d)) continue;
        ++clear;
        long double up = v, down = v;
        for (int k = 0; k < 8; ++k) {
            up = std::nextafter(up, std::numeric_limits<long double>::infinity());
            down = std::nextafter(down, -std::numeric_limits<long double>::infinity());
        }
        REQUIRE(same_bits(static_cast<double>(up), d));
        REQUIRE(same_bits(static_cast<double>(down), d));
    }
    CHECK(clear > trials * 98 / 100); // 17 of 2048 refused
}

TEST_CASE("fairshare: depth-oblivious quotient shortcuts give Slurm's doubles") {
    // The two replaced divisions (`depth_oblivious_children`), over random operands and
    // operands that put Slurm's result near a midpoint between two doubles: where the shortcut
    // is clear it gives exactly what the divisions give.
    using mfprio::fairshare::detail::nearest_double_clear;
    std::mt19937_64 g(4242);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::size_t taken = 0, refused = 0;
    for (std::size_t i = 0; i < 200000; ++i) {
        // (One draw a statement: the order of a call's arguments is unspecified.)
        const std::uint64_t un_bits = g() | 0x8000000000000000u;
        const long double un = from_bits(un_bits, -1 - static_cast<int>(g() % 30));
        const double s_unit = unit(g);
        const double s = s_unit * std::ldexp(1.0, -static_cast<int>(g() % 20)) + 1e-300;
        const std::uint64_t r_s_bits = g() | 0x8000000000000000u;
        const long double r_s = from_bits(r_s_bits, static_cast<int>(g() % 40) - 20);
        const long double r_l = (un / static_cast<long double>(s)) / r_s; // Slurm's
        double x = 0.0;
        if (nearest_double_clear(un / (static_cast<long double>(s) * r_s), x)) {
            ++taken;
            REQUIRE(same_bits(x, static_cast<double>(r_l)));
        } else {
            ++refused;
        }
        // The factor's exponent: -(double)((t S) / S) against -(double)t.
        const std::uint64_t t_bits = g() | 0x8000000000000000u;
        const long double tt = from_bits(t_bits, static_cast<int>(g() % 40) - 20);
        const long double ue = tt * static_cast<long double>(s);
        if (nearest_double_clear(tt, x)) {
            ++taken;
            REQUIRE(same_bits(-x, static_cast<double>(-(ue / static_cast<long double>(s)))));
        } else {
            ++refused;
        }
    }
    if constexpr (mfprio::fairshare::detail::quotient_shortcuts) CHECK(refused < (taken + refused) / 50);
    else CHECK(taken == 0);
}

TEST_CASE("fairshare: depth-oblivious k is Slurm's long double k, rounded once to double") {
    // Slurm on Linux: k = 1 / (1 + powl(5 * logl(ratio_p), 2)), long double throughout (powl
    // of 2 compiled as a multiplication), then rounded to double for pow(ratio_l, k). The
    // same k computed in double (log, then three double operations) differs in its last bits
    // for some r_p: count how often over r_p's on both sides of 1, and check every k.
    std::mt19937_64 g(99);
    std::uniform_real_distribution<double> spread(-6.0, 6.0);
    std::size_t differ = 0;
    constexpr std::size_t trials = 20000;
    for (std::size_t i = 0; i < trials; ++i) {
        const long double r_p = std::exp2(static_cast<long double>(spread(g)));
        const detail::depth_oblivious_parent parent(r_p, 1.0, 1.0L);
        const long double y = 5.0L * std::log(r_p);
        const double want = static_cast<double>(1.0L / (1.0L + y * y));
        REQUIRE(same_bits(parent.k_cross, want));
        const double yd = 5.0 * std::log(static_cast<double>(r_p));
        if (!same_bits(want, 1.0 / (1.0 + yd * yd))) ++differ;
    }
    // The double way is wrong often enough that a test on a few thousand parents sees it.
    CHECK(differ > trials / 100);
}

TEST_CASE("fairshare: depth-oblivious pass equals Slurm's formula, literally evaluated, bit for bit") {
    for (const std::uint32_t seed : {1u, 2u, 3u}) {
        const tree t = random_tree(seed, 80, 400);
        CAPTURE(seed);
        // On 2 and 3 threads the pass is cut in as many parts (at least 8,192 associations a
        // part), and every cut of the children lists falls inside a list, between two users:
        // the users of that list are set partly by one thread, partly by the next.
        const std::size_t listed = t.child_begin[t.size()];
        for (const unsigned threads : {2u, 3u}) {
            CAPTURE(threads);
            REQUIRE(mfprio::detail::parts_for(t.size(), threads, 8192) == threads);
            for (unsigned part = 1; part < threads; ++part)
                CHECK(fairshare_test::inside_a_list(t, mfprio::detail::part_begin(listed, threads, part)));
        }
        for (const std::uint16_t damping : {std::uint16_t{1}, std::uint16_t{3}}) {
            CAPTURE(damping);
            std::size_t powers = 0;
            const columns want = slurm_depth_oblivious(t, damping, powers);
            CHECK(powers > 1000);
            for (const unsigned threads : {1u, 2u, 3u}) {
                CAPTURE(threads);
                columns c;
                depth_oblivious(t, c, damping, threads);
                std::size_t wrong = 0;
                for (std::uint32_t a = 0; a < t.size(); ++a) {
                    const bool ok = same_bits(c.shares_norm[a], want.shares_norm[a]) &&
                                    same_bits(c.usage_efctv[a], want.usage_efctv[a]) &&
                                    same_bits(c.fs_factor[a], want.fs_factor[a]);
                    if (!ok && wrong++ < 5) {
                        CAPTURE(a);
                        CHECK(c.shares_norm[a] == want.shares_norm[a]);
                        CHECK(static_cast<double>(c.usage_efctv[a]) == static_cast<double>(want.usage_efctv[a]));
                        CHECK(c.fs_factor[a] == want.fs_factor[a]);
                        CHECK(ok);
                    }
                }
                CHECK(wrong == 0);
            }
        }
    }
}
