#pragma once
/// \file
/// Maui's prioritization model as data: the components and subcomponents (reference B1, in
/// Maui's enum order, which is also the order of addition), the credentials with their
/// priorities and fair-share targets, the weights and caps, and the options that choose
/// between Maui 3.3's code, its documentation, and Moab's later formulas.
///
/// Everything here is plain data with defaults taken from Maui 3.3's code (reference B4.6),
/// not from its documentation, which disagrees in places (B4.7).

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <mfprio/core/component.hpp>

namespace mfprio::maui {

/// Which of the seven components, in Maui's order (`mpcServ` ... `mpcUsage`); the component
/// types themselves are in maui/components.hpp.
enum class component_id : std::uint8_t { serv, targ, cred, attr, fs, res, usage };
inline constexpr std::size_t component_count = 7;

/// Every subcomponent, grouped by component in Maui's order.
enum class subcomponent : std::uint8_t {
    // SERV
    queuetime, xfactor, spviolation, bypass,
    // TARG
    targetqueuetime, targetxfactor,
    // CRED
    user, group, account, qos, job_class,
    // ATTR (not implemented in Maui 3.3: always 0)
    attrattr, attrstate,
    // FS
    fsuser, fsgroup, fsaccount, fsqos, fsclass,
    // RES
    node, proc, mem, swap, disk, ps, pe, walltime, uproc, ujob,
    // USAGE (running jobs only)
    consumed, executiontime, remaining, percent,
};
inline constexpr std::size_t subcomponent_count = 32;

/// Names and configuration keys of a component.
struct component_info {
    std::string_view name;       ///< as `diagnose -p` heads its column: "Serv", "Cred"...
    std::string_view weight_key; ///< maui.cfg weight parameter: SERVICEWEIGHT...
    std::string_view cap_key;    ///< maui.cfg cap parameter: SERVICECAP...
    subcomponent first;          ///< its first subcomponent
    std::size_t count;           ///< how many subcomponents it has
};

inline constexpr std::array<component_info, component_count> components{{
    {"Serv", "SERVICEWEIGHT", "SERVICECAP", subcomponent::queuetime, 4},
    {"Targ", "TARGETWEIGHT", "TARGETCAP", subcomponent::targetqueuetime, 2},
    {"Cred", "CREDWEIGHT", "CREDCAP", subcomponent::user, 5},
    {"Attr", "ATTRWEIGHT", "ATTRCAP", subcomponent::attrattr, 2},
    {"FS", "FSWEIGHT", "FSCAP", subcomponent::fsuser, 5},
    {"Res", "RESWEIGHT", "RESCAP", subcomponent::node, 10},
    {"Usage", "USAGEWEIGHT", "USAGECAP", subcomponent::consumed, 4},
}};

/// Names and configuration keys of a subcomponent.
struct subcomponent_info {
    std::string_view name;       ///< upper-case name as in Maui's docs: QUEUETIME...
    std::string_view weight_key; ///< maui.cfg weight parameter: QUEUETIMEWEIGHT...
    std::string_view cap_key;    ///< maui.cfg cap parameter: QUEUETIMECAP...
    component_id parent;         ///< the component it belongs to
};

inline constexpr std::array<subcomponent_info, subcomponent_count> subcomponents{{
    {"QUEUETIME", "QUEUETIMEWEIGHT", "QUEUETIMECAP", component_id::serv},
    {"XFACTOR", "XFACTORWEIGHT", "XFACTORCAP", component_id::serv},
    {"SPVIOLATION", "SPVIOLATIONWEIGHT", "SPVIOLATIONCAP", component_id::serv},
    {"BYPASS", "BYPASSWEIGHT", "BYPASSCAP", component_id::serv},
    {"TARGETQUEUETIME", "TARGETQUEUETIMEWEIGHT", "TARGETQUEUETIMECAP", component_id::targ},
    {"TARGETXFACTOR", "TARGETXFACTORWEIGHT", "TARGETXFACTORCAP", component_id::targ},
    {"USER", "USERWEIGHT", "USERCAP", component_id::cred},
    {"GROUP", "GROUPWEIGHT", "GROUPCAP", component_id::cred},
    {"ACCOUNT", "ACCOUNTWEIGHT", "ACCOUNTCAP", component_id::cred},
    {"QOS", "QOSWEIGHT", "QOSCAP", component_id::cred},
    {"CLASS", "CLASSWEIGHT", "CLASSCAP", component_id::cred},
    {"ATTRATTR", "ATTRATTRWEIGHT", "ATTRATTRCAP", component_id::attr},
    {"ATTRSTATE", "ATTRSTATEWEIGHT", "ATTRSTATECAP", component_id::attr},
    {"FSUSER", "FSUSERWEIGHT", "FSUSERCAP", component_id::fs},
    {"FSGROUP", "FSGROUPWEIGHT", "FSGROUPCAP", component_id::fs},
    {"FSACCOUNT", "FSACCOUNTWEIGHT", "FSACCOUNTCAP", component_id::fs},
    {"FSQOS", "FSQOSWEIGHT", "FSQOSCAP", component_id::fs},
    {"FSCLASS", "FSCLASSWEIGHT", "FSCLASSCAP", component_id::fs},
    {"NODE", "NODEWEIGHT", "NODECAP", component_id::res},
    {"PROC", "PROCWEIGHT", "PROCCAP", component_id::res},
    {"MEM", "MEMWEIGHT", "MEMCAP", component_id::res},
    {"SWAP", "SWAPWEIGHT", "SWAPCAP", component_id::res},
    {"DISK", "DISKWEIGHT", "DISKCAP", component_id::res},
    {"PS", "PSWEIGHT", "PSCAP", component_id::res},
    {"PE", "PEWEIGHT", "PECAP", component_id::res},
    {"WALLTIME", "WALLTIMEWEIGHT", "WALLTIMECAP", component_id::res},
    {"UPROC", "UPROCWEIGHT", "UPROCCAP", component_id::res},
    {"UJOB", "UJOBWEIGHT", "UJOBCAP", component_id::res},
    {"CONSUMED", "CONSUMEDWEIGHT", "CONSUMEDCAP", component_id::usage},
    {"EXECUTIONTIME", "EXECUTIONTIMEWEIGHT", "EXECUTIONTIMECAP", component_id::usage},
    {"REMAINING", "REMAININGWEIGHT", "REMAININGCAP", component_id::usage},
    {"PERCENT", "PERCENTWEIGHT", "PERCENTCAP", component_id::usage},
}};

[[nodiscard]] constexpr std::size_t index(component_id c) noexcept { return static_cast<std::size_t>(c); }
[[nodiscard]] constexpr std::size_t index(subcomponent s) noexcept { return static_cast<std::size_t>(s); }

/// Component and subcomponent weights (signed, like Maui's `long`) and caps (a cap <= 0 means
/// none). The defaults are Maui 3.3's code: every component weight 1, every subcomponent
/// weight 0 except QUEUETIME 1, no caps; so a job's priority is its minutes in the queue.
struct weights {
    std::array<std::int64_t, component_count> component_weight{1, 1, 1, 1, 1, 1, 1};
    std::array<std::int64_t, subcomponent_count> sub_weight{1}; // QUEUETIME 1, the rest 0
    std::array<double, component_count> component_cap{};
    std::array<double, subcomponent_count> sub_cap{};

    [[nodiscard]] constexpr std::int64_t& operator[](component_id c) noexcept { return component_weight[index(c)]; }
    [[nodiscard]] constexpr std::int64_t operator[](component_id c) const noexcept { return component_weight[index(c)]; }
    [[nodiscard]] constexpr std::int64_t& operator[](subcomponent s) noexcept { return sub_weight[index(s)]; }
    [[nodiscard]] constexpr std::int64_t operator[](subcomponent s) const noexcept { return sub_weight[index(s)]; }
};

/// The five credential kinds that carry priorities and fair-share targets.
enum class cred_kind : std::uint8_t { user, group, account, qos, job_class };
inline constexpr std::size_t cred_kind_count = 5;
[[nodiscard]] constexpr std::size_t index(cred_kind k) noexcept { return static_cast<std::size_t>(k); }
/// The `*CFG` parameter of each kind, in `cred_kind` order.
inline constexpr std::array<std::string_view, cred_kind_count> cred_cfg_keys{
    "USERCFG", "GROUPCFG", "ACCOUNTCFG", "QOSCFG", "CLASSCFG"};
/// A readable label of each kind, in `cred_kind` order (Maui's FS files spell them
/// `user group acct qos class`: `config::maui_fs_type_names`, which also accepts these).
inline constexpr std::array<std::string_view, cred_kind_count> cred_labels{"User", "Group", "Account", "QOS",
                                                                            "Class"};

/// Sentinel credential index: the job has no credential of that kind.
inline constexpr std::uint32_t no_cred = 0xffffffffu;

/// How a fair-share target acts (the suffix of FSTARGET's value).
enum class fs_target_mode : std::uint8_t {
    none,         ///< no target: the subcomponent is 0
    target,       ///< `25`: both directions
    floor,        ///< `25+`: only raises priority (usage below the target)
    ceiling,      ///< `25-`: only lowers priority (usage above the target)
    cap_absolute, ///< `25^`: a feasibility limit, no priority effect
    cap_relative, ///< `25%`: a feasibility limit, no priority effect
};

/// A fair-share target: a percentage of delivered usage and how it acts.
struct fs_target {
    double value = 0;                           ///< percent; <= 0 means "not set"
    fs_target_mode mode = fs_target_mode::none; ///< from the suffix
    friend constexpr bool operator==(const fs_target&, const fs_target&) = default;
};

/// One credential (a `USERCFG[name]` ... `CLASSCFG[name]` line, or a name only seen in jobs).
/// Fields that belong to one kind are ignored for the others.
struct credential {
    std::int64_t priority = 0;   ///< PRIORITY (0 = not set: the DEFAULT credential's applies)
    fs_target target{};          ///< FSTARGET (not set: the DEFAULT credential's applies)
    double fs_usage = 0;         ///< fair-share usage in percent of delivered usage (filled by a fair-share pass)
    // QOS only
    std::int64_t qt_weight = 0;  ///< QTWEIGHT: added to QUEUETIMEWEIGHT for jobs of this QOS
    std::int64_t xf_weight = 0;  ///< XFWEIGHT: added to XFACTORWEIGHT
    double qt_target = 0;        ///< QTTARGET in seconds (0 = none)
    double xf_target = 0;        ///< XFTARGET (0 = none)
    // GROUP only
    std::int64_t class_weight = 0; ///< CLASSWEIGHT: replaces CLASSWEIGHT for jobs of this group when > 0
    // CLASS only
    std::int64_t rm_priority = 0;  ///< the resource manager's queue priority (PBS queue priority)
};

/// XFACTOR's formula (reference B2).
enum class xfactor_form : std::uint8_t {
    code, ///< Maui 3.3's code: (queued + WCLimit) / max(XFMINWCLIMIT, WCLimit)
    doc,  ///< the documentation: 1 + queued / max(XFMINWCLIMIT, WCLimit)
};

/// TARGETQUEUETIME's formula (reference B2).
enum class target_queuetime_form : std::uint8_t {
    maui33, ///< Maui 3.3's code: (max(0.0001, QTTARGET - EffQTime))^-2 with EffQTime an epoch time (almost always 1e8)
    moab,   ///< Moab's working form: 1000^min(1, queued / QTTARGET)
};

/// How QUEUETIME counts minutes.
enum class queuetime_unit : std::uint8_t {
    fractional_minutes, ///< Maui: seconds / 60.0
    whole_minutes,      ///< Moab: integer minutes
};

/// How caps act: Maui's one-sided `min(x, cap)` or Moab's symmetric `clamp(x, -cap, cap)`.
using mfprio::cap_style;

/// JOBPRIOACCRUALPOLICY: when a job's queue time starts counting (reference B5).
enum class accrual_policy : std::uint8_t {
    always,      ///< from submission (or eligibility, or hold release)
    queuepolicy, ///< and not while an idle, active or system queue policy blocks it (default)
    fullpolicy,  ///< and not while any check fails (hold, dependency, FS cap, policies...)
};

/// FSPOLICY's metric (reference B3).
enum class fs_metric : std::uint8_t {
    none,         ///< no fair-share: the FS component is 0
    dedicated_ps, ///< dedicated processor-seconds (DEDICATEDPS; FSPOLICY TRUE)
    dedicated_pes,///< dedicated processor-equivalent-seconds (DEDICATEDPES)
    utilized_ps,  ///< utilized processor-seconds (UTILIZEDPS, from CPU load)
};

/// Everything besides weights and credentials that changes a number.
struct options {
    double xf_min_wclimit = 120;        ///< XFMINWCLIMIT in seconds (code default 120)
    bool xf_min_wclimit_needs_qos = true; ///< Maui quirk: XFMINWCLIMIT is only applied to jobs with a QOS
    xfactor_form xfactor = xfactor_form::code;
    target_queuetime_form target_queuetime = target_queuetime_form::maui33;
    queuetime_unit queuetime = queuetime_unit::fractional_minutes;
    cap_style caps = cap_style::upper;
    accrual_policy accrual = accrual_policy::queuepolicy;
    fs_metric fs_policy = fs_metric::none;
    bool fs_percent_based = false;      ///< FSPOLICY ending in '%': SF = 1 - usage/target
    bool reject_negative = false;       ///< REJECTNEGPRIOJOBS: negatives kept, such jobs do not start
    bool enable_negative = false;       ///< ENABLENEGJOBPRIORITY: negatives kept, jobs can run
    bool usage_in_start_priority = false; ///< Moab: the USAGE component counts in the start priority
    bool usage_executiontime = false;   ///< Moab: EXECUTIONTIME is seconds since start (Maui 3.3 comments it out: 0)
    /// Moab: UPROC and UJOB are weighted. Maui 3.3 computes them, but `MJobGetStartPriority`'s
    /// weighted RES loop runs from NODE to WALLTIME in its enum order, which puts UPROC and
    /// UJOB after WALLTIME: their weights have no effect.
    bool res_user_terms = false;
    double max_priority = 1e9;          ///< MAX_PRIO_VAL, the upper clamp
    std::int64_t preempt_prio_margin = 0; ///< added to running jobs' run priority
};

/// Fair-share window configuration (reference B3).
struct fs_config {
    std::int64_t interval = 43200; ///< FSINTERVAL in seconds (code default 12 hours)
    std::size_t depth = 8;         ///< FSDEPTH windows (code default 8, at most 24)
    double decay = 1.0;            ///< FSDECAY per window (code default 1.0)
};
inline constexpr std::size_t max_fs_depth = 24; ///< MAX_MFSDEPTH in Maui 3.3's source

/// The cluster's configured resources, for PE and the RES terms (0 = not configured).
struct resources {
    double procs = 0; ///< total processors
    double mem = 0;   ///< total real memory, MB
    double swap = 0;  ///< total swap, MB
    double disk = 0;  ///< total local disk, MB
};

/// How a system priority (`setspri`) is set on a job. Maui 3.3 stores one number,
/// `SystemPrio`: N for `setspri N`, 2e9 + N for `setspri -r N`, and applies it only when it
/// is > 0 (`MJobGetStartPriority`): so `setspri 0` is no system priority at all.
enum class system_priority_kind : std::uint8_t {
    none,     ///< not set
    absolute, ///< `setspri N` (1..1000): priority = 1e9 + N, above every computed priority; N = 0: none
    relative, ///< `setspri -r N`: N added after the 1e9 ceiling
};

/// One requirement of a job with several (Maui's `mreq_t`): `tasks` tasks, each with the
/// per-task amounts below, on `nodes` nodes. The RES subfactors sum over a job's
/// requirements (NODE += nodes, PROC += tasks x procs...), and PE is
/// `TotalProcs x sum of tasks x max(procs / TotalProcs, mem / TotalMem, ...)` over them
/// (`MJobGetPE`), which is not the PE of the summed request.
struct requirement {
    std::uint32_t tasks = 1;  ///< task count
    std::uint32_t nodes = 0;  ///< node count
    std::uint32_t procs = 1;  ///< processors per task
    std::uint32_t mem_mb = 0; ///< real memory per task, MB
    std::uint32_t swap_mb = 0; ///< virtual memory per task, MB
    std::uint32_t disk_mb = 0; ///< local disk per task, MB
    bool last = true;          ///< the job's last requirement
};

} // namespace mfprio::maui
