#pragma once
/// \file
/// Maui's seven components with their block hooks: the batch path of `maui_engine`. Each
/// hook lays out per batch what depends on the configuration alone (weights by QOS,
/// credential terms, user terms), then gives every job of a block the value of the
/// component's call operator, bit for bit (`maui/sums.hpp`), two jobs at a time where the
/// arithmetic is per job (a last odd job in both lanes of the pair).

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <span>
#include <type_traits>

#include <mfprio/core/job.hpp>
#include <mfprio/core/simd.hpp>
#include <mfprio/maui/context.hpp>
#include <mfprio/maui/factors.hpp>
#include <mfprio/maui/model.hpp>
#include <mfprio/maui/sums.hpp>

namespace mfprio::maui {

/// SERV: QUEUETIME, XFACTOR, SPVIOLATION and BYPASS. Its block hook reads each QOS's
/// QUEUETIME and XFACTOR weights (QTWEIGHT and XFWEIGHT added) and XFMINWCLIMIT from a table
/// laid out once per batch (a row for jobs without a QOS: no branch on it), and takes the
/// jobs two at a time, one in each lane.
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
        double spviolation[2] = {0.0, 0.0}; ///< SPVIOLATION's term for 0 and 1
        std::size_t count = 0;              ///< QOS rows, less the "none" row
        const qos_row* rows = nullptr;      ///< by QOS; nullptr when the allocation failed
        std::unique_ptr<qos_row[]> storage;
    };

    [[nodiscard]] prepared prepare(const context& c) const noexcept {
        prepared p;
        p.sub = detail::prepare_subterms<detail::serv_base>(*this);
        p.limit = detail::cap_bounds::of(limit);
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
        using simd::f64x2;
        const bool whole = c.opts.queuetime == queuetime_unit::whole_minutes;
        const bool doc = c.opts.xfactor == xfactor_form::doc;
        constexpr auto cap = &detail::cap_bounds::apply;
        const f64x2 zero;
        const f64x2 hi_qt = f64x2::all(p.sub[0].bounds.hi), lo_qt = f64x2::all(p.sub[0].bounds.lo);
        const f64x2 hi_xf = f64x2::all(p.sub[1].bounds.hi), lo_xf = f64x2::all(p.sub[1].bounds.lo);
        const f64x2 hi_by = f64x2::all(p.sub[3].bounds.hi), lo_by = f64x2::all(p.sub[3].bounds.lo);
        const f64x2 w_by = f64x2::all(p.sub[3].w), on_by = w_by != zero;
        const f64x2 limit_hi = f64x2::all(p.limit.hi), limit_lo = f64x2::all(p.limit.lo);
        const f64x2 sixty = f64x2::all(60.0);
        // Jobs a and b in lanes 0 and 1, each lane the call operator's arithmetic in its
        // order: w x cap(f), or +0.0 where w is 0, by masks (as C++ selects they were
        // compiled to branches on the QOS, as good as random job by job), added from 0.0.
        const auto two = [&](const J& a, const J& b) noexcept {
            const qos_row& qa = p.rows[detail::row_of(cred_index<cred_kind::qos>(a), p.count)];
            const qos_row& qb = p.rows[detail::row_of(cred_index<cred_kind::qos>(b), p.count)];
            const std::int64_t sa = effective_queue_duration(a, c), sb = effective_queue_duration(b, c);
            const f64x2 queued = f64x2::of(static_cast<double>(sa), static_cast<double>(sb));
            const f64x2 minutes =
                whole ? f64x2::of(static_cast<double>(sa / 60), static_cast<double>(sb / 60)) : queued / sixty;
            const f64x2 wclimit = f64x2::of(static_cast<double>(T::wclimit(a)), static_cast<double>(T::wclimit(b)));
            const f64x2 xf = detail::xfactor_lanes(queued, wclimit, f64x2::of(qa.xf_floor, qb.xf_floor), doc);
            const f64x2 w_qt = f64x2::of(qa.w[0], qb.w[0]), w_xf = f64x2::of(qa.w[1], qb.w[1]);
            f64x2 total = zero + simd::keep(w_qt != zero, w_qt * cap(minutes, hi_qt, lo_qt));
            total = total + simd::keep(w_xf != zero, w_xf * cap(xf, hi_xf, lo_xf));
            total = total + f64x2::of(p.spviolation[T::spviolation(a) ? 1 : 0], p.spviolation[T::spviolation(b) ? 1 : 0]);
            const f64x2 bypass = f64x2::of(static_cast<double>(T::bypass(a)), static_cast<double>(T::bypass(b)));
            total = total + simd::keep(on_by, w_by * cap(bypass, hi_by, lo_by));
            return cap(total, limit_hi, limit_lo);
        };
        std::size_t i = 0;
        for (; i + 2 <= N; i += 2) two(jobs[i], jobs[i + 1]).store(out.data() + i);
        if (i < N) out[i] = two(jobs[i], jobs[i]).lane0();
    }
};

/// TARG: TARGETQUEUETIME and TARGETXFACTOR. Its block hook reads each QOS's targets from a
/// table laid out once per batch (a row for jobs without a QOS: no branch on it), takes the
/// jobs two at a time (one in each lane), and leaves the powers to the few jobs that
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
            // One slot more than jobs: a last odd job is computed in both lanes of a pair.
            double qt_term[batch + 1];
            double d[batch + 1];
            double xf_f[batch + 1];
            std::uint64_t qt_power = 0; // bit i: job first + i's TARGETQUEUETIME needs its power
            std::uint64_t xf_power = 0; // bit i: job first + i's TARGETXFACTOR needs its power
            // Two jobs at a time, job i in lane 0 and job i + 1 in lane 1 (a last odd job in
            // both). TARGETQUEUETIME: Moab's 1000^min(1, queued / QTTARGET) is 1000^1 for a
            // queue time at or past the target (the quotient is then at least 1); Maui 3.3's
            // max(0.0001, QTTARGET - EffQTime)^-2 is the ceiling unless QTTARGET - EffQTime
            // exceeds 0.0001. TARGETXFACTOR: max(0.0001, XFTARGET - XFACTOR)^-2 is the ceiling
            // unless the difference exceeds 0.0001. The tests as masks: as C++ comparisons they
            // were compiled to branches, which went one way or the other at random, job by job.
            using simd::f64x2;
            const f64x2 zero, tiny = f64x2::all(0.0001), ceiling = f64x2::all(p.ceiling);
            for (std::size_t i = 0; i < m; i += 2) {
                const J& a = jobs[first + i];
                const J& b = jobs[first + (i + 1 < m ? i + 1 : i)];
                const qos_row& qa = p.rows[detail::row_of(cred_index<cred_kind::qos>(a), p.count)];
                const qos_row& qb = p.rows[detail::row_of(cred_index<cred_kind::qos>(b), p.count)];
                const std::int64_t start_a = effective_queue_start(a, c), start_b = effective_queue_start(b, c);
                const f64x2 queued = f64x2::of(static_cast<double>(std::max<std::int64_t>(0, c.now - start_a)),
                                               static_cast<double>(std::max<std::int64_t>(0, c.now - start_b)));
                const f64x2 wclimit = f64x2::of(static_cast<double>(T::wclimit(a)), static_cast<double>(T::wclimit(b)));
                const f64x2 qt = f64x2::of(qa.qt_target, qb.qt_target);
                const f64x2 xf_target = f64x2::of(qa.xf_target, qb.xf_target);
                f64x2::of(qa.qt_base, qb.qt_base).store(qt_term + i);
                const f64x2 xf = detail::xfactor_lanes(queued, wclimit, f64x2::of(qa.xf_floor, qb.xf_floor), doc);
                const f64x2 x = xf_target - xf;
                max(x, tiny).store(d + i); // std::max(0.0001, x): x > 0.0001 ? x : 0.0001
                const f64x2 has_xf = xf_target > zero;
                simd::keep(has_xf, ceiling).store(xf_f + i); // else +0.0
                const f64x2 start = f64x2::of(static_cast<double>(start_a), static_cast<double>(start_b));
                const f64x2 qt_pow = maui33 ? qt - start > tiny : not_ge(queued, qt);
                const int lanes = i + 1 < m ? 3 : 1;
                qt_power |= static_cast<std::uint64_t>(bits((qt > zero) & qt_pow) & lanes) << i;
                xf_power |= static_cast<std::uint64_t>(bits(has_xf & (x > tiny)) & lanes) << i;
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
            // Each job's total, two at a time (the odd job's slot past the last is set above).
            const f64x2 w_xf = f64x2::all(p.sub[1].w), hi_xf = f64x2::all(p.sub[1].bounds.hi);
            const f64x2 lo_xf = f64x2::all(p.sub[1].bounds.lo);
            const f64x2 hi = f64x2::all(p.limit.hi), lo = f64x2::all(p.limit.lo);
            for (std::size_t k = 0; k < m; k += 2) {
                f64x2 total;
                if (qt_on) total = total + f64x2::load(qt_term + k);
                if (xf_on) total = total + w_xf * detail::cap_bounds::apply(f64x2::load(xf_f + k), hi_xf, lo_xf); // w_xf != 0
                total = detail::cap_bounds::apply(total, hi, lo);
                if (k + 1 < m) total.store(out.data() + first + k);
                else out[first + k] = total.lane0();
            }
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
        detail::prepared_doubles storage;
    };

    [[nodiscard]] prepared prepare(const context& c) const noexcept {
        prepared p;
        const auto sub = detail::prepare_subterms<detail::cred_base>(*this);
        p.limit = detail::cap_bounds::of(limit);
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
            out[i] = p.limit(total);
        }
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
        for (std::size_t i = 0; i < N; ++i) {
            const J& j = jobs[i];
            double total = 0.0;
            total = total + at(j, std::integral_constant<kind, kind::user>{});
            total = total + at(j, std::integral_constant<kind, kind::group>{});
            total = total + at(j, std::integral_constant<kind, kind::account>{});
            total = total + at(j, std::integral_constant<kind, kind::qos>{});
            total = total + at(j, std::integral_constant<kind, kind::job_class>{});
            out[i] = p.limit(total);
        }
    }
};

/// RES: NODE, PROC, MEM, SWAP, DISK, PS, PE, WALLTIME, UPROC and UJOB (the last two weighted
/// only with `options::res_user_terms`: `make_maui_engine` zeroes their weights otherwise).
/// Its block hook tabulates each user's UPROC and UJOB terms once per batch, computes the
/// processor equivalents without a branch on the job's requests (a job with a requirement
/// list gets its PE over the list), and takes the jobs two at a time, one in each lane.
struct res_component : detail::res_base {
    struct prepared {
        std::array<detail::prepared_subterm, size> sub{};
        detail::cap_bounds limit{};
        std::size_t users = 0;        ///< rows of `user_terms`, less the "none" row
        const double* user_terms = nullptr; ///< by user: UPROC's term, UJOB's term
        detail::prepared_doubles storage;
    };

    [[nodiscard]] prepared prepare(const context& c) const noexcept {
        prepared p;
        p.sub = detail::prepare_subterms<detail::res_base>(*this);
        p.limit = detail::cap_bounds::of(limit);
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
        using simd::f64x2;
        const resources& r = c.cluster;
        const bool pe_on = r.procs > 0;
        const bool has_mem = r.mem > 0, has_disk = r.disk > 0, has_swap = r.swap > 0;
        const f64x2 zero;
        const f64x2 total_p = f64x2::all(r.procs), total_m = f64x2::all(r.mem);
        const f64x2 total_d = f64x2::all(r.disk), total_s = f64x2::all(r.swap);
        const f64x2 on_m = f64x2::mask(has_mem, has_mem), on_d = f64x2::mask(has_disk, has_disk);
        const f64x2 on_s = f64x2::mask(has_swap, has_swap), on_pe = f64x2::mask(pe_on, pe_on);
        // Subterm k's bounds, weight and mask (all ones where the weight is not 0).
        struct lane_subterm {
            f64x2 hi, lo, w, on;
        };
        lane_subterm sub[8];
        for (std::size_t k = 0; k < 8; ++k) {
            const detail::prepared_subterm& t = p.sub[k];
            sub[k] = {f64x2::all(t.bounds.hi), f64x2::all(t.bounds.lo), f64x2::all(t.w), f64x2::mask(t.w != 0, t.w != 0)};
        }
        const f64x2 limit_hi = f64x2::all(p.limit.hi), limit_lo = f64x2::all(p.limit.lo);
        // Jobs a and b in lanes 0 and 1, each lane the call operator's arithmetic in its
        // order: the processor equivalents, then the ten subterms added from 0.0 one after
        // the other, then the cap.
        const auto two = [&](const J& a, const J& b) noexcept {
            const auto both = [&](auto field) noexcept {
                return f64x2::of(static_cast<double>(field(a)), static_cast<double>(field(b)));
            };
            const f64x2 procs = both([](const J& j) noexcept { return T::procs(j); });
            const f64x2 wclimit = both([](const J& j) noexcept { return T::wclimit(j); });
            const f64x2 mem = both([](const J& j) noexcept { return T::mem_mb(j); });
            const f64x2 swap = both([](const J& j) noexcept { return T::swap_mb(j); });
            const f64x2 disk = both([](const J& j) noexcept { return T::disk_mb(j); });
            const f64x2 nodes = both([](const J& j) noexcept { return T::nodes(j); });
            // processor_equivalents: each request considered only where it is > 0 and the
            // cluster has the resource; max(share, q), which is share < q ? q : share (NaN:
            // share), is q > share ? q : share. As masks: as C++ selects, gcc branched on
            // the request job by job (either way at random) to skip its division.
            const auto consider = [&](f64x2 share, f64x2 requested, f64x2 total, f64x2 has) noexcept {
                const f64x2 q = requested / total;
                return simd::select((requested > zero) & has & (q > share), q, share);
            };
            f64x2 share = procs / total_p;
            share = consider(share, mem, total_m, on_m);
            share = consider(share, disk, total_d, on_d);
            share = consider(share, swap, total_s, on_s);
            f64x2 pe = simd::keep(on_pe, total_p * share);
            if constexpr (has_req<J>) {
                // Jobs with a requirement list: their PE over the list (`processor_equivalents`).
                const bool list_a = has_requirement_list(a, c), list_b = has_requirement_list(b, c);
                if (list_a || list_b)
                    pe = f64x2::of(list_a ? processor_equivalents(a, c) : pe.lane0(),
                                   list_b ? processor_equivalents(b, c) : pe.lane1());
            }
            f64x2 total = zero;
            const auto add = [&](std::size_t k, f64x2 f) noexcept {
                total = total + simd::keep(sub[k].on, sub[k].w * detail::cap_bounds::apply(f, sub[k].hi, sub[k].lo));
            };
            add(0, nodes);
            add(1, procs);
            add(2, mem);
            add(3, swap);
            add(4, disk);
            add(5, procs * wclimit);
            add(6, pe);
            add(7, wclimit);
            const double* ua = p.user_terms + 2 * detail::row_of(static_cast<std::size_t>(T::user(a)), p.users);
            const double* ub = p.user_terms + 2 * detail::row_of(static_cast<std::size_t>(T::user(b)), p.users);
            total = total + f64x2::of(ua[0], ub[0]);
            total = total + f64x2::of(ua[1], ub[1]);
            return detail::cap_bounds::apply(total, limit_hi, limit_lo);
        };
        std::size_t i = 0;
        for (; i + 2 <= N; i += 2) two(jobs[i], jobs[i + 1]).store(out.data() + i);
        if (i < N) out[i] = two(jobs[i], jobs[i]).lane0();
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

} // namespace mfprio::maui
