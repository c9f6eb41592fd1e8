#pragma once
/// \file
/// `maui::job`: the job record Maui's factors read, with the credentials and requested
/// resources Maui prioritizes on. Factors read it through `mfprio::job_traits`, so a
/// scheduler's own job type with members of the same names works too.

#include <cstdint>

#include <mfprio/core/job.hpp>
#include <mfprio/maui/model.hpp>

namespace mfprio::maui {

/// A Maui job. Credential fields are indices into the context's credential tables (`no_cred`:
/// none). Times are epoch seconds; 0 means "never" for the blocked times and "not running"
/// for `start_time`.
struct job {
    std::uint32_t id = 0;           ///< job id
    std::uint32_t user = no_cred;   ///< user credential
    std::uint32_t group = no_cred;  ///< group credential
    std::uint32_t account = no_cred; ///< account credential
    std::uint32_t qos = no_cred;    ///< QOS credential
    std::uint32_t job_class = no_cred; ///< class (queue) credential
    std::int64_t submit_time = 0;   ///< submission
    std::int64_t eligible_time = 0; ///< Maui's SystemQueueTime base: submission, PBS etime, or hold release (0 = submit_time)
    std::int64_t policy_blocked_time = 0; ///< last time an idle, active or system queue policy blocked the job (0 = never)
    std::int64_t blocked_time = 0;  ///< last time any other check failed: hold, dependency, FS cap... (0 = never)
    std::int64_t start_time = 0;    ///< when a running job started (0 = not running)
    std::uint32_t wclimit = 0;      ///< wallclock limit, seconds
    std::uint32_t procs = 1;        ///< processors requested (tasks x procs per task)
    std::uint32_t nodes = 1;        ///< nodes requested
    std::uint32_t mem_mb = 0;       ///< real memory requested, MB, total
    std::uint32_t swap_mb = 0;      ///< virtual memory requested, MB, total
    std::uint32_t disk_mb = 0;      ///< local disk requested, MB, total
    std::uint32_t bypass = 0;       ///< times bypassed by backfill
    std::int32_t system_priority = 0; ///< setspri value (see `system_priority_kind`)
    /// 1-based index of the job's first requirement in `context::requirements`, the list
    /// running to the entry marked `last`; 0: one requirement of one task with the totals
    /// above (`procs`, `mem_mb`...). The totals are the requirements' sums either way.
    std::uint32_t req = 0;
    system_priority_kind system_priority_mode = system_priority_kind::none; ///< how `system_priority` applies
    bool spviolation = false;       ///< violates a soft policy
    job_state state = job_state::pending;
};

} // namespace mfprio::maui
