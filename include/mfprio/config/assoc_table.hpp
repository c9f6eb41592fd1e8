#pragma once
/// \file
/// Compatibility: this header's content is in `mfprio/read/assoc_table.hpp`.
#include <mfprio/read/assoc_table.hpp>
