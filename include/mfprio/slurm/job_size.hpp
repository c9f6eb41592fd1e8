#pragma once
/// \file
/// Slurm's job size factor (`PriorityWeightJobSize`, `PriorityFavorSmall`,
/// `PriorityFlags=SMALL_RELATIVE_TO_TIME`).

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include <mfprio/core/job.hpp>
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
/// as in Slurm; `slurm_result` floors such a sum to 1 where Slurm's cast is undefined.
struct job_size_factor {
    static constexpr std::string_view name = "jobsize";
    bool favor_small = false;            ///< PriorityFavorSmall=YES
    bool small_relative_to_time = false; ///< PriorityFlags=SMALL_RELATIVE_TO_TIME

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
            js = nodes_total > n
                ? static_cast<double>(nodes_total - n) / static_cast<double>(nodes_total) : 0.0;
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
    /// b = c'/C, two divisions by loop-invariant totals that the compiler vectorizes (a alone
    /// for a job with no CPU count). SMALL_RELATIVE_TO_TIME: the call operator, job by job.
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
        double nodes[N];
        double cpus[N];
        std::uint64_t has_cpus[N];
        if (favor_small) {
            for (std::size_t i = 0; i < N; ++i) {
                const auto n = static_cast<std::uint32_t>(job_traits<J>::min_nodes(jobs[i]));
                const auto cp = static_cast<std::uint32_t>(job_traits<J>::cpus(jobs[i]));
                // N - n (0 when n >= N) and C - c in uint32 (wrapping, as Slurm).
                nodes[i] = static_cast<double>(nodes_total > n ? nodes_total - n : 0u);
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
};

} // namespace mfprio::slurm
