#pragma once
/// \file
/// The readers (`mfprio::config`): slurm.conf and its keys, what scontrol, squeue, sacctmgr,
/// sshare and sprio print, the QOS, association and jobs tables, maui.cfg, Maui's fair-share
/// files and outputs, flux-accounting's tables. Each returns what it read or an `input_error`
/// with file, line and column.
#include <mfprio/read/assoc_mgr.hpp>
#include <mfprio/read/assoc_table.hpp>
#include <mfprio/read/common.hpp>
#include <mfprio/read/flux_tables.hpp>
#include <mfprio/read/jobs_table.hpp>
#include <mfprio/read/maui_cfg.hpp>
#include <mfprio/read/maui_fs.hpp>
#include <mfprio/read/maui_jobs.hpp>
#include <mfprio/read/maui_outputs.hpp>
#include <mfprio/read/qos_table.hpp>
#include <mfprio/read/sacctmgr.hpp>
#include <mfprio/read/scontrol.hpp>
#include <mfprio/read/slurm_conf.hpp>
#include <mfprio/read/slurm_keys.hpp>
#include <mfprio/read/slurm_native.hpp>
#include <mfprio/read/sprio_listing.hpp>
#include <mfprio/read/squeue.hpp>
