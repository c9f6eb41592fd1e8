#pragma once
/// \file
/// GPU-hours fair use: a factor for sites that give every user a budget of GPU-hours over a
/// period (the decay half-life of the usage it reads). A pending job's value is how much of
/// that budget would be left once the job ran, 1 - (used + requested) / budget within [0, 1],
/// and 1 for a job without GPUs (the factor is about GPUs only): a GPU-light job comes ahead
/// of a GPU-heavy one of the same age, and a user who has spent the budget waits behind the
/// others.
///
/// It reads any job type with a time limit (through `mfprio::job_traits`) and two same-named
/// members, `gpus` and `owner_gpu_hours` (`gpu_request`); site_factor policies name it
/// `gpu_fair_use` over a Slurm job (queue/site.hpp), and a site's compile-time engine can use
/// it over its own job record (examples/policy).

#include <concepts>
#include <cstdint>
#include <string_view>

#include <mfprio/core/job.hpp>

namespace mfprio::queue {

/// A job type `gpu_fair_use` can read: GPUs requested and the owner's GPU-hours as
/// same-named members, and a time limit through `mfprio::job_traits`.
template <class J>
concept gpu_request = has_time_limit<J> && requires(const J& j) {
    { j.gpus } -> std::convertible_to<std::uint32_t>;
    { j.owner_gpu_hours } -> std::convertible_to<double>;
};

/// GPU-hours fair use: 1 - (used + requested) / budget, within [0, 1]; 1 without GPUs.
/// Requested GPU-hours are GPUs x time limit; a job without a time limit (none requested, or
/// UNLIMITED) counts `default_limit_minutes`. A negative or NaN usage counts as 0; a budget
/// of 0 (or NaN) leaves nothing for any GPU job, and so does an infinite usage, even over an
/// infinite budget (inf / inf is NaN, which compares false below). Non-increasing in GPUs, in
/// the time limit and in the usage. Reads nothing of the context, so any context does.
struct gpu_fair_use {
    static constexpr std::string_view name = "gpu_fair_use";
    double budget_gpu_hours = 1000.0;           ///< GPU-hours per user over the usage's period
    std::uint32_t default_limit_minutes = 1440; ///< the limit of a job without one (a day)

    template <class J, class Ctx>
        requires gpu_request<J>
    [[nodiscard]] constexpr double operator()(const J& j, const Ctx&) const noexcept {
        const auto gpus = static_cast<std::uint32_t>(j.gpus);
        if (gpus == 0) return 1.0;
        auto minutes = static_cast<std::uint32_t>(job_traits<J>::time_limit(j));
        if (minutes == no_val32 || minutes == infinite32) minutes = default_limit_minutes;
        const double requested = static_cast<double>(gpus) * static_cast<double>(minutes) / 60.0;
        const double raw_used = static_cast<double>(j.owner_gpu_hours);
        const double used = raw_used > 0.0 ? raw_used : 0.0; // negative and NaN count 0
        if (!(budget_gpu_hours > 0.0)) return 0.0;
        const double share = (used + requested) / budget_gpu_hours;
        return share < 1.0 ? 1.0 - share : 0.0; // also 0 for NaN: infinite usage over an infinite budget
    }
};

} // namespace mfprio::queue
