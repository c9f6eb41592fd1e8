#pragma once
/// \file
/// Fair-share for a Slurm model: when the association table carries RawUsage, the users'
/// fair-share factors are computed from RawShares and RawUsage with the algorithm slurm.conf
/// selects (or another one), replacing the table's FairShare column. Without RawUsage the
/// FairShare column stays the factor (what `sshare` printed is taken as is).

#include <cstdint>
#include <optional>
#include <vector>
#include <string_view>

#include <mfprio/core/expected.hpp>
#include <mfprio/read/assoc_table.hpp>
#include <mfprio/model/fairshare_tree.hpp>
#include <mfprio/read/jobs_table.hpp>
#include <mfprio/read/qos_table.hpp>
#include <mfprio/read/slurm_conf.hpp>
#include <mfprio/fairshare/billing.hpp>
#include <mfprio/fairshare/compute.hpp>
#include <mfprio/fairshare/decay.hpp>
#include <mfprio/fairshare/usage.hpp>
#include <mfprio/slurm/cluster.hpp>

namespace mfprio::config {

/// The fair-share algorithm slurm.conf's PriorityFlags select: DEPTH_OBLIVIOUS, else classic
/// when FAIR_TREE is off (NO_FAIR_TREE), else Fair Tree; FairShareDampeningFactor.
[[nodiscard]] inline fairshare::options fairshare_options_of(const slurm_conf& conf) {
    fairshare::options o;
    if (conf.flags.has(slurm::priority_flag::depth_oblivious)) o.algo = fairshare::algorithm::depth_oblivious;
    else if (!conf.flags.has(slurm::priority_flag::fair_tree)) o.algo = fairshare::algorithm::classic;
    else o.algo = fairshare::algorithm::fair_tree;
    o.damping = conf.fairshare_dampening;
    return o;
}

/// Computes the users' fair-share factors from the association table's RawShares and
/// RawUsage and stores them in `cl` (whose associations are the table's rows, in order, as
/// `build_slurm_model` adds them). Returns false, changing nothing, when the table has no
/// RawUsage column. Errors come from the tree (e.g. a blank RawShares on a user row).
[[nodiscard]] inline expected<bool> apply_computed_fairshare(slurm::cluster& cl, const assoc_table& assoc,
                                                             const fairshare::options& o,
                                                             std::string_view assoc_file = "<string>") {
    if (!assoc.has_column("RawUsage")) return false;
    auto ft = fairshare_tree_from(assoc, assoc_file);
    if (!ft) return ft.error();
    fairshare::columns cols;
    fairshare::compute(ft->tree, cols, o);
    MFPRIO_ASSERT(cl.fairshare().size() == assoc.rows.size());
    for (std::uint32_t r = 0; r < assoc.rows.size(); ++r)
        cl.set_fairshare(r, assoc.rows[r].is_user() ? cols.fs_factor[ft->tree_index_of_row[r]] : 0.0);
    return true;
}

/// Charges the RUNNING jobs of `jobs` for `elapsed` seconds from `start` into the usage of
/// `ft`'s tree, with Slurm's decay every PriorityCalcPeriod, PriorityUsageResetPeriod, the
/// partition's TRESBillingWeights (MAX_TRES / MAX_TRES_GRES) and the QOS UsageFactor.
inline void charge_running_jobs(fairshare_tree& ft, const slurm_conf& conf, const qos_table& qos,
                                const jobs_table& jobs, std::int64_t start, std::int64_t elapsed) {
    fairshare::usage_ledger ledger(ft.tree, fairshare::decay_rate(conf.decay_half_life));
    ledger.set_reset_period(conf.usage_reset);
    for (const auto& q : qos.qos) ledger.add_qos(q.usage_factor);
    const auto mode = conf.flags.has(slurm::priority_flag::max_tres_gres) ? fairshare::billing_mode::max_tres_gres
                    : conf.flags.has(slurm::priority_flag::max_tres)    ? fairshare::billing_mode::max_tres
                                                                        : fairshare::billing_mode::sum;
    std::vector<fairshare::ledger_job> running;
    for (const auto& j : jobs.jobs) {
        if (j.state != job_state::running) continue;
        const auto& part = conf.partitions[j.partitions.front()];
        fairshare::billing_weights w;
        for (const auto& bw : part.billing_weights) w.set(bw.name, bw.weight);
        std::vector<fairshare::tres_count> counts;
        for (const auto& t : j.tres) counts.push_back({t.first, static_cast<std::uint64_t>(t.second)});
        fairshare::ledger_job lj;
        lj.assoc = ft.tree_index_of_row[j.association];
        lj.start = start;
        lj.billable = fairshare::billable_tres(counts, w, mode);
        lj.qos.job = j.qos.front();
        running.push_back(lj);
    }
    ledger.set_last_ran(start);
    ledger.run(start, start + elapsed, conf.calc_period, running);
}

/// The work of `charge_running_jobs` over `elapsed` seconds: each pass of PriorityCalcPeriod
/// decays every association and charges every running job up its chain of associations.
struct charge_cost {
    std::uint64_t passes = 0;
    std::uint64_t steps_per_pass = 0; ///< associations + the running jobs' chains
    std::uint64_t running = 0;        ///< running jobs
    [[nodiscard]] std::uint64_t steps() const noexcept { return passes * steps_per_pass; }
};

/// The most steps a charge may take by default: about a second of CPU.
inline constexpr std::uint64_t max_charge_steps = 200'000'000;

/// What charging the RUNNING jobs of `jobs` for `elapsed` seconds costs on `ft`'s tree.
[[nodiscard]] inline charge_cost charge_cost_of(const fairshare_tree& ft, const slurm_conf& conf, const jobs_table& jobs,
                                                std::int64_t elapsed) {
    charge_cost c;
    c.passes = static_cast<std::uint64_t>(elapsed / conf.calc_period) + 2;
    c.steps_per_pass = ft.tree.size();
    for (const auto& j : jobs.jobs) {
        if (j.state != job_state::running) continue;
        ++c.running;
        for (std::uint32_t a = ft.tree_index_of_row[j.association]; a != fairshare::none; a = ft.tree.parent[a])
            ++c.steps_per_pass;
    }
    return c;
}

/// After a charge: the first association whose usage reaches 2^64, past what sshare prints as
/// RawUsage (users first, so that the error names an association whose own jobs did it), as an
/// error at its row of `assoc` (read from `assoc_file`).
[[nodiscard]] inline std::optional<input_error> usage_past_sshare(const fairshare_tree& ft, const assoc_table& assoc,
                                                                  std::string_view assoc_file) {
    for (const bool users : {true, false}) {
        for (std::size_t r = 0; r < assoc.rows.size(); ++r) {
            const auto& row = assoc.rows[r];
            if (row.is_user() != users) continue;
            const long double u = ft.tree.usage_raw[ft.tree_index_of_row[r]];
            if (!(u < static_cast<long double>(two_pow_64)))
                return make_error(assoc_file, row.line, 0, "RawUsage",
                                  "the usage charged to " + text::quote(row.account) +
                                      (row.user.empty() ? std::string() : " user " + text::quote(row.user)) +
                                      " reaches 2^64, past sshare's RawUsage (TRES counts, billing weights and usage "
                                      "factors of its running jobs too large)");
        }
    }
    return std::nullopt;
}

} // namespace mfprio::config
