#pragma once
/// \file
/// AVX block paths chosen at run time. The library is built for whatever the including
/// program targets, usually plain x86-64 (SSE2); a block hook may also carry a path for four
/// jobs at a time in 256-bit registers, compiled with `MFPRIO_TARGET_AVX` (the function alone
/// is built for AVX) and taken only when the processor and the operating system support AVX.
/// Such a path does each job's operations in the same order as the hook's other paths, lane
/// by lane, so it gives the same bits; `target("avx")` enables no fused multiply-add, so
/// nothing can be contracted either.
///
/// Available with gcc and clang on x86-64 (`MFPRIO_AVX_DISPATCH` is 1 there). Define
/// `MFPRIO_NO_AVX` to leave the AVX paths out. At run time `detail::avx_override = 0` turns
/// them off (the tests run both ways); any other value leaves the choice to the processor.

#if defined(__x86_64__) && defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__)) && !defined(MFPRIO_NO_AVX)
#define MFPRIO_AVX_DISPATCH 1
#else
#define MFPRIO_AVX_DISPATCH 0
#endif

#if MFPRIO_AVX_DISPATCH
#include <cstdint>

#include <immintrin.h>

/// Builds the function it marks for AVX (no FMA: no contraction can change a result).
#define MFPRIO_TARGET_AVX __attribute__((target("avx")))

namespace mfprio::detail {

/// 0: never take the AVX paths; anything else (the default, -1): take them when the processor
/// has AVX. Read when a batch is prepared; set it before preparing, from one thread.
inline int avx_override = -1;

/// Whether the AVX block paths are taken: the processor and the OS support AVX (gcc's and
/// clang's `__builtin_cpu_supports` check both) and `avx_override` is not 0.
[[nodiscard]] inline bool avx_enabled() noexcept {
    if (avx_override == 0) return false;
    static const bool has = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx") != 0;
    }();
    return has;
}

/// All ones in lane k of the result where `m[k]`, zeros elsewhere (lane 0 is `m0`).
[[nodiscard]] MFPRIO_TARGET_AVX inline __m256d mask_quad(bool m0, bool m1, bool m2, bool m3) noexcept {
    return _mm256_castsi256_pd(_mm256_set_epi64x(-static_cast<long long>(m3), -static_cast<long long>(m2),
                                                 -static_cast<long long>(m1), -static_cast<long long>(m0)));
}

/// The four doubles `*p0`..`*p3` in lanes 0..3.
[[nodiscard]] MFPRIO_TARGET_AVX inline __m256d load_quad(const double* p0, const double* p1, const double* p2,
                                                         const double* p3) noexcept {
    const __m128d lo = _mm_loadh_pd(_mm_load_sd(p0), p1);
    const __m128d hi = _mm_loadh_pd(_mm_load_sd(p2), p3);
    return _mm256_insertf128_pd(_mm256_castpd128_pd256(lo), hi, 1);
}

/// The four 64-bit masks `*p0`..`*p3` (all ones or zeros) in lanes 0..3, as doubles' bits.
[[nodiscard]] MFPRIO_TARGET_AVX inline __m256d load_mask_quad(const std::uint64_t* p0, const std::uint64_t* p1,
                                                              const std::uint64_t* p2,
                                                              const std::uint64_t* p3) noexcept {
    const __m128i lo = _mm_unpacklo_epi64(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p0)),
                                          _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p1)));
    const __m128i hi = _mm_unpacklo_epi64(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p2)),
                                          _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p3)));
    return _mm256_castsi256_pd(_mm256_insertf128_si256(_mm256_castsi128_si256(lo), hi, 1));
}

} // namespace mfprio::detail
#endif
