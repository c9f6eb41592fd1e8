#pragma once
/// \file
/// Compatibility: this header's content is in `mfprio/read/maui_outputs.hpp`.
#include <mfprio/read/maui_outputs.hpp>
