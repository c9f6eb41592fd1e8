#pragma once
/// \file
/// The mfprio half of slurm_side_by_side: the calls timed against Slurm's, compiled once at -O2
/// (namespace o2: the level Slurm and the distributions build with) and once at -O3 (o3),
/// from the same source (mfprio_side.cpp).

#include <span>

#include <mfprio/core/result.hpp>
#include <mfprio/fairshare/columns.hpp>
#include <mfprio/fairshare/fair_tree.hpp>
#include <mfprio/fairshare/tree.hpp>

#include "../slurm_workload.hpp"

namespace sbs {

#define MFPRIO_SBS_DECLARE(level)                                                                                   \
    namespace level {                                                                                             \
    /** The engine's one-job call, `priority`, job by job over the workload. */                                  \
    void one_job(const mfprio_bench::slurm_workload& w, std::span<mfprio::priority_value> out);                  \
    /** The engine's batch over the workload. */                                                                   \
    void batch(const mfprio_bench::slurm_workload& w, std::span<mfprio::priority_value> out);                    \
    /** Slurm's Fair Tree (ties as its code breaks them) on `threads` threads, workspace reused. */             \
    void fair_tree(const mfprio::fairshare::tree& t, mfprio::fairshare::columns& c,                               \
                   mfprio::fairshare::fair_tree_workspace& ws, unsigned threads);                                 \
    /** The classic algorithm (PriorityFlags=NO_FAIR_TREE) on `threads` threads, columns reused. */               \
    void classic(const mfprio::fairshare::tree& t, mfprio::fairshare::columns& c, unsigned threads);             \
    }

MFPRIO_SBS_DECLARE(o2)
MFPRIO_SBS_DECLARE(o3)

#undef MFPRIO_SBS_DECLARE

} // namespace sbs
