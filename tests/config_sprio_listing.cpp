// Tests for mfprio/read/sprio_listing.hpp: sprio's own output read back. The rows are what
// Slurm 22.05.8's sprio printed on the test cluster (tests/data/live/busy_fair_tree/
// expected/sprio_l.txt; the '|' form from `sprio -o "%i|%r|%Y|%S|%A|%B|%F|%J|%P|%Q|%N|%T"` on
// the same cluster, tests/live/run.sh).
#include <doctest/doctest.h>

#include <mfprio/read/sprio_listing.hpp>

#include <string>

using namespace mfprio::config;

namespace {

// sprio -l (22.05): job 8's priority set by hand (77777, one partition), job 17's (55555, big
// and gpu: SITE cut at its 10 characters, NICE whole), job 12 with a TRES cut at 20.
const std::string long_listing =
    "          JOBID PARTITION     USER   PRIORITY       SITE        AGE      ASSOC  FAIRSHARE    JOBSIZE  PARTITION        QOS        NICE                 TRES\n"
    "              7 big       mfprio-a      40387          0          4        200      35714        391       4000          0           0        cpu=62,mem=16\n"
    "              8 big       mfprio-b      77777          0          0          0          0          0          0          0           0                     \n"
    "             12 gpu       mfprio-a      34589          0          4          0      28571        664       2500        600           0 cpu=500,mem=1000,gre\n"
    "             17 big       mfprio-a       4000 -214748364          0          0          0          0       4000          0 -2147483648                     \n"
    "             17 gpu       mfprio-a       2500 -214748364          0          0          0          0       2500          0 -2147483648                     \n";

const std::string whole_listing =
    "JOBID|PARTITION|PRIORITY|SITE|AGE|ASSOC|FAIRSHARE|JOBSIZE|PARTITION|QOS|NICE|TRES\r\n"
    "7|big|4669|0|0|200|0|391|4000|0|0|cpu=62,mem=16\r\n"
    "8|big|77777|0|0|0|0|0|0|0|0|\r\n"
    "17|big|4000|-2147483648|0|0|0|0|4000|0|-2147483648|\r\n"
    "17|gpu|2500|-2147483648|0|0|0|0|2500|0|-2147483648|\r\n";

} // namespace

TEST_CASE("sprio listing: sprio -l's spaced columns, widths from the header") {
    const auto l = parse_sprio_listing(long_listing, "sprio_l.txt");
    REQUIRE(l);
    CHECK_FALSE(l->whole_fields);
    REQUIRE(l->rows.size() == 5);
    const auto& r = l->rows[0];
    CHECK(r.job_id == 7);
    CHECK(r.partition == "big");
    CHECK(r.line == 2);
    CHECK(*r[sprio_column::priority] == "40387");
    CHECK(*r[sprio_column::fairshare] == "35714");
    CHECK(*r[sprio_column::partition] == "4000"); // the second PARTITION: the factor
    CHECK(*r[sprio_column::tres] == "cpu=62,mem=16");
    CHECK(*l->rows[1][sprio_column::tres] == ""); // blanks: no TRES
    // "%.10S", "%.11N", "%.20T": each right-justified column's width.
    CHECK(l->widths[static_cast<std::size_t>(sprio_column::site)] == 10);
    CHECK(l->widths[static_cast<std::size_t>(sprio_column::nice)] == 11);
    CHECK(l->widths[static_cast<std::size_t>(sprio_column::tres)] == 20);
    // Set by hand: job 8's row (77777, no factor), job 17's two rows (SITE and NICE cleared).
    CHECK(l->rows[1].shows_direct(77777, false));
    CHECK_FALSE(l->rows[1].shows_direct(77778, false));
    CHECK_FALSE(l->rows[0].shows_direct(40387, false));
    const auto seventeen = l->rows_of(17);
    REQUIRE(seventeen.size() == 2);
    CHECK(seventeen[0]->partition == "big");
    CHECK(seventeen[1]->partition == "gpu");
    CHECK(seventeen[0]->shows_direct(55555, true));
    CHECK_FALSE(l->rows[0].shows_direct(40387, true));
    CHECK(l->rows_of(9).empty());
}

TEST_CASE("sprio listing: the '|' form, each field whole, CRLF and all") {
    const auto l = parse_sprio_listing(whole_listing, "sprio_factors.txt");
    REQUIRE(l);
    CHECK(l->whole_fields);
    REQUIRE(l->rows.size() == 4);
    CHECK(*l->rows[2][sprio_column::site] == "-2147483648");
    CHECK(l->rows[1].shows_direct(77777, false));
    CHECK(l->rows[2].shows_direct(55555, true));
    CHECK(l->widths[static_cast<std::size_t>(sprio_column::site)] == 0);
}

TEST_CASE("sprio listing: what does not read names its line and column") {
    const auto error = [](const std::string& text) {
        const auto l = parse_sprio_listing(text, "s.txt");
        REQUIRE_FALSE(l);
        return l.error().to_string();
    };
    CHECK(error("") == "s.txt: empty: no sprio header line (JOBID PARTITION PRIORITY ...)");
    CHECK(error("JOBID|PARTITION|AGE\n7|big|4\n") ==
          "s.txt:1:1: not a sprio header: JOBID and PRIORITY columns are required (sprio without -h)");
    CHECK(error("JOBID|PARTITION|PRIORITY\n7|big|4|5\n") == "s.txt:2:9: a row of 4 fields under a header of 3");
    CHECK(error("JOBID|PARTITION|PRIORITY\n7|big\n") == "s.txt:2:6: a row of 2 fields under a header of 3");
    CHECK(error("JOBID|PARTITION|PRIORITY\n7x|big|1\n") == "s.txt:2:1: JOBID: '7x' is not a job id");
    CHECK(error("JOBID|PARTITION|PRIORITY|AGE\n7|big|1|4.5\n") ==
          "s.txt:2:9: AGE: '4.5' is not an integer (sprio prints weighted factors as integers)");
    // A header alone: no rows (sprio with no pending job).
    const auto none = parse_sprio_listing("JOBID|PARTITION|PRIORITY\n", "s.txt");
    REQUIRE(none);
    CHECK(none->rows.empty());
}
