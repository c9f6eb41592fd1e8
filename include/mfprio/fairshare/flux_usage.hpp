#pragma once
/// \file
/// flux-accounting's job usage and its usage bins (reference A2.6;
/// `job_usage_calculation.py`, `flux account update-usage`).
///
/// - A job's usage is `(nnodes·node_weight + ncores·core_weight + ngpus·gpu_weight) ·
///   elapsed_seconds`, rounded to 5 decimals as Python's round(x, 5) does (defaults: node
///   1, core 0, gpu 0, i.e. node-seconds).
/// - Each association has N = PriorityUsageResetPeriod / PriorityDecayHalfLife bins
///   (defaults 4 weeks / 1 week = 4); bin 0 is the current half-life period.
/// - When a half-life period has passed the bins rotate: every bin moves one period older
///   and is multiplied by the decay factor once (default 0.5), the oldest falls off, bin 0
///   starts again at 0 (since PR #816: `flux_decay::per_rotation`).
/// - Historical usage = Σ bins. A bank's usage is the sum over its sub-banks, or over its
///   associations when it has no sub-banks, up to the root.
///
/// `flux_decay::cumulative` reproduces the documented model (job-usage-calculation.rst)
/// that predates PR #816: bins keep each period's raw usage and past period i (1 = the
/// most recent completed one) counts D^i times when the historical usage is formed, i.e.
/// `current + Σ D^(k+1)·past[k]`. For data that went through the same rotations both modes
/// give the same sums in exact arithmetic; they differ in rounding and in what is stored.

#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <system_error>
#include <vector>

#include <mfprio/core/assert.hpp>
#include <mfprio/fairshare/tree.hpp>

namespace mfprio::fairshare {

/// flux-accounting's per-resource usage weights.
struct flux_usage_weights {
    double node = 1.0; ///< per node-second
    double core = 0.0; ///< per core-second
    double gpu = 0.0;  ///< per GPU-second
};

/// Python's `round(x, digits)`: the double nearest to x's exact value rounded to `digits`
/// decimals (ties to even on the exact binary value). Infinite and NaN values pass through.
[[nodiscard]] inline double round_decimals(double x, int digits) noexcept {
    if (!std::isfinite(x)) return x;
    char buf[400]; // DBL_MAX in fixed notation is 309 digits
    const auto r = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::fixed, digits);
    if (r.ec != std::errc{}) return x;
    double out = x;
    std::from_chars(buf, r.ptr, out);
    return out;
}

/// The usage of one finished job: `(nnodes·w.node + ncores·w.core + ngpus·w.gpu) ·
/// elapsed`, rounded to 5 decimals.
[[nodiscard]] inline double flux_job_usage(double nnodes, double ncores, double ngpus, double elapsed,
                                           flux_usage_weights w = {}) noexcept {
    return round_decimals((nnodes * w.node + ncores * w.core + ngpus * w.gpu) * elapsed, 5);
}

/// How the bins decay (see the file comment).
enum class flux_decay : std::uint8_t {
    per_rotation, ///< current flux-accounting: each rotation multiplies every bin by D once
    cumulative,   ///< the documented pre-PR #816 model: raw bins, past bin i weighted D^i
};

/// The usage-bin parameters of a flux-accounting database.
struct flux_usage_config {
    std::int64_t half_life = 604800;        ///< PriorityDecayHalfLife in seconds (flux: weeks; default 1)
    std::int64_t reset_period = 4 * 604800; ///< PriorityUsageResetPeriod in seconds (default 4 weeks)
    double decay_factor = 0.5;              ///< D, applied once per rotation
    flux_decay mode = flux_decay::per_rotation;

    /// N = reset_period / half_life (integer division), at least 1.
    [[nodiscard]] constexpr std::size_t bin_count() const noexcept {
        if (half_life <= 0 || reset_period < half_life) return 1;
        return static_cast<std::size_t>(reset_period / half_life);
    }
};

/// The documented historical usage: `current + Σ_k past[k]·D^(k+1)` (past[0] = the most
/// recent completed period), the past terms summed first, as the Python code does.
[[nodiscard]] inline double flux_historical_cumulative(double current, std::span<const double> past,
                                                       double decay_factor = 0.5) noexcept {
    double sum = 0.0;
    for (std::size_t k = 0; k < past.size(); ++k)
        sum += past[k] * std::pow(decay_factor, static_cast<double>(k + 1));
    return current + sum;
}

/// The usage bins of every association (`job_usage_factor_table`): `bin_count()` doubles
/// per association, contiguous. Associations are indexed as the caller likes (e.g. tree
/// indices, see `write_to`).
class flux_usage_bins {
public:
    /// `associations` associations with all bins at 0.
    explicit flux_usage_bins(std::size_t associations, flux_usage_config cfg = {})
        : cfg_(cfg), n_(cfg.bin_count()), bins_(associations * n_, 0.0) {}

    [[nodiscard]] const flux_usage_config& config() const noexcept { return cfg_; }
    [[nodiscard]] std::size_t associations() const noexcept { return bins_.size() / n_; }
    /// N, the number of bins per association.
    [[nodiscard]] std::size_t bin_count() const noexcept { return n_; }

    /// The bins of association `a`, period 0 (current) first.
    [[nodiscard]] std::span<double> bins(std::size_t a) noexcept {
        MFPRIO_ASSERT(a < associations());
        return {bins_.data() + a * n_, n_};
    }
    [[nodiscard]] std::span<const double> bins(std::size_t a) const noexcept {
        MFPRIO_ASSERT(a < associations());
        return {bins_.data() + a * n_, n_};
    }

    /// Adds a finished job's usage to the current period of association `a`.
    void add(std::size_t a, double usage) noexcept { bins(a)[0] += usage; }

    /// The end of a half-life period: every bin moves one period older (multiplied by D
    /// once in `per_rotation` mode, kept raw in `cumulative` mode), the oldest falls off,
    /// and the current period restarts at 0.
    void rotate() noexcept {
        const double d = cfg_.mode == flux_decay::per_rotation ? cfg_.decay_factor : 1.0;
        for (std::size_t a = 0, n = associations(); a < n; ++a) {
            double* b = bins_.data() + a * n_;
            for (std::size_t i = n_; i-- > 1;) b[i] = b[i - 1] * d;
            b[0] = 0.0;
        }
    }

    /// When the current half-life period ends (t_half_life_period_table's
    /// end_half_life_period), in seconds since the epoch.
    [[nodiscard]] double period_end() const noexcept { return period_end_; }
    void set_period_end(double t) noexcept { period_end_ = t; }

    /// update-usage's clock: when `period_end < now − half_life` the bins rotate once and the
    /// period end advances by one half-life (once per call, as flux's check_end_hl does).
    /// Returns whether it rotated. Simplification: flux decides per association, also from
    /// the time of its newest job; here all associations rotate together.
    bool rotate_if_due(double now) noexcept {
        const double hl = static_cast<double>(cfg_.half_life);
        if (!(period_end_ < now - hl)) return false;
        rotate();
        period_end_ += hl;
        return true;
    }

    /// Historical usage of association `a`: Σ bins (per_rotation), or bin 0 + Σ_i D^i·bin i
    /// (cumulative).
    [[nodiscard]] double historical(std::size_t a) const noexcept {
        const auto b = bins(a);
        if (cfg_.mode == flux_decay::cumulative) return flux_historical_cumulative(b[0], b.subspan(1), cfg_.decay_factor);
        double sum = 0.0;
        for (const double v : b) sum += v;
        return sum;
    }

    /// Clears the bins of association `a` (flux account clear-usage).
    void clear(std::size_t a) noexcept {
        for (double& v : bins(a)) v = 0.0;
    }
    /// Clears every bin (flux resets all usage when the half-life, reset period or decay
    /// factor is reconfigured).
    void clear() noexcept {
        for (double& v : bins_) v = 0.0;
    }

    /// Writes usage into tree `t` (bins indexed by tree index): each user association gets
    /// its historical usage; each account gets the sum over its sub-accounts, or over its
    /// users when it has no sub-accounts (flux ignores the users of a bank that has
    /// sub-banks), up to the root. Requires `associations() >= t.size()`.
    void write_to(tree& t) const {
        MFPRIO_ASSERT(associations() >= t.size());
        const std::size_t n = t.size();
        std::vector<std::uint8_t> has_sub(n, 0);
        for (std::size_t a = 1; a < n; ++a)
            if (!t.user[a]) has_sub[t.parent[a]] = 1;
        std::vector<double> u(n, 0.0); // flux sums in Python floats (double)
        for (std::size_t a = 0; a < n; ++a)
            if (t.user[a]) u[a] = historical(a);
        for (std::size_t a = n; a-- > 1;) {
            const std::uint32_t p = t.parent[a];
            if (!t.user[a] || !has_sub[p]) u[p] += u[a];
        }
        for (std::size_t a = 0; a < n; ++a) t.usage_raw[a] = u[a];
    }

private:
    flux_usage_config cfg_;
    std::size_t n_;
    std::vector<double> bins_;
    double period_end_ = 0.0;
};

} // namespace mfprio::fairshare
