#pragma once
/// \file
/// Compatibility: this header's content is in `mfprio/read/flux_tables.hpp`.
#include <mfprio/read/flux_tables.hpp>
