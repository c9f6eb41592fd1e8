#pragma once
/// \file
/// The usage ledger of Slurm's priority/multifactor: decay of every association's and
/// QOS's raw usage, new usage of running jobs charged up the direct-parent chain, usage
/// resets, and the periodic loop that ties them together (reference §2.2-2.4).
///
/// The per-association usage is the tree's own `usage_raw` column (long double, as
/// Slurm's `usage_raw`); the ledger keeps the per-QOS usage. Arithmetic follows Slurm's
/// order and types exactly:
/// - decay pass over Δ s: `real_decay = D^Δ` (double, floored at DBL_MIN); every
///   association's usage and every QOS's usage except NoDecay ones: `usage *= real_decay`.
/// - new usage of a job that ran Δ s: `run_decay = Δ·D^Δ` (double),
///   `real = run_decay·billable` (double), then `real *= uf` (uf = the job QOS's
///   UsageFactor when there is a QOS and it is >= 0, else no factor), added as a long
///   double to the job's association and every direct parent up to and including the
///   root. The job QOS gets the same, or `Δ·billable·uf` un-decayed when it is NoDecay; a
///   partition QOS different from the job QOS gets the same (with the job QOS's factor).
/// Over one pass with a job running the whole time:
/// `U_new = U_old·D^Δ + billable·uf·Δ·D^Δ`.
///
/// Not modelled: `usage_tres_raw` (GrpTRESRaw, only with AccountingStorageEnforce=limits),
/// `grp_used_wall`, deleted children's `leaf_usage`, grp_used_tres_run_secs.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <mfprio/core/assert.hpp>
#include <mfprio/fairshare/decay.hpp>
#include <mfprio/fairshare/reset.hpp>
#include <mfprio/fairshare/tree.hpp>

namespace mfprio::fairshare {

/// The QOS a job charges: its own QOS and its partition's QOS (`none` = no such QOS).
struct job_qos {
    std::uint32_t job = none;       ///< the job's QOS (its UsageFactor applies)
    std::uint32_t partition = none; ///< the partition's QOS; charged only if it differs from `job`
};

/// A job as the periodic loop sees it. Times are seconds since the epoch.
struct ledger_job {
    std::uint32_t assoc = none; ///< the job's association (index in the tree); `none` = no association
    std::int64_t start = 0;     ///< start time; 0 = not started (pending)
    std::int64_t end = 0;       ///< end time; 0 = still running
    double billable = 0.0;      ///< billable TRES (see billing.hpp), cached as Slurm caches it
    job_qos qos{};              ///< QOS to charge
};

/// Choices where Slurm's code, its documentation and its two fair-share modes differ.
struct ledger_options {
    /// sacctmgr.1 says NoDecay QOS are not reset; Slurm's code resets them (reference
    /// quirk 9). false = the code's behaviour.
    bool reset_exempts_no_decay_qos = false;
    /// On the very first pass (no previous pass, Slurm: no state file) Slurm applies no
    /// decay; with Fair Tree (the default) it still charges running jobs, from their start,
    /// while classic fair-share (NO_FAIR_TREE) charges nothing. true = Fair Tree.
    bool charge_on_first_pass = true;
};

/// The usage ledger over an association tree. It holds a pointer to the tree: the tree
/// must outlive it and keep its size.
class usage_ledger {
public:
    /// A ledger over `t` with decay `rate` (default: Slurm's 7-day half-life).
    explicit usage_ledger(tree& t, decay_rate rate = {}, ledger_options opts = {}) noexcept
        : tree_(&t), rate_(rate), opts_(opts) {}

    // ---- configuration ------------------------------------------------------------------

    /// Adds a QOS with its UsageFactor (used when >= 0) and NoDecay flag; returns its index.
    std::uint32_t add_qos(double usage_factor = 1.0, bool no_decay = false, long double usage = 0.0L) {
        qos_usage_.push_back(usage);
        qos_factor_.push_back(usage_factor);
        qos_no_decay_.push_back(no_decay ? 1 : 0);
        return static_cast<std::uint32_t>(qos_usage_.size() - 1);
    }
    /// Number of QOS.
    [[nodiscard]] std::size_t qos_count() const noexcept { return qos_usage_.size(); }
    /// Raw usage of QOS `q`.
    [[nodiscard]] long double qos_usage(std::uint32_t q) const noexcept { return qos_usage_[q]; }
    /// Sets the raw usage of QOS `q` (e.g. from a saved state).
    void set_qos_usage(std::uint32_t q, long double u) noexcept { qos_usage_[q] = u; }
    /// UsageFactor of QOS `q`.
    [[nodiscard]] double qos_usage_factor(std::uint32_t q) const noexcept { return qos_factor_[q]; }
    /// NoDecay flag of QOS `q`.
    [[nodiscard]] bool qos_no_decay(std::uint32_t q) const noexcept { return qos_no_decay_[q] != 0; }

    /// The tree whose `usage_raw` column this ledger maintains.
    [[nodiscard]] tree& associations() noexcept { return *tree_; }
    [[nodiscard]] const tree& associations() const noexcept { return *tree_; }
    /// Raw usage of association `a` (the tree's `usage_raw[a]`).
    [[nodiscard]] long double usage(std::uint32_t a) const noexcept { return tree_->usage_raw[a]; }

    /// The decay in use.
    [[nodiscard]] const decay_rate& rate() const noexcept { return rate_; }
    /// Changes the half-life (Slurm recomputes D on reconfigure).
    void set_rate(decay_rate r) noexcept {
        rate_ = r;
        cached_dt_ = -1.0;
    }
    [[nodiscard]] const ledger_options& options() const noexcept { return opts_; }

    /// The PriorityUsageResetPeriod schedule (period, last and next reset).
    [[nodiscard]] reset_schedule& resets() noexcept { return reset_; }
    [[nodiscard]] const reset_schedule& resets() const noexcept { return reset_; }
    /// Sets PriorityUsageResetPeriod (as a reconfiguration: the next reset is recomputed).
    void set_reset_period(reset_period p) noexcept { reset_.reconfigure(p); }

    /// Time of the last pass (Slurm's `g_last_ran`); 0 = no pass yet.
    [[nodiscard]] std::int64_t last_ran() const noexcept { return last_ran_; }
    /// Restores the last-pass time (Slurm's state file `priority_last_decay_ran`).
    void set_last_ran(std::int64_t t) noexcept { last_ran_ = t; }

    // ---- the three operations of a pass ---------------------------------------------------

    /// Decays all usage over `seconds`: one pow, then one multiply per association and per
    /// QOS (NoDecay QOS excepted). Slurm skips the pass when the factor is 1.
    void decay_pass(double seconds) noexcept { apply_decay(rate_.over(seconds)); }

    /// Multiplies all usage (NoDecay QOS excepted) by `factor` (Slurm's `_apply_decay`).
    void apply_decay(double factor) noexcept {
        if (factor == 1.0) return;
        const long double f = factor;
        long double* u = tree_->usage_raw.data();
        const std::size_t n = tree_->usage_raw.size();
        for (std::size_t a = 0; a < n; ++a) u[a] *= f;
        for (std::size_t q = 0; q < qos_usage_.size(); ++q)
            if (!qos_no_decay_[q]) qos_usage_[q] *= f;
    }

    /// New usage of a job of association `assoc` that ran `seconds` in this pass with
    /// `billable` TRES: `Δ·D^Δ·billable·uf` added to `assoc` and each direct parent up to the
    /// root. `usage_factor` is the QOS UsageFactor (a negative one means none, i.e. 1).
    /// No QOS is charged. O(tree depth).
    void charge(std::uint32_t assoc, double seconds, double billable, double usage_factor = 1.0) noexcept {
        double real = interval(seconds) * billable;
        if (usage_factor >= 0) real *= usage_factor;
        add_to_chain(assoc, real);
    }

    /// As above, with the usage factor of `qos.job`, and charging the job QOS and the
    /// partition QOS too (un-decayed Δ·billable·uf for a NoDecay QOS).
    void charge(std::uint32_t assoc, double seconds, double billable, job_qos qos) noexcept {
        const double run_decay = interval(seconds);
        double real = run_decay * billable;
        double real_nodecay = seconds * billable;
        if (qos.job != none && qos_factor_[qos.job] >= 0) {
            real *= qos_factor_[qos.job];
            real_nodecay *= qos_factor_[qos.job];
        }
        if (qos.job != none) add_to_qos(qos.job, real, real_nodecay);
        if (qos.partition != none && qos.partition != qos.job) add_to_qos(qos.partition, real, real_nodecay);
        add_to_chain(assoc, real);
    }

    /// Clears all usage (PriorityUsageResetPeriod): every association and every QOS, NoDecay
    /// QOS included unless `options().reset_exempts_no_decay_qos`.
    void reset_usage() noexcept {
        for (auto& u : tree_->usage_raw) u = 0.0L;
        for (std::size_t q = 0; q < qos_usage_.size(); ++q)
            if (!(opts_.reset_exempts_no_decay_qos && qos_no_decay_[q])) qos_usage_[q] = 0.0L;
    }

    // ---- the periodic loop ------------------------------------------------------------------

    /// Charges a job that ended at `job.end` for its run since the last pass (Slurm's
    /// `priority_p_job_end`): Δ = end − max(last pass, start), decayed by D^Δ. Done between
    /// passes, so the next pass decays it again. No-op if it did not run after the last pass.
    void job_end(const ledger_job& job) noexcept {
        const std::int64_t s = job.start > last_ran_ ? job.start : last_ran_;
        if (job.start == 0 || job.end <= s) return;
        charge(job.assoc, static_cast<double>(job.end - s), job.billable, job.qos);
    }

    /// One pass of Slurm's decay loop at time `now` over `jobs`, in this order:
    /// 1. jobs that ended in (last pass, now] are charged up to their end (`job_end`: in
    ///    Slurm this happens when they end, before this pass);
    /// 2. a reset if one is due (`resets()`);
    /// 3. decay over Δ = now − last pass, if there was a last pass and Δ > 0;
    /// 4. running jobs (started before `now`, not ended by `now`) are charged for
    ///    [max(last pass, start), now] — on the first pass only if
    ///    `options().charge_on_first_pass`, then from their start;
    /// 5. last pass = now.
    void pass(std::int64_t now, std::span<const ledger_job> jobs) noexcept {
        const bool first = last_ran_ == 0;
        if (!first)
            for (const auto& j : jobs)
                if (j.end != 0 && j.end <= now && j.end > last_ran_) job_end(j);
        if (reset_.due(now)) reset_usage();
        const std::int64_t dt = now - last_ran_;
        if (!first && dt > 0) decay_pass(static_cast<double>(dt));
        if (!first || opts_.charge_on_first_pass) {
            for (const auto& j : jobs) {
                if (j.start == 0 || j.start >= now || (j.end != 0 && j.end <= now)) continue;
                const std::int64_t s = j.start > last_ran_ ? j.start : last_ran_;
                charge(j.assoc, static_cast<double>(now - s), j.billable, j.qos);
            }
        }
        last_ran_ = now;
    }

    /// Runs the loop from `from` to `to`: a pass at `from` (a first pass if none ran before,
    /// else a pass over the time since the last one), then passes every `calc_period`
    /// seconds (PriorityCalcPeriod), the last one at `to` (possibly shorter).
    ///
    /// Simplification vs Slurm: Slurm wakes on an absolute schedule (start + k·period),
    /// takes the pass time from the clock at wake-up (so passes drift by their own run
    /// time, and an overrun pass is followed immediately by the next), and a reconfigure
    /// can shift it. Here passes are exactly at from + k·calc_period, and `to` adds a final
    /// partial pass. Decay over k passes is the product of k pow()s, as in Slurm, not one
    /// pow over the whole span (they differ in the last bits).
    void run(std::int64_t from, std::int64_t to, std::int64_t calc_period, std::span<const ledger_job> jobs) noexcept {
        MFPRIO_ASSERT(calc_period > 0);
        MFPRIO_ASSERT(to >= from);
        pass(from, jobs);
        for (std::int64_t t = from + calc_period; t < to; t += calc_period) pass(t, jobs);
        if (to > from) pass(to, jobs);
    }

private:
    /// Δ·D^Δ, with the pow cached: all jobs running through a pass share one Δ.
    [[nodiscard]] double interval(double seconds) noexcept {
        if (seconds != cached_dt_) {
            cached_dt_ = seconds;
            cached_interval_ = rate_.decayed_interval(seconds);
        }
        return cached_interval_;
    }

    void add_to_chain(std::uint32_t assoc, double real) noexcept {
        const long double add = real;
        long double* u = tree_->usage_raw.data();
        const std::uint32_t* parent = tree_->parent.data();
        for (std::uint32_t a = assoc; a != none; a = parent[a]) {
            MFPRIO_ASSERT(a < tree_->size());
            u[a] += add;
        }
    }

    void add_to_qos(std::uint32_t q, double real, double real_nodecay) noexcept {
        MFPRIO_ASSERT(q < qos_usage_.size());
        qos_usage_[q] += static_cast<long double>(qos_no_decay_[q] ? real_nodecay : real);
    }

    tree* tree_;
    decay_rate rate_;
    ledger_options opts_;
    std::vector<long double> qos_usage_;
    std::vector<double> qos_factor_;
    std::vector<std::uint8_t> qos_no_decay_;
    reset_schedule reset_;
    std::int64_t last_ran_ = 0;
    double cached_dt_ = -1.0;
    double cached_interval_ = 0.0;
};

} // namespace mfprio::fairshare
