#pragma once
/// \file
/// The library's vector layer: the two-lane types the block hooks compute with, and the
/// only place that names an instruction set.
///
/// `f64x2` holds two doubles, lane 0 and lane 1; every operation works lane by lane and
/// gives, in each lane, the bits the same scalar expression gives (IEEE double arithmetic,
/// round to nearest, no contraction: the library is built without -ffast-math and its
/// callers' -ffp-contract does not reach an intrinsic). A comparison gives a mask, a lane of
/// all ones where it holds and all zeros elsewhere, which `keep` and `select` apply without a
/// branch. `min` and `max` are the selects `a < b ? a : b` and `a > b ? a : b` (the second
/// operand where either lane is NaN), which is what SSE2's minpd and maxpd compute. `u64x2`
/// holds the lanes' bits, for the few integer steps of `fairshare::detail::pow2_nearest2`.
///
/// With SSE2 (every x86-64 compiler defines `__SSE2__`) the types are one register; elsewhere,
/// or with `MFPRIO_NO_SIMD` defined, they are two scalars that the compiler may vectorize,
/// with the same results (the test suite runs the block paths both ways).
///
/// `f64x4` holds four doubles for the paths taken at run time on processors with AVX: the
/// library is built for whatever the including program targets, usually plain x86-64, and a
/// function marked `MFPRIO_TARGET_AVX` alone is built for AVX (no FMA: nothing can be
/// contracted), called only when `avx_enabled()`. Such a path does each job's operations in
/// the same order as the others, lane by lane, so it gives the same bits. With gcc and clang
/// on x86-64 `MFPRIO_AVX_DISPATCH` is 1; defining `MFPRIO_NO_AVX` leaves the AVX paths out
/// (as does `MFPRIO_NO_SIMD`: `avx_enabled()` is then false, and `f64x4` is two `f64x2`). At run time
/// `mfprio::detail::avx_override = 0` turns them off (the tests run both ways); any other
/// value leaves the choice to the processor.

#include <bit>
#include <cstdint>

#if defined(__SSE2__) && !defined(MFPRIO_NO_SIMD)
#define MFPRIO_SIMD_SSE2 1
#include <emmintrin.h>
#else
#define MFPRIO_SIMD_SSE2 0
#endif

#if defined(__x86_64__) && MFPRIO_SIMD_SSE2 && (defined(__GNUC__) || defined(__clang__)) && !defined(MFPRIO_NO_AVX)
#define MFPRIO_AVX_DISPATCH 1
#include <immintrin.h>
/// Builds the function it marks for AVX (no FMA: no contraction can change a result).
#define MFPRIO_TARGET_AVX __attribute__((target("avx")))
#else
#define MFPRIO_AVX_DISPATCH 0
#define MFPRIO_TARGET_AVX
#endif

namespace mfprio::detail {
/// 0: never take the AVX paths; anything else (the default, -1): take them when the processor
/// has AVX. Read when a batch is prepared; set it before preparing, from one thread.
inline int avx_override = -1;
} // namespace mfprio::detail

namespace mfprio::simd {

#if MFPRIO_SIMD_SSE2

class u64x2;

/// Two doubles (see the file comment).
class f64x2 {
public:
    /// +0.0 in both lanes. A literal type, so that a constexpr function may hold one in the
    /// branch it takes at run time.
    constexpr f64x2() noexcept : v_{} {}
    /// Lane 0 `a`, lane 1 `b`.
    [[nodiscard]] static f64x2 of(double a, double b) noexcept { return f64x2(_mm_set_pd(b, a)); }
    /// `x` in both lanes.
    [[nodiscard]] static f64x2 all(double x) noexcept { return f64x2(_mm_set1_pd(x)); }
    /// `p[0]`, `p[1]`.
    [[nodiscard]] static f64x2 load(const double* p) noexcept { return f64x2(_mm_loadu_pd(p)); }
    /// `*p0`, `*p1`.
    [[nodiscard]] static f64x2 load(const double* p0, const double* p1) noexcept {
        return f64x2(_mm_loadh_pd(_mm_load_sd(p0), p1));
    }
    /// A mask: lane 0 all ones where `a`, lane 1 where `b`.
    [[nodiscard]] static f64x2 mask(bool a, bool b) noexcept {
        return f64x2(_mm_castsi128_pd(_mm_set_epi64x(-static_cast<long long>(b), -static_cast<long long>(a))));
    }
    /// The two unsigned 32-bit integers as exact doubles: each under the exponent of 2^52
    /// (the double 2^52 + x, exact), less 2^52 (exact too); `static_cast<double>` lane by lane.
    [[nodiscard]] static f64x2 of_u32(std::uint32_t a, std::uint32_t b) noexcept {
        const __m128i both = _mm_unpacklo_epi32(_mm_cvtsi32_si128(static_cast<int>(a)), _mm_cvtsi32_si128(static_cast<int>(b)));
        const __m128i biased = _mm_unpacklo_epi32(both, _mm_set1_epi32(0x43300000));
        return f64x2(_mm_sub_pd(_mm_castsi128_pd(biased), _mm_set1_pd(4503599627370496.0)));
    }
    void store(double* p) const noexcept { _mm_storeu_pd(p, v_); }
    void store(double* p0, double* p1) const noexcept {
        _mm_storel_pd(p0, v_);
        _mm_storeh_pd(p1, v_);
    }
    [[nodiscard]] double lane0() const noexcept { return _mm_cvtsd_f64(v_); }
    [[nodiscard]] double lane1() const noexcept { return _mm_cvtsd_f64(_mm_unpackhi_pd(v_, v_)); }

    friend f64x2 operator+(f64x2 a, f64x2 b) noexcept { return f64x2(_mm_add_pd(a.v_, b.v_)); }
    friend f64x2 operator-(f64x2 a, f64x2 b) noexcept { return f64x2(_mm_sub_pd(a.v_, b.v_)); }
    friend f64x2 operator*(f64x2 a, f64x2 b) noexcept { return f64x2(_mm_mul_pd(a.v_, b.v_)); }
    friend f64x2 operator/(f64x2 a, f64x2 b) noexcept { return f64x2(_mm_div_pd(a.v_, b.v_)); }
    /// Bitwise, for masks (and `|x|`: `x & f64x2::all(magnitude)`).
    friend f64x2 operator&(f64x2 a, f64x2 b) noexcept { return f64x2(_mm_and_pd(a.v_, b.v_)); }
    friend f64x2 operator|(f64x2 a, f64x2 b) noexcept { return f64x2(_mm_or_pd(a.v_, b.v_)); }
    /// `x` where the mask `m` is clear, +0.0 where it is set.
    friend f64x2 clear_where(f64x2 m, f64x2 x) noexcept { return f64x2(_mm_andnot_pd(m.v_, x.v_)); }
    friend f64x2 min(f64x2 a, f64x2 b) noexcept { return f64x2(_mm_min_pd(a.v_, b.v_)); }
    friend f64x2 max(f64x2 a, f64x2 b) noexcept { return f64x2(_mm_max_pd(a.v_, b.v_)); }
    friend f64x2 operator>(f64x2 a, f64x2 b) noexcept { return f64x2(_mm_cmpgt_pd(a.v_, b.v_)); }
    friend f64x2 operator>=(f64x2 a, f64x2 b) noexcept { return f64x2(_mm_cmpge_pd(a.v_, b.v_)); }
    friend f64x2 operator<(f64x2 a, f64x2 b) noexcept { return f64x2(_mm_cmplt_pd(a.v_, b.v_)); }
    friend f64x2 operator<=(f64x2 a, f64x2 b) noexcept { return f64x2(_mm_cmple_pd(a.v_, b.v_)); }
    /// Unordered lanes (NaN) compare not equal, as the scalar `!=`.
    friend f64x2 operator!=(f64x2 a, f64x2 b) noexcept { return f64x2(_mm_cmpneq_pd(a.v_, b.v_)); }
    /// `!(a >= b)`, true for NaN.
    friend f64x2 not_ge(f64x2 a, f64x2 b) noexcept { return f64x2(_mm_cmpnge_pd(a.v_, b.v_)); }
    /// Bit i set where lane i of the mask is.
    friend int bits(f64x2 m) noexcept { return _mm_movemask_pd(m.v_); }

private:
    friend class u64x2;
    explicit f64x2(__m128d v) noexcept : v_(v) {}
    __m128d v_;
};

/// Two unsigned 64-bit integers: a `f64x2`'s bits.
class u64x2 {
public:
    [[nodiscard]] static u64x2 all(std::uint64_t x) noexcept { return u64x2(_mm_set1_epi64x(static_cast<long long>(x))); }
    [[nodiscard]] static u64x2 bits_of(f64x2 x) noexcept { return u64x2(_mm_castpd_si128(x.v_)); }
    /// `*p0`, `*p1`.
    [[nodiscard]] static u64x2 load(const std::uint64_t* p0, const std::uint64_t* p1) noexcept {
        return u64x2(_mm_unpacklo_epi64(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p0)),
                                        _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p1))));
    }
    [[nodiscard]] f64x2 as_double() const noexcept { return f64x2(_mm_castsi128_pd(v_)); }
    /// The low 32 bits of each lane.
    [[nodiscard]] std::uint32_t low32_lane0() const noexcept { return static_cast<std::uint32_t>(_mm_cvtsi128_si32(v_)); }
    [[nodiscard]] std::uint32_t low32_lane1() const noexcept {
        return static_cast<std::uint32_t>(_mm_cvtsi128_si32(_mm_srli_si128(v_, 8)));
    }
    friend u64x2 operator+(u64x2 a, u64x2 b) noexcept { return u64x2(_mm_add_epi64(a.v_, b.v_)); }
    friend u64x2 operator-(u64x2 a, u64x2 b) noexcept { return u64x2(_mm_sub_epi64(a.v_, b.v_)); }
    friend u64x2 operator&(u64x2 a, u64x2 b) noexcept { return u64x2(_mm_and_si128(a.v_, b.v_)); }
    friend u64x2 operator<<(u64x2 a, int n) noexcept { return u64x2(_mm_slli_epi64(a.v_, n)); }
    friend u64x2 operator>>(u64x2 a, int n) noexcept { return u64x2(_mm_srli_epi64(a.v_, n)); }

private:
    explicit u64x2(__m128i v) noexcept : v_(v) {}
    __m128i v_;
};

#else // two scalars

class u64x2;

class f64x2 {
public:
    f64x2() noexcept = default;
    [[nodiscard]] static f64x2 of(double a, double b) noexcept { return f64x2(a, b); }
    [[nodiscard]] static f64x2 all(double x) noexcept { return f64x2(x, x); }
    [[nodiscard]] static f64x2 load(const double* p) noexcept { return f64x2(p[0], p[1]); }
    [[nodiscard]] static f64x2 load(const double* p0, const double* p1) noexcept { return f64x2(*p0, *p1); }
    [[nodiscard]] static f64x2 mask(bool a, bool b) noexcept { return f64x2(ones(a), ones(b)); }
    [[nodiscard]] static f64x2 of_u32(std::uint32_t a, std::uint32_t b) noexcept {
        return f64x2(static_cast<double>(a), static_cast<double>(b));
    }
    void store(double* p) const noexcept { p[0] = a_, p[1] = b_; }
    void store(double* p0, double* p1) const noexcept { *p0 = a_, *p1 = b_; }
    [[nodiscard]] double lane0() const noexcept { return a_; }
    [[nodiscard]] double lane1() const noexcept { return b_; }

    friend f64x2 operator+(f64x2 x, f64x2 y) noexcept { return f64x2(x.a_ + y.a_, x.b_ + y.b_); }
    friend f64x2 operator-(f64x2 x, f64x2 y) noexcept { return f64x2(x.a_ - y.a_, x.b_ - y.b_); }
    friend f64x2 operator*(f64x2 x, f64x2 y) noexcept { return f64x2(x.a_ * y.a_, x.b_ * y.b_); }
    friend f64x2 operator/(f64x2 x, f64x2 y) noexcept { return f64x2(x.a_ / y.a_, x.b_ / y.b_); }
    friend f64x2 operator&(f64x2 x, f64x2 y) noexcept { return bitwise(x, y, [](auto p, auto q) { return p & q; }); }
    friend f64x2 operator|(f64x2 x, f64x2 y) noexcept { return bitwise(x, y, [](auto p, auto q) { return p | q; }); }
    friend f64x2 clear_where(f64x2 m, f64x2 x) noexcept { return bitwise(m, x, [](auto p, auto q) { return ~p & q; }); }
    friend f64x2 min(f64x2 x, f64x2 y) noexcept { return f64x2(x.a_ < y.a_ ? x.a_ : y.a_, x.b_ < y.b_ ? x.b_ : y.b_); }
    friend f64x2 max(f64x2 x, f64x2 y) noexcept { return f64x2(x.a_ > y.a_ ? x.a_ : y.a_, x.b_ > y.b_ ? x.b_ : y.b_); }
    friend f64x2 operator>(f64x2 x, f64x2 y) noexcept { return mask(x.a_ > y.a_, x.b_ > y.b_); }
    friend f64x2 operator>=(f64x2 x, f64x2 y) noexcept { return mask(x.a_ >= y.a_, x.b_ >= y.b_); }
    friend f64x2 operator<(f64x2 x, f64x2 y) noexcept { return mask(x.a_ < y.a_, x.b_ < y.b_); }
    friend f64x2 operator<=(f64x2 x, f64x2 y) noexcept { return mask(x.a_ <= y.a_, x.b_ <= y.b_); }
    friend f64x2 operator!=(f64x2 x, f64x2 y) noexcept { return mask(x.a_ != y.a_, x.b_ != y.b_); }
    friend f64x2 not_ge(f64x2 x, f64x2 y) noexcept { return mask(!(x.a_ >= y.a_), !(x.b_ >= y.b_)); }
    friend int bits(f64x2 m) noexcept {
        return static_cast<int>(std::bit_cast<std::uint64_t>(m.a_) >> 63) |
               static_cast<int>(std::bit_cast<std::uint64_t>(m.b_) >> 63) << 1;
    }

private:
    friend class u64x2;
    f64x2(double a, double b) noexcept : a_(a), b_(b) {}
    static double ones(bool on) noexcept { return std::bit_cast<double>(on ? ~std::uint64_t{0} : 0); }
    template <class F>
    static f64x2 bitwise(f64x2 x, f64x2 y, F f) noexcept {
        const auto lane = [&](double p, double q) {
            return std::bit_cast<double>(f(std::bit_cast<std::uint64_t>(p), std::bit_cast<std::uint64_t>(q)));
        };
        return f64x2(lane(x.a_, y.a_), lane(x.b_, y.b_));
    }
    double a_ = 0, b_ = 0;
};

class u64x2 {
public:
    [[nodiscard]] static u64x2 all(std::uint64_t x) noexcept { return u64x2(x, x); }
    [[nodiscard]] static u64x2 bits_of(f64x2 x) noexcept {
        return u64x2(std::bit_cast<std::uint64_t>(x.a_), std::bit_cast<std::uint64_t>(x.b_));
    }
    [[nodiscard]] static u64x2 load(const std::uint64_t* p0, const std::uint64_t* p1) noexcept { return u64x2(*p0, *p1); }
    [[nodiscard]] f64x2 as_double() const noexcept { return f64x2(std::bit_cast<double>(a_), std::bit_cast<double>(b_)); }
    [[nodiscard]] std::uint32_t low32_lane0() const noexcept { return static_cast<std::uint32_t>(a_); }
    [[nodiscard]] std::uint32_t low32_lane1() const noexcept { return static_cast<std::uint32_t>(b_); }
    friend u64x2 operator+(u64x2 x, u64x2 y) noexcept { return u64x2(x.a_ + y.a_, x.b_ + y.b_); }
    friend u64x2 operator-(u64x2 x, u64x2 y) noexcept { return u64x2(x.a_ - y.a_, x.b_ - y.b_); }
    friend u64x2 operator&(u64x2 x, u64x2 y) noexcept { return u64x2(x.a_ & y.a_, x.b_ & y.b_); }
    friend u64x2 operator<<(u64x2 x, int n) noexcept { return u64x2(x.a_ << n, x.b_ << n); }
    friend u64x2 operator>>(u64x2 x, int n) noexcept { return u64x2(x.a_ >> n, x.b_ >> n); }

private:
    u64x2(std::uint64_t a, std::uint64_t b) noexcept : a_(a), b_(b) {}
    std::uint64_t a_ = 0, b_ = 0;
};

#endif

/// Whether the AVX paths are taken: the processor and the OS support AVX (gcc's and clang's
/// `__builtin_cpu_supports` check both) and `detail::avx_override` is not 0.
[[nodiscard]] inline bool avx_enabled() noexcept {
#if MFPRIO_AVX_DISPATCH
    if (detail::avx_override == 0) return false;
    static const bool has = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx") != 0;
    }();
    return has;
#else
    return false;
#endif
}

#if MFPRIO_AVX_DISPATCH
/// Four doubles in one AVX register; only in functions marked `MFPRIO_TARGET_AVX`.
class f64x4 {
public:
    MFPRIO_TARGET_AVX f64x4() noexcept : v_(_mm256_setzero_pd()) {}
    [[nodiscard]] MFPRIO_TARGET_AVX static f64x4 all(double x) noexcept { return f64x4(_mm256_set1_pd(x)); }
    /// `p[0]`..`p[3]`.
    [[nodiscard]] MFPRIO_TARGET_AVX static f64x4 load(const double* p) noexcept { return f64x4(_mm256_loadu_pd(p)); }
    /// The bits `p[0]`..`p[3]` (masks: all ones or zeros).
    [[nodiscard]] MFPRIO_TARGET_AVX static f64x4 load_bits(const std::uint64_t* p) noexcept {
        return f64x4(_mm256_castsi256_pd(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))));
    }
    /// `*p0`..`*p3` in lanes 0..3.
    [[nodiscard]] MFPRIO_TARGET_AVX static f64x4 load(const double* p0, const double* p1, const double* p2,
                                                      const double* p3) noexcept {
        const __m128d lo = _mm_loadh_pd(_mm_load_sd(p0), p1);
        const __m128d hi = _mm_loadh_pd(_mm_load_sd(p2), p3);
        return f64x4(_mm256_insertf128_pd(_mm256_castpd128_pd256(lo), hi, 1));
    }
    /// The bits `*p0`..`*p3` (masks: all ones or zeros) in lanes 0..3.
    [[nodiscard]] MFPRIO_TARGET_AVX static f64x4 load_bits(const std::uint64_t* p0, const std::uint64_t* p1,
                                                           const std::uint64_t* p2, const std::uint64_t* p3) noexcept {
        const __m128i lo = _mm_unpacklo_epi64(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p0)),
                                              _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p1)));
        const __m128i hi = _mm_unpacklo_epi64(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p2)),
                                              _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p3)));
        return f64x4(_mm256_castsi256_pd(_mm256_insertf128_si256(_mm256_castsi128_si256(lo), hi, 1)));
    }
    /// A mask: lane k all ones where `mk`.
    [[nodiscard]] MFPRIO_TARGET_AVX static f64x4 mask(bool m0, bool m1, bool m2, bool m3) noexcept {
        return f64x4(_mm256_castsi256_pd(_mm256_set_epi64x(-static_cast<long long>(m3), -static_cast<long long>(m2),
                                                           -static_cast<long long>(m1), -static_cast<long long>(m0))));
    }
    MFPRIO_TARGET_AVX void store(double* p) const noexcept { _mm256_storeu_pd(p, v_); }
    /// Lanes 0..K-1 added in lane order: ((lane 0 + lane 1) + lane 2) + lane 3.
    template <int K>
        requires(K >= 1 && K <= 4)
    [[nodiscard]] MFPRIO_TARGET_AVX double sum_lanes() const noexcept {
        const __m128d lo = _mm256_castpd256_pd128(v_);
        double s = _mm_cvtsd_f64(lo);
        if constexpr (K >= 2) s = s + _mm_cvtsd_f64(_mm_unpackhi_pd(lo, lo));
        if constexpr (K >= 3) {
            const __m128d hi = _mm256_extractf128_pd(v_, 1);
            s = s + _mm_cvtsd_f64(hi);
            if constexpr (K == 4) s = s + _mm_cvtsd_f64(_mm_unpackhi_pd(hi, hi));
        }
        return s;
    }
    MFPRIO_TARGET_AVX friend f64x4 operator+(f64x4 a, f64x4 b) noexcept { return f64x4(_mm256_add_pd(a.v_, b.v_)); }
    MFPRIO_TARGET_AVX friend f64x4 operator*(f64x4 a, f64x4 b) noexcept { return f64x4(_mm256_mul_pd(a.v_, b.v_)); }
    MFPRIO_TARGET_AVX friend f64x4 operator/(f64x4 a, f64x4 b) noexcept { return f64x4(_mm256_div_pd(a.v_, b.v_)); }
    MFPRIO_TARGET_AVX friend f64x4 operator&(f64x4 a, f64x4 b) noexcept { return f64x4(_mm256_and_pd(a.v_, b.v_)); }

private:
    MFPRIO_TARGET_AVX explicit f64x4(__m256d v) noexcept : v_(v) {}
    __m256d v_;
};
#else
/// Four doubles as two `f64x2` (no AVX dispatch: the AVX paths are never taken).
class f64x4 {
public:
    f64x4() noexcept = default;
    [[nodiscard]] static f64x4 all(double x) noexcept { return {f64x2::all(x), f64x2::all(x)}; }
    [[nodiscard]] static f64x4 load(const double* p) noexcept { return {f64x2::load(p), f64x2::load(p + 2)}; }
    [[nodiscard]] static f64x4 load_bits(const std::uint64_t* p) noexcept {
        return {u64x2::load(p, p + 1).as_double(), u64x2::load(p + 2, p + 3).as_double()};
    }
    [[nodiscard]] static f64x4 load(const double* p0, const double* p1, const double* p2, const double* p3) noexcept {
        return {f64x2::load(p0, p1), f64x2::load(p2, p3)};
    }
    [[nodiscard]] static f64x4 load_bits(const std::uint64_t* p0, const std::uint64_t* p1, const std::uint64_t* p2,
                                         const std::uint64_t* p3) noexcept {
        return {u64x2::load(p0, p1).as_double(), u64x2::load(p2, p3).as_double()};
    }
    [[nodiscard]] static f64x4 mask(bool m0, bool m1, bool m2, bool m3) noexcept {
        return {f64x2::mask(m0, m1), f64x2::mask(m2, m3)};
    }
    void store(double* p) const noexcept {
        lo_.store(p);
        hi_.store(p + 2);
    }
    template <int K>
        requires(K >= 1 && K <= 4)
    [[nodiscard]] double sum_lanes() const noexcept {
        double s = lo_.lane0();
        if constexpr (K >= 2) s = s + lo_.lane1();
        if constexpr (K >= 3) s = s + hi_.lane0();
        if constexpr (K == 4) s = s + hi_.lane1();
        return s;
    }
    friend f64x4 operator+(f64x4 a, f64x4 b) noexcept { return {a.lo_ + b.lo_, a.hi_ + b.hi_}; }
    friend f64x4 operator*(f64x4 a, f64x4 b) noexcept { return {a.lo_ * b.lo_, a.hi_ * b.hi_}; }
    friend f64x4 operator/(f64x4 a, f64x4 b) noexcept { return {a.lo_ / b.lo_, a.hi_ / b.hi_}; }
    friend f64x4 operator&(f64x4 a, f64x4 b) noexcept { return {a.lo_ & b.lo_, a.hi_ & b.hi_}; }

private:
    f64x4(f64x2 lo, f64x2 hi) noexcept : lo_(lo), hi_(hi) {}
    f64x2 lo_, hi_;
};
#endif

/// Lanes of `x` where the mask `m` is set, +0.0 elsewhere.
[[nodiscard]] inline f64x2 keep(f64x2 m, f64x2 x) noexcept { return m & x; }
/// `a` where the mask `m` is set, `b` elsewhere.
[[nodiscard]] inline f64x2 select(f64x2 m, f64x2 a, f64x2 b) noexcept { return (m & a) | clear_where(m, b); }

/// `v / t` where neither is 0, +0.0 where either is (NaN is not 0, as with `!=`), without a
/// branch: the division is by 1 where either is 0, and its result masked there. One double
/// in lane 0 (lane 1 divides 0 by 1); the bits of the scalar expression `v != 0 && t != 0 ?
/// v / t : 0.0`.
[[nodiscard]] inline double ratio_or_zero(double v, double t) noexcept {
    const f64x2 a = f64x2::of(v, 0.0), b = f64x2::of(t, 0.0), zero;
    const f64x2 both = (a != zero) & (b != zero);
    return keep(both, a / select(both, b, f64x2::all(1.0))).lane0();
}

} // namespace mfprio::simd
