// pow(d, -2) as the C library computes it (Maui's TARGETXFACTOR, and Maui 3.3's
// TARGETQUEUETIME), with the shortcut of maui/factors.hpp: the same bits as a real pow call
// for every argument, most of them without the call.

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <doctest/doctest.h>

#include <mfprio/maui/factors.hpp>

namespace {

namespace mm = mfprio::maui;

/// The bits of a real pow(d, -2.0) call (volatile: nothing folded or rewritten).
double real_pow(double d) {
    volatile double base = d;
    volatile double exponent = -2.0;
    return std::pow(base, exponent);
}

bool same_bits(double a, double b) {
    return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b) || (std::isnan(a) && std::isnan(b));
}

/// Arguments of every kind: TARGETXFACTOR's usual ones (XFTARGET less an expansion factor:
/// 0.0001 up to a few hundred), log-uniform over and beyond the shortcut's range, values next
/// to powers of two, random bit patterns (negative, huge, tiny, NaN among them).
std::vector<double> arguments(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 g(seed);
    std::uniform_real_distribution<double> usual(0.0001, 16.0), exponent(-30.0, 30.0), unit(-1.0, 1.0);
    std::vector<double> ds;
    ds.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        double d = 0.0;
        switch (i % 4) {
        case 0: d = usual(g); break;
        case 1: d = std::exp2(exponent(g)); break;
        case 2: d = std::ldexp(1.0 + unit(g) * std::ldexp(1.0, -static_cast<int>(g() % 52)), static_cast<int>(g() % 40) - 20); break;
        default: d = std::bit_cast<double>(g()); break;
        }
        ds.push_back(d);
    }
    return ds;
}

/// Where the exact 1/d^2 lies between two doubles, in units of their gap (0.5: the midpoint),
/// from long double arithmetic (64-bit mantissa: the quotient is good to about 2^-63
/// relative, 1/1000 of a double's gap, finer than the 1/128 asked below).
long double position(double d) {
    const long double x = static_cast<long double>(d);
    const long double exact = 1.0L / (x * x);
    int e = 0;
    (void)std::frexp(static_cast<double>(exact), &e);
    const long double gap = std::ldexp(1.0L, e - 53);
    return exact / gap - std::floor(exact / gap);
}

} // namespace

TEST_CASE("target_power: the same bits as the C library's pow(d, -2) for every kind of argument") {
    const std::vector<double> ds = arguments(800000, 20261122);
    std::size_t differ = 0, sure = 0;
    for (const double d : ds) {
        const double want = real_pow(d);
        differ += same_bits(mm::target_power(d), want) ? 0 : 1;
        bool s = false;
        const double v = mm::detail::inverse_square_nearest(d, s);
        if (s) {
            ++sure;
            differ += same_bits(v, want) ? 0 : 1; // sure means pow's bits
        }
    }
    CHECK(differ == 0);
#if MFPRIO_POW_SHORTCUTS
    // A quarter are random bit patterns, nearly all out of range, and a third of the
    // log-uniform ones lie beyond 2^+-20; of the rest about 1/32 lie near a midpoint:
    // about 65% are sure.
    CHECK(sure >= ds.size() * 6 / 10);
#endif
}

TEST_CASE("target_power: unsure only of the arguments within 1/64 of a gap from a midpoint") {
    std::mt19937_64 g(5);
    std::uniform_real_distribution<double> exponent(-20.0, 20.0);
    const std::size_t n = 200000;
    std::size_t unsure = 0;
    for (std::size_t i = 0; i < n; ++i) {
        bool s = false;
        (void)mm::detail::inverse_square_nearest(std::exp2(exponent(g)), s);
        unsure += s ? 0 : 1;
    }
    INFO("unsure: " << unsure << " of " << n);
#if MFPRIO_POW_SHORTCUTS
    CHECK(unsure >= n / 40); // about n / 32
    CHECK(unsure <= n / 26);
#else
    CHECK(unsure == n); // no shortcut: every argument goes to pow
#endif
}

TEST_CASE("target_power: arguments whose 1/d^2 lies near a midpoint are not sure") {
    // There pow's own error (up to 0.5123 ulp here) decides the last bit.
    std::mt19937_64 g(13);
    std::uniform_real_distribution<double> usual(0.0001, 10.0);
    int found = 0;
    for (int i = 0; i < 400000 && found < 40; ++i) {
        const double d = usual(g);
        if (std::fabs(position(d) - 0.5L) >= 1.0L / 128.0L) continue;
        ++found;
        bool s = true;
        (void)mm::detail::inverse_square_nearest(d, s);
        CHECK_FALSE(s);
        CHECK(same_bits(mm::target_power(d), real_pow(d)));
    }
    CHECK(found >= 20);
}

TEST_CASE("target_power: special and boundary arguments") {
    const double inf = std::numeric_limits<double>::infinity();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double special[] = {0.0001, 0.0, -0.0, 1.0, -1.0, 2.0, 0.5, 3.0, 0x1p-20, 0x1p20, 0x1.fffffffffffffp-21,
                              0x1.0000000000001p20, 0x1.fffffffffffffp-1, 0x1.0000000000001p0, 1e-300, 1e300,
                              0x1p-1074, inf, -inf, nan, -2.5, 99999.0, 7.999999999};
    for (const double d : special) {
        INFO("d = " << d);
        CHECK(same_bits(mm::target_power(d), real_pow(d)));
    }
    bool s = true;
    (void)mm::detail::inverse_square_nearest(nan, s);
    CHECK_FALSE(s);
    (void)mm::detail::inverse_square_nearest(-3.0, s); // negative: out of range
    CHECK_FALSE(s);
    (void)mm::detail::inverse_square_nearest(0x1p21, s);
    CHECK_FALSE(s);
#if MFPRIO_POW_SHORTCUTS
    CHECK(mm::detail::inverse_square_nearest(0.25, s) == 16.0); // exact powers of two are sure
    CHECK(s);
    CHECK(mm::detail::inverse_square_nearest(3.0, s) == 1.0 / 9.0);
    CHECK(s);
    // The ceiling of TARGETXFACTOR: pow(0.0001, -2) is one step below 1e8 (reference B2).
    CHECK(mm::detail::inverse_square_nearest(0.0001, s) == 99999999.999999985);
    CHECK(s);
#endif
}

TEST_CASE("target_power: the midpoint test takes the gap on each side of z") {
    // Around 3.0 the gap is 2^-51 on both sides: sure up to 31/64 of it from z.
    CHECK(mm::detail::clear_of_midpoint(3.0, 0.48 * 0x1p-51));
    CHECK(mm::detail::clear_of_midpoint(3.0, -0.48 * 0x1p-51));
    CHECK_FALSE(mm::detail::clear_of_midpoint(3.0, 0.49 * 0x1p-51));
    CHECK_FALSE(mm::detail::clear_of_midpoint(3.0, -0.49 * 0x1p-51));
    // At 2.0 the gap below (2^-52) is half the gap above (2^-51): a value 0.24 of the gap
    // above below 2.0 is 0.48 of the gap below, too near that midpoint to be sure of.
    CHECK(mm::detail::clear_of_midpoint(2.0, 0.24 * 0x1p-51));
    CHECK(mm::detail::clear_of_midpoint(2.0, -0.48 * 0x1p-52));
    CHECK_FALSE(mm::detail::clear_of_midpoint(2.0, -0.49 * 0x1p-52));
    CHECK(mm::detail::clear_of_midpoint(0x1p-40, 0.0));
    CHECK_FALSE(mm::detail::clear_of_midpoint(0x1.8p-40, 0.5 * 0x1p-92));
}
