#pragma once
/// \file
/// Compatibility: this header's content is in `mfprio/read/jobs_table.hpp`.
#include <mfprio/read/jobs_table.hpp>
