#pragma once
// A site's own priority policy, as a policy author writes it: "GPU-hours fair use".
//
// The site gives every user a budget of GPU-hours per 30 days. A pending job's GPU factor is
// how much of that budget would be left once the job ran: 1 - (used + requested) / budget,
// 0 when the job would reach or pass the budget, 1 for a job without GPUs (the policy is
// about GPUs only). So a GPU-light job comes ahead of a GPU-heavy one of the same age, and a
// user who has spent the budget waits behind the others.
//
// The factor reads two fields of the site's own job type (the GPUs requested and the
// owner's GPU-hours of the last 30 days, stamped on the job by the site's accounting) and the
// time limit, which mfprio knows, through `mfprio::job_traits`. It is combined with Slurm's
// age and QOS factors in an engine with compile-time weights and Slurm's result policy.
// Its test suite is gpu_policy_test.cpp, written with <mfprio/testing.hpp>.

#include <concepts>
#include <cstdint>
#include <string_view>

#include <mfprio/core/engine.hpp>
#include <mfprio/core/job.hpp>
#include <mfprio/core/result.hpp>
#include <mfprio/core/term.hpp>
#include <mfprio/core/weight.hpp>
#include <mfprio/slurm/age.hpp>
#include <mfprio/slurm/qos.hpp>

namespace site {

/// The site's job record: Slurm's fields (mfprio::job, so that Slurm's factors and
/// `slurm_result` read it as they are) plus the site's own.
struct gpu_job : mfprio::job {
    std::uint32_t gpus = 0;        ///< GPUs requested (gres/gpu)
    double owner_gpu_hours = 0.0;  ///< the owner's GPU-hours over the last 30 days
};

/// A job type the GPU factor can read: it has the site's two fields (same-named members)
/// and a time limit (through mfprio::job_traits).
template <class J>
concept gpu_request = mfprio::has_time_limit<J> && requires(const J& j) {
    { j.gpus } -> std::convertible_to<std::uint32_t>;
    { j.owner_gpu_hours } -> std::convertible_to<double>;
};

/// GPU-hours fair use: 1 - (used + requested) / budget, within [0, 1]; 1 without GPUs.
/// Requested GPU-hours are GPUs x time limit; a job without a time limit (none requested, or
/// UNLIMITED) counts `default_limit_minutes`. A negative or NaN usage counts as 0; a budget
/// of 0 (or NaN) leaves nothing for any GPU job, and so does an infinite usage, even over an
/// infinite budget (inf / inf is NaN: the suite's contract check caught that one).
/// Non-increasing in GPUs, in the time limit and in the usage. Reads nothing of the context,
/// so any context does.
struct gpu_fair_use {
    static constexpr std::string_view name = "gpu_fair_use";
    double budget_gpu_hours = 1000.0;          ///< GPU-hours per user per 30 days
    std::uint32_t default_limit_minutes = 1440; ///< the limit of a job without one (a day)

    template <class J, class Ctx>
        requires gpu_request<J>
    [[nodiscard]] constexpr double operator()(const J& j, const Ctx&) const noexcept {
        const auto gpus = static_cast<std::uint32_t>(j.gpus);
        if (gpus == 0) return 1.0;
        auto minutes = static_cast<std::uint32_t>(mfprio::job_traits<J>::time_limit(j));
        if (minutes == mfprio::no_val32 || minutes == mfprio::infinite32) minutes = default_limit_minutes;
        const double requested = static_cast<double>(gpus) * static_cast<double>(minutes) / 60.0;
        const double raw_used = static_cast<double>(j.owner_gpu_hours);
        const double used = raw_used > 0.0 ? raw_used : 0.0; // negative and NaN count 0
        if (!(budget_gpu_hours > 0.0)) return 0.0;
        const double share = (used + requested) / budget_gpu_hours;
        return share < 1.0 ? 1.0 - share : 0.0; // also 0 for NaN: infinite usage over an infinite budget
    }
};

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
