#pragma once
/// \file
/// Maui's priority: the seven components as an engine over runtime weights, the result
/// policy that turns the sum into Maui's start priority (reference B4), the run priority of
/// running jobs, and the order jobs are started in.
///
/// `Prio = sum over SERV, TARG, CRED, ATTR, FS, RES, USAGE of CW x cap_C(CF)`, each
/// `CF = sum over its subcomponents of SW x cap_S(SF)`, added in Maui's order from 0.0. The
/// USAGE component is 0 in Maui's start priority (Moab counts it: option
/// `usage_in_start_priority`); it is the run priority of running jobs (`run_priority`).

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include <mfprio/core/component.hpp>
#include <mfprio/core/engine.hpp>
#include <mfprio/core/job.hpp>
#include <mfprio/core/term.hpp>
#include <mfprio/maui/context.hpp>
#include <mfprio/maui/factors.hpp>
#include <mfprio/maui/model.hpp>

#if defined(__SSE2__)
#include <emmintrin.h>

#include <mfprio/core/sse2.hpp>
#endif

namespace mfprio::maui {

// ---------------------------------------------------------------- result policy

/// How a Maui priority came about. 32 bits wide, as `mfprio::priority_status` is
/// (`core/result.hpp`: a one-byte store may alias any object).
enum class priority_status : std::uint32_t {
    computed,          ///< the weighted sum, truncated
    floored,           ///< the sum was below 1 and was raised to 1 (negatives not enabled)
    ceiling,           ///< the sum exceeded MAX_PRIO_VAL (1e9) and was lowered to it
    negative_rejected, ///< REJECTNEGPRIOJOBS: a negative priority, kept; the job will not start
    system_absolute,   ///< `setspri N` (N > 0): 1e9 + N, above every computed priority
    system_relative,   ///< `setspri -r N`: N added after the clamps
};

/// A Maui start priority (Maui's `long StartPriority`) and how it was obtained.
struct priority_value {
    std::int64_t value = 0;
    priority_status status = priority_status::computed;
    /// False when Maui would not start the job for its priority (REJECTNEGPRIOJOBS and < 0).
    [[nodiscard]] constexpr bool startable() const noexcept { return status != priority_status::negative_rejected; }
    friend constexpr bool operator==(const priority_value&, const priority_value&) = default;
};

/// Maui's final value (`MJobGetStartPriority`, after the sum): floor at 1 unless
/// REJECTNEGPRIOJOBS or ENABLENEGJOBPRIORITY, ceiling at MAX_PRIO_VAL (1e9), then a system
/// priority: absolute N > 0 replaces the value with 1e9 + N (N = 0 is no system priority:
/// Maui applies one only when its stored value is > 0), relative adds N after the ceiling.
/// The double is then truncated toward zero into a 64-bit integer, as Maui's cast does on
/// x86-64.
struct maui_result {
    using output_type = priority_value;
    bool reject_negative = false; ///< REJECTNEGPRIOJOBS
    bool enable_negative = false; ///< ENABLENEGJOBPRIORITY
    double max_priority = 1e9;    ///< MAX_PRIO_VAL

    /// The result policy configured by `opts`.
    [[nodiscard]] static constexpr maui_result from(const options& opts) noexcept {
        return maui_result{opts.reject_negative, opts.enable_negative, opts.max_priority};
    }

    /// Finishes a weighted sum for a job with the given system priority.
    [[nodiscard]] constexpr priority_value finish(double sum, system_priority_kind kind = system_priority_kind::none,
                                                  std::int64_t system = 0) const noexcept {
        double p = sum;
        priority_status status = priority_status::computed;
        if (!reject_negative && !enable_negative) {
            // Below 1 (NaN too) is floored to 1: selects rather than a branch, which went
            // either way at random where many sums are below 1 (x > 1 ? x : 1 is maxsd).
            static_assert(static_cast<int>(priority_status::computed) == 0 &&
                          static_cast<int>(priority_status::floored) == 1);
            status = static_cast<priority_status>(!(p >= 1.0)); // computed (0) or floored (1)
            p = p > 1.0 ? p : 1.0;
        } else if (!(p == p)) {
            p = 0.0; // NaN: never a silent garbage value
        }
        if (p > max_priority) { p = max_priority; status = priority_status::ceiling; }
        if (kind == system_priority_kind::absolute && system > 0) {
            p = max_priority + static_cast<double>(system);
            status = priority_status::system_absolute;
        } else if (kind == system_priority_kind::relative) {
            p += static_cast<double>(system);
            status = priority_status::system_relative;
        }
        // Negative priorities have no lower clamp in Maui; a sum below the 64-bit range (-inf
        // from an infinite factor, say) is held at its bottom instead of an undefined cast.
        constexpr double int64_bottom = -9223372036854775808.0;
        if (!(p > int64_bottom)) p = int64_bottom;
        const auto value = static_cast<std::int64_t>(p);
        if (reject_negative && value < 0 && status != priority_status::system_absolute)
            status = priority_status::negative_rejected;
        return {value, status};
    }

    template <class J, class F>
    constexpr priority_value operator()(const J& j, F&& score) const noexcept {
        auto kind = system_priority_kind::none;
        std::int64_t system = 0;
        if constexpr (has_system_priority_mode<J> && has_system_priority<J>) {
            kind = job_traits<J>::system_priority_mode(j);
            system = static_cast<std::int64_t>(job_traits<J>::system_priority(j));
        }
        return finish(score(), kind, system);
    }
};

// ---------------------------------------------------------------- the engine

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
    [[nodiscard]] constexpr double operator()(double x) const noexcept { return apply<true>(x); }
    /// The same, with the lower bound left out where `Lower` is false: the same value too
    /// when `lo` is -inf (an upper cap, Maui's, or none), y < -inf being false for every y.
    template <bool Lower>
    [[nodiscard]] constexpr double apply(double x) const noexcept {
        const double y = hi < x ? hi : x;
        if constexpr (Lower) return y < lo ? lo : y;
        else return y;
    }
    /// Whether the lower bound does anything (`lo` is not -inf): a symmetric cap.
    [[nodiscard]] constexpr bool has_lower() const noexcept { return lo != -std::numeric_limits<double>::infinity(); }
};

/// Calls `fn(std::bool_constant<L>{})` with L = `lower`: a hook's loop compiled twice, with
/// its caps' lower bounds and without them (every cap upper, Maui's own: one comparison a
/// cap instead of two, and no constant to keep in a register).
template <class Fn>
constexpr void with_lower(bool lower, Fn&& fn) {
    if (lower) fn(std::true_type{});
    else fn(std::false_type{});
}

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
    template <bool Lower = true>
    [[nodiscard]] constexpr double term(double w_used, double f) const noexcept {
        const double contribution = w_used * bounds.apply<Lower>(f);
        return w_used == 0 ? 0.0 : contribution;
    }
    template <bool Lower = true>
    [[nodiscard]] constexpr double term(double f) const noexcept { return term<Lower>(w, f); }
};

/// Whether some of the caps has a lower bound (`cap_bounds::has_lower`).
template <std::size_t N>
[[nodiscard]] constexpr bool any_lower(const std::array<prepared_subterm, N>& sub, const cap_bounds& limit) noexcept {
    bool lower = limit.has_lower();
    for (const prepared_subterm& s : sub) lower = lower || s.bounds.has_lower();
    return lower;
}

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

#if defined(__SSE2__)
/// XFACTOR in each lane as `xfactor` computes it, from the queue time, the wallclock limit and
/// the floor (`xf_floor_of`): the code's (queued + wclimit) / max(floor, wclimit), or the
/// doc's 1 + queued / max(floor, wclimit), computed whatever the denominator, then +0.0 where
/// the denominator is not > 0. std::max(floor, wclimit) is floor < wclimit ? wclimit : floor:
/// max_pd(wclimit, floor), which gives its second operand where either is NaN.
[[nodiscard]] inline __m128d xfactor_lanes(__m128d queued, __m128d wclimit, __m128d floor, bool doc) noexcept {
    const __m128d denominator = _mm_max_pd(wclimit, floor);
    __m128d ratio = _mm_div_pd(doc ? queued : _mm_add_pd(queued, wclimit), denominator);
    if (doc) ratio = _mm_add_pd(_mm_set1_pd(1.0), ratio);
    return _mm_and_pd(_mm_cmpgt_pd(denominator, _mm_setzero_pd()), ratio);
}
#endif

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

/// SERV: QUEUETIME, XFACTOR, SPVIOLATION and BYPASS. Its block hook reads each QOS's
/// QUEUETIME and XFACTOR weights (QTWEIGHT and XFWEIGHT added) and XFMINWCLIMIT from a table
/// laid out once per batch (a row for jobs without a QOS: no branch on it), and takes the
/// jobs two at a time (SSE2, one in each lane; a last odd job alone, its QUEUETIME and
/// XFACTOR terms in the two lanes).
struct serv_component : detail::serv_base {
    /// A QOS's row of the hook's table (the last row: jobs without a QOS).
    struct qos_row {
        /// The weights for the QOS's jobs: QUEUETIME's + QTWEIGHT, XFACTOR's + XFWEIGHT.
        double w[2] = {0.0, 0.0};
        double xf_floor = 0; ///< XFMINWCLIMIT where it applies to the QOS's jobs, else -inf
        double pad = 0;      ///< (32 bytes a row)
    };
    struct prepared {
        std::array<detail::prepared_subterm, size> sub{};
        detail::cap_bounds limit{};
        bool lower = true; ///< some cap has a lower bound (`detail::with_lower`)
        double spviolation[2] = {0.0, 0.0}; ///< SPVIOLATION's term for 0 and 1
        std::size_t count = 0;              ///< QOS rows, less the "none" row
        const qos_row* rows = nullptr;      ///< by QOS; nullptr when the allocation failed
        std::unique_ptr<qos_row[]> storage;
    };

    [[nodiscard]] prepared prepare(const context& c) const noexcept {
        prepared p;
        p.sub = detail::prepare_subterms<detail::serv_base>(*this);
        p.limit = detail::cap_bounds::of(limit);
        p.lower = detail::any_lower(p.sub, p.limit);
        p.spviolation[0] = p.sub[2].term(0.0);
        p.spviolation[1] = p.sub[2].term(1.0);
        const auto& table = c.creds[index(cred_kind::qos)];
        p.count = table.size();
        p.storage.reset(new (std::nothrow) qos_row[p.count + 1]);
        if (!p.storage) return p;
        for (std::size_t i = 0; i <= p.count; ++i) {
            qos_row& r = p.storage[i];
            const bool real = i < p.count;
            // The weights as the call operators adjust them (w + 0.0 for a job without a QOS:
            // w itself, a weight being never -0.0).
            r.w[0] = p.sub[0].w + static_cast<double>(real ? table[i].qt_weight : 0);
            r.w[1] = p.sub[1].w + static_cast<double>(real ? table[i].xf_weight : 0);
            r.xf_floor = detail::xf_floor_of(c.opts, real);
        }
        p.rows = p.storage.get();
        return p;
    }

    template <class J, std::size_t N>
        requires applies<J, context> && (N != std::dynamic_extent)
    void block(const prepared& p, std::span<const J, N> jobs, const context& c, std::span<double, N> out) const noexcept {
        if (p.rows == nullptr) {
            for (std::size_t i = 0; i < N; ++i) out[i] = (*this)(jobs[i], c);
            return;
        }
        using T = job_traits<J>;
        const bool whole = c.opts.queuetime == queuetime_unit::whole_minutes;
        const bool doc = c.opts.xfactor == xfactor_form::doc;
#if defined(__SSE2__)
        // QUEUETIME in lane 0, XFACTOR in lane 1: bounds as in `res_component`'s pairs.
        const __m128d hi = _mm_set_pd(p.sub[1].bounds.hi, p.sub[0].bounds.hi);
        const __m128d lo = _mm_set_pd(p.sub[1].bounds.lo, p.sub[0].bounds.lo);
        const __m128d zero = _mm_setzero_pd();
#endif
        detail::with_lower(p.lower, [&](auto lower_t) {
            constexpr bool lower = decltype(lower_t)::value;
            // One job: QUEUETIME and XFACTOR in the two lanes (SSE2).
            const auto one = [&](std::size_t i) noexcept {
                const J& j = jobs[i];
                const qos_row& q = p.rows[detail::row_of(cred_index<cred_kind::qos>(j), p.count)];
                const std::int64_t seconds = effective_queue_duration(j, c);
                const double queued = static_cast<double>(seconds);
                const double minutes = whole ? static_cast<double>(seconds / 60) : queued / 60.0;
                const double wclimit = static_cast<double>(T::wclimit(j));
                double total = 0.0;
#if defined(__SSE2__)
                // XFACTOR (`detail::xfactor_lanes`, the job in both lanes), and each term w x
                // cap(f), or +0.0 where w is 0, by masks: written as C++ selects they were
                // compiled to branches on the QOS, as good as random job by job.
                const __m128d xf = detail::xfactor_lanes(_mm_set1_pd(queued), _mm_set1_pd(wclimit),
                                                         _mm_set1_pd(q.xf_floor), doc);
                const __m128d f = _mm_unpacklo_pd(_mm_set_sd(minutes), xf);
                const __m128d w = _mm_loadu_pd(q.w);
                __m128d capped = _mm_min_pd(hi, f);
                if constexpr (lower) capped = _mm_max_pd(lo, capped);
                const __m128d terms = _mm_and_pd(_mm_mul_pd(w, capped), _mm_cmpneq_pd(w, zero));
                total = total + _mm_cvtsd_f64(terms);
                total = total + _mm_cvtsd_f64(_mm_unpackhi_pd(terms, terms));
#else
                const double denominator = std::max(q.xf_floor, wclimit);
                const double quotient = (doc ? queued : queued + wclimit) / denominator;
                const double ratio = doc ? 1.0 + quotient : quotient;
                const double xf = denominator > 0 ? ratio : 0.0;
                total = total + p.sub[0].term<lower>(q.w[0], minutes);
                total = total + p.sub[1].term<lower>(q.w[1], xf);
#endif
                total = total + p.spviolation[T::spviolation(j) ? 1 : 0];
                total = total + p.sub[3].term<lower>(static_cast<double>(T::bypass(j)));
                out[i] = p.limit.apply<lower>(total);
            };
#if defined(__SSE2__)
            // Two jobs: job i in lane 0, job i + 1 in lane 1, each lane the one-job arithmetic
            // in the same order: half the instructions a job.
            const __m128d hi_qt = _mm_set1_pd(p.sub[0].bounds.hi), lo_qt = _mm_set1_pd(p.sub[0].bounds.lo);
            const __m128d hi_xf = _mm_set1_pd(p.sub[1].bounds.hi), lo_xf = _mm_set1_pd(p.sub[1].bounds.lo);
            const __m128d hi_by = _mm_set1_pd(p.sub[3].bounds.hi), lo_by = _mm_set1_pd(p.sub[3].bounds.lo);
            const __m128d w_by = _mm_set1_pd(p.sub[3].w), on_by = _mm_cmpneq_pd(w_by, zero);
            const __m128d limit_hi = _mm_set1_pd(p.limit.hi), limit_lo = _mm_set1_pd(p.limit.lo);
            const __m128d sixty = _mm_set1_pd(60.0);
            const auto cap = [](__m128d x, __m128d upper, __m128d lower_bound) noexcept {
                const __m128d y = _mm_min_pd(upper, x);
                if constexpr (lower) return _mm_max_pd(lower_bound, y);
                else return y;
            };
            const auto two = [&](std::size_t i) noexcept {
                const J& a = jobs[i];
                const J& b = jobs[i + 1];
                const qos_row& qa = p.rows[detail::row_of(cred_index<cred_kind::qos>(a), p.count)];
                const qos_row& qb = p.rows[detail::row_of(cred_index<cred_kind::qos>(b), p.count)];
                const std::int64_t sa = effective_queue_duration(a, c), sb = effective_queue_duration(b, c);
                const __m128d queued = _mm_set_pd(static_cast<double>(sb), static_cast<double>(sa));
                const __m128d minutes = whole ? _mm_set_pd(static_cast<double>(sb / 60), static_cast<double>(sa / 60))
                                              : _mm_div_pd(queued, sixty);
                const __m128d wclimit =
                    _mm_set_pd(static_cast<double>(T::wclimit(b)), static_cast<double>(T::wclimit(a)));
                const __m128d xf = detail::xfactor_lanes(queued, wclimit, _mm_set_pd(qb.xf_floor, qa.xf_floor), doc);
                const __m128d w_qt = _mm_set_pd(qb.w[0], qa.w[0]), w_xf = _mm_set_pd(qb.w[1], qa.w[1]);
                __m128d total = _mm_and_pd(_mm_mul_pd(w_qt, cap(minutes, hi_qt, lo_qt)), _mm_cmpneq_pd(w_qt, zero));
                total = _mm_add_pd(zero, total); // 0.0 + the first term, as one job's sum begins
                total = _mm_add_pd(total, _mm_and_pd(_mm_mul_pd(w_xf, cap(xf, hi_xf, lo_xf)), _mm_cmpneq_pd(w_xf, zero)));
                total = _mm_add_pd(total, _mm_set_pd(p.spviolation[T::spviolation(b) ? 1 : 0],
                                                     p.spviolation[T::spviolation(a) ? 1 : 0]));
                const __m128d bypass =
                    _mm_set_pd(static_cast<double>(T::bypass(b)), static_cast<double>(T::bypass(a)));
                total = _mm_add_pd(total, _mm_and_pd(_mm_mul_pd(w_by, cap(bypass, hi_by, lo_by)), on_by));
                _mm_storeu_pd(out.data() + i, cap(total, limit_hi, limit_lo));
            };
            std::size_t i = 0;
            for (; i + 2 <= N; i += 2) two(i);
            for (; i < N; ++i) one(i);
#else
            for (std::size_t i = 0; i < N; ++i) one(i);
#endif
        });
    }
};

/// TARG: TARGETQUEUETIME and TARGETXFACTOR. Its block hook reads each QOS's targets from a
/// table laid out once per batch (a row for jobs without a QOS: no branch on it), takes the
/// jobs two at a time (SSE2, one in each lane), and leaves the powers to the few jobs that
/// need one: TARGETQUEUETIME is `pow(1000, 1)`, computed
/// once, for a queue time at or past QTTARGET; TARGETXFACTOR is `pow(0.0001, -2)`, computed
/// once, for an XFACTOR within 0.0001 of XFTARGET or past it, and `target_power`'s shortcut
/// (its pow where unsure) for the others.
struct targ_component : detail::targ_base {
    /// A QOS's row of the hook's table (the last row: jobs without a QOS).
    struct qos_row {
        double qt_target = 0; ///< QTTARGET (0: none)
        double xf_target = 0; ///< XFTARGET (0: none)
        double xf_floor = 0;  ///< XFMINWCLIMIT where it applies to the QOS's jobs, else -inf
        double qt_base = 0;   ///< TARGETQUEUETIME's term where no power is computed for the job
    };
    struct prepared {
        std::array<detail::prepared_subterm, size> sub{};
        detail::cap_bounds limit{};
        bool lower = true; ///< some cap has a lower bound (`detail::with_lower`)
        double thousand = 0; ///< thousand_power(1.0)
        double ceiling = 0;  ///< target_power(0.0001)
        std::size_t count = 0;         ///< QOS rows, less the "none" row
        const qos_row* rows = nullptr; ///< by QOS; nullptr when the allocation failed
        std::unique_ptr<qos_row[]> storage;
    };

    /// Idle when its weights are 0, or when no QOS has a QTTARGET or an XFTARGET (every job's
    /// subfactors are then 0).
    [[nodiscard]] constexpr bool idle(const context& c) const noexcept {
        if (detail::targ_base::idle(c)) return true;
        for (const credential& q : c.creds[index(cred_kind::qos)])
            if (q.qt_target > 0 || q.xf_target > 0) return false;
        return true;
    }

    [[nodiscard]] prepared prepare(const context& c) const noexcept {
        prepared p;
        p.sub = detail::prepare_subterms<detail::targ_base>(*this);
        p.limit = detail::cap_bounds::of(limit);
        p.lower = detail::any_lower(p.sub, p.limit);
        // The same functions as the call operators', at run time (never folded differently).
        volatile double one = 1.0, floor = 0.0001;
        p.thousand = thousand_power(one);
        p.ceiling = target_power(floor);
        const auto& table = c.creds[index(cred_kind::qos)];
        p.count = table.size();
        p.storage.reset(new (std::nothrow) qos_row[p.count + 1]);
        if (!p.storage) return p;
        const bool maui33 = c.opts.target_queuetime == target_queuetime_form::maui33;
        const double f_target = maui33 ? p.ceiling : p.thousand;
        for (std::size_t i = 0; i <= p.count; ++i) {
            qos_row& r = p.storage[i];
            const bool real = i < p.count;
            if (real) {
                r.qt_target = table[i].qt_target;
                r.xf_target = table[i].xf_target;
            }
            r.xf_floor = detail::xf_floor_of(c.opts, real);
            r.qt_base = p.sub[0].term(r.qt_target > 0 ? f_target : 0.0);
        }
        p.rows = p.storage.get();
        return p;
    }

    template <class J, std::size_t N>
        requires applies<J, context> && (N != std::dynamic_extent)
    void block(const prepared& p, std::span<const J, N> jobs, const context& c, std::span<double, N> out) const noexcept {
        if (p.rows == nullptr) {
            for (std::size_t i = 0; i < N; ++i) out[i] = (*this)(jobs[i], c);
            return;
        }
        using T = job_traits<J>;
        const bool maui33 = c.opts.target_queuetime == target_queuetime_form::maui33;
        const bool doc = c.opts.xfactor == xfactor_form::doc;
        const bool qt_on = p.sub[0].w != 0, xf_on = p.sub[1].w != 0;
        // In three steps, without a branch job by job on what its QOS has: first each job's
        // terms where no power is needed (table values), with a bit for the jobs that need
        // one; then those powers, job after job over the set bits; then each job's total,
        // its two terms added in order from 0.0, and the cap.
        constexpr std::size_t batch = N < 64 ? N : 64; // jobs a bit mask holds
        for (std::size_t first = 0; first < N; first += batch) {
            const std::size_t m = N - first < batch ? N - first : batch;
            double qt_term[batch];
            double d[batch];
            double xf_f[batch];
            std::uint64_t qt_power = 0; // bit i: job first + i's TARGETQUEUETIME needs its power
            std::uint64_t xf_power = 0; // bit i: job first + i's TARGETXFACTOR needs its power
            std::size_t i = 0;
#if defined(__SSE2__)
            // Two jobs at a time, job i in lane 0 and job i + 1 in lane 1, each lane the
            // one-job arithmetic below: half the instructions a job.
            for (; i + 2 <= m; i += 2) {
                const J& a = jobs[first + i];
                const J& b = jobs[first + i + 1];
                const qos_row& qa = p.rows[detail::row_of(cred_index<cred_kind::qos>(a), p.count)];
                const qos_row& qb = p.rows[detail::row_of(cred_index<cred_kind::qos>(b), p.count)];
                const std::int64_t start_a = effective_queue_start(a, c), start_b = effective_queue_start(b, c);
                const __m128d queued = _mm_set_pd(static_cast<double>(std::max<std::int64_t>(0, c.now - start_b)),
                                                  static_cast<double>(std::max<std::int64_t>(0, c.now - start_a)));
                const __m128d wclimit =
                    _mm_set_pd(static_cast<double>(T::wclimit(b)), static_cast<double>(T::wclimit(a)));
                const __m128d zero = _mm_setzero_pd(), tiny = _mm_set1_pd(0.0001);
                const __m128d qt = _mm_set_pd(qb.qt_target, qa.qt_target);
                const __m128d xf_target = _mm_set_pd(qb.xf_target, qa.xf_target);
                _mm_storeu_pd(qt_term + i, _mm_set_pd(qb.qt_base, qa.qt_base));
                const __m128d xf = detail::xfactor_lanes(queued, wclimit, _mm_set_pd(qb.xf_floor, qa.xf_floor), doc);
                const __m128d x = _mm_sub_pd(xf_target, xf);
                _mm_storeu_pd(d + i, _mm_max_pd(x, tiny));
                const __m128d has_xf = _mm_cmpgt_pd(xf_target, zero);
                _mm_storeu_pd(xf_f + i, _mm_and_pd(has_xf, _mm_set1_pd(p.ceiling)));
                const __m128d xf_pow = _mm_and_pd(has_xf, _mm_cmpgt_pd(x, tiny));
                const __m128d start =
                    _mm_set_pd(static_cast<double>(start_b), static_cast<double>(start_a));
                const __m128d qt_pow = maui33 ? _mm_cmpgt_pd(_mm_sub_pd(qt, start), tiny) : _mm_cmpnge_pd(queued, qt);
                const __m128d has_qt_pow = _mm_and_pd(_mm_cmpgt_pd(qt, zero), qt_pow);
                qt_power |= static_cast<std::uint64_t>(_mm_movemask_pd(has_qt_pow)) << i;
                xf_power |= static_cast<std::uint64_t>(_mm_movemask_pd(xf_pow)) << i;
            }
#endif
            for (; i < m; ++i) {
                const J& j = jobs[first + i];
                const qos_row& q = p.rows[detail::row_of(cred_index<cred_kind::qos>(j), p.count)];
                const std::int64_t start = effective_queue_start(j, c);
                const double queued = static_cast<double>(std::max<std::int64_t>(0, c.now - start));
                const double wclimit = static_cast<double>(T::wclimit(j));
                // TARGETQUEUETIME: Moab's 1000^min(1, queued / QTTARGET) is 1000^1 for a queue
                // time at or past the target (the quotient is then at least 1); Maui 3.3's
                // max(0.0001, QTTARGET - EffQTime)^-2 is the ceiling unless QTTARGET - EffQTime
                // exceeds 0.0001. TARGETXFACTOR: max(0.0001, XFTARGET - XFACTOR)^-2 is the
                // ceiling unless the difference exceeds 0.0001.
                qt_term[i] = q.qt_base;
#if defined(__SSE2__)
                // The tests as masks: written as C++ comparisons, they were compiled to branches,
                // which went one way or the other at random, job by job.
                const __m128d zero = _mm_setzero_pd(), tiny = _mm_set_sd(0.0001);
                const __m128d qt = _mm_set_sd(q.qt_target), xf_target = _mm_set_sd(q.xf_target);
                const __m128d xf = detail::xfactor_lanes(_mm_set1_pd(queued), _mm_set1_pd(wclimit),
                                                         _mm_set1_pd(q.xf_floor), doc); // the job in both lanes
                const __m128d x = _mm_sub_sd(xf_target, xf);
                d[i] = _mm_cvtsd_f64(_mm_max_sd(x, tiny)); // std::max(0.0001, x): x > 0.0001 ? x : 0.0001
                const __m128d has_xf = _mm_cmpgt_sd(xf_target, zero);
                xf_f[i] = _mm_cvtsd_f64(_mm_and_pd(has_xf, _mm_set_sd(p.ceiling))); // else +0.0
                const __m128d xf_pow = _mm_and_pd(has_xf, _mm_cmpgt_sd(x, tiny));
                const __m128d qt_pow = maui33 ? _mm_cmpgt_sd(_mm_sub_sd(qt, _mm_set_sd(static_cast<double>(start))), tiny)
                                              : _mm_cmpnge_sd(_mm_set_sd(queued), qt);
                const __m128d has_qt_pow = _mm_and_pd(_mm_cmpgt_sd(qt, zero), qt_pow);
                qt_power |= static_cast<std::uint64_t>(_mm_movemask_pd(has_qt_pow)) << i;
                xf_power |= static_cast<std::uint64_t>(_mm_movemask_pd(xf_pow)) << i;
#else
                const bool qt_pow = maui33 ? q.qt_target - static_cast<double>(start) > 0.0001 : !(queued >= q.qt_target);
                qt_power |= static_cast<std::uint64_t>((q.qt_target > 0) & qt_pow) << i;
                const double denominator = std::max(q.xf_floor, wclimit);
                const double quotient = (doc ? queued : queued + wclimit) / denominator;
                const double ratio = doc ? 1.0 + quotient : quotient;
                const double xf = denominator > 0 ? ratio : 0.0;
                d[i] = std::max(0.0001, q.xf_target - xf);
                const bool has_xf = q.xf_target > 0;
                xf_f[i] = has_xf ? p.ceiling : 0.0;
                xf_power |= static_cast<std::uint64_t>(has_xf & (d[i] != 0.0001)) << i;
#endif
            }
            // No power for a subterm whose weight is 0 (it is not added).
            qt_power &= qt_on ? ~std::uint64_t{0} : 0;
            xf_power &= xf_on ? ~std::uint64_t{0} : 0;
            for (; qt_power != 0; qt_power &= qt_power - 1) {
                const auto i = static_cast<std::size_t>(std::countr_zero(qt_power));
                const J& j = jobs[first + i];
                double f = 0.0;
                if (maui33) {
                    const double eff_qtime = static_cast<double>(effective_queue_start(j, c));
                    const double qt = p.rows[detail::row_of(cred_index<cred_kind::qos>(j), p.count)].qt_target;
                    f = target_power(std::max(0.0001, qt - eff_qtime));
                } else {
                    const double queued = static_cast<double>(effective_queue_duration(j, c));
                    const double qt = p.rows[detail::row_of(cred_index<cred_kind::qos>(j), p.count)].qt_target;
                    const double e = std::min(1.0, queued / qt);
                    f = e != 1.0 ? thousand_power(e) : p.thousand;
                }
                qt_term[i] = p.sub[0].term(f);
            }
            for (; xf_power != 0; xf_power &= xf_power - 1) {
                const auto i = static_cast<std::size_t>(std::countr_zero(xf_power));
                bool sure = false;
                const double v = detail::inverse_square_nearest(d[i], sure);
                xf_f[i] = sure ? v : detail::libm_target_power(d[i]);
            }
            detail::with_lower(p.lower, [&](auto lower_t) {
                constexpr bool lower = decltype(lower_t)::value;
                std::size_t k = 0;
#if defined(__SSE2__)
                // Two jobs at a time, as above.
                const __m128d w_xf = _mm_set1_pd(p.sub[1].w), hi_xf = _mm_set1_pd(p.sub[1].bounds.hi);
                const __m128d lo_xf = _mm_set1_pd(p.sub[1].bounds.lo);
                const __m128d hi = _mm_set1_pd(p.limit.hi), lo = _mm_set1_pd(p.limit.lo);
                for (; k + 2 <= m; k += 2) {
                    __m128d total = _mm_setzero_pd();
                    if (qt_on) total = _mm_add_pd(total, _mm_loadu_pd(qt_term + k));
                    if (xf_on) {
                        __m128d capped = _mm_min_pd(hi_xf, _mm_loadu_pd(xf_f + k));
                        if constexpr (lower) capped = _mm_max_pd(lo_xf, capped);
                        total = _mm_add_pd(total, _mm_mul_pd(w_xf, capped)); // w_xf is not 0 here
                    }
                    total = _mm_min_pd(hi, total);
                    if constexpr (lower) total = _mm_max_pd(lo, total);
                    _mm_storeu_pd(out.data() + first + k, total);
                }
#endif
                for (std::size_t i = k; i < m; ++i) {
                    double total = 0.0;
                    if (qt_on) total = total + qt_term[i];
                    if (xf_on) total = total + p.sub[1].term<lower>(xf_f[i]);
                    out[first + i] = p.limit.apply<lower>(total);
                }
            });
        }
    }
};

/// CRED: USER, GROUP, ACCOUNT, QOS and CLASS. Its block hook tabulates once per batch each
/// credential's weighted, capped PRIORITY term (with the DEFAULT fallbacks), CLASS's capped
/// priority and each group's CLASS weight, then adds table entries per job.
struct cred_component : detail::cred_base {
    struct prepared {
        std::array<std::size_t, cred_kind_count> size{}; ///< table sizes; row `size` is "none"
        std::array<const double*, cred_kind_count> term{}; ///< by credential: the term (CLASS: capped priority)
        const double* class_weight = nullptr;              ///< by group: CLASS's weight for its jobs
        detail::cap_bounds limit{};
        bool lower = true; ///< the cap has a lower bound (`detail::with_lower`)
        detail::prepared_doubles storage;
    };

    [[nodiscard]] prepared prepare(const context& c) const noexcept {
        prepared p;
        const auto sub = detail::prepare_subterms<detail::cred_base>(*this);
        p.limit = detail::cap_bounds::of(limit);
        p.lower = p.limit.has_lower();
        std::size_t total = 0;
        for (std::size_t k = 0; k < cred_kind_count; ++k) {
            p.size[k] = c.creds[k].size();
            total += p.size[k] + 1;
        }
        total += p.size[index(cred_kind::group)] + 1;
        if (!p.storage.allocate(total)) return p;
        double* at = p.storage.data.get();
        const auto fill = [&]<cred_kind K>(std::integral_constant<cred_kind, K>) noexcept {
            const std::size_t n = p.size[index(K)];
            for (std::size_t i = 0; i <= n; ++i) {
                const credential* cred = i < n ? &c.creds[index(K)][i] : nullptr;
                const double f = credential_priority<K>::of(cred, c);
                // CLASS: its weight depends on the job's group; the product is per job.
                at[i] = K == cred_kind::job_class ? sub[index(K)].bounds(f) : sub[index(K)].term(f);
            }
            p.term[index(K)] = at;
            at += n + 1;
        };
        fill(std::integral_constant<cred_kind, cred_kind::user>{});
        fill(std::integral_constant<cred_kind, cred_kind::group>{});
        fill(std::integral_constant<cred_kind, cred_kind::account>{});
        fill(std::integral_constant<cred_kind, cred_kind::qos>{});
        fill(std::integral_constant<cred_kind, cred_kind::job_class>{});
        const std::size_t groups = p.size[index(cred_kind::group)];
        for (std::size_t g = 0; g <= groups; ++g)
            at[g] = class_priority::weight_of(g < groups ? &c.creds[index(cred_kind::group)][g] : nullptr,
                                              sub[index(cred_kind::job_class)].w);
        p.class_weight = at;
        return p;
    }

    template <class J, std::size_t N>
        requires applies<J, context> && (N != std::dynamic_extent)
    void block(const prepared& p, std::span<const J, N> jobs, const context& c, std::span<double, N> out) const noexcept {
        if (!p.storage) {
            for (std::size_t i = 0; i < N; ++i) out[i] = (*this)(jobs[i], c);
            return;
        }
        const auto row = [&p]<cred_kind K>(const J& j, std::integral_constant<cred_kind, K>) noexcept {
            return detail::row_of(cred_index<K>(j), p.size[index(K)]);
        };
        using kind = cred_kind;
        detail::with_lower(p.lower, [&](auto lower_t) {
            constexpr bool lower = decltype(lower_t)::value;
            for (std::size_t i = 0; i < N; ++i) {
                const J& j = jobs[i];
                const std::size_t g = row(j, std::integral_constant<kind, kind::group>{});
                const double w_class = p.class_weight[g];
                // A capped priority is finite: w_class x it is +-0.0 for a zero weight.
                const std::size_t cls = row(j, std::integral_constant<kind, kind::job_class>{});
                const double class_term = w_class * p.term[index(kind::job_class)][cls];
                double total = 0.0;
                total = total + p.term[index(kind::user)][row(j, std::integral_constant<kind, kind::user>{})];
                total = total + p.term[index(kind::group)][g];
                total = total + p.term[index(kind::account)][row(j, std::integral_constant<kind, kind::account>{})];
                total = total + p.term[index(kind::qos)][row(j, std::integral_constant<kind, kind::qos>{})];
                total = total + class_term;
                out[i] = p.limit.apply<lower>(total);
            }
        });
    }
};

/// ATTR: ATTRATTR and ATTRSTATE, 0 in Maui 3.3 whatever the job: its block hook computes the
/// value once per block.
struct attr_component : detail::attr_base {
    /// Always idle: both subfactors are 0 for every job, in every context. The engine's
    /// batch leaves the term out at compile time (`always_idle_factor`).
    static constexpr bool always_idle = true;
    [[nodiscard]] constexpr bool idle(const context&) const noexcept { return true; }

    template <class J, std::size_t N>
        requires applies<J, context> && (N != std::dynamic_extent) && (N > 0)
    constexpr void block(std::span<const J, N> jobs, const context& c, std::span<double, N> out) const noexcept {
        const double v = (*this)(jobs[0], c);
        for (std::size_t i = 0; i < N; ++i) out[i] = v;
    }
};

/// FS: FSUSER ... FSCLASS. Its block hook tabulates once per batch each credential's
/// weighted, capped fair-share term (its usage against its target or the DEFAULT's, 0 when
/// fair-share is off), then adds table entries per job.
struct fs_component : detail::fs_base {
    struct prepared {
        std::array<std::size_t, cred_kind_count> size{};
        std::array<const double*, cred_kind_count> term{};
        detail::cap_bounds limit{};
        bool lower = true; ///< the cap has a lower bound (`detail::with_lower`)
        detail::prepared_doubles storage;
    };

    /// Idle when its weights are 0 or fair-share is off (`context::fs_active`).
    [[nodiscard]] constexpr bool idle(const context& c) const noexcept {
        return !c.fs_active || detail::fs_base::idle(c);
    }

    [[nodiscard]] prepared prepare(const context& c) const noexcept {
        prepared p;
        const auto sub = detail::prepare_subterms<detail::fs_base>(*this);
        p.limit = detail::cap_bounds::of(limit);
        p.lower = p.limit.has_lower();
        std::size_t total = 0;
        for (std::size_t k = 0; k < cred_kind_count; ++k) {
            p.size[k] = c.creds[k].size();
            total += p.size[k] + 1;
        }
        if (!p.storage.allocate(total)) return p;
        double* at = p.storage.data.get();
        const auto fill = [&]<cred_kind K>(std::integral_constant<cred_kind, K>) noexcept {
            const std::size_t n = p.size[index(K)];
            for (std::size_t i = 0; i <= n; ++i) {
                const credential* cred = i < n ? &c.creds[index(K)][i] : nullptr;
                const double f = c.fs_active ? fairshare_usage<K>::of(cred, c) : 0.0;
                at[i] = sub[index(K)].term(f);
            }
            p.term[index(K)] = at;
            at += n + 1;
        };
        fill(std::integral_constant<cred_kind, cred_kind::user>{});
        fill(std::integral_constant<cred_kind, cred_kind::group>{});
        fill(std::integral_constant<cred_kind, cred_kind::account>{});
        fill(std::integral_constant<cred_kind, cred_kind::qos>{});
        fill(std::integral_constant<cred_kind, cred_kind::job_class>{});
        return p;
    }

    template <class J, std::size_t N>
        requires applies<J, context> && (N != std::dynamic_extent)
    void block(const prepared& p, std::span<const J, N> jobs, const context& c, std::span<double, N> out) const noexcept {
        if (!p.storage) {
            for (std::size_t i = 0; i < N; ++i) out[i] = (*this)(jobs[i], c);
            return;
        }
        using kind = cred_kind;
        const auto at = [&p]<kind K>(const J& j, std::integral_constant<kind, K>) noexcept {
            return p.term[index(K)][detail::row_of(cred_index<K>(j), p.size[index(K)])];
        };
        detail::with_lower(p.lower, [&](auto lower_t) {
            constexpr bool lower = decltype(lower_t)::value;
            for (std::size_t i = 0; i < N; ++i) {
                const J& j = jobs[i];
                double total = 0.0;
                total = total + at(j, std::integral_constant<kind, kind::user>{});
                total = total + at(j, std::integral_constant<kind, kind::group>{});
                total = total + at(j, std::integral_constant<kind, kind::account>{});
                total = total + at(j, std::integral_constant<kind, kind::qos>{});
                total = total + at(j, std::integral_constant<kind, kind::job_class>{});
                out[i] = p.limit.apply<lower>(total);
            }
        });
    }
};

/// RES: NODE, PROC, MEM, SWAP, DISK, PS, PE, WALLTIME, UPROC and UJOB (the last two weighted
/// only with `options::res_user_terms`: `make_maui_engine` zeroes their weights otherwise).
/// Its block hook tabulates each user's UPROC and UJOB terms once per batch, computes the
/// processor equivalents without a branch on the job's requests (a job with a requirement
/// list gets its PE over the list), and (SSE2) takes the jobs two at a time, one in each
/// lane (a last odd job alone, its subterms two at a time).
struct res_component : detail::res_base {
    struct prepared {
        std::array<detail::prepared_subterm, size> sub{};
        detail::cap_bounds limit{};
        bool lower = true; ///< some cap has a lower bound (`detail::with_lower`)
        std::size_t users = 0;        ///< rows of `user_terms`, less the "none" row
        const double* user_terms = nullptr; ///< by user: UPROC's term, UJOB's term
        detail::prepared_doubles storage;
    };

    [[nodiscard]] prepared prepare(const context& c) const noexcept {
        prepared p;
        p.sub = detail::prepare_subterms<detail::res_base>(*this);
        p.limit = detail::cap_bounds::of(limit);
        p.lower = detail::any_lower(p.sub, p.limit);
        p.users = std::max(c.user_active_procs.size(), c.user_active_jobs.size());
        if (!p.storage.allocate(2 * (p.users + 1))) return p;
        double* at = p.storage.data.get();
        for (std::size_t u = 0; u <= p.users; ++u) {
            const double procs = u < c.user_active_procs.size() ? static_cast<double>(c.user_active_procs[u]) : 0.0;
            const double jobs = u < c.user_active_jobs.size() ? static_cast<double>(c.user_active_jobs[u]) : 0.0;
            at[2 * u] = p.sub[8].term(procs);
            at[2 * u + 1] = p.sub[9].term(jobs);
        }
        p.user_terms = at;
        return p;
    }

    template <class J, std::size_t N>
        requires applies<J, context> && (N != std::dynamic_extent)
    void block(const prepared& p, std::span<const J, N> jobs, const context& c, std::span<double, N> out) const noexcept {
        if (!p.storage) {
            for (std::size_t i = 0; i < N; ++i) out[i] = (*this)(jobs[i], c);
            return;
        }
        using T = job_traits<J>;
        const resources& r = c.cluster;
        const bool pe_on = r.procs > 0;
        const bool has_mem = r.mem > 0, has_disk = r.disk > 0, has_swap = r.swap > 0;
#if defined(__SSE2__)
        // Subterms 2k and 2k + 1's bounds, weights and masks (all ones where the weight is not 0).
        __m128d hi[4], lo[4], w[4], on[4];
        for (std::size_t k = 0; k < 4; ++k) {
            const detail::prepared_subterm& a = p.sub[2 * k];
            const detail::prepared_subterm& b = p.sub[2 * k + 1];
            hi[k] = _mm_set_pd(b.bounds.hi, a.bounds.hi);
            lo[k] = _mm_set_pd(b.bounds.lo, a.bounds.lo);
            w[k] = _mm_set_pd(b.w, a.w);
            on[k] = ::mfprio::detail::mask_pair(a.w != 0, b.w != 0);
        }
        // processor_equivalents' divisors (processors and memory, disk and swap) and whether
        // the cluster has each resource.
        const __m128d zero = _mm_setzero_pd();
        const __m128d den_pm = _mm_set_pd(r.mem, r.procs), den_ds = _mm_set_pd(r.swap, r.disk);
        const __m128d has_pm = ::mfprio::detail::mask_pair(false, has_mem);
        const __m128d has_ds = ::mfprio::detail::mask_pair(has_disk, has_swap);
        // cap_bounds in each lane: min_pd(hi, x) is hi < x ? hi : x, max_pd(lo, y) is
        // lo > y ? lo : y, NaN included.
        const auto pair_term = [&](auto lower_t, std::size_t k, double f0, double f1) noexcept {
            __m128d capped = _mm_min_pd(hi[k], _mm_set_pd(f1, f0));
            if constexpr (decltype(lower_t)::value) capped = _mm_max_pd(lo[k], capped);
            return _mm_and_pd(_mm_mul_pd(w[k], capped), on[k]);
        };
        // Two jobs: job i in lane 0, job i + 1 in lane 1, each lane the one-job arithmetic
        // in the same order (processor equivalents, then the ten subterms added from 0.0 one
        // after the other, then the cap): half the instructions a job.
        struct lane_subterm {
            __m128d hi, lo, w, on; // subterm k's bounds, weight and mask in both lanes
        };
        lane_subterm lanes[8];
        for (std::size_t k = 0; k < 8; ++k) {
            const detail::prepared_subterm& t = p.sub[k];
            lanes[k] = {_mm_set1_pd(t.bounds.hi), _mm_set1_pd(t.bounds.lo), _mm_set1_pd(t.w),
                        ::mfprio::detail::mask_pair(t.w != 0, t.w != 0)};
        }
        const __m128d limit_hi = _mm_set1_pd(p.limit.hi), limit_lo = _mm_set1_pd(p.limit.lo);
        const __m128d total_p = _mm_set1_pd(r.procs), total_m = _mm_set1_pd(r.mem);
        const __m128d total_d = _mm_set1_pd(r.disk), total_s = _mm_set1_pd(r.swap);
        const __m128d on_m = ::mfprio::detail::mask_pair(has_mem, has_mem);
        const __m128d on_d = ::mfprio::detail::mask_pair(has_disk, has_disk);
        const __m128d on_s = ::mfprio::detail::mask_pair(has_swap, has_swap);
        const __m128d on_pe = ::mfprio::detail::mask_pair(pe_on, pe_on);
        const auto two = [&](auto lower_t, std::size_t i) noexcept {
            constexpr bool lower = decltype(lower_t)::value;
            const J& a = jobs[i];
            const J& b = jobs[i + 1];
            const auto both = [&](auto field) noexcept {
                return _mm_set_pd(static_cast<double>(field(b)), static_cast<double>(field(a)));
            };
            const __m128d procs = both([](const J& j) noexcept { return T::procs(j); });
            const __m128d wclimit = both([](const J& j) noexcept { return T::wclimit(j); });
            const __m128d mem = both([](const J& j) noexcept { return T::mem_mb(j); });
            const __m128d swap = both([](const J& j) noexcept { return T::swap_mb(j); });
            const __m128d disk = both([](const J& j) noexcept { return T::disk_mb(j); });
            const __m128d nodes = both([](const J& j) noexcept { return T::nodes(j); });
            // processor_equivalents, as `one` computes them.
            const auto consider = [&](__m128d share, __m128d requested, __m128d total, __m128d has) noexcept {
                const __m128d q = _mm_div_pd(requested, total);
                const __m128d take = _mm_and_pd(_mm_and_pd(_mm_cmpgt_pd(requested, zero), has), _mm_cmpgt_pd(q, share));
                return _mm_or_pd(_mm_and_pd(take, q), _mm_andnot_pd(take, share));
            };
            __m128d share = _mm_div_pd(procs, total_p);
            share = consider(share, mem, total_m, on_m);
            share = consider(share, disk, total_d, on_d);
            share = consider(share, swap, total_s, on_s);
            __m128d pe = _mm_and_pd(_mm_mul_pd(total_p, share), on_pe);
            if constexpr (has_req<J>) {
                // Jobs with a requirement list: their PE over the list (`processor_equivalents`).
                const bool list_a = has_requirement_list(a, c), list_b = has_requirement_list(b, c);
                if (list_a || list_b) {
                    const double pe_a = list_a ? processor_equivalents(a, c) : _mm_cvtsd_f64(pe);
                    const double pe_b = list_b ? processor_equivalents(b, c) : _mm_cvtsd_f64(_mm_unpackhi_pd(pe, pe));
                    pe = _mm_set_pd(pe_b, pe_a);
                }
            }
            const __m128d ps = _mm_mul_pd(procs, wclimit);
            __m128d total = zero;
            const auto add = [&](std::size_t k, __m128d f) noexcept {
                __m128d capped = _mm_min_pd(lanes[k].hi, f);
                if constexpr (lower) capped = _mm_max_pd(lanes[k].lo, capped);
                total = _mm_add_pd(total, _mm_and_pd(_mm_mul_pd(lanes[k].w, capped), lanes[k].on));
            };
            add(0, nodes);
            add(1, procs);
            add(2, mem);
            add(3, swap);
            add(4, disk);
            add(5, ps);
            add(6, pe);
            add(7, wclimit);
            const double* ua = p.user_terms + 2 * detail::row_of(static_cast<std::size_t>(T::user(a)), p.users);
            const double* ub = p.user_terms + 2 * detail::row_of(static_cast<std::size_t>(T::user(b)), p.users);
            total = _mm_add_pd(total, _mm_set_pd(ub[0], ua[0]));
            total = _mm_add_pd(total, _mm_set_pd(ub[1], ua[1]));
            total = _mm_min_pd(limit_hi, total);
            if constexpr (lower) total = _mm_max_pd(limit_lo, total);
            _mm_storeu_pd(out.data() + i, total);
        };
#endif
        detail::with_lower(p.lower, [&](auto lower_t) {
            constexpr bool lower = decltype(lower_t)::value;
            // One job: its eight job subterms two at a time (SSE2).
            const auto one = [&](std::size_t i) noexcept {
                const J& j = jobs[i];
                const double procs = static_cast<double>(T::procs(j));
                const double wclimit = static_cast<double>(T::wclimit(j));
                // processor_equivalents: each request considered only where it is > 0 and the
                // cluster has the resource.
                double share = 0.0;
#if defined(__SSE2__)
                if constexpr (has_mem_mb<J> && has_disk_mb<J> && has_swap_mb<J>) {
                    // The four quotients in two SSE2 divisions, and each request's test as a mask:
                    // as C++ selects, gcc branched on the request job by job (which went either way
                    // at random) to skip its division. max(share, q), which is share < q ? q :
                    // share (NaN: share), is q > share ? q : share: q where all three tests hold.
                    const __m128d q_pm = _mm_div_pd(_mm_set_pd(static_cast<double>(T::mem_mb(j)), procs), den_pm);
                    const __m128d ds = _mm_set_pd(static_cast<double>(T::swap_mb(j)), static_cast<double>(T::disk_mb(j)));
                    const __m128d q_ds = _mm_div_pd(ds, den_ds);
                    const __m128d mem = _mm_set_pd(static_cast<double>(T::mem_mb(j)), 0.0);
                    const __m128d ok_m = _mm_and_pd(_mm_cmpgt_pd(mem, zero), has_pm);
                    const __m128d ok_ds = _mm_and_pd(_mm_cmpgt_pd(ds, zero), has_ds);
                    const auto consider = [](__m128d s, __m128d q, __m128d ok) noexcept {
                        const __m128d take = _mm_and_pd(ok, _mm_cmpgt_sd(q, s));
                        return _mm_or_pd(_mm_and_pd(take, q), _mm_andnot_pd(take, s));
                    };
                    __m128d s = q_pm;                                                   // procs / P
                    s = consider(s, _mm_unpackhi_pd(q_pm, q_pm), _mm_unpackhi_pd(ok_m, ok_m)); // mem
                    s = consider(s, q_ds, ok_ds);                                       // disk
                    s = consider(s, _mm_unpackhi_pd(q_ds, q_ds), _mm_unpackhi_pd(ok_ds, ok_ds)); // swap
                    share = _mm_cvtsd_f64(s);
                } else
#endif
                {
                    share = procs / r.procs;
                    const auto consider = [&share](double requested, bool has, double total) noexcept {
                        const double candidate = std::max(share, requested / total);
                        share = requested > 0 && has ? candidate : share;
                    };
                    if constexpr (has_mem_mb<J>) consider(static_cast<double>(T::mem_mb(j)), has_mem, r.mem);
                    if constexpr (has_disk_mb<J>) consider(static_cast<double>(T::disk_mb(j)), has_disk, r.disk);
                    if constexpr (has_swap_mb<J>) consider(static_cast<double>(T::swap_mb(j)), has_swap, r.swap);
                }
                const double pe_value = r.procs * share;
                double pe = pe_on ? pe_value : 0.0;
                if constexpr (has_req<J>) {
                    if (has_requirement_list(j, c)) pe = processor_equivalents(j, c);
                }
                const double ps = procs * wclimit;
                const double* user = p.user_terms + 2 * detail::row_of(static_cast<std::size_t>(T::user(j)), p.users);
                double total = 0.0;
#if defined(__SSE2__)
                // The eight job subterms two at a time, in order: each lane w x cap(f), or +0.0
                // where w is 0 (a mask: w x cap(f) would be +-0.0 or NaN), then added one by one.
                const __m128d terms[4] = {
                    pair_term(lower_t, 0, static_cast<double>(T::nodes(j)), procs),
                    pair_term(lower_t, 1, static_cast<double>(T::mem_mb(j)), static_cast<double>(T::swap_mb(j))),
                    pair_term(lower_t, 2, static_cast<double>(T::disk_mb(j)), ps),
                    pair_term(lower_t, 3, pe, wclimit)};
                for (const __m128d t : terms) {
                    total = total + _mm_cvtsd_f64(t);
                    total = total + _mm_cvtsd_f64(_mm_unpackhi_pd(t, t));
                }
#else
                total = total + p.sub[0].term<lower>(static_cast<double>(T::nodes(j)));
                total = total + p.sub[1].term<lower>(procs);
                total = total + p.sub[2].term<lower>(static_cast<double>(T::mem_mb(j)));
                total = total + p.sub[3].term<lower>(static_cast<double>(T::swap_mb(j)));
                total = total + p.sub[4].term<lower>(static_cast<double>(T::disk_mb(j)));
                total = total + p.sub[5].term<lower>(ps);
                total = total + p.sub[6].term<lower>(pe);
                total = total + p.sub[7].term<lower>(wclimit);
#endif
                total = total + user[0];
                total = total + user[1];
                out[i] = p.limit.apply<lower>(total);
            };
            std::size_t i = 0;
#if defined(__SSE2__)
            if constexpr (has_mem_mb<J> && has_disk_mb<J> && has_swap_mb<J>)
                for (; i + 2 <= N; i += 2) two(lower_t, i);
#endif
            for (; i < N; ++i) one(i);
        });
    }
};

/// USAGE: CONSUMED, EXECUTIONTIME, REMAINING and PERCENT (the run priority of running jobs).
/// Its block hook is the call operator job by job; it lets `engine::batch` treat the term,
/// which is off in Maui's start priority, as a row of +0.0 rather than test it job by job.
struct usage_component : detail::usage_base {
    template <class J, std::size_t N>
        requires applies<J, context> && (N != std::dynamic_extent)
    constexpr void block(std::span<const J, N> jobs, const context& c, std::span<double, N> out) const noexcept {
        for (std::size_t i = 0; i < N; ++i) out[i] = (*this)(jobs[i], c);
    }
};

/// (`::mfprio::component` is the core template; `maui::component` names the seven of them.)
/// Maui's engine: seven component terms in Maui's order with runtime signed weights.
using maui_engine =
    engine<maui_result, term<serv_component, signed_weight>, term<targ_component, signed_weight>,
           term<cred_component, signed_weight>, term<attr_component, signed_weight>,
           term<fs_component, signed_weight>, term<res_component, signed_weight>,
           term<usage_component, signed_weight>>;

namespace detail {
template <class Component, std::size_t... I>
constexpr Component build_component(const weights& w, cap_style style, component c, std::index_sequence<I...>) {
    const std::size_t first = index(components[index(c)].first);
    Component out{};
    out.subterms = {typename std::tuple_element_t<I, decltype(Component{}.subterms)>{
        {}, signed_weight{w.sub_weight[first + I]}, cap{w.sub_cap[first + I], style}}...};
    out.limit = cap{w.component_cap[index(c)], style};
    return out;
}
template <class Component>
constexpr Component build_component(const weights& w, cap_style style, component c) {
    return build_component<Component>(w, style, c, std::make_index_sequence<Component::size>{});
}
template <class Component>
constexpr term<Component, signed_weight> build_term(const weights& w, cap_style style, component c,
                                                    std::int64_t weight) {
    return term<Component, signed_weight>{build_component<Component>(w, style, c), signed_weight{weight}};
}
} // namespace detail

/// Builds Maui's engine from weights and caps (maui.cfg) and the options' cap style, result
/// settings, USAGE rule and UPROC/UJOB rule.
[[nodiscard]] constexpr maui_engine make_maui_engine(const weights& configured, const options& opts = {}) {
    const cap_style s = opts.caps;
    weights w = configured;
    if (!opts.res_user_terms) { // Maui 3.3: UPROC and UJOB are never weighted (`options::res_user_terms`)
        w[subcomponent::uproc] = 0;
        w[subcomponent::ujob] = 0;
    }
    const std::int64_t usage_weight = opts.usage_in_start_priority ? w[component::usage] : 0;
    return maui_engine(maui_result::from(opts),
                       detail::build_term<serv_component>(w, s, component::serv, w[component::serv]),
                       detail::build_term<targ_component>(w, s, component::targ, w[component::targ]),
                       detail::build_term<cred_component>(w, s, component::cred, w[component::cred]),
                       detail::build_term<attr_component>(w, s, component::attr, w[component::attr]),
                       detail::build_term<fs_component>(w, s, component::fs, w[component::fs]),
                       detail::build_term<res_component>(w, s, component::res, w[component::res]),
                       detail::build_term<usage_component>(w, s, component::usage, usage_weight));
}

/// A running job's run priority, as Maui 3.3's `MJobGetRunPriority` computes it (for
/// preemption): with D the wallclock limit, W the seconds run and R the processors, all
/// integers, `consumed = R x W`, `remaining = R x (D - W)` and `percent = W x 100 /
/// max(1, D - W)` in integer division; then `USAGEWEIGHT x (CONSUMEDWEIGHT x consumed +
/// REMAININGWEIGHT x remaining + PERCENTWEIGHT x percent) + start priority +
/// PREEMPTPRIOMARGIN`. No caps, no EXECUTIONTIME (commented out in Maui 3.3). The integer
/// products wrap as Maui's `long` arithmetic does on x86-64. `start_priority` is the job's
/// start priority (Maui keeps the last one computed while the job was idle). 0 for a job
/// that is not running.
template <class J>
[[nodiscard]] double run_priority(const weights& w, const options& opts, const J& j, const context& c,
                                  std::int64_t start_priority) noexcept {
    using T = job_traits<J>;
    if (T::start_time(j) == 0) return 0.0;
    // Wrapping 64-bit arithmetic, as Maui's long on x86-64 (and no undefined overflow here).
    const auto mul = [](std::int64_t a, std::int64_t b) noexcept {
        return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
    };
    const auto add = [](std::int64_t a, std::int64_t b) noexcept {
        return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
    };
    const std::int64_t duration = static_cast<std::int64_t>(T::wclimit(j));
    const std::int64_t wall = run_seconds(j, c);
    const std::int64_t required = static_cast<std::int64_t>(T::procs(j));
    const std::int64_t left = add(duration, -wall);
    const std::int64_t consumed = mul(required, wall);
    const std::int64_t remaining = mul(required, left);
    const double percent = static_cast<double>(mul(wall, 100) / std::max<std::int64_t>(1, left));
    const std::int64_t integral =
        add(mul(w[subcomponent::consumed], consumed), mul(w[subcomponent::remaining], remaining));
    const double inner = static_cast<double>(integral) + static_cast<double>(w[subcomponent::percent]) * percent;
    double priority = static_cast<double>(w[component::usage]) * inner;
    priority += static_cast<double>(start_priority);
    priority += static_cast<double>(opts.preempt_prio_margin);
    return priority;
}

// ---------------------------------------------------------------- order

/// Maui's start order: priority, highest first. Maui sorts with an unstable qsort and no
/// tie-break; mfprio breaks ties by submission time, then job id, so that the order is
/// reproducible.
template <class J>
[[nodiscard]] std::vector<std::size_t> start_order(std::span<const J> jobs, std::span<const priority_value> prio) {
    std::vector<std::size_t> order(jobs.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        if (prio[a].value != prio[b].value) return prio[a].value > prio[b].value;
        const auto sa = job_traits<J>::submit_time(jobs[a]), sb = job_traits<J>::submit_time(jobs[b]);
        if (sa != sb) return sa < sb;
        return job_traits<J>::id(jobs[a]) < job_traits<J>::id(jobs[b]);
    });
    return order;
}

} // namespace mfprio::maui
