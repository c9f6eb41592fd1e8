// The site policy of site_factor/mfprio (mfprio/queue/site.hpp): each factor and the result
// worked out by hand from the formulas of the header's table; the preset as documented.

#include <doctest/doctest.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include <mfprio/queue/site.hpp>

using namespace mfprio::queue;

namespace {
site_engine site_policy(const std::string& text) {
    auto e = load_site_policy(text, "site.policy");
    REQUIRE_MESSAGE(e, (e ? std::string() : e.error().to_string()));
    return std::move(*e);
}
site_job pending(std::int64_t submit, std::uint32_t limit_minutes) {
    site_job j;
    j.id = 7;
    j.submit_time = submit;
    j.time_limit = limit_minutes;
    return j;
}
} // namespace

TEST_CASE("site policy: queue time in minutes from the later of submission and begin time") {
    const auto e = site_policy("queuetime = 2\n");
    site_job j = pending(1000, 30);
    // 150 s queued: 2.5 minutes x 2 = 5.
    CHECK(e.priority(j, site_context{1150}) == 5);
    // A begin time after submission: queued from it (1100), 50 s = 0.8333 min x 2 = 1.67 -> 2.
    j.begin_time = 1100;
    CHECK(e.priority(j, site_context{1150}) == 2);
    // Before the job's begin time: 0, never negative.
    CHECK(e.priority(j, site_context{1050}) == 0);
}

TEST_CASE("site policy: Maui's expansion factor and the wait form, with a minimum limit") {
    site_job j = pending(0, 30); // 1800 s limit
    // Maui: (queued + limit) / max(min_limit, limit) = (3600 + 1800) / 1800 = 3, x 100.
    CHECK(site_policy("xfactor = 100\n").priority(j, site_context{3600}) == 300);
    // min_limit 1 hour: (3600 + 1800) / 3600 = 1.5 x 100 = 150.
    CHECK(site_policy("xfactor = 100\nxfactor.min_limit = 1:00:00\n").priority(j, site_context{3600}) == 150);
    // The wait form: 3600 / 1800 = 2 x 100.
    CHECK(site_policy("xfactor = 100\nxfactor.form = wait\n").priority(j, site_context{3600}) == 200);
    // No time limit: default_limit (a day unless set): (3600 + 86400) / 86400 = 1.04167 x 1000.
    site_job unlimited = pending(0, mfprio::infinite32);
    CHECK(site_policy("xfactor = 1000\n").priority(unlimited, site_context{3600}) == 1042);
    CHECK(site_policy("xfactor = 1000\nxfactor.default_limit = 2:00:00\n").priority(unlimited, site_context{3600}) == 1500);
}

TEST_CASE("site policy: the xfactor preset rounds, caps at 10 and weighs 1000") {
    const auto e = site_policy("preset = xfactor\n");
    // 5-minute limit below the 10-minute minimum: wait 25 min / 10 min = 2.5 -> 3 (half away
    // from zero) x 1000.
    CHECK(e.priority(pending(0, 5), site_context{1500}) == 3000);
    // 2.4 -> 2.
    CHECK(e.priority(pending(0, 5), site_context{1440}) == 2000);
    // Waited 20 times its limit: capped at 10.
    CHECK(e.priority(pending(0, 60), site_context{20 * 3600}) == 10000);
}

TEST_CASE("site policy: partition, QOS, nice and requested resources, with caps and signed weights") {
    site_job j = pending(0, 30);
    j.partition_priority = 40;
    j.qos_priority = 500;
    j.nice = 100;
    j.cpus = 16;
    j.nodes = 2;
    j.mem_mb = 64000;
    j.gpus = 4;
    const auto e = site_policy("partition = 2\nqos = 1\nqos.cap = 300\nnice = 1\ncpus = -1.5\nnodes = 10\n"
                          "mem = 0.001\ngpus = 25\n");
    // 80 + 300 (capped from 500) - 100 - 24 + 20 + 64 + 100 = 440.
    CHECK(e.priority(j, site_context{0}) == 440);
}

TEST_CASE("site policy: the result is rounded and kept within the offset site factor's range") {
    CHECK(site_result::finish(2.5) == 3);
    CHECK(site_result::finish(-2.5) == -3);
    CHECK(site_result::finish(-2.4) == -2);
    CHECK(site_result::finish(1e12) == 2147483647);
    CHECK(site_result::finish(-1e12) == -2147483648LL);
    CHECK(site_result::finish(std::nan("")) == 0);
}

TEST_CASE("site policy: errors name the file, line, column and what is wrong") {
    const auto unknown = load_site_policy("queuetime = 1\nfairshare = 5\n", "site.policy");
    REQUIRE(!unknown);
    CHECK(unknown.error().line == 2);
    CHECK(unknown.error().column == 1);
    const auto cap = load_site_policy("qos = 1\nqos.cap = -3\n", "site.policy");
    REQUIRE(!cap);
    CHECK(cap.error().line == 2);
    CHECK(cap.error().column == 11);
    CHECK(cap.error().message.find("greater than 0") != std::string::npos);
    const auto form = load_site_policy("xfactor = 1\nxfactor.form = doc\n", "site.policy");
    REQUIRE(!form);
    CHECK(form.error().message == "expected maui or wait, got 'doc'");
    const auto limit = load_site_policy("xfactor = 1\nxfactor.min_limit = soon\n", "site.policy");
    REQUIRE(!limit);
    CHECK(limit.error().line == 2);
}

// gpu_fair_use: every expected value worked out by hand from its formula,
// 1 - (used + requested) / budget within [0, 1], in a comment beside it.
namespace {
constexpr std::int64_t gpu_now = 1'800'000'000;
site_job gpu_pending(std::uint64_t gpus, std::uint32_t limit_minutes, std::uint64_t used_minutes) {
    site_job j = pending(gpu_now - 3600, limit_minutes);
    j.gpus = gpus;
    j.owner_gpu_minutes = used_minutes;
    return j;
}
} // namespace

TEST_CASE("gpu_fair_use: the share of the budget a job would leave, weighted") {
    const auto e = site_policy("gpu_fair_use = 5000\n");
    // 2 GPUs x 120 min = 4 GPU-hours requested, 6000 min = 100 GPU-hours used:
    // 1 - 104 / 1000 = 0.896; x 5000 = 4480.
    CHECK(e.priority(gpu_pending(2, 120, 6000), site_context{gpu_now}) == 4480);
    // No GPUs: 1; x 5000.
    CHECK(e.priority(gpu_pending(0, 120, 6000), site_context{gpu_now}) == 5000);
    // No time limit: a day. 1 GPU x 24 h, nothing used: 1 - 24 / 1000 = 0.976; x 5000 = 4880.
    CHECK(e.priority(gpu_pending(1, mfprio::no_val32, 0), site_context{gpu_now}) == 4880);
    CHECK(e.priority(gpu_pending(1, mfprio::infinite32, 0), site_context{gpu_now}) == 4880);
    // 59 minutes used are 59/60 GPU-hours: 1 GPU x 60 min = 1 h; 1 - (59/60 + 1) / 1000
    // = 0.99801666...; x 5000 = 4990.083 -> 4990.
    CHECK(e.priority(gpu_pending(1, 60, 59), site_context{gpu_now}) == 4990);
    // The budget spent (60000 min = 1000 h): nothing left, 0.
    CHECK(e.priority(gpu_pending(1, 60, 60000), site_context{gpu_now}) == 0);
}

TEST_CASE("gpu_fair_use: its options") {
    // budget 10: 1 GPU x 60 min = 1 h, 120 min = 2 h used: 1 - 3 / 10 = 0.7; x 1000 = 700.
    CHECK(site_policy("gpu_fair_use = 1000\ngpu_fair_use.budget = 10\n").priority(gpu_pending(1, 60, 120), site_context{gpu_now}) == 700);
    // default_limit 10:00:00: 2 GPUs x 10 h = 20 h of 100: 1 - 20 / 100 = 0.8; x 1000 = 800.
    CHECK(site_policy("gpu_fair_use = 1000\ngpu_fair_use.budget = 100\ngpu_fair_use.default_limit = 10:00:00\n")
              .priority(gpu_pending(2, mfprio::no_val32, 0), site_context{gpu_now}) == 800);
    // budget 0 leaves nothing for a GPU job; a job without GPUs keeps 1.
    const auto none = site_policy("gpu_fair_use = 1000\ngpu_fair_use.budget = 0\n");
    CHECK(none.priority(gpu_pending(1, 60, 0), site_context{gpu_now}) == 0);
    CHECK(none.priority(gpu_pending(0, 60, 0), site_context{gpu_now}) == 1000);
}

TEST_CASE("gpu_fair_use beside the built-in site factors") {
    // xfactor preset: wait 3600 s over max(600, 7200 s) = 0.5, rounded to 1 (half away from
    // zero), x 1000 = 1000; gpu_fair_use 1 - (100 + 4) / 1000 = 0.896, x 5000 = 4480. Sum 5480.
    const auto e = site_policy("preset = xfactor\ngpu_fair_use = 5000\n");
    CHECK(e.priority(gpu_pending(2, 120, 6000), site_context{gpu_now}) == 5480);
}

TEST_CASE("gpu_fair_use: bad options name the file, line and column") {
    const auto bad = [](const char* text) {
        auto e = load_site_policy(text, "site.policy");
        REQUIRE_FALSE(e.has_value());
        return e.error().to_string();
    };
    CHECK(bad("gpu_fair_use = 1\ngpu_fair_use.budget = -5\n").starts_with("site.policy:2:"));
    CHECK(bad("gpu_fair_use = 1\ngpu_fair_use.budget = -5\n").find("budget") != std::string::npos);
    CHECK(bad("gpu_fair_use = 1\ngpu_fair_use.default_limit = often\n").starts_with("site.policy:2:"));
    CHECK(bad("gpu_fair_use = 1\ngpu_fair_use.default_limit = 0\n").find("above 0") != std::string::npos);
    CHECK(bad("gpu_fair_use = 1\ngpu_fair_use.owner = 3\n").starts_with("site.policy:2:"));
}

TEST_CASE("site_policy_reads: what the plugin fills for a policy") {
    const auto reads = [](const char* text) {
        auto e = load_site_policy(text, "site.policy");
        REQUIRE(e.has_value());
        const auto names = e->names();
        return site_policy_reads(names);
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
