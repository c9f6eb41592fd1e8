#pragma once
// A site's own priority policy, as a policy author writes it: "GPU-hours fair use" over the
// site's own job record.
//
// The site gives every user a budget of GPU-hours per 30 days. A pending job's GPU factor is
// how much of that budget would be left once the job ran: 1 - (used + requested) / budget,
// 0 when the job would reach or pass the budget, 1 for a job without GPUs (the policy is
// about GPUs only). So a GPU-light job comes ahead of a GPU-heavy one of the same age, and a
// user who has spent the budget waits behind the others.
//
// The factor is the library's `mfprio::queue::gpu_fair_use`; it reads two fields of the
// site's own job type (the GPUs requested and the owner's GPU-hours of the last 30 days,
// stamped on the job by the site's accounting) and the time limit, which mfprio knows,
// through `mfprio::job_traits`. It is combined with Slurm's age and QOS factors in an engine
// with compile-time weights and Slurm's result policy. Its test suite is
// gpu_policy_test.cpp, written with <mfprio/testing.hpp>: the suite a site writes for its
// policy, whatever factors it is made of.

#include <cstdint>

#include <mfprio/core/engine.hpp>
#include <mfprio/core/job.hpp>
#include <mfprio/core/result.hpp>
#include <mfprio/core/term.hpp>
#include <mfprio/core/weight.hpp>
#include <mfprio/queue/gpu_fair_use.hpp>
#include <mfprio/slurm/age.hpp>
#include <mfprio/slurm/qos.hpp>

namespace site {

/// The site's job record: Slurm's fields (mfprio::job, so that Slurm's factors and
/// `slurm_result` read it as they are) plus the site's own.
struct gpu_job : mfprio::job {
    std::uint32_t gpus = 0;        ///< GPUs requested (gres/gpu)
    double owner_gpu_hours = 0.0;  ///< the owner's GPU-hours over the last 30 days
};

/// The factor, from the library (mfprio/queue/gpu_fair_use.hpp): it reads the site's two
/// fields by name and the time limit through mfprio::job_traits.
using mfprio::queue::gpu_fair_use;
using mfprio::queue::gpu_request;

/// The site's weights: PriorityWeightAge=1000, PriorityWeightQOS=2000, GPU fair use 5000.
inline constexpr std::uint32_t max_age_seconds = 7 * 86400; ///< PriorityMaxAge=7-0

/// The site's engine: age, QOS, GPU fair use, added in that order; Slurm's result policy
/// (floor 1, held jobs 0, truncation).
[[nodiscard]] constexpr auto make_site_engine(gpu_fair_use policy = {}) {
    using namespace mfprio::literals;
    return mfprio::make_engine(mfprio::slurm_result{},
                               mfprio::make_term(mfprio::slurm::age_factor{max_age_seconds}, 1000_w),
                               mfprio::make_term(mfprio::slurm::qos_factor{}, 2000_w),
                               mfprio::make_term(policy, 5000_w));
}

} // namespace site
