#pragma once
/// \file
/// Weights of priority terms. A weight is either a compile-time constant (`fixed_weight`,
/// written `1000_w`: no storage, an out-of-range literal is a compile error) or a runtime
/// value read from configuration (`runtime_weight`). Both build the same engine.

#include <concepts>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace mfprio {

/// A weight known at compile time. `V` keeps the integer type of the modelled system:
/// unsigned 32-bit for Slurm's PriorityWeight* parameters, signed for Maui's.
template <auto V>
struct fixed_weight {
    using value_type = decltype(V);
    static constexpr value_type value = V;
    [[nodiscard]] constexpr value_type get() const noexcept { return V; }
    /// The weight as the double the engine multiplies by.
    [[nodiscard]] constexpr double as_double() const noexcept { return static_cast<double>(V); }
    /// `-5_w`: a negative compile-time weight, for systems with signed weights (Maui).
    constexpr auto operator-() const noexcept {
        return fixed_weight<-static_cast<std::int64_t>(V)>{};
    }
};

/// A weight read at run time (from slurm.conf, maui.cfg or a policy file).
template <class T>
struct runtime_weight {
    using value_type = T;
    T value{};
    [[nodiscard]] constexpr T get() const noexcept { return value; }
    [[nodiscard]] constexpr double as_double() const noexcept { return static_cast<double>(value); }
};

/// Anything usable as a term's weight.
template <class W>
concept weight = requires(const W& w) {
    typename W::value_type;
    { w.get() } noexcept;
    { w.as_double() } noexcept -> std::same_as<double>;
};

/// True for `fixed_weight<V>`: the engine can skip a term whose fixed weight is 0 at
/// compile time.
namespace detail {
template <class W>
inline constexpr bool is_fixed_weight = false;
template <auto V>
inline constexpr bool is_fixed_weight<fixed_weight<V>> = true;
} // namespace detail
template <class W>
inline constexpr bool is_fixed_weight_v = detail::is_fixed_weight<std::remove_cvref_t<W>>;

namespace detail {
template <char... Digits>
consteval std::uint64_t parse_weight_literal() {
    constexpr char text[] = {Digits...};
    std::uint64_t value = 0;
    for (char c : text) {
        if (c == '\'') continue; // digit separators
        if (c < '0' || c > '9') throw "mfprio: a weight literal must be a decimal integer, e.g. 1000_w";
        const std::uint64_t next = value * 10 + static_cast<std::uint64_t>(c - '0');
        if (next > 0xffffffffu) throw "mfprio: a weight literal must fit in 32 bits (Slurm weights are uint32)";
        value = next;
    }
    return value;
}
} // namespace detail

inline namespace literals {
/// `1000_w` is `fixed_weight<1000u>`: a compile-time uint32 weight. A literal that does not
/// fit in 32 bits, or is not a decimal integer, does not compile.
template <char... Digits>
consteval auto operator""_w() {
    constexpr std::uint64_t v = detail::parse_weight_literal<Digits...>();
    return fixed_weight<static_cast<std::uint32_t>(v)>{};
}
} // namespace literals

} // namespace mfprio
