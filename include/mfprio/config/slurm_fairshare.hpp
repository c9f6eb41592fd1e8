#pragma once
/// \file
/// Compatibility: this header's content is in `mfprio/model/slurm_fairshare.hpp`.
#include <mfprio/model/slurm_fairshare.hpp>
