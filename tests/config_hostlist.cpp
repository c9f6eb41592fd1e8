// Tests for mfprio/text/hostlist.hpp (Slurm hostlist expressions as in NodeName= and
// Nodes=; zero padding from the width of the range start).
#include <doctest/doctest.h>

#include <mfprio/text/hostlist.hpp>
#include <mfprio/text/table.hpp>

#include <string>
#include <vector>

using namespace mfprio::text;
using hosts = std::vector<std::string>;

TEST_CASE("config: hostlist plain names and ranges") {
    CHECK(*expand_hostlist("gpu01,gpu02") == hosts{"gpu01", "gpu02"});
    CHECK(*expand_hostlist("n[1-3]") == hosts{"n1", "n2", "n3"});
    CHECK(*expand_hostlist("n[8-10]") == hosts{"n8", "n9", "n10"});
    CHECK(*expand_hostlist("n[098-101]") == hosts{"n098", "n099", "n100", "n101"});
    CHECK(*expand_hostlist("n[001-003,200]") == hosts{"n001", "n002", "n003", "n200"});
    CHECK(*expand_hostlist("[1-2]") == hosts{"1", "2"});
    CHECK(*expand_hostlist("n[5]") == hosts{"n5"});
    CHECK(*expand_hostlist("a,,b, c") == hosts{"a", "b", "c"});
    CHECK(expand_hostlist("")->empty());
    const auto big = expand_hostlist("n[001-100,200]");
    REQUIRE(big);
    REQUIRE(big->size() == 101);
    CHECK(big->front() == "n001");
    CHECK((*big)[99] == "n100");
    CHECK(big->back() == "n200");
}

TEST_CASE("config: hostlist several bracket groups form a cartesian product") {
    CHECK(*expand_hostlist("a[1-2]b[3-4]") == hosts{"a1b3", "a1b4", "a2b3", "a2b4"});
    CHECK(*expand_hostlist("rack[1-2]-n[01-02],login") ==
          hosts{"rack1-n01", "rack1-n02", "rack2-n01", "rack2-n02", "login"});
    CHECK(*expand_hostlist("n[1-2]-ib") == hosts{"n1-ib", "n2-ib"});
}

TEST_CASE("config: hostlist errors name the column") {
    struct row {
        const char* text;
        const char* message;
        std::size_t column;
    };
    const row rows[] = {
        {"n[1-3", "unbalanced '['", 2},
        {"n1-3]", "unbalanced ']'", 5},
        {"a,n[1-[2]]", "nested '['", 4},
        {"n[]", "empty '[]'", 2},
        {"n[3-1]", "reversed range", 3},
        {"n[a-c]", "non-numeric range", 3},
        {"n[1-2,x]", "non-numeric range", 7},
        {"n[1,,2]", "empty range", 5},
        {"n[1-]", "non-numeric range", 3},
    };
    for (const auto& r : rows) {
        CAPTURE(r.text);
        const auto h = expand_hostlist(r.text);
        REQUIRE_FALSE(h);
        CHECK(h.error().message.find(r.message) != std::string::npos);
        CHECK(h.error().column == r.column);
    }
}

TEST_CASE("config: hostlist refuses absurd sizes") {
    const auto h = expand_hostlist("n[0-1000000]");
    REQUIRE_FALSE(h);
    CHECK(h.error().message.find("more than 1000000 hosts") != std::string::npos);
    const auto product = expand_hostlist("a[1-1000]b[1-1001]");
    REQUIRE_FALSE(product);
    CHECK(product.error().message.find("more than 1000000 hosts") != std::string::npos);
    const auto small = expand_hostlist("n[1-5]", 4);
    REQUIRE_FALSE(small);
    CHECK(small.error().message.find("more than 4 hosts") != std::string::npos);
    CHECK(expand_hostlist("n[1-4]", 4)->size() == 4);
    // Names without brackets count against the bound as well.
    CHECK(expand_hostlist("a,b,c,d", 4)->size() == 4);
    const auto plain = expand_hostlist("a,b,c,d,e", 4);
    REQUIRE_FALSE(plain);
    CHECK(plain.error().message == "hostlist expands to more than 4 hosts");
    CHECK(plain.error().column == 9);
    CHECK_FALSE(expand_hostlist("n[1-2],solo", 2));
    // Long names in several groups: within the host limit (644,204 hosts), past 64 MiB of
    // names (about 200 MB).
    const std::string long_name = "n[00-10]" + std::string(300, 'x') + "[00-10]y[00-10]z[00-10]v[00-10]w[1-4]";
    const auto big = expand_hostlist(long_name, 2'000'000);
    REQUIRE_FALSE(big);
    CHECK(big.error().message == "hostlist expands to more than 64 MiB of host names");
    CHECK(expand_hostlist("n[1-200000]")->size() == 200000);
}

TEST_CASE("config: error kinds say what code may act on, whatever the message says") {
    using mfprio::error_kind;
    // Past the host bound: a limit (slurm.conf's reader turns it into "more than N nodes").
    const auto big = expand_hostlist("n[1-100]", 10);
    REQUIRE_FALSE(big);
    CHECK(big.error().kind == error_kind::limit);
    const auto bad = expand_hostlist("n[3-1]");
    REQUIRE_FALSE(bad);
    CHECK(bad.error().kind == error_kind::syntax);
    // A row of three cells under a header of two: its shape.
    const auto t = mfprio::text::parse_table("A|B\n1|2|3\n", "t");
    REQUIRE_FALSE(t);
    CHECK(t.error().kind == error_kind::shape);
    // A missing file cannot be opened; a directory opens but is no text.
    const auto missing = mfprio::text::read_text_file("/nonexistent/mfprio/file");
    REQUIRE_FALSE(missing);
    CHECK(missing.error().kind == error_kind::cannot_open);
    const auto dir = mfprio::text::read_text_file("/");
    REQUIRE_FALSE(dir);
    CHECK(dir.error().kind == error_kind::io);
}
