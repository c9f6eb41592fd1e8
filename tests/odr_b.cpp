// See odr_a.cpp.
#include <doctest/doctest.h>

#include <mfprio/mfprio.hpp>

int mfprio_odr_a();

TEST_CASE("core: every header links from two translation units") {
    CHECK(mfprio_odr_a() == MFPRIO_VERSION);
    CHECK(MFPRIO_VERSION == MFPRIO_VERSION_MAJOR * 10000 + MFPRIO_VERSION_MINOR * 100 + MFPRIO_VERSION_PATCH);
}
