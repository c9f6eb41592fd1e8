#pragma once
/// \file
/// Compatibility: this header's content is in `mfprio/text/table.hpp` (namespace `mfprio::text`,
/// whose names `mfprio/read/common.hpp` brings into `mfprio::config`).
#include <mfprio/read/common.hpp>
#include <mfprio/text/table.hpp>
