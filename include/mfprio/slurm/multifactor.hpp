#pragma once
/// \file
/// Slurm's priority/multifactor as an mfprio engine: the six integer-weighted factors, the
/// TRES sum, the site factor and nice, added in Slurm's order; the per-(partition, QOS)
/// priority arrays of multi-partition and multi-QOS jobs (with Slurm's QOS fallback quirk);
/// INCR_ONLY for the periodic path.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

#include <mfprio/core/assert.hpp>
#include <mfprio/core/engine.hpp>
#include <mfprio/core/job.hpp>
#include <mfprio/core/result.hpp>
#include <mfprio/core/term.hpp>
#include <mfprio/core/weight.hpp>
#include <mfprio/slurm/age.hpp>
#include <mfprio/slurm/association.hpp>
#include <mfprio/slurm/context.hpp>
#include <mfprio/slurm/fairshare.hpp>
#include <mfprio/slurm/flags.hpp>
#include <mfprio/slurm/job_size.hpp>
#include <mfprio/slurm/nice.hpp>
#include <mfprio/slurm/partition.hpp>
#include <mfprio/slurm/qos.hpp>
#include <mfprio/slurm/release.hpp>
#include <mfprio/slurm/site.hpp>
#include <mfprio/slurm/tres.hpp>

namespace mfprio::slurm {

/// The six PriorityWeight* parameters (uint32, default 0).
struct weights {
    std::uint32_t age = 0;       ///< PriorityWeightAge
    std::uint32_t assoc = 0;     ///< PriorityWeightAssoc
    std::uint32_t fairshare = 0; ///< PriorityWeightFairshare
    std::uint32_t job_size = 0;  ///< PriorityWeightJobSize
    std::uint32_t partition = 0; ///< PriorityWeightPartition
    std::uint32_t qos = 0;       ///< PriorityWeightQOS

    /// Slurm's configuration check: the six weights must not add up to more than 2^32-1
    /// ("PriorityWeight values too high"); TRES weights are not part of the check.
    [[nodiscard]] constexpr std::uint64_t sum() const noexcept {
        return std::uint64_t{age} + assoc + fairshare + job_size + partition + qos;
    }
    [[nodiscard]] constexpr bool overflows() const noexcept { return sum() > 0xffffffffull; }
};

/// Everything besides the weights that shapes the factors.
struct settings {
    std::uint32_t max_age = 604800; ///< PriorityMaxAge, seconds
    bool favor_small = false;       ///< PriorityFavorSmall
    priority_flags flags{};         ///< PriorityFlags
    /// The Slurm release whose formulas to follow, as major*100+minor (2205 for 22.05); 0 is
    /// the newest. It changes the job size factor favouring small jobs before 23.02.
    int slurm_release = 0;
    tres_factor tres{};             ///< PriorityWeightTRES, already resolved to TRES ids
};

/// The terms in Slurm's order of addition, for any weight types.
template <class WAge, class WAssoc, class WFs, class WJs, class WPart, class WQos>
using basic_multifactor_engine = engine<slurm_result,
    term<age_factor, WAge>, term<association_factor, WAssoc>, term<fairshare_factor, WFs>,
    term<job_size_factor, WJs>, term<partition_factor, WPart>, term<qos_factor, WQos>,
    term<tres_factor, fixed_weight<1u>>, term<site_factor, fixed_weight<1u>>,
    term<nice_factor, fixed_weight<1u>>>;

/// Slurm's engine with weights read at run time (slurm.conf).
using multifactor_engine = basic_multifactor_engine<runtime_weight<std::uint32_t>, runtime_weight<std::uint32_t>,
    runtime_weight<std::uint32_t>, runtime_weight<std::uint32_t>, runtime_weight<std::uint32_t>,
    runtime_weight<std::uint32_t>>;

/// Slurm's engine with weights fixed at compile time.
template <std::uint32_t Age, std::uint32_t Assoc, std::uint32_t Fs, std::uint32_t Js, std::uint32_t Part, std::uint32_t Qos>
using fixed_multifactor_engine = basic_multifactor_engine<fixed_weight<Age>, fixed_weight<Assoc>, fixed_weight<Fs>,
    fixed_weight<Js>, fixed_weight<Part>, fixed_weight<Qos>>;

namespace detail {
template <class WAge, class WAssoc, class WFs, class WJs, class WPart, class WQos>
constexpr basic_multifactor_engine<WAge, WAssoc, WFs, WJs, WPart, WQos>
build_multifactor(const settings& s, WAge age, WAssoc assoc, WFs fs, WJs js, WPart part, WQos qos) {
    tres_factor tres = s.tres;
    tres.normalize = !s.flags.has(priority_flag::no_normal_tres);
    return basic_multifactor_engine<WAge, WAssoc, WFs, WJs, WPart, WQos>(
        term<age_factor, WAge>{age_factor{s.max_age}, age},
        term<association_factor, WAssoc>{association_factor{!s.flags.has(priority_flag::no_normal_assoc)}, assoc},
        term<fairshare_factor, WFs>{fairshare_factor{}, fs},
        term<job_size_factor, WJs>{job_size_factor{s.favor_small, s.flags.has(priority_flag::small_relative_to_time),
                                                   !has(s.slurm_release, release_change::favor_small_node_test)}, js},
        term<partition_factor, WPart>{partition_factor{!s.flags.has(priority_flag::no_normal_part)}, part},
        term<qos_factor, WQos>{qos_factor{!s.flags.has(priority_flag::no_normal_qos)}, qos},
        term<tres_factor, fixed_weight<1u>>{tres, {}},
        term<site_factor, fixed_weight<1u>>{},
        term<nice_factor, fixed_weight<1u>>{});
}
} // namespace detail

/// Slurm's engine from runtime weights and settings.
[[nodiscard]] constexpr multifactor_engine make_multifactor(const weights& w, const settings& s = {}) {
    using rw = runtime_weight<std::uint32_t>;
    return detail::build_multifactor(s, rw{w.age}, rw{w.assoc}, rw{w.fairshare}, rw{w.job_size},
                                     rw{w.partition}, rw{w.qos});
}

/// Slurm's engine with compile-time weights: `make_fixed_multifactor<1000, 0, 10000, 1000, 1000, 0>(s)`.
template <std::uint32_t Age, std::uint32_t Assoc, std::uint32_t Fs, std::uint32_t Js, std::uint32_t Part, std::uint32_t Qos>
[[nodiscard]] constexpr fixed_multifactor_engine<Age, Assoc, Fs, Js, Part, Qos> make_fixed_multifactor(const settings& s = {}) {
    return detail::build_multifactor(s, fixed_weight<Age>{}, fixed_weight<Assoc>{}, fixed_weight<Fs>{},
                                     fixed_weight<Js>{}, fixed_weight<Part>{}, fixed_weight<Qos>{});
}

/// The weighted factors of one (partition, QOS) entry of a job, as sprio shows them.
struct weighted_factors {
    std::uint32_t partition = 0; ///< partition index of the entry
    std::uint32_t qos = 0;       ///< QOS index of the entry
    double age = 0, assoc = 0, fairshare = 0, job_size = 0, part = 0, qos_term = 0, tres = 0;
    double site = 0; ///< site factor (unweighted)
    double nice = 0; ///< the job's nice value (subtracted)

    /// Slurm's scalar order: age + assoc + fs + js + part + qos + tres + site - nice. sprio
    /// adds its rows up this way (client side, floor 1, no upper clamp).
    [[nodiscard]] constexpr double scalar_sum() const noexcept {
        return age + assoc + fairshare + job_size + part + qos_term + tres + site - nice;
    }
    /// Slurm's priority-array order: part + (age + assoc + fs + js + qos + tres + site - nice).
    [[nodiscard]] constexpr double array_sum() const noexcept {
        return part + (age + assoc + fairshare + job_size + qos_term + tres + site - nice);
    }
};

/// True for engines that hold every Slurm factor (the ones `priority_array` and
/// `breakdown` work on).
template <class E>
concept slurm_engine = requires(const E& e) {
    e.template term_of<age_factor>();
    e.template term_of<association_factor>();
    e.template term_of<fairshare_factor>();
    e.template term_of<job_size_factor>();
    e.template term_of<partition_factor>();
    e.template term_of<qos_factor>();
    e.template term_of<tres_factor>();
};

/// The partition and QOS lists of a multi-partition or multi-QOS job, in the order Slurm
/// keeps them: partitions by PriorityTier, descending (the job's own order among equal
/// tiers), QOS by QOS Priority, descending. An empty list means the job's own `partition`
/// (`qos`) alone. `mfprio::job` does not carry them (a pass over all jobs never reads them):
/// the functions that do (`priority_array`, `build_queue`, sprio's rows) take them beside the
/// job, or read them from a job type that has `partitions` and `qos_list` members.
struct job_lists {
    std::span<const std::uint32_t> partitions{};
    std::span<const std::uint32_t> qos{};
};

/// The partition list of a multi-partition job whose type carries one (`partitions`); empty
/// otherwise, and for a single-partition job, whose partition is `partition`.
template <class J>
[[nodiscard]] constexpr std::span<const std::uint32_t> job_partitions(const J& j) noexcept {
    if constexpr (has_partitions<J>) {
        const auto list = job_traits<J>::partitions(j);
        if (!list.empty()) return {list.data(), list.size()};
    }
    return {};
}

/// The QOS list of a multi-QOS job whose type carries one (`qos_list`); empty otherwise.
template <class J>
[[nodiscard]] constexpr std::span<const std::uint32_t> job_qos_list(const J& j) noexcept {
    if constexpr (has_qos_list<J>) {
        const auto list = job_traits<J>::qos_list(j);
        if (!list.empty()) return {list.data(), list.size()};
    }
    return {};
}

/// The lists a job type carries itself (both empty for `mfprio::job`).
template <class J>
[[nodiscard]] constexpr job_lists lists_of(const J& j) noexcept {
    return {job_partitions(j), job_qos_list(j)};
}

/// Sorts partition indices by PriorityTier, descending, keeping the given order among equal
/// tiers (Slurm sorts a multi-partition job's list this way).
inline void sort_by_tier(std::span<std::uint32_t> parts, const context& c) {
    std::stable_sort(parts.begin(), parts.end(), [&](std::uint32_t a, std::uint32_t b) {
        const auto* pa = c.partition(a);
        const auto* pb = c.partition(b);
        return (pa ? pa->priority_tier : 0u) > (pb ? pb->priority_tier : 0u);
    });
}

/// Sorts QOS indices by QOS Priority, descending, keeping the given order among equals.
inline void sort_by_qos_priority(std::span<std::uint32_t> qos, const context& c) {
    std::stable_sort(qos.begin(), qos.end(), [&](std::uint32_t a, std::uint32_t b) {
        const auto* qa = c.qos_at(a);
        const auto* qb = c.qos_at(b);
        return (qa ? qa->priority : 0u) > (qb ? qb->priority : 0u);
    });
}

/// Number of priority-array entries of a job with lists `l`: #partitions x #QOS, or
/// whichever list exists; 0 for a single-partition, single-QOS job (Slurm keeps no array).
[[nodiscard]] constexpr std::size_t priority_array_size(const job_lists& l) noexcept {
    const std::size_t np = l.partitions.size();
    const std::size_t nq = l.qos.size();
    if (np == 0 && nq == 0) return 0;
    return (np == 0 ? 1 : np) * (nq == 0 ? 1 : nq);
}

/// Number of priority-array entries of a job whose type carries its lists.
template <class J>
    requires(!std::is_same_v<J, job_lists>)
[[nodiscard]] constexpr std::size_t priority_array_size(const J& j) noexcept {
    return priority_array_size(lists_of(j));
}

/// The weighted factors of a job for partition `p` and QOS `q`, as Slurm builds a priority
/// array entry (and sprio a row): partition and TRES terms are those of partition `p`; the
/// QOS term is QOS `q`'s when that QOS has a non-zero priority and the QOS weight is
/// non-zero, and otherwise, a Slurm quirk, the job's own weighted QOS factor.
template <slurm_engine E, class J>
[[nodiscard]] constexpr weighted_factors breakdown(const E& e, const J& j, const context& c,
                                                   std::uint32_t p, std::uint32_t q) noexcept {
    weighted_factors w{};
    w.partition = p;
    w.qos = q;
    w.age = e.template term_of<age_factor>().contribution(j, c);
    w.assoc = e.template term_of<association_factor>().contribution(j, c);
    w.fairshare = e.template term_of<fairshare_factor>().contribution(j, c);
    w.job_size = e.template term_of<job_size_factor>().contribution(j, c);
    const auto& part = e.template term_of<partition_factor>();
    w.part = part.disabled() ? 0.0 : part.factor.for_partition(p, c) * part.weight.as_double();
    const auto& qos = e.template term_of<qos_factor>();
    const qos_info* qi = c.qos_at(q);
    if (qi != nullptr && qi->priority != 0 && !qos.disabled())
        w.qos_term = qos.factor.for_qos(q, c) * qos.weight.as_double();
    else
        w.qos_term = qos.contribution(j, c); // the fallback quirk (reference 1.2)
    const auto& tres = e.template term_of<tres_factor>();
    w.tres = tres.factor.count == 0 ? 0.0 : tres.factor.for_partition(j, p, c);
    if constexpr (has_site_factor<J>) w.site = static_cast<double>(job_traits<J>::site_factor(j));
    if constexpr (has_nice<J>) w.nice = static_cast<double>(job_traits<J>::nice(j));
    return w;
}

/// Fills `out` with the priority array of job `j` with lists `l` (index p * #QOS + q) and
/// returns the number of entries; 0 (nothing written) for a single-partition single-QOS job.
/// Held jobs get 0 and administrator-set priorities pass through in every entry.
template <slurm_engine E, class J>
constexpr std::size_t priority_array(const E& e, const J& j, const job_lists& l, const context& c,
                                     std::span<priority_value> out) noexcept {
    const std::size_t n = priority_array_size(l);
    if (n == 0) return 0;
    MFPRIO_ASSERT(out.size() >= n);
    if (out.size() < n) return 0;
    const auto parts = l.partitions;
    const auto qos = l.qos;
    const std::uint32_t own_part = has_partition<J> ? static_cast<std::uint32_t>(job_traits<J>::partition(j)) : 0u;
    const std::uint32_t own_qos = has_qos<J> ? static_cast<std::uint32_t>(job_traits<J>::qos(j)) : 0u;
    const std::size_t np = parts.empty() ? 1 : parts.size();
    const std::size_t nq = qos.empty() ? 1 : qos.size();
    for (std::size_t pi = 0; pi < np; ++pi) {
        const std::uint32_t p = parts.empty() ? own_part : parts[pi];
        for (std::size_t qi = 0; qi < nq; ++qi) {
            const std::uint32_t q = qos.empty() ? own_qos : qos[qi];
            out[pi * nq + qi] = e.result()(j, [&]() noexcept { return breakdown(e, j, c, p, q).array_sum(); });
        }
    }
    return n;
}

/// The priority array of a job whose type carries its lists (`partitions`, `qos_list`).
template <slurm_engine E, class J>
constexpr std::size_t priority_array(const E& e, const J& j, const context& c, std::span<priority_value> out) noexcept {
    return priority_array(e, j, lists_of(j), c, out);
}

/// INCR_ONLY on the periodic path: a freshly computed priority replaces the previous one
/// only if it is greater. (Submission, release and updates assign unconditionally.)
[[nodiscard]] constexpr std::uint32_t apply_incr_only(std::uint32_t previous, std::uint32_t fresh, bool incr_only) noexcept {
    return (incr_only && fresh <= previous) ? previous : fresh;
}

/// Whether Slurm's periodic pass recalculates this job: pending jobs, and running or
/// suspended ones under CALCULATE_RUNNING; never held jobs (priority 0).
template <class J>
    requires has_state<J>
[[nodiscard]] constexpr bool recalculated_periodically(const J& j, priority_flags flags) noexcept {
    switch (job_traits<J>::state(j)) {
    case job_state::pending: return true;
    case job_state::running:
    case job_state::suspended: return flags.has(priority_flag::calculate_running);
    default: return false;
    }
}

} // namespace mfprio::slurm
