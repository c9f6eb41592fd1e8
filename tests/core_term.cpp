// Tests for mfprio/core/term.hpp: factor x weight, skipping the factor when the weight is 0.
#include <mfprio/core/term.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>
#include <type_traits>

#include <doctest/doctest.h>

using namespace mfprio::literals;

namespace {

struct term_job {
    double value = 0.0;
};
struct term_ctx {};

/// Returns the job's value and counts its calls.
struct counting_factor {
    static constexpr std::string_view name = "counting";
    int* calls = nullptr;
    double operator()(const term_job& j, const term_ctx&) const noexcept {
        ++*calls;
        return j.value;
    }
};

/// A factor that must never be evaluated: it counts the call and returns NaN, which would
/// poison any sum it reached.
struct trapping_factor {
    static constexpr std::string_view name = "trap";
    int* calls = nullptr;
    double operator()(const term_job&, const term_ctx&) const noexcept {
        ++*calls;
        return std::numeric_limits<double>::quiet_NaN();
    }
};

} // namespace

TEST_CASE("core: a term with a fixed weight of 0 never evaluates its factor") {
    int calls = 0;
    const mfprio::term<trapping_factor, mfprio::fixed_weight<0u>> t{trapping_factor{&calls}, {}};
    const term_job j{};
    const double c = t.contribution(j, term_ctx{});
    CHECK(c == 0.0);
    CHECK_FALSE(std::isnan(c));
    CHECK_FALSE(std::signbit(c)); // exactly +0.0
    CHECK(t.raw(j, term_ctx{}) == 0.0);
    CHECK(t.disabled());
    CHECK(calls == 0);
}

TEST_CASE("core: a term with a runtime weight of 0 never evaluates its factor") {
    int calls = 0;
    auto t = mfprio::make_term(trapping_factor{&calls}, std::uint32_t{0});
    static_assert(std::is_same_v<decltype(t), mfprio::term<trapping_factor, mfprio::runtime_weight<std::uint32_t>>>);
    const term_job j{};
    const double c = t.contribution(j, term_ctx{});
    CHECK_FALSE(std::isnan(c));
    CHECK_FALSE(std::signbit(c));
    CHECK(c == 0.0);
    CHECK(std::isnan(t.raw(j, term_ctx{})) == false);
    CHECK(calls == 0);
    CHECK(t.disabled());

    // The same term with a non-zero weight does evaluate: the trap springs.
    t.weight.value = 1;
    CHECK_FALSE(t.disabled());
    CHECK(std::isnan(t.contribution(j, term_ctx{})));
    CHECK(calls == 1);
}

TEST_CASE("core: a non-zero weight multiplies the factor as a double") {
    int calls = 0;
    const auto t = mfprio::make_term(counting_factor{&calls}, 1000_w);
    static_assert(std::is_same_v<decltype(t), const mfprio::term<counting_factor, mfprio::fixed_weight<1000u>>>);
    // reference slurm.md 1: f.age *= W_age (u32 cast to double): 0.5 * 1000.0 = 500 exactly.
    CHECK(t.contribution(term_job{0.5}, term_ctx{}) == 500.0);
    // 0.1 * 3.0 is not 0.3 in binary: the term must give exactly the product Slurm computes.
    const auto t3 = mfprio::make_term(counting_factor{&calls}, 3_w);
    CHECK(t3.contribution(term_job{0.1}, term_ctx{}) == 0.1 * 3.0);
    CHECK(t3.raw(term_job{0.1}, term_ctx{}) == 0.1);
    CHECK(calls == 3);
    // A negative factor (e.g. nice) stays negative.
    CHECK(t.contribution(term_job{-2.0}, term_ctx{}) == -2000.0);
}

TEST_CASE("core: a runtime-weighted term reads its weight when evaluated") {
    int calls = 0;
    auto t = mfprio::make_term(counting_factor{&calls}, std::uint32_t{10000});
    CHECK(t.contribution(term_job{0.5}, term_ctx{}) == 5000.0); // 0.5 * 10000
    t.weight.value = 4294967295u;                                 // 2^32 - 1
    // 0.5 * 4294967295 = 2147483647.5, exact in binary
    CHECK(t.contribution(term_job{0.5}, term_ctx{}) == 2147483647.5);
    const auto td = mfprio::make_term(counting_factor{&calls}, -0.25); // a double (TRES-like) weight
    CHECK(td.contribution(term_job{8.0}, term_ctx{}) == -2.0);
}

TEST_CASE("core: a term's name and types come from its factor and weight") {
    using T = mfprio::term<counting_factor, mfprio::fixed_weight<7u>>;
    CHECK(T::name == std::string_view("counting"));
    static_assert(std::is_same_v<T::factor_type, counting_factor>);
    static_assert(std::is_same_v<T::weight_type, mfprio::fixed_weight<7u>>);
    const T t{};
    CHECK_FALSE(t.disabled());
    CHECK(t.weight.get() == 7u);
}
