// config/slurm_fairshare.hpp: computed fair-share replaces the FairShare column when the
// association table has RawUsage.
#include <doctest/doctest.h>

#include <cstdio>
#include <string>
#include <utility>

#include <mfprio/model/slurm_fairshare.hpp>
#include <mfprio/read/jobs_table.hpp>

namespace {
// Seed 000's tree with usages 0.2, 0.25, 0, 0.25, 0 of a 1000-unit machine (a 0-share user
// holds the other 300), and a FairShare column of nonsense that must be ignored.
constexpr std::string_view seed000 =
    "Account|User|RawShares|RawUsage|FairShare\n"
    "root||||\n"
    " root|root|0|300|0.9\n"
    " A||40||\n"
    "  B||30||\n"
    "   B|user1|1|200|0.9\n"
    "  C||10||\n"
    "   C|user2|1|250|0.9\n"
    "   C|user3|1|0|0.9\n"
    " D||60||\n"
    "  E||25||\n"
    "   E|user4|1|250|0.9\n"
    "  F||35||\n"
    "   F|user5|1|0|0.9\n";

mfprio::slurm::cluster cluster_of(const mfprio::config::assoc_table& t) {
    mfprio::slurm::cluster cl;
    for (const auto& r : t.rows) cl.add_association(r.account, r.user, r.fairshare.value_or(0.0));
    cl.finalize();
    return cl;
}
std::string f6(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%f", v);
    return b;
}
} // namespace

TEST_CASE("config: computed fair-share replaces the FairShare column (seed 000, classic)") {
    auto t = mfprio::config::parse_assoc_table(seed000, "assoc.txt");
    REQUIRE(t);
    auto cl = cluster_of(*t);
    mfprio::fairshare::options o;
    o.algo = mfprio::fairshare::algorithm::classic;
    auto applied = mfprio::config::apply_computed_fairshare(cl, *t, o, "assoc.txt");
    REQUIRE(applied);
    CHECK(*applied);
    const auto row = [&](std::string_view acct, std::string_view user) { return *t->find_user(acct, user); };
    // seed 000: 0.408479, 0.022097, 0.125000, 0.500000, 0.749154
    CHECK(f6(cl.fairshare()[row("B", "user1")]) == "0.408479");
    CHECK(f6(cl.fairshare()[row("C", "user2")]) == "0.022097");
    CHECK(f6(cl.fairshare()[row("C", "user3")]) == "0.125000");
    CHECK(f6(cl.fairshare()[row("E", "user4")]) == "0.500000");
    CHECK(f6(cl.fairshare()[row("F", "user5")]) == "0.749154");
    // Fair Tree instead: N = 6 users; user5 ranks first (6/6), user2 fifth (2/6)
    o.algo = mfprio::fairshare::algorithm::fair_tree;
    REQUIRE(mfprio::config::apply_computed_fairshare(cl, *t, o, "assoc.txt"));
    CHECK(cl.fairshare()[row("F", "user5")] == 1.0);
    CHECK(cl.fairshare()[row("C", "user2")] == 2.0 / 6.0);
}

TEST_CASE("config: without RawUsage the FairShare column stays") {
    auto t = mfprio::config::parse_assoc_table("Account|User|FairShare\nroot||\n a||\n  a|u|0.25\n", "assoc.txt");
    REQUIRE(t);
    auto cl = cluster_of(*t);
    auto applied = mfprio::config::apply_computed_fairshare(cl, *t, {}, "assoc.txt");
    REQUIRE(applied);
    CHECK_FALSE(*applied);
    CHECK(cl.fairshare()[*t->find_user("a", "u")] == 0.25);
}

TEST_CASE("config: fair-share options follow PriorityFlags") {
    using mfprio::fairshare::algorithm;
    auto conf = mfprio::config::parse_slurm_conf("FairShareDampeningFactor=3\n", "slurm.conf");
    REQUIRE(conf);
    CHECK(mfprio::config::fairshare_options_of(*conf).algo == algorithm::fair_tree);
    CHECK(mfprio::config::fairshare_options_of(*conf).damping == 3);
    auto classic = mfprio::config::parse_slurm_conf("PriorityFlags=NO_FAIR_TREE\n", "slurm.conf");
    REQUIRE(classic);
    CHECK(mfprio::config::fairshare_options_of(*classic).algo == algorithm::classic);
    auto depth = mfprio::config::parse_slurm_conf("PriorityFlags=DEPTH_OBLIVIOUS\n", "slurm.conf");
    REQUIRE(depth);
    CHECK(mfprio::config::fairshare_options_of(*depth).algo == algorithm::depth_oblivious);
}

namespace {

/// tests/data/usage read: slurm.conf, the QOS, association and jobs tables, the tree.
struct usage_inputs {
    mfprio::config::slurm_conf conf;
    mfprio::config::qos_table qos;
    mfprio::config::assoc_table assoc;
    mfprio::config::jobs_table jobs;
    mfprio::config::fairshare_tree ft;
};

usage_inputs read_usage_inputs() {
    const std::string dir = std::string(MFPRIO_TEST_DATA) + "/usage/";
    auto conf = mfprio::config::read_slurm_conf(dir + "slurm.conf");
    auto qos = mfprio::config::read_qos_table(dir + "qos.txt");
    auto assoc = mfprio::config::read_assoc_table(dir + "assoc.txt");
    REQUIRE(conf);
    REQUIRE(qos);
    REQUIRE(assoc);
    auto jobs = mfprio::config::read_jobs_table(dir + "jobs.txt", *conf, *qos, *assoc);
    auto ft = mfprio::config::fairshare_tree_from(*assoc, "assoc.txt");
    REQUIRE(jobs);
    REQUIRE(ft);
    return {std::move(*conf), std::move(*qos), std::move(*assoc), std::move(*jobs), std::move(*ft)};
}

} // namespace

TEST_CASE("config: charge_running_jobs charges running jobs with Slurm's decay, billing weights and UsageFactor") {
    // tests/data/usage: half-life 1 day, PriorityCalcPeriod 5 min; 600 s = two passes of 300 s.
    // D = 1 - 0.693/86400, D^300 = 0.9975966330719699 (reference 2.1 table).
    // u1: 4 CPUs, no billing weights -> billable 4: 1200*D^600 + 1200*D^300 = 2391.35
    // u3: partition `billed` CPU=1.0,Mem=0.25G, 1 CPU and 60 GB -> 1 + 15 = 16 (seed 000's
    //     Job1), QOS UsageFactor 2: 9600*D^600 + 9600*D^300 = 19130.84
    // u2: pending, its 1000 decayed twice: 1000*D^600 = 995.20
    auto in = read_usage_inputs();
    mfprio::config::charge_running_jobs(in.ft, in.conf, in.qos, in.jobs, 1767225600, 600);
    const auto usage = [&](std::size_t row) { return static_cast<double>(in.ft.tree.usage_raw[in.ft.tree_index_of_row[row]]); };
    // Rows: root, a, a/u1, a/u2, b, b/u3.
    CHECK(usage(2) == doctest::Approx(2391.35).epsilon(1e-5));
    CHECK(usage(3) == doctest::Approx(995.20).epsilon(1e-5));
    CHECK(usage(5) == doctest::Approx(19130.84).epsilon(1e-5));
    CHECK(usage(1) == doctest::Approx(2391.35 + 995.20).epsilon(1e-5));
    CHECK(usage(0) == doctest::Approx(2391.35 + 995.20 + 19130.84).epsilon(1e-5));
}

TEST_CASE("config: a charge's cost and its bound: passes x (associations + running chains), usage past 2^64 named") {
    // tests/data/usage: PriorityCalcPeriod 5 min, six associations (root, a, a/u1, a/u2, b,
    // b/u3); u1 and u3 run, each three associations deep (root, account, user).
    auto in = read_usage_inputs();
    const auto cost = mfprio::config::charge_cost_of(in.ft, in.conf, in.jobs, 600);
    CHECK(cost.passes == 600 / 300 + 2);
    CHECK(cost.running == 2);
    CHECK(cost.steps_per_pass == 6 + 3 + 3);
    CHECK(cost.steps() == 4 * 12);
    mfprio::config::charge_running_jobs(in.ft, in.conf, in.qos, in.jobs, 1767225600, 600);
    CHECK_FALSE(mfprio::config::usage_past_sshare(in.ft, in.assoc, "assoc.txt"));
    // A user's usage at 2^64 (what sshare cannot print as its uint64_t RawUsage): named at its
    // row (line 5 of the file: u2), before any account that holds it.
    in.ft.tree.usage_raw[in.ft.tree_index_of_row[3]] = 18446744073709551616.0L;
    const auto e = mfprio::config::usage_past_sshare(in.ft, in.assoc, "assoc.txt");
    REQUIRE(e);
    CHECK(e->file == "assoc.txt");
    CHECK(e->line == in.assoc.rows[3].line);
    CHECK(e->message.find("'a' user 'u2' reaches 2^64") != std::string::npos);
}
