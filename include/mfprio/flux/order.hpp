#pragma once
/// \file
/// Flux's queue order (flux-core's job priority comparator, reference flux_maui.md A1): higher
/// priority first, then lower job id. Flux job ids grow with submission time, so jobs of equal
/// priority run first come, first served; flux-accounting's tests rely on that tie-break.
///
/// Jobs with priority 0 are held by flux-core (urgency 0, or "priority-hold") and will not
/// start; they sort last, and `priority_value::held()` picks them out.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <mfprio/core/assert.hpp>
#include <mfprio/core/job.hpp>
#include <mfprio/flux/result.hpp>

namespace mfprio::flux {

/// Flux's comparator: true when a job with priority `priority_a` and id `id_a` is queued
/// before one with `priority_b` and `id_b` (priority descending, then id ascending).
[[nodiscard]] constexpr bool schedules_before(std::int64_t priority_a, std::uint64_t id_a, std::int64_t priority_b,
                                              std::uint64_t id_b) noexcept {
    if (priority_a != priority_b) return priority_a > priority_b;
    return id_a < id_b;
}

/// Flux's comparator over positions into parallel spans of jobs and their priorities
/// (`prio[k]` is `jobs[k]`'s priority), for `std::sort` and friends. Two positions with the
/// same priority and id (a duplicated job) compare by position, so the order is total.
template <class J>
    requires has_id<J>
struct queue_order {
    std::span<const J> jobs;              ///< the jobs
    std::span<const priority_value> prio; ///< their priorities, `prio[k]` for `jobs[k]`

    /// True when position `a` is queued before position `b`.
    [[nodiscard]] constexpr bool operator()(std::size_t a, std::size_t b) const noexcept {
        const auto ida = static_cast<std::uint64_t>(job_traits<J>::id(jobs[a]));
        const auto idb = static_cast<std::uint64_t>(job_traits<J>::id(jobs[b]));
        if (prio[a].value != prio[b].value || ida != idb)
            return schedules_before(prio[a].value, ida, prio[b].value, idb);
        return a < b;
    }
};

/// The positions of `jobs` in Flux's queue order, given each job's priority (`prio[k]` for
/// `jobs[k]`; `prio` at least as long as `jobs`). Held jobs (priority 0) are included, last.
/// O(n log n); allocates the result.
template <class J>
    requires has_id<J>
[[nodiscard]] std::vector<std::size_t> start_order(std::span<const J> jobs, std::span<const priority_value> prio) {
    MFPRIO_ASSERT(prio.size() >= jobs.size());
    std::vector<std::size_t> order(jobs.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), queue_order<J>{jobs, prio});
    return order;
}

} // namespace mfprio::flux
