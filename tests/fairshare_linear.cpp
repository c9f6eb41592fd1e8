// Tests for mfprio/fairshare/linear.hpp: seed 004's linear curve, F = max(0, 1 - UE/(2S)):
// "equal to the share ... 0.5, ... exceeds double the share ... zero".
#include <doctest/doctest.h>

#include <mfprio/fairshare/linear.hpp>

#include <cstdint>

using namespace mfprio::fairshare;

TEST_CASE("fairshare: linear factor at the seed's points") {
    CHECK(linear_factor(0.0L, 0.3) == 1.0);    // no usage
    CHECK(linear_factor(0.3L, 0.3) == 0.5);    // usage = share: 1 - 0.3/0.6
    CHECK(linear_factor(0.15L, 0.3) == doctest::Approx(0.75)); // halfway: 1 - 0.15/0.6
    CHECK(linear_factor(0.6L, 0.3) == 0.0);    // double the share: 1 - 0.6/0.6
    CHECK(linear_factor(0.9L, 0.3) == 0.0);    // beyond: clamped, not negative
    CHECK(linear_factor(0.0L, 0.0) == 0.0);    // no share: 0, as classic
}

TEST_CASE("fairshare: linear over a tree uses classic UE and S") {
    // root: A (1): u (1): 25, v (parent): 0; B (3): x (1): 75. Root usage 100.
    // A: UE = UN = 0.25, S = 1/4; u: level 1 (v is `parent`): S = 1/4,
    // UE = 0.25 + (0.25 - 0.25) * 1/1 = 0.25 -> at its share: F = 1 - 0.25/0.5 = 0.5.
    // v: A's UE and S -> 0.5. B: UE 0.75, S 3/4 -> 0.5; x: 0.5.
    tree_builder b;
    const auto A = b.add_account(0, "A", 1);
    const auto B = b.add_account(0, "B", 3);
    const auto u = b.add_user(A, "u", 1, 25);
    const auto v = b.add_user(A, "v", use_parent, 0);
    const auto x = b.add_user(B, "x", 1, 75);
    const tree t = b.build();
    columns c;
    linear(t, c);
    CHECK_FALSE(c.has_level_fs);
    CHECK(c.fs_factor[b.position(u)] == doctest::Approx(0.5));
    CHECK(c.fs_factor[b.position(v)] == doctest::Approx(0.5));
    CHECK(c.fs_factor[b.position(x)] == doctest::Approx(0.5));
    CHECK(c.usage_efctv[b.position(u)] == c.usage_efctv[b.position(A)]);

    // Move usage: u 50, x 50. A: UE 0.5, S 0.25 -> u at twice its share: 1 - 0.5/0.5 = 0;
    // x: UE = UN(B) = 0.5, S 0.75: 1 - 0.5/1.5 = 0.666667.
    tree t2 = t;
    t2.usage_raw[b.position(u)] = 50;
    t2.usage_raw[b.position(x)] = 50;
    t2.aggregate_usage();
    linear(t2, c);
    CHECK(c.fs_factor[b.position(u)] == 0.0);
    CHECK(c.fs_factor[b.position(x)] == doctest::Approx(2.0 / 3.0));
    CHECK(c.fs_factor[b.position(B)] == doctest::Approx(2.0 / 3.0));
}
