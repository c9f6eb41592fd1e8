#pragma once
/// \file
/// Slurm's association factor (`PriorityWeightAssoc`, `NO_NORMAL_ASSOC`).

#include <string_view>

#include <mfprio/core/job.hpp>
#include <mfprio/slurm/context.hpp>

namespace mfprio::slurm {

/// The association's Priority over the maximum over all associations; the raw Priority
/// under NO_NORMAL_ASSOC. 0 for a job without a known association.
struct association_factor {
    static constexpr std::string_view name = "assoc";
    bool normalize = true; ///< false = PriorityFlags NO_NORMAL_ASSOC

    template <class J>
        requires has_association<J>
    [[nodiscard]] constexpr double operator()(const J& j, const context& c) const noexcept {
        const auto a = static_cast<std::size_t>(job_traits<J>::association(j));
        if (normalize) return a < c.assoc_priority_norm.size() ? c.assoc_priority_norm[a] : 0.0;
        return a < c.assoc_priority.size() ? static_cast<double>(c.assoc_priority[a]) : 0.0;
    }
};

} // namespace mfprio::slurm
