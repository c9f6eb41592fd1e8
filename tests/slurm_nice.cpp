// Tests for mfprio/slurm/nice.hpp (reference slurm.md 1.1 Nice): nice is stored offset by
// NICE_OFFSET = 2^31 in Slurm and contributes -(nice - 2^31), i.e. minus the nice value;
// |nice| <= 2^31 - 3 = 2147483645.
#include <mfprio/slurm/nice.hpp>

#include <cmath>
#include <cstdint>

#include <doctest/doctest.h>

namespace {
using mfprio::slurm::context;
using mfprio::slurm::nice_factor;

double nice(std::int32_t n) {
    mfprio::job j{};
    j.nice = n;
    return nice_factor{}(j, context{});
}
} // namespace

TEST_CASE("slurm: nice is subtracted") {
    CHECK(nice_factor::name == "nice");
    CHECK(nice(100) == -100.0);  // a positive nice lowers the priority
    CHECK(nice(-100) == 100.0);  // a negative one (operators only) raises it
    CHECK(nice(0) == 0.0);
    CHECK_FALSE(std::signbit(nice(0))); // +0.0, as Slurm's -(int64)(0) converted to double
}

TEST_CASE("slurm: nice's extreme values are exact") {
    // |nice| <= 2147483645 (slurm_opt.c): -(2147483645) and +(2147483645), exact as doubles
    CHECK(nice(2147483645) == -2147483645.0);
    CHECK(nice(-2147483645) == 2147483645.0);
}
