// Every header in two translation units (this one and odr_b.cpp) of the same program: a
// non-inline definition in a header would fail to link (EnTT's habit).
#include <mfprio/mfprio.hpp>

int mfprio_odr_a() { return MFPRIO_VERSION; }
