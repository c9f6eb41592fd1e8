// The unit tests of the site's compiled factors (site_factors.hpp): each through the policy
// file a site writes, as site_factor/mfprio loads it. Every expected value is worked out by
// hand from gpu_fair_use's formula, 1 - (used + requested) / budget within [0, 1], in a
// comment beside it.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "site_factors.hpp"

namespace {

using mfprio::queue::site_context;
using mfprio::queue::site_job;

constexpr std::int64_t now = 1'800'000'000;

mfprio::queue::site_engine policy(const char* text) {
    auto e = mfprio::queue::load_site_policy(text, "site.policy", site::site_factor_registry());
    REQUIRE_MESSAGE(e.has_value(), (e ? std::string() : e.error().to_string()));
    return std::move(*e);
}

site_job gpu_job(std::uint64_t gpus, std::uint32_t limit_minutes, std::uint64_t used_minutes) {
    site_job j;
    j.id = 1;
    j.submit_time = now - 3600;
    j.gpus = gpus;
    j.time_limit = limit_minutes;
    j.owner_gpu_minutes = used_minutes;
    return j;
}

} // namespace

TEST_CASE("gpu_fair_use: the share of the budget a job would leave, weighted") {
    const auto e = policy("gpu_fair_use = 5000\n");
    // 2 GPUs x 120 min = 4 GPU-hours requested, 6000 min = 100 GPU-hours used:
    // 1 - 104 / 1000 = 0.896; x 5000 = 4480.
    CHECK(e.priority(gpu_job(2, 120, 6000), site_context{now}) == 4480);
    // No GPUs: 1; x 5000.
    CHECK(e.priority(gpu_job(0, 120, 6000), site_context{now}) == 5000);
    // No time limit: a day. 1 GPU x 24 h, nothing used: 1 - 24 / 1000 = 0.976; x 5000 = 4880.
    CHECK(e.priority(gpu_job(1, mfprio::no_val32, 0), site_context{now}) == 4880);
    CHECK(e.priority(gpu_job(1, mfprio::infinite32, 0), site_context{now}) == 4880);
    // 59 minutes used are 59/60 GPU-hours: 1 GPU x 60 min = 1 h; 1 - (59/60 + 1) / 1000
    // = 0.99801666...; x 5000 = 4990.083 -> 4990.
    CHECK(e.priority(gpu_job(1, 60, 59), site_context{now}) == 4990);
    // The budget spent (60000 min = 1000 h): nothing left, 0.
    CHECK(e.priority(gpu_job(1, 60, 60000), site_context{now}) == 0);
}

TEST_CASE("gpu_fair_use: its options") {
    // budget 10: 1 GPU x 60 min = 1 h, 120 min = 2 h used: 1 - 3 / 10 = 0.7; x 1000 = 700.
    CHECK(policy("gpu_fair_use = 1000\ngpu_fair_use.budget = 10\n").priority(gpu_job(1, 60, 120), site_context{now}) == 700);
    // default_limit 10:00:00: 2 GPUs x 10 h = 20 h of 100: 1 - 20 / 100 = 0.8; x 1000 = 800.
    CHECK(policy("gpu_fair_use = 1000\ngpu_fair_use.budget = 100\ngpu_fair_use.default_limit = 10:00:00\n")
              .priority(gpu_job(2, mfprio::no_val32, 0), site_context{now}) == 800);
    // budget 0 leaves nothing for a GPU job; a job without GPUs keeps 1.
    const auto none = policy("gpu_fair_use = 1000\ngpu_fair_use.budget = 0\n");
    CHECK(none.priority(gpu_job(1, 60, 0), site_context{now}) == 0);
    CHECK(none.priority(gpu_job(0, 60, 0), site_context{now}) == 1000);
}

TEST_CASE("gpu_fair_use beside the built-in site factors") {
    // xfactor preset: wait 3600 s over max(600, 7200 s) = 0.5, rounded to 1 (half away from
    // zero), x 1000 = 1000; gpu_fair_use 1 - (100 + 4) / 1000 = 0.896, x 5000 = 4480. Sum 5480.
    const auto e = policy("preset = xfactor\ngpu_fair_use = 5000\n");
    CHECK(e.priority(gpu_job(2, 120, 6000), site_context{now}) == 5480);
}

TEST_CASE("gpu_fair_use: bad options name the file, line and column") {
    const auto bad = [](const char* text) {
        auto e = mfprio::queue::load_site_policy(text, "site.policy", site::site_factor_registry());
        REQUIRE_FALSE(e.has_value());
        return e.error().to_string();
    };
    CHECK(bad("gpu_fair_use = 1\ngpu_fair_use.budget = -5\n").starts_with("site.policy:2:"));
    CHECK(bad("gpu_fair_use = 1\ngpu_fair_use.budget = -5\n").find("budget") != std::string::npos);
    CHECK(bad("gpu_fair_use = 1\ngpu_fair_use.default_limit = often\n").starts_with("site.policy:2:"));
    CHECK(bad("gpu_fair_use = 1\ngpu_fair_use.default_limit = 0\n").find("above 0") != std::string::npos);
    CHECK(bad("gpu_fair_use = 1\ngpu_fair_use.owner = 3\n").starts_with("site.policy:2:"));
    // The built-in registry alone does not know the site's factor.
    CHECK_FALSE(mfprio::queue::load_site_policy("gpu_fair_use = 1\n", "site.policy").has_value());
}

TEST_CASE("site_policy_reads: what the plugin fills for a policy") {
    using namespace mfprio::queue;
    const auto reads = [](const char* text) {
        auto e = load_site_policy(text, "site.policy", site::site_factor_registry());
        REQUIRE(e.has_value());
        const auto names = e->names();
        return site_policy_reads(names, site::site_factor_registry());
    };
    CHECK(reads("preset = xfactor\nqueuetime = 2\n") == site_reads_times);
    CHECK(reads("partition = 1\nqos = 1\n") == (site_reads_partition | site_reads_qos));
    CHECK(reads("nice = 1\nmem = 1\n") == (site_reads_request | site_reads_tres));
    CHECK(reads("gpu_fair_use = 1\n") == (site_reads_times | site_reads_tres | site_reads_owner_gpu));
    // A name the registry does not know reads everything; so does a factor registered
    // without saying what it reads.
    const std::string_view unknown[] = {"queuetime", "someone_elses"};
    CHECK(site_policy_reads(unknown) == site_reads_all);
    auto reg = make_site_registry();
    REQUIRE(reg.add("everything", [](const factor_options&) -> mfprio::expected<registry<site_job, site_context>::factor_ptr> {
        return registry<site_job, site_context>::factor_ptr(
            std::make_unique<factor_adapter<site_simple_factor<site_value::nice>, site_job, site_context>>(
                site_simple_factor<site_value::nice>{}));
    }));
    const std::string_view plain[] = {"nice", "everything"};
    CHECK(site_policy_reads(std::span<const std::string_view>(plain).first(1), reg) == site_reads_request);
    CHECK(site_policy_reads(plain, reg) == site_reads_all);
}
