// The unit tests of the site's compiled factors (site_factors.hpp), built as the plugin and
// the tool are with -Dsite_factors naming that header: each factor through the policy file a
// site writes, read with `mfprio::queue::site_factors()`. Every expected value is worked out
// by hand from short_jobs' formula, 1 - limit / max_limit within [0, 1], in a comment beside
// it.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include <mfprio/queue/site_factors.hpp>

namespace {

using mfprio::queue::site_context;
using mfprio::queue::site_job;

constexpr std::int64_t now = 1'800'000'000;

mfprio::queue::site_engine policy(const char* text) {
    auto e = mfprio::queue::load_site_policy(text, "site.policy", mfprio::queue::site_factors());
    REQUIRE_MESSAGE(e.has_value(), (e ? std::string() : e.error().to_string()));
    return std::move(*e);
}

site_job limited(std::uint32_t limit_minutes) {
    site_job j;
    j.id = 1;
    j.submit_time = now - 3600;
    j.time_limit = limit_minutes;
    return j;
}

} // namespace

TEST_CASE("the build reads site policies with the site's registry") {
    // MFPRIO_SITE_FACTORS names site_factors.hpp here: site_factors() is its registry, which
    // knows the site's factor and every built-in one; the built-in registry alone does not.
    CHECK(&mfprio::queue::site_factors() == &site::site_factor_registry());
    CHECK(mfprio::queue::site_factors().find("short_jobs") != nullptr);
    CHECK(mfprio::queue::site_factors().find("gpu_fair_use") != nullptr);
    CHECK(mfprio::queue::site_registry().find("short_jobs") == nullptr);
    CHECK_FALSE(mfprio::queue::load_site_policy("short_jobs = 1\n", "site.policy").has_value());
}

TEST_CASE("short_jobs: the share of max_limit a job leaves, weighted") {
    const auto e = policy("short_jobs = 2000\n");
    // 1-0 of 7-0: 1 - 1440 / 10080 = 0.857142...; x 2000 = 1714.29 -> 1714.
    CHECK(e.priority(limited(1440), site_context{now}) == 1714);
    // 30 minutes: 1 - 30 / 10080 = 0.997023...; x 2000 = 1994.05 -> 1994.
    CHECK(e.priority(limited(30), site_context{now}) == 1994);
    // 0 minutes: 1; x 2000.
    CHECK(e.priority(limited(0), site_context{now}) == 2000);
    // At and past max_limit: 0.
    CHECK(e.priority(limited(10080), site_context{now}) == 0);
    CHECK(e.priority(limited(20000), site_context{now}) == 0);
    // No limit, or UNLIMITED: 0.
    CHECK(e.priority(limited(mfprio::no_val32), site_context{now}) == 0);
    CHECK(e.priority(limited(mfprio::infinite32), site_context{now}) == 0);
}

TEST_CASE("short_jobs: max_limit, and beside the built-in factors") {
    // max_limit 2-0 = 2880 min: 12:00:00 = 720 min, 1 - 720 / 2880 = 0.75; x 1000 = 750.
    CHECK(policy("short_jobs = 1000\nshort_jobs.max_limit = 2-0\n").priority(limited(720), site_context{now}) == 750);
    // xfactor preset: wait 3600 s over max(600, 43200 s) = 0.083, rounded to 0; short_jobs
    // 750; gpu_fair_use without GPUs 1 x 10 = 10. Sum 760.
    CHECK(policy("preset = xfactor\nshort_jobs = 1000\nshort_jobs.max_limit = 2-0\ngpu_fair_use = 10\n")
              .priority(limited(720), site_context{now}) == 760);
}

TEST_CASE("short_jobs: bad options name the file, line and column") {
    const auto bad = [](const char* text) {
        auto e = mfprio::queue::load_site_policy(text, "site.policy", mfprio::queue::site_factors());
        REQUIRE_FALSE(e.has_value());
        return e.error().to_string();
    };
    CHECK(bad("short_jobs = 1\nshort_jobs.max_limit = often\n").starts_with("site.policy:2:"));
    CHECK(bad("short_jobs = 1\nshort_jobs.max_limit = 0\n").find("above 0") != std::string::npos);
    CHECK(bad("short_jobs = 1\nshort_jobs.budget = 3\n").starts_with("site.policy:2:"));
}

TEST_CASE("site_policy_reads: what the plugin fills for the site's factor") {
    using namespace mfprio::queue;
    auto e = load_site_policy("short_jobs = 1\nmem = 1\n", "site.policy", site_factors());
    REQUIRE(e.has_value());
    const auto names = e->names();
    CHECK(site_policy_reads(names, site_factors()) == (site_reads_times | site_reads_tres));
}
