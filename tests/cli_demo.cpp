// `mfprio demo` and `mfprio lint`.
//
// Demo goldens (tests/data/demo/*.txt) were derived outside mfprio from the seeds' numbers
// and reference 1.1's formulas:
//  seed 000: weights age 1000, fair-share 10000, job size 1000, partition 1000, max age 14
//    days; 10 nodes, 320 CPUs; e.g. job 101: age 7/14 -> 500, fair-share 0.408479 (seed 000,
//    user 1) -> 4084.79 -> 4085, job size (1/10 + 32/320)/2 = 0.1 -> 100, partition 1/2 ->
//    500; PRIORITY trunc(5184.79) = 5184.
//  seed 001 (Limoges): fair-share 70000, partition 30000 only (seed 001); e.g. job 2001:
//    0.8125 x 70000 = 56875, 300/1000 x 30000 = 9000, 65875.
//  seed 004 (MSU): age 60000 after 30 days, 100 per CPU, 20 per GB, +3000 buy-in; e.g. job
//    30001 (1 CPU, 1 GB, 1 day): age 2000, TRES 100 + 20, fair-share 0.995450 -> 59727 (the
//    seed's "general 59727"), 61847.

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "commands.hpp"
#include "demo.hpp"

namespace {
std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}
std::string data(const std::string& name) { return std::string(MFPRIO_TEST_DATA) + "/" + name; }
} // namespace

TEST_CASE("cli: demo clusters' sprio -l match the hand-derived tables") {
    for (const auto& d : mfprio::cli::demo_clusters) {
        CAPTURE(d.name);
        const auto o = mfprio::cli::run_demo_sprio(d, {"-l"});
        CHECK(o.status == 0);
        CHECK(o.err == "");
        CHECK(o.out == slurp(data("demo/demo_" + std::string(d.name) + "_long.txt")));
    }
}

TEST_CASE("cli: demo prints every cluster and an explanation for each") {
    const auto o = mfprio::cli::run_demo({});
    CHECK(o.status == 0);
    CHECK(o.err == "");
    for (const auto& d : mfprio::cli::demo_clusters) {
        CHECK(o.out.find(std::string(d.title)) != std::string::npos);
        CHECK(o.out.find("$ mfprio sprio --explain " + std::string(d.explain_job)) != std::string::npos);
        CHECK(o.out.find("Job " + std::string(d.explain_job) + " in partition") != std::string::npos);
    }
    // MSU (seed 004): 20 per GB is 20/1024 per MB of memory; 64 GB -> 1280.
    CHECK(o.out.find("tres mem            65536 x  0.0195312 =      1280.00") != std::string::npos);
    const std::vector<std::string_view> extra{"x"};
    CHECK(mfprio::cli::run_demo(extra).status == 2);
}

TEST_CASE("cli: demo's Maui cluster gives seed 002's numbers") {
    // At 2026-11-21T12:00:00Z; QUEUETIMEWEIGHT 1 (default), XFACTORWEIGHT 100, CRED 1/1/1.
    // Job 1: john in staff, 1-hour job queued 1 hour: 60 + 100 x 2.00 (seed 002's XFactor
    // table) + 2000 + 10000 = 12260. Job 2: paul in staff, 4-hour job queued 1 hour: 60 + 100 x
    // 1.25 - 1000 + 10000 = 9185. Job 3: 1-hour job queued 16 hours: 960 + 100 x 17.0 = 2660.
    // Job 4: QOS special, QTWEIGHT=5000: 120 x 5001 + 100 x 1.50 = 600270. Job 5: paul
    // without a group, queued 10 minutes: 10 + 100 x 4200/3600 - 1000 = -873.3, which
    // diagnose -p prints as it is (MJobGetStartPriority prints the line before the floor at 1).
    const auto o = mfprio::cli::run_demo({});
    CHECK(o.out.find("\n4                        600270 ") != std::string::npos);
    CHECK(o.out.find("\n1                         12260 ") != std::string::npos);
    CHECK(o.out.find("\n2                          9185 ") != std::string::npos);
    CHECK(o.out.find("\n3                          2660 ") != std::string::npos);
    CHECK(o.out.find("\n5                          -873 ") != std::string::npos);
    CHECK(o.out.find("QUEUETIME: 120 x weight 5001 = 600120\n") != std::string::npos);
}

TEST_CASE("cli: lint reports the weight-sum overflow") {
    const std::string conf = data("lint/overflow.conf");
    const std::vector<std::string_view> args{"--conf", conf};
    const auto o = mfprio::cli::run_lint(args);
    CHECK(o.status == 1);
    // 4294967295 + 10 = 4294967305 > 4294967295
    CHECK(o.out.find("PriorityWeight values too high: the six weights add up to 4294967305") != std::string::npos);
    // Seed 000: with a weight of 10, .59534 and .50002 both give 5.
    CHECK(o.out.find("PriorityWeightFairshare=10: resolves factor differences of 0.1 and more; factors .59534 and "
                     ".50002 give 5 and 5 (indistinguishable") != std::string::npos);
}

TEST_CASE("cli: lint passes a sound configuration and checks slurmdbd") {
    const std::string fine = data("lint/fine.conf");
    const std::vector<std::string_view> a1{"--conf", fine};
    const auto ok = mfprio::cli::run_lint(a1);
    CHECK(ok.status == 0);
    // weight 10000: .59534 -> 5953, .50002 -> 5000
    CHECK(ok.out.find("PriorityWeightFairshare=10000: resolves factor differences of 0.0001 and more; factors .59534 "
                      "and .50002 give 5953 and 5000\n") != std::string::npos);
    const std::string nodbd = data("lint/nodbd.conf");
    const std::vector<std::string_view> a2{"--conf", nodbd};
    const auto warn = mfprio::cli::run_lint(a2);
    CHECK(warn.status == 1);
    CHECK(warn.out.find("forces PriorityWeightAge and PriorityWeightFairshare to 0") != std::string::npos);
}

TEST_CASE("cli: lint compares the fair-share weight with the user associations under Fair Tree") {
    const std::string conf = data("lint/overflow.conf"), assoc = data("lint/assoc3.txt");
    const std::vector<std::string_view> args{"--conf", conf, "--assoc", assoc};
    const auto o = mfprio::cli::run_lint(args);
    // 3 user associations, weight 10 >= 3
    CHECK(o.out.find("ok: Fair Tree ranks 3 user associations, so the fair-share factor moves in steps of 1/3") !=
          std::string::npos);
    const std::string fine = data("lint/fine.conf");
    const std::vector<std::string_view> bad{"--conf"};
    CHECK(mfprio::cli::run_lint(bad).status == 2);
    const std::string missing = data("lint/none.conf");
    const std::vector<std::string_view> gone{"--conf", missing};
    const auto g = mfprio::cli::run_lint(gone);
    CHECK(g.status == 65);
    CHECK(g.err.find("none.conf") != std::string::npos);
}
