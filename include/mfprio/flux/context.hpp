#pragma once
/// \file
/// The evaluation context of Flux's factors: Slurm's context (so that Slurm's factors work
/// in the same engine; its `fairshare` column holds flux-accounting's per-association
/// fair-share) plus the queue and bank priority tables of flux-accounting.

#include <cstdint>
#include <span>

#include <mfprio/slurm/context.hpp>

namespace mfprio::flux {

/// What Flux's factors need beyond the job. Derives from `slurm::context`.
struct context : slurm::context {
    std::span<const std::int64_t> queue_priority{}; ///< by queue index (flux-accounting queue_table.priority, an int)
    std::span<const double> bank_priority{};        ///< by bank index (flux-accounting bank_table.priority, a double)
};

} // namespace mfprio::flux
