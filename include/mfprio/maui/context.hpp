#pragma once
/// \file
/// The evaluation context of Maui's factors: the time of the pass, the options, the
/// credential tables with their DEFAULT entries, the cluster's resources and each user's
/// active processors and jobs. A set of views over tables the caller owns, immutable during
/// a pass.

#include <array>
#include <cstdint>
#include <span>

#include <mfprio/maui/model.hpp>

namespace mfprio::maui {

/// What Maui's factors need beyond the job.
struct context {
    std::int64_t now = 0;  ///< the scheduler's time, epoch seconds
    options opts{};        ///< formulas, caps, accrual, limits
    /// Credential tables by kind (`cred_kind` order); a job's credential index points here.
    std::array<std::span<const credential>, cred_kind_count> creds{};
    /// The DEFAULT credential of each kind (`USERCFG[DEFAULT]` ...): its priority and
    /// fair-share target apply where a credential's own are not set.
    std::array<credential, cred_kind_count> defaults{};
    /// True when the FS component is computed: FSPOLICY is not NONE and the total delivered
    /// usage is positive (Maui computes nothing otherwise).
    bool fs_active = false;
    resources cluster{};   ///< configured resources (PE, RES)
    std::span<const std::uint32_t> user_active_procs{}; ///< by user credential: processors of running jobs (UPROC)
    std::span<const std::uint32_t> user_active_jobs{};  ///< by user credential: running jobs (UJOB)
    std::span<const requirement> requirements{};        ///< requirement lists of jobs with several (`job::req`)

    /// The credential `i` of kind `k`, or nullptr when `i` is `no_cred` or past the table.
    [[nodiscard]] constexpr const credential* find(cred_kind k, std::uint32_t i) const noexcept {
        const auto& table = creds[index(k)];
        return i < table.size() ? &table[i] : nullptr;
    }
    /// The DEFAULT credential of kind `k`.
    [[nodiscard]] constexpr const credential& default_of(cred_kind k) const noexcept { return defaults[index(k)]; }
};

} // namespace mfprio::maui
