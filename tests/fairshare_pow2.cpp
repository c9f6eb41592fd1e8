// pow(2.0, y) as the C library computes it, with the shortcut of fairshare/pow2.hpp: the
// same bits as a real pow call for every argument (Slurm's classic factor is glibc's pow),
// most of them without the call.

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <doctest/doctest.h>

#include <mfprio/fairshare/pow2.hpp>

namespace {

namespace d = mfprio::fairshare::detail;

/// The bits of a real pow(2.0, y) call (volatile: no compiler folds it into exp2).
double real_pow(double y) {
    volatile double two = 2.0;
    volatile double arg = y;
    return std::pow(two, arg);
}

bool same_bits(double a, double b) {
    return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b) || (std::isnan(a) && std::isnan(b));
}

/// Arguments of every kind: uniform over the classic factor's usual range and over the
/// whole normal range, tiny ones, ones next to the table's points k/1024, random bit patterns.
std::vector<double> arguments(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 g(seed);
    std::uniform_real_distribution<double> usual(-64.0, 64.0), wide(-1200.0, 1010.0), unit(-1.0, 1.0);
    std::vector<double> ys;
    ys.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        double y = 0.0;
        switch (i % 5) {
        case 0: y = usual(g); break;
        case 1: y = wide(g); break;
        case 2: y = unit(g) * std::ldexp(1.0, -static_cast<int>(g() % 60)); break;
        case 3: y = std::bit_cast<double>(g()); break;
        default: y = std::round(usual(g) * 1024.0) / 1024.0 + unit(g) * std::ldexp(1.0, -static_cast<int>(g() % 50)); break;
        }
        ys.push_back(y);
    }
    return ys;
}

} // namespace

TEST_CASE("pow2: the table holds 2^(j/1024) to double-double precision") {
    // exp2l (64-bit mantissa) checks every entry to about 2^-63; the entries themselves are
    // products of the 10 roots, good to about 2^-100.
    REQUIRE(d::pow2_table::values.size() == 1024);
    for (std::size_t j = 0; j < 1024; ++j) {
        const auto& e = d::pow2_table::values[j];
        const long double exact = exp2l(static_cast<long double>(j) / 1024.0L);
        const long double got = static_cast<long double>(e.hi) + static_cast<long double>(e.lo);
        CHECK(std::fabs(got - exact) <= exact * 0x1p-61L);
        CHECK(std::fabs(e.lo) <= std::ldexp(0.5, std::ilogb(e.hi) - 52)); // normalized pair
    }
    CHECK(d::pow2_table::values[0].hi == 1.0);
    CHECK(d::pow2_table::values[0].lo == 0.0);
    CHECK(d::pow2_table::values[512].hi == 0x1.6a09e667f3bcdp+0); // sqrt(2) rounded
}

TEST_CASE("pow2: the same bits as the C library's pow for every kind of argument") {
    const std::vector<double> ys = arguments(600000, 20261122);
    std::size_t differ = 0, sure = 0;
    std::vector<double> queued(ys.size());
    {
        d::pow2_writer w;
        for (std::size_t i = 0; i < ys.size(); ++i) w.put(ys[i], &queued[i]);
    } // the writer's destructor writes what still waits
    for (std::size_t i = 0; i < ys.size(); ++i) {
        const double want = real_pow(ys[i]);
        differ += same_bits(d::pow2(ys[i]), want) ? 0 : 1;
        differ += same_bits(queued[i], want) ? 0 : 1;
        bool s = false;
        const double v = d::pow2_nearest(ys[i], s);
        if (s) {
            ++sure;
            differ += same_bits(v, want) ? 0 : 1; // sure means pow's bits
        }
    }
    CHECK(differ == 0);
#if MFPRIO_POW2_SHORTCUT
    // The shortcut must carry most arguments: a fifth are random bit patterns (half of
    // them out of its range), and 1/32 to 3/32 of the rest lie near a midpoint.
    CHECK(sure >= ys.size() * 7 / 10);
#endif
}

TEST_CASE("pow2: pow2_nearest is unsure only of the arguments within 1/64 ulp of a midpoint") {
    // For |y| <= 64 the band is 1/64 ulp on each side of a midpoint: 1/32 of uniform
    // arguments.
    std::mt19937_64 g(11);
    std::uniform_real_distribution<double> usual(-64.0, 64.0);
    const std::size_t n = 200000;
    std::size_t unsure = 0;
    for (std::size_t i = 0; i < n; ++i) {
        bool s = false;
        (void)d::pow2_nearest(usual(g), s);
        unsure += s ? 0 : 1;
    }
    INFO("unsure: " << unsure << " of " << n);
    CHECK(unsure >= n / 40); // about n / 32
    CHECK(unsure <= n / 26);
}

TEST_CASE("pow2: special and boundary arguments") {
    const double inf = std::numeric_limits<double>::infinity();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double special[] = {0.0,     -0.0,    1.0,     -1.0,    0.5,      -0.5,     64.0,    -64.0,  0x1.0000000000001p6,
                              -1021.0, -1021.5, -1022.0, -1074.0, -1075.0,  -1075.5,  -1099.9, -1100.0, -1100.5,
                              -2000.0, 1000.0,  1000.1,  1023.0,  1024.0,   inf,      -inf,    nan,    0x1p-1074,
                              -0x1p-1074, 1e-300, -1e-17, 3.0,    -52.0,    -53.0,    0x1.fffffffffffffp-1};
    for (const double y : special) {
        INFO("y = " << y);
        CHECK(same_bits(d::pow2(y), real_pow(y)));
        double out = -1.0;
        {
            d::pow2_writer w;
            w.put(y, &out);
            w.flush();
            CHECK(same_bits(out, real_pow(y)));
        }
    }
    bool s = true;
    (void)d::pow2_nearest(nan, s);
    CHECK_FALSE(s);
    CHECK(d::pow2_nearest(-5000.0, s) == 0.0); // far below the subnormals: 0, and sure
    CHECK(s);
#if MFPRIO_POW2_SHORTCUT
    CHECK(d::pow2_nearest(-3.0, s) == 0.125); // exact powers of two are sure
    CHECK(s);
#endif
}

TEST_CASE("pow2: arguments whose 2^y lies near a midpoint go to pow") {
    // Search arguments whose exact 2^y (exp2l, good to 2^-63) lies within 1/128 ulp of the
    // midpoint between two doubles: there pow's own error (up to 0.513 ulp) decides the
    // last bit, so the shortcut must not claim to be sure.
    std::mt19937_64 g(7);
    std::uniform_real_distribution<double> usual(-30.0, 0.0);
    int found = 0;
    for (int i = 0; i < 400000 && found < 40; ++i) {
        const double y = usual(g);
        const long double exact = exp2l(static_cast<long double>(y));
        int e = 0;
        (void)std::frexp(static_cast<double>(exact), &e);
        const long double ulp = std::ldexp(1.0L, e - 53);
        const long double frac = exact / ulp - std::floor(exact / ulp); // position between two doubles
        if (std::fabs(frac - 0.5L) >= 1.0L / 128.0L) continue;
        ++found;
        bool s = true;
        (void)d::pow2_nearest(y, s);
        CHECK_FALSE(s);
        CHECK(same_bits(d::pow2(y), real_pow(y)));
    }
    CHECK(found >= 20);
}

TEST_CASE("pow2: a writer's results wait until flushed, then are pow's") {
    std::vector<double> out(100, -1.0);
    d::pow2_writer w;
    for (int k = 0; k < 10; ++k) w.put(-0.37 * k, &out[static_cast<std::size_t>(k)]);
    CHECK(out[3] == -1.0); // queued, not written yet
    w.flush();
    for (int k = 0; k < 10; ++k) CHECK(same_bits(out[static_cast<std::size_t>(k)], real_pow(-0.37 * k)));
    // A full queue flushes itself: after 100 puts at least the first 64 are written.
    for (int k = 0; k < 100; ++k) w.put(-0.01 * k, &out[static_cast<std::size_t>(k)]);
    for (int k = 0; k < 64; ++k) CHECK(same_bits(out[static_cast<std::size_t>(k)], real_pow(-0.01 * k)));
}
