#pragma once
/// \file
/// A linear fair-share curve, an option (not something Slurm does). It models seed 004's
/// description of its fair-share factor: "When consumed TRES seconds is equal to the share
/// of TRES seconds relative to the entire cluster, the FairShare factor will be 0.5, when
/// consumed TRES seconds exceeds double the share for the entire cluster, the FairShare
/// factor will be zero."
///
/// The page gives two points of a curve and the factor's usual value 1 at no usage; the
/// straight line through them is
///
///     F = max(0, 1 - UE / (2 S))
///
/// with UE and S the classic effective usage and normalized shares (the share "relative to
/// the entire cluster" is the classic whole-machine share), so F = 1 at no usage, 0.5 at
/// UE = S and 0 from UE = 2S on. As in classic, a FairShare=parent association uses its fs
/// parent's UE and S, and S <= 0 gives 0. There is no dampening: the page's two points fix
/// the slope. (Slurm itself, which that site runs, computes 2^(-UE/S), which also gives 0.5
/// at UE = S but only 0.25 at 2S: the page describes its policy, so mfprio offers both.)

#include <cstdint>

#include <mfprio/core/assert.hpp>
#include <mfprio/fairshare/classic.hpp>
#include <mfprio/fairshare/columns.hpp>
#include <mfprio/fairshare/tree.hpp>

namespace mfprio::fairshare {

/// The linear factor max(0, 1 - UE / (2 S)); 0 if S <= 0. Computed in long double, like
/// the classic quotient UE / S, and rounded to double once.
[[nodiscard]] inline double linear_factor(long double ue, double s) noexcept {
    if (s <= 0.0) return 0.0;
    const long double f = 1.0L - ue / (2.0L * static_cast<long double>(s));
    return f > 0.0L ? static_cast<double>(f) : 0.0;
}

/// The linear fair-share over the whole tree: `shares_norm` and `usage_efctv` as classic
/// (whole-machine product and classic effective usage), `fs_factor` = linear_factor of
/// the association (or its fs parent for FairShare=parent), `has_level_fs = false`
/// (`level_fs` empty).
/// `threads` as for `classic`.
inline void linear(const tree& t, columns& c, unsigned threads = 1) {
    detail::classic_sweep(t, c, [](long double ue, double s, double* out, detail::pow2_writer&) noexcept {
        *out = linear_factor(ue, s);
    }, threads);
}

} // namespace mfprio::fairshare
