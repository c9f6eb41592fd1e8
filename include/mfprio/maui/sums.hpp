#pragma once
/// \file
/// Maui's seven priority components as sums (reference B1): each component is the sum, in
/// Maui's order from 0.0, of its subcomponents' weighted, capped factors (`SW x cap_S(SF)`),
/// capped as a whole; the engine weighs the components (`CW`). Here: the components'
/// subterm lists, and what their block hooks (`maui/components.hpp`) share to give the same sums
/// job by job and a block at a time.

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include <mfprio/core/component.hpp>
#include <mfprio/core/simd.hpp>
#include <mfprio/core/term.hpp>
#include <mfprio/maui/context.hpp>
#include <mfprio/maui/factors.hpp>
#include <mfprio/maui/model.hpp>

namespace mfprio::maui {

using signed_weight = runtime_weight<std::int64_t>;
template <class F>
using maui_subterm = subterm<F, signed_weight>;

namespace detail {
using serv_base = ::mfprio::component<"Serv", maui_subterm<queuetime>, maui_subterm<xfactor>,
                                      maui_subterm<spviolation>, maui_subterm<bypass>>;
using targ_base = ::mfprio::component<"Targ", maui_subterm<target_queuetime>, maui_subterm<target_xfactor>>;
using cred_base = ::mfprio::component<"Cred", maui_subterm<user_priority>, maui_subterm<group_priority>,
                                      maui_subterm<account_priority>, maui_subterm<qos_priority>,
                                      maui_subterm<class_priority>>;
using attr_base = ::mfprio::component<"Attr", maui_subterm<unimplemented<subcomponent::attrattr>>,
                                      maui_subterm<unimplemented<subcomponent::attrstate>>>;
using fs_base = ::mfprio::component<"FS", maui_subterm<fs_user>, maui_subterm<fs_group>, maui_subterm<fs_account>,
                                    maui_subterm<fs_qos>, maui_subterm<fs_class>>;
using res_base = ::mfprio::component<"Res", maui_subterm<nodes>, maui_subterm<procs>, maui_subterm<memory>,
                                     maui_subterm<swap>, maui_subterm<disk>, maui_subterm<proc_seconds>,
                                     maui_subterm<processor_equivalent>, maui_subterm<walltime>,
                                     maui_subterm<user_procs>, maui_subterm<user_jobs>>;
using usage_base = ::mfprio::component<"Usage", maui_subterm<consumed>, maui_subterm<execution_time>,
                                       maui_subterm<remaining>, maui_subterm<percent>>;

// ---- what the block hooks share
//
// Exactness (the hooks write what the call operator returns, bit for bit): each subterm's
// contribution is the same product, weight x cap(factor), of the same values, added in the
// same order from 0.0. Where the call operator skips a subterm whose weight (after
// adjustment) is 0, a hook adds +0.0 instead (`prepared_subterm::term`), without evaluating
// the product (the factor could be infinite or NaN): a sum that starts at +0.0 is never
// -0.0 (x + y is -0.0 only when both are), and x + (+0.0) is x for every x but -0.0. A cap
// is two comparisons against bounds that are infinite where the cap does nothing
// (`cap_bounds`), which gives `cap::operator()`'s result for every x, NaN included.

/// A cap as bounds: `min` then `max`, with infinite bounds where the cap does nothing.
struct cap_bounds {
    double hi = std::numeric_limits<double>::infinity();
    double lo = -std::numeric_limits<double>::infinity();

    [[nodiscard]] static constexpr cap_bounds of(const cap& c) noexcept {
        cap_bounds b;
        if (c.active()) {
            b.hi = c.limit;
            if (c.style == cap_style::symmetric) b.lo = -c.limit;
        }
        return b;
    }
    /// `cap::operator()`'s value: x > hi gives hi, x < lo gives lo, anything else (NaN) x.
    /// Where `lo` is -inf (an upper cap, Maui's, or none) the second test changes nothing,
    /// y < -inf being false for every y.
    [[nodiscard]] constexpr double operator()(double x) const noexcept {
        const double y = hi < x ? hi : x;
        return y < lo ? lo : y;
    }
    /// The same in each lane: `simd::min(hi, x)` is hi < x ? hi : x, `simd::max(lo, y)` is
    /// lo > y ? lo : y, NaN included.
    [[nodiscard]] static simd::f64x2 apply(simd::f64x2 x, simd::f64x2 hi, simd::f64x2 lo) noexcept {
        return max(lo, min(hi, x));
    }
};

/// A subterm's configured weight (as a double) and cap, laid out once per batch.
struct prepared_subterm {
    double w = 0;
    cap_bounds bounds{};

    template <class S>
    [[nodiscard]] static constexpr prepared_subterm of(const S& s) noexcept {
        return {s.weight.as_double(), cap_bounds::of(s.limit)};
    }
    /// What the component adds for factor `f` under weight `w`: w x cap(f), or +0.0 where
    /// the component skips the subterm (w == 0).
    [[nodiscard]] constexpr double term(double w_used, double f) const noexcept {
        const double contribution = w_used * bounds(f);
        return w_used == 0 ? 0.0 : contribution;
    }
    [[nodiscard]] constexpr double term(double f) const noexcept { return term(w, f); }
};

/// The prepared subterms of a component, in order.
template <class Base, std::size_t... I>
[[nodiscard]] constexpr std::array<prepared_subterm, Base::size> prepare_subterms(const Base& b,
                                                                                  std::index_sequence<I...>) noexcept {
    return {prepared_subterm::of(b.template get<I>())...};
}
template <class Base>
[[nodiscard]] constexpr std::array<prepared_subterm, Base::size> prepare_subterms(const Base& b) noexcept {
    return prepare_subterms(b, std::make_index_sequence<Base::size>{});
}

/// Index `i` into a table of `n` entries followed by a row for "none": `i`, or `n` when
/// `i` is past the table (`no_cred` included).
[[nodiscard]] constexpr std::size_t row_of(std::uint64_t i, std::size_t n) noexcept {
    return i < n ? static_cast<std::size_t>(i) : n;
}

/// XFMINWCLIMIT for the jobs of a QOS row of SERV's and TARG's tables (`real`: a QOS of the
/// table; false: the row of jobs without one): the option's value where it applies to them,
/// -inf where it does not (the larger of -inf and the wallclock limit is the limit).
[[nodiscard]] inline double xf_floor_of(const options& o, bool real) noexcept {
    return !o.xf_min_wclimit_needs_qos || real ? o.xf_min_wclimit : -std::numeric_limits<double>::infinity();
}

/// XFACTOR in each lane as `xfactor` computes it, from the queue time, the wallclock limit and
/// the floor (`xf_floor_of`): the code's (queued + wclimit) / max(floor, wclimit), or the
/// doc's 1 + queued / max(floor, wclimit), computed whatever the denominator, then +0.0 where
/// the denominator is not > 0. std::max(floor, wclimit) is floor < wclimit ? wclimit : floor,
/// which `simd::max(wclimit, floor)` is, NaN included.
[[nodiscard]] inline simd::f64x2 xfactor_lanes(simd::f64x2 queued, simd::f64x2 wclimit, simd::f64x2 floor,
                                               bool doc) noexcept {
    const simd::f64x2 denominator = max(wclimit, floor);
    simd::f64x2 ratio = (doc ? queued : queued + wclimit) / denominator;
    if (doc) ratio = simd::f64x2::all(1.0) + ratio;
    return simd::keep(denominator > simd::f64x2(), ratio);
}

/// Doubles laid out once per batch by a hook, in one allocation that does not throw: when it
/// fails the hook falls back to the call operator.
struct prepared_doubles {
    std::unique_ptr<double[]> data;
    [[nodiscard]] bool allocate(std::size_t n) noexcept {
        data.reset(new (std::nothrow) double[n == 0 ? 1 : n]);
        return data != nullptr;
    }
    [[nodiscard]] explicit operator bool() const noexcept { return data != nullptr; }
};

} // namespace detail

} // namespace mfprio::maui
