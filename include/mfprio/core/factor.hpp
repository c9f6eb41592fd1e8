#pragma once
/// \file
/// The factor-policy concept: a small value type with a `name` and a `noexcept` call
/// operator taking the job and the evaluation context and returning a double.

#include <concepts>
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

} // namespace mfprio
