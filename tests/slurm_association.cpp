// Tests for mfprio/slurm/association.hpp (reference slurm.md 1.1 Association factor):
//   assoc = NO_NORMAL_ASSOC ? assoc.priority : assoc.priority / g_assoc_max_priority
// with g_assoc_max_priority the max over all associations, 0 when that max is 0.
#include <mfprio/slurm/association.hpp>

#include <array>
#include <cstdint>

#include <doctest/doctest.h>

namespace {
using mfprio::slurm::association_factor;
using mfprio::slurm::context;
using mfprio::slurm::normalize_priority;

// Association priorities {0, 5, 10, 20}: the max over all associations is 20.
constexpr std::array<std::uint32_t, 4> prio{0, 5, 10, 20};
// normalized by hand: 0/20, 5/20, 10/20, 20/20
constexpr std::array<double, 4> norm{0.0, 0.25, 0.5, 1.0};

context make_context() {
    context c{};
    c.assoc_priority = prio;
    c.assoc_priority_norm = norm;
    return c;
}
double assoc(std::uint32_t a, bool normalize) {
    mfprio::job j{};
    j.association = a;
    return association_factor{normalize}(j, make_context());
}
} // namespace

TEST_CASE("slurm: normalize_priority divides by the maximum, 0 when the maximum is 0") {
    CHECK(normalize_priority(10, 20) == 0.5);
    CHECK(normalize_priority(20, 20) == 1.0);
    CHECK(normalize_priority(3, 4) == 0.75);
    CHECK(normalize_priority(1, 3) == 1.0 / 3.0); // (double)value / (double)max
    CHECK(normalize_priority(0, 0) == 0.0);
    CHECK(normalize_priority(7, 0) == 0.0);
    for (std::size_t a = 0; a < prio.size(); ++a) CHECK(normalize_priority(prio[a], 20) == norm[a]);
}

TEST_CASE("slurm: the association factor is the priority normalized by the maximum") {
    CHECK(association_factor{}.normalize); // normalized by default
    CHECK(association_factor::name == "assoc");
    CHECK(assoc(0, true) == 0.0);
    CHECK(assoc(1, true) == 0.25);
    CHECK(assoc(2, true) == 0.5);
    CHECK(assoc(3, true) == 1.0); // the top association normalizes to 1 (test24.7 "high water mark")
}

TEST_CASE("slurm: NO_NORMAL_ASSOC gives the raw association priority") {
    CHECK(assoc(0, false) == 0.0);
    CHECK(assoc(1, false) == 5.0);
    CHECK(assoc(2, false) == 10.0);
    CHECK(assoc(3, false) == 20.0);
}

TEST_CASE("slurm: an unknown association gives 0") {
    CHECK(assoc(4, true) == 0.0);
    CHECK(assoc(4, false) == 0.0);
    CHECK(assoc(0xffffffffu, true) == 0.0);
    CHECK(assoc(0xffffffffu, false) == 0.0);
    // An empty context (no association tables) gives 0 too.
    mfprio::job j{};
    CHECK(association_factor{}(j, context{}) == 0.0);
    CHECK(association_factor{false}(j, context{}) == 0.0);
}
