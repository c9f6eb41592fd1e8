#pragma once
/// \file
/// Compatibility: this header's content is in `mfprio/replay/flux_plugin.hpp`.
#include <mfprio/replay/flux_plugin.hpp>
