#pragma once
/// \file
/// Compatibility: this header's content is in `mfprio/model/flux_model.hpp`.
#include <mfprio/model/flux_model.hpp>
