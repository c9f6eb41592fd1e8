#pragma once
/// \file
/// Flux's result policies: how a weighted sum becomes a Flux priority (reference
/// flux_maui.md A1, A2.1, A2.4.3, A2.4.4).
///
/// - `flux_result`, flux-accounting's multi-factor plugin: urgency 0 (HOLD) gives priority 0
///   and urgency 31 (EXPEDITE) gives 4294967295, both decided before any factor is evaluated;
///   otherwise the double sum is rounded with C `round` (halves away from zero), a negative
///   result becomes 0, and a result above 4294967295 becomes 4294967295 (an mfprio option:
///   the plugin does not clamp, reference A2.4.4).
/// - `urgency_result`, flux-core's default plugin: priority = urgency, with HOLD and EXPEDITE
///   forced to the minimum and maximum by the job manager.
///
/// **Priority 0 holds the job.** In flux-core a priority of 0 is "priority-hold": the job is
/// not scheduled even when its urgency is not 0 (flux-core#3452/#3453, reference A1). So a
/// multi-factor sum that rounds to 0 or below does not merely put the job last: it stops the
/// job from running (flux-accounting's test t1056: urgency 15 with only the urgency weight set
/// gives 0). Such results carry `priority_status::priority_hold`, and `priority_value::held()`
/// is true for them.
///
/// The output keeps the int64 of flux-core's jobtap interface, so that `clamp_upper = false`
/// can pass the plugin's unclamped values through.

#include <cmath>
#include <cstdint>
#include <limits>

#include <mfprio/core/job.hpp>
#include <mfprio/flux/job.hpp>

namespace mfprio::flux {

/// How a Flux priority came about. Anything but `computed` is worth showing to an
/// administrator. 32 bits wide, as `mfprio::priority_status` is (`core/result.hpp`: a
/// one-byte store may alias any object).
enum class priority_status : std::uint32_t {
    computed,      ///< the rounded sum (or the urgency, for flux-core's default plugin)
    held_urgency,  ///< urgency 0 (HOLD): priority 0, no factor evaluated
    expedited,     ///< urgency 31 (EXPEDITE): priority 4294967295, no factor evaluated
    priority_hold, ///< the rounded sum was 0 or below (or NaN): priority 0, which flux-core treats as a hold
    clamped,       ///< the rounded sum exceeded 4294967295 and was lowered to it (mfprio; the plugin does not clamp)
};

/// A Flux priority (int64, as the jobtap interface carries it; 0..4294967295 unless the upper
/// clamp is off) and how it was obtained.
struct priority_value {
    std::int64_t value = 0;                             ///< the priority
    priority_status status = priority_status::computed; ///< how it was obtained

    /// True when flux-core will not schedule the job for its priority: a priority of 0, from
    /// urgency 0 or from a sum that rounded to 0 or below ("priority-hold", reference A1).
    [[nodiscard]] constexpr bool held() const noexcept { return value == 0; }

    friend constexpr bool operator==(const priority_value&, const priority_value&) = default;
};

/// flux-accounting's multi-factor result (reference A2.1), in this order:
/// 1. urgency 0 (HOLD): `{0, held_urgency}`, without calling the score function;
/// 2. urgency 31 (EXPEDITE): `{4294967295, expedited}`, without calling the score function;
/// 3. otherwise the weighted sum, rounded with `std::round` (halves away from zero: 2.5 gives
///    3, -2.5 gives -3), then
///    - a rounded sum of 0 or below: `{0, priority_hold}`. The plugin turns negatives into 0
///      (FLUX_JOB_PRIORITY_MIN) and returns 0 as is; either way flux-core holds the job;
///    - above 4294967295: `{4294967295, clamped}` when `clamp_upper` (the default). The plugin
///      itself does not clamp (reference A2.4.4): with `clamp_upper = false` the value passes
///      through with status `computed`, as the plugin returns it;
///    - otherwise `{rounded sum, computed}`.
///
/// A NaN sum (a NaN factor, say) gives `{0, priority_hold}`: the job is held rather than given
/// an arbitrary priority. (The plugin would convert NaN to an integer, which is undefined in
/// C++; on x86-64 it yields the most negative int64.) With `clamp_upper = false`, a rounded
/// sum beyond the int64 range (e.g. +infinity) saturates to 2^63 - 1 with status `clamped`,
/// where the plugin's conversion would again be undefined.
///
/// The job's `state` is not read: Flux holds a job through its urgency (or a priority of 0),
/// not through a job state.
struct flux_result {
    using output_type = priority_value;

    /// Lower a rounded sum above 4294967295 (FLUX_JOB_PRIORITY_MAX) to it. false mirrors the
    /// plugin, which returns the int64 unchanged.
    bool clamp_upper = true;

    /// Rounds and bounds a weighted sum as described above (steps 3 on).
    [[nodiscard]] priority_value finish(double sum) const noexcept {
        if (sum != sum) return {0, priority_status::priority_hold}; // NaN
        const double rounded = std::round(sum);
        if (!(rounded > 0.0)) return {0, priority_status::priority_hold};
        if (clamp_upper && rounded > static_cast<double>(priority_max))
            return {static_cast<std::int64_t>(priority_max), priority_status::clamped};
        // 2^63 is the first double past the int64 range.
        if (rounded >= 9223372036854775808.0)
            return {std::numeric_limits<std::int64_t>::max(), priority_status::clamped};
        return {static_cast<std::int64_t>(rounded), priority_status::computed};
    }

    /// The priority of job `j`; `score()` gives its weighted sum and is called only for
    /// urgencies other than 0 and 31.
    template <class J, class F>
        requires has_urgency<J>
    constexpr priority_value operator()(const J& j, F&& score) const noexcept {
        const auto u = static_cast<std::uint64_t>(job_traits<J>::urgency(j));
        if (u == urgency_hold) return {0, priority_status::held_urgency};
        if (u == urgency_expedite) return {static_cast<std::int64_t>(priority_max), priority_status::expedited};
        return finish(score());
    }
};

/// flux-core's default priority plugin (`.priority-default`, reference A1): priority =
/// urgency. Urgency 0 gives `{0, held_urgency}` and urgency 31 `{4294967295, expedited}` (the
/// job manager forces HOLD and EXPEDITE to the minimum and maximum whatever a plugin says);
/// any other urgency u gives `{u, computed}`. The score function is never called: an engine
/// with this policy (`make_flux_core_engine`) carries the urgency as its one term only so that
/// `score` and `explain` show it.
struct urgency_result {
    using output_type = priority_value;

    /// The priority of job `j`: its urgency (the score function is not called).
    template <class J, class F>
        requires has_urgency<J>
    constexpr priority_value operator()(const J& j, F&&) const noexcept {
        const auto u = static_cast<std::uint64_t>(job_traits<J>::urgency(j));
        if (u == urgency_hold) return {0, priority_status::held_urgency};
        if (u == urgency_expedite) return {static_cast<std::int64_t>(priority_max), priority_status::expedited};
        return {static_cast<std::int64_t>(u), priority_status::computed};
    }
};

} // namespace mfprio::flux
