#pragma once
/// \file
/// Slurm's age factor (`PriorityMaxAge`, `PriorityWeightAge`).

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>

#include <mfprio/core/job.hpp>
#include <mfprio/core/simd.hpp>
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
        return of(static_cast<std::int64_t>(job_traits<J>::accrue_time(j)), c.now);
    }

    /// The factor of a job accruing from `accrue` at time `now`. Without a data-dependent
    /// branch: the difference is capped at PriorityMaxAge before dividing (max_age/max_age is
    /// exactly 1, Slurm's value past the maximum), and PriorityMaxAge=0 divides 1 by 1.
    [[nodiscard]] constexpr double of(std::int64_t accrue, std::int64_t now) const noexcept {
        const std::uint32_t limit = max_age == 0 ? 1u : max_age;
        const double f = static_cast<double>(numerator(accrue, now)) / static_cast<double>(limit);
        return accrue == 0 ? 0.0 : f;
    }

    /// The factor of each job of a block into `out`, exactly as the call operator: the integer
    /// work job by job, then one division per job by the loop-invariant PriorityMaxAge, two
    /// at a time. A job that does not accrue gets the numerator 0: 0 / d is +0.0 (d >= 1),
    /// `of`'s value.
    template <class J, std::size_t N>
        requires has_accrue_time<J> && (N != std::dynamic_extent)
    constexpr void block(std::span<const J, N> jobs, const context& c, std::span<double, N> out) const noexcept {
        const double d = static_cast<double>(max_age == 0 ? 1u : max_age);
        const auto numerator_of = [this, now = c.now](const J& j) noexcept {
            const auto accrue = static_cast<std::int64_t>(job_traits<J>::accrue_time(j));
            return accrue != 0 ? numerator(accrue, now) : 0u;
        };
        if (!std::is_constant_evaluated() && N % 2 == 0) {
            const auto divisor = simd::f64x2::all(d);
            for (std::size_t i = 0; i < N; i += 2)
                (simd::f64x2::of_u32(numerator_of(jobs[i]), numerator_of(jobs[i + 1])) / divisor).store(out.data() + i);
            return;
        }
        for (std::size_t i = 0; i < N; ++i) out[i] = static_cast<double>(numerator_of(jobs[i])) / d;
    }

private:
    /// The numerator of `of`: the uint32 difference capped at PriorityMaxAge (1 when that is 0).
    [[nodiscard]] constexpr std::uint32_t numerator(std::int64_t accrue, std::int64_t now) const noexcept {
        const std::uint32_t diff = now > accrue ? static_cast<std::uint32_t>(now - accrue) : 0u;
        const std::uint32_t capped = diff < max_age ? diff : max_age;
        return max_age == 0 ? 1u : capped;
    }
};

} // namespace mfprio::slurm
