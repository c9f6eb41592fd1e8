#pragma once
/// \file
/// Compatibility: this header's content is in `mfprio/read/maui_cfg.hpp`.
#include <mfprio/read/maui_cfg.hpp>
