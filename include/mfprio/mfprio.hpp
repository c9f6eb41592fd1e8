#pragma once
/// \file
/// mfprio: multifactor job priority, header-only. This umbrella includes every layer but the
/// opt-in mfprio/inputs.hpp (which needs simdjson); include
/// the narrower headers (`mfprio/core.hpp`, `mfprio/slurm.hpp`, `mfprio/read/...`) to
/// compile less.

#include <mfprio/version.hpp>
#include <mfprio/core.hpp>
#include <mfprio/fairshare.hpp>
#include <mfprio/slurm.hpp>
#include <mfprio/maui.hpp>
#include <mfprio/flux.hpp>
#include <mfprio/queue.hpp>
#include <mfprio/text.hpp>
#include <mfprio/read.hpp>
#include <mfprio/model.hpp>
#include <mfprio/replay.hpp>
#include <mfprio/config/config.hpp>
#include <mfprio/report/lint.hpp>
#include <mfprio/report/sprio.hpp>
#include <mfprio/report/sprio_twin.hpp>
#include <mfprio/report/sprio_verify.hpp>
#include <mfprio/report/sshare.hpp>
#include <mfprio/report/whatif.hpp>
#include <mfprio/report/diagnose.hpp>
#include <mfprio/report/flux.hpp>
