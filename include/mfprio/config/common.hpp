#pragma once
/// \file
/// What every reader in `mfprio::config` builds on: the text layer (lines, trimming, numbers,
/// the file loader, `input_error`) and Slurm's time strings. Its names are brought into
/// `mfprio::config`, so a reader writes `trim(s)` and a user may write `config::trim(s)`.

#include <mfprio/text/slurm_time.hpp>
#include <mfprio/text/text.hpp>

namespace mfprio::config {
using namespace mfprio::text;
} // namespace mfprio::config
