// site_factor/mfprio's offline twin: `mfprio sprio --site-policy` on what a real slurmctld
// printed with the plugin loaded. tests/data/site_factor/{xfactor,reconfigured} were captured
// by tests/live/site_factor.sh from the test cluster (Debian 12's Slurm 22.05.8) running
// site_factor/mfprio, right after one of slurmctld's recalculations: the policy the plugin
// read, the time of its last pass (site_factor_pass, its snapshot), the --save bundle of the
// same moment, and sprio.txt and sprio_l.txt, what the real sprio printed. Every expected byte
// below comes from those files.

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

#include "commands.hpp"
#include "whatif_commands.hpp"

namespace {
std::string capture(const std::string& name) { return std::string(MFPRIO_TEST_DATA) + "/site_factor/" + name; }
std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}
mfprio::cli::outcome sprio(std::vector<std::string_view> args) { return mfprio::cli::run_sprio(args); }
} // namespace

TEST_CASE("site policy: sprio --site-policy gives the SITE column site_factor/mfprio set in slurmctld") {
    for (const std::string name : {"xfactor", "reconfigured"}) {
        CAPTURE(name);
        const std::string dir = capture(name);
        const std::string bundle = dir + "/bundle", policy = dir + "/site.policy";
        const auto plain = sprio({"--from", bundle, "--site-policy", policy, "--site-snapshot", dir});
        CHECK(plain.status == 0);
        CHECK(plain.out == slurp(dir + "/sprio.txt"));
        const auto l = sprio({"--from", bundle, "-l", "--site-policy", policy, "--site-snapshot", dir});
        CHECK(l.out == slurp(dir + "/sprio_l.txt"));
        // At least one job has a SITE other than 0 (the test is about something).
        const std::string expected = slurp(dir + "/sprio_l.txt");
        bool site = false;
        std::istringstream lines(expected);
        std::string line;
        std::getline(lines, line);
        while (std::getline(lines, line)) {
            std::istringstream w(line);
            std::string id, part, user, prio, s;
            w >> id >> part >> user >> prio >> s;
            if (s != "0" && s != "-214748364") site = true;
        }
        CHECK(site);
    }
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
    std::ofstream(stamp_dir + "/site_factor_pass") << "pass=soon\n";
    const auto s = sprio({"--from", dir + "/bundle", "--site-policy", dir + "/site.policy", "--site-snapshot", stamp_dir});
    CHECK(s.status == mfprio::cli::exit_data);
    CHECK(s.err == "mfprio: " + stamp_dir + "/site_factor_pass:1:1: expected pass=EPOCH, got 'pass=soon'\n");
    CHECK(sprio({"--from", dir + "/bundle", "--site-snapshot", dir}).status == mfprio::cli::exit_usage);
    // lint --site-policy: the same error, and the terms of a good policy.
    const std::vector<std::string_view> lint_bad{"--site-policy", bad};
    CHECK(mfprio::cli::run_lint(lint_bad).status == mfprio::cli::exit_data);
    const std::string good = dir + "/site.policy";
    const std::vector<std::string_view> lint_good{"--site-policy", good};
    const auto g = mfprio::cli::run_lint(lint_good);
    CHECK(g.status == 0);
    CHECK(g.out == "ok: " + good + ": xfactor, queuetime\n");
}

TEST_CASE("site policy: whatif --new-site-policy predicts the queue slurmctld computed after the reconfigure") {
    // From the capture under the xfactor preset, the change to the reconfigured policy, at
    // the time of the plugin's next pass (the reconfigured capture's site_factor_pass): every
    // job's new priority is the one the real sprio printed after `scontrol reconfigure`, but
    // for jobs 8 and 17, whose priorities populate.sh set by hand (scontrol update
    // priority=...), which a recomputation at another time does not keep.
    const std::string x = capture("xfactor"), r = capture("reconfigured");
    const std::string pass = slurp(r + "/site_factor_pass");
    REQUIRE(pass.starts_with("pass="));
    const std::string now = pass.substr(5, pass.find('\n') - 5);
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
