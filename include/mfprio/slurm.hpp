#pragma once
/// \file
/// Everything Slurm: factors, context, the multifactor engine, priority arrays, ordering.
#include <mfprio/slurm/age.hpp>
#include <mfprio/slurm/association.hpp>
#include <mfprio/slurm/cluster.hpp>
#include <mfprio/slurm/context.hpp>
#include <mfprio/slurm/fairshare.hpp>
#include <mfprio/slurm/flags.hpp>
#include <mfprio/slurm/job_size.hpp>
#include <mfprio/slurm/lookup_table.hpp>
#include <mfprio/slurm/multifactor.hpp>
#include <mfprio/slurm/nice.hpp>
#include <mfprio/slurm/order.hpp>
#include <mfprio/slurm/partition.hpp>
#include <mfprio/slurm/qos.hpp>
#include <mfprio/slurm/site.hpp>
#include <mfprio/slurm/tres.hpp>
