#pragma once
/// \file
/// Compatibility: this header's content is in `mfprio/read/maui_fs.hpp`.
#include <mfprio/read/maui_fs.hpp>
