#pragma once
/// \file
/// Umbrella header for the readers of scheduler input files (`mfprio::config`): text
/// helpers, Slurm time strings, hostlists, slurm.conf, pipe tables, the QOS, association
/// and jobs tables, and Maui's maui.cfg and fair-share window files.

#include <mfprio/config/text.hpp>
#include <mfprio/config/slurm_time.hpp>
#include <mfprio/config/hostlist.hpp>
#include <mfprio/config/table.hpp>
#include <mfprio/config/slurm_conf.hpp>
#include <mfprio/config/qos_table.hpp>
#include <mfprio/config/assoc_table.hpp>
#include <mfprio/config/jobs_table.hpp>
#include <mfprio/config/maui_cfg.hpp>
#include <mfprio/config/maui_fs.hpp>
