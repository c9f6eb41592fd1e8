#pragma once
/// \file
/// The engine: a weighted sum over its terms, unrolled at compile time, with a result
/// policy on top. `score` is the raw sum, `priority` the result policy's output, `explain`
/// the per-term breakdown (fixed size, no allocation), `batch` the same over a span of jobs.

#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include <mfprio/core/assert.hpp>
#include <mfprio/core/factor.hpp>
#include <mfprio/core/prefetch.hpp>
#include <mfprio/core/result.hpp>
#include <mfprio/core/simd.hpp>
#include <mfprio/core/term.hpp>

namespace mfprio {

namespace detail {
/// Every how many jobs a batch prefetches: one record per 64-byte cache line.
template <class J>
inline constexpr std::size_t prefetch_step = sizeof(J) >= 64 ? 1 : 64 / sizeof(J);
} // namespace detail

/// One line of an explanation: what a term contributed and why.
struct term_explanation {
    std::string_view name; ///< the factor's name
    double factor = 0;     ///< raw factor (0 when the weight is 0)
    double weight = 0;     ///< the weight as a double
    double contribution = 0; ///< factor x weight, as added to the sum
};

/// A job's full breakdown: one line per term, the sum, and the final priority.
template <std::size_t N, class Output>
struct explanation {
    std::array<term_explanation, N> terms{};
    double score = 0;  ///< the weighted sum, in the engine's order of addition
    Output priority{}; ///< the result policy's output
};

/// A weighted sum of `Terms` with result policy `Result`. Terms are added left to right in
/// the order given, starting from 0.0; the order matters for bit-exact results.
template <class Result, class... Terms>
class engine {
public:
    using result_type = Result;
    using output_type = typename Result::output_type;
    static constexpr std::size_t term_count = sizeof...(Terms);
    /// Jobs per block of `batch` for records of type J (`batch_block_size`).
    template <class J>
    static constexpr std::size_t block_of = batch_block_size<J>;

    constexpr engine() = default;
    constexpr explicit engine(Result result, Terms... terms) : result_(result), terms_(terms...) {}
    constexpr explicit engine(Terms... terms)
        requires(sizeof...(Terms) > 0 && std::is_default_constructible_v<Result>)
        : terms_(terms...) {}

    /// The raw weighted sum for one job.
    template <class J, class Ctx>
    [[nodiscard]] constexpr double score(const J& j, const Ctx& c) const noexcept {
        return score_of(j, c, std::index_sequence_for<Terms...>{});
    }

    /// The job's priority as the result policy makes it.
    template <class J, class Ctx>
    [[nodiscard]] constexpr output_type priority(const J& j, const Ctx& c) const noexcept {
        return result_(j, [&]() noexcept { return score(j, c); });
    }

    /// Every term's raw factor, weight and contribution, the sum and the priority.
    template <class J, class Ctx>
    [[nodiscard]] constexpr explanation<term_count, output_type> explain(const J& j, const Ctx& c) const noexcept {
        explanation<term_count, output_type> out{};
        std::size_t i = 0;
        double sum = 0.0;
        std::apply([&](const Terms&... t) noexcept {
            ((out.terms[i++] = term_explanation{Terms::name, t.raw(j, c), t.weight.as_double(),
                                                t.contribution(j, c)},
              sum += out.terms[i - 1].contribution),
             ...);
        }, terms_);
        out.score = sum;
        out.priority = result_(j, [&]() noexcept { return sum; });
        return out;
    }

private:
    /// `score`'s sum, term by term. A member rather than a lambda over the terms: gcc -O2
    /// keeps such a lambda out of line, a call a job passing a reference to every term.
    template <class J, class Ctx, std::size_t... I>
    [[nodiscard]] constexpr double score_of(const J& j, const Ctx& c, std::index_sequence<I...>) const noexcept {
        double sum = 0.0;
        ((sum += std::get<I>(terms_).contribution(j, c)), ...);
        return sum;
    }

    /// What term `t` prepares for a batch: its factor's `prepare(c)` when the term is `on`
    /// (nothing for a term that is off), or nothing at all for a factor without a prepared
    /// block hook.
    struct unprepared {};
    template <class J, class Ctx, class T>
    static constexpr auto prepare(const T& t, const Ctx& c, bool on) noexcept {
        if constexpr (prepared_block_factor_policy<typename T::factor_type, J, Ctx, block_of<J>>) {
            using state = std::remove_cvref_t<decltype(t.factor.prepare(c))>;
            return on ? std::optional<state>(t.factor.prepare(c)) : std::optional<state>();
        } else {
            return unprepared{};
        }
    }

public:
    /// What `batch` works out once for a context before it takes any job: each term's
    /// prepared state (a prepared block hook's tables), its weight as a double, and whether
    /// it is on (weight not 0, factor not idle in the context). `prepare_batch` makes one; a
    /// caller that cuts a pass into chunks (`queue::pass_builder`) makes it once and gives
    /// it to every chunk's `batch`, rather than letting each chunk prepare again. A plan is
    /// valid for the context it was made from, as long as the tables that context views are
    /// unchanged; it is read-only during a batch, so threads may share one.
    template <class J, class Ctx>
    struct batch_plan {
        decltype(std::tuple{engine::prepare<J>(std::declval<const Terms&>(), std::declval<const Ctx&>(), true)...}) states;
        std::array<double, term_count + 1> weights{};
        std::array<bool, term_count + 1> enabled{};
    };

    /// The plan of a batch in context `c` for jobs of type J (see `batch_plan`).
    template <class J, class Ctx>
    [[nodiscard]] constexpr batch_plan<J, Ctx> prepare_batch(const Ctx& c) const noexcept {
        // The weights as doubles and whether each term is on, once for the batch (runtime
        // weights would be converted and tested for every job otherwise). A term is off when
        // its weight is 0, or when its factor is idle in this context (every job's factor is
        // +-0.0) and its weight is finite: it would add +-0.0 to every sum. Only the terms
        // that are on prepare.
        std::array<double, term_count + 1> weights{};
        std::array<bool, term_count + 1> enabled{};
        std::apply([&](const Terms&... t) noexcept {
            std::size_t k = 0;
            ((weights[k] = t.weight.as_double(), enabled[k] = !t.disabled() && !idle(t, c, weights[k]), ++k), ...);
        }, terms_);
        return prepare_states<J>(c, weights, enabled, std::index_sequence_for<Terms...>{});
    }

    /// Priorities of a span of jobs into `out` (which must be at least as long), each exactly
    /// what `priority` gives. The jobs are taken in blocks of `block_of<J>`: the terms whose
    /// factor has a block hook fill the block's factors first; then, job by job, every
    /// term's contribution is added in term order, starting from 0.0, as `score` adds them,
    /// and the result policy finishes the sum. A term whose weight is 0, or whose factor is
    /// idle in `c` (`idle_aware_factor`), is skipped for the whole batch. The last jobs, fewer
    /// than a block, go through `priority` one by one.
    template <class J, class Ctx>
    constexpr void batch(std::span<const J> jobs, const Ctx& c, std::span<output_type> out) const noexcept {
        MFPRIO_ASSERT(out.size() >= jobs.size());
        std::size_t full = 0;
        if (jobs.size() >= block_of<J>) full = batch_blocks(prepare_batch<J>(c), jobs, c, out);
        for (std::size_t k = full; k < jobs.size(); ++k) out[k] = priority(jobs[k], c);
    }

    /// `batch` with a plan made by `prepare_batch` from `c` (nothing is prepared here).
    template <class J, class Ctx>
    constexpr void batch(const batch_plan<J, Ctx>& plan, std::span<const J> jobs, const Ctx& c,
                         std::span<output_type> out) const noexcept {
        MFPRIO_ASSERT(out.size() >= jobs.size());
        const std::size_t full = batch_blocks(plan, jobs, c, out);
        for (std::size_t k = full; k < jobs.size(); ++k) out[k] = priority(jobs[k], c);
    }

    /// Raw sums of a span of jobs into `out`, each exactly what `score` gives.
    template <class J, class Ctx>
    constexpr void batch_scores(std::span<const J> jobs, const Ctx& c, std::span<double> out) const noexcept {
        MFPRIO_ASSERT(out.size() >= jobs.size());
        std::size_t full = 0;
        if (jobs.size() >= block_of<J>)
            full = for_each_block(prepare_batch<J>(c), jobs, c,
                                  [&](std::size_t k, const J&, double sum) noexcept { out[k] = sum; });
        for (std::size_t k = full; k < jobs.size(); ++k) out[k] = score(jobs[k], c);
    }

    /// The I-th term.
    template <std::size_t I>
    [[nodiscard]] constexpr const auto& get() const noexcept { return std::get<I>(terms_); }
    template <std::size_t I>
    [[nodiscard]] constexpr auto& get() noexcept { return std::get<I>(terms_); }

    /// The first term whose factor type is `F`.
    template <class F>
        requires(std::is_same_v<typename Terms::factor_type, F> || ...) // false, not an error, in a concept check
    [[nodiscard]] constexpr const auto& term_of() const noexcept {
        return std::get<index_of<F>()>(terms_);
    }
    template <class F>
        requires(std::is_same_v<typename Terms::factor_type, F> || ...)
    [[nodiscard]] constexpr auto& term_of() noexcept {
        return std::get<index_of<F>()>(terms_);
    }

    /// The position of the first term whose factor type is `F`.
    template <class F>
    [[nodiscard]] static consteval std::size_t index_of() {
        constexpr bool matches[] = {std::is_same_v<typename Terms::factor_type, F>..., false};
        for (std::size_t k = 0; k < sizeof...(Terms); ++k)
            if (matches[k]) return k;
        throw "mfprio: this engine has no term with that factor type";
    }

    /// Names of the terms in order.
    static constexpr std::array<std::string_view, term_count> names{Terms::name...};

    [[nodiscard]] constexpr const Result& result() const noexcept { return result_; }

private:
    /// Whether each term is left out of `batch` at compile time: its factor is always idle
    /// (`always_idle_factor`) and its weight always finite, so that it adds +-0.0 to every
    /// sum, which changes none.
    template <class W>
    static constexpr bool finite_weight = is_fixed_weight_v<W> || std::is_integral_v<typename W::value_type>;
    template <class T>
    static constexpr bool leaves_out =
        always_idle_factor<typename T::factor_type> && finite_weight<typename T::weight_type>;
    static constexpr std::array<bool, term_count + 1> left_out{leaves_out<Terms>..., false};
    /// Whether each term's factor has a block hook (prepared or not) for jobs J in context
    /// Ctx, and is not left out; and the row of term `term` in a block's table of hooked
    /// factors.
    template <class J, class Ctx>
    static constexpr std::array<bool, term_count + 1> hooked{
        ((block_factor_policy<typename Terms::factor_type, J, Ctx, block_of<J>> ||
          prepared_block_factor_policy<typename Terms::factor_type, J, Ctx, block_of<J>>) &&
         !leaves_out<Terms>)...,
        false};
    template <class J, class Ctx>
    static consteval std::size_t hook_row(std::size_t term) {
        std::size_t row = 0;
        for (std::size_t k = 0; k < term; ++k) row += hooked<J, Ctx>[k] ? 1 : 0;
        return row;
    }

    template <class J, class Ctx, std::size_t... I>
    constexpr batch_plan<J, Ctx> prepare_states(const Ctx& c, const std::array<double, term_count + 1>& weights,
                                                const std::array<bool, term_count + 1>& enabled,
                                                std::index_sequence<I...>) const noexcept {
        return batch_plan<J, Ctx>{std::tuple{prepare<J>(std::get<I>(terms_), c, enabled[I])...}, weights, enabled};
    }

    /// The priorities of the whole blocks of `jobs` into `out`; returns how many jobs that is.
    template <class J, class Ctx>
    constexpr std::size_t batch_blocks(const batch_plan<J, Ctx>& plan, std::span<const J> jobs, const Ctx& c,
                                       std::span<output_type> out) const noexcept {
        // The output's address in a local: through the span, it was reloaded after every store.
        output_type* const o = out.data();
        return for_each_block(plan, jobs, c, [&, o](std::size_t k, const J& j, double sum) noexcept {
            o[k] = result_(j, [sum]() noexcept { return sum; });
        });
    }

    /// Calls `fn(k, jobs[k], sum)` for each job of the whole blocks of `block_of<J>` jobs of
    /// `jobs`, `sum` being its weighted sum, and returns the number of jobs done. A term whose
    /// weight is 0 adds +0.0, and one whose factor is idle adds +-0.0 (a finite weight times
    /// +-0.0), which leaves any sum but -0.0 unchanged: it is skipped (a sum starts at +0.0,
    /// and x + y is -0.0 only when both are -0.0, so no sum is ever -0.0).
    template <class J, class Ctx, class Fn>
    constexpr std::size_t for_each_block(const batch_plan<J, Ctx>& plan, std::span<const J> jobs, const Ctx& c,
                                         Fn&& fn) const noexcept {
        const std::size_t full = jobs.size() - jobs.size() % block_of<J>;
        if (full == 0) return 0;
        // With every term on (the usual case; a term whose weight is a compile-time 0 is left
        // out anyway), the terms are not tested job by job. A term that is off but has a
        // block hook does not prevent it: its row of factors holds +0.0 (never filled), and
        // its weight (0, or finite: `idle`) times +0.0 adds +-0.0, which changes no sum.
        bool all_on = true;
        std::apply([&](const Terms&... t) noexcept {
            std::size_t k = 0;
            ((all_on = all_on && (plan.enabled[k] || hooked<J, Ctx>[k] || left_out[k] ||
                                  (is_fixed_weight_v<typename Terms::weight_type> && t.disabled())),
              ++k),
             ...);
        }, terms_);
        if (all_on) blocks<true>(plan, jobs.first(full), c, fn);
        else blocks<false>(plan, jobs.first(full), c, fn);
        return full;
    }

    /// How many blocks ahead `blocks` prefetches records of type J into the second-level
    /// cache; 0: it does not. Records of 65 to 128 bytes only (see `blocks`).
    template <class J>
    static constexpr std::size_t far_blocks = sizeof(J) > 64 && sizeof(J) <= 128 ? 4 : 0;
    /// The lines at r and r + 64 into the second-level cache: every line of the records, done
    /// for each record r of a block (a record of 65 to 128 bytes spans two or three lines, the
    /// third the next record's first).
    template <class J>
    static void prefetch_record_far(const J* r) noexcept {
        static_assert(sizeof(J) <= 128, "two lines a record");
        detail::prefetch_far(r);
        detail::prefetch_far(reinterpret_cast<const char*>(r) + 64);
    }

    /// `for_each_block` over `jobs`, whole blocks only; `AllOn`: every term is on, or off
    /// with a block hook (its row then holds +0.0).
    template <bool AllOn, class J, class Ctx, class Fn>
    constexpr void blocks(const batch_plan<J, Ctx>& plan, std::span<const J> jobs, const Ctx& c, Fn& fn) const noexcept {
        constexpr std::size_t rows = hook_row<J, Ctx>(term_count);
        const std::size_t full = jobs.size();
        const double* const weights = plan.weights.data();
        const bool* const enabled = plan.enabled.data();
        double factors[rows == 0 ? 1 : rows][block_of<J>];
        // A term that is off leaves its row unset: read as +0.0 when `AllOn` (see
        // `for_each_block`), never read otherwise but zeroed all the same, since compilers
        // cannot tell that no unset row is read. With every term on, every row is filled.
        bool some_off = false;
        for (std::size_t k = 0; k < term_count; ++k) some_off = some_off || !enabled[k];
        if (!AllOn || some_off)
            for (auto& row : factors)
                for (double& f : row) f = 0.0;
        for (std::size_t base = 0; base < full; base += block_of<J>) {
            const std::span<const J, block_of<J>> block(jobs.data() + base, block_of<J>);
            // Records over a cache line (Maui's, 104 bytes): the records four blocks ahead go
            // to the second-level cache, two lines a job in the loop below (which covers every
            // line of them). The hardware prefetcher alone lags behind, and a first-level
            // prefetch that far ahead is evicted again by the terms' tables before use
            // (maui_bench engine/full/batch; the prefetches are spread job by job rather than
            // issued as a burst at the block's start). Slurm's 64-byte records gain nothing
            // from it: left out. Near the end, this block.
            constexpr std::size_t n = block_of<J>;
            const J* const far =
                jobs.data() + (base + (far_blocks<J> + 1) * n <= full ? base + far_blocks<J> * n : base);
            fill_hooked(block, c, plan.states, enabled, factors, std::index_sequence_for<Terms...>{});
            // The records of the block after next, one cache line per job at most: by the time
            // that block is reached they are in cache. Near the end, the records of this block
            // instead (in cache already): no test job by job.
            const J* const ahead = jobs.data() + (base + 2 * n < full ? base + 2 * n : base);
            // Every term on: two jobs at a time, each job's terms added in order from 0.0 in its
            // own lane, the same operations as `score`'s. The terms computed job by job (no
            // block hook) share the vector arithmetic there. With every factor from the
            // block's rows (Maui's engine) the pairs are faster too, now that the hooks take no
            // branch on the job's data (maui_bench engine/full/batch).
            if constexpr (AllOn && block_of<J> % 2 == 0) {
                if (!std::is_constant_evaluated()) {
                    for (std::size_t i = 0; i < block_of<J>; i += 2) {
                        if (i % detail::prefetch_step<J> == 0) detail::prefetch(ahead + i);
                        if ((i + 1) % detail::prefetch_step<J> == 0) detail::prefetch(ahead + i + 1);
                        if constexpr (far_blocks<J> != 0) {
                            prefetch_record_far(far + i);
                            prefetch_record_far(far + i + 1);
                        }
                        simd::f64x2 sum;
                        add_term_pairs(block, c, factors, weights, i, sum, std::index_sequence_for<Terms...>{});
                        fn(base + i, block[i], sum.lane0());
                        fn(base + i + 1, block[i + 1], sum.lane1());
                    }
                    continue;
                }
            }
            for (std::size_t i = 0; i < block_of<J>; ++i) {
                if (!std::is_constant_evaluated() && i % detail::prefetch_step<J> == 0) detail::prefetch(ahead + i);
                if constexpr (far_blocks<J> != 0)
                    if (!std::is_constant_evaluated()) prefetch_record_far(far + i);
                double sum = 0.0;
                add_terms<AllOn>(block[i], c, factors, weights, enabled, i, sum, std::index_sequence_for<Terms...>{});
                fn(base + i, block[i], sum);
            }
        }
    }

    /// Whether term `t`, of weight `w`, adds nothing to any sum in context `c` because its
    /// factor is idle there (see `idle_aware_factor`); an infinite or NaN weight times +-0.0
    /// is NaN, so such a term is never skipped.
    template <class T, class Ctx>
    static constexpr bool idle(const T& t, const Ctx& c, double w) noexcept {
        if constexpr (idle_aware_factor<typename T::factor_type, Ctx>) return w - w == 0.0 && t.factor.idle(c);
        else return false;
    }

    /// The hooked factors of a block: one row per term whose factor has a block hook (left
    /// unset for a term that is off, whose row is never read). Always inlined: gcc 12 left it
    /// out of line for compile-time weights (inlined for runtime ones), a call per block and
    /// the tables reloaded.
    template <class J, class Ctx, class States, std::size_t... I>
    [[gnu::always_inline]] constexpr void fill_hooked(std::span<const J, block_of<J>> block, const Ctx& c,
                                                      const States& states, const bool* enabled,
                                                      double (*factors)[block_of<J>],
                                                      std::index_sequence<I...>) const noexcept {
        (
            [&] {
                if constexpr (hooked<J, Ctx>[I]) {
                    const auto& t = std::get<I>(terms_);
                    if (!enabled[I]) return;
                    const std::span<double, block_of<J>> out(factors[hook_row<J, Ctx>(I)], block_of<J>);
                    using F = typename std::remove_cvref_t<decltype(t)>::factor_type;
                    if constexpr (prepared_block_factor_policy<F, J, Ctx, block_of<J>>)
                        t.factor.block(*std::get<I>(states), block, c, out);
                    else
                        t.factor.block(block, c, out);
                }
            }(),
            ...);
    }

    /// Term I's weight as a double in `w`, or false when the term adds nothing to any sum and
    /// is skipped: a term left out at compile time (`left_out`), a compile-time weight of 0;
    /// with `AllOn` false, a term that is off (`enabled`, which `AllOn` callers need not give).
    template <bool AllOn, std::size_t I, class Ctx>
    constexpr bool weight_of(const double* weights, const bool* enabled, double& w) const noexcept {
        const auto& t = std::get<I>(terms_);
        using T = std::remove_cvref_t<decltype(t)>;
        if constexpr (left_out[I]) {
            return false;
        } else if constexpr (is_fixed_weight_v<typename T::weight_type>) {
            if (t.disabled()) return false;
            if constexpr (!AllOn && idle_aware_factor<typename T::factor_type, Ctx>)
                if (!enabled[I]) return false;
            w = typename T::weight_type{}.as_double();
        } else {
            if (!AllOn && !enabled[I]) return false;
            w = weights[I];
        }
        return true;
    }

    /// Adds every enabled term's contribution for job `j` (index `i` of its block) to `sum`:
    /// factor x weight, then sum + that, as `score` does (two statements: nothing to fuse
    /// into a multiply-add).
    template <bool AllOn, class J, class Ctx, std::size_t... I>
    constexpr void add_terms(const J& j, const Ctx& c, const double (*factors)[block_of<J>], const double* weights,
                             const bool* enabled, std::size_t i, double& sum, std::index_sequence<I...>) const noexcept {
        (
            [&] {
                const auto& t = std::get<I>(terms_);
                double w = 0.0;
                if (!weight_of<AllOn, I, Ctx>(weights, enabled, w)) return;
                double f = 0.0;
                if constexpr (hooked<J, Ctx>[I]) f = factors[hook_row<J, Ctx>(I)][i];
                else f = t.factor(j, c);
                const double contribution = f * w;
                sum = sum + contribution;
            }(),
            ...);
    }

    /// `add_terms` with every term on for jobs `i` and `i + 1` of a block, one in each lane
    /// of `sum`: each term's factors (its block row, or its call operator job by job) times
    /// its weight, added to the two sums.
    template <class J, class Ctx, std::size_t... I>
    void add_term_pairs(std::span<const J, block_of<J>> block, const Ctx& c, const double (*factors)[block_of<J>],
                        const double* weights, std::size_t i, simd::f64x2& sum,
                        std::index_sequence<I...>) const noexcept {
        (
            [&] {
                const auto& t = std::get<I>(terms_);
                double w = 0.0;
                if (!weight_of<true, I, Ctx>(weights, nullptr, w)) return;
                simd::f64x2 f;
                if constexpr (hooked<J, Ctx>[I]) f = simd::f64x2::load(factors[hook_row<J, Ctx>(I)] + i);
                else f = simd::f64x2::of(t.factor(block[i], c), t.factor(block[i + 1], c));
                sum = sum + f * simd::f64x2::all(w);
            }(),
            ...);
    }

    [[no_unique_address]] Result result_{};
    std::tuple<Terms...> terms_{};
};

/// Builds an engine from a result policy and terms: `make_engine(slurm_result{}, t1, t2)`.
template <class Result, class... Terms>
constexpr engine<Result, Terms...> make_engine(Result r, Terms... t) {
    return engine<Result, Terms...>(r, t...);
}

} // namespace mfprio
