#pragma once
/// \file
/// Compatibility: this header's content is in `mfprio/read/common.hpp`.
#include <mfprio/read/common.hpp>
