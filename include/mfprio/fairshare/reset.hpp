#pragma once
/// \file
/// `PriorityUsageResetPeriod`: when Slurm clears all accumulated usage (reference §2.4;
/// Slurm's `_next_reset` and the reset switch of the decay loop).
///
/// The next reset instant is computed from the last reset in LOCAL time (the process's TZ,
/// via localtime_r/mktime with tm_isdst = -1), with the clock set to 00:00:00:
/// - DAILY: that midnight + 86400 s, then + 86400 s while (t + 86400) < now (catch-up).
///   The step is a fixed 86400 s, so across a DST change the reset lands at 23:00 or
///   01:00 local, as in Slurm.
/// - WEEKLY: that midnight + (7 - weekday) * 86400 s (next Sunday 00:00; a Sunday goes to
///   the following Sunday), then + 604800 s while (t + 604800) < now.
/// - MONTHLY: the 1st of the next month, 00:00. QUARTERLY: the 1st of April, July,
///   October or January (next year), whichever comes first after the last reset's month.
///   YEARLY: January 1st of the next year. These three have no catch-up: a schedule that
///   fell behind resets at every pass until it is back in the future, as Slurm does.
/// - NOW: reset at the first pass (after start or reconfiguration), then behave as NONE.
/// A pass resets when now >= next; then last = next and the next one is recomputed.
/// Slurm reads the clock inside `_next_reset` for the catch-up; here `now` is a parameter.

#include <cstdint>
#include <ctime>

#include <time.h> // localtime_r (POSIX)

namespace mfprio::fairshare {

/// PriorityUsageResetPeriod.
enum class reset_period : std::uint8_t { none, now, daily, weekly, monthly, quarterly, yearly };

namespace detail {
inline constexpr std::int64_t secs_per_day = 24 * 60 * 60;
inline constexpr std::int64_t secs_per_week = 7 * secs_per_day;

[[nodiscard]] inline bool local_tm(std::int64_t t, std::tm& out) noexcept {
    const std::time_t tt = static_cast<std::time_t>(t);
#if defined(_WIN32)
    return localtime_s(&out, &tt) == 0;
#else
    return localtime_r(&tt, &out) != nullptr;
#endif
}

[[nodiscard]] inline std::int64_t local_mktime(std::tm& tm) noexcept {
    tm.tm_isdst = -1; // let the time zone decide, as slurm_mktime does
    return static_cast<std::int64_t>(std::mktime(&tm));
}
} // namespace detail

/// Slurm's `_next_reset`: the reset after `last_reset` for `period`, with the DAILY and
/// WEEKLY catch-up relative to `now`. 0 for `none` and `now` (no schedule), or when the
/// local time cannot be computed.
[[nodiscard]] inline std::int64_t next_reset(reset_period period, std::int64_t last_reset, std::int64_t now) noexcept {
    std::tm tm{};
    if (!detail::local_tm(last_reset, tm)) return 0;
    tm.tm_sec = 0;
    tm.tm_min = 0;
    tm.tm_hour = 0;
    switch (period) {
    case reset_period::daily: {
        std::int64_t t = detail::local_mktime(tm) + detail::secs_per_day;
        while (t + detail::secs_per_day < now) t += detail::secs_per_day;
        return t;
    }
    case reset_period::weekly: {
        std::int64_t t = detail::local_mktime(tm);
        t += detail::secs_per_day * (7 - tm.tm_wday); // tm_wday as normalized by mktime
        while (t + detail::secs_per_week < now) t += detail::secs_per_week;
        return t;
    }
    case reset_period::monthly:
        tm.tm_mday = 1;
        if (tm.tm_mon < 11) {
            ++tm.tm_mon;
        } else {
            tm.tm_mon = 0;
            ++tm.tm_year;
        }
        break;
    case reset_period::quarterly:
        tm.tm_mday = 1;
        if (tm.tm_mon < 3) tm.tm_mon = 3;
        else if (tm.tm_mon < 6) tm.tm_mon = 6;
        else if (tm.tm_mon < 9) tm.tm_mon = 9;
        else {
            tm.tm_mon = 0;
            ++tm.tm_year;
        }
        break;
    case reset_period::yearly:
        tm.tm_mday = 1;
        tm.tm_mon = 0;
        ++tm.tm_year;
        break;
    case reset_period::none:
    case reset_period::now:
        return 0;
    }
    return detail::local_mktime(tm);
}

/// The reset state the decay loop carries from pass to pass (Slurm's `reset_period`,
/// `last_reset`, `next_reset`).
struct reset_schedule {
    reset_period period = reset_period::none; ///< becomes `none` after a NOW reset
    std::int64_t last_reset = 0;              ///< 0 = unknown: the first pass's time is used (Slurm: no state file)
    std::int64_t next = 0;                    ///< 0 = not computed yet

    /// Called at the start of every pass at time `now`: true when usage must be cleared now
    /// (and the schedule has advanced).
    [[nodiscard]] bool due(std::int64_t now) noexcept {
        if (last_reset == 0) last_reset = now;
        switch (period) {
        case reset_period::none:
            return false;
        case reset_period::now:
            period = reset_period::none;
            last_reset = now;
            return true;
        default:
            if (next == 0) next = next_reset(period, last_reset, now);
            if (now >= next) {
                last_reset = next;
                next = next_reset(period, last_reset, now);
                return true;
            }
            return false;
        }
    }

    /// A reconfiguration (scontrol reconfigure / restart with a new period): Slurm re-reads
    /// the period and forgets the computed next reset, keeping `last_reset`.
    void reconfigure(reset_period p) noexcept {
        period = p;
        next = 0;
    }
};

} // namespace mfprio::fairshare
