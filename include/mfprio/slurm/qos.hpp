#pragma once
/// \file
/// Slurm's QOS factor (`PriorityWeightQOS`, QOS `Priority`, `NO_NORMAL_QOS`).

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include <mfprio/core/job.hpp>
#include <mfprio/slurm/context.hpp>
#include <mfprio/slurm/lookup_table.hpp>

namespace mfprio::slurm {

/// The QOS Priority over the largest QOS Priority; the raw Priority under NO_NORMAL_QOS.
/// A QOS with priority 0 adds nothing.
struct qos_factor {
    static constexpr std::string_view name = "qos";
    bool normalize = true; ///< false = PriorityFlags NO_NORMAL_QOS

    /// The factor for QOS index `q` (multi-QOS jobs evaluate each QOS).
    [[nodiscard]] constexpr double for_qos(std::uint32_t q, const context& c) const noexcept {
        const qos_info* qos = c.qos_at(q);
        if (qos == nullptr) return 0.0;
        const double v = normalize ? qos->norm_priority : static_cast<double>(qos->priority);
        return qos->priority == 0 ? 0.0 : v;
    }

    template <class J>
        requires has_qos<J>
    [[nodiscard]] constexpr double operator()(const J& j, const context& c) const noexcept {
        return for_qos(static_cast<std::uint32_t>(job_traits<J>::qos(j)), c);
    }

    /// Most QOS `prepare` lays out.
    static constexpr std::size_t table_limit = lookup_table::limit;
    /// Every QOS's factor, laid out once per batch for `block`.
    using factor_table = lookup_table;

    [[nodiscard]] constexpr factor_table prepare(const context& c) const noexcept {
        return lookup_table::make(c.qos.size(), [&](std::uint32_t i) noexcept { return for_qos(i, c); });
    }

    /// The factor of each job of a block into `out`, exactly as the call operator: a lookup
    /// in the laid-out table.
    template <class J, std::size_t N>
        requires has_qos<J> && (N != std::dynamic_extent)
    constexpr void block(const factor_table& t, std::span<const J, N> jobs, const context& c,
                         std::span<double, N> out) const noexcept {
        if (!t.usable) {
            for (std::size_t i = 0; i < N; ++i) out[i] = (*this)(jobs[i], c);
            return;
        }
        for (std::size_t i = 0; i < N; ++i) {
            const auto q = static_cast<std::uint32_t>(job_traits<J>::qos(jobs[i]));
            out[i] = t.at(q);
        }
    }
};

} // namespace mfprio::slurm
