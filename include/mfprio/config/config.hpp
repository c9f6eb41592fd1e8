#pragma once
/// \file
/// Compatibility umbrella: each `mfprio/config/X.hpp` forwards to the header of that name in
/// `mfprio/text/` ('|' tables, hostlists), `mfprio/read/` (the readers), `mfprio/model/` (the
/// model builders) or `mfprio/replay/` (the replays of a scheduler's caches). Their names are
/// in `mfprio::config`, as they are when included from their own folders.
#include <mfprio/config/assoc_table.hpp>
#include <mfprio/config/common.hpp>
#include <mfprio/config/fairshare_tree.hpp>
#include <mfprio/config/flux_model.hpp>
#include <mfprio/config/flux_plugin.hpp>
#include <mfprio/config/flux_tables.hpp>
#include <mfprio/config/hostlist.hpp>
#include <mfprio/config/jobs_table.hpp>
#include <mfprio/config/maui_cfg.hpp>
#include <mfprio/config/maui_fs.hpp>
#include <mfprio/config/maui_jobs.hpp>
#include <mfprio/config/maui_model.hpp>
#include <mfprio/config/maui_outputs.hpp>
#include <mfprio/config/qos_table.hpp>
#include <mfprio/config/site_snapshot.hpp>
#include <mfprio/config/slurm_cluster.hpp>
#include <mfprio/config/slurm_conf.hpp>
#include <mfprio/config/slurm_fairshare.hpp>
#include <mfprio/config/slurm_keys.hpp>
#include <mfprio/config/slurm_model.hpp>
#include <mfprio/config/slurm_native.hpp>
#include <mfprio/config/slurm_stored.hpp>
#include <mfprio/config/sprio_listing.hpp>
#include <mfprio/config/table.hpp>
