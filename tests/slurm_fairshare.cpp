// Tests for mfprio/slurm/fairshare.hpp (reference slurm.md 1.1 Fairshare): fs = the
// association's fs_factor from the last fair-share pass; 0 without an association.
#include <mfprio/slurm/fairshare.hpp>

#include <array>
#include <cstdint>

#include <doctest/doctest.h>

namespace {
using mfprio::slurm::context;
using mfprio::slurm::fairshare_factor;

// Seed 000's worked example, users 1-5 as associations 1-5 (0 is the root). Factors exact in
// binary are stored exactly: user 3: 2^(-.15/.05) = 2^-3 = 0.125; user 4: 2^(-.25/.25) = 0.5.
// Users 1, 2 and 5 are the page's rounded figures (their exact values are the fair-share
// algorithm's business, not this lookup's).
constexpr std::array<double, 6> fs{1.0, 0.408479, 0.022097, 0.125, 0.5, 0.749154};

double fairshare(std::uint32_t a) {
    mfprio::job j{};
    j.association = a;
    context c{};
    c.fairshare = fs;
    return fairshare_factor{}(j, c);
}
} // namespace

TEST_CASE("slurm: the fair-share factor is the association's fs_factor") {
    CHECK(fairshare_factor::name == "fairshare");
    CHECK(fairshare(3) == 0.125);
    CHECK(fairshare(4) == 0.5);
    CHECK(fairshare(1) == 0.408479);
    CHECK(fairshare(5) == 0.749154);
    CHECK(fairshare(0) == 1.0);
}

TEST_CASE("slurm: an unknown association has a fair-share factor of 0") {
    CHECK(fairshare(6) == 0.0);
    CHECK(fairshare(0xffffffffu) == 0.0);
    CHECK(fairshare_factor{}(mfprio::job{}, context{}) == 0.0);
}
