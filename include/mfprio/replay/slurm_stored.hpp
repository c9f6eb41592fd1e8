#pragma once
/// \file
/// When slurmctld computed the priority it holds for each job, told from the stored priority
/// itself (squeue's and scontrol's Priority).
///
/// sprio shows each job's factors as slurmctld last computed them, and that is not always
/// the last periodic recalculation. Slurm 22.05's priority/multifactor computes a job's
/// factors (`_get_priority_internal`) in two places:
/// - the recalculation every PriorityCalcPeriod (the decay thread), for every pending job
///   that is not held, with the pass's start time (StateSaveLocation/priority_last_decay_ran);
/// - `priority_p_set`, with the time of the call, whenever slurmctld sets a job's priority
///   outside that pass: at submission (`job_allocate`), at every update of a job that is not
///   held (`_update_job` ends with `set_job_prio`), when a held job is released, when a job is
///   requeued, resumed, or freed of bad constraints.
/// Only the age factor depends on the time, and only once the job has an accrue time. At
/// submission, release and requeue the accrue time is not set yet (the scheduler sets it
/// afterwards, `acct_policy_handle_accrue_time`), so those jobs hold an age of 0 until the next
/// pass; an update keeps the accrue time, so the age is that of the update's moment, which no
/// command prints and which the stored priority narrows down to a few seconds.
///
/// An administrator's `scontrol update jobid=N priority=P` sets the priority directly; sprio
/// then prints P with every factor 0 and the next passes keep it. No Slurm command but sprio
/// marks such a job (config/sprio_listing.hpp): a job is taken as set by an administrator only
/// where sprio's own rows show it so. A stored priority that none of the ways above gives, by
/// more than the inputs' printed precision explains (six decimals of the fair-share factor when
/// it is taken from sshare), and that sprio does not show as set, is `unexplained`: mfprio's
/// inputs or its computation differ from slurmctld's, and the caller says so.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include <mfprio/model/slurm_model.hpp>
#include <mfprio/read/sprio_listing.hpp>
#include <mfprio/core/result.hpp>
#include <mfprio/slurm/multifactor.hpp>
#include <mfprio/slurm/release.hpp>

namespace mfprio::config {

/// How slurmctld came to hold a job's priority.
enum class priority_origin : std::uint8_t {
    unknown,       ///< nothing to compare: no stored priority, held, or not pending
    pass,          ///< the last periodic recalculation
    without_age,   ///< set since that pass before the job had an accrue time (submission, release, requeue): age 0
    updated,       ///< set at an update since that pass, at a time inferred from the stored priority
    administrator, ///< set by an administrator: sprio's own rows show it so
    unexplained,   ///< no computation gives the stored value and sprio does not show it as set
};

/// The origin of each job's stored priority, and for `updated` jobs the inferred time.
struct stored_priorities {
    std::vector<priority_origin> origin;   ///< one per model job
    std::vector<std::int64_t> computed_at; ///< the time the job's factors stand for
    std::size_t count(priority_origin o) const noexcept {
        std::size_t n = 0;
        for (const auto x : origin) n += x == o ? 1 : 0;
        return n;
    }
};

namespace detail {

/// The integer priorities slurmctld can have stored for one (partition, QOS) entry of job
/// `j`: the entry's sum with the fair-share term moved by up to `fs_slack` either way,
/// finished as slurmctld finishes it (floor 1, clamp, truncation).
template <slurm::slurm_engine E>
[[nodiscard]] std::pair<std::uint32_t, std::uint32_t> entry_range(const E& e, const job& j, const slurm::context& c,
                                                                  std::uint32_t p, std::uint32_t q, double fs_slack) {
    const double s = slurm::breakdown(e, j, c, p, q).scalar_sum();
    return {slurm_result::finish(s - fs_slack).value, slurm_result::finish(s + fs_slack).value};
}

/// Calls `f(p, q)` for each (partition, QOS) entry of a job with lists `l`.
template <class F>
void each_entry(const job& j, const slurm::job_lists& l, F&& f) {
    const std::size_t np = l.partitions.empty() ? 1 : l.partitions.size();
    const std::size_t nq = l.qos.empty() ? 1 : l.qos.size();
    for (std::size_t pi = 0; pi < np; ++pi)
        for (std::size_t qi = 0; qi < nq; ++qi)
            f(l.partitions.empty() ? std::uint32_t{j.partition} : l.partitions[pi],
              l.qos.empty() ? std::uint32_t{j.qos} : l.qos[qi]);
}

/// Whether an entry of job `j` can give `stored` (a multi-partition job's stored value is
/// the one of the partition slurmctld last placed it in: any entry will do). Under INCR_ONLY
/// a stored value above the computed one is a priority kept from earlier.
template <slurm::slurm_engine E>
[[nodiscard]] bool gives(const E& e, const job& j, const slurm::job_lists& l, const slurm::context& c,
                         std::uint32_t stored, double fs_slack, bool incr_only) {
    bool found = false;
    each_entry(j, l, [&](std::uint32_t p, std::uint32_t q) {
        const auto [lo, hi] = entry_range(e, j, c, p, q, fs_slack);
        found = found || (stored >= lo && (stored <= hi || incr_only));
    });
    return found;
}

} // namespace detail

/// Places each listed job's stored priority in time and adjusts the model's jobs so that
/// computing them at `calc_time` (the last pass) gives the factors slurmctld holds: an age of
/// 0 for `without_age` jobs, the age at the inferred moment for `updated` ones, the stored
/// value as an administrator-set priority for `administrator` ones. `listed_at` is when the
/// inputs were read (sprio's own "now"): updates are looked for in (calc_time, listed_at].
/// `fs_slack` is the weighted fair-share term's uncertainty (PriorityWeightFairshare x 5e-7
/// when the factors come from sshare's six decimals, 0 when computed exactly).
/// `listing` is what sprio printed at the same moment, when known: a job whose rows there show
/// a priority set by an administrator is one; without it no job is taken as one.
/// Jobs without a stored priority, held (stored 0) or not pending are left as they are.
[[nodiscard]] inline stored_priorities place_stored_priorities(slurm_model& m, std::int64_t calc_time,
                                                                std::int64_t listed_at, double fs_slack,
                                                                const sprio_listing* listing = nullptr) {
    stored_priorities out;
    out.origin.assign(m.jobs.size(), priority_origin::unknown);
    out.computed_at.assign(m.jobs.size(), calc_time);
    const auto e = m.engine();
    const auto c = m.context(calc_time);
    const bool incr_only = m.settings.flags.has(slurm::priority_flag::incr_only);
    const std::uint32_t w_age = m.weights.age;
    const std::int64_t max_age = m.settings.max_age == 0 ? 1 : m.settings.max_age;
    for (std::size_t k = 0; k < m.jobs.size(); ++k) {
        job& j = m.jobs[k];
        const auto stored = k < m.current_priorities.size() ? m.current_priorities[k] : std::nullopt;
        if (!stored || *stored == 0 || j.state != job_state::pending || j.admin_priority != 0) continue;
        const slurm::job_lists l = k < m.lists.size() ? m.lists[k] : slurm::job_lists{};
        if (listing != nullptr) {
            const auto rows = listing->rows_of(j.id);
            const bool cleared = l.partitions.size() > 1 &&
                                 !slurm::has(m.settings.slurm_release, slurm::release_change::sprio_rows_per_partition);
            if (!rows.empty() && std::all_of(rows.begin(), rows.end(), [&](const sprio_listing_row* r) {
                    return r->shows_direct(*stored, cleared);
                })) {
                j.admin_priority = *stored;
                out.origin[k] = priority_origin::administrator;
                continue;
            }
        }
        const auto at = [&](const job& x) { return detail::gives(e, x, l, c, *stored, fs_slack, incr_only); };
        if (at(j)) {
            out.origin[k] = priority_origin::pass;
            continue;
        }
        const std::int64_t accrue = j.accrue_time;
        job without = j;
        without.accrue_time = 0;
        if (at(without)) {
            j = without;
            out.origin[k] = priority_origin::without_age;
            out.computed_at[k] = std::max<std::int64_t>(calc_time, j.submit_time);
            continue;
        }
        // An update in (calc_time, listed_at]: the job's factors are those of the update's
        // moment t, its age (t - accrue) / PriorityMaxAge. Computing at calc_time, that is an
        // accrue time of accrue - (t - calc_time). Each entry's priority grows with t, so the
        // seconds that give the stored value are one run, found by bisection; its middle is
        // taken (a run is about PriorityMaxAge / PriorityWeightAge seconds long).
        if (accrue != 0 && w_age != 0 && listed_at > calc_time && accrue <= listed_at) {
            const auto moved = [&](std::int64_t t) {
                job x = j;
                x.accrue_time = accrue - (t - calc_time);
                return x;
            };
            const std::int64_t first = std::max<std::int64_t>(calc_time + 1, accrue);
            // Past PriorityMaxAge the age stays 1: later seconds change nothing.
            const std::int64_t last = std::min<std::int64_t>(listed_at, accrue + max_age);
            std::optional<std::int64_t> found;
            detail::each_entry(j, l, [&](std::uint32_t p, std::uint32_t q) {
                if (found || first > last || moved(first).accrue_time <= 0) return;
                const auto range = [&](std::int64_t t) { return detail::entry_range(e, moved(t), c, p, q, fs_slack); };
                // The first second whose highest value reaches `stored`, the first whose lowest
                // passes it.
                const auto first_where = [&](auto pred) {
                    std::int64_t a = first, b = last + 1;
                    while (a < b) {
                        const std::int64_t mid = a + (b - a) / 2;
                        if (pred(range(mid))) b = mid;
                        else a = mid + 1;
                    }
                    return a;
                };
                const std::int64_t from = first_where([&](auto r) { return r.second >= *stored; });
                const std::int64_t past = first_where([&](auto r) { return r.first > *stored; });
                if (from < past && from <= last) found = from + (past - 1 - from) / 2;
            });
            if (found) {
                j = moved(*found);
                out.origin[k] = priority_origin::updated;
                out.computed_at[k] = *found;
                continue;
            }
        }
        out.origin[k] = priority_origin::unexplained;
    }
    return out;
}

/// Sets each pending job's site factor to the SITE sprio printed for it (`listing`): the value
/// slurmctld holds, whatever set it (a site_factor plugin at its last update or at submission,
/// `scontrol update sitefactor=`, a plugin since removed whose values the jobs keep). Jobs sprio
/// does not list, or lists with SITE cleared (a priority set by an administrator) or cut at
/// its column's width, keep theirs. Returns how many jobs took a value.
inline std::size_t take_site_factors(slurm_model& m, const sprio_listing& listing) {
    std::size_t taken = 0;
    for (job& j : m.jobs) {
        if (j.state != job_state::pending) continue;
        const auto rows = listing.rows_of(j.id);
        if (rows.empty()) continue;
        const auto& cell = (*rows.front())[sprio_column::site];
        if (!cell) continue;
        const std::size_t width = listing.widths[static_cast<std::size_t>(sprio_column::site)];
        if (width != 0 && cell->size() >= width) continue;
        const auto v = parse_signed<std::int64_t>(*cell);
        if (!v || *v > 2147483645 || *v < -2147483645) continue;
        j.site_factor = static_cast<std::int32_t>(*v);
        ++taken;
    }
    return taken;
}

/// Carries the administrator-set priorities of `placed` (inferred on `from`) into `to`, a
/// model of the same jobs (what-if's changed side, or a later pass, where ages are
/// recomputed but an administrator's value stays).
inline void keep_administrator_priorities(const stored_priorities& placed, const slurm_model& from, slurm_model& to) {
    for (std::size_t k = 0; k < placed.origin.size() && k < to.jobs.size() && k < from.jobs.size(); ++k)
        if (placed.origin[k] == priority_origin::administrator) to.jobs[k].admin_priority = from.jobs[k].admin_priority;
}

/// Carries every placement of `placed` into `to`: the same ages and administrator values.
inline void keep_placements(const stored_priorities& placed, const slurm_model& from, slurm_model& to) {
    for (std::size_t k = 0; k < placed.origin.size() && k < to.jobs.size() && k < from.jobs.size(); ++k) {
        if (placed.origin[k] == priority_origin::unknown || placed.origin[k] == priority_origin::pass) continue;
        to.jobs[k].accrue_time = from.jobs[k].accrue_time;
        to.jobs[k].admin_priority = from.jobs[k].admin_priority;
    }
}

} // namespace mfprio::config
