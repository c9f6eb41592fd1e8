#pragma once
/// \file
/// A term: a factor policy times a weight.

#include <string_view>

#include <mfprio/core/factor.hpp>
#include <mfprio/core/weight.hpp>

namespace mfprio {

/// Factor `F` weighted by `W`. A zero weight contributes exactly +0.0 without evaluating the
/// factor, as Slurm does ("each factor is computed only when its weight is non-zero").
template <class F, weight W>
struct term {
    using factor_type = F;
    using weight_type = W;
    static constexpr std::string_view name = F::name;

    [[no_unique_address]] F factor{};
    [[no_unique_address]] W weight{};

    /// True when the weight is zero (known at compile time for fixed weights).
    [[nodiscard]] constexpr bool disabled() const noexcept {
        if constexpr (is_fixed_weight_v<W>) return W::value == 0;
        else return weight.get() == 0;
    }

    /// The raw (unweighted) factor; 0 when the term is disabled.
    template <class J, class Ctx>
        requires factor_policy<F, J, Ctx>
    [[nodiscard]] constexpr double raw(const J& j, const Ctx& c) const noexcept {
        if (disabled()) return 0.0;
        return factor(j, c);
    }

    /// factor x weight, computed as Slurm does: the factor (a double) times the weight
    /// converted to double.
    template <class J, class Ctx>
        requires factor_policy<F, J, Ctx>
    [[nodiscard]] constexpr double contribution(const J& j, const Ctx& c) const noexcept {
        if constexpr (is_fixed_weight_v<W>) {
            if constexpr (W::value == 0) return 0.0;
            else return factor(j, c) * W{}.as_double();
        } else {
            if (weight.get() == 0) return 0.0;
            return factor(j, c) * weight.as_double();
        }
    }
};

/// Builds a term from a factor and a weight: `make_term(age_factor{...}, 1000_w)`.
template <class F, weight W>
constexpr term<F, W> make_term(F f, W w) noexcept {
    return term<F, W>{f, w};
}

/// Builds a term with a runtime weight: `make_term(age_factor{...}, conf.weight_age)`.
template <class F, class T>
    requires std::is_arithmetic_v<T>
constexpr term<F, runtime_weight<T>> make_term(F f, T w) noexcept {
    return term<F, runtime_weight<T>>{f, runtime_weight<T>{w}};
}

} // namespace mfprio
