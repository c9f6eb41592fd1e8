#pragma once
/// \file
/// Slurm's scheduling order (`sort_job_queue2`): higher partition PriorityTier first, then
/// higher priority, then earlier submit time, then lower job id. A multi-partition or
/// multi-QOS job is queued once per (partition, QOS) entry with that entry's priority.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <mfprio/core/assert.hpp>
#include <mfprio/core/job.hpp>
#include <mfprio/core/result.hpp>
#include <mfprio/slurm/context.hpp>
#include <mfprio/slurm/multifactor.hpp>

namespace mfprio::slurm {

/// One record of the scheduler's queue.
struct queue_entry {
    std::uint32_t job_index = 0;  ///< position of the job in the caller's span
    std::uint32_t job_id = 0;
    std::uint32_t partition = 0;  ///< partition index of this entry
    std::uint32_t qos = 0;        ///< QOS index of this entry
    std::uint32_t tier = 0;       ///< the partition's PriorityTier
    std::uint32_t priority = 0;
    std::int64_t submit_time = 0;
};

/// Slurm's order: tier desc, priority desc, submit time asc, job id asc. (Expedited
/// requeue, preemption and reservations, which come first in Slurm, are outside mfprio.)
[[nodiscard]] constexpr bool schedules_before(const queue_entry& a, const queue_entry& b) noexcept {
    if (a.tier != b.tier) return a.tier > b.tier;
    if (a.priority != b.priority) return a.priority > b.priority;
    if (a.submit_time != b.submit_time) return a.submit_time < b.submit_time;
    return a.job_id < b.job_id;
}

/// Builds the scheduler's queue for the pending jobs of `jobs` (held jobs, which have
/// priority 0, are not queued) and sorts it in Slurm's order. `lists` holds the partition and
/// QOS lists of each job (`lists[k]` for `jobs[k]`), or is empty when no job has lists (or
/// the job type carries its own, `partitions` and `qos_list`).
template <slurm_engine E, class J>
    requires has_id<J> && has_state<J> && has_submit_time<J> && has_partition<J> && has_qos<J>
void build_queue(const E& e, std::span<const J> jobs, std::span<const job_lists> lists, const context& c,
                 std::vector<queue_entry>& out) {
    MFPRIO_ASSERT(lists.empty() || lists.size() == jobs.size());
    out.clear();
    std::vector<priority_value> array;
    for (std::size_t k = 0; k < jobs.size(); ++k) {
        const J& j = jobs[k];
        if (job_traits<J>::state(j) != job_state::pending) continue;
        const auto add = [&](std::uint32_t p, std::uint32_t q, std::uint32_t prio) {
            const auto* part = c.partition(p);
            out.push_back(queue_entry{static_cast<std::uint32_t>(k), static_cast<std::uint32_t>(job_traits<J>::id(j)),
                                      p, q, part ? part->priority_tier : 0u, prio,
                                      static_cast<std::int64_t>(job_traits<J>::submit_time(j))});
        };
        const job_lists l = k < lists.size() ? lists[k] : lists_of(j);
        const std::size_t n = priority_array_size(l);
        if (n == 0) {
            const auto prio = e.priority(j, c);
            if (prio.value == 0) continue;
            add(static_cast<std::uint32_t>(job_traits<J>::partition(j)), static_cast<std::uint32_t>(job_traits<J>::qos(j)), prio.value);
            continue;
        }
        array.resize(n);
        priority_array(e, j, l, c, std::span<priority_value>(array));
        const std::size_t nq = l.qos.empty() ? 1 : l.qos.size();
        for (std::size_t i = 0; i < n; ++i) {
            if (array[i].value == 0) continue;
            const std::uint32_t p =
                l.partitions.empty() ? static_cast<std::uint32_t>(job_traits<J>::partition(j)) : l.partitions[i / nq];
            const std::uint32_t q = l.qos.empty() ? static_cast<std::uint32_t>(job_traits<J>::qos(j)) : l.qos[i % nq];
            add(p, q, array[i].value);
        }
    }
    std::sort(out.begin(), out.end(), schedules_before);
}

/// The queue of jobs without lists, or whose type carries its own.
template <slurm_engine E, class J>
    requires has_id<J> && has_state<J> && has_submit_time<J> && has_partition<J> && has_qos<J>
void build_queue(const E& e, std::span<const J> jobs, const context& c, std::vector<queue_entry>& out) {
    build_queue(e, jobs, std::span<const job_lists>{}, c, out);
}

} // namespace mfprio::slurm
