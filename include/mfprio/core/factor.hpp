#pragma once
/// \file
/// The factor-policy concept: a small value type with a `name` and a `noexcept` call
/// operator taking the job and the evaluation context and returning a double. A factor may
/// also evaluate a block of jobs at once (`block_factor_policy`, or
/// `prepared_block_factor_policy` when it prepares once per pass), which the engine's
/// `batch` then uses.

#include <concepts>
#include <cstddef>
#include <span>
#include <string_view>

namespace mfprio {

/// A factor policy for job type `J` in context `Ctx`. The call operator must be constrained
/// on the job fields it reads (through `job_traits`), so that this concept is false for a
/// job type that lacks them.
template <class F, class J, class Ctx>
concept factor_policy = std::copy_constructible<F> && requires(const F& f, const J& j, const Ctx& c) {
    { F::name } -> std::convertible_to<std::string_view>;
    { f(j, c) } noexcept -> std::same_as<double>;
};

/// Jobs per block of a factor's `block` hook, and of the runtime engine's (`queue::dynamic`).
inline constexpr std::size_t block_size = 32;

/// Jobs per block of the engine's `batch` for records of type `J`: 16 for records of one
/// cache line or less (Slurm's 64-byte `mfprio::job`), `block_size` for larger ones (Maui's
/// 104-byte records), the faster of the two for each in bench/slurm_engine_bench and
/// bench/maui_bench. A block hook written for any N (a template) serves both.
template <class J>
inline constexpr std::size_t batch_block_size = sizeof(J) <= 64 ? 16 : block_size;

/// A factor that can tell, from the context alone, that it is +0.0 or -0.0 for every job:
/// `f.idle(c)`. A term of finite weight then adds +0.0 or -0.0 to a sum that is never -0.0,
/// which changes nothing, and the engine's `batch` skips it for the whole batch (a Maui
/// component whose subweights are all 0, say, under Maui's default weights). A factor
/// without it is always evaluated. `idle` may be conservative (false when unsure), never
/// wrong.
template <class F, class Ctx>
concept idle_aware_factor = requires(const F& f, const Ctx& c) {
    { f.idle(c) } noexcept -> std::same_as<bool>;
};

/// A factor that is +0.0 or -0.0 for every job in every context, which its type says:
/// `F::always_idle` is true (Maui 3.3's ATTR component, which Maui never computes). The
/// engine's `batch` leaves a term of such a factor out at compile time when its weight is
/// always finite (a compile-time weight, or a runtime one of an integer type): no row of
/// factors, no addition job by job.
template <class F>
concept always_idle_factor = requires {
    requires F::always_idle;
};

/// A factor policy that also evaluates a block of `N` jobs at once (`block_size` unless
/// given):
/// `f.block(jobs, c, out)` writes into `out[i]` exactly what `f(jobs[i], c)` returns, bit for
/// bit, for every i. The engine's `batch` calls it once per block instead of the call
/// operator once per job, so that the factor can hoist its per-pass work out of the loop and
/// let the compiler vectorize its arithmetic (a division by a loop-invariant total, say) over
/// a fixed number of jobs. A factor without it is called job by job. The conformance suite
/// (tests/every_factor.cpp) checks the bit-for-bit contract of every Slurm factor's hook.
template <class F, class J, class Ctx, std::size_t N = block_size>
concept block_factor_policy = factor_policy<F, J, Ctx> &&
    requires(const F& f, std::span<const J, N> jobs, const Ctx& c, std::span<double, N> out) {
        { f.block(jobs, c, out) } noexcept;
    };

/// A factor with a block hook that prepares once per batch: `f.prepare(c)` computes what
/// every block needs from the context (a table laid out for the hook, say) and
/// `f.block(state, jobs, c, out)` uses it, with the contract of `block_factor_policy`. The
/// engine's `batch` prepares once and calls the hook for each block.
template <class F, class J, class Ctx, std::size_t N = block_size>
concept prepared_block_factor_policy = factor_policy<F, J, Ctx> &&
    requires(const F& f, const Ctx& c, std::span<const J, N> jobs, std::span<double, N> out) {
        { f.prepare(c) } noexcept;
        { f.block(f.prepare(c), jobs, c, out) } noexcept;
    };

} // namespace mfprio
