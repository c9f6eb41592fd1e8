#pragma once
/// \file
/// Components: a factor that is itself a weighted sum of capped subfactors (Maui's two-level
/// hierarchy). A component's value is `cap(sum over its subterms of weight x cap_s(subfactor))`,
/// and an engine term weighs it like any other factor, which gives Maui's
/// `CW x cap_C(sum SW x cap_S(SF))`.
///
/// Caps are one-sided (Maui: `min(x, cap)`) or symmetric (Moab: `clamp(x, -cap, cap)`); a
/// cap <= 0 means none. Weights are signed. A subfactor may adjust its own weight job by job
/// (`adjust_weight`), as Maui adds a QOS's QTWEIGHT to QUEUETIMEWEIGHT.

#include <array>
#include <concepts>
#include <cstddef>
#include <string_view>
#include <tuple>

#include <mfprio/core/factor.hpp>
#include <mfprio/core/weight.hpp>

namespace mfprio {

/// How a cap bounds a value.
enum class cap_style : std::uint8_t {
    upper,     ///< Maui: min(x, cap); no lower bound
    symmetric, ///< Moab: clamp(x, -cap, cap)
};

/// A cap: `limit` <= 0 (or NaN) means no cap.
struct cap {
    double limit = 0;
    cap_style style = cap_style::upper;

    [[nodiscard]] constexpr bool active() const noexcept { return limit > 0; }
    /// The capped value.
    [[nodiscard]] constexpr double operator()(double x) const noexcept {
        if (!active()) return x;
        if (x > limit) return limit;
        if (style == cap_style::symmetric && x < -limit) return -limit;
        return x;
    }
};

/// A compile-time name for a component: `component<"Serv", ...>`.
template <std::size_t N>
struct fixed_name {
    char text[N]{};
    constexpr fixed_name(const char (&s)[N]) noexcept { // NOLINT: implicit on purpose
        for (std::size_t i = 0; i < N; ++i) text[i] = s[i];
    }
    [[nodiscard]] constexpr std::string_view view() const noexcept { return {text, N - 1}; }
};

/// A subfactor that changes its weight for some jobs: `f.adjust_weight(w, j, c)` returns the
/// weight to use for job `j` given the configured weight `w` (both as doubles).
template <class F, class J, class Ctx>
concept weight_adjusting_factor = requires(const F& f, double w, const J& j, const Ctx& c) {
    { f.adjust_weight(w, j, c) } noexcept -> std::same_as<double>;
};

/// A weight-adjusting subfactor that can tell whether it adjusts any job's weight in a
/// context: `f.adjusts_weight(c)` (false: every job gets the configured weight). Every
/// `weight_adjusting_factor` must have it, so that a component knows when it is idle.
template <class F, class Ctx>
concept weight_adjustment_aware = requires(const F& f, const Ctx& c) {
    { f.adjusts_weight(c) } noexcept -> std::same_as<bool>;
};

/// One subterm of a component: factor, weight and cap.
template <class F, weight W>
struct subterm {
    using factor_type = F;
    using weight_type = W;
    static constexpr std::string_view name = F::name;

    [[no_unique_address]] F factor{};
    [[no_unique_address]] W weight{};
    cap limit{};

    /// The weight for job `j`: the configured one, adjusted if the factor says so.
    template <class J, class Ctx>
    [[nodiscard]] constexpr double weight_for(const J& j, const Ctx& c) const noexcept {
        const double w = weight.as_double();
        if constexpr (weight_adjusting_factor<F, J, Ctx>) return factor.adjust_weight(w, j, c);
        else return w;
    }
};

/// Builds a subterm: `make_subterm(queuetime{}, 1000_w)` or with a runtime weight and a cap.
template <class F, weight W>
constexpr subterm<F, W> make_subterm(F f, W w, cap limit = {}) noexcept {
    return subterm<F, W>{.factor = f, .weight = w, .limit = limit};
}
template <class F, class T>
    requires std::is_arithmetic_v<T>
constexpr subterm<F, runtime_weight<T>> make_subterm(F f, T w, cap limit = {}) noexcept {
    return subterm<F, runtime_weight<T>>{f, runtime_weight<T>{w}, limit};
}

/// One line of a component's breakdown.
struct subterm_explanation {
    std::string_view name;   ///< the subfactor's name
    double factor = 0;       ///< the raw subfactor
    double capped = 0;       ///< after its cap
    double weight = 0;       ///< the weight used for this job (after adjustment)
    double contribution = 0; ///< weight x capped (0 when the weight is 0)
};

/// A component's breakdown: its subterms, their sum and the capped sum (the component's value).
template <std::size_t N>
struct component_explanation {
    std::array<subterm_explanation, N> subterms{};
    double sum = 0;   ///< sum of the contributions, in order, from 0.0
    double value = 0; ///< the sum after the component's cap
};

/// A component named `Name`: the capped weighted sum of `Subterms`, added in the order given,
/// starting from 0.0. A subterm whose weight (after adjustment) is 0 adds nothing and its
/// factor is not evaluated.
template <fixed_name Name, class... Subterms>
struct component {
    static constexpr std::string_view name = Name.view();
    static constexpr std::size_t size = sizeof...(Subterms);

    std::tuple<Subterms...> subterms{};
    cap limit{};

    template <class J, class Ctx>
    static constexpr bool applies = (factor_policy<typename Subterms::factor_type, J, Ctx> && ...);

    /// The weighted sum before the component's cap.
    template <class J, class Ctx>
        requires applies<J, Ctx>
    [[nodiscard]] constexpr double sum(const J& j, const Ctx& c) const noexcept {
        static_assert(((!weight_adjusting_factor<typename Subterms::factor_type, J, Ctx> ||
                        weight_adjustment_aware<typename Subterms::factor_type, Ctx>) && ...),
                      "mfprio: a subfactor with adjust_weight(w, job, ctx) must also have adjusts_weight(ctx)");
        return std::apply([&](const Subterms&... s) noexcept {
            double total = 0.0;
            (
                [&] {
                    const double w = s.weight_for(j, c);
                    if (w == 0) return;
                    const double contribution = w * s.limit(s.factor(j, c));
                    total = total + contribution;
                }(),
                ...);
            return total;
        }, subterms);
    }

    /// True when the component is +0.0 for every job in context `c`: every subterm's
    /// weight is 0 and no subfactor adjusts its weight there, so every subterm is skipped,
    /// the sum stays +0.0 and a cap keeps it (an engine then skips the component's term).
    template <class Ctx>
    [[nodiscard]] constexpr bool idle(const Ctx& c) const noexcept {
        return std::apply([&](const Subterms&... s) noexcept {
            return ((s.weight.as_double() == 0 && !adjusts(s.factor, c)) && ...);
        }, subterms);
    }

    /// The component's value: the capped sum.
    template <class J, class Ctx>
        requires applies<J, Ctx>
    [[nodiscard]] constexpr double operator()(const J& j, const Ctx& c) const noexcept {
        return limit(sum(j, c));
    }

    /// Every subterm's raw and capped factor, weight and contribution (the raw factor is
    /// evaluated even when the weight is 0, for reports), with the same sum as `sum`.
    template <class J, class Ctx>
        requires applies<J, Ctx>
    [[nodiscard]] constexpr component_explanation<size> explain(const J& j, const Ctx& c) const noexcept {
        component_explanation<size> out{};
        std::size_t i = 0;
        double total = 0.0;
        std::apply([&](const Subterms&... s) noexcept {
            (
                [&] {
                    auto& line = out.subterms[i++];
                    line.name = Subterms::name;
                    line.factor = s.factor(j, c);
                    line.capped = s.limit(line.factor);
                    line.weight = s.weight_for(j, c);
                    if (line.weight == 0) return;
                    line.contribution = line.weight * line.capped;
                    total = total + line.contribution;
                }(),
                ...);
        }, subterms);
        out.sum = total;
        out.value = limit(total);
        return out;
    }

    /// The I-th subterm.
    template <std::size_t I>
    [[nodiscard]] constexpr auto& get() noexcept { return std::get<I>(subterms); }
    template <std::size_t I>
    [[nodiscard]] constexpr const auto& get() const noexcept { return std::get<I>(subterms); }

private:
    template <class F, class Ctx>
    static constexpr bool adjusts(const F& f, const Ctx& c) noexcept {
        if constexpr (weight_adjustment_aware<F, Ctx>) return f.adjusts_weight(c);
        else return false;
    }
};

/// Builds a component from its cap and subterms: `make_component<"Serv">(cap{}, s1, s2)`.
template <fixed_name Name, class... Subterms>
constexpr component<Name, Subterms...> make_component(cap limit, Subterms... s) noexcept {
    return component<Name, Subterms...>{std::tuple<Subterms...>{s...}, limit};
}

} // namespace mfprio
