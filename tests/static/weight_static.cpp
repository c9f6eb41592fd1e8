// Compile-only checks for mfprio/core/weight.hpp and mfprio/core/term.hpp: this translation
// unit is built (tests/meson.build, target mfprio_static_checks) but never run. A failing
// check is a build error.
//
// Negative checks are written `requires !requires {...}` style (mp-units' static/ tests).
//
// A literal such as `4294967296_w` cannot be checked this way: the literal operator is
// consteval and its body fails during constant evaluation, which is a hard error, not a
// substitution failure, so no requires-expression can observe it. Instead we check the
// function the operator calls, `detail::parse_weight_literal<chars...>()`, by using its result
// as a template argument inside a requires-expression: evaluating it throws, the template
// argument is not a constant expression, and that *is* a substitution failure. gcc 12 and
// clang 14 both treat it so.
#include <mfprio/core/term.hpp>
#include <mfprio/core/weight.hpp>

#include <cstdint>
#include <string_view>
#include <type_traits>

namespace {

using namespace mfprio::literals;

template <char... Digits>
concept weight_literal_compiles = requires {
    typename std::integral_constant<std::uint64_t, mfprio::detail::parse_weight_literal<Digits...>()>;
};

// 4294967295 = 2^32 - 1 is the largest Slurm weight (uint32): accepted.
static_assert(weight_literal_compiles<'4', '2', '9', '4', '9', '6', '7', '2', '9', '5'>);
static_assert(mfprio::detail::parse_weight_literal<'4', '2', '9', '4', '9', '6', '7', '2', '9', '5'>() == 4294967295u);
// 4294967296 = 2^32 does not fit: rejected.
static_assert(!weight_literal_compiles<'4', '2', '9', '4', '9', '6', '7', '2', '9', '6'>);
// Far too large (and would overflow uint64 if not stopped at the first digit past 32 bits).
static_assert(!weight_literal_compiles<'9', '9', '9', '9', '9', '9', '9', '9', '9', '9', '9', '9', '9', '9', '9', '9',
                                       '9', '9', '9', '9', '9'>);
// Digit separators are skipped: 4'294'967'295 is accepted, 4'294'967'296 is not.
static_assert(weight_literal_compiles<'4', '\'', '2', '9', '4', '\'', '9', '6', '7', '\'', '2', '9', '5'>);
static_assert(!weight_literal_compiles<'4', '\'', '2', '9', '4', '\'', '9', '6', '7', '\'', '2', '9', '6'>);
static_assert(mfprio::detail::parse_weight_literal<'1', '\'', '0', '0', '0'>() == 1000u);
// Not a decimal integer: hexadecimal (0x10_w), binary (0b1_w), floating (1.5_w, 1e3_w).
static_assert(!weight_literal_compiles<'0', 'x', '1', '0'>);
static_assert(!weight_literal_compiles<'0', 'b', '1'>);
static_assert(!weight_literal_compiles<'1', '.', '5'>);
static_assert(!weight_literal_compiles<'1', 'e', '3'>);
// Leading zeros are still decimal (an octal-looking 010_w is ten, not eight).
static_assert(mfprio::detail::parse_weight_literal<'0', '1', '0'>() == 10u);
static_assert(std::is_same_v<decltype(010_w), mfprio::fixed_weight<10u>>);

// The literal's type and value.
static_assert(std::is_same_v<decltype(1000_w), mfprio::fixed_weight<1000u>>);
static_assert(std::is_same_v<decltype(4294967295_w), mfprio::fixed_weight<4294967295u>>);
static_assert(std::is_same_v<decltype(-5_w), mfprio::fixed_weight<std::int64_t{-5}>>);
static_assert(std::is_signed_v<decltype(-5_w)::value_type>);
static_assert(std::is_unsigned_v<decltype(5_w)::value_type>);
static_assert((-4294967295_w).get() == -4294967295LL);

// The weight concept.
static_assert(mfprio::weight<mfprio::fixed_weight<0u>>);
static_assert(mfprio::weight<mfprio::runtime_weight<double>>);
static_assert(!mfprio::weight<unsigned>);
static_assert(!mfprio::weight<void>);

// A term only takes a weight: `term<F, unsigned>` does not form.
struct some_factor {
    static constexpr std::string_view name = "some";
    double operator()(int, int) const noexcept { return 0.0; }
};
static_assert(mfprio::term<some_factor, mfprio::fixed_weight<1u>>::name == "some");
template <class W>
concept term_accepts = requires { typename mfprio::term<some_factor, W>; };
static_assert(term_accepts<mfprio::fixed_weight<1u>>);
static_assert(term_accepts<mfprio::runtime_weight<unsigned>>);
static_assert(!term_accepts<unsigned>);
static_assert(!term_accepts<double>);

// make_term with a plain number gives a runtime weight; with a non-number it does not exist.
template <class T>
concept make_term_accepts = requires(T w) { mfprio::make_term(some_factor{}, w); };
static_assert(make_term_accepts<unsigned>);
static_assert(make_term_accepts<double>);
static_assert(make_term_accepts<mfprio::fixed_weight<3u>>);
static_assert(!make_term_accepts<const char*>);
static_assert(std::is_same_v<decltype(mfprio::make_term(some_factor{}, 3u)),
                             mfprio::term<some_factor, mfprio::runtime_weight<unsigned>>>);

} // namespace
