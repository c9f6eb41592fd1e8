// `mfprio sshare` and `mfprio usage` against hand-derived expectations.
//
// tests/data/sshare/seed000_*: seed 000's tree (A 40: B 30, C 10; D 60: E 25, F 35; users 1-5
// with one share each) with raw usages 200, 250, 0, 250, 0 and a 0-share user `root` holding
// 300, so that the root's usage is 1000 and each user's normalized usage is the seed's
// fraction of the machine (0.2, 0.25, 0, 0.25, 0). The expected files were written from
// reference 3.1/3.2 (classic) and 3.3 (Fair Tree) outside mfprio; the classic FairShare
// column carries the seed's factors 0.408479, 0.022097, 0.125000, 0.500000, 0.749154.
// Fair Tree by hand: root's children D (LF 0.6/0.25 = 2.4) > A (0.4/0.45) > user root (S 0
// -> LF 0); under D, F (unused: inf) before E; under A, B (0.75/0.444) before C; N = 6 users,
// so user5 6/6, user4 5/6, user1 4/6, user3 (inf) 3/6, user2 2/6, root 1/6.

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <mfprio/model/fairshare_tree.hpp>

#include "cli.hpp"

namespace {
std::string data(const std::string& name) { return std::string(MFPRIO_TEST_DATA) + "/" + name; }
std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}
mfprio::cli::outcome sshare(const std::string& assoc, std::vector<std::string_view> extra) {
    static const std::string conf = data("sshare/seed000.conf");
    const std::string a = data("sshare/" + assoc);
    std::vector<std::string_view> args{"--conf", conf, "--assoc", a};
    args.insert(args.end(), extra.begin(), extra.end());
    return mfprio::cli::run_sshare(args);
}
/// The cell of column `col` in the row whose first two cells are `account` (trimmed) and `user`.
std::string cell(const std::string& text, std::string_view account, std::string_view user, std::size_t col) {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        std::vector<std::string> cells;
        std::string c;
        std::istringstream ls(line);
        while (std::getline(ls, c, '|')) cells.push_back(c);
        if (cells.size() <= col) continue;
        const auto first = cells[0].find_first_not_of(' ');
        if (first != std::string::npos && cells[0].substr(first) == account && cells[1] == user) return cells[col];
    }
    return "<missing>";
}
} // namespace

TEST_CASE("cli: sshare -a -l -P, classic: seed 000's worked example") {
    // Slurm before 25.11 prints the classic factor of every row, accounts included (the
    // golden's); 25.11 and later, for users only (slurm::release_change::
    // sshare_fairshare_users_only), which the inputs here, naming no release, get.
    const auto o = sshare("seed000_assoc.txt", {"-a", "-l", "-P", "--slurm-version", "22.05"});
    CHECK(o.status == 0);
    CHECK(o.err == "");
    CHECK(o.out == slurp(data("sshare/seed000_classic_long.txt")));
    const auto newest = sshare("seed000_assoc.txt", {"-a", "-l", "-P"});
    CHECK(cell(newest.out, "A", "", 7) == "");
    CHECK(cell(newest.out, "B", "user1", 7) == "0.408479");
    // FairShare column (index 7): the seed's five factors
    CHECK(cell(o.out, "B", "user1", 7) == "0.408479");
    CHECK(cell(o.out, "C", "user2", 7) == "0.022097");
    CHECK(cell(o.out, "C", "user3", 7) == "0.125000");
    CHECK(cell(o.out, "E", "user4", 7) == "0.500000");
    CHECK(cell(o.out, "F", "user5", 7) == "0.749154");
    // EffectvUsage (index 6): the seed's 0.3875, 0.275, 0.15, 0.25, 0.1458
    CHECK(cell(o.out, "B", "user1", 6) == "0.387500");
    CHECK(cell(o.out, "F", "user5", 6) == "0.145833");
}

TEST_CASE("cli: sshare -a -l, Fair Tree, fixed-width columns") {
    const auto o = sshare("seed000_assoc.txt", {"-a", "-l", "--algorithm", "fair-tree"});
    CHECK(o.status == 0);
    CHECK(o.out == slurp(data("sshare/seed000_fairtree_long.txt")));
}

TEST_CASE("cli: sshare -p keeps the trailing pipe, -n drops the header, -U users only") {
    const auto o = sshare("seed000_assoc.txt", {"-a", "-p", "-n", "-U", "-o", "User,FairShare"});
    CHECK(o.status == 0);
    // classic (slurm.conf has NO_FAIR_TREE): root 0-share user F = 0; seed factors for the others
    CHECK(o.out == "root|0.000000|\nuser1|0.408479|\nuser2|0.022097|\nuser3|0.125000|\nuser4|0.500000|\nuser5|0.749154|\n");
}

TEST_CASE("cli: sshare -o with a field too narrow for its number") {
    // print_fields_double: "%*f" does not fit 4 columns, "%*.*e" (4, 4) gives 10 characters, so
    // the width becomes 4 - (10 - 4) = -2 and "%*.*e" / "%-*.*e" print with width -2 and
    // precision -2, which C reads as left-justified in 2 columns with the precision omitted
    // (6). user4's classic FairShare is 2^-1, user2's 2^-5.5 = 0.0220970869 (seed 000).
    const auto o = sshare("seed000_assoc.txt", {"-a", "-o", "User,FairShare%4,FairShare%-4"});
    CHECK(o.status == 0);
    CHECK(o.out.find("\n     user4 5.000000e-01 5.000000e-01 \n") != std::string::npos);
    CHECK(o.out.find("\n     user2 2.209709e-02 2.209709e-02 \n") != std::string::npos);
}

TEST_CASE("cli: sshare -A and -u filter rows; without -a only the caller's user rows show") {
    // -A indents relative to the rows shown: an account whose parent is not listed starts at
    // the left, its users one space in (Slurm 22.05.8's `sshare -A chem,theory -l`, captured
    // in tests/data/live/*/expected/sshare_A_chem_theory_l.txt, prints theory, a sub-account
    // of physics, unindented).
    const auto o = sshare("seed000_assoc.txt", {"-P", "-A", "C", "-u", "user3", "-o", "Account,User"});
    CHECK(o.out == "Account|User\nC|\n C|user3\n");
    const auto none = sshare("seed000_assoc.txt", {"-P", "-o", "Account,User"});
    // account rows only (no user named like $USER in this tree)
    CHECK(none.out.find("|user") == std::string::npos);
    CHECK(none.out.find(" A|") != std::string::npos);
}

TEST_CASE("cli: sshare --damping divides the exponent") {
    // d = 2: user1 F = 2^(-(0.3875/0.3)/2) = 2^(-0.6458333) = 0.6391235 -> "0.639124"
    const auto o = sshare("seed000_assoc.txt", {"-a", "-P", "--damping", "2", "-o", "Account,User,FairShare"});
    CHECK(cell(o.out, "B", "user1", 2) == "0.639124");
}

TEST_CASE("cli: sshare, seed 001's hierarchy normalized shares") {
    // Seed 001: partenaires 100 of 1000 (10%), cistem and ingenomix 1 of 2 (5% of the total);
    // unilim 900 (90%); XLIM, IPAM, GEIST 283 of 999 x 0.9 = 0.254955; SHS 150/999 x 0.9 =
    // 0.135135; one lab per institute takes all of it; xlim-rf's two users half each.
    const auto o = sshare("limoges_assoc.txt", {"-a", "-P", "--algorithm", "classic", "-o", "Account,User,NormShares"});
    CHECK(o.status == 0);
    CHECK(cell(o.out, "partenaires", "", 2) == "0.100000");
    CHECK(cell(o.out, "cistem", "", 2) == "0.050000");
    CHECK(cell(o.out, "ingenomix", "", 2) == "0.050000");
    CHECK(cell(o.out, "unilim", "", 2) == "0.900000");
    CHECK(cell(o.out, "XLIM", "", 2) == "0.254955");
    CHECK(cell(o.out, "IPAM", "", 2) == "0.254955");
    CHECK(cell(o.out, "GEIST", "", 2) == "0.254955");
    CHECK(cell(o.out, "SHS", "", 2) == "0.135135");
    CHECK(cell(o.out, "shs-eco", "gaelle", 2) == "0.135135");
    CHECK(cell(o.out, "xlim-rf", "chloe", 2) == "0.127477"); // 0.254955 / 2
    // Fair Tree normalizes within the level: XLIM 283/999 = 0.283283
    const auto ft = sshare("limoges_assoc.txt", {"-a", "-P", "--algorithm", "fair-tree", "-o", "Account,User,NormShares"});
    CHECK(cell(ft.out, "XLIM", "", 2) == "0.283283");
    CHECK(cell(ft.out, "xlim-rf", "chloe", 2) == "0.500000");
}

TEST_CASE("cli: sshare errors") {
    CHECK(sshare("seed000_assoc.txt", {"--algorithm", "best"}).status == 2);
    CHECK(sshare("seed000_assoc.txt", {"--damping", "0"}).status == 2);
    const auto field = sshare("seed000_assoc.txt", {"-o", "Account,Bogus"});
    CHECK(field.status == 2);
    CHECK(field.err.find("Invalid field requested: \"Bogus\"") != std::string::npos);
    const auto bad = sshare("bad_assoc.txt", {});
    CHECK(bad.status == 65);
    CHECK(bad.err.find("bad_assoc.txt:3") != std::string::npos);
    const std::vector<std::string_view> none{"--conf"};
    CHECK(mfprio::cli::run_sshare(none).status == 2);
}

TEST_CASE("cli: usage charges running jobs with Slurm's decay and billing") {
    // slurm.conf: half-life 1 day, calc period 5 min; --elapsed 10 = two passes of 300 s.
    // D = 1 - 0.693/86400, D^300 = 0.9975966330719699 (reference 2.1 table).
    // u1: 4 CPUs, no billing weights -> billable 4: 1200*D^300*D^300 + 1200*D^300 = 2391.35
    // u3: partition `billed` CPU=1.0,Mem=0.25G, 1 CPU and 60 GB -> 1 + 15 = 16 (seed 000's
    //     Job1), QOS UsageFactor 2: 9600*D^600 + 9600*D^300 = 19130.84
    // u2: pending, 1000 decayed twice: 1000*D^600 = 995.20
    // RawUsage is printed truncated; accounts are the sums of their users.
    const std::string conf = data("usage/slurm.conf"), qos = data("usage/qos.txt"), assoc = data("usage/assoc.txt"),
                      jobs = data("usage/jobs.txt");
    const std::vector<std::string_view> args{"--conf", conf, "--qos", qos, "--assoc", assoc, "--jobs", jobs, "--elapsed", "10"};
    const auto o = mfprio::cli::run_usage(args);
    CHECK(o.status == 0);
    CHECK(cell(o.out, "a", "u1", 4) == "2391");
    CHECK(cell(o.out, "a", "u2", 4) == "995");
    CHECK(cell(o.out, "b", "u3", 4) == "19130");
    CHECK(cell(o.out, "a", "", 4) == "3386");
    CHECK(cell(o.out, "root", "", 4) == "22517");
    // the output is an association table `--assoc` reads again
    CHECK(mfprio::config::parse_fairshare_tree(o.out, "usage-output"));
    const std::vector<std::string_view> bad{"--conf", conf, "--qos", qos, "--assoc", assoc, "--jobs", jobs, "--elapsed", "soon"};
    CHECK(mfprio::cli::run_usage(bad).status == 2);
    const std::vector<std::string_view> missing{"--conf", conf};
    CHECK(mfprio::cli::run_usage(missing).status == 2);
}

TEST_CASE("cli: usage refuses a charge past what sshare can print") {
    // sshare prints RawUsage as a uint64_t (print_fields_uint64): u1's 1e19 CPUs (a count
    // Slurm can hold) at UsageFactor 1e6 (the largest read) for two 300 s passes charge about
    // 6e27, past 2^64. The error names the association table and u1's row.
    const auto dir = std::filesystem::temp_directory_path() / "mfprio-usage-range";
    std::filesystem::create_directories(dir);
    const std::string qos = (dir / "qos.txt").string(), jobs = (dir / "jobs.txt").string();
    std::ofstream(qos) << "Name|Priority|UsageFactor\nnormal|0|1e6\ndouble|0|2.0\n";
    std::ofstream(jobs) << "JobID|User|Account|Partition|QOS|SubmitTime|NumNodes|NumCPUs|TRES|State\n"
                           "1|u1|a|batch|normal|1767225000|1|4|cpu=1e19,node=1|RUNNING\n";
    const std::string conf = data("usage/slurm.conf"), assoc = data("usage/assoc.txt");
    const std::vector<std::string_view> args{"--conf", conf, "--qos", qos, "--assoc", assoc, "--jobs", jobs, "--elapsed", "10"};
    const auto o = mfprio::cli::run_usage(args);
    CHECK(o.status == 65);
    CHECK(o.out.empty());
    CHECK(o.err.find(assoc + ":4: RawUsage: the usage charged to 'a' user 'u1' reaches 2^64") != std::string::npos);
    // One CPU at the same factor charges 6e8: printed.
    std::ofstream(jobs) << "JobID|User|Account|Partition|QOS|SubmitTime|NumNodes|NumCPUs|TRES|State\n"
                           "1|u1|a|batch|normal|1767225000|1|1|cpu=1,node=1|RUNNING\n";
    CHECK(mfprio::cli::run_usage(args).status == 0);
    std::filesystem::remove_all(dir);
}

TEST_CASE("cli: sprio uses fair-share computed from RawShares and RawUsage") {
    // The seed 000 tree with usages (see above), classic, PriorityWeightFairshare=10000:
    // 0.408479 -> 4085, 0.022097 -> 221, 0.125 -> 1250, 0.5 -> 5000, 0.749154 -> 7492.
    const std::string conf = data("sshare/sprio.conf"), qos = data("sshare/qos.txt"),
                      assoc = data("sshare/seed000_assoc.txt"), jobs = data("sshare/jobs.txt");
    const std::vector<std::string_view> args{"--conf", conf, "--qos", qos, "--assoc", assoc, "--jobs", jobs,
                                             "--now", "2026-11-21T12:00:00", "-h", "-o", "%i %F"};
    const auto o = mfprio::cli::run_sprio(args);
    CHECK(o.err == "");
    CHECK(o.out == "1 4085\n2 221\n3 1250\n4 5000\n5 7492\n");
}
