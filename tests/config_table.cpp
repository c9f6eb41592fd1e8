// Tests for mfprio/text/table.hpp (pipe-separated tables such as `sshare -P`,
// `sshare -p` with a trailing '|', `sacctmgr -P`).
#include <doctest/doctest.h>

#include <mfprio/text/table.hpp>

#include <cstdio>
#include <string>

using namespace mfprio::text;

TEST_CASE("config: table header, rows, case-insensitive columns, verbatim cells") {
    const auto t = parse_table("# comment\n"
                               "\n"
                               "Account|User|RawShares\r\n"
                               "root||\n"
                               " a|alice|10\n"
                               "   # indented comment\n"
                               "  \n"
                               "  a|bob| 5 \n",
                               "sshare.txt");
    REQUIRE(t);
    CHECK(t->file == "sshare.txt");
    CHECK(t->header_line == 3);
    CHECK_FALSE(t->trailing_pipe);
    REQUIRE(t->rows.size() == 3);
    CHECK(t->column("rawshares") == 2);
    CHECK(t->column("ACCOUNT") == 0);
    CHECK_FALSE(t->column("Partition"));
    CHECK(t->rows[0].line == 4);
    CHECK(t->rows[1].cells[0] == " a");   // leading spaces kept (sshare depth)
    CHECK(t->rows[2].cells[0] == "  a");
    CHECK(t->rows[2].cells[2] == " 5 "); // callers trim
    CHECK(t->rows[2].line == 8);
    CHECK(t->rows[1].columns == std::vector<std::size_t>{1, 4, 10});
    CHECK(t->cell(1, 1) == "alice");
    CHECK(t->cell(1, "user") == "alice");
    CHECK_FALSE(t->cell(1, "nope"));
}

TEST_CASE("config: table trailing pipe (sshare -p) is handled consistently") {
    const auto t = parse_table("Account|User|\nroot||\n a|u1|\n");
    REQUIRE(t);
    CHECK(t->trailing_pipe);
    REQUIRE(t->header.size() == 2);
    REQUIRE(t->rows.size() == 2);
    CHECK(t->rows[1].cells.size() == 2);
    CHECK(t->rows[1].cells[1] == "u1");

    const auto missing = parse_table("A|B|\nx|y\n", "p.txt");
    REQUIRE_FALSE(missing);
    CHECK(missing.error().file == "p.txt");
    CHECK(missing.error().line == 2);
    CHECK(missing.error().message.find("does not end with '|'") != std::string::npos);
}

TEST_CASE("config: table errors") {
    const auto empty = parse_table("\n# only comments\n", "e.txt");
    REQUIRE_FALSE(empty);
    CHECK(empty.error().file == "e.txt");
    CHECK(empty.error().line == 0);
    CHECK(empty.error().message.find("no header row") != std::string::npos);

    const auto cells = parse_table("A|B\n1|2\n1|2|3\n", "c.txt");
    REQUIRE_FALSE(cells);
    CHECK(cells.error().file == "c.txt");
    CHECK(cells.error().line == 3);
    CHECK(cells.error().message.find("3 cells but the header has 2") != std::string::npos);

    const auto few = parse_table("A|B\n1\n");
    REQUIRE_FALSE(few);
    CHECK(few.error().line == 2);

    const auto dup = parse_table("Name|name\n", "d.txt");
    REQUIRE_FALSE(dup);
    CHECK(dup.error().line == 1);
    CHECK(dup.error().column == 6);
    CHECK(dup.error().message.find("appears twice") != std::string::npos);

    const auto blank = parse_table("A||B\n", "b.txt");
    REQUIRE_FALSE(blank);
    CHECK(blank.error().line == 1);
    CHECK(blank.error().column == 3);
    CHECK(blank.error().message.find("empty column name") != std::string::npos);
}

TEST_CASE("config: table read_table reads a file or says it cannot") {
    const std::string path = "mfprio_test_table.txt";
    std::FILE* f = std::fopen(path.c_str(), "wb");
    REQUIRE(f != nullptr);
    std::fputs("Name|Priority\nnormal|0\n", f);
    std::fclose(f);
    const auto t = read_table(path);
    std::remove(path.c_str());
    REQUIRE(t);
    CHECK(t->file == path);
    CHECK(t->rows.size() == 1);

    const auto missing = read_table("no_such_table.txt");
    REQUIRE_FALSE(missing);
    CHECK(missing.error().file == "no_such_table.txt");
    CHECK(missing.error().message == "cannot open file");
}
