#pragma once
/// \file
/// Exact products (double-doubles), and the condition under which mfprio computes some of
/// the C library's powers itself.
///
/// Slurm and Maui call pow, and mfprio must return the same double. glibc's pow (2.28 on;
/// musl's is the same code) is not correctly rounded, but its error is bounded: its source
/// gives 0.509 ulp for the final exp step (0.511 without FMA) plus the log step's relative
/// error, 1.5 x 2^-68 at most, amplified by |y log x|. So where the exact x^y lies far
/// enough from a midpoint between two doubles (0.011 ulp plus |y ln x| x 1.5 x 2^-15 ulp),
/// pow returns the nearest double, which can be computed without calling it. The
/// shortcuts built on this (`fairshare::detail::pow2`, `maui::target_power`) compute the
/// power to well within that margin, keep the nearest double when it is certain, and call
/// pow for the rest.
///
/// MFPRIO_POW_SHORTCUTS is 1 where that holds: glibc or another Linux C library but
/// Android's, round-to-nearest double arithmetic without excess precision, no fast-math.
/// Defining MFPRIO_POW_LIBM turns every shortcut off (every power goes to pow).

#include <cfloat>

#if !defined(MFPRIO_POW_LIBM) && (defined(__GLIBC__) || (defined(__linux__) && !defined(__ANDROID__))) && \
    FLT_EVAL_METHOD == 0 && !defined(__FAST_MATH__)
#define MFPRIO_POW_SHORTCUTS 1
#else
#define MFPRIO_POW_SHORTCUTS 0
#endif

namespace mfprio::detail {

/// A double-double: the value hi + lo, |lo| <= ulp(hi) / 2.
struct dd {
    double hi;
    double lo;
};

/// a x b exactly, as hi + lo (Dekker's product: no FMA needed, constexpr). Exact when
/// |a|, |b| < 2^996 and the product's low part is not subnormal.
[[nodiscard]] constexpr dd exact_product(double a, double b) noexcept {
    constexpr double split = 134217729.0; // 2^27 + 1
    const double p = a * b;
    const double sa = split * a;
    const double a_hi = sa - (sa - a);
    const double a_lo = a - a_hi;
    const double sb = split * b;
    const double b_hi = sb - (sb - b);
    const double b_lo = b - b_hi;
    return {p, ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo};
}

} // namespace mfprio::detail
