#pragma once
/// \file
/// Compatibility: this header's content is in `mfprio/model/maui_model.hpp`.
#include <mfprio/model/maui_model.hpp>
