// Tests for mfprio/text/slurm_time.hpp. Expected values follow Slurm's time_str2secs /
// time_str2mins (parse_time.c): "min:sec" for two fields, "hr:min:sec" for three,
// "days-hr[:min[:sec]]", UNLIMITED/INFINITE/-1, and minutes rounded up.
#include <doctest/doctest.h>

#include <mfprio/text/slurm_time.hpp>

#include <cstdint>
#include <limits>
#include <string>

using namespace mfprio::text;

TEST_CASE("config: slurm time strings, table of cases") {
    struct row {
        const char* text;
        std::int64_t seconds;
        std::uint32_t minutes;
    };
    const row rows[] = {
        {"0", 0, 0},
        {"5", 300, 5},
        {"90:30", 5430, 91},          // min:sec -> 90 min 30 s, rounded up to 91 min
        {"1:30", 90, 2},              // 90 s -> 2 minutes (time_str2mins rounds up)
        {"0:01", 1, 1},
        {"0:90", 90, 2},              // parts are not range-checked, like Slurm
        {"2:00:00", 7200, 120},       // hr:min:sec
        {"1:02:03", 3723, 63},
        {"14-0", 1209600, 20160},     // seed 000: "2 week half-life"
        {"7-0", 604800, 10080},       // Slurm's default PriorityDecayHalfLife
        {"2-12", 216000, 3600},       // days-hr
        {"1-2:30", 95400, 1590},      // days-hr:min
        {"1-02:03:04", 93784, 1564},  // days-hr:min:sec: 1563 min 4 s rounds up to 1564
        {" 10 ", 600, 10},            // surrounding blanks ignored
    };
    for (const auto& r : rows) {
        CAPTURE(r.text);
        const auto d = parse_slurm_time(r.text);
        REQUIRE(d);
        CHECK_FALSE(d->unlimited);
        CHECK(d->seconds == r.seconds);
        CHECK(d->minutes() == r.minutes);
    }
}

TEST_CASE("config: slurm time UNLIMITED forms") {
    for (const char* s : {"UNLIMITED", "unlimited", "Infinite", "INFINITE", "-1"}) {
        CAPTURE(s);
        const auto d = parse_slurm_time(s);
        REQUIRE(d);
        CHECK(d->unlimited);
        CHECK(d->seconds == std::numeric_limits<std::int64_t>::max());
        CHECK(d->minutes() == mfprio::infinite32);
    }
}

TEST_CASE("config: slurm time errors") {
    const char* bad[] = {"",      "  ",     "abc",   "1h",      "-5",    "1--2",  "1-2-3",
                         "1:2:3:4", "1-1:2:3:4", ":5",  "5:",     "1-",    "-1:00", "+5",
                         "1 2",   "1.5",   "99999999999", "1-:00"};
    for (const char* s : bad) {
        CAPTURE(s);
        const auto d = parse_slurm_time(s);
        REQUIRE_FALSE(d);
        CHECK(d.error().message.find("invalid time") != std::string::npos);
    }
    // 2^31 seconds overflows Slurm's int.
    const auto big = parse_slurm_time("24856-0");
    REQUIRE_FALSE(big);
    CHECK(big.error().message.find("too large") != std::string::npos);
    const auto ok = parse_slurm_time("24855-0"); // 2147472000 s still fits
    REQUIRE(ok);
    CHECK(ok->seconds == 2147472000);
}
