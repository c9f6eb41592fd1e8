// Tests for mfprio/read/qos_table.hpp (`sacctmgr show qos format=Name,Priority,UsageFactor -P`;
// defaults Priority 0 and UsageFactor 1.0 per reference 1.4).
#include <doctest/doctest.h>

#include <mfprio/read/qos_table.hpp>

#include <cstdio>
#include <string>

using namespace mfprio::config;

TEST_CASE("config: qos table in any column order with defaults") {
    const auto q = parse_qos_table("Priority|Name|GrpTRES|UsageFactor\n"
                                   "0|normal||1.000000\n"
                                   "1000|high|cpu=64|2.5\n"
                                   "|scavenger||0\n"
                                   " 50 | low || \n",
                                   "qos.txt");
    REQUIRE(q);
    REQUIRE(q->qos.size() == 4);
    CHECK(q->qos[0].name == "normal");
    CHECK(q->qos[0].priority == 0);
    CHECK(q->qos[0].usage_factor == 1.0);
    CHECK(q->qos[1].name == "high");
    CHECK(q->qos[1].priority == 1000);
    CHECK(q->qos[1].usage_factor == 2.5);
    CHECK(q->qos[2].priority == 0);        // blank -> 0
    CHECK(q->qos[2].usage_factor == 0.0);
    CHECK(q->qos[3].name == "low");
    CHECK(q->qos[3].priority == 50);
    CHECK(q->qos[3].usage_factor == 1.0);  // blank -> 1.0
    CHECK(q->find("high") == 1);
    CHECK(q->find("HIGH") == 1);           // QOS names are case-insensitive in Slurm
    CHECK_FALSE(q->find("nope"));
    CHECK(q->max_priority() == 1000);
}

TEST_CASE("config: qos table with only a Name column") {
    const auto q = parse_qos_table("name\nnormal\n");
    REQUIRE(q);
    REQUIRE(q->qos.size() == 1);
    CHECK(q->qos[0].priority == 0);
    CHECK(q->qos[0].usage_factor == 1.0);
    CHECK(parse_qos_table("Name|Priority\n")->max_priority() == 0);
}

TEST_CASE("config: qos table errors") {
    const auto no_name = parse_qos_table("Priority|UsageFactor\n1|1\n", "q.txt");
    REQUIRE_FALSE(no_name);
    CHECK(no_name.error().file == "q.txt");
    CHECK(no_name.error().line == 1);
    CHECK(no_name.error().key == "Name");
    CHECK(no_name.error().message.find("no Name column") != std::string::npos);

    const auto dup = parse_qos_table("Name|Priority\nnormal|1\nNormal|2\n", "q.txt");
    REQUIRE_FALSE(dup);
    CHECK(dup.error().line == 3);
    CHECK(dup.error().key == "Name");
    CHECK(dup.error().message.find("listed twice") != std::string::npos);

    const auto empty = parse_qos_table("Name|Priority\n |1\n", "q.txt");
    REQUIRE_FALSE(empty);
    CHECK(empty.error().line == 2);
    CHECK(empty.error().message.find("empty QOS name") != std::string::npos);

    for (const char* bad : {"-1", "abc", "1.5", "4294967296"}) {
        CAPTURE(bad);
        const auto p = parse_qos_table(std::string("Name|Priority\nnormal|0\nhigh|") + bad + "\n",
                                       "q.txt");
        REQUIRE_FALSE(p);
        CHECK(p.error().file == "q.txt");
        CHECK(p.error().line == 3);
        CHECK(p.error().column == 6);
        CHECK(p.error().key == "Priority");
        CHECK(p.error().message.find("QOS 'high': priority") != std::string::npos);
    }
    for (const char* bad : {"-1", "x", "inf", "nan"}) {
        CAPTURE(bad);
        const auto u = parse_qos_table(std::string("Name|UsageFactor\nhigh|") + bad + "\n", "q.txt");
        REQUIRE_FALSE(u);
        CHECK(u.error().line == 2);
        CHECK(u.error().key == "UsageFactor");
        CHECK(u.error().message.find("usage factor") != std::string::npos);
    }
    const auto cells = parse_qos_table("Name|Priority\nnormal\n", "q.txt");
    REQUIRE_FALSE(cells);
    CHECK(cells.error().line == 2);
}

TEST_CASE("config: qos table read from a file") {
    const std::string path = "mfprio_test_qos.txt";
    std::FILE* f = std::fopen(path.c_str(), "wb");
    REQUIRE(f != nullptr);
    std::fputs("Name|Priority|UsageFactor\nnormal|10|1.0\n", f);
    std::fclose(f);
    const auto q = read_qos_table(path);
    std::remove(path.c_str());
    REQUIRE(q);
    CHECK(q->qos[0].priority == 10);
    const auto missing = read_qos_table("no_such_qos.txt");
    REQUIRE_FALSE(missing);
    CHECK(missing.error().file == "no_such_qos.txt");
    CHECK(missing.error().message == "cannot open file");
}

TEST_CASE("config: QOS table of more QOS than a job's 16-bit index holds") {
    std::string text = "Name|Priority\n";
    for (int i = 0; i < 65536; ++i) text += "q" + std::to_string(i) + "|1\n";
    REQUIRE(parse_qos_table(text, "qos.txt"));
    const auto e = parse_qos_table(text + "one_more|1\n", "qos.txt");
    REQUIRE_FALSE(e);
    CHECK(e.error().file == "qos.txt");
    CHECK(e.error().line == 65538);
    CHECK(e.error().message.starts_with("more than 65536 QOS"));
}
