#pragma once
/// \file
/// Compatibility: this header's content is in `mfprio/replay/slurm_stored.hpp`.
#include <mfprio/replay/slurm_stored.hpp>
