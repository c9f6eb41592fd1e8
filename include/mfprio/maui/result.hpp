#pragma once
/// \file
/// Maui's result policy: the start priority Maui stores from a job's weighted sum (reference
/// B4): the floor at 1, the ceiling MAX_PRIO_VAL, REJECTNEGPRIOJOBS and ENABLENEGJOBPRIORITY,
/// the system priority of `setspri`, then truncation to Maui's `long`.

#include <cstdint>

#include <mfprio/core/job.hpp>
#include <mfprio/maui/model.hpp>

namespace mfprio::maui {


/// How a Maui priority came about. 32 bits wide, as `mfprio::priority_status` is
/// (`core/result.hpp`: a one-byte store may alias any object).
enum class priority_status : std::uint32_t {
    computed,          ///< the weighted sum, truncated
    floored,           ///< the sum was below 1 and was raised to 1 (negatives not enabled)
    ceiling,           ///< the sum exceeded MAX_PRIO_VAL (1e9) and was lowered to it
    negative_rejected, ///< REJECTNEGPRIOJOBS: a negative priority, kept; the job will not start
    system_absolute,   ///< `setspri N` (N > 0): 1e9 + N, above every computed priority
    system_relative,   ///< `setspri -r N`: N added after the clamps
};

/// A Maui start priority (Maui's `long StartPriority`) and how it was obtained.
struct priority_value {
    std::int64_t value = 0;
    priority_status status = priority_status::computed;
    /// False when Maui would not start the job for its priority (REJECTNEGPRIOJOBS and < 0).
    [[nodiscard]] constexpr bool startable() const noexcept { return status != priority_status::negative_rejected; }
    friend constexpr bool operator==(const priority_value&, const priority_value&) = default;
};

/// Maui's final value (`MJobGetStartPriority`, after the sum): floor at 1 unless
/// REJECTNEGPRIOJOBS or ENABLENEGJOBPRIORITY, ceiling at MAX_PRIO_VAL (1e9), then a system
/// priority: absolute N > 0 replaces the value with 1e9 + N (N = 0 is no system priority:
/// Maui applies one only when its stored value is > 0), relative adds N after the ceiling.
/// The double is then truncated toward zero into a 64-bit integer, as Maui's cast does on
/// x86-64.
struct maui_result {
    using output_type = priority_value;
    bool reject_negative = false; ///< REJECTNEGPRIOJOBS
    bool enable_negative = false; ///< ENABLENEGJOBPRIORITY
    double max_priority = 1e9;    ///< MAX_PRIO_VAL

    /// The result policy configured by `opts`.
    [[nodiscard]] static constexpr maui_result from(const options& opts) noexcept {
        return maui_result{.reject_negative = opts.reject_negative, .enable_negative = opts.enable_negative, .max_priority = opts.max_priority};
    }

    /// Finishes a weighted sum for a job with the given system priority.
    [[nodiscard]] constexpr priority_value finish(double sum, system_priority_kind kind = system_priority_kind::none,
                                                  std::int64_t system = 0) const noexcept {
        double p = sum;
        priority_status status = priority_status::computed;
        if (!reject_negative && !enable_negative) {
            // Below 1 (NaN too) is floored to 1: selects rather than a branch, which went
            // either way at random where many sums are below 1 (x > 1 ? x : 1 is maxsd).
            static_assert(static_cast<int>(priority_status::computed) == 0 &&
                          static_cast<int>(priority_status::floored) == 1);
            status = static_cast<priority_status>(!(p >= 1.0)); // computed (0) or floored (1)
            p = p > 1.0 ? p : 1.0;
        } else if (!(p == p)) {
            p = 0.0; // NaN: never a silent garbage value
        }
        if (p > max_priority) { p = max_priority; status = priority_status::ceiling; }
        if (kind == system_priority_kind::absolute && system > 0) {
            p = max_priority + static_cast<double>(system);
            status = priority_status::system_absolute;
        } else if (kind == system_priority_kind::relative) {
            p += static_cast<double>(system);
            status = priority_status::system_relative;
        }
        // Negative priorities have no lower clamp in Maui; a sum below the 64-bit range (-inf
        // from an infinite factor, say) is held at its bottom instead of an undefined cast.
        constexpr double int64_bottom = -9223372036854775808.0;
        if (!(p > int64_bottom)) p = int64_bottom;
        const auto value = static_cast<std::int64_t>(p);
        if (reject_negative && value < 0 && status != priority_status::system_absolute)
            status = priority_status::negative_rejected;
        return {value, status};
    }

    template <class J, class F>
    constexpr priority_value operator()(const J& j, F&& score) const noexcept {
        auto kind = system_priority_kind::none;
        std::int64_t system = 0;
        if constexpr (has_system_priority_mode<J> && has_system_priority<J>) {
            kind = job_traits<J>::system_priority_mode(j);
            system = static_cast<std::int64_t>(job_traits<J>::system_priority(j));
        }
        return finish(score(), kind, system);
    }
};

} // namespace mfprio::maui
