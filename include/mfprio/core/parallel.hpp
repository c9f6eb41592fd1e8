#pragma once
/// \file
/// Splitting a pass among threads started for it: `parallel_for` runs parts of a job on
/// threads of their own and joins them before it returns; `parallel_rounds` runs two rounds
/// of parts, with a step on the calling thread between them, on threads started once;
/// `part_begin` and `parts_for` cut `n` items into parts. Used by the queue's sort and
/// reprioritization passes and by the fair-share passes that take a `threads` option.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace mfprio::detail {

/// Runs `fn(part)` for every part in [0, parts), part 0 on the calling thread and the others
/// on threads started for the call, and returns when all are done. If a thread cannot be
/// started, the calling thread runs its part itself. `fn` must not throw.
template <class Fn>
void parallel_for(unsigned parts, const Fn& fn) {
    if (parts <= 1) {
        fn(0u);
        return;
    }
    std::vector<std::thread> helpers;
    helpers.reserve(parts - 1);
    unsigned started = 1;
    try {
        for (; started < parts; ++started) helpers.emplace_back([&fn, started] { fn(started); });
    } catch (...) {
        // No thread for the parts from `started` on: this thread runs them below.
    }
    fn(0u);
    for (unsigned t = started; t < parts; ++t) fn(t);
    for (auto& h : helpers) h.join();
}

/// Runs `first(part)` for every part in [0, parts), then `between()` on the calling thread,
/// then `second(part)` for every part: every `first` is done before `between` starts, and
/// `between` before any `second`. Part 0 runs on the calling thread and the others on
/// threads started once for both rounds (starting a thread costs tens of microseconds on a
/// busy machine: `parallel_for` twice would pay it twice). If a thread cannot be started,
/// the calling thread runs its parts of both rounds itself. The functions must not throw.
template <class First, class Between, class Second>
void parallel_rounds(unsigned parts, const First& first, const Between& between, const Second& second) {
    if (parts <= 1) {
        first(0u);
        between();
        second(0u);
        return;
    }
    std::atomic<unsigned> finished{0}; // helpers done with their first round
    std::atomic<bool> go{false};       // `between` is done: second round
    std::vector<std::thread> helpers;
    helpers.reserve(parts - 1);
    unsigned started = 1;
    try {
        for (; started < parts; ++started)
            helpers.emplace_back([&, started] {
                first(started);
                finished.fetch_add(1, std::memory_order_acq_rel);
                finished.notify_one();
                go.wait(false, std::memory_order_acquire);
                second(started);
            });
    } catch (...) {
        // No thread for the parts from `started` on: this thread runs them below.
    }
    first(0u);
    for (unsigned t = started; t < parts; ++t) first(t);
    const unsigned helping = started - 1;
    for (unsigned done = finished.load(std::memory_order_acquire); done != helping;
         done = finished.load(std::memory_order_acquire))
        finished.wait(done, std::memory_order_acquire);
    between();
    go.store(true, std::memory_order_release);
    go.notify_all();
    second(0u);
    for (unsigned t = started; t < parts; ++t) second(t);
    for (auto& h : helpers) h.join();
}

/// The start of part `t` of `n` items cut into `parts` nearly equal parts.
[[nodiscard]] constexpr std::size_t part_begin(std::size_t n, unsigned parts, unsigned t) noexcept {
    return n / parts * t + std::min<std::size_t>(t, n % parts);
}

/// How many parts a job of `n` items is worth cutting into with `threads` threads (at
/// least `grain` items a part, at most 64 parts).
[[nodiscard]] constexpr unsigned parts_for(std::size_t n, unsigned threads, std::size_t grain) noexcept {
    const std::size_t most = std::max<std::size_t>(1, n / grain);
    return static_cast<unsigned>(std::min<std::size_t>(std::min(std::max(1u, threads), 64u), most));
}

} // namespace mfprio::detail
