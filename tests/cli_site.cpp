// site_factor/mfprio's offline twin: `mfprio sprio --site-policy` on what a real slurmctld
// printed with the plugin loaded. tests/data/site_factor/{xfactor,reconfigured,classic,
// depth_oblivious,dbd_down} were captured by tests/live/site_factor.sh from the test cluster
// (Debian 12's Slurm 22.05.8, usage decaying with a half-life of 7 days, a GPU job running;
// dbd_down: DEPTH_OBLIVIOUS with slurmdbd stopped) running site_factor/mfprio, right after
// one of slurmctld's recalculations: the policy the plugin read, its snapshot of that
// recalculation (site_factor_snapshot), the --save bundle of the same moment, and sprio.txt,
// sprio_l.txt and sprio_n.txt, what the real sprio printed. Every expected byte below comes
// from those files.

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <map>
#include <utility>

#include <nlohmann/json.hpp>

#include <sys/stat.h>

#include "cli.hpp"

namespace {
std::string capture(const std::string& name) { return std::string(MFPRIO_TEST_DATA) + "/site_factor/" + name; }
std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}
mfprio::cli::outcome sprio(std::vector<std::string_view> args) { return mfprio::cli::run_sprio(args); }
/// True when a row of `sprio -l` output shows a SITE other than 0 (and other than the
/// cleared -214748364 of a priority set by an administrator).
bool some_site(const std::string& sprio_l) {
    std::istringstream lines(sprio_l);
    std::string line;
    std::getline(lines, line);
    while (std::getline(lines, line)) {
        std::istringstream w(line);
        std::string id, part, user, prio, v;
        w >> id >> part >> user >> prio >> v;
        if (v != "0" && v != "-214748364") return true;
    }
    return false;
}
} // namespace

TEST_CASE("site policy: sprio --site-policy gives the SITE column site_factor/mfprio set in slurmctld") {
    for (const std::string name : {"xfactor", "reconfigured", "classic", "depth_oblivious", "dbd_down"}) {
        CAPTURE(name);
        const std::string dir = capture(name);
        const std::string bundle = dir + "/bundle", policy = dir + "/site.policy";
        const auto plain = sprio({"--from", bundle, "--site-policy", policy, "--site-snapshot", dir});
        CHECK(plain.status == 0);
        CHECK(plain.err.empty());
        CHECK(plain.out == slurp(dir + "/sprio.txt"));
        const auto l = sprio({"--from", bundle, "-l", "--site-policy", policy, "--site-snapshot", dir});
        CHECK(l.out == slurp(dir + "/sprio_l.txt"));
        const auto n = sprio({"--from", bundle, "-n", "--site-policy", policy, "--site-snapshot", dir});
        CHECK(n.out == slurp(dir + "/sprio_n.txt"));
        // At least one job has a SITE other than 0 (the test is about something).
        CHECK(some_site(slurp(dir + "/sprio_l.txt")));
    }
}

TEST_CASE("site policy: without the snapshot, carol's job is not what slurmctld computed") {
    // carol's GPU job runs on n1 throughout: her usage grows at each recalculation after the
    // plugin's update, so that assoc_mgr's GPU minutes and sshare's six decimals of
    // fair-share are not what the recalculation used. Under Fair Tree the GPU usage of the
    // reconfigured policy's gpu_fair_use tells (the ranks are exact without the snapshot);
    // under NO_FAIR_TREE and DEPTH_OBLIVIOUS fair-share does too. Without the snapshot the
    // twin does not find slurmctld's priority for her job 9: it prints its own computation and
    // names the job on stderr with the columns where sprio's row (the bundle's
    // sprio_factors.txt) differs.
    for (const std::string name : {"reconfigured", "classic", "depth_oblivious"}) {
        CAPTURE(name);
        const std::string dir = capture(name);
        const auto l = sprio({"--from", dir + "/bundle", "-l", "--site-policy", dir + "/site.policy"});
        CHECK(l.status == 0);
        CHECK(l.out != slurp(dir + "/sprio_l.txt"));
        CHECK(l.out.find("\n              9 gpu       mfprio-c") != std::string::npos);
        const std::string theirs = slurp(dir + "/sprio_l.txt");
        const auto row = [](const std::string& text) {
            const std::size_t at = text.find("\n              9 gpu");
            return text.substr(at, text.find('\n', at + 1) - at);
        };
        CHECK(row(l.out) != row(theirs));
        CHECK(l.err.find("mfprio sprio: job 9: slurmctld holds priority ") != std::string::npos);
        CHECK(l.err.find("set by an administrator") != std::string::npos); // "sprio does not show it as set by..."
    }
}

TEST_CASE("site policy: the plugin removed: each job keeps the SITE it last gave it, read from sprio") {
    // tests/data/site_factor/removed: tests/live/site_factor.sh's sixth step, slurmctld
    // restarted without PrioritySiteFactorPlugin (Fair Tree, slurmdbd down) and more jobs
    // submitted after its recalculation: the jobs keep the SITE the plugin last set, the new
    // ones have none. No policy is given: each job's SITE is the one sprio printed (the --save
    // bundle's sprio_factors.txt).
    const std::string dir = capture("removed");
    const auto plain = sprio({"--from", dir + "/bundle"});
    CHECK(plain.status == 0);
    CHECK(plain.err.empty());
    CHECK(plain.out == slurp(dir + "/sprio.txt"));
    CHECK(sprio({"--from", dir + "/bundle", "-l"}).out == slurp(dir + "/sprio_l.txt"));
    CHECK(sprio({"--from", dir + "/bundle", "-n"}).out == slurp(dir + "/sprio_n.txt"));
    const auto v = sprio({"--from", dir + "/bundle", "--verify"});
    CHECK(v.status == 0);
    CHECK(v.out.ends_with(" 0 differ (stored priorities, and sprio's own rows column by column)\n"));
    // Some job keeps a SITE other than 0 (the test is about something).
    CHECK(some_site(slurp(dir + "/sprio_l.txt")));
}

TEST_CASE("site policy: another policy gives other SITE values, and the two captures' policies differ") {
    const std::string dir = capture("xfactor");
    const auto mine = sprio({"--from", dir + "/bundle", "-l", "--site-policy", capture("reconfigured") + "/site.policy",
                             "--site-snapshot", dir});
    CHECK(mine.out != slurp(dir + "/sprio_l.txt"));
}

TEST_CASE("site policy: bad --site-policy and --site-snapshot inputs are errors naming the file") {
    const std::string dir = capture("xfactor");
    const std::string bad = "/tmp/mfprio_cli_site_bad.policy";
    std::ofstream(bad) << "queuetime = often\n";
    const auto o = sprio({"--from", dir + "/bundle", "--site-policy", bad});
    CHECK(o.status == mfprio::cli::exit_data);
    CHECK(o.err == "mfprio: " + bad + ":1:13: queuetime: the weight 'often' is not a number\n");
    CHECK(o.out.empty());
    const std::string stamp_dir = "/tmp/mfprio_cli_site_snapshot";
    std::filesystem::create_directories(stamp_dir);
    std::ofstream(stamp_dir + "/site_factor_snapshot") << "pass=soon\n";
    const auto s = sprio({"--from", dir + "/bundle", "--site-policy", dir + "/site.policy", "--site-snapshot", stamp_dir});
    CHECK(s.status == mfprio::cli::exit_data);
    CHECK(s.err == "mfprio: " + stamp_dir + "/site_factor_snapshot:1:6: pass: expected epoch seconds, got 'soon'\n");
    std::filesystem::remove(stamp_dir + "/site_factor_snapshot");
    // A FIFO in place of the snapshot: refused at once (nothing waits for a writer).
    REQUIRE(mkfifo((stamp_dir + "/site_factor_snapshot").c_str(), 0600) == 0);
    const auto fifo = sprio({"--from", dir + "/bundle", "--site-policy", dir + "/site.policy", "--site-snapshot", stamp_dir});
    CHECK(fifo.status == mfprio::cli::exit_data);
    CHECK(fifo.err.find(stamp_dir + "/site_factor_snapshot: cannot read file: a FIFO, not a regular file") != std::string::npos);
    std::filesystem::remove(stamp_dir + "/site_factor_snapshot");
    const auto none = sprio({"--from", dir + "/bundle", "--site-snapshot", stamp_dir});
    CHECK(none.status == mfprio::cli::exit_data);
    CHECK(none.err.find(stamp_dir + "/site_factor_snapshot") != std::string::npos);
    // lint --site-policy: the same error, and the terms of a good policy (the compiled
    // gpu_fair_use among them).
    const std::vector<std::string_view> lint_bad{"--site-policy", bad};
    CHECK(mfprio::cli::run_lint(lint_bad).status == mfprio::cli::exit_data);
    const std::string good = dir + "/site.policy";
    const std::vector<std::string_view> lint_good{"--site-policy", good};
    const auto g = mfprio::cli::run_lint(lint_good);
    CHECK(g.status == 0);
    CHECK(g.out == "ok: " + good + ": xfactor, queuetime\n");
    const std::string gpu = capture("reconfigured") + "/site.policy";
    const std::vector<std::string_view> lint_gpu{"--site-policy", gpu};
    CHECK(mfprio::cli::run_lint(lint_gpu).out.starts_with("ok: " + gpu + ": gpu_fair_use, partition"));
}

TEST_CASE("site policy: a snapshot of another recalculation is not used, and says so") {
    // The captures' recalculations (their bundles' meta and snapshots): xfactor 1795769002,
    // reconfigured 1795769062, classic 1795769128, depth_oblivious 1795769194;
    // PriorityCalcPeriod is 60 s.
    const std::string classic = capture("classic");
    const auto older = sprio({"--from", classic + "/bundle", "-l", "--site-policy", classic + "/site.policy",
                              "--site-snapshot", capture("xfactor")});
    CHECK(older.status == 0);
    CHECK(older.err.find("site_factor_snapshot is older than slurmctld's last recalculation (1795769002 < 1795769128): "
                         "the plugin did not run at it; not used") != std::string::npos);
    CHECK(older.out != slurp(classic + "/sprio_l.txt"));
    const std::string r = capture("reconfigured");
    const auto newer = sprio({"--from", r + "/bundle", "-l", "--site-policy", r + "/site.policy", "--site-snapshot", classic});
    CHECK(newer.status == 0);
    CHECK(newer.err.find("site_factor_snapshot is newer than slurmctld's last recalculation (1795769128 >= "
                         "1795769062 + PriorityCalcPeriod): a recalculation is under way; not used, run again") !=
          std::string::npos);
}

TEST_CASE("site policy: whatif --new-site-policy predicts the queue slurmctld computed after the reconfigure") {
    // From the capture under the xfactor preset, the change to the reconfigured policy, at
    // the time of the plugin's next pass (the reconfigured capture's snapshot): every job's
    // new priority is the one the real sprio printed after `scontrol reconfigure`, but for
    // jobs 8 and 17, whose priorities populate.sh set by hand (scontrol update
    // priority=...), which a recomputation at another time does not keep.
    const std::string x = capture("xfactor"), r = capture("reconfigured");
    const std::string snapshot = slurp(r + "/site_factor_snapshot");
    const std::size_t at = snapshot.find("\npass=");
    REQUIRE(at != std::string::npos);
    const std::string now = snapshot.substr(at + 6, snapshot.find('\n', at + 1) - at - 6);
    const std::string bundle = x + "/bundle", before = x + "/site.policy", after = r + "/site.policy";
    const std::vector<std::string_view> args{"--from", bundle, "--site-policy", before,
                                             "--new-site-policy", after, "--now", now, "--json"};
    const auto o = mfprio::cli::run_whatif(args);
    REQUIRE(o.status == 0);
    const auto j = nlohmann::json::parse(o.out);
    std::map<std::pair<long long, std::string>, long long> real;
    std::istringstream lines(slurp(r + "/sprio_l.txt"));
    std::string line;
    std::getline(lines, line);
    while (std::getline(lines, line)) {
        std::istringstream w(line);
        long long id = 0, prio = 0;
        std::string part, user;
        w >> id >> part >> user >> prio;
        real[{id, part}] = prio;
    }
    std::size_t compared = 0;
    for (const auto& e : j["entries"]) {
        const long long id = e["job_id"].get<long long>();
        if (id == 8 || id == 17) continue;
        const auto it = real.find({id, e["partition"].get<std::string>()});
        REQUIRE(it != real.end());
        CAPTURE(id);
        CHECK(e["new_priority"].get<long long>() == it->second);
        ++compared;
    }
    CHECK(compared == 12);
    CHECK(j["moved_up"].get<long long>() + j["moved_down"].get<long long>() > 0);
}
