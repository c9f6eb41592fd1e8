#pragma once
/// \file
/// `mfprio::job`, the plain job record the library's own tools use, and `job_traits<J>`,
/// the one extension point through which every factor reads a job. A scheduler's own job
/// type works unchanged as long as it has members of the same names, or a specialization of
/// `job_traits` that says where each field lives.

#include <cstdint>
#include <type_traits>

namespace mfprio {

/// Where a job is in its life. Slurm has no "held" state (a held job is pending with
/// priority 0); we keep it separate so readers can say HELD explicitly.
enum class job_state : std::uint8_t {
    pending,    ///< waiting to start
    held,       ///< pending with priority 0 (user or admin hold)
    running,    ///< running
    suspended,  ///< suspended
    completing, ///< finishing
    finished,   ///< completed, failed, cancelled, timed out...
};

/// Sentinel meaning "no value" for 32-bit fields (Slurm's NO_VAL).
inline constexpr std::uint32_t no_val32 = 0xfffffffeu;
/// Sentinel meaning "unlimited" for 32-bit fields (Slurm's INFINITE).
inline constexpr std::uint32_t infinite32 = 0xffffffffu;

/// Sentinel `tres_row` of a job that requests no TRES (every count reads 0).
inline constexpr std::uint32_t no_tres_row = 0xffffffffu;

/// A job as the priority calculation sees it: dense integer ids into the tables of the
/// evaluation context, and plain numbers. Names live in the tables, not here.
///
/// One record is 64 bytes, a cache line, so a pass over a million jobs streams 64 MB of
/// records. What a pass does not need per job lives elsewhere: the requested TRES counts are
/// a row of the context's TRES request table (`tres_row`), and the partition and QOS lists
/// of multi-partition and multi-QOS jobs are handed to the functions that use them
/// (`slurm::job_lists`: priority arrays, the scheduling queue, sprio rows). Layout, in
/// bytes: id, user, association, tres_row (16); submit_time, accrue_time (16); min_nodes,
/// cpus, time_limit, nice, site_factor, admin_priority (24); partition, qos (4); state (1);
/// 3 of padding.
struct job {
    std::uint32_t id = 0;            ///< job id (Slurm JobId)
    std::uint32_t user = 0;          ///< user id (index into the context's user names)
    std::uint32_t association = 0;   ///< association index (fair-share and assoc priority)
    std::uint32_t tres_row = no_tres_row; ///< row of the context's TRES request table (no_tres_row = none)
    std::int64_t submit_time = 0;    ///< epoch seconds
    std::int64_t accrue_time = 0;    ///< epoch seconds age accrues from; 0 = not accruing (Slurm accrue_time)
    std::uint32_t min_nodes = 1;     ///< requested nodes (Slurm details.min_nodes)
    std::uint32_t cpus = 1;          ///< CPUs (total_cpus, else max_cpus, else min_cpus)
    std::uint32_t time_limit = no_val32; ///< minutes; no_val32 = none requested; infinite32 = UNLIMITED
    std::int32_t nice = 0;           ///< nice value, not offset (subtracted from the priority)
    std::int32_t site_factor = 0;    ///< site factor, not offset (added to the priority)
    std::uint32_t admin_priority = 0; ///< priority set by an administrator (0 = not set)
    std::uint16_t partition = 0;     ///< partition index (the highest-tier one for multi-partition jobs)
    std::uint16_t qos = 0;           ///< QOS index (the highest-priority one for multi-QOS jobs)
    job_state state = job_state::pending;
};

/// How factors read a job. The primary template reads members of the same names as
/// `mfprio::job`; specialize it for a job type whose fields are named or stored otherwise.
/// Every accessor is a template so that a missing member removes the accessor instead of
/// breaking the whole class: factors are constrained on exactly the accessors they use.
/// Three accessors read members `mfprio::job` does not have, for a scheduler's own job type
/// that carries them: `tres` (a span of requested TRES counts indexed by TRES id, instead
/// of a `tres_row`), `partitions` and `qos_list` (the lists of a multi-partition or
/// multi-QOS job). The last group are the fields of `maui::job` (credentials beyond the
/// user, Maui's queue-time bookkeeping and requested resources), then those of `flux::job`
/// (queue, bank, submission order, urgency).
template <class J>
struct job_traits {
#define MFPRIO_DETAIL_JOB_FIELD(field)                                                        \
    template <class T = J>                                                                    \
    static constexpr auto field(const T& j) noexcept -> decltype(j.field) { return j.field; }
    MFPRIO_DETAIL_JOB_FIELD(id)
    MFPRIO_DETAIL_JOB_FIELD(user)
    MFPRIO_DETAIL_JOB_FIELD(association)
    MFPRIO_DETAIL_JOB_FIELD(partition)
    MFPRIO_DETAIL_JOB_FIELD(qos)
    MFPRIO_DETAIL_JOB_FIELD(state)
    MFPRIO_DETAIL_JOB_FIELD(submit_time)
    MFPRIO_DETAIL_JOB_FIELD(accrue_time)
    MFPRIO_DETAIL_JOB_FIELD(min_nodes)
    MFPRIO_DETAIL_JOB_FIELD(cpus)
    MFPRIO_DETAIL_JOB_FIELD(time_limit)
    MFPRIO_DETAIL_JOB_FIELD(nice)
    MFPRIO_DETAIL_JOB_FIELD(site_factor)
    MFPRIO_DETAIL_JOB_FIELD(admin_priority)
    MFPRIO_DETAIL_JOB_FIELD(tres_row)
    MFPRIO_DETAIL_JOB_FIELD(tres)
    MFPRIO_DETAIL_JOB_FIELD(partitions)
    MFPRIO_DETAIL_JOB_FIELD(qos_list)
    // Maui's fields (maui::job)
    MFPRIO_DETAIL_JOB_FIELD(group)
    MFPRIO_DETAIL_JOB_FIELD(account)
    MFPRIO_DETAIL_JOB_FIELD(job_class)
    MFPRIO_DETAIL_JOB_FIELD(eligible_time)
    MFPRIO_DETAIL_JOB_FIELD(policy_blocked_time)
    MFPRIO_DETAIL_JOB_FIELD(blocked_time)
    MFPRIO_DETAIL_JOB_FIELD(start_time)
    MFPRIO_DETAIL_JOB_FIELD(wclimit)
    MFPRIO_DETAIL_JOB_FIELD(procs)
    MFPRIO_DETAIL_JOB_FIELD(nodes)
    MFPRIO_DETAIL_JOB_FIELD(mem_mb)
    MFPRIO_DETAIL_JOB_FIELD(swap_mb)
    MFPRIO_DETAIL_JOB_FIELD(disk_mb)
    MFPRIO_DETAIL_JOB_FIELD(bypass)
    MFPRIO_DETAIL_JOB_FIELD(spviolation)
    MFPRIO_DETAIL_JOB_FIELD(system_priority)
    MFPRIO_DETAIL_JOB_FIELD(system_priority_mode)
    MFPRIO_DETAIL_JOB_FIELD(req)
    // Flux's fields (flux::job)
    MFPRIO_DETAIL_JOB_FIELD(queue)
    MFPRIO_DETAIL_JOB_FIELD(bank)
    MFPRIO_DETAIL_JOB_FIELD(submit_seq)
    MFPRIO_DETAIL_JOB_FIELD(urgency)
#undef MFPRIO_DETAIL_JOB_FIELD
};

/// Concepts naming the job fields a factor reads, one per field, so that a factor's call
/// operator says exactly what it needs (e.g. `requires has_accrue_time<J>`).
#define MFPRIO_DETAIL_JOB_CONCEPT(field)                                                      \
    template <class J>                                                                        \
    concept has_##field = requires(const J& j) {                                              \
        { job_traits<J>::field(j) };                                                          \
    };
MFPRIO_DETAIL_JOB_CONCEPT(id)
MFPRIO_DETAIL_JOB_CONCEPT(user)
MFPRIO_DETAIL_JOB_CONCEPT(association)
MFPRIO_DETAIL_JOB_CONCEPT(partition)
MFPRIO_DETAIL_JOB_CONCEPT(qos)
MFPRIO_DETAIL_JOB_CONCEPT(state)
MFPRIO_DETAIL_JOB_CONCEPT(submit_time)
MFPRIO_DETAIL_JOB_CONCEPT(accrue_time)
MFPRIO_DETAIL_JOB_CONCEPT(min_nodes)
MFPRIO_DETAIL_JOB_CONCEPT(cpus)
MFPRIO_DETAIL_JOB_CONCEPT(time_limit)
MFPRIO_DETAIL_JOB_CONCEPT(nice)
MFPRIO_DETAIL_JOB_CONCEPT(site_factor)
MFPRIO_DETAIL_JOB_CONCEPT(admin_priority)
MFPRIO_DETAIL_JOB_CONCEPT(tres_row)
MFPRIO_DETAIL_JOB_CONCEPT(tres)
MFPRIO_DETAIL_JOB_CONCEPT(partitions)
MFPRIO_DETAIL_JOB_CONCEPT(qos_list)
MFPRIO_DETAIL_JOB_CONCEPT(group)
MFPRIO_DETAIL_JOB_CONCEPT(account)
MFPRIO_DETAIL_JOB_CONCEPT(job_class)
MFPRIO_DETAIL_JOB_CONCEPT(eligible_time)
MFPRIO_DETAIL_JOB_CONCEPT(policy_blocked_time)
MFPRIO_DETAIL_JOB_CONCEPT(blocked_time)
MFPRIO_DETAIL_JOB_CONCEPT(start_time)
MFPRIO_DETAIL_JOB_CONCEPT(wclimit)
MFPRIO_DETAIL_JOB_CONCEPT(procs)
MFPRIO_DETAIL_JOB_CONCEPT(nodes)
MFPRIO_DETAIL_JOB_CONCEPT(mem_mb)
MFPRIO_DETAIL_JOB_CONCEPT(swap_mb)
MFPRIO_DETAIL_JOB_CONCEPT(disk_mb)
MFPRIO_DETAIL_JOB_CONCEPT(bypass)
MFPRIO_DETAIL_JOB_CONCEPT(spviolation)
MFPRIO_DETAIL_JOB_CONCEPT(system_priority)
MFPRIO_DETAIL_JOB_CONCEPT(system_priority_mode)
MFPRIO_DETAIL_JOB_CONCEPT(req)
MFPRIO_DETAIL_JOB_CONCEPT(queue)
MFPRIO_DETAIL_JOB_CONCEPT(bank)
MFPRIO_DETAIL_JOB_CONCEPT(submit_seq)
MFPRIO_DETAIL_JOB_CONCEPT(urgency)
#undef MFPRIO_DETAIL_JOB_CONCEPT

#if (defined(__GNUC__) || defined(__clang__)) && !defined(_MSC_VER)
static_assert(sizeof(job) == 64, "mfprio::job is one 64-byte cache line (see its layout comment)");
#endif

} // namespace mfprio
