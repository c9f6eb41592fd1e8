// Maui 3.3 as it runs: captures of a real Maui (TempleHPC/maui-scheduler, the 3.3.2 code, in
// its simulation mode) made by tests/live/maui.sh, replayed from Maui's own outputs. Each
// directory under tests/data/maui holds maui.cfg, the simulator's resource and workload
// traces, the FS.<epoch> files and what diagnose -p, showq, checkjob -v and showstats -v
// printed. Every expected value below is what that Maui printed; the function named is where
// Maui 3.3's code makes it so.

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include <mfprio/read/maui_outputs.hpp>

#include "cli.hpp"

namespace {
std::string capture(const std::string& name) { return std::string(MFPRIO_TEST_DATA) + "/maui/" + name; }
std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}
mfprio::cli::outcome diagnose(std::vector<std::string_view> args) { return mfprio::cli::run_diagnose(args); }
} // namespace

TEST_CASE("maui live: every capture replays byte for byte, and every idle job's StartPriority") {
    std::size_t captures = 0;
    for (const auto& d : std::filesystem::directory_iterator(std::string(MFPRIO_TEST_DATA) + "/maui")) {
        const std::string dir = d.path().string();
        CAPTURE(dir);
        const auto o = diagnose({"--from", dir, "--check"});
        CHECK(o.status == 0);
        CHECK(o.out.find("diagnose -p: identical to ") == 0);
        CHECK(o.out.find("mfprio and Maui agree: diagnose -p byte for byte, StartPriority of ") != std::string::npos);
        // The same without --check prints Maui's text itself.
        const auto p = diagnose({"--from", dir});
        CHECK(p.out == slurp(dir + "/diagnose.txt"));
        ++captures;
    }
    CHECK(captures >= 7);
}

TEST_CASE("maui live: the diagnose client's last newline (MCDiagnose prints the server's text with \"%s\\n\")") {
    const std::string maui = slurp(capture("service-3/diagnose.txt"));
    REQUIRE(maui.size() > 2);
    CHECK(maui.ends_with("* indicates system prio set on job\n\n"));
    CHECK(diagnose({"--from", capture("service-3")}).out.ends_with("* indicates system prio set on job\n\n"));
}

TEST_CASE("maui live: GROUPCFG CLASSWEIGHT has no effect (MGroupProcessConfig stores strtol(\"CLASSWEIGHT=3\") = 0)") {
    // service: GROUPCFG[guests] CLASSWEIGHT=3, CLASSWEIGHT 2, CREDWEIGHT 2. Job 100 (dave,
    // guests, class batch of priority 1): checkjob's StartPriority 8992 has CLASS 1 x 2 x 2;
    // with the group's weight applied (the documentation's reading) it would be 1 x 3 x 2,
    // 2 more.
    const std::string cj = slurp(capture("service-3/checkjob.txt"));
    CHECK(cj.find("PE:  8.00  StartPriority:  8992") != std::string::npos);
    const auto doc = diagnose({"--from", capture("service-3"), "--check", "--group-classweight", "doc"});
    CHECK(doc.status == 1);
    CHECK(doc.out.find("job 100: checkjob's StartPriority 8992, mfprio 8994\n") != std::string::npos);
    CHECK(diagnose({"--from", capture("service-3"), "--check"}).status == 0);
}

TEST_CASE("maui live: an integer parameter of -1 is refused (MCfgProcessLine: \"parameter has invalid value\")") {
    // service's maui.cfg sets QOSWEIGHT -1: Maui keeps the code default 0, so its header has
    // no QOS column although every job has a QOS of priority 10 or 1000.
    const std::string cfg = slurp(capture("service-3/maui.cfg"));
    CHECK(cfg.find("QOSWEIGHT             -1\n") != std::string::npos);
    const std::string maui = slurp(capture("service-3/diagnose.txt"));
    CHECK(maui.find("Cred( User:Group:Accnt:Class)") != std::string::npos);
    CHECK(maui.find("QOS") == std::string::npos);
    const auto c = mfprio::config::parse_maui_cfg(cfg, "maui.cfg");
    REQUIRE(c);
    CHECK(c->weights[mfprio::maui::subcomponent::qos] == 0);
}

TEST_CASE("maui live: a negative zero share prints -0.0 (MPriority.c's ABS macro keeps it)") {
    // service: SPVIOLATIONWEIGHT -50 and no job violates a soft policy: each job's SPVio cell
    // is 1 x -50 x 0 = -0.0, and the footer's share ABS(0 x -50 x 1 x 100 / total) stays -0.0.
    const std::string maui = slurp(capture("service-3/diagnose.txt"));
    const std::size_t footer = maui.find("Percent Contribution");
    REQUIRE(footer != std::string::npos);
    CHECK(maui.find(":  0.6: -0.0:  0.0)", footer) != std::string::npos);
    const auto o = diagnose({"--from", capture("service-3")});
    CHECK(o.out.find(":  0.6: -0.0:  0.0)", o.out.find("Percent Contribution")) != std::string::npos);
}

TEST_CASE("maui live: right after setspri the old order (UIDiagnosePriority walks MUIQ, sorted last iteration)") {
    // system, iteration 7: `setspri -r 100 305` and `setspri 500 301` made without an
    // iteration since. Maui lists 304 before 305 though 305's priority is now higher (both
    // starred ones show their marks); one iteration later (system-8) 305 comes first.
    const std::string before = slurp(capture("system-7s/diagnose.txt"));
    CHECK(before.find("\n304 ") < before.find("\n305 "));
    CHECK(before.find("\n305                   100000196*") != std::string::npos);
    const std::string after = slurp(capture("system-8/diagnose.txt"));
    CHECK(after.find("\n305 ") < after.find("\n304 "));
    // showq (captured at the same time) carries that order; without it mfprio sorts by the
    // final priorities and puts 301 (setspri 500: 1e9 + 500) first.
    const std::string dir = capture("system-7s");
    const auto sorted = diagnose({"--maui-cfg", dir + "/maui.cfg", "--jobs", dir + "/checkjob.txt", "--stats",
                                  dir + "/showstats.txt", "--nodes", dir + "/resources.trace", "--fs-dir", dir + "/fs"});
    CHECK(sorted.out != before);
    CHECK(sorted.out.find("\n301 ") < sorted.out.find("\n304 "));
    const auto ordered = diagnose({"--maui-cfg", dir + "/maui.cfg", "--jobs", dir + "/checkjob.txt", "--stats",
                                   dir + "/showstats.txt", "--nodes", dir + "/resources.trace", "--fs-dir",
                                   dir + "/fs", "--showq", dir + "/showq.txt"});
    CHECK(ordered.out == before);
}

TEST_CASE("maui live: Maui's outputs told apart by content, and read") {
    using namespace mfprio::config;
    const std::string dir = capture("system-7s");
    CHECK(detect_maui_input(slurp(dir + "/checkjob.txt")) == maui_input_kind::checkjob);
    CHECK(detect_maui_input(slurp(dir + "/showq.txt")) == maui_input_kind::showq);
    CHECK(detect_maui_input(slurp(dir + "/showstats.txt")) == maui_input_kind::showstats);
    CHECK(detect_maui_input(slurp(dir + "/resources.trace")) == maui_input_kind::resource_trace);
    CHECK(detect_maui_input(slurp(dir + "/workload.trace")) == maui_input_kind::workload_trace);
    CHECK(detect_maui_input("JobID|User|SubmitTime\n1|a|0\n") == maui_input_kind::table);
    // showstats -v: "current scheduler time: Mon Jan 12 13:59:40 1970 (1000480)".
    const auto st = parse_maui_showstats(slurp(dir + "/showstats.txt"), "showstats.txt");
    REQUIRE(st);
    CHECK(st->now == 1000480);
    CHECK(st->iteration == 7);
    // The resource trace: two nodes of 4 processors, 8192 and 16384 MB.
    const auto r = parse_maui_resource_trace(slurp(dir + "/resources.trace"), "resources.trace");
    REQUIRE(r);
    CHECK(r->procs == 8);
    CHECK(r->mem == 24576);
    // showq: two running jobs, then the idle ones in Maui's order.
    const auto q = parse_maui_showq(slurp(dir + "/showq.txt"), "showq.txt");
    REQUIRE(q);
    std::vector<std::string> idle;
    for (const auto& j : *q)
        if (j.where == maui_showq_job::section::idle) idle.push_back(j.id);
    CHECK(idle == std::vector<std::string>{"304", "305", "301"});
    // checkjob: job 305 (carol, setspri -r 100: SystemPriority 2000000100), queued 5 minutes.
    const auto cj = parse_maui_checkjob(slurp(dir + "/checkjob.txt"), "checkjob.txt", st->now);
    REQUIRE(cj);
    bool found = false;
    for (std::size_t k = 0; k < cj->table.jobs.size(); ++k) {
        const auto& row = cj->table.jobs[k];
        if (row.job.id != 305) continue;
        found = true;
        CHECK(row.creds[0] == "carol");
        CHECK(row.creds[3] == "fast");
        CHECK(row.job.system_priority_mode == mfprio::maui::system_priority_kind::relative);
        CHECK(row.job.system_priority == 100);
        CHECK(row.job.submit_time == 1000480 - 300);
        CHECK(row.job.wclimit == 900);
        CHECK(row.job.procs == 4); // 2 tasks of 2 processors
        CHECK(cj->printed[k].start_priority == 100000296);
    }
    CHECK(found);
}

TEST_CASE("maui live: the workload trace's jobs are the ones checkjob describes") {
    // The simulator keeps each job's credentials (but the QOS, granted by access lists), its
    // tasks, processors and memory per task and its wallclock limit.
    using namespace mfprio::config;
    const std::string dir = capture("service-9");
    const auto trace = parse_maui_workload_trace(slurp(dir + "/workload.trace"), "workload.trace");
    REQUIRE(trace);
    CHECK(trace->jobs.size() == 7);
    const auto st = parse_maui_showstats(slurp(dir + "/showstats.txt"), "showstats.txt");
    REQUIRE(st);
    const auto cj = parse_maui_checkjob(slurp(dir + "/checkjob.txt"), "checkjob.txt", st->now);
    REQUIRE(cj);
    std::size_t compared = 0;
    for (const auto& c : cj->table.jobs)
        for (const auto& t : trace->jobs) {
            if (t.job.id != c.job.id) continue;
            CAPTURE(c.job.id);
            for (const std::size_t k : {0u, 1u, 2u, 4u}) CHECK(t.creds[k] == c.creds[k]);
            CHECK(t.job.wclimit == c.job.wclimit);
            CHECK(t.job.procs == c.job.procs);
            CHECK(t.job.mem_mb == c.job.mem_mb);
            CHECK(t.job.nodes == c.job.nodes);
            ++compared;
        }
    CHECK(compared == cj->table.jobs.size());
    // As a jobs input: the trace's jobs, idle from their trace submission times.
    const auto o = diagnose({"--maui-cfg", dir + "/maui.cfg", "--jobs", dir + "/workload.trace", "--nodes",
                             dir + "/resources.trace", "--now", "1000720"});
    CHECK(o.status == 0);
    CHECK(o.out.find("\n106 ") != std::string::npos);
}

TEST_CASE("maui live: Maui outputs that cannot be read are errors at their line and column") {
    using namespace mfprio::config;
    const auto infinite = parse_maui_checkjob("checking job 7\n\nState: Idle\nCreds:  user:a\n"
                                              "WallTime: 00:00:00 of 1:00:00\nSubmitTime: Mon Jan 12 13:49:40\n"
                                              "  (Time Queued  Total:   INFINITY  Eligible:   INFINITY)\n",
                                              "cj.txt", 1000000);
    REQUIRE(!infinite);
    CHECK(infinite.error().line == 7);
    CHECK(infinite.error().column == 26); // the I of the first INFINITY
    CHECK(infinite.error().message.find("INFINITY") != std::string::npos);
    const auto named = parse_maui_checkjob("checking job SP02.2343.0\n", "cj.txt", 1000000);
    REQUIRE(!named);
    CHECK(named.error().column == 14);
    const auto short_trace = parse_maui_resource_trace("COMPUTENODE AVAILABLE 0 n1 [NONE] 1 1 1 4\n", "r.trace");
    REQUIRE(!short_trace);
    CHECK(short_trace.error().message == "expected 21 fields (version 230), got 9");
    const auto bad_mem = parse_maui_resource_trace(
        "COMPUTENODE AVAILABLE 0 n1 [NONE] 16384 8x 100000 4 -1 -1 1 LINUX X86 [NONE] [batch:4] [NONE] [NONE] [NONE] "
        "[NONE] [NONE]\n",
        "r.trace");
    REQUIRE(!bad_mem);
    CHECK(bad_mem.error().column == 41); // the memory field "8x"
    const auto no_time = parse_maui_showstats("statistics for iteration 3\n", "s.txt");
    CHECK(!no_time);
    // showq: a processor count that is no number, at its column; a text with no section.
    const auto procs = parse_maui_showq("ACTIVE JOBS--------------------\nJOBNAME USERNAME STATE PROC REMAINING STARTTIME\n\n"
                                        "100 alice Running many 2:00:00 Mon Jan 12 13:52:40\n",
                                        "showq.txt");
    REQUIRE(!procs);
    CHECK(procs.error().line == 4);
    CHECK(procs.error().column == 19); // "many"
    CHECK(procs.error().message == "expected a processor count, got 'many'");
    const auto not_showq = parse_maui_showq("hello\n", "showq.txt");
    REQUIRE(!not_showq);
    CHECK(not_showq.error().message.find("not the output of showq") != std::string::npos);
    // The workload trace: a record of 10 fields; a task count that is no number (job 100's
    // record of the service capture with its third field changed).
    const auto fields = parse_maui_workload_trace("VERSION 230\n1 1 1 a g 60 Completed [batch:1] 0 0\n", "w.trace");
    REQUIRE(!fields);
    CHECK(fields.error().line == 2);
    CHECK(fields.error().message == "expected 44 fields (version 230), got 10");
    std::string record;
    {
        std::istringstream trace(slurp(capture("service-3/workload.trace")));
        std::getline(trace, record); // VERSION 230
        std::getline(trace, record); // job 100
    }
    REQUIRE(record.starts_with("100 2 8 "));
    const auto tasks = parse_maui_workload_trace("100 2 x " + record.substr(8) + "\n", "w.trace");
    REQUIRE(!tasks);
    CHECK(tasks.error().line == 1);
    CHECK(tasks.error().column == 7); // "x"
    CHECK(tasks.error().message.find("tasks 'x' is not an integer") != std::string::npos);
    const auto named_job = parse_maui_workload_trace("SP02.1 " + record.substr(4) + "\n", "w.trace");
    REQUIRE(!named_job);
    CHECK(named_job.error().column == 1);
    // A checkjob file given without the scheduler's time: the option to add is named.
    const std::string dir = capture("service-3");
    const auto o = diagnose({"--maui-cfg", dir + "/maui.cfg", "--jobs", dir + "/checkjob.txt"});
    CHECK(o.status == mfprio::cli::exit_data);
    CHECK(o.err.find("give the scheduler's time with --stats FILE or --now") != std::string::npos);
    CHECK(o.out.empty());
}

TEST_CASE("maui live: a capture's files are regular files; a FIFO among them is refused, not waited on") {
    namespace fs = std::filesystem;
    const std::string dir = fs::temp_directory_path().string() + "/mfprio-maui-fifo-" + std::to_string(::getpid());
    fs::remove_all(dir);
    fs::copy(std::string(MFPRIO_TEST_DATA) + "/maui/system-6", dir, fs::copy_options::recursive);
    const std::vector<std::string_view> args{"--from", dir};
    REQUIRE(mfprio::cli::run_diagnose(args).status == 0);
    const std::string fs_file = "fs/" + fs::directory_iterator(dir + "/fs")->path().filename().string();
    for (const std::string& name : std::vector<std::string>{"showq.txt", "maui.cfg", "checkjob.txt", fs_file}) {
        CAPTURE(name);
        const std::string p = dir + "/" + name;
        const std::string keep = dir + ".keep";
        fs::rename(p, keep);
        REQUIRE(mkfifo(p.c_str(), 0600) == 0);
        const auto o = mfprio::cli::run_diagnose(args);
        CHECK(o.status == mfprio::cli::exit_data);
        CHECK(o.err == "mfprio: " + p + ": cannot read file: a FIFO, not a regular file\n");
        fs::remove(p);
        fs::rename(keep, p);
    }
    fs::remove_all(dir);
}
