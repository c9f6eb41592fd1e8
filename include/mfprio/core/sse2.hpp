#pragma once
/// \file
/// Small SSE2 helpers for the block hooks that take two jobs at a time. Only under
/// `__SSE2__` (every x86-64 compiler defines it); each hook keeps its scalar path for other
/// targets and for constant evaluation.

#if defined(__SSE2__)
#include <cstdint>

#include <emmintrin.h>

namespace mfprio::detail {

/// The two unsigned 32-bit integers as exact doubles (lane 0 `a`, lane 1 `b`): each is put
/// under the exponent of 2^52, giving the double 2^52 + x exactly, and 2^52 is subtracted,
/// which is exact too. What `static_cast<double>` gives, without a scalar conversion each.
[[nodiscard]] inline __m128d u32_pair_to_double(std::uint32_t a, std::uint32_t b) noexcept {
    const __m128i both = _mm_unpacklo_epi32(_mm_cvtsi32_si128(static_cast<int>(a)), _mm_cvtsi32_si128(static_cast<int>(b)));
    const __m128i biased = _mm_unpacklo_epi32(both, _mm_set1_epi32(0x43300000));
    return _mm_sub_pd(_mm_castsi128_pd(biased), _mm_set1_pd(4503599627370496.0)); // 2^52
}

/// All ones in lane 0 when `a`, in lane 1 when `b`; zeros elsewhere.
[[nodiscard]] inline __m128d mask_pair(bool a, bool b) noexcept {
    return _mm_castsi128_pd(_mm_set_epi64x(-static_cast<long long>(b), -static_cast<long long>(a)));
}

} // namespace mfprio::detail
#endif
