// Tests for mfprio/slurm/site.hpp (reference slurm.md 1.1 Site): the job's site factor,
// stored offset by NICE_OFFSET in Slurm and added unweighted as +(site - 2^31), i.e. + the
// site factor itself; range [-2147483645, 2147483645] (test24.5).
#include <mfprio/slurm/site.hpp>

#include <cstdint>

#include <doctest/doctest.h>

namespace {
using mfprio::slurm::context;
using mfprio::slurm::site_factor;

double site(std::int32_t s) {
    mfprio::job j{};
    j.site_factor = s;
    return site_factor{}(j, context{});
}
} // namespace

TEST_CASE("slurm: the site factor is added as is") {
    CHECK(site_factor::name == "site");
    CHECK(site(0) == 0.0);
    CHECK(site(7) == 7.0);
    CHECK(site(-7) == -7.0);
}

TEST_CASE("slurm: the site factor's extreme values are exact") {
    // (int64)(2^31 + 2147483645) - 2^31 = 2147483645, exact as a double
    CHECK(site(2147483645) == 2147483645.0);
    CHECK(site(-2147483645) == -2147483645.0);
}
