#pragma once
/// \file
/// The replays of a scheduler's caches (`mfprio::config`): flux-accounting's plugin over an
/// instance's history (and its what-if), slurmctld's stored priorities placed in time, the
/// site_factor plugin's usage snapshots.
#include <mfprio/replay/flux_plugin.hpp>
#include <mfprio/replay/site_snapshot.hpp>
#include <mfprio/replay/slurm_stored.hpp>
