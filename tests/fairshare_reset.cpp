// Tests for mfprio/fairshare/reset.hpp (reference slurm.md 2.4 PriorityUsageResetPeriod):
//   next reset, from the last reset in LOCAL time with h:m:s = 0:
//     DAILY     midnight + 1 day, + whole days while (t + 1 day) < now
//     WEEKLY    midnight + (7 - wday) days (next Sunday 00:00), + weeks while (t + 1 week) < now
//     MONTHLY   1st of next month; QUARTERLY 1st of Apr/Jul/Oct/Jan; YEARLY Jan 1 next year
//     (no catch-up for these three)
//   a pass resets when now >= next; then last = next and next is recomputed; NOW resets at
//   the first pass and then behaves as NONE.
// Expected instants are written as UTC civil times with `utc()` below (its own day count,
// independent of the C library). New York is UTC-5 (EST) until 2024-03-10 02:00 and UTC-4
// (EDT) until 2024-11-03 02:00. 2024-01-01 was a Monday.
#include <mfprio/fairshare/reset.hpp>
#include <mfprio/fairshare/usage.hpp>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <string>

#include <time.h>

#include <doctest/doctest.h>

namespace {
using namespace mfprio::fairshare;

constexpr bool leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

// Seconds since the epoch of a UTC civil time (own arithmetic, no C library).
constexpr std::int64_t utc(int y, int mo, int d, int h = 0, int mi = 0, int s = 0) {
    constexpr int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    std::int64_t days = 0;
    for (int yy = 1970; yy < y; ++yy) days += leap(yy) ? 366 : 365;
    for (int m = 1; m < mo; ++m) days += mdays[m - 1] + ((m == 2 && leap(y)) ? 1 : 0);
    days += d - 1;
    return days * 86400 + h * 3600 + mi * 60 + s;
}
static_assert(utc(1970, 1, 1) == 0);
static_assert(utc(2024, 3, 10) == 1710028800); // 19792 days · 86400

// Sets TZ for the scope of a test and restores the previous value.
class tz_guard {
public:
    explicit tz_guard(const char* tz) {
        if (const char* old = std::getenv("TZ")) {
            had_ = true;
            old_ = old;
        }
        setenv("TZ", tz, 1);
        tzset();
    }
    ~tz_guard() {
        if (had_) setenv("TZ", old_.c_str(), 1);
        else unsetenv("TZ");
        tzset();
    }
    tz_guard(const tz_guard&) = delete;
    tz_guard& operator=(const tz_guard&) = delete;

private:
    bool had_ = false;
    std::string old_;
};

// America/New_York from tzdata, or the equivalent POSIX rule when tzdata is missing.
const char* new_york() {
    return std::filesystem::exists("/usr/share/zoneinfo/America/New_York") ? "America/New_York"
                                                                           : "EST5EDT,M3.2.0,M11.1.0";
}
} // namespace

TEST_CASE("fairshare: reset NONE and NOW have no schedule") {
    CHECK(next_reset(reset_period::none, utc(2024, 1, 10), utc(2024, 1, 11)) == 0);
    CHECK(next_reset(reset_period::now, utc(2024, 1, 10), utc(2024, 1, 11)) == 0);
    reset_schedule none{};
    CHECK_FALSE(none.due(utc(2024, 1, 10)));
    CHECK_FALSE(none.due(utc(2030, 1, 10)));

    reset_schedule now{.period = reset_period::now};
    CHECK(now.due(utc(2024, 1, 10, 12))); // the first pass resets
    CHECK(now.last_reset == utc(2024, 1, 10, 12));
    CHECK(now.period == reset_period::none); // then it behaves as NONE
    CHECK_FALSE(now.due(utc(2024, 1, 10, 12, 5)));
}

TEST_CASE("fairshare: reset DAILY in UTC and in New York (local midnight)") {
    {
        const tz_guard tz("UTC");
        // 2024-03-10 15:00 UTC -> 2024-03-11 00:00 UTC
        CHECK(next_reset(reset_period::daily, utc(2024, 3, 10, 15), utc(2024, 3, 10, 15)) == utc(2024, 3, 11));
    }
    const tz_guard tz(new_york());
    // 2024-01-10 15:30 EST (20:30 UTC) -> 2024-01-11 00:00 EST = 05:00 UTC
    CHECK(next_reset(reset_period::daily, utc(2024, 1, 10, 20, 30), utc(2024, 1, 10, 20, 31)) == utc(2024, 1, 11, 5));
    // The local-time boundary: 2024-01-10 03:00 UTC is still 2024-01-09 22:00 in New York,
    // so the next reset is 2024-01-10 00:00 EST = 05:00 UTC (UTC would say 2024-01-11 00:00).
    CHECK(next_reset(reset_period::daily, utc(2024, 1, 10, 3), utc(2024, 1, 10, 3)) == utc(2024, 1, 10, 5));
    // Across the spring-forward day the step is a fixed 86400 s: from 2024-03-10 00:00 EST
    // (05:00 UTC) the next reset is 2024-03-11 05:00 UTC = 01:00 EDT, not midnight.
    CHECK(next_reset(reset_period::daily, utc(2024, 3, 10, 5), utc(2024, 3, 10, 5)) == utc(2024, 3, 11, 5));
    // ... and from there local midnight again: 2024-03-11 00:00 EDT = 04:00 UTC, + 1 day.
    CHECK(next_reset(reset_period::daily, utc(2024, 3, 11, 5), utc(2024, 3, 11, 5)) == utc(2024, 3, 12, 4));
}

TEST_CASE("fairshare: reset DAILY catch-up by whole days until t + 1 day >= now") {
    const tz_guard tz(new_york());
    // last 2024-01-10 15:30 EST, now 2024-01-20 12:00 EST (17:00 UTC):
    // t = Jan 11 00:00 EST, advanced while t + 1 day < now: ... Jan 19 (Jan 20 00:00 < now),
    // Jan 20 00:00 (Jan 21 00:00 >= now: stop) -> 2024-01-20 00:00 EST = 05:00 UTC (due now).
    const std::int64_t last = utc(2024, 1, 10, 20, 30);
    CHECK(next_reset(reset_period::daily, last, utc(2024, 1, 20, 17)) == utc(2024, 1, 20, 5));
    // now exactly one day after a candidate: t + 1 day == now stops (the test is strict <).
    CHECK(next_reset(reset_period::daily, last, utc(2024, 1, 20, 5)) == utc(2024, 1, 19, 5));
}

TEST_CASE("fairshare: reset WEEKLY is next Sunday 00:00 local, catch-up by weeks") {
    const tz_guard tz(new_york());
    // Wednesday 2024-01-10 15:30 EST: midnight + (7 - 3) days = Sunday 2024-01-14 00:00 EST
    CHECK(next_reset(reset_period::weekly, utc(2024, 1, 10, 20, 30), utc(2024, 1, 10, 21)) == utc(2024, 1, 14, 5));
    // A Sunday goes to the following Sunday: + (7 - 0) days
    CHECK(next_reset(reset_period::weekly, utc(2024, 1, 14, 5), utc(2024, 1, 14, 5)) == utc(2024, 1, 21, 5));
    // Catch-up: last Wed Jan 10, now Wed 2024-02-07 12:00 EST: Jan 14 -> 21 -> 28 -> Feb 4
    // (Feb 4 + 1 week = Feb 11 >= now: stop) -> Sunday 2024-02-04 00:00 EST
    CHECK(next_reset(reset_period::weekly, utc(2024, 1, 10, 20, 30), utc(2024, 2, 7, 17)) == utc(2024, 2, 4, 5));
    // Sunday 2024-03-10 12:00 EDT: its midnight was EST (05:00 UTC); + 7·86400 s lands on
    // 2024-03-17 05:00 UTC = 01:00 EDT (fixed-length days, as in Slurm).
    CHECK(next_reset(reset_period::weekly, utc(2024, 3, 10, 16), utc(2024, 3, 10, 16)) == utc(2024, 3, 17, 5));
    {
        const tz_guard utc_tz("UTC");
        CHECK(next_reset(reset_period::weekly, utc(2024, 1, 10, 20, 30), utc(2024, 1, 10, 21)) == utc(2024, 1, 14));
    }
}

TEST_CASE("fairshare: reset MONTHLY, QUARTERLY, YEARLY at local midnight, no catch-up") {
    const tz_guard tz(new_york());
    // MONTHLY: 2024-01-31 10:00 EST -> 2024-02-01 00:00 EST
    CHECK(next_reset(reset_period::monthly, utc(2024, 1, 31, 15), utc(2024, 1, 31, 15)) == utc(2024, 2, 1, 5));
    // across DST: 2024-03-05 -> 2024-04-01 00:00 EDT = 04:00 UTC (mktime picks the offset)
    CHECK(next_reset(reset_period::monthly, utc(2024, 3, 5, 15), utc(2024, 3, 5, 15)) == utc(2024, 4, 1, 4));
    // December rolls over: 2024-12-15 -> 2025-01-01 00:00 EST
    CHECK(next_reset(reset_period::monthly, utc(2024, 12, 15, 15), utc(2024, 12, 15, 15)) == utc(2025, 1, 1, 5));
    // no catch-up: last 2023-01-15, now 2024-06-01 -> still 2023-02-01 00:00 EST
    CHECK(next_reset(reset_period::monthly, utc(2023, 1, 15, 15), utc(2024, 6, 1, 12)) == utc(2023, 2, 1, 5));

    // QUARTERLY: Feb -> Apr 1 (EDT); Apr 1 -> Jul 1; Aug -> Oct 1; Nov -> Jan 1 next year (EST)
    CHECK(next_reset(reset_period::quarterly, utc(2024, 2, 14, 15), utc(2024, 2, 14, 15)) == utc(2024, 4, 1, 4));
    CHECK(next_reset(reset_period::quarterly, utc(2024, 4, 1, 4), utc(2024, 4, 1, 4)) == utc(2024, 7, 1, 4));
    CHECK(next_reset(reset_period::quarterly, utc(2024, 8, 20, 15), utc(2024, 8, 20, 15)) == utc(2024, 10, 1, 4));
    CHECK(next_reset(reset_period::quarterly, utc(2024, 11, 20, 15), utc(2024, 11, 20, 15)) == utc(2025, 1, 1, 5));

    // YEARLY: 2024-06-15 -> 2025-01-01 00:00 EST
    CHECK(next_reset(reset_period::yearly, utc(2024, 6, 15, 15), utc(2024, 6, 15, 15)) == utc(2025, 1, 1, 5));
    // the last hour of the year in New York is already next year in UTC:
    // 2024-12-31 23:30 EST = 2025-01-01 04:30 UTC -> 2025-01-01 00:00 EST
    CHECK(next_reset(reset_period::yearly, utc(2025, 1, 1, 4, 30), utc(2025, 1, 1, 4, 30)) == utc(2025, 1, 1, 5));
    {
        const tz_guard utc_tz("UTC");
        CHECK(next_reset(reset_period::monthly, utc(2024, 1, 31, 15), 0) == utc(2024, 2, 1));
        CHECK(next_reset(reset_period::quarterly, utc(2024, 5, 2), 0) == utc(2024, 7, 1));
        CHECK(next_reset(reset_period::yearly, utc(2025, 1, 1, 4, 30), 0) == utc(2026, 1, 1));
    }
}

TEST_CASE("fairshare: reset schedule resets when now >= next, then advances") {
    const tz_guard tz("UTC");
    reset_schedule s{.period = reset_period::daily};
    // first pass: last_reset unknown -> the pass time; next = 2024-01-11 00:00
    CHECK_FALSE(s.due(utc(2024, 1, 10, 12)));
    CHECK(s.last_reset == utc(2024, 1, 10, 12));
    CHECK(s.next == utc(2024, 1, 11));
    CHECK_FALSE(s.due(utc(2024, 1, 10, 23, 55)));
    CHECK(s.due(utc(2024, 1, 11))); // now == next
    CHECK(s.last_reset == utc(2024, 1, 11));
    CHECK(s.next == utc(2024, 1, 12));
    CHECK_FALSE(s.due(utc(2024, 1, 11, 0, 5)));

    // MONTHLY without catch-up: a schedule 16 months behind resets at every pass until it
    // is in the future again: Feb 2023 .. Jun 2024 is 17 resets, then Jul 1 2024 is ahead.
    reset_schedule m{.period = reset_period::monthly, .last_reset = utc(2023, 1, 15)};
    int resets = 0;
    std::int64_t now = utc(2024, 6, 1, 12);
    while (m.due(now)) {
        ++resets;
        now += 300;
    }
    CHECK(resets == 17);
    CHECK(m.last_reset == utc(2024, 6, 1));
    CHECK(m.next == utc(2024, 7, 1));

    // Reconfigure: the period changes and the next reset is recomputed from last_reset.
    m.reconfigure(reset_period::yearly);
    CHECK_FALSE(m.due(now));
    CHECK(m.next == utc(2025, 1, 1));
}

TEST_CASE("fairshare: reset in the periodic loop clears usage at the first pass after local midnight") {
    const tz_guard tz("UTC");
    tree_builder b;
    const auto acct = b.add_account(0, "a", 1);
    const auto user = b.add_user(acct, "u", 1, 1000);
    tree t = b.build();
    const auto u = b.position(user);
    usage_ledger led(t, decay_rate(300, half_life_mode::exact)); // D^300 = 0.5
    led.set_reset_period(reset_period::daily);
    const std::int64_t t0 = utc(2024, 1, 10, 23, 50);
    const std::array<ledger_job, 1> jobs{{{.assoc = u, .start = t0, .end = 0, .billable = 1.0}}};
    // 23:50 first pass (last reset := 23:50, next = 00:00): 1000
    // 23:55: 500 + 150 = 650
    // 00:00: reset -> 0, then 0·0.5 + 150 = 150
    // 00:05: 75 + 150 = 225; 00:10: 112.5 + 150 = 262.5
    led.run(t0, t0 + 1200, 300, jobs);
    CHECK(led.usage(u) == 262.5);
    CHECK(led.usage(0) == 262.5);
    CHECK(led.resets().last_reset == utc(2024, 1, 11));
    CHECK(led.resets().next == utc(2024, 1, 12));
}
