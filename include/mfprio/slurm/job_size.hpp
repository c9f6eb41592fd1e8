#pragma once
/// \file
/// Slurm's job size factor (`PriorityWeightJobSize`, `PriorityFavorSmall`,
/// `PriorityFlags=SMALL_RELATIVE_TO_TIME`).

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>

#include <mfprio/core/job.hpp>
#include <mfprio/core/sse2.hpp>
#include <mfprio/slurm/context.hpp>

namespace mfprio::slurm {

/// Nodes and CPUs against the cluster's totals (system-wide, not per partition). With N
/// nodes, C CPUs, n = min_nodes and c = the job's CPU count:
/// - favour large (default): (n/N + c/C) / 2, or n/N when c is 0;
/// - PriorityFavorSmall: ((N-n)/N + (C-c)/C) / 2 where N-n is 0 when n >= N, and C-c is
///   computed in uint32 as Slurm does: it wraps when c > C and the clamp then gives 1;
/// - SMALL_RELATIVE_TO_TIME: max(n*C/N, c) / T / C, T the job's time limit in minutes, else
///   its partition's MaxTime, else 1 (1 minus that when favouring small).
/// Clamped to [0, 1]. 0 when the cluster has no nodes or no CPUs. All arithmetic is in
/// double, as in Slurm's `set_priority_factors` (n*C/N is not an integer division). A job
/// with no nodes, no CPUs and a time limit of 0 gives 0/0 = NaN under SMALL_RELATIVE_TO_TIME,
/// as in Slurm; `slurm_result` then clamps the sum to 2^32-1, as Slurm compiled for x86-64 does.
struct job_size_factor {
    static constexpr std::string_view name = "jobsize";
    bool favor_small = false;            ///< PriorityFavorSmall=YES
    bool small_relative_to_time = false; ///< PriorityFlags=SMALL_RELATIVE_TO_TIME
    /// Slurm before 23.02 favouring small jobs: N - n in uint32 arithmetic with no N > n
    /// test, so a job asking for more nodes than the cluster has gets a huge node term
    /// (clamped to 1 in the end); 23.02 and later give that term 0.
    bool nodes_wrap = false;

    template <class J>
        requires has_min_nodes<J> && has_cpus<J> && has_time_limit<J> && has_partition<J>
    [[nodiscard]] constexpr double operator()(const J& j, const context& c) const noexcept {
        const std::uint32_t nodes_total = c.node_count;
        const std::uint32_t cpus_total = c.cluster_cpus;
        if (nodes_total == 0 || cpus_total == 0) return 0.0;
        const auto n = static_cast<std::uint32_t>(job_traits<J>::min_nodes(j));
        const auto cpus = static_cast<std::uint32_t>(job_traits<J>::cpus(j));
        double js = 0.0;
        if (small_relative_to_time) {
            js = static_cast<double>(n) * static_cast<double>(cpus_total) / static_cast<double>(nodes_total);
            if (static_cast<double>(cpus) > js) js = static_cast<double>(cpus);
            std::uint32_t limit = 1;
            const auto tl = static_cast<std::uint32_t>(job_traits<J>::time_limit(j));
            if (tl != no_val32) limit = tl;
            else if (const auto* p = c.partition(static_cast<std::uint32_t>(job_traits<J>::partition(j))))
                limit = p->max_time;
            js /= static_cast<double>(limit); // a limit of 0 divides by zero: inf, clamped below
            js /= static_cast<double>(cpus_total);
            if (favor_small) js = 1.0 - js;
        } else if (favor_small) {
            js = (nodes_wrap || nodes_total > n)
                ? static_cast<double>(static_cast<std::uint32_t>(nodes_total - n)) / static_cast<double>(nodes_total) : 0.0;
            if (cpus != 0) {
                js += static_cast<double>(static_cast<std::uint32_t>(cpus_total - cpus)) // wraps, as Slurm
                      / static_cast<double>(cpus_total);
                js /= 2;
            }
        } else {
            js = static_cast<double>(n) / static_cast<double>(nodes_total);
            if (cpus != 0) {
                js += static_cast<double>(cpus) / static_cast<double>(cpus_total);
                js /= 2;
            }
        }
        if (js < 0.0) return 0.0;
        if (js > 1.0) return 1.0;
        return js;
    }

    /// The factor of each job of a block into `out`, exactly as the call operator. Favouring
    /// large or small jobs: the integer work job by job, then (a + b) / 2 with a = n'/N and
    /// b = c'/C, two divisions by loop-invariant totals, two jobs at a time (SSE2, or the
    /// compiler's vectorization of the scalar path elsewhere; a alone for a job with no CPU
    /// count). SMALL_RELATIVE_TO_TIME: the call operator, job by job.
    template <class J, std::size_t N>
        requires has_min_nodes<J> && has_cpus<J> && has_time_limit<J> && has_partition<J> && (N != std::dynamic_extent)
    constexpr void block(std::span<const J, N> jobs, const context& c, std::span<double, N> out) const noexcept {
        const std::uint32_t nodes_total = c.node_count;
        const std::uint32_t cpus_total = c.cluster_cpus;
        if (small_relative_to_time || nodes_total == 0 || cpus_total == 0) {
            for (std::size_t i = 0; i < N; ++i) out[i] = (*this)(jobs[i], c);
            return;
        }
        const double dn = static_cast<double>(nodes_total);
        const double dc = static_cast<double>(cpus_total);
#if defined(__SSE2__)
        if constexpr (N % 2 == 0) {
            if (!std::is_constant_evaluated()) {
                block_pairs(jobs, nodes_total, cpus_total, out);
                return;
            }
        }
#endif
        double nodes[N];
        double cpus[N];
        std::uint64_t has_cpus[N];
        if (favor_small) {
            for (std::size_t i = 0; i < N; ++i) {
                const auto n = static_cast<std::uint32_t>(job_traits<J>::min_nodes(jobs[i]));
                const auto cp = static_cast<std::uint32_t>(job_traits<J>::cpus(jobs[i]));
                // N - n (0 when n >= N, unless nodes_wrap) and C - c in uint32 (wrapping, as Slurm).
                nodes[i] = static_cast<double>((nodes_wrap || nodes_total > n) ? nodes_total - n : 0u);
                cpus[i] = static_cast<double>(static_cast<std::uint32_t>(cpus_total - cp));
                has_cpus[i] = detail::mask_if(cp != 0);
            }
        } else {
            for (std::size_t i = 0; i < N; ++i) {
                const auto n = static_cast<std::uint32_t>(job_traits<J>::min_nodes(jobs[i]));
                const auto cp = static_cast<std::uint32_t>(job_traits<J>::cpus(jobs[i]));
                nodes[i] = static_cast<double>(n);
                cpus[i] = static_cast<double>(cp);
                has_cpus[i] = detail::mask_if(cp != 0);
            }
        }
        for (std::size_t i = 0; i < N; ++i) {
            const double a = nodes[i] / dn;
            const double b = cpus[i] / dc;
            const double both = (a + b) / 2;
            const double js = detail::choose(has_cpus[i], both, a);
            out[i] = js > 1.0 ? 1.0 : js; // never below 0 (nor NaN) in these two modes
        }
    }

private:
#if defined(__SSE2__)
    /// `block` favouring large or small jobs, two jobs at a time with SSE2: the same integer
    /// work and the same operations per lane ((a + b) / 2 as a multiplication by 0.5, which
    /// gives the same value; a alone for a job without a CPU count; min(1, js), which is
    /// `js > 1 ? 1 : js`), so the scalar path's values bit for bit.
    template <class J, std::size_t N>
    void block_pairs(std::span<const J, N> jobs, std::uint32_t nodes_total, std::uint32_t cpus_total,
                     std::span<double, N> out) const noexcept {
        const __m128d dn = _mm_set1_pd(static_cast<double>(nodes_total));
        const __m128d dc = _mm_set1_pd(static_cast<double>(cpus_total));
        const __m128d half = _mm_set1_pd(0.5);
        const __m128d one = _mm_set1_pd(1.0);
        for (std::size_t i = 0; i < N; i += 2) {
            const auto n0 = static_cast<std::uint32_t>(job_traits<J>::min_nodes(jobs[i]));
            const auto n1 = static_cast<std::uint32_t>(job_traits<J>::min_nodes(jobs[i + 1]));
            const auto c0 = static_cast<std::uint32_t>(job_traits<J>::cpus(jobs[i]));
            const auto c1 = static_cast<std::uint32_t>(job_traits<J>::cpus(jobs[i + 1]));
            __m128d nodes;
            __m128d cpus;
            if (favor_small) {
                // N - n (0 when n >= N, unless nodes_wrap) and C - c in uint32 (wrapping, as Slurm).
                nodes = mfprio::detail::u32_pair_to_double((nodes_wrap || nodes_total > n0) ? nodes_total - n0 : 0u,
                                                           (nodes_wrap || nodes_total > n1) ? nodes_total - n1 : 0u);
                cpus = mfprio::detail::u32_pair_to_double(cpus_total - c0, cpus_total - c1);
            } else {
                nodes = mfprio::detail::u32_pair_to_double(n0, n1);
                cpus = mfprio::detail::u32_pair_to_double(c0, c1);
            }
            const __m128d a = _mm_div_pd(nodes, dn);
            const __m128d both = _mm_mul_pd(_mm_add_pd(a, _mm_div_pd(cpus, dc)), half);
            // Favouring large jobs the CPU counts are in `cpus` already: c != 0 is c' != 0.
            const __m128d has_cpus = favor_small ? mfprio::detail::mask_pair(c0 != 0, c1 != 0)
                                                 : _mm_cmpneq_pd(cpus, _mm_setzero_pd());
            const __m128d js = _mm_or_pd(_mm_and_pd(has_cpus, both), _mm_andnot_pd(has_cpus, a));
            _mm_storeu_pd(out.data() + i, _mm_min_pd(one, js));
        }
    }
#endif
};

} // namespace mfprio::slurm
