#pragma once
/// \file
/// Slurm's nice adjustment (`sbatch --nice`).

#include <cstdint>
#include <string_view>

#include <mfprio/core/job.hpp>
#include <mfprio/slurm/context.hpp>

namespace mfprio::slurm {

/// Minus the job's nice value, added unweighted (use it with a weight of 1): a positive
/// nice lowers the priority, a negative one (operators only) raises it.
struct nice_factor {
    static constexpr std::string_view name = "nice";

    template <class J>
        requires has_nice<J>
    [[nodiscard]] constexpr double operator()(const J& j, const context&) const noexcept {
        // Negated as an integer so that a nice of 0 gives +0.0 (not -0.0); for any other value
        // this equals -(double)nice, and adding it equals Slurm's subtraction exactly.
        return static_cast<double>(-static_cast<std::int64_t>(job_traits<J>::nice(j)));
    }
};

} // namespace mfprio::slurm
