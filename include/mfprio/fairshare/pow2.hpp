#pragma once
/// \file
/// pow(2.0, y) with the C library's bits, mostly without calling it.
///
/// Slurm's classic factor is glibc's `pow(2.0, y)`, and mfprio must return the same double.
/// glibc's pow is within 0.511 ulp plus |y ln x| x 1.5 x 2^-15 ulp of the exact value
/// (`core/exact.hpp`). For x = 2 and |y| <= 64 that is at most 0.5131 ulp: wherever the
/// exact 2^y lies more than 0.0131 ulp away from the midpoint between two doubles, pow
/// returns the correctly rounded value, the nearest double.
///
/// `pow2` computes 2^y to within 0.0014 ulp (a table of 2^(j/1024) as double-doubles, a
/// degree-5 polynomial on |r| <= 1/2048; the bound is worked out in `pow2_nearest`), rounds
/// it, and keeps the result unless it lies within 1/64 ulp of a midpoint (0.0131 for pow,
/// 0.0014 for this approximation, 0.0011 margin); for |y| > 64, where pow's bound grows to
/// 0.5434 ulp at y = -1021, within 3/64. There, for NaN, and for results that would be
/// subnormal or overflow, it calls pow itself: about 3.5% of the reference tree's arguments.
/// Below -1100 the
/// result is 0, pow's too. `tests/fairshare_pow2.cpp` compares the two over hundreds of
/// thousands of arguments of every kind (uniform, near the table's points, tiny, random bit
/// patterns).
///
/// The shortcut assumes round-to-nearest, double arithmetic without excess precision, and
/// glibc's (or musl's) pow (`MFPRIO_POW_SHORTCUTS`): elsewhere, and with MFPRIO_POW_LIBM or
/// MFPRIO_POW2_LIBM defined, every argument goes to pow.

#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include <mfprio/core/exact.hpp>
#include <mfprio/core/simd.hpp>

namespace mfprio::fairshare::detail {

/// pow(2.0, y) from the C library. Clang rewrites pow(2.0, y) into exp2(y), whose result
/// differs from glibc's pow in the last bit about once in a thousand calls; an empty asm
/// statement hides the constant base from it.
[[nodiscard]] inline double libm_pow2(double y) noexcept {
    double base = 2.0;
#if defined(__GNUC__) || defined(__clang__)
    __asm__("" : "+m"(base));
#endif
    return std::pow(base, y);
}

#if MFPRIO_POW_SHORTCUTS && !defined(MFPRIO_POW2_LIBM)
#define MFPRIO_POW2_SHORTCUT 1
#else
#define MFPRIO_POW2_SHORTCUT 0
#endif

namespace pow2_table {

using ::mfprio::detail::dd;
using ::mfprio::detail::exact_product;

/// The double-double product of two double-doubles (relative error about 2^-104).
[[nodiscard]] constexpr dd product(dd a, dd b) noexcept {
    const dd p = exact_product(a.hi, b.hi);
    const double tail = p.lo + (a.hi * b.lo + a.lo * b.hi);
    const double hi = p.hi + tail;
    return {hi, tail - (hi - p.hi)};
}

/// 2^(2^b / 1024) for b = 0..9, as double-doubles (the nearest double, then the nearest
/// double to the rest; computed to 60 decimal digits).
inline constexpr dd roots[10] = {
    {0x1.002c605e2e8cfp+0, -0x1.d7c96f201bb2fp-55}, {0x1.0058c86da1c0ap+0, -0x1.5e00e62d6b30dp-56},
    {0x1.00b1afa5abcbfp+0, -0x1.4f6b2a7609f71p-55}, {0x1.0163da9fb3335p+0, 0x1.b61299ab8cdb7p-54},
    {0x1.02c9a3e778061p+0, -0x1.19083535b085dp-56}, {0x1.059b0d3158574p+0, 0x1.d73e2a475b465p-55},
    {0x1.0b5586cf9890fp+0, 0x1.8a62e4adc610bp-54},  {0x1.172b83c7d517bp+0, -0x1.19041b9d78a76p-55},
    {0x1.306fe0a31b715p+0, 0x1.6f46ad23182e4p-55},  {0x1.6a09e667f3bcdp+0, -0x1.bdd3413b26456p-54}};

/// 2^(j / 1024) for j = 0..1023: the product of the roots of j's bits (16 KiB).
[[nodiscard]] constexpr std::array<dd, 1024> make() noexcept {
    std::array<dd, 1024> t{};
    for (std::size_t j = 0; j < 1024; ++j) {
        dd v{1.0, 0.0};
        for (std::size_t b = 0; b < 10; ++b)
            if (((j >> b) & 1u) != 0) v = product(v, roots[b]);
        t[j] = v;
    }
    return t;
}

inline constexpr std::array<dd, 1024> values = make();

} // namespace pow2_table

/// 2^y rounded to the nearest double, and whether that is certainly what the C library's
/// pow(2.0, y) returns (`sure`). Computed for -1021 <= y <= 1000 (normal results); below
/// -1100 the result is +0.0 (2^y is far below half the smallest subnormal); elsewhere, NaN
/// included, `sure` is false. No branches.
[[nodiscard]] inline double pow2_nearest(double y, bool& sure) noexcept {
    const bool in_range = (y >= -1021.0) & (y <= 1000.0); // false for NaN
    const bool zero = y < -1100.0;
    const double x = in_range ? y : 0.0; // a branch, rarely mispredicted (a mask costs more)
    // x = k / 1024 + r, |r| <= 1/2048 (k = x * 1024 rounded, the shifter's trick; r exact).
    constexpr double shifter = 0x1.8p52;
    const double shifted = x * 1024.0 + shifter;
    const auto k = static_cast<std::int64_t>(std::bit_cast<std::uint64_t>(shifted) - std::bit_cast<std::uint64_t>(shifter));
    const double r = x - (shifted - shifter) * (1.0 / 1024.0);
    // 2^r - 1 = e^p - 1, p = r ln 2 (|p| < 2^-11.5), to degree 5 (the next term is below
    // 2^-78). Errors: p, ln 2 rounded (2^-66.3) and the product rounded (2^-65); q rounded
    // (2^-65), the rest below 2^-75: q is within 2^-63.7 of e^(r ln 2) - 1.
    const double p = r * 0x1.62e42fefa39efp-1;
    const double p2 = p * p;
    const double q = p + p2 * ((0.5 + p * (1.0 / 6.0)) + p2 * (1.0 / 24.0 + p * (1.0 / 120.0)));
    // 2^(j/1024) (1 + q) = t_hi + (t_hi q + t_lo), rounded, with the rounding's remainder
    // exact (Fast2Sum). Errors in s: t_hi times q's (2^-62.7 for t_hi < 2, 2^-63.7 for the
    // t_hi = 1 of results below 1), t_hi q and s rounded (2^-64 each: |s| < 2^-10.4), t_lo q
    // left out (2^-64.4): below 2^-61.6 in all, 2^-62.5 for results below 1, so at most
    // 0.0014 of the gap below.
    const pow2_table::dd t = pow2_table::values[static_cast<std::size_t>(k & 1023)];
    const double s = t.hi * q + t.lo;
    const double hi = t.hi + s;
    const double rest = s - (hi - t.hi);
    // The gap between the doubles around hi, which lies in [0.9996, 1.9997]: 2^-52 above 1,
    // 2^-53 below; hi = 1.0 takes the smaller (its gap below), which can only make the
    // test stricter.
    const double gap = 0x1p-52 - 0x1p-53 * static_cast<double>(hi <= 1.0);
    // How far from a midpoint 2^y must be: pow's error beyond 0.5 ulp (0.0131 for |y| <= 64,
    // 0.0434 up to 1021) plus this approximation's (0.0014), with margin: 1/64 of the gap,
    // or 3/64 beyond 64.
    const double limit = (31.0 / 64.0 - 2.0 / 64.0 * static_cast<double>(std::fabs(x) > 64.0)) * gap;
    sure = (in_range & (std::fabs(rest) <= limit)) | zero;
    // x 2^(k >> 10): exact, the result is normal for -1021 <= x <= 1000.
    const double v = hi * std::bit_cast<double>(static_cast<std::uint64_t>((k >> 10) + 1023) << 52);
    return std::bit_cast<double>(std::bit_cast<std::uint64_t>(v) & (static_cast<std::uint64_t>(zero) - 1)); // no branch
}

/// `pow2_nearest` of two arguments at once: the same operations in the same order on each
/// lane (so the same bits). Returns the two results; `sure` gets bit i set when lane i's
/// result is certain.
[[nodiscard]] inline simd::f64x2 pow2_nearest2(simd::f64x2 y, int& sure) noexcept {
    using simd::f64x2;
    using simd::u64x2;
    const f64x2 in_range = (y >= f64x2::all(-1021.0)) & (y <= f64x2::all(1000.0));
    const f64x2 zero = y < f64x2::all(-1100.0);
    const f64x2 x = simd::keep(in_range, y); // +0.0 out of range
    const f64x2 shifter = f64x2::all(0x1.8p52);
    const f64x2 shifted = x * f64x2::all(1024.0) + shifter;
    const u64x2 k = u64x2::bits_of(shifted) - u64x2::bits_of(shifter);
    const f64x2 r = x - (shifted - shifter) * f64x2::all(1.0 / 1024.0);
    const f64x2 p = r * f64x2::all(0x1.62e42fefa39efp-1);
    const f64x2 p2 = p * p;
    const f64x2 inner = (f64x2::all(0.5) + p * f64x2::all(1.0 / 6.0)) +
                        p2 * (f64x2::all(1.0 / 24.0) + p * f64x2::all(1.0 / 120.0));
    const f64x2 q = p + p2 * inner;
    const u64x2 j = k & u64x2::all(1023);
    const pow2_table::dd& t0 = pow2_table::values[j.low32_lane0()];
    const pow2_table::dd& t1 = pow2_table::values[j.low32_lane1()];
    const f64x2 thi = f64x2::load(&t0.hi, &t1.hi);
    const f64x2 tlo = f64x2::load(&t0.lo, &t1.lo);
    const f64x2 s = thi * q + tlo;
    const f64x2 hi = thi + s;
    const f64x2 rest = s - (hi - thi);
    const f64x2 magnitude = u64x2::all(0x7fffffffffffffff).as_double();
    const f64x2 gap = f64x2::all(0x1p-52) - simd::keep(hi <= f64x2::all(1.0), f64x2::all(0x1p-53));
    const f64x2 wide = (x & magnitude) > f64x2::all(64.0);
    const f64x2 limit = (f64x2::all(31.0 / 64.0) - simd::keep(wide, f64x2::all(2.0 / 64.0))) * gap;
    sure = bits((in_range & ((rest & magnitude) <= limit)) | zero);
    // 2^(k >> 10) as bits: (k >> 10) + 1023 = (k + 1023 x 1024) >> 10 with a logical shift,
    // as k + 1023 x 1024 > 0 for every k here (x >= -1021).
    const u64x2 e = ((k + u64x2::all(1023 * 1024)) >> 10) << 52;
    return clear_where(zero, hi * e.as_double());
}

/// pow(2.0, y) as the C library computes it (see the file comment).
[[nodiscard]] inline double pow2(double y) noexcept {
#if MFPRIO_POW2_SHORTCUT
    bool sure = false;
    const double v = pow2_nearest(y, sure);
    if (sure) [[likely]]
        return v;
#endif
    return libm_pow2(y);
}

/// pow(2.0, y) for a stream of arguments, each result written where the caller asks, in
/// batches: `put` queues an argument and where its result goes; `flush` (called when the
/// queue is full, and when the writer is destroyed) computes the queued results with the
/// shortcut, then calls pow for the arguments it is not sure of. A pass that computes the
/// arguments (long double divisions) and their powers one after the other keeps both long
/// dependency chains of every association in flight at once and fills the processor's
/// reorder window; in batches each loop overlaps its own iterations, and no branch depends
/// on the data. A caller that reads a result it wrote must `flush` first.
class pow2_writer {
public:
    pow2_writer() = default;
    pow2_writer(const pow2_writer&) = delete;
    pow2_writer& operator=(const pow2_writer&) = delete;
    ~pow2_writer() { flush(); }

    /// Writes pow(2.0, y) to `*out` at the next flush.
    void put(double y, double* out) noexcept {
        args_[count_] = y;
        outs_[count_] = out;
        if (++count_ == capacity) flush();
    }

    /// Writes the queued results.
    void flush() noexcept {
#if MFPRIO_POW2_SHORTCUT
        std::uint64_t unsure = 0; // bit k: the k-th result is pow's to compute
        std::size_t k = 0;
        for (; k + 2 <= count_; k += 2) {
            int sure = 0;
            pow2_nearest2(simd::f64x2::load(args_ + k), sure).store(outs_[k], outs_[k + 1]);
            unsure |= static_cast<std::uint64_t>(~sure & 3) << k;
        }
        for (; k < count_; ++k) {
            bool sure = false;
            *outs_[k] = pow2_nearest(args_[k], sure);
            unsure |= static_cast<std::uint64_t>(!sure) << k;
        }
        for (; unsure != 0; unsure &= unsure - 1) {
            const auto i = static_cast<std::size_t>(std::countr_zero(unsure));
            *outs_[i] = libm_pow2(args_[i]);
        }
#else
        for (std::size_t k = 0; k < count_; ++k) *outs_[k] = libm_pow2(args_[k]);
#endif
        count_ = 0;
    }

private:
    static constexpr std::size_t capacity = 64;
    std::size_t count_ = 0;
    double args_[capacity];
    double* outs_[capacity];
};

} // namespace mfprio::fairshare::detail
