#pragma once
/// \file
/// Slurm's QOS factor (`PriorityWeightQOS`, QOS `Priority`, `NO_NORMAL_QOS`).

#include <string_view>

#include <mfprio/core/job.hpp>
#include <mfprio/slurm/context.hpp>

namespace mfprio::slurm {

/// The QOS Priority over the largest QOS Priority; the raw Priority under NO_NORMAL_QOS.
/// A QOS with priority 0 adds nothing.
struct qos_factor {
    static constexpr std::string_view name = "qos";
    bool normalize = true; ///< false = PriorityFlags NO_NORMAL_QOS

    /// The factor for QOS index `q` (multi-QOS jobs evaluate each QOS).
    [[nodiscard]] constexpr double for_qos(std::uint32_t q, const context& c) const noexcept {
        const qos_info* qos = c.qos_at(q);
        if (qos == nullptr || qos->priority == 0) return 0.0;
        return normalize ? qos->norm_priority : static_cast<double>(qos->priority);
    }

    template <class J>
        requires has_qos<J>
    [[nodiscard]] constexpr double operator()(const J& j, const context& c) const noexcept {
        return for_qos(static_cast<std::uint32_t>(job_traits<J>::qos(j)), c);
    }
};

} // namespace mfprio::slurm
