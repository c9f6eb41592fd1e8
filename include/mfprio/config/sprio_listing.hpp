#pragma once
/// \file
/// Compatibility: this header's content is in `mfprio/read/sprio_listing.hpp`.
#include <mfprio/read/sprio_listing.hpp>
