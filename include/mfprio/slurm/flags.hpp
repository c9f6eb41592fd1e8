#pragma once
/// \file
/// Slurm's PriorityFlags bits (slurm.h values), as read from `PriorityFlags=` in slurm.conf.

#include <cstdint>

namespace mfprio::slurm {

/// One bit per PriorityFlags keyword; the bit numbers are Slurm's own.
enum class priority_flag : std::uint32_t {
    accrue_always = 1u << 0,          ///< ACCRUE_ALWAYS
    max_tres = 1u << 1,               ///< MAX_TRES
    small_relative_to_time = 1u << 2, ///< SMALL_RELATIVE_TO_TIME
    depth_oblivious = 1u << 3,        ///< DEPTH_OBLIVIOUS (clears FAIR_TREE)
    calculate_running = 1u << 4,      ///< CALCULATE_RUNNING
    fair_tree = 1u << 5,              ///< FAIR_TREE (default on; cleared by NO_FAIR_TREE)
    incr_only = 1u << 6,              ///< INCR_ONLY
    no_normal_assoc = 1u << 7,        ///< NO_NORMAL_ASSOC
    no_normal_part = 1u << 8,         ///< NO_NORMAL_PART
    no_normal_qos = 1u << 9,          ///< NO_NORMAL_QOS
    no_normal_tres = 1u << 10,        ///< NO_NORMAL_TRES
    max_tres_gres = 1u << 11,         ///< MAX_TRES_GRES (Slurm 25.05+)
};

/// A set of PriorityFlags. Default-constructed it holds Slurm's default: FAIR_TREE only.
struct priority_flags {
    std::uint32_t bits = static_cast<std::uint32_t>(priority_flag::fair_tree);

    [[nodiscard]] constexpr bool has(priority_flag f) const noexcept {
        return (bits & static_cast<std::uint32_t>(f)) != 0;
    }
    constexpr priority_flags& set(priority_flag f, bool on = true) noexcept {
        if (on) bits |= static_cast<std::uint32_t>(f);
        else bits &= ~static_cast<std::uint32_t>(f);
        return *this;
    }
    /// No flags at all (not even FAIR_TREE).
    [[nodiscard]] static constexpr priority_flags none() noexcept { return priority_flags{0}; }
    friend constexpr bool operator==(priority_flags, priority_flags) = default;
};

} // namespace mfprio::slurm
