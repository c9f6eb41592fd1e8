// Tests for mfprio/core/weight.hpp: fixed (compile-time) and runtime weights, the `_w`
// literal, unary minus, the `weight` concept. The "does not compile" checks live in
// tests/static/weight_static.cpp.
#include <mfprio/core/weight.hpp>

#include <cstdint>
#include <type_traits>

#include <doctest/doctest.h>

using namespace mfprio::literals;

TEST_CASE("core: 1000_w is fixed_weight<1000u>") {
    static_assert(std::is_same_v<decltype(1000_w), mfprio::fixed_weight<1000u>>);
    static_assert(std::is_same_v<decltype(1000_w)::value_type, std::uint32_t>);
    constexpr auto w = 1000_w;
    CHECK(w.get() == 1000u);
    CHECK(decltype(w)::value == 1000u);
    CHECK(w.as_double() == 1000.0);
    CHECK(mfprio::is_fixed_weight_v<std::remove_const_t<decltype(w)>>);
    // A fixed weight has no state: it costs nothing to store.
    CHECK(std::is_empty_v<mfprio::fixed_weight<1000u>>);
}

TEST_CASE("core: the largest Slurm weight 4294967295_w compiles and keeps its value") {
    // Slurm's PriorityWeight* are uint32 (reference slurm.md 1.4): 2^32 - 1 = 4294967295.
    constexpr auto w = 4294967295_w;
    static_assert(std::is_same_v<decltype(w), const mfprio::fixed_weight<4294967295u>>);
    CHECK(w.get() == 0xffffffffu);
    CHECK(w.as_double() == 4294967295.0);
    constexpr auto zero = 0_w;
    CHECK(zero.get() == 0u);
    CHECK(zero.as_double() == 0.0);
}

TEST_CASE("core: weight literals accept digit separators") {
    static_assert(std::is_same_v<decltype(1'000_w), mfprio::fixed_weight<1000u>>);
    static_assert(std::is_same_v<decltype(60'000_w), mfprio::fixed_weight<60000u>>);
    static_assert(std::is_same_v<decltype(4'294'967'295_w), mfprio::fixed_weight<4294967295u>>);
    CHECK(1'000'000_w .get() == 1000000u);
    // The separator is skipped, not read as a digit: 1'0 is ten, not a hundred.
    CHECK(1'0_w .get() == 10u);
}

TEST_CASE("core: runtime_weight holds a configuration value") {
    mfprio::runtime_weight<std::uint32_t> w{};
    CHECK(w.get() == 0u); // value-initialized
    w.value = 10000;      // PriorityWeightFairshare=10000 (seed 000 example configuration)
    CHECK(w.get() == 10000u);
    CHECK(w.as_double() == 10000.0);
    CHECK_FALSE(mfprio::is_fixed_weight_v<decltype(w)>);

    // TRES weights are doubles in Slurm; a 20G memory weight is 20/1024 per MB (reference
    // slurm.md 1.1 TRES: "G means /1024") = 0.01953125, exact in binary.
    const mfprio::runtime_weight<double> mem{20.0 / 1024.0};
    CHECK(mem.get() == 0.01953125);
    CHECK(mem.as_double() == 0.01953125);

    // Maui weights are signed.
    const mfprio::runtime_weight<std::int32_t> neg{-25};
    CHECK(neg.as_double() == -25.0);
}

TEST_CASE("core: unary minus on a fixed weight gives a signed compile-time weight") {
    constexpr auto w = -5_w;
    using W = std::remove_const_t<decltype(w)>;
    static_assert(std::is_signed_v<W::value_type>);
    static_assert(std::is_same_v<W, mfprio::fixed_weight<std::int64_t{-5}>>);
    CHECK(W::value == -5);
    CHECK(w.get() == -5);
    CHECK(w.as_double() == -5.0);
    CHECK(mfprio::is_fixed_weight_v<W>);
    // The magnitude survives for the largest literal: -(2^32 - 1), not a wrapped uint32.
    constexpr auto big = -4294967295_w;
    CHECK(big.get() == -4294967295LL);
    CHECK(big.as_double() == -4294967295.0);
    // Negating twice comes back to the positive value (as a signed weight).
    constexpr auto back = -(-7_w);
    CHECK(back.get() == 7);
}

namespace {
struct not_noexcept_weight {
    using value_type = int;
    int get() const { return 1; }
    double as_double() const noexcept { return 1.0; }
};
struct float_weight {
    using value_type = float;
    float get() const noexcept { return 1.0f; }
    float as_double() const noexcept { return 1.0f; } // must return exactly double
};
} // namespace

TEST_CASE("core: the weight concept") {
    CHECK(mfprio::weight<mfprio::fixed_weight<1000u>>);
    CHECK(mfprio::weight<mfprio::fixed_weight<std::int64_t{-5}>>);
    CHECK(mfprio::weight<mfprio::runtime_weight<std::uint32_t>>);
    CHECK(mfprio::weight<mfprio::runtime_weight<double>>);
    CHECK(mfprio::weight<mfprio::runtime_weight<std::int32_t>>);
    CHECK_FALSE(mfprio::weight<int>);
    CHECK_FALSE(mfprio::weight<double>);
    CHECK_FALSE(mfprio::weight<not_noexcept_weight>);
    CHECK_FALSE(mfprio::weight<float_weight>);
}
