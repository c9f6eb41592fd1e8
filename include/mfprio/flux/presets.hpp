#pragma once
/// \file
/// Flux's priority schemes as ready-made engines (reference flux_maui.md A1, A2.1; seed 003):
///
/// - `make_flux_accounting_engine`: flux-accounting's multi-factor plugin,
///   `round(W_fairshare x fair-share + W_queue x queue priority + W_bank x bank priority
///   + W_urgency x (urgency - 16))` with the `flux_result` policy, the terms added in the
///   plugin's order (fair-share, queue, bank, urgency) from 0.0; default weights 100000,
///   10000, 0 and 1000;
/// - `make_fcfs_engine`: seed 003's first-come first-served priority, 4294967295 minus the
///   submission sequence number, under `flux_result` (so HOLD and EXPEDITE urgencies keep
///   their flux-core meaning: that combination is mfprio's, the 2017 design predates urgency);
/// - `make_flux_core_engine`: flux-core's default plugin, priority = urgency.
///
/// Products are computed in double, as the engine does for every term: the plugin's fair-share
/// and bank terms are int x double products too, so they agree bit for bit. Two of the
/// plugin's products are int x int (`priority_calculation` in src/plugins/mf_priority.cpp:
/// `queue_weight * queue_factor` and `urgency_weight * (urgency - 16)`), which overflow int
/// past 2^31 - 1: undefined in C++, a 32-bit wrap in the code compilers emit for it.
/// `make_flux_accounting_engine` computes them exactly (a queue priority of 300000 under the
/// default queue weight 10000 adds 3e9); `make_flux_accounting_plugin_engine` wraps them as
/// the plugin's machine code does (the same job gets -1294967296 from its queue and a
/// priority of 0). A term whose weight is 0 is not evaluated and adds nothing (the plugin
/// adds 0 x factor, the same for finite factors).

#include <cstdint>
#include <string_view>

#include <mfprio/core/engine.hpp>
#include <mfprio/core/factor.hpp>
#include <mfprio/core/term.hpp>
#include <mfprio/core/weight.hpp>
#include <mfprio/flux/factors.hpp>
#include <mfprio/flux/result.hpp>

namespace mfprio::flux {

/// flux-accounting's priority factor weights (its `priority_factor_weight_table`), with the
/// plugin's defaults (reference A2.1). Kept as int64 as read from a configuration; see
/// `truncate_weight` for what the plugin makes of values beyond the int range.
struct flux_accounting_weights {
    std::int64_t fairshare = 100000; ///< fair-share weight
    std::int64_t queue = 10000;      ///< queue priority weight
    std::int64_t bank = 0;           ///< bank priority weight
    std::int64_t urgency = 1000;     ///< weight of (urgency - 16)
};

/// A weight as flux-accounting's plugin stores it: the plugin reads the configured weight as a
/// 64-bit JSON integer and keeps it in an `int` (reference A2.1), so only the low 32 bits
/// survive, read as a two's-complement int32. Weights in [-2^31, 2^31 - 1] are unchanged;
/// 2^31 becomes -2147483648, 3000000000 becomes -1294967296 and 2^32 + 5 becomes 5. Apply it to
/// weights read from a configuration to reproduce the plugin; the engine itself takes any
/// int64 weight.
[[nodiscard]] constexpr std::int64_t truncate_weight(std::int64_t configured) noexcept {
    return static_cast<std::int32_t>(configured); // modular since C++20
}

/// Every weight of `w` through `truncate_weight`.
[[nodiscard]] constexpr flux_accounting_weights truncate_weights(const flux_accounting_weights& w) noexcept {
    return {truncate_weight(w.fairshare), truncate_weight(w.queue), truncate_weight(w.bank),
            truncate_weight(w.urgency)};
}

/// The runtime weight type of the flux-accounting engine.
using accounting_weight = runtime_weight<std::int64_t>;

/// flux-accounting's engine: four runtime-weight terms in the plugin's order of addition.
using flux_accounting_engine =
    engine<flux_result, term<fairshare_factor, accounting_weight>, term<queue_factor, accounting_weight>,
           term<bank_factor, accounting_weight>, term<urgency_factor, accounting_weight>>;

/// Builds flux-accounting's engine from its weights (the defaults when none are given) and a
/// result policy (`flux_result{.clamp_upper = false}` to mirror the plugin's missing upper
/// clamp).
[[nodiscard]] constexpr flux_accounting_engine make_flux_accounting_engine(const flux_accounting_weights& w = {},
                                                                           flux_result r = {}) {
    return flux_accounting_engine(r, term<fairshare_factor, accounting_weight>{{}, accounting_weight{w.fairshare}},
                                  term<queue_factor, accounting_weight>{{}, accounting_weight{w.queue}},
                                  term<bank_factor, accounting_weight>{{}, accounting_weight{w.bank}},
                                  term<urgency_factor, accounting_weight>{{}, accounting_weight{w.urgency}});
}

/// An int x int term of flux-accounting's plugin: `weight * (int)F(job)` in 32-bit int
/// arithmetic, wrapping past the int range as the plugin's compiled code does (two's
/// complement multiplication of the low 32 bits), converted to double. The weight is the
/// plugin's int (`truncate_weight` of the configured value); the factor, an integer in the
/// plugin (queue priority, urgency - 16), is read through `F` and taken modulo 2^32 as well.
/// Used with weight 1 by `make_flux_accounting_plugin_engine`.
template <class F>
struct int_product {
    static constexpr std::string_view name = F::name;
    [[no_unique_address]] F factor{};
    std::int32_t weight = 0; ///< the plugin's int weight

    template <class J, class Ctx>
        requires factor_policy<F, J, Ctx>
    [[nodiscard]] constexpr double operator()(const J& j, const Ctx& c) const noexcept {
        const double f = factor(j, c);
        // The factor is an int in the plugin; here a double holding an integer. Its low 32
        // bits, as the int the plugin holds (values outside the int64 range: 0).
        const bool in_range = f > -9223372036854775808.0 && f < 9223372036854775808.0;
        const auto as_int = static_cast<std::uint32_t>(static_cast<std::uint64_t>(in_range ? static_cast<std::int64_t>(f) : 0));
        const std::uint32_t product = static_cast<std::uint32_t>(weight) * as_int; // modular
        return static_cast<double>(static_cast<std::int32_t>(product));
    }
};

/// flux-accounting's engine with the plugin's int x int products wrapping (see the file
/// comment): the queue and urgency terms are `int_product`s with weight 1, carrying the
/// weights (through `truncate_weight`), the fair-share and bank terms as in
/// `flux_accounting_engine`.
using flux_accounting_plugin_engine =
    engine<flux_result, term<fairshare_factor, accounting_weight>, term<int_product<queue_factor>, fixed_weight<1u>>,
           term<bank_factor, accounting_weight>, term<int_product<urgency_factor>, fixed_weight<1u>>>;

/// Builds `flux_accounting_plugin_engine`: every weight through `truncate_weight`, as the
/// plugin stores it.
[[nodiscard]] constexpr flux_accounting_plugin_engine
make_flux_accounting_plugin_engine(const flux_accounting_weights& configured = {}, flux_result r = {}) {
    const flux_accounting_weights w = truncate_weights(configured);
    return flux_accounting_plugin_engine(
        r, term<fairshare_factor, accounting_weight>{{}, accounting_weight{w.fairshare}},
        term<int_product<queue_factor>, fixed_weight<1u>>{{{}, static_cast<std::int32_t>(w.queue)}, {}},
        term<bank_factor, accounting_weight>{{}, accounting_weight{w.bank}},
        term<int_product<urgency_factor>, fixed_weight<1u>>{{{}, static_cast<std::int32_t>(w.urgency)}, {}});
}

/// Seed 003's FCFS engine: one term, `fcfs_factor` with weight 1, under `flux_result`. A job
/// with the default urgency and submission sequence number s gets 4294967295 - s (an exact
/// integer: the rounding changes nothing); urgency 0 holds it, urgency 31 gives 4294967295, and
/// other urgencies do not matter.
using fcfs_engine = engine<flux_result, term<fcfs_factor, fixed_weight<1u>>>;

/// Builds the FCFS engine.
[[nodiscard]] constexpr fcfs_engine make_fcfs_engine(flux_result r = {}) {
    return fcfs_engine(r, term<fcfs_factor, fixed_weight<1u>>{});
}

/// flux-core's default engine: priority = urgency (`urgency_result`), with the urgency as its
/// one term (weight 1) so that `score` and `explain` show it. Jobs of equal priority run in
/// job id order (see `flux/order.hpp`).
using flux_core_engine = engine<urgency_result, term<urgency_value, fixed_weight<1u>>>;

/// Builds flux-core's default engine.
[[nodiscard]] constexpr flux_core_engine make_flux_core_engine() {
    return flux_core_engine(urgency_result{}, term<urgency_value, fixed_weight<1u>>{});
}

} // namespace mfprio::flux
