// Tests for mfprio/fairshare/depth_oblivious.hpp (reference slurm.md 3.2.2): steady-state
// DEPTH_OBLIVIOUS effective usage UE = r_p * r_l^k * S with the sibling sum over the fs
// parent's non-FairShare=parent children, both k branches, then the classic factor.
#include <doctest/doctest.h>

#include <mfprio/fairshare/depth_oblivious.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>

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
