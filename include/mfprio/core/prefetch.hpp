#pragma once
/// \file
/// Cache hints for the batch loops: `prefetch` (about to be read), `prefetch_far` (to be read
/// later) and `prefetch_for_write` (about to be written). Hints only: they never fault, and do nothing where the compiler has
/// no such builtin.

namespace mfprio::detail {

/// Asks the CPU to start loading the cache line at `p`.
inline void prefetch(const void* p) noexcept {
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(p, 0, 3);
#else
    (void)p;
#endif
}

/// Asks the CPU to start fetching the cache line at `p` for writing.
inline void prefetch_for_write(const void* p) noexcept {
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(p, 1, 3);
#else
    (void)p;
#endif
}

/// Asks the CPU to start loading the cache line at `p` into its second-level cache only: for
/// data needed later than the next few thousand cycles, which the first-level cache would
/// evict again before it is read.
inline void prefetch_far(const void* p) noexcept {
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(p, 0, 2);
#else
    (void)p;
#endif
}

} // namespace mfprio::detail
