// Tests for mfprio/read/assoc_table.hpp: `sshare -a -P -l` output (reference 4.1: Account
// indented one space per depth, user rows one level below their account; RawShares
// `parent` = SLURMDB_FS_USE_PARENT 0x7FFFFFFF, blank for root; LevelFS `inf`) and the
// association priority inherited from the nearest ancestor (reference 0).
#include <doctest/doctest.h>

#include <mfprio/read/assoc_table.hpp>

#include <cmath>
#include <cstdio>
#include <string>

using namespace mfprio::config;

namespace {

const char* sshare_sample =
    "Account|User|RawShares|NormShares|RawUsage|NormUsage|EffectvUsage|FairShare|LevelFS|GrpTRESMins|TRESRunMins\n"
    "root|||0.000000|1000|1.000000|1.000000|||cpu=0|cpu=0\n"
    " root|root|1|0.333333|0|0.000000|0.000000|1.000000|inf||cpu=0\n"
    " physics||2|0.666667|800|0.800000|0.800000||0.833333||cpu=0\n"
    "  physics|alice|1|0.500000|600|0.600000|0.750000|0.500000|0.666667||cpu=0\n"
    "  physics|bob|parent|0.500000|200.5|0.200000|0.250000|0.750000|||cpu=0\n"
    "  theory||parent||0|0.000000|0.000000||||cpu=0\n"
    "   theory|carol|1|1.000000|0|0.000000|0.000000|1.000000|inf||cpu=0\n"
    " chem||1|0.333333|200|0.200000|0.200000||1.666667||cpu=0\n"
    "  chem|dave|3|1.000000|200|0.200000|1.000000|0.250000|1.000000||cpu=0\n";

mfprio::input_error assoc_error(const std::string& text, std::size_t line, const std::string& what,
                                const std::string& key) {
    const auto a = parse_assoc_table(text, "sshare.txt");
    REQUIRE_FALSE(a);
    CAPTURE(a.error().to_string());
    CHECK(a.error().file == "sshare.txt");
    CHECK(a.error().line == line);
    CHECK(a.error().key == key);
    CHECK(a.error().message.find(what) != std::string::npos);
    return a.error();
}

} // namespace

TEST_CASE("config: assoc table from sshare -a -P -l: depth, parent, shares, values") {
    const auto a = parse_assoc_table(sshare_sample, "sshare.txt");
    REQUIRE(a);
    const auto& r = a->rows;
    REQUIRE(r.size() == 9);
    CHECK_FALSE(a->root_synthesized);
    CHECK(a->has_column("levelfs"));
    CHECK_FALSE(a->has_column("Partition"));

    CHECK(r[0].account == "root");
    CHECK(r[0].user.empty());
    CHECK(r[0].depth == 0);
    CHECK(r[0].parent == -1);
    CHECK(r[0].raw_shares == mfprio::no_val32); // blank for root
    CHECK(r[0].raw_usage == 1000.0);
    CHECK_FALSE(r[0].fairshare);
    CHECK(r[0].line == 2);

    CHECK(r[1].account == "root");
    CHECK(r[1].user == "root");
    CHECK(r[1].depth == 1);
    CHECK(r[1].parent == 0);
    CHECK(r[1].raw_shares == 1);
    REQUIRE(r[1].level_fs);
    CHECK(std::isinf(*r[1].level_fs));

    CHECK(r[2].account == "physics");
    CHECK_FALSE(r[2].is_user());
    CHECK(r[2].depth == 1);
    CHECK(r[2].parent == 0);
    CHECK(r[2].raw_shares == 2);
    CHECK(r[2].norm_shares == 0.666667);

    CHECK(r[3].user == "alice");
    CHECK(r[3].depth == 2);
    CHECK(r[3].parent == 2);
    CHECK(r[3].effective_usage == 0.75);
    CHECK(r[3].fairshare == 0.5);
    CHECK(r[3].level_fs == 0.666667);
    CHECK(r[3].norm_usage == 0.6);

    CHECK(r[4].user == "bob");
    CHECK(r[4].raw_shares == fs_use_parent);
    CHECK(r[4].raw_shares == 0x7FFFFFFFu);
    CHECK(r[4].raw_usage == 200.5);
    CHECK_FALSE(r[4].level_fs);

    CHECK(r[5].account == "theory");
    CHECK(r[5].depth == 2);
    CHECK(r[5].parent == 2);
    CHECK(r[5].raw_shares == fs_use_parent);
    CHECK(r[6].user == "carol");
    CHECK(r[6].depth == 3);
    CHECK(r[6].parent == 5);
    CHECK(r[7].account == "chem");
    CHECK(r[7].parent == 0);
    CHECK(r[8].user == "dave");
    CHECK(r[8].parent == 7);
    CHECK(r[8].line == 10);

    CHECK(a->find_user("physics", "bob") == 4);
    CHECK(a->find_user("chem", "dave") == 8);
    CHECK_FALSE(a->find_user("chem", "alice"));
    CHECK_FALSE(a->find_user("physics", ""));
    CHECK(a->find_account("theory") == 5);
    CHECK(a->find_account("root") == 0);
    CHECK_FALSE(a->find_account("alice"));
}

TEST_CASE("config: assoc table priority is inherited from the nearest ancestor") {
    const auto a = parse_assoc_table("Account|User|Priority\n"
                                     "root||\n"
                                     " a||10\n"
                                     "  a|u1|\n"
                                     "  a|u2|5\n"
                                     "  b||\n"
                                     "   b|u3|\n"
                                     "   c||0\n"
                                     "    c|u5|\n"
                                     " d||\n"
                                     "  d|u4|\n");
    REQUIRE(a);
    const auto& r = a->rows;
    REQUIRE(r.size() == 10);
    CHECK_FALSE(r[0].priority);
    CHECK(r[1].priority == 10u);
    CHECK(r[2].priority == 10u); // u1 inherits from a
    CHECK(r[3].priority == 5u);  // u2 has its own
    CHECK(r[4].priority == 10u); // b inherits from a
    CHECK(r[5].priority == 10u); // u3 from b, i.e. from a
    CHECK(r[6].priority == 0u);  // c sets 0 explicitly
    CHECK(r[7].priority == 0u);
    CHECK_FALSE(r[8].priority);  // d: no ancestor has one
    CHECK_FALSE(r[9].priority);
}

TEST_CASE("config: assoc table without a root row gets a synthesized root") {
    // Not indented: every depth shifts by one.
    const auto flat = parse_assoc_table("Account|User|RawShares\na||10\n a|u1|1\nb||5\n");
    REQUIRE(flat);
    CHECK(flat->root_synthesized);
    const auto& r = flat->rows;
    REQUIRE(r.size() == 4);
    CHECK(r[0].account == "root");
    CHECK(r[0].line == 0);
    CHECK(r[0].parent == -1);
    CHECK(r[0].raw_shares == mfprio::no_val32);
    CHECK(r[1].account == "a");
    CHECK(r[1].depth == 1);
    CHECK(r[1].parent == 0);
    CHECK(r[2].depth == 2);
    CHECK(r[2].parent == 1);
    CHECK(r[3].parent == 0);
    CHECK(flat->find_account("root") == 0);

    // sshare output whose root row was filtered away: depths as printed.
    const auto indented = parse_assoc_table("Account|User\n a|\n  a|u1\n");
    REQUIRE(indented);
    CHECK(indented->root_synthesized);
    CHECK(indented->rows[1].depth == 1);
    CHECK(indented->rows[2].depth == 2);
    CHECK(indented->rows[2].parent == 1);

    const auto header_only = parse_assoc_table("Account|User\n");
    REQUIRE(header_only);
    REQUIRE(header_only->rows.size() == 1);
    CHECK(header_only->rows[0].account == "root");
    CHECK(header_only->root_synthesized);
}

TEST_CASE("config: assoc table per-partition associations") {
    const auto a = parse_assoc_table("Account|User|Partition|RawShares\n"
                                     "root|||\n"
                                     " a|||1\n"
                                     "  a|u1||1\n"
                                     "  a|u1|gpu|2\n");
    REQUIRE(a);
    CHECK(a->has_column("partition"));
    CHECK(a->find_user("a", "u1") == 2);
    CHECK(a->find_user("a", "u1", "gpu") == 3);
    CHECK(a->rows[3].partition == "gpu");
    CHECK_FALSE(a->find_user("a", "u1", "cpu"));
}

TEST_CASE("config: assoc table rebuild_index after editing rows") {
    auto a = parse_assoc_table("Account|User\nroot|\n a|\n  a|u1\n");
    REQUIRE(a);
    a->rows[2].user = "u9";
    a->rebuild_index();
    CHECK(a->find_user("a", "u9") == 2);
    CHECK_FALSE(a->find_user("a", "u1"));
}

TEST_CASE("config: assoc table errors") {
    assoc_error("User|RawShares\nu|1\n", 1, "no Account column", "Account");
    assoc_error("Account|RawShares\na|1\n", 1, "no User column", "User");
    assoc_error("Account|User\nroot|\n   a|\n", 3, "more than one level below", "Account");
    assoc_error("Account|User\nroot|\n a|\n  b|u1\n", 4, "has no account row 'b'", "Account");
    // A user row must be indented one more than its account.
    assoc_error("Account|User\nroot|\n a|\n a|u1\n", 4, "indented one more", "Account");
    assoc_error("Account|User\nroot|\n a|\n  a|u1\n  a|u1\n", 5, "listed twice (first on line 4)",
                "Account");
    assoc_error("Account|User\nroot|\n a|\n b|\n a|\n", 5, "account 'a' is listed twice", "Account");
    assoc_error("Account|User|Partition\nroot||\n a||\n  a|u|p\n  a|u|p\n", 5, "'a/u/p' is listed twice",
                "Account");
    assoc_error("Account|User\nroot|\nother|\n", 3, "only the root account may be at depth 0",
                "Account");
    assoc_error("Account|User\nroot|\n |u1\n", 3, "empty account name", "Account");
    assoc_error("Account|User|Partition\nroot||\n a||gpu\n", 3, "only user associations may",
                "Partition");
    assoc_error("Account|User|RawShares\nroot||\n a||-1\n", 3, "negative share", "RawShares");
    assoc_error("Account|User|RawShares\nroot||\n a||1.5\n", 3, "not an integer, 'parent' or blank",
                "RawShares");
    assoc_error("Account|User|RawShares\nroot||\n a||4294967296\n", 3, "not an integer", "RawShares");
    assoc_error("Account|User|NormShares\nroot||\n a||x\n", 3, "not a number from 0 to 1",
                "NormShares");
    assoc_error("Account|User|RawUsage\nroot||-5\n", 2, "not a number from 0 to below 2^64", "RawUsage");
    assoc_error("Account|User|NormUsage\nroot||inf\n", 2, "not a number from 0 to 1", "NormUsage");
    assoc_error("Account|User|EffectvUsage\nroot||nan\n", 2, "not a number of at least 0",
                "EffectvUsage");
    assoc_error("Account|User|FairShare\nroot||1e\n", 2, "not a number from 0 to 1", "FairShare");
    const auto e = assoc_error("Account|User|LevelFS\nroot||\n a||-inf\n", 3,
                               "not a number of at least 0 or inf", "LevelFS");
    CHECK(e.column == 5);
    assoc_error("Account|User|Priority\nroot||\n a||-1\n", 3, "priority '-1'", "Priority");
    // Ranges of Slurm's values: set_assoc_usage_norm caps NormUsage at 1, shares and the
    // fair-share factor are fractions, sshare prints RawUsage as a uint64_t (print_fields_uint64).
    assoc_error("Account|User|FairShare\nroot||2.0\n", 2, "'2.0' is not a number from 0 to 1", "FairShare");
    assoc_error("Account|User|FairShare\nroot||1.8e19\n", 2, "from 0 to 1", "FairShare");
    assoc_error("Account|User|NormShares\nroot||1.000001\n", 2, "from 0 to 1", "NormShares");
    assoc_error("Account|User|NormUsage\nroot||3\n", 2, "from 0 to 1", "NormUsage");
    assoc_error("Account|User|RawUsage\nroot||1e308\n", 2, "'1e308' is not a number from 0 to below 2^64",
                "RawUsage");
    assoc_error("Account|User|RawUsage\nroot||18446744073709551616\n", 2, "below 2^64", "RawUsage");
    {
        const auto a = parse_assoc_table("Account|User|RawUsage|FairShare|NormUsage|EffectvUsage\n"
                                         "root||18446744073709549568|1|1|1e300\n");
        REQUIRE(a);
        CHECK(*a->rows[0].raw_usage == 18446744073709549568.0); // the largest double below 2^64
    }
    assoc_error("Account|User\nroot|\n a|x|y\n", 3, "row has 3 cells", "");
}

TEST_CASE("config: assoc table read from a file") {
    const std::string path = "mfprio_test_assoc.txt";
    std::FILE* f = std::fopen(path.c_str(), "wb");
    REQUIRE(f != nullptr);
    std::fputs(sshare_sample, f);
    std::fclose(f);
    const auto a = read_assoc_table(path);
    std::remove(path.c_str());
    REQUIRE(a);
    CHECK(a->rows.size() == 9);
    const auto missing = read_assoc_table("no_such_assoc.txt");
    REQUIRE_FALSE(missing);
    CHECK(missing.error().file == "no_such_assoc.txt");
    CHECK(missing.error().message == "cannot open file");
}
