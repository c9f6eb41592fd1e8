// Tests for mfprio/read/maui_jobs.hpp (the Maui jobs and nodes tables) and
// mfprio/model/maui_model.hpp (credentials, DEFAULTs, UPROC/UJOB, fair-share windows).
#include <doctest/doctest.h>

#include <mfprio/model/maui_model.hpp>

#include <string>

using namespace mfprio;
using namespace mfprio::config;

TEST_CASE("config: Maui jobs table with every column") {
    const auto t = parse_maui_jobs(
        "JobID|User|Group|Account|QOS|Class|SubmitTime|EligibleTime|PolicyBlockedTime|BlockedTime|State|StartTime|"
        "WCLimit|Procs|Nodes|Mem|Swap|Disk|Bypass|SPViolation|SystemPriority|Comment\n"
        "7|alice|staff|chem|high|batch|1000|1100|1200|1300|PENDING||1:30:00|16|2|4096|512|100|3|yes|+25|x\n"
        "8|bob|||||1970-01-01T00:20:00||||running|1500|1:00:00:00||||||||500|\n"
        "9|carol|||||2000|||||||||||||no|-7|\n",
        "jobs.txt");
    REQUIRE(t);
    REQUIRE(t->jobs.size() == 3);
    const auto& a = t->jobs[0];
    CHECK(a.creds == std::array<std::string, 5>{"alice", "staff", "chem", "high", "batch"});
    CHECK(a.job.id == 7);
    CHECK(a.job.submit_time == 1000);
    CHECK(a.job.eligible_time == 1100);
    CHECK(a.job.policy_blocked_time == 1200);
    CHECK(a.job.blocked_time == 1300);
    CHECK(a.job.wclimit == 5400);  // 1:30:00 as [[[DD:]HH:]MM:]SS
    CHECK(a.job.procs == 16);
    CHECK(a.job.nodes == 2);
    CHECK(a.job.mem_mb == 4096);
    CHECK(a.job.swap_mb == 512);
    CHECK(a.job.disk_mb == 100);
    CHECK(a.job.bypass == 3);
    CHECK(a.job.spviolation);
    CHECK(a.job.system_priority == 25);
    CHECK(a.job.system_priority_mode == maui::system_priority_kind::relative);
    CHECK(a.line == 2);
    const auto& b = t->jobs[1];
    CHECK(b.creds[1].empty()); // no group
    CHECK(b.job.group == maui::no_cred); // resolved later by a model
    CHECK(b.job.submit_time == 1200);    // ISO form, UTC without TZ
    CHECK(b.job.state == job_state::running);
    CHECK(b.job.start_time == 1500);
    CHECK(b.job.wclimit == 86400);       // 1:00:00:00 = one day
    CHECK(b.job.procs == 1);             // defaults
    CHECK(b.job.nodes == 1);
    CHECK(b.job.system_priority == 500);
    CHECK(b.job.system_priority_mode == maui::system_priority_kind::absolute);
    CHECK(t->jobs[2].job.system_priority == -7);
    CHECK(t->jobs[2].job.system_priority_mode == maui::system_priority_kind::relative);
    CHECK_FALSE(t->jobs[2].job.spviolation);
    CHECK(t->jobs[2].job.wclimit == 0);
}

TEST_CASE("config: Maui jobs table errors name file, line, column and the job") {
    const auto err = [](const std::string& text) {
        const auto t = parse_maui_jobs(text, "jobs.txt");
        REQUIRE_FALSE(t);
        return t.error();
    };
    CHECK(err("User|SubmitTime\na|1\n").message == "the jobs table has no JobID column");
    CHECK(err("JobID|SubmitTime\n1|1\n").key == "User");
    CHECK(err("JobID|User\n1|a\n").key == "SubmitTime");
    const std::string head = "JobID|User|SubmitTime|State|StartTime|WCLimit|Procs|SPViolation|SystemPriority\n";
    auto e = err(head + "0|a|1||||||\n");
    CHECK(e.line == 2);
    CHECK(e.column == 1);
    CHECK(e.message == "job: JobID '0' is not an integer from 1 to 4294967295");
    e = err(head + "5|a|1||||||\n5|b|1||||||\n");
    CHECK(e.line == 3);
    CHECK(e.message == "job 5: JobID is listed twice");
    CHECK(err(head + "5||1||||||\n").message == "job 5: empty User");
    CHECK(err(head + "5|a|||||||\n").message == "job 5: empty SubmitTime");
    CHECK(err(head + "5|a|soon||||||\n").message ==
          "job 5: SubmitTime 'soon' is not epoch seconds or YYYY-MM-DDTHH:MM:SS from 1970 to 9999");
    CHECK(err(head + "5|a|1|WAITING|||||\n").message == "job 5: unknown State 'WAITING'");
    CHECK(err(head + "5|a|1|RUNNING|||||\n").message == "job 5: a RUNNING job needs a StartTime");
    CHECK(err(head + "5|a|1||9||||\n").message == "job 5: StartTime is set but the job is not RUNNING");
    CHECK(err(head + "5|a|100|RUNNING|50||||\n").message == "job 5: StartTime is before SubmitTime");
    e = err(head + "5|a|1|||1:xx|||\n");
    CHECK(e.key == "WCLimit");
    CHECK(e.column == 9);
    CHECK(err(head + "5|a|1||||-4||\n").message == "job 5: Procs '-4' is not an integer from 0 to 4294967295");
    CHECK(err(head + "5|a|1|||||maybe|\n").message == "job 5: SPViolation 'maybe' is not TRUE or FALSE");
    CHECK(err(head + "5|a|1||||||1001\n").message ==
          "job 5: an absolute SystemPriority (setspri) must be within 0..1000");
    CHECK(err(head + "5|a|1||||||+2000000000\n").message ==
          "job 5: a relative SystemPriority must be within -1000000000..+1000000000");
    CHECK(err(head + "5|a|1||||||high\n").message == "job 5: SystemPriority 'high' is not N, +N or -N");
    CHECK(err(head + "5|a|1||||||+\n").message == "job 5: SystemPriority '+' is not N, +N or -N");
    CHECK(err(head + "5|a|1||||||+-3\n").message == "job 5: SystemPriority '+-3' is not N, +N or -N");
    CHECK(read_maui_jobs("/nonexistent/mfprio-jobs.txt").error().file == "/nonexistent/mfprio-jobs.txt");
    CHECK(err(head + "5|a|1|||INFINITE|||\n").key == "WCLimit");
    CHECK(err("JobID|User|SubmitTime|Mem\n5|a|1|4Q\n").message ==
          "job 5: Mem '4Q' is not an amount of MB from 0 to 4294967295 (units K, M, G, T)");
    CHECK(err("JobID|User|SubmitTime|Mem\n5|a|1|4096T\n").key == "Mem"); // 2^32 MB
}

TEST_CASE("config: Maui jobs table takes WCLimit INFINITY and memory with units") {
    // MUTimeFromString reads INFINITY as MAX_MTIME (2140000000 s); MULToTString prints
    // INFINITY for limits of 100 days or more; UNLIMITED is how PBS and Slurm print none.
    const auto t = parse_maui_jobs("JobID|User|SubmitTime|WCLimit|Mem|Swap|Disk|Req\n"
                                   "1|a|1|INFINITY|64G|512|1T|\n"
                                   "2|a|1|unlimited|||| 2x(procs=4,mem=2G);1x(procs=1,disk=1536K)\n"
                                   "3|a|1|1:00:00:00|2048kb|||\n",
                                   "jobs.txt");
    REQUIRE(t);
    CHECK(t->jobs[0].job.wclimit == 2140000000u);
    CHECK(t->jobs[0].job.mem_mb == 65536u);
    CHECK(t->jobs[0].job.swap_mb == 512u);
    CHECK(t->jobs[0].job.disk_mb == 1048576u);
    CHECK(t->jobs[1].job.wclimit == 2140000000u);
    CHECK(t->jobs[1].job.mem_mb == 2u * 2048u); // 2 tasks x 2G
    CHECK(t->jobs[1].job.disk_mb == 1u);        // 1536K rounds down to 1 MB, as Maui's shift does
    CHECK(t->jobs[2].job.wclimit == 86400u);
    CHECK(t->jobs[2].job.mem_mb == 2u);
}

TEST_CASE("config: nodes table sums the cluster's resources") {
    const auto r = parse_maui_nodes("Name|Procs|Mem|Swap|Disk\nn1|32|64000|8000|\nn2|16|32000||500\n");
    REQUIRE(r);
    CHECK(r->procs == 48.0);
    CHECK(r->mem == 96000.0);
    CHECK(r->swap == 8000.0);
    CHECK(r->disk == 500.0);
    const auto only_procs = parse_maui_nodes("Name|Procs\na|4\n");
    REQUIRE(only_procs);
    CHECK(only_procs->mem == 0.0);
    CHECK(parse_maui_nodes("Procs\n4\n", "nodes.txt").error().message == "the nodes table has no Name column");
    CHECK(parse_maui_nodes("Name|Procs\n|4\n").error().message == "empty node name");
    const auto twice = parse_maui_nodes("Name|Procs\na|4\na|4\n", "nodes.txt");
    CHECK(twice.error().line == 3);
    CHECK(twice.error().message == "node 'a' is listed twice");
    const auto bad = parse_maui_nodes("Name|Procs|Mem\na|4|lots\n", "nodes.txt");
    CHECK(bad.error().key == "Mem");
    CHECK(bad.error().column == 5);
    CHECK(bad.error().message == "node 'a': Mem 'lots' is not an amount of MB from 0 to 2^53 (units K, M, G, T)");
    // Memory with Maui's units (MURSpecToL, MB the default: b, k, m, g, t shift by 1024s,
    // rounding down): 64G = 65536 MB, 2T = 2097152, 1536K = 1 (1.5 MB rounded down), 512mb = 512,
    // 1073741824b = 1024.
    const auto units = parse_maui_nodes("Name|Procs|Mem|Swap|Disk\nn1|1|64G|1536K|2T\nn2|1|512mb|1073741824b|0\n");
    REQUIRE(units);
    CHECK(units->mem == 65536.0 + 512.0);
    CHECK(units->swap == 1.0 + 1024.0);
    CHECK(units->disk == 2097152.0);
    for (const char* v : {"64X", "64GG", "64Gi", "-1", "1.5G", "G", "9007199254740993", "8796093022209G"}) {
        CAPTURE(v);
        CHECK_FALSE(parse_maui_nodes(std::string("Name|Mem\na|") + v + "\n"));
    }
    CHECK(parse_maui_nodes("Name|Mem\na|8796093022208G\n")->mem == 9007199254740992.0); // 2^53 MB: the bound
    CHECK_FALSE(parse_maui_nodes("Name|Procs\na|64G\n")); // Procs has no unit
    // From slurm.conf NodeName lines: CPUs and RealMemory.
    const auto conf = parse_slurm_conf("NodeName=n[1-4] CPUs=32 RealMemory=64000\n");
    REQUIRE(conf);
    const auto s = maui_nodes_from(*conf);
    CHECK(s.procs == 128.0);
    CHECK(s.mem == 256000.0);
}

TEST_CASE("config: the Maui model resolves credentials, DEFAULTs and running jobs") {
    const auto cfg = parse_maui_cfg("USERCFG[DEFAULT] PRIORITY=7\nUSERCFG[alice] PRIORITY=100\n"
                                    "QOSCFG[high] QTWEIGHT=5\n",
                                    "maui.cfg");
    REQUIRE(cfg);
    const auto jobs = parse_maui_jobs("JobID|User|QOS|SubmitTime|State|StartTime|Procs\n"
                                      "1|bob|high|100|||\n"
                                      "2|alice||100|RUNNING|200|8\n"
                                      "3|alice||100|RUNNING|200|4\n"
                                      "4|bob|low|100|RUNNING|300|2\n");
    REQUIRE(jobs);
    const auto m = build_maui_model(*cfg, *jobs, maui::resources{64, 0, 0, 0}, 1000);
    REQUIRE(m);
    const auto& users = m->names[maui::index(maui::cred_kind::user)];
    // Configured first (DEFAULT apart), then names seen in jobs.
    CHECK(users == std::vector<std::string>{"alice", "bob"});
    CHECK(m->defaults[maui::index(maui::cred_kind::user)].priority == 7);
    CHECK(m->creds[0][0].priority == 100);
    CHECK(m->names[maui::index(maui::cred_kind::qos)] == std::vector<std::string>{"high", "low"});
    CHECK(m->jobs[0].user == 1);
    CHECK(m->jobs[0].qos == 0);
    CHECK(m->jobs[1].qos == maui::no_cred);
    CHECK(m->jobs[3].qos == 1);
    CHECK(m->user_active_procs == std::vector<std::uint32_t>{12, 2});
    CHECK(m->user_active_jobs == std::vector<std::uint32_t>{2, 1});
    CHECK_FALSE(m->fs_active); // FSPOLICY NONE
    // bob has no priority of his own: the DEFAULT user's 7 applies (reference B2).
    const auto ctx = m->context();
    CHECK(maui::user_priority{}(m->jobs[0], ctx) == 7.0);
    CHECK(maui::user_priority{}(m->jobs[1], ctx) == 100.0);
    CHECK(m->name(maui::cred_kind::user, 1) == "bob");
    CHECK(m->name(maui::cred_kind::group, maui::no_cred) == "");
}

TEST_CASE("config: the Maui model loads fair-share windows") {
    auto cfg = parse_maui_cfg("FSPOLICY DEDICATEDPS\nFSDEPTH 2\nFSDECAY 0.5\nACCOUNTCFG[chem] FSTARGET=30\n");
    REQUIRE(cfg);
    const auto jobs = parse_maui_jobs("JobID|User|Account|SubmitTime\n1|alice|chem|100\n");
    REQUIRE(jobs);
    std::vector<maui_fs_window> windows(2);
    windows[0].usage[maui::index(maui::cred_kind::user)] = {{"alice", 30}, {"zed", 10}};
    windows[0].usage[maui::index(maui::cred_kind::account)] = {{"chem", 40}};
    windows[0].total = 40;
    windows[1].usage[maui::index(maui::cred_kind::user)] = {{"alice", 20}};
    windows[1].usage[maui::index(maui::cred_kind::account)] = {{"chem", 20}};
    windows[1].total = 80;
    const auto m = build_maui_model(*cfg, *jobs, {}, 0, windows);
    REQUIRE(m);
    CHECK(m->fs_active);
    CHECK(m->fs_windows == 2);
    // Effective: alice 30 + 0.5 x 20 = 40, chem 40 + 10 = 50, total 40 + 40 = 80 (reference B3).
    CHECK(m->creds[maui::index(maui::cred_kind::user)][0].fs_usage == 50.0);
    CHECK(m->creds[maui::index(maui::cred_kind::account)][0].fs_usage == 62.5);
    // A user only in the files becomes a credential of its own: 10 / 80.
    CHECK(m->names[0] == std::vector<std::string>{"alice", "zed"});
    CHECK(m->creds[0][1].fs_usage == 12.5);
    // FSACCOUNT: 30 - 62.5.
    CHECK(maui::fs_account{}(m->jobs[0], m->context()) == -32.5);
    // The same usage with FSPOLICY NONE: not active.
    cfg->opts.fs_policy = maui::fs_metric::none;
    CHECK_FALSE(build_maui_model(*cfg, *jobs, {}, 0, windows)->fs_active);
}

TEST_CASE("config: Maui's own job states and what they mean for priority") {
    // Maui 3.3's MJobState names (MConst.c), any case. MQueueSelectAllJobs (MPolicy.c) takes
    // only Idle and Suspended jobs into the idle queue that diagnose -p lists; MJOBISACTIVE
    // (moab.h) is Starting or Running, the jobs UPROC and UJOB count; MJOBISCOMPLETE is
    // Completed, Removed or Vacated.
    using mfprio::job_state;
    using mfprio::config::parse_maui_job_state;
    for (const char* s : {"Idle", "idle", "Suspended", "SUSPENDED"}) {
        CAPTURE(s);
        CHECK(parse_maui_job_state(s) == job_state::pending);
    }
    for (const char* s : {"Starting", "Running", "RUNNING"}) {
        CAPTURE(s);
        CHECK(parse_maui_job_state(s) == job_state::running);
    }
    for (const char* s : {"Hold", "UserHold", "SystemHold", "BatchHold", "Deferred", "NotQueued", "Staging", "Staged",
                          "SubmitErr", "NotRun", "Unknown", "HELD"}) {
        CAPTURE(s);
        CHECK(parse_maui_job_state(s) == job_state::held);
    }
    for (const char* s : {"Completed", "Removed", "Vacated", "Lost", "CANCELLED"}) {
        CAPTURE(s);
        CHECK(parse_maui_job_state(s) == job_state::finished);
    }
    CHECK_FALSE(parse_maui_job_state("Blocked")); // a showq section, not a state
    // In a table: an Idle job is pending, a Running one needs its StartTime.
    const auto jobs = mfprio::config::parse_maui_jobs(
        "JobID|User|SubmitTime|State|StartTime\n1|a|100|Idle|\n2|a|100|Running|200\n3|a|100|UserHold|\n");
    REQUIRE(jobs);
    REQUIRE(jobs->jobs.size() == 3);
    CHECK(jobs->jobs[0].job.state == job_state::pending);
    CHECK(jobs->jobs[1].job.state == job_state::running);
    CHECK(jobs->jobs[2].job.state == job_state::held);
}
