// Maui as Maui 3.3's code computes it where the code and the documentation differ: each
// expected value is worked out by hand from the function named in its comment
// (TempleHPC/maui-scheduler: src/MPriority.c MJobGetStartPriority, src/MJob.c MJobGetPE and
// MJobGetRunPriority, src/MUtil.c MClassGetPrio).
#include <doctest/doctest.h>

#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <mfprio/model/maui_model.hpp>
#include <mfprio/maui/factors.hpp>
#include <mfprio/maui/priority.hpp>

#include "cli.hpp"

using namespace mfprio;
using namespace mfprio::maui;

namespace {
std::string temp_file(const std::string& name, const std::string& text) {
    const std::string path = "/tmp/mfprio_maui_code_" + name;
    std::ofstream(path) << text;
    return path;
}
cli::outcome diagnose(const std::string& cfg, const std::string& jobs, std::vector<std::string_view> extra = {}) {
    std::vector<std::string_view> args{"--maui-cfg", cfg, "--jobs", jobs, "--now", "1800000000"};
    args.insert(args.end(), extra.begin(), extra.end());
    return cli::run_diagnose(args);
}
} // namespace

TEST_CASE("maui code: UPROC and UJOB are computed but not weighted; jobs written with Maui's states") {
    // john: one idle 4-processor job, one running 8-processor job. MJobGetStartPriority sets
    // SFactor[mpsRUProc] and [mpsRUJob] but sums RES from mpsRNode to mpsRWallTime, which
    // the enum places before them: PROC 1 x 4 = 4 is the whole priority (QUEUETIME 0, every
    // other subcomponent weight 0 by default).
    const std::string cfg = temp_file("uproc.cfg", "UPROCWEIGHT 10\nUJOBWEIGHT 10\nPROCWEIGHT 1\nQUEUETIMEWEIGHT 0\n");
    const std::string jobs = temp_file("uproc.txt", "JobID|User|SubmitTime|State|StartTime|WCLimit|Procs\n"
                                                    "1|john|1799994600|Idle||1:00:00|4\n"
                                                    "2|john|1799990000|Running|1799998200|1:00:00|8\n");
    const auto o = diagnose(cfg, jobs, {"--explain", "1"});
    CHECK(o.status == 0);
    CHECK(o.out.find("priority: 4 (the sum, truncated)\n") != std::string::npos);
    // Maui's own state names give the normal table: the idle job listed, the running one not.
    const auto table = diagnose(cfg, jobs);
    CHECK(table.status == 0);
    CHECK(table.err == "");
    CHECK(table.out.find("\n1                             4 ") != std::string::npos);
    CHECK(table.out.find("\n2 ") == std::string::npos);
    CHECK(table.out.find("UProc") == std::string::npos);
    // Moab weights them: 4 + 10 x 8 processors + 10 x 1 job = 94.
    const auto moab = diagnose(cfg, jobs, {"--explain", "1", "--uproc-ujob", "moab"});
    CHECK(moab.out.find("priority: 94 (the sum, truncated)\n") != std::string::npos);
}

TEST_CASE("maui code: a SystemPriority of 0 is no system priority") {
    // MJobGetStartPriority applies J->SystemPrio only when > 0; `setspri 0` stores 0. Under the
    // defaults a job queued 90 minutes has priority 90, and its diagnose line has no '*'.
    const std::string cfg = temp_file("empty.cfg", "# defaults\n");
    const std::string jobs = temp_file("sp0.txt", "JobID|User|SubmitTime|WCLimit|SystemPriority\n"
                                                  "1|john|1799994600|1:00:00|0\n"
                                                  "2|mary|1799994600|1:00:00|1\n");
    const auto o = diagnose(cfg, jobs, {"--explain", "1"});
    CHECK(o.status == 0);
    CHECK(o.out.find("priority: 90 (the sum, truncated)\n") != std::string::npos);
    // setspri 1: MAX_PRIO_VAL + 1.
    const auto one = diagnose(cfg, jobs, {"--explain", "2"});
    CHECK(one.out.find("priority: 1000000001 ") != std::string::npos);
    const auto table = diagnose(cfg, jobs);
    CHECK(table.out.find("\n1                            90  ") != std::string::npos);
    CHECK(table.out.find("\n2                            90* ") != std::string::npos);
}

TEST_CASE("maui code: FS gives 0 to a job without the credential, whatever DEFAULT's target") {
    // MJobGetStartPriority: the user and group FS subfactors are computed only when the job
    // has the credential; for account, QOS and class SFactor is set to 0 when it has none.
    // DEFAULT's target applies only to credentials that have none of their own.
    std::vector<credential> users(2), accounts(2);
    users[0].fs_usage = 4;
    accounts[0].fs_usage = 25;
    context c;
    c.fs_active = true;
    c.creds[index(cred_kind::user)] = users;
    c.creds[index(cred_kind::account)] = accounts;
    c.defaults[index(cred_kind::user)].target = {10, fs_target_mode::target};
    c.defaults[index(cred_kind::account)].target = {30, fs_target_mode::target};
    maui::job j;
    j.user = 0;
    j.account = 0;
    CHECK(fs_user{}(j, c) == 6.0);    // 10 - 4
    CHECK(fs_account{}(j, c) == 5.0); // 30 - 25
    j.user = no_cred;
    j.account = no_cred;
    CHECK(fs_user{}(j, c) == 0.0);
    CHECK(fs_account{}(j, c) == 0.0);
}

TEST_CASE("maui code: a job of several requirements: RES sums them, PE as MJobGetPE") {
    // Cluster: 128 processors, 256000 MB. Requirements 2 x (4 procs, 1024 MB) and 1 x (1 proc,
    // 64000 MB). MJobGetPE: per requirement max(procs / 128, mem / 256000) per task times the
    // task count: 2 x max(0.03125, 0.004) + 1 x max(0.0078125, 0.25) = 0.3125; x 128 = 40. The
    // summed request (9 procs, 66048 MB) would give 128 x 0.258 = 33.02.
    const auto t = config::parse_maui_jobs("JobID|User|SubmitTime|Req\n"
                                           "1|john|1000|2x(procs=4,mem=1024,nodes=2);1x(procs=1,mem=64000)\n",
                                           "jobs.txt");
    REQUIRE(t);
    const auto& row = t->jobs[0];
    CHECK(row.job.procs == 9);     // PROC: 2 x 4 + 1 x 1
    CHECK(row.job.mem_mb == 66048); // MEM: 2 x 1024 + 64000
    CHECK(row.job.nodes == 2);
    const auto cfg = config::parse_maui_cfg("PEWEIGHT 1\nPROCWEIGHT 1\nMEMWEIGHT 1\nNODEWEIGHT 1\nQUEUETIMEWEIGHT 0\n");
    REQUIRE(cfg);
    const auto m = config::build_maui_model(*cfg, *t, resources{128, 256000, 0, 0}, 1000);
    REQUIRE(m);
    const auto c = m->context();
    CHECK(processor_equivalent{}(m->jobs[0], c) == 40.0);
    // RES = NODE 2 + PROC 9 + MEM 66048 + PE 40.
    CHECK(m->engine().priority(m->jobs[0], c).value == 66099);
    // One requirement of one task (no Req): PE from the amounts.
    maui::job plain = m->jobs[0];
    plain.req = 0;
    CHECK(processor_equivalent{}(plain, c) == 128.0 * (66048.0 / 256000.0));
}

TEST_CASE("maui code: Req cells that are wrong name the column of the fault") {
    const auto bad = [](std::string_view cell) {
        const auto t = config::parse_maui_jobs("JobID|User|SubmitTime|Req\n1|john|1000|" + std::string(cell) + "\n",
                                               "jobs.txt");
        REQUIRE_FALSE(t);
        return t.error();
    };
    auto e = bad("2x(procs=4");
    CHECK(e.line == 2);
    CHECK(e.column == 15); // the '('
    CHECK(e.message == "job 1: Req: missing ')'");
    e = bad("0x(procs=1)");
    CHECK(e.column == 13);
    CHECK(e.message.find("the task count '0x' is not an integer from 1") != std::string::npos);
    e = bad("2x(procs=4);1x(cpus=2)");
    CHECK(e.column == 28);
    CHECK(e.message.find("unknown key 'cpus'") != std::string::npos);
    e = bad("2x(procs=4) 1x(procs=1)");
    CHECK(e.message.find("expected ';' between requirements") != std::string::npos);
    const auto mismatch = config::parse_maui_jobs("JobID|User|SubmitTime|Procs|Req\n1|john|1000|8|2x(procs=3)\n");
    REQUIRE_FALSE(mismatch);
    CHECK(mismatch.error().message == "job 1: Procs 8 is not the Req total 6");
}
