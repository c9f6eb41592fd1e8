// Tests for mfprio/report/sprio_verify.hpp: mfprio's sprio rows against sprio's own. The
// listings are what Slurm 22.05.8's sprio printed (tests/data/live/busy_fair_tree/expected/
// sprio_l.txt); the rows are built by hand with the factors those lines show.
#include <doctest/doctest.h>

#include <mfprio/report/sprio_verify.hpp>

#include <string>
#include <vector>

using namespace mfprio;

namespace {

const std::string listing_text =
    "          JOBID PARTITION     USER   PRIORITY       SITE        AGE      ASSOC  FAIRSHARE    JOBSIZE  PARTITION        QOS        NICE                 TRES\n"
    "              7 big       mfprio-a      40387          0          4        200      35714        391       4000          0           0        cpu=62,mem=16\n"
    "             12 gpu       mfprio-a      34589          0          4          0      28571        664       2500        600           0 cpu=500,mem=1000,gre\n";

/// Job 7's row as sprio -l shows it: AGE 4, ASSOC 200, FAIRSHARE 35714, JOBSIZE 391,
/// PARTITION 4000, TRES cpu=62,mem=16 (the sum's fractions chosen to give 40387).
report::sprio_row job7() {
    report::sprio_row r;
    r.job_id = 7;
    r.partition = "big";
    r.factors.age = 4.0;
    r.factors.assoc = 200.0;
    r.factors.fairshare = 35714.3;
    r.factors.job_size = 390.7;
    r.factors.part = 4000.0;
    r.tres = {{"cpu", 62.5, 1000.0}, {"mem", 15.6, 2000.0}};
    return r;
}

report::sprio_row job12() {
    report::sprio_row r;
    r.job_id = 12;
    r.partition = "gpu";
    r.factors.age = 4.0;
    r.factors.fairshare = 28571.4;
    r.factors.job_size = 664.1;
    r.factors.part = 2500.0;
    r.factors.qos_term = 600.0;
    r.tres = {{"cpu", 500.0, 1000.0}, {"mem", 1000.0, 2000.0}, {"gres/gpu", 750.0, 3000.0}};
    return r;
}

} // namespace

TEST_CASE("sprio verify: rows equal to sprio's own, a TRES cut at its column compared as far as printed") {
    const auto l = config::parse_sprio_listing(listing_text, "sprio_l.txt");
    REQUIRE(l);
    const std::vector<report::sprio_row> rows{job7(), job12()};
    CHECK(static_cast<long long>(rows[0].priority()) == 40387);
    CHECK(static_cast<long long>(rows[1].priority()) == 34589);
    const auto d = report::compare_sprio(rows, {}, *l);
    CHECK(d.empty());
}

TEST_CASE("sprio verify: a factor that differs, a row only one side lists") {
    const auto l = config::parse_sprio_listing(listing_text, "sprio_l.txt");
    REQUIRE(l);
    auto seven = job7();
    seven.factors.job_size = 392.4; // 392 where sprio printed 391
    auto twelve = job12();
    twelve.tres[2].weighted = 1500.0; // gres/gpu=1500: past the 20 characters, and differs there
    twelve.tres[0].weighted = 250.0;  // cpu=250: differs within them
    report::sprio_row nine = job7();
    nine.job_id = 9;
    const std::vector<report::sprio_row> rows{seven, nine, twelve};
    const auto d = report::compare_sprio(rows, {}, *l);
    REQUIRE(d.size() == 3);
    CHECK(d[0].to_string() == "job 7 (big): PRIORITY: sprio 40387, mfprio 40388; JOBSIZE: sprio 391, mfprio 392");
    CHECK(d[0].line == 2);
    CHECK(d[1].to_string() == "job 9 (big): listed by mfprio, not by sprio");
    CHECK(d[2].to_string() ==
          "job 12 (gpu): PRIORITY: sprio 34589, mfprio 35089; TRES: sprio cpu=500,mem=1000,gre, mfprio "
          "cpu=250,mem=1000,gres/gpu=1500");
    // sprio lists a job mfprio does not.
    const auto only = report::compare_sprio(std::vector<report::sprio_row>{job12()}, {}, *l);
    REQUIRE(only.size() == 1);
    CHECK(only[0].to_string() == "job 7 (big): listed by sprio, not by mfprio");
}
