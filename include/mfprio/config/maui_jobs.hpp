#pragma once
/// \file
/// Compatibility: this header's content is in `mfprio/read/maui_jobs.hpp`.
#include <mfprio/read/maui_jobs.hpp>
