// `mfprio diagnose` against expectations derived outside mfprio.
//
// tests/data/diagnose: a maui.cfg that turns on every component (SERV with QUEUETIME,
// XFACTOR, SPVIOLATION and BYPASS; TARG; CRED with DEFAULT fallbacks, QTWEIGHT/XFWEIGHT and a
// group CLASSWEIGHT; FS with every target kind, FSCAP and two decayed FS.<epoch> windows;
// RES with PE and UJOB, RESCAP; USAGE for the running job), seven jobs (QUEUEPOLICY accrual
// after a hold release and a policy block, a relative and an absolute system priority, a
// floored job, a running job) and four 32-processor nodes. expected.txt and
// expected_running.txt were computed by an independent script from reference flux_maui.md
// B1-B5 and the layout stated in report/diagnose.hpp. Hand checks of job 101 (alice, now
// 1800000000, submitted 2 h before): QUEUETIME 120 min x (1 + QTWEIGHT 10); XFACTOR
// (7200 + 3600) / 3600 = 3 x (100 + XFWEIGHT 50); BYPASS 2 x 10; TARGETQUEUETIME
// 1000^(7200/14400) = 31.62; TARGETXFACTOR (4 - 3)^-2 = 1; CRED 2000 + 10000 + 0 + 500 + 5;
// fair-share usage (W0 + 0.5 W1) / 1000: alice 60% against 65 -> +5 x 10, chem 70% against 60
// -> -10 x 30; RES 1 + 10 x 16 + 5 x PE 16 - 100 x 1 running job. Sum 1790 + 32.62 + 12505 -
// 250 + 141 = 14218.62 -> 14218.

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "maui_commands.hpp"

namespace {
std::string data(const std::string& name) { return std::string(MFPRIO_TEST_DATA) + "/diagnose/" + name; }
std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}
mfprio::cli::outcome diagnose(std::vector<std::string_view> extra, const std::string& cfg = data("maui.cfg"),
                              const std::string& jobs = data("jobs.txt")) {
    static const std::string nodes = data("nodes.txt"), fs = data("fs");
    std::vector<std::string_view> args{"--maui-cfg", cfg, "--jobs", jobs, "--nodes", nodes,
                                       "--fs-dir", fs, "--now", "1800000000"};
    args.insert(args.end(), extra.begin(), extra.end());
    return mfprio::cli::run_diagnose(args);
}
std::string temp_file(const std::string& name, const std::string& text) {
    const std::string path = "/tmp/mfprio_cli_diagnose_" + name;
    std::ofstream(path) << text;
    return path;
}
} // namespace

TEST_CASE("cli: diagnose prints diagnose -p for a scenario using every component") {
    const auto o = diagnose({});
    CHECK(o.status == 0);
    CHECK(o.err == "");
    CHECK(o.out == slurp(data("expected.txt")));
    // Job 101's row carries the hand-checked priority.
    CHECK(o.out.find("\n101                         14218 ") != std::string::npos);
}

TEST_CASE("cli: diagnose --running shows the run priority and the USAGE component") {
    // Job 105: 32 procs, started 1800 s before now, 1-hour limit: CONSUMED 32 x 1800 = 57600,
    // PERCENT 1800 x 100 / 1800 = 100; run priority = 57600 + 10 x 100 + its start priority.
    const auto o = diagnose({"--running"});
    CHECK(o.status == 0);
    CHECK(o.out == slurp(data("expected_running.txt")));
}

TEST_CASE("cli: diagnose --explain gives every subcomponent") {
    const auto o = diagnose({"--explain", "101"});
    CHECK(o.status == 0);
    CHECK(o.out.find("QUEUETIME: 120 x weight 11 = 1320\n") != std::string::npos);
    CHECK(o.out.find("XFACTOR: 3 x weight 150 = 450\n") != std::string::npos);
    CHECK(o.out.find("FS: weight 1 x -250 = -250\n") != std::string::npos);
    CHECK(o.out.find("UJOB: 1 x weight -100 = -100\n") != std::string::npos);
    CHECK(o.out.find("priority: 14218 (the sum, truncated)\n") != std::string::npos);
    const auto floored = diagnose({"--explain", "107"});
    CHECK(floored.out.find("priority: 1 (floored at 1") != std::string::npos);
    const auto missing = diagnose({"--explain", "999"});
    CHECK(missing.status == mfprio::cli::exit_data);
    CHECK(missing.err == "mfprio diagnose: job 999 is not in the jobs table\n");
}

TEST_CASE("cli: diagnose formula options change the numbers") {
    // Moab's symmetric caps bound job 103's FS sum (-10 x 10 - 10 x 30 = -400) at -FSCAP = -50:
    // its priority rises from 26 to 376.
    const auto maui = diagnose({"--explain", "103"});
    CHECK(maui.out.find("priority: 26 ") != std::string::npos);
    const auto moab = diagnose({"--explain", "103", "--caps", "moab"});
    CHECK(moab.out.find("FS: weight 1 x -50 (capped from -400) = -50\n") != std::string::npos);
    CHECK(moab.out.find("priority: 376 ") != std::string::npos);
    // The documented XFACTOR form for job 103 (5-minute limit, XFMINWCLIMIT 10 minutes, queued
    // 10 minutes): 1 + 600/600 = 2 instead of (600 + 300)/600 = 1.5.
    const auto doc = diagnose({"--explain", "103", "--xfactor", "doc"});
    CHECK(doc.out.find("XFACTOR: 2 x weight 100 = 200\n") != std::string::npos);
    CHECK(maui.out.find("XFACTOR: 1.5 x weight 100 = 150\n") != std::string::npos);
    // Maui 3.3's TARGETQUEUETIME is always pow(0.0001, -2).
    const auto q33 = diagnose({"--explain", "101", "--qttarget", "maui33"});
    CHECK(q33.out.find("TARGETQUEUETIME: 1e+08 x weight 1") != std::string::npos);
}

TEST_CASE("cli: diagnose usage errors") {
    using mfprio::cli::exit_usage;
    CHECK(mfprio::cli::run_diagnose(std::vector<std::string_view>{}).status == exit_usage);
    CHECK(diagnose({"--bogus"}).status == exit_usage);
    CHECK(diagnose({"--caps", "both"}).err.find("--caps takes maui or moab") != std::string::npos);
    CHECK(diagnose({"--now", "yesterday"}).status == exit_usage);
    CHECK(diagnose({"--conf", "x"}).err.find("give --nodes or --conf, not both") != std::string::npos);
    CHECK(diagnose({"--explain"}).err.find("needs a value") != std::string::npos);
    const auto help = mfprio::cli::run_diagnose(std::vector<std::string_view>{"--help"});
    CHECK(help.status == 0);
    CHECK(help.out.find("--maui-cfg FILE") != std::string::npos);
}

TEST_CASE("cli: diagnose reports bad input with file and line, and prints nothing") {
    const std::string cfg = temp_file("bad.cfg", "FSWEIGHT 100\nXFACTORWEIGHT lots\n");
    const auto o = diagnose({}, cfg);
    CHECK(o.status == mfprio::cli::exit_data);
    CHECK(o.out == "");
    CHECK(o.err.find(cfg + ":2:") != std::string::npos);
    CHECK(o.err.find("XFACTORWEIGHT") != std::string::npos);

    const std::string jobs = temp_file("bad_jobs.txt", "JobID|User|SubmitTime|WCLimit\n1|a|100|1:00:00\n2|b|100|soon\n");
    const auto j = diagnose({}, data("maui.cfg"), jobs);
    CHECK(j.status == mfprio::cli::exit_data);
    CHECK(j.out == "");
    CHECK(j.err.find(jobs + ":3:") != std::string::npos);
    CHECK(j.err.find("job 2: WCLimit 'soon' is not a Maui time") != std::string::npos);

    const auto missing = diagnose({}, data("maui.cfg"), "/nonexistent/jobs.txt");
    CHECK(missing.status == mfprio::cli::exit_data);
    CHECK(missing.err.find("/nonexistent/jobs.txt") != std::string::npos);
}
