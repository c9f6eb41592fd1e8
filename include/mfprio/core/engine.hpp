#pragma once
/// \file
/// The engine: a weighted sum over its terms, unrolled at compile time, with a result
/// policy on top. `score` is the raw sum, `priority` the result policy's output, `explain`
/// the per-term breakdown (fixed size, no allocation), `batch` the same over a span of jobs.

#include <array>
#include <cstddef>
#include <span>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include <mfprio/core/assert.hpp>
#include <mfprio/core/result.hpp>
#include <mfprio/core/term.hpp>

namespace mfprio {

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

    constexpr engine() = default;
    constexpr explicit engine(Result result, Terms... terms) : result_(result), terms_(terms...) {}
    constexpr explicit engine(Terms... terms)
        requires(sizeof...(Terms) > 0 && std::is_default_constructible_v<Result>)
        : terms_(terms...) {}

    /// The raw weighted sum for one job.
    template <class J, class Ctx>
    [[nodiscard]] constexpr double score(const J& j, const Ctx& c) const noexcept {
        return std::apply([&](const Terms&... t) noexcept {
            double sum = 0.0;
            ((sum += t.contribution(j, c)), ...);
            return sum;
        }, terms_);
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

    /// Priorities of a span of jobs into `out` (which must be at least as long).
    template <class J, class Ctx>
    constexpr void batch(std::span<const J> jobs, const Ctx& c, std::span<output_type> out) const noexcept {
        MFPRIO_ASSERT(out.size() >= jobs.size());
        const std::size_t n = jobs.size();
        for (std::size_t k = 0; k < n; ++k) out[k] = priority(jobs[k], c);
    }

    /// Raw sums of a span of jobs into `out`.
    template <class J, class Ctx>
    constexpr void batch_scores(std::span<const J> jobs, const Ctx& c, std::span<double> out) const noexcept {
        MFPRIO_ASSERT(out.size() >= jobs.size());
        const std::size_t n = jobs.size();
        for (std::size_t k = 0; k < n; ++k) out[k] = score(jobs[k], c);
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
    [[no_unique_address]] Result result_{};
    std::tuple<Terms...> terms_{};
};

/// Builds an engine from a result policy and terms: `make_engine(slurm_result{}, t1, t2)`.
template <class Result, class... Terms>
constexpr engine<Result, Terms...> make_engine(Result r, Terms... t) {
    return engine<Result, Terms...>(r, t...);
}

} // namespace mfprio
