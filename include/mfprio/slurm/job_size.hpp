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
#include <mfprio/core/simd.hpp>
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
    /// b = c'/C, two divisions by loop-invariant totals, two jobs at a time (a alone for a job
    /// with no CPU count; (a + b) x 0.5 is (a + b) / 2 exactly; min(1, js) is `js > 1 ? 1 :
    /// js`). SMALL_RELATIVE_TO_TIME: the call operator, job by job.
    template <class J, std::size_t N>
        requires has_min_nodes<J> && has_cpus<J> && has_time_limit<J> && has_partition<J> && (N != std::dynamic_extent)
    constexpr void block(std::span<const J, N> jobs, const context& c, std::span<double, N> out) const noexcept {
        const std::uint32_t nodes_total = c.node_count;
        const std::uint32_t cpus_total = c.cluster_cpus;
        if (small_relative_to_time || nodes_total == 0 || cpus_total == 0) {
            for (std::size_t i = 0; i < N; ++i) out[i] = (*this)(jobs[i], c);
            return;
        }
        if (!std::is_constant_evaluated() && N % 2 == 0) {
            block_pairs(jobs, nodes_total, cpus_total, out);
            return;
        }
        const double dn = static_cast<double>(nodes_total);
        const double dc = static_cast<double>(cpus_total);
        for (std::size_t i = 0; i < N; ++i) {
            const counts x = counts_of(jobs[i], nodes_total, cpus_total);
            const double a = static_cast<double>(x.nodes) / dn;
            const double both = (a + static_cast<double>(x.cpus) / dc) / 2;
            const double js = x.has_cpus ? both : a;
            out[i] = js > 1.0 ? 1.0 : js; // never below 0 (nor NaN) in these two modes
        }
    }

private:
    /// The integer work of a job for `block`: n' and c' (favouring small jobs N - n, 0 when
    /// n >= N unless nodes_wrap, and C - c in uint32, wrapping as Slurm does), and whether it
    /// has a CPU count.
    struct counts {
        std::uint32_t nodes, cpus;
        bool has_cpus;
    };
    template <class J>
    [[nodiscard]] constexpr counts counts_of(const J& j, std::uint32_t nodes_total, std::uint32_t cpus_total) const noexcept {
        const auto n = static_cast<std::uint32_t>(job_traits<J>::min_nodes(j));
        const auto cp = static_cast<std::uint32_t>(job_traits<J>::cpus(j));
        const std::uint32_t small_nodes = (nodes_wrap || nodes_total > n) ? nodes_total - n : 0u;
        return {.nodes = favor_small ? small_nodes : n, .cpus = favor_small ? cpus_total - cp : cp, .has_cpus = cp != 0};
    }

    /// `block` two jobs at a time.
    template <class J, std::size_t N>
    void block_pairs(std::span<const J, N> jobs, std::uint32_t nodes_total, std::uint32_t cpus_total,
                     std::span<double, N> out) const noexcept {
        using simd::f64x2;
        const f64x2 vn = f64x2::all(static_cast<double>(nodes_total)), vc = f64x2::all(static_cast<double>(cpus_total));
        const f64x2 half = f64x2::all(0.5), one = f64x2::all(1.0);
        const f64x2 zero;
        for (std::size_t i = 0; i < N; i += 2) {
            const auto n0 = static_cast<std::uint32_t>(job_traits<J>::min_nodes(jobs[i]));
            const auto n1 = static_cast<std::uint32_t>(job_traits<J>::min_nodes(jobs[i + 1]));
            const auto c0 = static_cast<std::uint32_t>(job_traits<J>::cpus(jobs[i]));
            const auto c1 = static_cast<std::uint32_t>(job_traits<J>::cpus(jobs[i + 1]));
            f64x2 nodes, cpus;
            if (favor_small) { // as `counts_of`
                nodes = f64x2::of_u32((nodes_wrap || nodes_total > n0) ? nodes_total - n0 : 0u,
                                      (nodes_wrap || nodes_total > n1) ? nodes_total - n1 : 0u);
                cpus = f64x2::of_u32(cpus_total - c0, cpus_total - c1);
            } else {
                nodes = f64x2::of_u32(n0, n1);
                cpus = f64x2::of_u32(c0, c1);
            }
            const f64x2 a = nodes / vn;
            const f64x2 both = (a + cpus / vc) * half;
            // Favouring large jobs the CPU counts are in `cpus` already: c != 0 is c' != 0.
            const f64x2 has_cpus = favor_small ? f64x2::mask(c0 != 0, c1 != 0) : cpus != zero;
            min(one, simd::select(has_cpus, both, a)).store(out.data() + i);
        }
    }
};

} // namespace mfprio::slurm
