#pragma once
/// \file
/// Maui's fair-share usage accounting (reference B3): the FSPOLICY metric charged for running
/// jobs, the FSINTERVAL windows kept FSDEPTH deep, the FSDECAY-weighted effective usage and the
/// usage percentages the FS component reads (`credential::fs_usage`).
///
/// The rules, as Maui 3.3 applies them:
/// - **Charge.** Every scheduler iteration each running job is charged the FSPOLICY metric over
///   the time since the last iteration (`fs_charge`): DEDICATEDPS = processors x seconds;
///   DEDICATEDPES = processor equivalents x seconds (`processor_equivalents`, in factors.hpp); UTILIZEDPS =
///   utilized processors (CPU load) x seconds. The amount goes to the job's user, group,
///   account, QOS and class, and to the total, in the current window (`fs_ledger::charge`).
///   Not modelled: Maui's optional scaling by machine speed.
/// - **Windows.** A window starts at `now - (now mod FSINTERVAL)` (`fs_window_start`, a floor
///   modulo, so negative times work too). Window 0 is the current one. When a boundary is
///   crossed the windows shift by one (0 becomes 1, ...) and the oldest falls off; FSDEPTH
///   windows are kept (at most `max_fs_depth` = 24, as MAX_MFSDEPTH; a depth of 0 counts as 1:
///   the current window always exists). Crossing k boundaries at once shifts by k, so k >= FSDEPTH
///   clears everything (`fs_ledger::advance`).
/// - **Effective usage.** `effective(X) = U[0] + F` with `F = sum_{i=1}^{FSDEPTH-1} U[i] * w[i]`:
///   the current window undecayed, the historical ones weighted. The total is decayed the same
///   way. The weights are `w[0] = 1, w[i] = w[i-1] * FSDECAY`, computed once by repeated
///   multiplication (Maui calls pow(FSDECAY, i); the two can differ in the last bit for decays
///   that are not powers of two). `F` is summed from window 1 up to window FSDEPTH-1 starting
///   from 0.0, then `U[0]` is added to it: the order Maui's MFSCalcFactor uses, fixed so that
///   results are reproducible.
/// - **Percentages.** `usage%(X) = effective(X) / effective(total) * 100` (divide, then
///   multiply, as Maui), relative to the usage actually delivered, not to the capacity. With
///   `effective(total) <= 0` every percentage is 0 and the FS component is off; it is also off
///   when FSPOLICY is NONE (`fs_active`).
///
/// Storage is flat: one array of FSDEPTH x table-size doubles per credential kind (window-major:
/// window w of credential i at `w * size + i`) plus FSDEPTH totals. Charging is O(1) and never
/// allocates; a rotation moves the arrays once per crossed boundary set (once per FSINTERVAL).

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <mfprio/core/assert.hpp>
#include <mfprio/maui/factors.hpp>
#include <mfprio/maui/job.hpp>
#include <mfprio/maui/model.hpp>

namespace mfprio::maui {

/// Start of the fair-share window containing `now`: `now - (now mod interval)`, with a floor
/// modulo (the start is never after `now`). An interval below 1 counts as 1.
[[nodiscard]] constexpr std::int64_t fs_window_start(std::int64_t now, std::int64_t interval) noexcept {
    if (interval < 1) interval = 1;
    std::int64_t r = now % interval;
    if (r < 0) r += interval;
    return now - r;
}

/// The amount FSPOLICY `m` charges for job `j` running `seconds`: DEDICATEDPS `procs *
/// seconds`, DEDICATEDPES `processor_equivalents * seconds`, UTILIZEDPS `utilized_procs *
/// seconds` (the job's CPU load, from the resource manager); 0 for NONE.
[[nodiscard]] inline double fs_charge(fs_metric m, const job& j, const resources& cluster, double seconds,
                                      double utilized_procs = 0) noexcept {
    switch (m) {
    case fs_metric::dedicated_ps: return static_cast<double>(j.procs) * seconds;
    case fs_metric::dedicated_pes: return processor_equivalents(j, cluster) * seconds;
    case fs_metric::utilized_ps: return utilized_procs * seconds;
    case fs_metric::none: break;
    }
    return 0.0;
}

/// Usage of every credential over FSDEPTH windows, by credential index (the same indices as
/// the context's credential tables), and of the total. See the file comment for the rules.
class fs_ledger {
public:
    /// A ledger with `cfg`'s windows for credential tables of `sizes` entries (by `cred_kind`).
    /// The depth is clamped to [1, max_fs_depth], an interval below 1 counts as 1. All usage 0.
    fs_ledger(fs_config cfg, std::array<std::size_t, cred_kind_count> sizes)
        : interval_(cfg.interval < 1 ? 1 : cfg.interval),
          depth_(std::clamp<std::size_t>(cfg.depth, 1, max_fs_depth)),
          decay_(cfg.decay),
          sizes_(sizes) {
        weight_[0] = 1.0;
        for (std::size_t i = 1; i < max_fs_depth; ++i) weight_[i] = std::pow(decay_, static_cast<double>(i));
        for (std::size_t k = 0; k < cred_kind_count; ++k) usage_[k].assign(depth_ * sizes_[k], 0.0);
    }

    // ---- configuration ------------------------------------------------------------------

    /// FSINTERVAL in seconds (at least 1).
    [[nodiscard]] std::int64_t interval() const noexcept { return interval_; }
    /// FSDEPTH: the number of windows kept (1 to max_fs_depth).
    [[nodiscard]] std::size_t depth() const noexcept { return depth_; }
    /// FSDECAY.
    [[nodiscard]] double decay() const noexcept { return decay_; }
    /// The weight of window `w`: pow(FSDECAY, w) (0 past the depth).
    [[nodiscard]] double weight(std::size_t w) const noexcept { return w < depth_ ? weight_[w] : 0.0; }
    /// Number of credentials of kind `k` the ledger holds.
    [[nodiscard]] std::size_t size(cred_kind k) const noexcept { return sizes_[index(k)]; }

    // ---- windows ------------------------------------------------------------------------

    /// Start of window 0 (0 before the first `advance`).
    [[nodiscard]] std::int64_t window_start() const noexcept { return start_; }
    /// Whether `advance` has been called (window 0 has a start).
    [[nodiscard]] bool started() const noexcept { return started_; }

    /// Moves window 0 to the window containing `now`. The first call only sets window 0's
    /// start (usage loaded with `set_usage` stays where it is). Later calls rotate once per
    /// boundary crossed since window 0 started: k boundaries move window i to i + k, drop
    /// those past the depth and clear windows 0..k-1; k >= depth clears everything. A `now`
    /// in window 0 or before it changes nothing. Returns k (0 when nothing rotated).
    std::int64_t advance(std::int64_t now) noexcept {
        const std::int64_t start = fs_window_start(now, interval_);
        if (!started_) {
            started_ = true;
            start_ = start;
            return 0;
        }
        if (start <= start_) return 0;
        const std::int64_t crossed = (start - start_) / interval_;
        start_ = start;
        rotate(static_cast<std::uint64_t>(crossed) >= depth_ ? depth_ : static_cast<std::size_t>(crossed));
        return crossed;
    }

    // ---- charging -------------------------------------------------------------------------

    /// Adds `amount` in window 0 to the job's user, group, account, QOS and class (a
    /// `no_cred` field is skipped) and to the total. O(1), no allocation. A credential index
    /// past the ledger's table is a contract violation (skipped when assertions are off).
    void charge(const job& j, double amount) noexcept {
        add(cred_kind::user, j.user, amount);
        add(cred_kind::group, j.group, amount);
        add(cred_kind::account, j.account, amount);
        add(cred_kind::qos, j.qos, amount);
        add(cred_kind::job_class, j.job_class, amount);
        total_[0] += amount;
    }

    // ---- raw usage ------------------------------------------------------------------------

    /// Usage of credential `i` of kind `k` in window `w` (0 for `no_cred`, an index past the
    /// table or a window past the depth).
    [[nodiscard]] double usage(cred_kind k, std::uint32_t i, std::size_t w) const noexcept {
        const std::size_t n = sizes_[index(k)];
        if (i >= n || w >= depth_) return 0.0;
        return usage_[index(k)][w * n + i];
    }
    /// Total usage in window `w` (0 past the depth).
    [[nodiscard]] double total(std::size_t w) const noexcept { return w < depth_ ? total_[w] : 0.0; }

    /// Sets the usage of credential `i` of kind `k` in window `w` (e.g. from an `FS.<epoch>`
    /// file). `i` must be in the table and `w` below the depth.
    void set_usage(cred_kind k, std::uint32_t i, std::size_t w, double v) noexcept {
        const std::size_t n = sizes_[index(k)];
        MFPRIO_ASSERT(i < n && w < depth_);
        if (i >= n || w >= depth_) return;
        usage_[index(k)][w * n + i] = v;
    }
    /// Sets the total usage in window `w` (below the depth).
    void set_total(std::size_t w, double v) noexcept {
        MFPRIO_ASSERT(w < depth_);
        if (w < depth_) total_[w] = v;
    }
    /// Clears every window of every credential and the total (the window start is kept).
    void clear() noexcept {
        for (auto& u : usage_) std::fill(u.begin(), u.end(), 0.0);
        total_.fill(0.0);
    }

    // ---- effective usage ------------------------------------------------------------------

    /// Effective usage of credential `i` of kind `k`: `U[0] + sum_{w=1}^{depth-1} U[w] *
    /// weight(w)`, the sum taken in increasing w from 0.0 and U[0] added last (0 for
    /// `no_cred` or an index past the table).
    [[nodiscard]] double effective(cred_kind k, std::uint32_t i) const noexcept {
        const std::size_t n = sizes_[index(k)];
        if (i >= n) return 0.0;
        const double* u = usage_[index(k)].data();
        double factor = 0.0;
        for (std::size_t w = 1; w < depth_; ++w) factor += u[w * n + i] * weight_[w];
        return u[i] + factor;
    }
    /// Effective total usage, decayed the same way.
    [[nodiscard]] double effective_total() const noexcept {
        double factor = 0.0;
        for (std::size_t w = 1; w < depth_; ++w) factor += total_[w] * weight_[w];
        return total_[0] + factor;
    }
    /// Usage percentage of credential `i` of kind `k`: `effective / effective_total * 100`,
    /// or 0 when the effective total is not positive.
    [[nodiscard]] double percent(cred_kind k, std::uint32_t i) const noexcept {
        const double t = effective_total();
        return t > 0 ? effective(k, i) / t * 100.0 : 0.0;
    }

    /// Writes `credential::fs_usage` (percent of the delivered effective total) into every
    /// entry of each table (`cred_kind` order); entries past the ledger's tables get 0, and
    /// so does everyone when the effective total is not positive. Returns whether the
    /// effective total is positive (with FSPOLICY != NONE, the context's `fs_active`). Same
    /// arithmetic, in the same order, as `percent`; allocation-free.
    bool apply(std::array<std::span<credential>, cred_kind_count> tables) const noexcept {
        const double t = effective_total();
        for (std::size_t k = 0; k < cred_kind_count; ++k) {
            std::span<credential> table = tables[k];
            const std::size_t n = sizes_[k];
            const std::size_t m = std::min(n, table.size());
            for (std::size_t i = m; i < table.size(); ++i) table[i].fs_usage = 0.0;
            if (!(t > 0)) {
                for (std::size_t i = 0; i < m; ++i) table[i].fs_usage = 0.0;
                continue;
            }
            const double* u = usage_[k].data();
            // For a chunk of credentials at a time, F accumulates window by window in a local
            // array (window-major: sequential reads; the records, 80 bytes apart, are written
            // once), then fs_usage becomes (U[0] + F) / total * 100: per credential the same
            // operations, in the same order, as effective().
            constexpr std::size_t chunk = 256;
            double acc[chunk];
            for (std::size_t b = 0; b < m; b += chunk) {
                const std::size_t e = std::min(m - b, chunk);
                for (std::size_t i = 0; i < e; ++i) acc[i] = 0.0;
                for (std::size_t w = 1; w < depth_; ++w) {
                    const double* uw = u + w * n + b;
                    const double wt = weight_[w];
                    for (std::size_t i = 0; i < e; ++i) acc[i] += uw[i] * wt;
                }
                for (std::size_t i = 0; i < e; ++i) table[b + i].fs_usage = (u[b + i] + acc[i]) / t * 100.0;
            }
        }
        return t > 0;
    }

private:
    void add(cred_kind k, std::uint32_t i, double amount) noexcept {
        if (i == no_cred) return;
        const std::size_t n = sizes_[index(k)];
        MFPRIO_ASSERT(i < n);
        if (i < n) usage_[index(k)][i] += amount;
    }

    /// Shifts every window by `k` (1 <= k <= depth): window w goes to w + k, the first k clear.
    void rotate(std::size_t k) noexcept {
        if (k == 0) return;
        for (std::size_t c = 0; c < cred_kind_count; ++c) {
            auto& u = usage_[c];
            const std::size_t n = sizes_[c];
            if (k < depth_) std::copy_backward(u.begin(), u.begin() + static_cast<std::ptrdiff_t>((depth_ - k) * n), u.end());
            std::fill(u.begin(), u.begin() + static_cast<std::ptrdiff_t>(std::min(k, depth_) * n), 0.0);
        }
        if (k < depth_)
            std::copy_backward(total_.begin(), total_.begin() + static_cast<std::ptrdiff_t>(depth_ - k),
                               total_.begin() + static_cast<std::ptrdiff_t>(depth_));
        std::fill(total_.begin(), total_.begin() + static_cast<std::ptrdiff_t>(std::min(k, depth_)), 0.0);
    }

    std::int64_t interval_;
    std::size_t depth_;
    double decay_;
    std::array<std::size_t, cred_kind_count> sizes_;
    std::array<double, max_fs_depth> weight_{};
    std::array<std::vector<double>, cred_kind_count> usage_{};
    std::array<double, max_fs_depth> total_{};
    std::int64_t start_ = 0;
    bool started_ = false;
};

/// Whether the FS component is computed (the context's `fs_active`): FSPOLICY is not NONE and
/// the effective total usage is positive.
[[nodiscard]] inline bool fs_active(const options& opts, const fs_ledger& ledger) noexcept {
    return opts.fs_policy != fs_metric::none && ledger.effective_total() > 0;
}

} // namespace mfprio::maui
