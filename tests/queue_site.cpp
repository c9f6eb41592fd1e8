// The site policy of site_factor/mfprio (mfprio/queue/site.hpp): each factor and the result
// worked out by hand from the formulas of the header's table; the preset as documented.

#include <doctest/doctest.h>

#include <string>

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
