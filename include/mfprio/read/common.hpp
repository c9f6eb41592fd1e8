#pragma once
/// \file
/// What every reader in `mfprio::config` builds on: the text layer (lines, trimming, numbers,
/// the file loader, `input_error`, '|' tables, hostlists) and Slurm's time strings. Its names
/// are brought into `mfprio::config`, so a reader writes `trim(s)` and a user may write
/// `config::trim(s)` or `config::parse_table(...)`.
///
/// The readers (`mfprio/read/`), the model builders (`mfprio/model/`) and the replays of a
/// scheduler's caches (`mfprio/replay/`) share the namespace `mfprio::config`; the folders
/// tell their roles apart.

#include <string>

#include <mfprio/text/hostlist.hpp>
#include <mfprio/text/slurm_time.hpp>
#include <mfprio/text/table.hpp>
#include <mfprio/text/text.hpp>

namespace mfprio::config {
using namespace mfprio::text;

/// One configuration input: its text and name (for errors and Include paths).
struct conf_input {
    std::string text;
    std::string name;
};
} // namespace mfprio::config
