#pragma once
/// \file
/// Result policies: how an engine turns its weighted sum into a priority. A result policy
/// has an `output_type` and a call operator `(job, score_fn)`: it may decide without the
/// sum (a held job, an administrator-set priority), so `score_fn` is only called when needed.

#include <concepts>
#include <cstdint>

#include <mfprio/core/job.hpp>

namespace mfprio {

/// How a priority came about. Anything but `computed` is worth showing to an administrator.
/// 32 bits wide, not 8: a store of a one-byte type may alias any object, so an engine
/// writing results through one would reload its context's tables after each job's store.
/// `priority_value` is 8 bytes either way.
enum class priority_status : std::uint32_t {
    computed,  ///< the weighted sum, truncated
    floored,   ///< the sum was below 1 and was raised to 1 (0 is reserved for held jobs)
    clamped,   ///< the sum exceeded 2^32-1 and was reduced to 4294967295 (Slurm logs an error)
    admin_set, ///< an administrator-set priority passed through unchanged
    held,      ///< the job is held: priority 0
};

/// A 32-bit priority and how it was obtained.
struct priority_value {
    std::uint32_t value = 0;
    priority_status status = priority_status::computed;
    friend constexpr bool operator==(const priority_value&, const priority_value&) = default;
};

/// The result policy concept: `r(job, score_fn)` returns `R::output_type`.
template <class R, class J>
concept result_policy = requires(const R& r, const J& j) {
    typename R::output_type;
    { r(j, [] { return 0.0; }) } noexcept -> std::same_as<typename R::output_type>;
};

/// The raw weighted sum, unchanged: for tests, reports and systems that post-process.
struct raw_result {
    using output_type = double;
    template <class J, class F>
    constexpr double operator()(const J&, F&& score) const noexcept { return score(); }
};

/// Slurm's composition (priority/multifactor `_get_priority_internal`): a held job is 0; an
/// administrator-set priority (> 0) passes through unchanged; otherwise the sum is floored
/// at 1, clamped at 2^32-1 (reported as `clamped`), and truncated toward zero.
struct slurm_result {
    using output_type = priority_value;

    /// Floor, clamp and truncate a weighted sum exactly as Slurm does. A NaN sum (a job
    /// size of 0/0 under SMALL_RELATIVE_TO_TIME) is not below 1, and Slurm's cast of it to
    /// uint64 gives 2^63 on x86-64 (the integer-indefinite value, with gcc at any level of
    /// optimization), which the clamp turns into 2^32-1: so it is here. A sum past 2^64 is
    /// clamped too, as Slurm built with clang does (gcc's code casts it to 0, then returns a
    /// priority of 0).
    [[nodiscard]] static constexpr priority_value finish(double sum) noexcept {
        if (sum < 1.0) return {1, priority_status::floored};
        if (!(sum < 4294967296.0)) return {0xffffffffu, priority_status::clamped}; // NaN too
        return {static_cast<std::uint32_t>(sum), priority_status::computed};
    }

    template <class J, class F>
    constexpr priority_value operator()(const J& j, F&& score) const noexcept {
        if constexpr (has_state<J>) {
            if (job_traits<J>::state(j) == job_state::held) return {0, priority_status::held};
        }
        if constexpr (has_admin_priority<J>) {
            const auto set = job_traits<J>::admin_priority(j);
            if (set > 0) return {static_cast<std::uint32_t>(set), priority_status::admin_set};
        }
        return finish(score());
    }
};

} // namespace mfprio
