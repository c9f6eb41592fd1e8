#pragma once
/// \file
/// Slurm time strings, as slurm.conf (PriorityDecayHalfLife, PriorityMaxAge, partition
/// MaxTime...) and sbatch --time take them.
///
/// Accepted forms (Slurm's time_str2secs, parse_time.c):
///   `min`, `min:sec`, `hr:min:sec`, `days-hr`, `days-hr:min`, `days-hr:min:sec`,
///   and `UNLIMITED` / `INFINITE` (any case) or `-1` for "no limit".
/// Two colon-separated numbers are minutes and seconds ("90:30" = 90 min 30 s), three are
/// hours, minutes and seconds. Like Slurm, the parts are not range-checked ("0:90" is 90 s).
/// Unlike Slurm (which keeps going with sscanf), anything else is an error: empty parts,
/// signs, spaces, letters, more than one '-' or more than two ':'. Slurm computes in a C
/// `int`; values above 2^31-1 seconds would overflow there and are rejected here.
///
/// Conversion to minutes (Slurm's time_str2mins) rounds partial minutes **up**:
/// "1:30" (90 s) is 2 minutes, "0:01" is 1 minute. slurm.conf's priority times are stored
/// as minutes * 60, so PriorityDecayHalfLife=1:30 is a 120 s half-life.

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include <mfprio/core/expected.hpp>
#include <mfprio/core/job.hpp>
#include <mfprio/text/text.hpp>

namespace mfprio::text {

/// A parsed Slurm duration: a number of seconds, or "unlimited".
struct slurm_duration {
    /// Seconds; std::numeric_limits<std::int64_t>::max() when `unlimited`.
    std::int64_t seconds = 0;
    /// True for UNLIMITED / INFINITE / -1.
    bool unlimited = false;

    /// Whole minutes, partial minutes rounded up (Slurm's time_str2mins);
    /// `mfprio::infinite32` when unlimited.
    [[nodiscard]] constexpr std::uint32_t minutes() const noexcept {
        if (unlimited) return infinite32;
        return static_cast<std::uint32_t>((seconds + 59) / 60);
    }

    friend constexpr bool operator==(const slurm_duration&, const slurm_duration&) = default;
};

/// Largest number of seconds accepted (Slurm's C `int` range).
inline constexpr std::int64_t slurm_time_max_seconds = std::numeric_limits<std::int32_t>::max();

/// Parses a Slurm time string (see the file comment). Surrounding white space is ignored.
/// On error the `input_error` carries only a message; callers add file, line and key.
[[nodiscard]] inline expected<slurm_duration> parse_slurm_time(std::string_view text) {
    const std::string_view s = trim(text);
    auto fail = [&](std::string why) {
        return make_error({}, 0, 0, {},
                          "invalid time " + text::quote(s) + ": " + std::move(why) +
                              " (expected min, min:sec, hr:min:sec, days-hr, days-hr:min, "
                              "days-hr:min:sec or UNLIMITED)");
    };
    if (s.empty()) return fail("empty");
    if (s == "-1" || iequals(s, "UNLIMITED") || iequals(s, "INFINITE"))
        return slurm_duration{std::numeric_limits<std::int64_t>::max(), true};

    for (const char c : s)
        if (!is_digit(c) && c != '-' && c != ':') return fail("unexpected character");

    std::string_view days_part;
    std::string_view rest = s;
    const std::size_t dash = s.find('-');
    const bool has_days = dash != std::string_view::npos;
    if (has_days) {
        days_part = s.substr(0, dash);
        rest = s.substr(dash + 1);
        if (rest.find('-') != std::string_view::npos) return fail("more than one '-'");
    }
    const auto parts = split(rest, ':');
    if (parts.size() > 3) return fail("more than two ':'");

    // Each part: 1..10 digits (so the sum below cannot overflow int64).
    auto number = [](std::string_view p) -> std::optional<std::int64_t> {
        if (p.empty() || p.size() > 10) return std::nullopt;
        const auto v = parse_unsigned<std::uint64_t>(p);
        if (!v) return std::nullopt;
        return static_cast<std::int64_t>(*v);
    };

    std::int64_t total = 0;
    if (has_days) {
        const auto d = number(days_part);
        if (!d) return fail("bad days");
        total = *d * 86400;
        static constexpr std::int64_t unit[3] = {3600, 60, 1};
        for (std::size_t i = 0; i < parts.size(); ++i) {
            const auto v = number(parts[i]);
            if (!v) return fail("empty or too long number");
            total += *v * unit[i];
        }
    } else {
        std::int64_t v[3] = {0, 0, 0};
        for (std::size_t i = 0; i < parts.size(); ++i) {
            const auto n = number(parts[i]);
            if (!n) return fail("empty or too long number");
            v[i] = *n;
        }
        if (parts.size() == 3) total = v[0] * 3600 + v[1] * 60 + v[2]; // hr:min:sec
        else total = v[0] * 60 + v[1];                                  // min[:sec]
    }
    if (total > slurm_time_max_seconds) return fail("too large (more than 2^31-1 seconds)");
    return slurm_duration{total, false};
}

} // namespace mfprio::text
