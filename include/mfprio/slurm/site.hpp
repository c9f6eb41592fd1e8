#pragma once
/// \file
/// Slurm's site factor (`scontrol update sitefactor=`, `PrioritySiteFactorPlugin`).

#include <string_view>

#include <mfprio/core/job.hpp>
#include <mfprio/slurm/context.hpp>

namespace mfprio::slurm {

/// The job's site factor, added unweighted (use it with a weight of 1).
struct site_factor {
    static constexpr std::string_view name = "site";

    template <class J>
        requires has_site_factor<J>
    [[nodiscard]] constexpr double operator()(const J& j, const context&) const noexcept {
        return static_cast<double>(job_traits<J>::site_factor(j));
    }
};

} // namespace mfprio::slurm
