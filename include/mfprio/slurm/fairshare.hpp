#pragma once
/// \file
/// Slurm's fair-share factor (`PriorityWeightFairshare`): an O(1) lookup of the factor the
/// fair-share pass computed for the job's association.

#include <string_view>

#include <mfprio/core/job.hpp>
#include <mfprio/slurm/context.hpp>

namespace mfprio::slurm {

/// The association's fs_factor (Fair Tree rank/N or classic 2^(-UE/S/d)), read from the
/// context's fair-share column. 0 for a job without a known association.
struct fairshare_factor {
    static constexpr std::string_view name = "fairshare";

    template <class J>
        requires has_association<J>
    [[nodiscard]] constexpr double operator()(const J& j, const context& c) const noexcept {
        const auto a = static_cast<std::size_t>(job_traits<J>::association(j));
        return a < c.fairshare.size() ? c.fairshare[a] : 0.0;
    }
};

} // namespace mfprio::slurm
