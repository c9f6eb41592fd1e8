#pragma once
/// \file
/// Umbrella header for the readers of scheduler input files (`mfprio::config`) and the model
/// builders over them: slurm.conf, hostlists, pipe tables, the QOS, association and jobs
/// tables, Slurm's own command outputs (scontrol, sacctmgr, sshare, squeue) and stored state,
/// Maui's maui.cfg, jobs and fair-share window files, its checkjob, showq and showstats
/// outputs and simulator traces, flux-accounting's tables, and the
/// Slurm, Maui and Flux models and fair-share trees built from them.

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
#include <mfprio/config/slurm_model.hpp>
#include <mfprio/config/slurm_native.hpp>
#include <mfprio/config/slurm_stored.hpp>
#include <mfprio/config/table.hpp>
