#pragma once
/// \file
/// The run-time AVX choice (`MFPRIO_AVX_DISPATCH`, `MFPRIO_TARGET_AVX`, `simd::f64x4`,
/// `simd::avx_enabled`, `detail::avx_override`) is part of the vector layer, `core/simd.hpp`.

#include <mfprio/core/simd.hpp>
