#pragma once
/// \file
/// `flux::job`: a Slurm-style job record (`mfprio::job`) plus what Flux prioritizes on: the
/// urgency the user set (RFC 30: 0..31, default 16), the job's queue and its bank, and its
/// place in submission order (for FCFS). Because it derives from `mfprio::job`, every Slurm
/// factor reads it too, so one engine can mix Slurm's and Flux's factors.

#include <cstdint>

#include <mfprio/core/job.hpp>

namespace mfprio::flux {

/// Flux urgencies (RFC 30).
inline constexpr std::uint8_t urgency_hold = 0;      ///< FLUX_JOB_URGENCY_HOLD (= MIN)
inline constexpr std::uint8_t urgency_default = 16;  ///< FLUX_JOB_URGENCY_DEFAULT
inline constexpr std::uint8_t urgency_expedite = 31; ///< FLUX_JOB_URGENCY_EXPEDITE (= MAX)
/// Flux priorities are uint32: FLUX_JOB_PRIORITY_MIN 0 .. FLUX_JOB_PRIORITY_MAX 4294967295.
inline constexpr std::uint32_t priority_max = 0xffffffffu;

/// Sentinel queue or bank index: the job names none.
inline constexpr std::uint32_t no_index = 0xffffffffu;

/// A job as Flux's priority plugins see it.
struct job : mfprio::job {
    std::uint32_t queue = no_index;       ///< index into the context's queue table (no_index: none given)
    std::uint32_t bank = no_index;        ///< index into the context's bank table (no_index: none or unknown)
    std::uint64_t submit_seq = 0;         ///< 0-based position in submission order (FCFS)
    std::uint8_t urgency = urgency_default; ///< 0..31
};

} // namespace mfprio::flux
