// Tests for mfprio/model/fairshare_tree.hpp: an `sshare -a -P -l` table (reference 4.1:
// Account indented one space per depth, `parent` shares, blank root shares, RawUsage) to a
// fair-share tree (reference 0: lineage order, level shares, usage re-aggregated from users),
// the row <-> tree mapping, and errors naming file and line.
#include <doctest/doctest.h>

#include <mfprio/model/fairshare_tree.hpp>
#include <mfprio/fairshare/classic.hpp>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

using namespace mfprio::config;
using mfprio::fairshare::use_parent;

namespace {

std::string data(const std::string& name) { return std::string(MFPRIO_TEST_DATA) + "/" + name; }

std::string f6(double x) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%f", x);
    return buf;
}

// Seed 001's Limoges hierarchy as sshare -a -P -l would print it (lineage order: each
// account, then its users, then its sub-accounts, alphabetically; ASCII puts GEIST, IPAM,
// SHS, XLIM in that order). The computed columns are stale on purpose (root RawUsage 999,
// unilim 1, FairShare 0.999999): the tree re-aggregates usage and ignores FairShare.
const char* limoges =
    "Account|User|RawShares|NormShares|RawUsage|NormUsage|EffectvUsage|FairShare|LevelFS|GrpTRESMins|TRESRunMins\n"
    "root|||0.000000|999|1.000000|1.000000||||cpu=0\n"                       // line 2, row 0
    " root|root|1|0.000999|0|0.000000|0.000000|0.999999|inf||cpu=0\n"        // row 1
    " partenaires||100|0.099900|150000|0.150000|0.150000||0.666000||cpu=0\n" // row 2
    "  cistem||1|0.049950|100000|0.100000|0.100000||0.500000||cpu=0\n"       // row 3
    "   cistem|jdupont|1|0.049950|100000|0.100000|0.100000|0.999999|1.000000||cpu=0\n"
    "  ingenomix||1|0.049950|50000|0.050000|0.050000||1.000000||cpu=0\n"     // row 5
    "   ingenomix|pmartin|parent|0.049950|50000|0.050000|0.050000|0.999999|||cpu=0\n"
    " unilim||900|0.899101|1|0.850000|0.850000||1.057000||cpu=0\n"           // row 7
    "  GEIST||283|0.254700|200000|0.200000|0.200000||1.416000||cpu=0\n"      // row 8
    "   GEIST|alice|1|0.127350|200000|0.200000|0.200000|0.999999|0.500000||cpu=0\n"
    "   GEIST|bob|1|0.127350|0|0.000000|0.000000|0.999999|inf||cpu=0\n"    // row 10
    "  IPAM||283|0.254700|0|0.000000|0.000000||inf||cpu=0\n"                 // row 11
    "  SHS||150|0.135000|150000|0.150000|0.150000||1.000000||cpu=0\n"        // row 12
    "   SHS|carole|1|0.135000|150000|0.150000|0.150000|0.999999|1.000000||cpu=0\n"
    "  XLIM||283|0.254700|500000|0.500000|0.500000||0.566000||cpu=0\n"       // row 14
    "   XLIM|denis|2|0.169800|300000|0.300000|0.300000|0.999999|1.111000||cpu=0\n"
    "   XLIM|eve|1|0.084900|200000|0.200000|0.200000|0.999999|0.833000||cpu=0\n"; // row 16, line 18

mfprio::input_error tree_error(const std::string& text, std::size_t line, const std::string& what,
                               const std::string& key) {
    const auto r = parse_fairshare_tree(text, "sshare.txt");
    REQUIRE_FALSE(r);
    CAPTURE(r.error().to_string());
    CHECK(r.error().file == "sshare.txt");
    CHECK(r.error().line == line);
    CHECK(r.error().key == key);
    CHECK(r.error().message.find(what) != std::string::npos);
    return r.error();
}

} // namespace

TEST_CASE("config: fair-share tree from sshare -a -P -l (seed 001's hierarchy)") {
    const auto r = parse_fairshare_tree(limoges, "sshare.txt");
    REQUIRE(r);
    const auto& t = r->tree;
    REQUIRE(t.size() == 17);
    // sshare prints in lineage order, so the tree order is the file's.
    for (std::uint32_t row = 0; row < 17; ++row) {
        CAPTURE(row);
        CHECK(r->tree_index_of_row[row] == row);
        CHECK(r->row_of_tree_index[row] == row);
    }
    CHECK(t.account[0] == "root");
    CHECK(t.shares_raw[0] == mfprio::no_val32);
    CHECK(t.user_count == 8); // root, jdupont, pmartin, alice, bob, carole, denis, eve
    CHECK(t.user_name[1] == "root");
    CHECK(t.account[1] == "root");
    CHECK(t.find_user("XLIM", "denis") == 15u);
    CHECK(t.shares_raw[15] == 2);
    CHECK(t.shares_raw[6] == use_parent); // pmartin: `parent`
    CHECK(t.parent[15] == 14);
    CHECK(t.parent[14] == 7);
    CHECK(t.depth[15] == 3);

    // level shares: root's children: root user 1 + partenaires 100 + unilim 900 = 1001;
    // unilim's: 283 * 3 + 150 = 999; XLIM's users 2 + 1 = 3; pmartin alone and `parent`: 0.
    CHECK(t.level_shares[2] == 1001);
    CHECK(t.level_shares[8] == 999);
    CHECK(t.level_shares[12] == 999);
    CHECK(t.level_shares[15] == 3);
    CHECK(t.level_shares[6] == 0);
    CHECK(t.fs_parent[6] == 5); // ingenomix has shares

    // usage: users as read; accounts re-aggregated, the file's account values ignored:
    // partenaires 100000 + 50000; unilim 200000 + 0 + 150000 + 300000 + 200000 = 850000;
    // root 150000 + 850000 = 1000000 (not the file's 999).
    CHECK(t.usage_raw[4] == 100000.0L);
    CHECK(t.usage_raw[2] == 150000.0L);
    CHECK(t.usage_raw[7] == 850000.0L);
    CHECK(t.usage_raw[14] == 500000.0L);
    CHECK(t.usage_raw[0] == 1000000.0L);

    // The FairShare column (0.999999 everywhere) is ignored: classic recomputes it.
    // XLIM: S = 283/999 * 900/1001 = 0.254700; UE: unilim 0.85; XLIM = 0.5 + (0.85 - 0.5) *
    // 283/999 = 0.599149; denis: S = 2/3 * 0.254700 = 0.169800,
    // UE = 0.3 + (0.599149 - 0.3) * 2/3 = 0.499433; F = 2^(-0.499433/0.169800) = 2^(-2.941297)
    // = 0.130191.
    mfprio::fairshare::columns c;
    mfprio::fairshare::classic(t, c);
    CHECK(f6(c.shares_norm[14]) == "0.254700");
    CHECK(f6(c.shares_norm[15]) == "0.169800");
    CHECK(static_cast<double>(c.usage_efctv[14]) == doctest::Approx(0.5 + 0.35 * 283.0 / 999.0));
    CHECK(f6(c.fs_factor[15]) == "0.130191");
}

TEST_CASE("config: fair-share tree maps rows to tree indices when the orders differ") {
    SUBCASE("per-partition associations keep their partition") {
        const auto r = parse_fairshare_tree("Account|User|Partition|RawShares|RawUsage\n"
                                            "root||||\n"
                                            " chem|||1|100\n"
                                            "  chem|dave|gpu|1|40\n"
                                            "  chem|dave||1|60\n"
                                            "  chem|erin||2|0\n");
        REQUIRE(r);
        // lineage: /chem/0-dave/ (row 3) < /chem/0-dave/gpu/ (row 2) < /chem/0-erin/ (row 4)
        CHECK(r->tree_index_of_row == std::vector<std::uint32_t>{0, 1, 3, 2, 4});
        CHECK(r->row_of_tree_index == std::vector<std::size_t>{0, 1, 3, 2, 4});
        CHECK(r->tree.partition[3] == "gpu");
        CHECK(r->tree.partition[2].empty());
        CHECK(r->tree.usage_raw[3] == 40.0L);
        CHECK(r->tree.usage_raw[1] == 100.0L); // 40 + 60 + 0
        CHECK(r->tree.level_shares[4] == 4);   // 1 + 1 + 2: each association counts
    }
    SUBCASE("a hand-edited file with a user after its account's sub-account; no RawUsage") {
        const auto r = parse_fairshare_tree("Account|User|RawShares\n"
                                            "root||\n"
                                            " a||1\n"
                                            "  a1||1\n"
                                            "   a1|amy|1\n"
                                            "  a|zed|3\n");
        REQUIRE(r);
        // lineage: / a /a/0-zed/ (row 4) /a/a1/ (row 2) /a/a1/0-amy/ (row 3)
        CHECK(r->tree_index_of_row == std::vector<std::uint32_t>{0, 1, 3, 4, 2});
        CHECK(r->tree.user_name[2] == "zed");
        CHECK(r->tree.level_shares[2] == 4); // zed 3 + a1 1
        for (std::size_t a = 0; a < r->tree.size(); ++a) CHECK(r->tree.usage_raw[a] == 0.0L);
    }
    SUBCASE("no root row: the reader's synthesized root is tree index 0") {
        const auto r = parse_fairshare_tree("Account|User|RawShares|RawUsage\n"
                                            "a||2|\n"
                                            " a|u|1|7\n"
                                            " a|v|1|\n"); // blank RawUsage: 0
        REQUIRE(r);
        CHECK(r->tree_index_of_row == std::vector<std::uint32_t>{0, 1, 2, 3});
        CHECK(r->tree.shares_raw[1] == 2);
        CHECK(r->tree.usage_raw[0] == 7.0L);
        CHECK(r->tree.usage_raw[3] == 0.0L);
    }
    SUBCASE("no RawShares column: every association gets sacctmgr's default 1") {
        const auto r = parse_fairshare_tree("Account|User\n"
                                            "root|\n"
                                            " a|\n"
                                            "  a|u\n"
                                            "  a|v\n"
                                            " b|\n");
        REQUIRE(r);
        CHECK(r->tree.shares_raw[1] == 1);
        CHECK(r->tree.shares_raw[2] == 1);
        CHECK(r->tree.level_shares[1] == 2); // a 1 + b 1
        CHECK(r->tree.level_shares[3] == 2); // u 1 + v 1
        CHECK(r->tree.shares_raw[0] == mfprio::no_val32);
    }
    SUBCASE("the root's RawShares cell is ignored") {
        const auto r = parse_fairshare_tree("Account|User|RawShares\nroot||5\n a||1\n");
        REQUIRE(r);
        CHECK(r->tree.shares_raw[0] == mfprio::no_val32);
        CHECK(r->tree.level_shares[0] == mfprio::no_val32);
    }
}

TEST_CASE("config: fair-share tree from a file") {
    // tests/data/sprio/assoc.txt: phys 60 (alice 1, bob 1), chem 40 (carol 1, dave 1); no
    // RawUsage column, so all usage is 0.
    const auto r = read_fairshare_tree(data("sprio/assoc.txt"));
    REQUIRE(r);
    CHECK(r->tree.size() == 7);
    CHECK(r->tree.level_shares[r->tree.find_account("phys").value()] == 100);
    CHECK(r->tree.usage_raw[0] == 0.0L);

    const auto missing = read_fairshare_tree(data("no_such_assoc.txt"));
    REQUIRE_FALSE(missing);
    CHECK(missing.error().file == data("no_such_assoc.txt"));
}

TEST_CASE("config: fair-share tree errors name the file and line") {
    // A user row with blank RawShares (line 4).
    tree_error("Account|User|RawShares\nroot||\n a||1\n  a|u|\n", 4, "blank RawShares", "RawShares");
    // An account row with blank RawShares (line 3).
    const auto e = tree_error("Account|User|RawShares\nroot||\n a||\n  a|u|1\n", 3, "account 'a'", "RawShares");
    CHECK(e.to_string().rfind("sshare.txt:3: RawShares: ", 0) == 0);
    // More than the largest share (FairShare=parent is 2147483647).
    tree_error("Account|User|RawShares\nroot||\n a||3000000000\n", 3, "3000000000", "RawShares");
    // The reader's own errors come through with the file name.
    tree_error("Account|User|RawShares\nroot||\n a||x\n", 3, "not an integer", "RawShares");
    tree_error("Account|User|RawShares|RawUsage\nroot|||\n a||1|-5\n", 3, "from 0 to below 2^64", "RawUsage");

    // fairshare_tree_from on an already parsed table names the file it is given.
    const auto table = parse_assoc_table("Account|User|RawShares\nroot||\n a||1\n  a|u|\n");
    REQUIRE(table);
    const auto r = fairshare_tree_from(*table, "assoc.txt");
    REQUIRE_FALSE(r);
    CHECK(r.error().to_string().rfind("assoc.txt:4: RawShares: user 'u' of account 'a'", 0) == 0);
}
