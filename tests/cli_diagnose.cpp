// `mfprio diagnose` against expectations derived outside mfprio.
//
// tests/data/diagnose: a maui.cfg that turns on every component (SERV with QUEUETIME,
// XFACTOR, SPVIOLATION and BYPASS; TARG; CRED with DEFAULT fallbacks, QTWEIGHT/XFWEIGHT and a
// group CLASSWEIGHT that Maui 3.3 does not apply; FS with every target kind, FSCAP and two decayed FS.<epoch> windows;
// RES with PE, an unweighted UJOB, RESCAP; USAGE), seven jobs (QUEUEPOLICY accrual after a
// hold release and a policy block, a relative and an absolute system priority, a negative
// sum, a running job) and four 32-processor nodes. expected_p.txt is what Maui 3.3's
// `diagnose -p` prints for them: derive_expected_p.py adds up values worked out by hand from
// MJobGetStartPriority and prints them with its printf formats (see that script). Hand
// checks of job 101 (alice, now 1800000000, submitted 2 h before): QUEUETIME 120 min x
// (1 + QTWEIGHT 10); XFACTOR (7200 + 3600) / 3600 = 3 x (100 + XFWEIGHT 50); BYPASS 2 x 10;
// TARGETXFACTOR (4 - 3)^-2 = 1; CRED 2000 + 10000 + 0 + 500 + 5; fair-share usage
// (W0 + 0.5 W1) / 1000: alice 60% against 65 -> +5 x 10, chem 70% against 60 -> -10 x 30;
// RES 1 + 10 x 16 + 5 x PE 16 (UJOBWEIGHT -100 is not weighted in Maui 3.3). Sum 1790 + 1 +
// 12505 - 250 + 241 = 14287.

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cli.hpp"

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
std::string group_class_weight_warning() {
    return "mfprio: warning: " + data("maui.cfg") +
           ":44:19: GROUPCFG[guests] CLASSWEIGHT: Maui 3.3 stores 0 for a group's CLASSWEIGHT (MGroupProcessConfig "
           "converts the whole piece): no effect on the CLASS weight\n";
}
std::string temp_file(const std::string& name, const std::string& text) {
    const std::string path = "/tmp/mfprio_cli_diagnose_" + name;
    std::ofstream(path) << text;
    return path;
}
} // namespace

TEST_CASE("cli: diagnose prints Maui 3.3's diagnose -p, byte for byte, for a scenario using every component") {
    const auto o = diagnose({});
    CHECK(o.status == 0);
    // maui.cfg's GROUPCFG[guests] CLASSWEIGHT=3: read as Maui 3.3 reads it, with a warning.
    CHECK(o.err == group_class_weight_warning());
    CHECK(o.out == slurp(data("expected_p.txt")));
    // Job 101's line carries the hand-checked sum; job 107's sum is negative (its priority is
    // floored to 1 after the line is printed); 106 (setspri 500) and 104 (setspri -r 100)
    // are starred.
    CHECK(o.out.find("\n101                       14287    84.6(") != std::string::npos);
    CHECK(o.out.find("\n107                        -884 ") != std::string::npos);
    CHECK(o.out.find("\n106                        9110* ") != std::string::npos);
    CHECK(o.out.find("\n104                        1606* ") != std::string::npos);
}

TEST_CASE("cli: diagnose with no idle job prints Maui's one line") {
    const std::string jobs = temp_file("none_idle.txt", "JobID|User|SubmitTime|State|StartTime|WCLimit\n"
                                                        "1|alice|1799990000|Running|1799998200|1:00:00\n"
                                                        "2|bob|1799990000|UserHold||1:00:00\n");
    const auto o = diagnose({}, data("maui.cfg"), jobs);
    CHECK(o.status == 0);
    // UIDiagnosePriority's one line, and the diagnose client's "%s\n" after it.
    CHECK(o.out == "no idle jobs in queue\n\n");
}

TEST_CASE("cli: diagnose --running shows the run priority and the USAGE component") {
    // Job 105: 32 procs, started 1800 s before now, 1-hour limit. MJobGetRunPriority: CONSUMED
    // 32 x 1800 = 57600, PERCENT 1800 x 100 / max(1, 3600 - 1800) = 100, REMAININGWEIGHT 0:
    // 1 x (1 x 57600 + 10 x 100) + its start priority. Start priority by hand: SERV 11 x
    // 3000/60 min + 150 x (3000 + 3600)/3600 = 1833.33 + 566.67 = 2400; TARG (4 - 3.7778)^-2 =
    // 20.25; CRED 12505; FS -250; RES 1 + 320 + 160 = 481: 15156.25 -> 15156. Run priority
    // 58600 + 15156 = 73756.
    const auto o = diagnose({"--running"});
    CHECK(o.status == 0);
    CHECK(o.out.find("\n105 ") != std::string::npos);
    CHECK(o.out.find(" 73756 ") != std::string::npos);
    CHECK(o.out.find("UJob") == std::string::npos); // not weighted in Maui 3.3
    CHECK(o.out.find("\n101 ") == std::string::npos); // idle jobs are not listed
}

TEST_CASE("cli: diagnose --explain gives every subcomponent") {
    const auto o = diagnose({"--explain", "101"});
    CHECK(o.status == 0);
    CHECK(o.out.find("QUEUETIME: 120 x weight 11 = 1320\n") != std::string::npos);
    CHECK(o.out.find("XFACTOR: 3 x weight 150 = 450\n") != std::string::npos);
    CHECK(o.out.find("FS: weight 1 x -250 = -250\n") != std::string::npos);
    CHECK(o.out.find("UJOB") == std::string::npos); // weight 0 in Maui 3.3: not listed
    CHECK(o.out.find("priority: 14287 (the sum, truncated)\n") != std::string::npos);
    const auto floored = diagnose({"--explain", "107"});
    CHECK(floored.out.find("priority: 1 (floored at 1") != std::string::npos);
    const auto missing = diagnose({"--explain", "999"});
    CHECK(missing.status == mfprio::cli::exit_data);
    CHECK(missing.err == group_class_weight_warning() + "mfprio: " + data("jobs.txt") + ": job 999 is not in the jobs table\n");
}

TEST_CASE("cli: diagnose formula options change the numbers") {
    // Moab's symmetric caps bound job 103's FS sum (-10 x 10 - 10 x 30 = -400) at -FSCAP = -50:
    // its sum rises from -174 (floored to 1) to 176.
    const auto maui = diagnose({"--explain", "103"});
    CHECK(maui.out.find("sum: -174\n") != std::string::npos);
    CHECK(maui.out.find("priority: 1 (floored at 1") != std::string::npos);
    const auto moab = diagnose({"--explain", "103", "--caps", "moab"});
    CHECK(moab.out.find("FS: weight 1 x -50 (capped from -400) = -50\n") != std::string::npos);
    CHECK(moab.out.find("priority: 176 ") != std::string::npos);
    // Group guests' CLASSWEIGHT 3 applied as documented (option): job 103's CLASS term (debug,
    // priority 100) is 300 instead of 100, its sum -174 + 200 = 26.
    const auto doc_class = diagnose({"--explain", "103", "--group-classweight", "doc"});
    CHECK(doc_class.out.find("CLASS: 100 x weight 3 = 300\n") != std::string::npos);
    CHECK(doc_class.out.find("priority: 26 ") != std::string::npos);
    CHECK(maui.out.find("CLASS: 100 x weight 1 = 100\n") != std::string::npos);
    // The documented XFACTOR form for job 103 (5-minute limit, XFMINWCLIMIT 10 minutes, queued
    // 10 minutes): 1 + 600/600 = 2 instead of (600 + 300)/600 = 1.5.
    const auto doc = diagnose({"--explain", "103", "--xfactor", "doc"});
    CHECK(doc.out.find("XFACTOR: 2 x weight 100 = 200\n") != std::string::npos);
    CHECK(maui.out.find("XFACTOR: 1.5 x weight 100 = 150\n") != std::string::npos);
    // Maui 3.3's TARGETQUEUETIME (the default) is pow(MAX(.0001, QTTarget - EffQTime), -2)
    // with EffQTime an epoch time: always the 0.0001^-2 ceiling; Moab's 1000^min(1, 7200 /
    // 14400) = 31.62 as an option.
    const std::string qt_cfg =
        temp_file("qttarget.cfg", slurp(data("maui.cfg")) + "QOSCFG[high] QTTARGET=4:00:00\n");
    const auto q33 = diagnose({"--explain", "101"}, qt_cfg);
    CHECK(q33.out.find("TARGETQUEUETIME: 1e+08 x weight 1") != std::string::npos);
    const auto qmoab = diagnose({"--explain", "101", "--qttarget", "moab"}, qt_cfg);
    CHECK(qmoab.out.find("TARGETQUEUETIME: 31.6228 x weight 1") != std::string::npos);
    // UPROC and UJOB weighted as Moab does (option): job 101's user alice has one running job.
    const auto moab_res = diagnose({"--explain", "101", "--uproc-ujob", "moab"});
    CHECK(moab_res.out.find("UJOB: 1 x weight -100 = -100\n") != std::string::npos);
    CHECK(moab_res.out.find("priority: 14187 ") != std::string::npos);
}

TEST_CASE("cli: lint --maui-cfg lists what Maui 3.3 reads otherwise than it looks") {
    const std::string cfg = temp_file("lint.cfg", "QUEUETIMEWEIGHT 1.5\nSERVWEIGHT 2\nFSDEPTH 30\n");
    const std::vector<std::string_view> args{"--maui-cfg", cfg};
    const auto o = mfprio::cli::run_lint(args);
    CHECK(o.status == 1);
    CHECK(o.out == "warning: " + cfg + ":1:17: QUEUETIMEWEIGHT: Maui 3.3 reads '1.5' as 1\n" +
                       "warning: " + cfg + ":2:1: SERVWEIGHT: Maui 3.3 does not read SERVWEIGHT and ignores the line " +
                       "(Maui 3.3's parameter is SERVICEWEIGHT)\n" + "warning: " + cfg +
                       ":3:9: FSDEPTH: FSDEPTH 30 is above Maui 3.3's limit: it uses 24 fair-share windows\n");
    const std::string scenario = data("maui.cfg");
    const std::vector<std::string_view> clean{"--maui-cfg", scenario};
    const auto c = mfprio::cli::run_lint(clean);
    CHECK(c.status == 1);
    CHECK(c.out == group_class_weight_warning().substr(std::string("mfprio: ").size()));
    const std::string written = temp_file("written.cfg", "QUEUETIMEWEIGHT 2\nGROUPCFG[g] PRIORITY=5\n");
    const std::vector<std::string_view> clean_args{"--maui-cfg", written};
    const auto k = mfprio::cli::run_lint(clean_args);
    CHECK(k.status == 0);
    CHECK(k.out == "ok: Maui 3.3 reads " + written + " as written\n");
    // A maui.cfg that cannot be read: exit 65, the file named, nothing on standard output.
    const std::vector<std::string_view> missing{"--maui-cfg", "/nonexistent/maui.cfg"};
    const auto m = mfprio::cli::run_lint(missing);
    CHECK(m.status == mfprio::cli::exit_data);
    CHECK(m.out == "");
    CHECK(m.err == "mfprio: /nonexistent/maui.cfg: cannot open file\n");
    const std::vector<std::string_view> both{"--maui-cfg", cfg, "--conf", cfg};
    CHECK(mfprio::cli::run_lint(both).status == mfprio::cli::exit_usage);
}

TEST_CASE("cli: diagnose usage errors") {
    using mfprio::cli::exit_usage;
    CHECK(mfprio::cli::run_diagnose(std::vector<std::string_view>{}).status == exit_usage);
    CHECK(diagnose({"--bogus"}).status == exit_usage);
    CHECK(diagnose({"--caps", "both"}).err.find("--caps takes maui or moab") != std::string::npos);
    CHECK(diagnose({"--uproc-ujob", "both"}).err.find("--uproc-ujob takes maui33 or moab") != std::string::npos);
    CHECK(diagnose({"--qttarget", "both"}).err.find("--qttarget takes moab or maui33") != std::string::npos);
    CHECK(diagnose({"--now", "yesterday"}).status == exit_usage);
    CHECK(diagnose({"--conf", "x"}).err.find("give --nodes or --conf, not both") != std::string::npos);
    CHECK(diagnose({"--explain"}).err.find("needs a value") != std::string::npos);
    const auto help = mfprio::cli::run_diagnose(std::vector<std::string_view>{"--help"});
    CHECK(help.status == 0);
    CHECK(help.out.find("--maui-cfg FILE") != std::string::npos);
}

TEST_CASE("cli: diagnose reports bad input with file and line, and prints nothing") {
    const std::string cfg = temp_file("bad.cfg", "FSWEIGHT 100\nFSPOLICY sometimes\n");
    const auto o = diagnose({}, cfg);
    CHECK(o.status == mfprio::cli::exit_data);
    CHECK(o.out == "");
    CHECK(o.err.find(cfg + ":2:10: FSPOLICY: expected NONE") != std::string::npos);
    // What Maui 3.3 accepts is computed as it reads it, with the warning on standard error:
    // XFACTORWEIGHT "lots" is -1 (MCfgProcessLine's "using default value"), which it then
    // refuses ("has invalid value"): the 5 of the line before stays.
    const std::string odd = temp_file("odd.cfg", "FSWEIGHT 100\nXFACTORWEIGHT 5\nXFACTORWEIGHT lots\n");
    const auto w = diagnose({}, odd);
    CHECK(w.status == 0);
    CHECK(w.err == "mfprio: warning: " + odd +
                       ":3:15: XFACTORWEIGHT: Maui 3.3 cannot read 'lots' as an integer: -1, which Maui 3.3 "
                       "refuses, keeping the value before\n");
    CHECK(w.out.find("1(    1:    5)") != std::string::npos);

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
