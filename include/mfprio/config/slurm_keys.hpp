#pragma once
/// \file
/// Compatibility: this header's content is in `mfprio/read/slurm_keys.hpp`.
#include <mfprio/read/slurm_keys.hpp>
