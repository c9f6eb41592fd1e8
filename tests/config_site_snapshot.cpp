// The snapshot site_factor/mfprio writes at each of slurmctld's recalculations
// (config/site_snapshot.hpp): C's hexadecimal floating point read back to the bit, errors at
// their line and column, and fair-share from it as Slurm 22.05's priority/multifactor
// computes it in a pass (priority_multifactor.c): a user's normalized usage UN = raw / root's
// raw, its effective usage UE = UN + (UE_parent - UN) * (shares_raw / level_shares)
// (classic) computed at its first job, and the factor 2^(-(UE / S) / damping).

#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <mfprio/replay/site_snapshot.hpp>

namespace {
using mfprio::config::parse_site_snapshot;

std::string line(const char* fields) { return std::string("pass=1800000000\nassoc ") + fields + "\n"; }

const char* const alice =
    "id=7 account=chem user=alice partition= shares_raw=1 level_shares=4 shares_norm=0x1p-2 usage_raw=0x1.8p+10 "
    "usage_norm=0x8p-4 usage_efctv=0x8p-3 fs_parent=0 gpu_usage=0xe1p+0";

/// A tree as slurmctld holds it at the start of a pass: root (raw usage 1000), account chem
/// (UE 0.5, S 0.5), its users alice (raw 250, S 0.25, shares 1 of 4), bob (raw 0, shares 3
/// of 4) and erin (Fairshare=parent), user UE NO_VAL; bob's normalized usage from an earlier
/// pass 0.125.
std::string tree(const char* bob_usage_norm = "0x1p-3") {
    return std::string("pass=10\n") +
           "assoc id=1 account=root user= partition= shares_raw=1 level_shares=1 shares_norm=0x1p+0 usage_raw=0x3e8p+0 "
           "usage_norm=0x1p+0 usage_efctv=0x1p+0 fs_parent=0 gpu_usage=0x0p+0\n"
           "assoc id=3 account=chem user= partition= shares_raw=1 level_shares=2 shares_norm=0x1p-1 usage_raw=0x3e8p+0 "
           "usage_norm=0x1p+0 usage_efctv=0x1p-1 fs_parent=1 gpu_usage=0x0p+0\n"
           "assoc id=7 account=chem user=alice partition= shares_raw=1 level_shares=4 shares_norm=0x1p-2 "
           "usage_raw=0xfap+0 usage_norm=0x0p+0 usage_efctv=0xf.ffffffep+28 fs_parent=3 gpu_usage=0x0p+0\n"
           "assoc id=8 account=chem user=bob partition= shares_raw=3 level_shares=4 shares_norm=0x3p-2 "
           "usage_raw=0x0p+0 usage_norm=" + bob_usage_norm + " usage_efctv=0xf.ffffffep+28 fs_parent=3 gpu_usage=0x0p+0\n"
           "assoc id=9 account=chem user=erin partition= shares_raw=2147483647 level_shares=4 shares_norm=0x1p-1 "
           "usage_raw=0x0p+0 usage_norm=0x0p+0 usage_efctv=0xf.ffffffep+28 fs_parent=3 gpu_usage=0x0p+0\n";
}

mfprio::config::assoc_table tree_rows() {
    mfprio::config::assoc_table t;
    t.rows.resize(5);
    t.rows[0].account = "root";
    t.rows[1].account = "chem";
    const char* users[] = {"alice", "bob", "erin"};
    for (int i = 0; i < 3; ++i) {
        t.rows[2 + i].account = "chem";
        t.rows[2 + i].user = users[i];
        t.rows[2 + i].parent = 1;
    }
    return t;
}

std::string error_of(const std::string& text) {
    auto s = parse_site_snapshot(text, "snap");
    REQUIRE_FALSE(s.has_value());
    return s.error().to_string();
}
} // namespace

TEST_CASE("site snapshot: C's %a and %La are read to the bit") {
    // What glibc's printf("%La") prints for 2/3 as an x86 long double, and "%a" for 0.1.
    char two_thirds[64], tenth[64];
    std::snprintf(two_thirds, sizeof two_thirds, "%La", 2.0L / 3.0L);
    std::snprintf(tenth, sizeof tenth, "%a", 0.1);
    const std::string text = line((std::string("id=1 account=a user=u partition=p shares_raw=5 level_shares=9 shares_norm=") +
                                   tenth + " usage_raw=0x0p+0 usage_norm=0x0p+0 usage_efctv=" + two_thirds +
                                   " fs_parent=0 gpu_usage=0x0p+0")
                                      .c_str());
    auto s = parse_site_snapshot(text, "snap");
    REQUIRE(s.has_value());
    CHECK(s->pass == 1800000000);
    REQUIRE(s->assocs.size() == 1);
    CHECK(s->assocs[0].usage_efctv == 2.0L / 3.0L);
    CHECK(s->assocs[0].shares_norm == 0.1);
    CHECK(s->assocs[0].partition == "p");
    // Written and read again: the same values.
    auto again = parse_site_snapshot(mfprio::config::format_site_snapshot(*s), "snap");
    REQUIRE(again.has_value());
    CHECK(again->assocs[0].usage_efctv == 2.0L / 3.0L);
    CHECK(again->assocs[0].shares_norm == 0.1);
}

TEST_CASE("site snapshot: GPU usage in whole minutes, as assoc_mgr prints GrpTRESMins") {
    auto s = parse_site_snapshot(line(alice), "snap");
    REQUIRE(s.has_value());
    // gpu_usage 0xe1 = 225 GPU-seconds: 3 whole minutes (225 / 60 = 3.75, truncated).
    CHECK(s->assocs[0].gpu_minutes() == 3);
}

TEST_CASE("site snapshot: classic fair-share as slurmctld's pass computes it") {
    auto s = parse_site_snapshot(tree(), "snap");
    REQUIRE(s.has_value());
    const auto t = tree_rows();
    const std::vector<std::size_t> needed{2, 3, 4}; // alice's, bob's and erin's jobs
    auto fs = mfprio::config::snapshot_fairshare(*s, t, needed, false, 1, "snap");
    REQUIRE(fs.has_value());
    CHECK(std::isnan((*fs)[0]));
    CHECK(std::isnan((*fs)[1]));
    // alice: UN = 250 / 1000 = 0.25; UE = 0.25 + (0.5 - 0.25) * (1 / 4) = 0.3125;
    // F = 2^(-0.3125 / 0.25) = 2^-1.25.
    CHECK((*fs)[2] == std::pow(2.0, -1.25));
    // bob: UN = 0; UE = 0 + 0.5 * (3 / 4) = 0.375; F = 2^(-0.375 / 0.75) = 2^-0.5.
    CHECK((*fs)[3] == std::pow(2.0, -0.5));
    // erin, Fairshare=parent: chem's UE and S, 2^(-0.5 / 0.5) = 0.5.
    CHECK((*fs)[4] == 0.5);
    // Damping 2: alice 2^(-1.25 / 2).
    CHECK((*mfprio::config::snapshot_fairshare(*s, t, needed, false, 2, "snap"))[2] == std::pow(2.0, -0.625));
    // A user association the snapshot does not have: an error naming it.
    auto other = t;
    other.rows[3].user = "dan";
    auto missing = mfprio::config::snapshot_fairshare(*s, other, needed, false, 1, "snap");
    REQUIRE_FALSE(missing.has_value());
    CHECK(missing.error().to_string() == "snap: association (chem, dan) is not in the snapshot: it is of another cluster or time");
}

TEST_CASE("site snapshot: depth-oblivious fair-share reads the siblings' normalized usage of the moment") {
    const auto t = tree_rows();
    // Slurm's _depth_oblivious_set_usage_efctv for alice, computed first: r_p = UE_chem / S_chem
    // = 1; r_s = (UN_alice + UN_bob) / 0.5 (erin, Fairshare=parent, left out); r_l =
    // (UN_alice / 0.25) / r_s; ln r_p = 0, so k = 1 and UE = r_p * r_l * S = r_l * 0.25.
    // With bob's UN from the earlier pass (0.125): r_s = (0.25 + 0.125) / 0.5 = 0.75,
    // r_l = 1 / 0.75, UE = 1/3; F = 2^(-(1/3) / 0.25) = 2^(-4/3).
    auto s = parse_site_snapshot(tree(), "snap");
    REQUIRE(s.has_value());
    const std::vector<std::size_t> alice_first{2, 3};
    auto fs = mfprio::config::snapshot_fairshare(*s, t, alice_first, true, 1, "snap");
    REQUIRE(fs.has_value());
    const long double ue = (0.25L / 0.25L) / (0.375L / 0.5L) * 0.25L;
    CHECK((*fs)[2] == std::pow(2.0, static_cast<double>(-(ue / 0.25L))));
    // bob first: his UN is recomputed (0) before alice's: r_s = 0.25 / 0.5 = 0.5, r_l = 2,
    // UE = 0.5; F = 2^-2. The order of the job list changes alice's factor.
    const std::vector<std::size_t> bob_first{3, 2};
    auto fs2 = mfprio::config::snapshot_fairshare(*s, t, bob_first, true, 1, "snap");
    REQUIRE(fs2.has_value());
    CHECK((*fs2)[2] == 0.25);
    // bob: UN = 0, so UE = UN = 0 and F = 1.
    CHECK((*fs2)[3] == 1.0);
}

TEST_CASE("site snapshot: bad input names the line, the column and what is wrong") {
    CHECK(error_of("pass=soon\n") == "snap:1:6: pass: expected epoch seconds, got 'soon'");
    CHECK(error_of("") == "snap: pass: no pass=EPOCH line");
    CHECK(error_of("pass=1\npass=2\n") == "snap:2:1: pass: a second pass line");
    CHECK(error_of("pass=1\nuser alice\n") == "snap:2:1: expected pass=EPOCH or an assoc line, got 'user alice'");
    // Column 59: where shares_norm's value starts.
    CHECK(error_of(line("id=7 account=chem user=alice partition= shares_norm=x")).starts_with("snap:2:59: shares_norm: expected a finite number"));
    CHECK(error_of(line("id=7 account=chem user=alice partition= shares_norm=0x1p0 usage_raw=-0x1p0"))
              .starts_with("snap:2:"));
    CHECK(error_of(line("id=7 id=8")) == "snap:2:12: id: given twice");
    CHECK(error_of(line("id=7 colour=red")) ==
          "snap:2:12: expected KEY=VALUE with a key of an assoc line, got 'colour=red'");
    CHECK(error_of(line("id=7 account=chem")) == "snap:2:1: user: missing from the assoc line");
    CHECK(error_of(line(alice) + "assoc " + alice + "\n") == "snap:3:1: id: association 7 is listed twice");
    CHECK(error_of(line("id=7 account=chem user=alice partition= shares_raw=1 level_shares=1 shares_norm=0x1p-2 "
                        "usage_raw=0x0p+0 usage_norm=0x0p+0 usage_efctv=0x0p+0 fs_parent=9 gpu_usage=0x0p+0")) ==
          "snap:2:1: fs_parent: association 9 is not in the snapshot");
    // Fair-share parents that loop: an association its own parent (line 2), and two accounts
    // each the other's (lines 3 and 4; the loop is named at the first of them in the file).
    std::string self = tree();
    self.replace(self.find("fs_parent=0"), 11, "fs_parent=1");
    CHECK(error_of(self) == "snap:2:1: fs_parent: association 1 is its own parent");
    std::string pair = tree();
    pair.replace(pair.find("fs_parent=1"), 11, "fs_parent=9");
    CHECK(error_of(pair) == "snap:3:1: fs_parent: association 3 is an ancestor of itself (its fair-share parents form a loop)");
    CHECK(error_of(line("id=7 shares_raw=-1")) == "snap:2:23: shares_raw: expected a count from 0 to 4294967295, got '-1'");
    // Dirty but valid: CRLF, a byte order mark, comments, blank lines, trailing spaces.
    auto s = parse_site_snapshot("\xEF\xBB\xBF# c\r\n\r\npass=3  \r\nassoc " + std::string(alice) + "  \r\n", "snap");
    REQUIRE(s.has_value());
    CHECK(s->pass == 3);
    CHECK(s->assocs.size() == 1);
}
