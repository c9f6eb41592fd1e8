#pragma once
/// \file
/// Usage decay of Slurm's priority/multifactor (`PriorityDecayHalfLife`, reference §2.1).
///
/// Slurm does not use 2^(-1/hl) as its per-second decay constant but the first-order
/// approximation `D = 1 - 0.693/hl` (hl in seconds; hl 0 means no decay, D = 1), and decays
/// usage over Δ seconds by `pow(D, Δ)` in double, floored at DBL_MIN. So D^hl is not 0.5:
/// hl = 604800 s gives 0.5000733971527376 (reference quirk 2). `half_life_mode::exact` offers
/// the textbook decay 2^(-Δ/hl), which is exactly 0.5 over one half-life.

#include <cfloat>
#include <cmath>
#include <cstdint>

namespace mfprio::fairshare {

/// How a half-life becomes a decay: Slurm's approximation (default) or the exact one.
enum class half_life_mode : std::uint8_t {
    slurm, ///< D = 1 - 0.693/hl, decay over Δ = pow(D, Δ) (what slurmctld computes)
    exact, ///< D = 2^(-1/hl), decay over Δ = 2^(-Δ/hl) (0.5 after exactly one half-life)
};

/// Slurm's per-second decay constant for a half-life of `half_life` seconds:
/// `1 - 0.693/hl`, or 1 (no decay) when hl <= 0.
[[nodiscard]] constexpr double slurm_decay_constant(std::int64_t half_life) noexcept {
    return half_life > 0 ? 1.0 - 0.693 / static_cast<double>(half_life) : 1.0;
}

/// The decay of `PriorityDecayHalfLife`: a half-life in seconds and the per-second constant
/// derived from it. Default: Slurm's default half-life, 7 days (604800 s), Slurm's formula.
class decay_rate {
public:
    /// Slurm's default: hl = 604800 s, `half_life_mode::slurm`.
    constexpr decay_rate() noexcept = default;

    /// A half-life of `half_life` seconds (<= 0: no decay) computed the `mode` way.
    explicit decay_rate(std::int64_t half_life, half_life_mode mode = half_life_mode::slurm) noexcept
        : half_life_(half_life > 0 ? half_life : 0), mode_(mode),
          d_(mode == half_life_mode::exact && half_life > 0
                 ? std::exp2(-1.0 / static_cast<double>(half_life))
                 : slurm_decay_constant(half_life)) {}

    /// PriorityDecayHalfLife in seconds (0 = no decay).
    [[nodiscard]] constexpr std::int64_t half_life() const noexcept { return half_life_; }
    /// How the decay is computed.
    [[nodiscard]] constexpr half_life_mode mode() const noexcept { return mode_; }
    /// The per-second constant D (Slurm's `decay_factor`); 1 when there is no decay.
    [[nodiscard]] constexpr double per_second() const noexcept { return d_; }
    /// False when the half-life is 0: usage never decays (then only
    /// PriorityUsageResetPeriod clears it).
    [[nodiscard]] constexpr bool decays() const noexcept { return half_life_ > 0; }

    /// The factor usage is multiplied by over `seconds` (Slurm's `real_decay`): pow(D, Δ) in
    /// double (exact mode: 2^(-Δ/hl)), floored at DBL_MIN; 1 when there is no decay.
    [[nodiscard]] double over(double seconds) const noexcept {
        if (half_life_ == 0) return 1.0;
        const double f = raw(seconds);
        return f < DBL_MIN ? DBL_MIN : f;
    }

    /// Slurm's `run_decay` for a job that ran `seconds` in a pass: Δ·D^Δ, the interval's own
    /// usage decayed once more (reference §2.3). Not floored, as in Slurm. Δ when no decay.
    [[nodiscard]] double decayed_interval(double seconds) const noexcept {
        if (half_life_ == 0) return seconds;
        return seconds * raw(seconds);
    }

private:
    [[nodiscard]] double raw(double seconds) const noexcept {
        return mode_ == half_life_mode::exact ? std::exp2(-seconds / static_cast<double>(half_life_))
                                              : std::pow(d_, seconds);
    }

    std::int64_t half_life_ = 604800;
    half_life_mode mode_ = half_life_mode::slurm;
    double d_ = slurm_decay_constant(604800);
};

} // namespace mfprio::fairshare
