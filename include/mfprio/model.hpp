#pragma once
/// \file
/// The model builders (`mfprio::config`): a Slurm, Maui or Flux cluster's engine context,
/// jobs and fair-share trees, from what the readers read; the model of mfprio's Flux jobtap
/// plugin (`flux_jobtap.hpp`).
#include <mfprio/model/fairshare_tree.hpp>
#include <mfprio/model/flux_jobtap.hpp>
#include <mfprio/model/flux_model.hpp>
#include <mfprio/model/maui_model.hpp>
#include <mfprio/model/slurm_cluster.hpp>
#include <mfprio/model/slurm_fairshare.hpp>
#include <mfprio/model/slurm_model.hpp>
