#pragma once
/// \file
/// Slurm's age factor (`PriorityMaxAge`, `PriorityWeightAge`).

#include <cstdint>
#include <string_view>

#include <mfprio/core/job.hpp>
#include <mfprio/slurm/context.hpp>

namespace mfprio::slurm {

/// Time since the job started accruing age, over PriorityMaxAge, capped at 1. The accrue
/// start is carried by the job (`accrue_time`; 0 = not accruing, which gives 0). An accrue
/// start in the future gives 0; PriorityMaxAge=0 gives 1 for every accruing job. The
/// difference is taken as a uint32 of seconds, as Slurm does.
struct age_factor {
    static constexpr std::string_view name = "age";
    std::uint32_t max_age = 604800; ///< PriorityMaxAge in seconds (default 7-0)

    template <class J>
        requires has_accrue_time<J>
    [[nodiscard]] constexpr double operator()(const J& j, const context& c) const noexcept {
        const std::int64_t accrue = static_cast<std::int64_t>(job_traits<J>::accrue_time(j));
        if (accrue == 0) return 0.0;
        const std::uint32_t diff = c.now > accrue ? static_cast<std::uint32_t>(c.now - accrue) : 0u;
        return diff < max_age ? static_cast<double>(diff) / static_cast<double>(max_age) : 1.0;
    }
};

} // namespace mfprio::slurm
