#pragma once
/// \file
/// Maui's subfactors (reference B2), each a factor policy over `maui::context`, named as
/// Maui's documentation names them. Every value is Maui 3.3's unless an option of the
/// context (`maui::options`) selects the documented or Moab form.
///
/// Effective queue time (reference B5): a job's queue time counts from its effective queue
/// start, `eligible_time` (submission when 0), moved later by JOBPRIOACCRUALPOLICY:
/// QUEUEPOLICY also to the last time a queue policy blocked the job, FULLPOLICY also to the
/// last time any check failed. Maui does this by setting SystemQueueTime to "now" on every
/// pass where the job is blocked; `policy_blocked_time` and `blocked_time` carry the last
/// such pass. A start in the future gives a queue time of 0.

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include <mfprio/core/exact.hpp>
#include <mfprio/core/job.hpp>
#include <mfprio/maui/context.hpp>
#include <mfprio/maui/model.hpp>

namespace mfprio::maui {

// ---------------------------------------------------------------- job fields by credential

/// The job's credential index of kind `K` (`no_cred` when the job type has no such field).
template <cred_kind K, class J>
[[nodiscard]] constexpr std::uint32_t cred_index(const J& j) noexcept {
    using T = job_traits<J>;
    if constexpr (K == cred_kind::user) {
        if constexpr (has_user<J>) return static_cast<std::uint32_t>(T::user(j));
        else return no_cred;
    } else if constexpr (K == cred_kind::group) {
        if constexpr (has_group<J>) return static_cast<std::uint32_t>(T::group(j));
        else return no_cred;
    } else if constexpr (K == cred_kind::account) {
        if constexpr (has_account<J>) return static_cast<std::uint32_t>(T::account(j));
        else return no_cred;
    } else if constexpr (K == cred_kind::qos) {
        if constexpr (has_qos<J>) return static_cast<std::uint32_t>(T::qos(j));
        else return no_cred;
    } else {
        if constexpr (has_job_class<J>) return static_cast<std::uint32_t>(T::job_class(j));
        else return no_cred;
    }
}

/// True when some credential of kind `k` in the context's table has a non-zero `field`.
template <class T>
[[nodiscard]] constexpr bool any_credential(const context& c, cred_kind k, T credential::*field) noexcept {
    for (const credential& cred : c.creds[index(k)])
        if (cred.*field != T{}) return true;
    return false;
}

/// The job's QOS credential, or nullptr when it has none.
template <class J>
[[nodiscard]] constexpr const credential* qos_of(const J& j, const context& c) noexcept {
    return c.find(cred_kind::qos, cred_index<cred_kind::qos>(j));
}

// ---------------------------------------------------------------- effective queue time

/// Jobs whose queue time Maui can tell: a submission time at least.
template <class J>
concept queued_job = has_submit_time<J>;

/// The effective queue start under the context's JOBPRIOACCRUALPOLICY (see the file comment).
template <queued_job J>
[[nodiscard]] constexpr std::int64_t effective_queue_start(const J& j, const context& c) noexcept {
    using T = job_traits<J>;
    std::int64_t start = static_cast<std::int64_t>(T::submit_time(j));
    if constexpr (has_eligible_time<J>) {
        const auto e = static_cast<std::int64_t>(T::eligible_time(j));
        if (e != 0) start = e;
    }
    if constexpr (has_policy_blocked_time<J>) {
        if (c.opts.accrual != accrual_policy::always)
            start = std::max(start, static_cast<std::int64_t>(T::policy_blocked_time(j)));
    }
    if constexpr (has_blocked_time<J>) {
        if (c.opts.accrual == accrual_policy::fullpolicy)
            start = std::max(start, static_cast<std::int64_t>(T::blocked_time(j)));
    }
    return start;
}

/// Seconds the job has effectively been queued (Maui's EffQueueDuration), at least 0.
template <queued_job J>
[[nodiscard]] constexpr std::int64_t effective_queue_duration(const J& j, const context& c) noexcept {
    return std::max<std::int64_t>(0, c.now - effective_queue_start(j, c));
}

// ---------------------------------------------------------------- SERV

/// QUEUETIME: minutes effectively queued; fractional (Maui) or whole (Moab). A QOS's
/// QTWEIGHT is added to the weight.
struct queuetime {
    static constexpr std::string_view name = "QUEUETIME";
    template <queued_job J>
    [[nodiscard]] constexpr double operator()(const J& j, const context& c) const noexcept {
        const std::int64_t seconds = effective_queue_duration(j, c);
        if (c.opts.queuetime == queuetime_unit::whole_minutes) return static_cast<double>(seconds / 60);
        return static_cast<double>(seconds) / 60.0;
    }
    template <class J>
    [[nodiscard]] constexpr double adjust_weight(double w, const J& j, const context& c) const noexcept {
        const credential* q = qos_of(j, c);
        return q != nullptr ? w + static_cast<double>(q->qt_weight) : w;
    }
    /// Whether some QOS has a QTWEIGHT (only then is any job's weight adjusted).
    [[nodiscard]] constexpr bool adjusts_weight(const context& c) const noexcept {
        return any_credential(c, cred_kind::qos, &credential::qt_weight);
    }
};

/// Jobs with a wallclock limit and a queue time.
template <class J>
concept xfactor_job = queued_job<J> && has_wclimit<J>;

/// The denominator of XFACTOR: max(XFMINWCLIMIT, WCLimit), with Maui's quirk that
/// XFMINWCLIMIT is only read for jobs with a QOS (unless the option turns the quirk off).
template <xfactor_job J>
[[nodiscard]] constexpr double xfactor_denominator(const J& j, const context& c) noexcept {
    const double wclimit = static_cast<double>(job_traits<J>::wclimit(j));
    const bool min_applies = !c.opts.xf_min_wclimit_needs_qos || qos_of(j, c) != nullptr;
    return min_applies ? std::max(c.opts.xf_min_wclimit, wclimit) : wclimit;
}

/// XFACTOR, the expansion factor. Maui 3.3's code: `(queued + WCLimit) / max(XFMINWCLIMIT,
/// WCLimit)` in seconds; the documentation's form (option): `1 + queued / max(...)`. They
/// agree when WCLimit >= XFMINWCLIMIT. A denominator of 0 (no wallclock limit and no
/// XFMINWCLIMIT) makes Maui divide by zero; we give 0 instead. A QOS's XFWEIGHT is added to
/// the weight.
struct xfactor {
    static constexpr std::string_view name = "XFACTOR";
    template <xfactor_job J>
    [[nodiscard]] constexpr double operator()(const J& j, const context& c) const noexcept {
        const double denominator = xfactor_denominator(j, c);
        if (!(denominator > 0)) return 0.0;
        const double queued = static_cast<double>(effective_queue_duration(j, c));
        if (c.opts.xfactor == xfactor_form::doc) return 1.0 + queued / denominator;
        return (queued + static_cast<double>(job_traits<J>::wclimit(j))) / denominator;
    }
    template <class J>
    [[nodiscard]] constexpr double adjust_weight(double w, const J& j, const context& c) const noexcept {
        const credential* q = qos_of(j, c);
        return q != nullptr ? w + static_cast<double>(q->xf_weight) : w;
    }
    /// Whether some QOS has an XFWEIGHT.
    [[nodiscard]] constexpr bool adjusts_weight(const context& c) const noexcept {
        return any_credential(c, cred_kind::qos, &credential::xf_weight);
    }
};

/// SPVIOLATION: 1 when the job violates a soft policy, else 0.
struct spviolation {
    static constexpr std::string_view name = "SPVIOLATION";
    template <class J>
        requires has_spviolation<J>
    [[nodiscard]] constexpr double operator()(const J& j, const context&) const noexcept {
        return job_traits<J>::spviolation(j) ? 1.0 : 0.0;
    }
};

/// BYPASS: the number of times backfill bypassed the job.
struct bypass {
    static constexpr std::string_view name = "BYPASS";
    template <class J>
        requires has_bypass<J>
    [[nodiscard]] constexpr double operator()(const J& j, const context&) const noexcept {
        return static_cast<double>(job_traits<J>::bypass(j));
    }
};

// ---------------------------------------------------------------- TARG

namespace detail {
/// Whether the value z + rest, |rest| at most half the gap between z and its neighbour on
/// rest's side, lies more than 1/64 of that gap away from the midpoint, z being normal and
/// above 2^-970. The gap is ulp(z), or half of it when z is a power of 2 (the gap below: the
/// smaller one, which only makes the test stricter above).
[[nodiscard]] inline bool clear_of_midpoint(double z, double rest) noexcept {
    const std::uint64_t bits = std::bit_cast<std::uint64_t>(z);
    const double power = std::bit_cast<double>(bits & 0x7ff0000000000000u); // 2^exponent
    const bool at_power = (bits & 0x000fffffffffffffu) == 0;
    const double gap = power * (at_power ? 0x1p-53 : 0x1p-52);
    return std::fabs(rest) <= (31.0 / 64.0) * gap;
}

/// 1 / d^2 rounded to the nearest double, and whether that is certainly what the C
/// library's pow(d, -2.0) returns (`sure`; see `core/exact.hpp`). Computed for
/// 2^-20 <= d <= 2^20; elsewhere, NaN included, and wherever MFPRIO_POW_SHORTCUTS is 0,
/// `sure` is false.
///
/// d^2 = H + L exactly (Dekker). q = 1/H rounded, and q H = 1 - r exactly up to the last
/// subtraction's rounding (2^-105: 1 - (q H)'s high part is exact, |r| < 2^-52). Then
/// 1/(H + L) = q (1 + r + ...) (1 - L/H + ...) = q + q (r - L q) + e, with e, the
/// second-order terms (below 3 x 2^-104 q) and the roundings of c (below 3 x 2^-105 q)
/// together under 2^-101 q, which is 2^-48 of the gap between doubles near q (at least
/// 2^-53 q). z = q + c rounded, and its remainder exact (Fast2Sum, |c| < 2^-50 q): the
/// exact value lies within 2^-48 of a gap of z + rest. The gap is ulp(z), or half of it
/// when z is a power of 2 (the gap below; the smaller one, which only makes the test
/// stricter). pow's bound here (|-2 ln d| <= 27.8) is 0.511 + 27.8 x 1.5 x 2^-15 < 0.5123
/// ulp, so z is pow's value wherever the exact value lies more than 0.0123 of a gap from
/// a midpoint; `sure` asks for 1/64 (0.0156).
[[nodiscard]] inline double inverse_square_nearest(double d, bool& sure) noexcept {
    const bool in_range = (d >= 0x1p-20) & (d <= 0x1p20); // false for NaN
    const double x = in_range ? d : 1.0;
    const ::mfprio::detail::dd square = ::mfprio::detail::exact_product(x, x);
    const double q = 1.0 / square.hi;
    const ::mfprio::detail::dd unit = ::mfprio::detail::exact_product(q, square.hi);
    const double r = (1.0 - unit.hi) - unit.lo;
    const double c = q * (r - square.lo * q);
    const double z = q + c;
    const double rest = c - (z - q);
    sure = MFPRIO_POW_SHORTCUTS && (in_range & clear_of_midpoint(z, rest));
    return z;
}

/// pow(d, -2.0) from the C library: `target_power` where its shortcut is unsure.
[[nodiscard]] inline double libm_target_power(double d) noexcept { return std::pow(d, -2.0); }
} // namespace detail

/// `pow(d, -2)`, the power of TARGETXFACTOR and of Maui 3.3's TARGETQUEUETIME: one function
/// for the call operators and the components' block hooks (which call it with the same
/// arguments, or reuse its value for d = 0.0001, the ceiling, computed once per batch).
/// The nearest double to 1/d^2 where that is certainly pow's value (`core/exact.hpp`: all
/// but about 1 in 32 arguments between 2^-20 and 2^20), pow itself elsewhere.
[[nodiscard]] inline double target_power(double d) noexcept {
    bool sure = false;
    const double v = detail::inverse_square_nearest(d, sure);
    return sure ? v : detail::libm_target_power(d);
}
/// `pow(1000, e)`, the power of Moab's TARGETQUEUETIME (exactly 1000 for e = 1).
[[nodiscard]] inline double thousand_power(double e) noexcept { return std::pow(1000.0, e); }

/// TARGETQUEUETIME, for jobs whose QOS has a QTTARGET. Moab's form (default):
/// `1000^min(1, queued / QTTARGET)`, rising from 1 to 1000 at the target. Maui 3.3's
/// (option): `max(0.0001, QTTARGET - EffQTime)^-2` with EffQTime an epoch timestamp, which is
/// always 1e8 (its bug, kept for comparison).
struct target_queuetime {
    static constexpr std::string_view name = "TARGETQUEUETIME";
    template <queued_job J>
    [[nodiscard]] double operator()(const J& j, const context& c) const noexcept {
        const credential* q = qos_of(j, c);
        if (q == nullptr || !(q->qt_target > 0)) return 0.0;
        if (c.opts.target_queuetime == target_queuetime_form::maui33) {
            const double eff_qtime = static_cast<double>(effective_queue_start(j, c));
            return target_power(std::max(0.0001, q->qt_target - eff_qtime));
        }
        const double queued = static_cast<double>(effective_queue_duration(j, c));
        return thousand_power(std::min(1.0, queued / q->qt_target));
    }
};

/// TARGETXFACTOR, for jobs whose QOS has an XFTARGET: `max(0.0001, XFTARGET - XFACTOR)^-2`,
/// which rises to "1e8" as the target is reached and stays there after. That ceiling is
/// `pow(0.0001, -2)`, which in doubles is 99999999.999999985, one step below 1e8 (0.0001 is
/// not exact in binary): a weight of 1 gives 99999999 after truncation, not 100000000.
struct target_xfactor {
    static constexpr std::string_view name = "TARGETXFACTOR";
    template <xfactor_job J>
    [[nodiscard]] double operator()(const J& j, const context& c) const noexcept {
        const credential* q = qos_of(j, c);
        if (q == nullptr || !(q->xf_target > 0)) return 0.0;
        return target_power(std::max(0.0001, q->xf_target - xfactor{}(j, c)));
    }
};

// ---------------------------------------------------------------- CRED

/// USER, GROUP, ACCOUNT, QOS and CLASS: the credential's PRIORITY, as `MJobGetStartPriority`
/// reads it. User, group and account fall back to the DEFAULT credential's priority when
/// their own is 0 or the job has none. QOS has no fallback. CLASS: the class's priority
/// (CLASSCFG PRIORITY, else the resource manager's queue priority, which Maui writes into
/// the class); when that is 0, `MClassGetPrio` looks the job's class up again and succeeds
/// with the same 0 for every job that has a class, so DEFAULT applies only to jobs without
/// one. Negative priorities are legal. A group's CLASSWEIGHT > 0 replaces CLASSWEIGHT for
/// its jobs.
template <cred_kind K>
struct credential_priority {
    static constexpr std::string_view name = subcomponents[index(subcomponent::user) + index(K)].name;
    template <class J>
    [[nodiscard]] constexpr double operator()(const J& j, const context& c) const noexcept {
        return of(c.find(K, cred_index<K>(j)), c);
    }
    /// The value for a job whose credential of kind K is `cred` (nullptr: none).
    [[nodiscard]] static constexpr double of(const credential* cred, const context& c) noexcept {
        std::int64_t p = cred != nullptr ? cred->priority : 0;
        if constexpr (K == cred_kind::qos) return static_cast<double>(p);
        if constexpr (K == cred_kind::job_class) {
            if (cred != nullptr) return static_cast<double>(p != 0 ? p : cred->rm_priority);
        }
        if (p == 0) p = c.default_of(K).priority;
        return static_cast<double>(p);
    }
    template <class J>
        requires(K == cred_kind::job_class)
    [[nodiscard]] constexpr double adjust_weight(double w, const J& j, const context& c) const noexcept {
        return weight_of(c.find(cred_kind::group, cred_index<cred_kind::group>(j)), w);
    }
    /// CLASS's weight `w` adjusted for a job whose group is `g` (nullptr: none).
    [[nodiscard]] static constexpr double weight_of(const credential* g, double w) noexcept
        requires(K == cred_kind::job_class)
    {
        return g != nullptr && g->class_weight > 0 ? static_cast<double>(g->class_weight) : w;
    }
    /// Whether some group has a CLASSWEIGHT > 0 (CLASS alone adjusts its weight).
    [[nodiscard]] constexpr bool adjusts_weight(const context& c) const noexcept {
        if constexpr (K != cred_kind::job_class) return false;
        for (const credential& g : c.creds[index(cred_kind::group)])
            if (g.class_weight > 0) return true;
        return false;
    }
};
using user_priority = credential_priority<cred_kind::user>;
using group_priority = credential_priority<cred_kind::group>;
using account_priority = credential_priority<cred_kind::account>;
using qos_priority = credential_priority<cred_kind::qos>;
using class_priority = credential_priority<cred_kind::job_class>;

// ---------------------------------------------------------------- ATTR

/// ATTRATTR and ATTRSTATE: not implemented in Maui 3.3, always 0.
template <subcomponent S>
struct unimplemented {
    static constexpr std::string_view name = subcomponents[index(S)].name;
    template <class J>
    [[nodiscard]] constexpr double operator()(const J&, const context&) const noexcept { return 0.0; }
};

// ---------------------------------------------------------------- FS

/// The fair-share subfactor of a usage percentage against a target (reference B2): with a
/// target > 0, `target - usage` (or `1 - usage / target` when FSPOLICY ends in '%'); a floor
/// (`+`) keeps only positive values, a ceiling (`-`) only negative ones, the caps (`^`, `%`)
/// give 0 (they limit what may start, not priority); no target gives 0.
[[nodiscard]] constexpr double fs_delta(fs_target target, double usage_percent, bool percent_based) noexcept {
    if (!(target.value > 0)) return 0.0;
    const double delta = percent_based ? 1.0 - usage_percent / target.value : target.value - usage_percent;
    switch (target.mode) {
    case fs_target_mode::target: return delta;
    case fs_target_mode::floor: return std::max(delta, 0.0);
    case fs_target_mode::ceiling: return std::min(delta, 0.0);
    case fs_target_mode::none:
    case fs_target_mode::cap_absolute:
    case fs_target_mode::cap_relative: return 0.0;
    }
    return 0.0;
}

/// FSUSER ... FSCLASS: `fs_delta` of the credential's usage percentage (`credential::fs_usage`,
/// from a fair-share pass) against its FSTARGET, or the DEFAULT credential's target when it
/// has none. 0 for a job without a credential of that kind (`MJobGetStartPriority` leaves
/// the subfactor at 0 then, whatever DEFAULT's target), and 0 when fair-share is off
/// (`context::fs_active`).
template <cred_kind K>
struct fairshare_usage {
    static constexpr std::string_view name = subcomponents[index(subcomponent::fsuser) + index(K)].name;
    template <class J>
    [[nodiscard]] constexpr double operator()(const J& j, const context& c) const noexcept {
        if (!c.fs_active) return 0.0;
        return of(c.find(K, cred_index<K>(j)), c);
    }
    /// The value, with fair-share active, for a job whose credential of kind K is `cred`
    /// (nullptr: none).
    [[nodiscard]] static constexpr double of(const credential* cred, const context& c) noexcept {
        if (cred == nullptr) return 0.0;
        const fs_target target = cred->target.value > 0 ? cred->target : c.default_of(K).target;
        return fs_delta(target, cred->fs_usage, c.opts.fs_percent_based);
    }
};
using fs_user = fairshare_usage<cred_kind::user>;
using fs_group = fairshare_usage<cred_kind::group>;
using fs_account = fairshare_usage<cred_kind::account>;
using fs_qos = fairshare_usage<cred_kind::qos>;
using fs_class = fairshare_usage<cred_kind::job_class>;

// ---------------------------------------------------------------- RES

/// NODE: nodes requested.
struct nodes {
    static constexpr std::string_view name = "NODE";
    template <class J>
        requires has_nodes<J>
    [[nodiscard]] constexpr double operator()(const J& j, const context&) const noexcept {
        return static_cast<double>(job_traits<J>::nodes(j));
    }
};
/// PROC: processors requested.
struct procs {
    static constexpr std::string_view name = "PROC";
    template <class J>
        requires has_procs<J>
    [[nodiscard]] constexpr double operator()(const J& j, const context&) const noexcept {
        return static_cast<double>(job_traits<J>::procs(j));
    }
};
/// MEM: real memory requested, MB.
struct memory {
    static constexpr std::string_view name = "MEM";
    template <class J>
        requires has_mem_mb<J>
    [[nodiscard]] constexpr double operator()(const J& j, const context&) const noexcept {
        return static_cast<double>(job_traits<J>::mem_mb(j));
    }
};
/// SWAP: virtual memory requested, MB.
struct swap {
    static constexpr std::string_view name = "SWAP";
    template <class J>
        requires has_swap_mb<J>
    [[nodiscard]] constexpr double operator()(const J& j, const context&) const noexcept {
        return static_cast<double>(job_traits<J>::swap_mb(j));
    }
};
/// DISK: local disk requested, MB.
struct disk {
    static constexpr std::string_view name = "DISK";
    template <class J>
        requires has_disk_mb<J>
    [[nodiscard]] constexpr double operator()(const J& j, const context&) const noexcept {
        return static_cast<double>(job_traits<J>::disk_mb(j));
    }
};
/// PS: processor-seconds requested, procs x WCLimit.
struct proc_seconds {
    static constexpr std::string_view name = "PS";
    template <class J>
        requires has_procs<J> && has_wclimit<J>
    [[nodiscard]] constexpr double operator()(const J& j, const context&) const noexcept {
        return static_cast<double>(job_traits<J>::procs(j)) * static_cast<double>(job_traits<J>::wclimit(j));
    }
};

/// Processor equivalents of a request (reference B2): `TotalProcs x max(procs / TotalProcs,
/// mem / TotalMem, disk / TotalDisk, swap / TotalSwap)`, counting only the resources the job
/// requests and the cluster has. The documentation's example: 25% of the processors and 50%
/// of the memory of a 128-processor machine is 64 PE. This is `MJobGetPE` for a job of one
/// requirement of one task.
template <class J>
    requires has_procs<J>
[[nodiscard]] constexpr double processor_equivalents(const J& j, const resources& cluster) noexcept {
    using T = job_traits<J>;
    if (!(cluster.procs > 0)) return 0.0;
    double share = static_cast<double>(T::procs(j)) / cluster.procs;
    const auto consider = [&share](double requested, double total) noexcept {
        if (requested > 0 && total > 0) share = std::max(share, requested / total);
    };
    if constexpr (has_mem_mb<J>) consider(static_cast<double>(T::mem_mb(j)), cluster.mem);
    if constexpr (has_disk_mb<J>) consider(static_cast<double>(T::disk_mb(j)), cluster.disk);
    if constexpr (has_swap_mb<J>) consider(static_cast<double>(T::swap_mb(j)), cluster.swap);
    return cluster.procs * share;
}

/// `MJobGetPE` over a requirement list starting at `first` (ending at the entry marked
/// `last`, or at the end of the span): `TotalProcs x sum of tasks x max(per-task procs /
/// TotalProcs, per-task mem / TotalMem, disk, swap)`, the sum taken in list order.
[[nodiscard]] constexpr double processor_equivalents(std::span<const requirement> reqs, std::size_t first,
                                                     const resources& cluster) noexcept {
    if (!(cluster.procs > 0)) return 0.0;
    double total = 0.0;
    for (std::size_t i = first; i < reqs.size(); ++i) {
        const requirement& r = reqs[i];
        double pe = static_cast<double>(r.procs) / cluster.procs;
        if (r.mem_mb > 0 && cluster.mem > 0) pe = std::max(pe, static_cast<double>(r.mem_mb) / cluster.mem);
        if (r.disk_mb > 0 && cluster.disk > 0) pe = std::max(pe, static_cast<double>(r.disk_mb) / cluster.disk);
        if (r.swap_mb > 0 && cluster.swap > 0) pe = std::max(pe, static_cast<double>(r.swap_mb) / cluster.swap);
        total += static_cast<double>(r.tasks) * pe;
        if (r.last) break;
    }
    return total * cluster.procs;
}

/// Whether job `j` carries a requirement list in `c` (`job::req`).
template <class J>
[[nodiscard]] constexpr bool has_requirement_list(const J& j, const context& c) noexcept {
    if constexpr (has_req<J>) {
        const auto r = static_cast<std::size_t>(job_traits<J>::req(j));
        return r != 0 && r <= c.requirements.size();
    } else {
        return false;
    }
}

/// The job's processor equivalents in context `c`: over its requirement list when it has
/// one, else from its totals.
template <class J>
    requires has_procs<J>
[[nodiscard]] constexpr double processor_equivalents(const J& j, const context& c) noexcept {
    if constexpr (has_req<J>) {
        if (has_requirement_list(j, c))
            return processor_equivalents(c.requirements, static_cast<std::size_t>(job_traits<J>::req(j)) - 1,
                                         c.cluster);
    }
    return processor_equivalents(j, c.cluster);
}

/// PE: processor equivalents requested (`processor_equivalents`).
struct processor_equivalent {
    static constexpr std::string_view name = "PE";
    template <class J>
        requires has_procs<J>
    [[nodiscard]] constexpr double operator()(const J& j, const context& c) const noexcept {
        return processor_equivalents(j, c);
    }
};
/// WALLTIME: the wallclock limit, seconds.
struct walltime {
    static constexpr std::string_view name = "WALLTIME";
    template <class J>
        requires has_wclimit<J>
    [[nodiscard]] constexpr double operator()(const J& j, const context&) const noexcept {
        return static_cast<double>(job_traits<J>::wclimit(j));
    }
};
/// UPROC: processors of the user's running jobs (`context::user_active_procs`).
struct user_procs {
    static constexpr std::string_view name = "UPROC";
    template <class J>
        requires has_user<J>
    [[nodiscard]] constexpr double operator()(const J& j, const context& c) const noexcept {
        const auto u = static_cast<std::size_t>(job_traits<J>::user(j));
        return u < c.user_active_procs.size() ? static_cast<double>(c.user_active_procs[u]) : 0.0;
    }
};
/// UJOB: the user's running jobs (`context::user_active_jobs`).
struct user_jobs {
    static constexpr std::string_view name = "UJOB";
    template <class J>
        requires has_user<J>
    [[nodiscard]] constexpr double operator()(const J& j, const context& c) const noexcept {
        const auto u = static_cast<std::size_t>(job_traits<J>::user(j));
        return u < c.user_active_jobs.size() ? static_cast<double>(c.user_active_jobs[u]) : 0.0;
    }
};

// ---------------------------------------------------------------- USAGE (running jobs)

/// Jobs that can be running: a start time (0 = not running).
template <class J>
concept usage_job = has_start_time<J> && has_procs<J> && has_wclimit<J>;

/// Seconds a running job has run (0 for a job that has not started).
template <usage_job J>
[[nodiscard]] constexpr std::int64_t run_seconds(const J& j, const context& c) noexcept {
    const auto start = static_cast<std::int64_t>(job_traits<J>::start_time(j));
    if (start == 0) return 0;
    return std::max<std::int64_t>(0, c.now - start);
}
/// Seconds of its limit a running job has left (may be negative past the limit), 0 if not started.
template <usage_job J>
[[nodiscard]] constexpr double remaining_seconds(const J& j, const context& c) noexcept {
    if (job_traits<J>::start_time(j) == 0) return 0.0;
    return static_cast<double>(job_traits<J>::wclimit(j)) - static_cast<double>(run_seconds(j, c));
}

/// CONSUMED: processor-seconds used so far, procs x seconds run.
struct consumed {
    static constexpr std::string_view name = "CONSUMED";
    template <usage_job J>
    [[nodiscard]] constexpr double operator()(const J& j, const context& c) const noexcept {
        return static_cast<double>(job_traits<J>::procs(j)) * static_cast<double>(run_seconds(j, c));
    }
};
/// EXECUTIONTIME: seconds since start in Moab (option); Maui 3.3 comments it out, so 0.
struct execution_time {
    static constexpr std::string_view name = "EXECUTIONTIME";
    template <usage_job J>
    [[nodiscard]] constexpr double operator()(const J& j, const context& c) const noexcept {
        return c.opts.usage_executiontime ? static_cast<double>(run_seconds(j, c)) : 0.0;
    }
};
/// REMAINING: processor-seconds still to run, procs x (WCLimit - seconds run).
struct remaining {
    static constexpr std::string_view name = "REMAINING";
    template <usage_job J>
    [[nodiscard]] constexpr double operator()(const J& j, const context& c) const noexcept {
        return static_cast<double>(job_traits<J>::procs(j)) * remaining_seconds(j, c);
    }
};
/// PERCENT: as Maui's code computes it, `seconds run x 100 / max(1, WCLimit - seconds run)`:
/// elapsed over *remaining* in percent, not elapsed over the limit as the documentation says.
struct percent {
    static constexpr std::string_view name = "PERCENT";
    template <usage_job J>
    [[nodiscard]] constexpr double operator()(const J& j, const context& c) const noexcept {
        if (job_traits<J>::start_time(j) == 0) return 0.0;
        return static_cast<double>(run_seconds(j, c)) * 100.0 / std::max(1.0, remaining_seconds(j, c));
    }
};

} // namespace mfprio::maui
