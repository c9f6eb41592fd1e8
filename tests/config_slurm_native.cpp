// read/slurm_native.hpp, read/scontrol.hpp and read/squeue.hpp: what Slurm prints, read as inputs. The texts below are written in
// the layouts Slurm 22.05 prints (the captures under tests/data/live show the same layouts);
// each expected value is read off the text by hand.

#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include <mfprio/read/jobs_table.hpp>
#include <mfprio/read/slurm_native.hpp>

using namespace mfprio;
using namespace mfprio::config;

namespace {

expected<slurm_conf> conf_of(std::vector<conf_input> in) { return read_slurm_conf_inputs(in); }

constexpr std::string_view show_config =
    "Configuration data as of 2026-11-25T01:56:31\n"
    "AccountingStorageType   = accounting_storage/slurmdbd\n"
    "ClusterName             = mfprio\n"
    "PriorityParameters      = (null)\n"
    "PriorityDecayHalfLife   = 1-00:00:00\n"
    "PriorityCalcPeriod      = 00:01:00\n"
    "PriorityFavorSmall      = No\n"
    "PriorityFlags           = \n"
    "PriorityMaxAge          = 1-00:00:00\n"
    "PriorityUsageResetPeriod = NONE\n"
    "PriorityType            = priority/multifactor\n"
    "PriorityWeightAge       = 10000\n"
    "PriorityWeightFairShare = 50000\n"
    "PriorityWeightTRES      = CPU=1000,Mem=2000,GRES/gpu=3000\n"
    "SLURM_VERSION           = 22.05.8\n"
    "\n"
    "Cgroup Support Configuration:\n"
    "AllowedRAMSpace         = 100.0%\n";

// One node with a value that has spaces and a '#' (the OS string), as `scontrol -o show node`
// prints it; and one multi-line node record.
constexpr std::string_view show_node =
    "NodeName=n1 Arch=x86_64 CoresPerSocket=1  CPUAlloc=0 CPUEfctv=2 CPUTot=2 CPULoad=0.88 Gres=(null) "
    "OS=Linux 6.1.0 #1 SMP PREEMPT_DYNAMIC RealMemory=1000 AllocMem=0 FreeMem=N/A Sockets=2 Boards=1 "
    "State=IDLE ThreadsPerCore=1\n"
    "NodeName=f1 Arch=x86_64 CoresPerSocket=8\n"
    "   CPUAlloc=0 CPUEfctv=16 CPUTot=16 CPULoad=N/A\n"
    "   Gres=gpu:a100:2(S:0-1)\n"
    "   RealMemory=64000 AllocMem=0 FreeMem=N/A Sockets=2 Boards=1\n"
    "\n";

constexpr std::string_view show_partition =
    "PartitionName=debug AllowGroups=ALL Default=YES QoS=N/A DefaultTime=NONE MaxTime=01:00:00 MinNodes=0 "
    "Nodes=n1 PriorityJobFactor=10 PriorityTier=1 State=UP TotalCPUs=2 TotalNodes=1 JobDefaults=(null)\n"
    "PartitionName=big AllowGroups=ALL Default=NO MaxTime=2-00:00:00 Nodes=f1 PriorityJobFactor=40 "
    "PriorityTier=2 State=UP TotalCPUs=16 TotalNodes=1\n";

} // namespace

TEST_CASE("native: detect_kind tells the outputs apart by content") {
    CHECK(detect_kind(show_config) == input_kind::scontrol_config);
    CHECK(detect_kind(show_node) == input_kind::scontrol_records);
    CHECK(detect_kind(show_partition) == input_kind::scontrol_records);
    CHECK(detect_kind("\xEF\xBB\xBF\n  {\"meta\": {}}") == input_kind::json);
    CHECK(detect_kind("JobId=7 JobName=wrap\n") == input_kind::scontrol_jobs);
    CHECK(detect_kind("Current Association Manager state\n") == input_kind::assoc_mgr);
    CHECK(detect_kind("Account|User|RawShares\n") == input_kind::pipe_table);
    // slurm.conf lines with NodeName/PartitionName and keys slurm.conf uses.
    CHECK(detect_kind("NodeName=n[1-4] CPUs=4\nPartitionName=p Nodes=ALL\n") == input_kind::slurm_conf);
    CHECK(detect_kind("PriorityWeightAge=1000\n") == input_kind::slurm_conf);
}

TEST_CASE("native: scontrol show config + partition + node make one configuration") {
    std::string version;
    const std::vector<conf_input> in{{std::string(show_config), "config.txt"},
                                     {std::string(show_partition), "partition.txt"},
                                     {std::string(show_node), "node.txt"}};
    auto c = read_slurm_conf_inputs(in, &version);
    REQUIRE(c);
    CHECK(version == "22.05.8");
    CHECK(c->weight_age == 10000);
    CHECK(c->weight_fairshare == 50000);
    CHECK(c->decay_half_life == 86400);
    CHECK(c->calc_period == 60);
    CHECK(c->max_age == 86400);
    CHECK(c->flags.has(slurm::priority_flag::fair_tree)); // printed empty: the default
    CHECK(c->weight_tres_text == "CPU=1000,Mem=2000,GRES/gpu=3000");
    CHECK(c->cluster_name == "mfprio");
    REQUIRE(c->nodes.size() == 2);
    CHECK(c->nodes[0].name == "n1");
    CHECK(c->nodes[0].cpus == 2);             // CPUTot
    CHECK(c->nodes[0].real_memory == 1000);   // after the OS value with '#'
    CHECK(c->nodes[1].name == "f1");
    CHECK(c->nodes[1].cpus == 16);
    CHECK(c->nodes[1].real_memory == 64000);
    REQUIRE(c->nodes[1].gres.size() == 1);
    CHECK(c->nodes[1].gres[0].second == 2);
    REQUIRE(c->partitions.size() == 2);
    CHECK(c->partitions[0].name == "debug");
    CHECK(c->partitions[0].is_default);
    CHECK(c->partitions[0].max_time == 60);
    CHECK(c->partitions[0].priority_job_factor == 10);
    CHECK(c->partitions[1].max_time == 2880);
    CHECK(c->partitions[1].priority_tier == 2);
    REQUIRE(c->partitions[1].nodes.size() == 1);
    CHECK(c->nodes[c->partitions[1].nodes[0]].name == "f1");
}

TEST_CASE("native: errors point into the file scontrol printed") {
    std::string bad(show_config);
    bad.replace(bad.find("= 10000"), 7, "= 1x000");
    auto c = conf_of({{bad, "config.txt"}});
    REQUIRE(!c);
    // "PriorityWeightAge       = 1x000" is line 12; the value starts in column 27.
    CHECK(c.error().file == "config.txt");
    CHECK(c.error().line == 12);
    CHECK(c.error().column == 27);
    CHECK(c.error().key == "PriorityWeightAge");
    // slurm.conf naming a node no NodeName line defines: Slurm refuses it, and so does mfprio.
    auto p = conf_of({{"PriorityWeightAge=1000\nNodeName=n2 CPUs=2\nPartitionName=debug Nodes=n1,n2\n", "slurm.conf"}});
    REQUIRE(!p);
    CHECK(p.error().file == "slurm.conf");
    CHECK(p.error().line == 3);
    CHECK(p.error().message.find("node 'n1' is not defined") != std::string::npos);
    // Not a configuration at all.
    auto j = conf_of({{"JobId=1 JobName=x\n", "jobs.txt"}});
    REQUIRE(!j);
    CHECK(j.error().message.find("not a slurm.conf") != std::string::npos);
}

TEST_CASE("native: a partition slurmctld printed naming a node no node output lists: a warning, not a stop") {
    // `scontrol -o show node` leaves FUTURE nodes out while `scontrol show partition` names
    // them (here f2, in big: Nodes=f[1-2]); `--future` lists them.
    std::string partitions(show_partition);
    partitions.replace(partitions.find("Nodes=f1 "), 9, "Nodes=f[1-2] ");
    const std::vector<conf_input> in{{std::string(show_config), "config.txt"},
                                     {partitions, "partition.txt"},
                                     {std::string(show_node), "node.txt"}};
    auto c = read_slurm_conf_inputs(in);
    REQUIRE(c);
    REQUIRE(c->warnings.size() == 1);
    CHECK(c->warnings[0].starts_with("partition.txt:2:"));
    CHECK(c->warnings[0].find("Nodes: partition 'big': node 'f2' is in no node input (a FUTURE node") != std::string::npos);
    REQUIRE(c->partitions.size() == 2);
    REQUIRE(c->partitions[1].nodes.size() == 1);
    CHECK(c->nodes[c->partitions[1].nodes[0]].name == "f1");
    // With the FUTURE node listed (what `scontrol -o --future show node` adds), no warning.
    const std::string nodes = std::string(show_node) +
                              "NodeName=f2 CoresPerSocket=1 CPUAlloc=0 CPUEfctv=8 CPUTot=8 RealMemory=32000 State=FUTURE\n";
    const std::vector<conf_input> all{{std::string(show_config), "config.txt"}, {partitions, "partition.txt"}, {nodes, "node.txt"}};
    auto d = read_slurm_conf_inputs(all);
    REQUIRE(d);
    CHECK(d->warnings.empty());
    CHECK(d->total_cpus() == 2 + 16 + 8);
    CHECK(d->partitions[1].nodes.size() == 2);
}

TEST_CASE("native: scontrol records keep values with spaces and every position") {
    const auto recs = scontrol_records("JobId=7 JobName=my job\n   UserId=alice(1001) Comment=a b=c\n\nJobId=8\n");
    REQUIRE(recs.size() == 2);
    const auto* name = recs[0].find("JobName");
    REQUIRE(name);
    CHECK(name->value == "my job");
    const auto* user = recs[0].find("UserId");
    REQUIRE(user);
    CHECK(user->line == 2);
    CHECK(user->value_column == 11);
    // "b=c" looks like a pair: scontrol's own ambiguity; it becomes one.
    CHECK(recs[0].find("Comment")->value == "a");
    CHECK(recs[0].find("b")->value == "c");
    CHECK(recs[1].line == 4);
}

namespace {

// A configuration and association/QOS tables for resolving jobs.
struct world {
    slurm_conf conf;
    qos_table qos;
    assoc_table assoc;
    world() {
        conf = *parse_slurm_conf("NodeName=n[1-4] CPUs=16 RealMemory=64000\n"
                                 "PartitionName=big Nodes=ALL Default=YES\nPartitionName=gpu Nodes=n[3-4]\n");
        qos = *parse_qos_table("Name|Priority|UsageFactor\nnormal|0|1\nhigh|100|1\n");
        assoc = *parse_assoc_table("Account|User|RawShares\nroot||\n chem||1\n  chem|alice|1\n");
    }
};

// Two pending array tasks, a het job component, a held job, and a job whose limits print as
// N/A, UNLIMITED and Partition_Limit, in `scontrol show job` form (abridged records).
constexpr std::string_view show_job =
    "JobId=22 ArrayJobId=15 ArrayTaskId=2 JobName=a\n"
    "   UserId=alice(1001) GroupId=root(0) MCS_label=N/A\n"
    "   Priority=33013 Nice=0 Account=chem QOS=normal\n"
    "   JobState=PENDING Reason=Priority Dependency=(null)\n"
    "   RunTime=00:00:00 TimeLimit=00:45:00 TimeMin=N/A\n"
    "   SubmitTime=2026-11-25T01:55:56 EligibleTime=2026-11-25T01:55:58\n"
    "   AccrueTime=2026-11-25T01:56:10\n"
    "   Partition=big,gpu AllocNode:Sid=localhost:1197\n"
    "   NumNodes=1-1 NumCPUs=3 NumTasks=3 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
    "   TRES=cpu=3,mem=62.50G,node=1,billing=3,gres/gpu:a100=1\n"
    "\n"
    "JobId=15 ArrayJobId=15 ArrayTaskId=3-9%2 JobName=a\n"
    "   UserId=alice(1001) GroupId=root(0) MCS_label=N/A\n"
    "   Priority=0 Nice=-50 Account=chem QOS=high\n"
    "   JobState=PENDING Reason=JobHeldUser Dependency=(null)\n"
    "   RunTime=00:00:00 TimeLimit=UNLIMITED TimeMin=N/A\n"
    "   SubmitTime=2026-11-25T01:55:56 EligibleTime=Unknown\n"
    "   AccrueTime=Unknown\n"
    "   Partition=big AllocNode:Sid=localhost:1197\n"
    "   NumNodes=2-4 NumCPUs=32-64 NumTasks=32 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
    "   TRES=cpu=32,mem=1000M,node=2\n"
    "\n"
    "JobId=31 HetJobId=30 HetJobOffset=1 JobName=h UserId=alice(1001) Priority=100 Nice=0 Account=chem "
    "QOS=(null) JobState=RUNNING TimeLimit=Partition_Limit SubmitTime=2026-11-25T02:00:00 "
    "EligibleTime=2026-11-25T02:00:00 AccrueTime=N/A Partition=gpu NumNodes=1 NumCPUs=1 ReqTRES=cpu=1,node=1 "
    "TRES=cpu=1,mem=1G,node=1\n";

} // namespace

TEST_CASE("native: records with CR-only line ends and a byte order mark keep their places") {
    // Line ends as split_lines reads them: a lone CR ends a line, so line numbers and the
    // table of line starts must count the same ends.
    const std::string text = "NodeName=a State=IDLE\rNodeName=b\rNodeName=c CPUTot=4 Arch=x86\n";
    const std::string out = mfprio::config::records_as_slurm_conf(text);
    CHECK(out == "NodeName=a           \rNodeName=b\rNodeName=c CPUTot=4         \n");
    const auto recs = mfprio::config::scontrol_records(text);
    REQUIRE(recs.size() == 3);
    CHECK(recs[2].line == 3);
    CHECK(recs[2].pairs[1].key_column == 12);
    // A byte order mark: line 1's columns count from the start of the line as printed.
    const std::string marked = "\xEF\xBB\xBF" "NodeName=a CPUTot=2\n";
    const auto m = mfprio::config::scontrol_records(marked);
    REQUIRE(m.size() == 1);
    CHECK(m[0].pairs[0].key == "NodeName");
    CHECK(m[0].pairs[0].key_column == 4);
    CHECK(m[0].pairs[1].key_column == 15);
    CHECK(mfprio::config::records_as_slurm_conf(marked) == "   NodeName=a CPUTot=2\n");
}

TEST_CASE("native: scontrol show job becomes jobs with arrays, het jobs, N/A, UNLIMITED, units") {
    const world w;
    auto t = scontrol_jobs_table(show_job, "job.txt");
    REQUIRE(t);
    auto jobs = jobs_table_from(*t, w.conf, w.qos, w.assoc);
    REQUIRE(jobs);
    REQUIRE(jobs->jobs.size() == 3);
    const auto& a = jobs->jobs[0];
    CHECK(a.job_id == 22); // the task's own id
    CHECK(a.user == "alice");
    CHECK(a.partitions.size() == 2);
    CHECK(a.submit_time == 1795571756);   // 2026-11-25T01:55:56 UTC
    CHECK(a.eligible_time == 1795571758);
    REQUIRE(a.accrue_time);
    CHECK(*a.accrue_time == 1795571770); // AccrueTime, not EligibleTime, drives age
    CHECK(a.time_limit == 45);
    CHECK(a.num_nodes == 1);
    CHECK(a.num_cpus == 3);
    REQUIRE(a.current_priority);
    CHECK(*a.current_priority == 33013);
    CHECK(a.admin_priority == 0);          // the stored priority is not an administrator's
    REQUIRE(a.tres.size() == 5);
    CHECK(a.tres[1].first == "mem");
    CHECK(a.tres[1].second == 64000.0);    // 62.50G in MB
    CHECK(a.tres[4].first == "gres/gpu:a100");
    const auto& b = jobs->jobs[1];
    CHECK(b.job_id == 15);
    CHECK(b.state == job_state::held);     // pending with priority 0
    CHECK(b.eligible_time == 0);           // Unknown
    CHECK(*b.accrue_time == 0);
    CHECK(b.time_limit == infinite32);     // UNLIMITED
    CHECK(b.num_nodes == 2);               // 2-4: the least
    CHECK(b.num_cpus == 32);
    CHECK(b.nice == -50);
    const auto& c = jobs->jobs[2];
    CHECK(c.job_id == 31);
    CHECK(c.state == job_state::running);
    CHECK(c.time_limit == no_val32);       // Partition_Limit
    CHECK(*c.accrue_time == 0);            // N/A
    CHECK(c.tres.size() == 2);             // ReqTRES before TRES
    CHECK(w.qos.qos[c.qos.front()].name == "normal"); // (null): the default QOS
}

TEST_CASE("native: a bad scontrol value names its own line and column") {
    const world w;
    std::string bad(show_job);
    bad.replace(bad.find("TimeLimit=00:45:00"), 18, "TimeLimit=0x:45:00");
    auto t = scontrol_jobs_table(bad, "job.txt");
    REQUIRE(t);
    auto jobs = jobs_table_from(*t, w.conf, w.qos, w.assoc);
    REQUIRE(!jobs);
    CHECK(jobs.error().file == "job.txt");
    CHECK(jobs.error().line == 5);
    CHECK(jobs.error().column == 31);
    CHECK(jobs.error().key == "TimeLimit");
}

TEST_CASE("native: job ids of arrays and het jobs in a jobs table") {
    const world w;
    auto jobs = parse_jobs_table("JobID|User|Account|Partition|SubmitTime|EligibleTime\n"
                                 "1234_5|alice|chem|big|100|N/A\n"
                                 "1234_[6-9%2]|alice|chem|big|100|100\n"
                                 "1234+2|alice|chem|big|100|100\n",
                                 "jobs.txt", w.conf, w.qos, w.assoc);
    REQUIRE(jobs);
    REQUIRE(jobs->jobs.size() == 3);
    CHECK(jobs->jobs[0].job_id == 1234);
    CHECK(jobs->jobs[0].eligible_time == 0);
    CHECK(jobs->jobs[1].job_id == 1234);
    CHECK(jobs->jobs[1].id_text == "1234_[6-9%2]");
    CHECK(jobs->jobs[2].job_id == 1236); // the leader's id plus the offset
    for (const char* bad : {"1234_", "1234_[x]", "_5", "0", "1234+", "4294967295+1"}) {
        CAPTURE(bad);
        auto j = parse_jobs_table(std::string("JobID|User|Account|Partition|SubmitTime\n") + bad + "|alice|chem|big|100\n",
                                  "jobs.txt", w.conf, w.qos, w.assoc);
        REQUIRE(!j);
        CHECK(j.error().line == 2);
        CHECK(j.error().column == 1);
        CHECK(j.error().key == "JobID");
    }
    auto twice = parse_jobs_table("JobID|User|Account|Partition|SubmitTime\n7_1|alice|chem|big|1\n7_1|alice|chem|big|1\n",
                                  "jobs.txt", w.conf, w.qos, w.assoc);
    REQUIRE(!twice);
    CHECK(twice.error().line == 3);
}

namespace {

constexpr std::string_view sshare_p =
    "Account|User|RawShares|NormShares|RawUsage|NormUsage|EffectvUsage|FairShare|LevelFS|GrpTRESMins|TRESRunMins\n"
    "root|||0.000000|24||1.000000||||cpu=0,mem=0\n"
    " root|root|1|0.500000|0|0.000000|0.000000|1.000000|inf||cpu=0,mem=0\n"
    " chem||1|0.500000|24|1.000000|1.000000||0.500000||cpu=10,mem=0\n"
    "  chem|alice|1|1.000000|24|1.000000|1.000000|0.500000|1.000000||cpu=10,mem=0\n";

constexpr std::string_view assoc_mgr =
    "Current Association Manager state\n"
    "\n"
    "Association Records\n"
    "\n"
    "ClusterName=c Account=root UserName= Partition= Priority=0 ID=1\n"
    "    SharesRaw/Norm/Level/Factor=1/0.00/1/0.00\n"
    "    UsageRaw/Norm/Efctv=24.99/1.00/1.00\n"
    "ClusterName=c Account=chem UserName= Partition= Priority=0 ID=3\n"
    "    UsageRaw/Norm/Efctv=24.99/1.00/1.00\n"
    "ClusterName=c Account=chem UserName=alice(1001) Partition= Priority=0 ID=4\n"
    "    UsageRaw/Norm/Efctv=24.99/1.00/1.00\n"
    "ClusterName=c Account=root UserName=root(0) Partition= Priority=0 ID=2\n"
    "    UsageRaw/Norm/Efctv=0.00/0.00/0.00\n"
    "\n"
    "QOS Records\n"
    "\n"
    "QOS=normal(1)\n"
    "    UsageRaw=0.000000\n";

constexpr std::string_view sacctmgr_assoc =
    "Cluster|Account|User|Partition|Share|Priority|GrpJobs\n"
    "c|root|||1||\n"
    "c|root|root||1||\n"
    "c|chem|||1|20|\n"
    "c|chem|alice||1|20|\n";

} // namespace

TEST_CASE("native: sshare -P, assoc_mgr and sacctmgr assoc merge by association") {
    const std::vector<conf_input> in{{std::string(sacctmgr_assoc), "sacctmgr.txt"},
                                     {std::string(assoc_mgr), "assoc_mgr.txt"},
                                     {std::string(sshare_p), "sshare.txt"}};
    auto a = read_assoc_inputs(in);
    REQUIRE(a);
    REQUIRE(a->rows.size() == 4);
    const auto alice = a->find_user("chem", "alice");
    REQUIRE(alice);
    CHECK(*a->rows[*alice].raw_usage == 24.99);         // assoc_mgr's two decimals
    CHECK(*a->rows[*alice].printed_raw_usage == 24.0);  // what sshare printed
    CHECK(*a->rows[*alice].priority == 20);             // sacctmgr
    CHECK(*a->rows[*alice].fairshare == 0.5);
    CHECK(*a->rows[*alice].tres_run_mins == "cpu=10,mem=0");
    CHECK(a->has_column("Priority"));
    // An association sshare did not print.
    std::string other(sacctmgr_assoc);
    other += "c|physics|bob||1|5|\n";
    auto b = read_assoc_inputs(std::vector<conf_input>{{std::string(sshare_p), "sshare.txt"}, {other, "sacctmgr.txt"}});
    REQUIRE(!b);
    CHECK(b.error().file == "sacctmgr.txt");
    CHECK(b.error().line == 6);
    CHECK(b.error().message == "association (physics, bob) is not in sshare.txt");
    // No tree at all.
    auto c = read_assoc_inputs(std::vector<conf_input>{{std::string(assoc_mgr), "assoc_mgr.txt"}});
    REQUIRE(!c);
    CHECK(c.error().message.find("no association tree") != std::string::npos);
    // A bad usage in assoc_mgr.
    std::string bad(assoc_mgr);
    bad.replace(bad.find("24.99"), 5, "2x.99");
    auto d = read_assoc_inputs(std::vector<conf_input>{{std::string(sshare_p), "sshare.txt"}, {bad, "assoc_mgr.txt"}});
    REQUIRE(!d);
    CHECK(d.error().line == 7);
    CHECK(d.error().column == 25);
}

TEST_CASE("native: assoc_mgr's GrpTRESMins gives each association's GPU usage in minutes") {
    // The line as Slurm 22.05.8's `scontrol show assoc_mgr flags=assoc` prints it
    // (tests/data/site_factor/*/bundle): each TRES's limit (N: none) and its usage in
    // minutes in parentheses.
    std::string text(assoc_mgr);
    const std::string mins = "    GrpTRESMins=cpu=N(0),mem=N(30),energy=N(0),node=N(0),billing=N(0),fs/disk=N(0),vmem=N(0),"
                             "pages=N(0),gres/gpu=N(47)\n";
    text.insert(text.find("ClusterName=c Account=root UserName=root(0)"), mins);
    auto a = read_assoc_inputs(std::vector<conf_input>{{std::string(sshare_p), "sshare.txt"}, {text, "assoc_mgr.txt"}});
    REQUIRE(a);
    const auto alice = a->find_user("chem", "alice");
    REQUIRE(alice);
    CHECK(a->rows[*alice].gpu_minutes == 47u);
    CHECK_FALSE(a->rows[*a->find_user("root", "root")].gpu_minutes.has_value());
    // A usage that is not a count: its line and the column of the gres/gpu item.
    std::string bad = text;
    bad.replace(bad.find("gres/gpu=N(47)"), 14, "gres/gpu=N(4x)");
    auto b = read_assoc_inputs(std::vector<conf_input>{{std::string(sshare_p), "sshare.txt"}, {bad, "assoc_mgr.txt"}});
    REQUIRE(!b);
    CHECK(b.error().line == 12);
    CHECK(b.error().column == 105);
    CHECK(b.error().message == "expected gres/gpu=LIMIT(MINUTES), got 'gres/gpu=N(4x)'");
}

TEST_CASE("native: squeue -h -O text: a line without the 15 fields names its line") {
    const std::string good = "8|bob|chem|big|high|2026-11-25T15:12:10|2026-11-25T15:12:10|2026-11-25T15:12:10|2|32|"
                             "1-00:00:00|0|cpu=32,mem=16000M,node=2|PENDING|55320\n";
    CHECK(detect_kind(good) == input_kind::squeue_text);
    auto t = squeue_text_table(good + "9|bob|chem|big|high|2026-11-25T15:12:10|x|y|2|32|1:00|0|PENDING|1\n", "squeue.txt");
    REQUIRE(!t);
    CHECK(t.error().file == "squeue.txt");
    CHECK(t.error().line == 2);
    CHECK(t.error().message.starts_with("row has 14 cells: squeue -h -O \"JobID:0|,"));
    // A pending job with priority 0 is held, as slurmctld marks held jobs.
    auto held = squeue_text_table("13|bob|chem|big|normal|2026-11-25T15:12:10|N/A|N/A|4|64|2-00:00:00|0|cpu=64|PENDING|0\n",
                                  "squeue.txt");
    REQUIRE(held);
    CHECK(held->rows[0].cells[nj_state] == "HELD");
    CHECK(held->rows[0].line == 1);
}

TEST_CASE("native: squeue -r -O with JobArrayID: an array's tasks are one job, a task split off its own") {
    // Lines of tests/data/live/busy_fair_tree/squeue.txt (Slurm 22.05.8): array 15's tasks 1
    // and 3 share job record 15, task 2 was split off by an update into record 21.
    const std::string text =
        "15|15_1|mfprio-dave|theory|big|normal|2026-11-26T18:12:38|2026-11-26T18:12:40|2026-11-26T18:12:40|1|3|45:00|0|"
        "cpu=3,mem=3000M,node=1,billing=3|PENDING|18728\n"
        "15|15_3|mfprio-dave|theory|big|normal|2026-11-26T18:12:38|2026-11-26T18:12:40|2026-11-26T18:12:40|1|3|45:00|0|"
        "cpu=3,mem=3000M,node=1,billing=3|PENDING|18728\n"
        "21|15_2|mfprio-dave|theory|big|normal|2026-11-26T18:12:38|2026-11-26T18:12:40|2026-11-26T18:12:40|1|3|45:00|30|"
        "cpu=3,mem=3000M,node=1,billing=3|PENDING|18698\n";
    CHECK(detect_kind(text) == input_kind::squeue_text);
    auto t = squeue_text_table(text, "squeue.txt");
    REQUIRE(t);
    REQUIRE(t->rows.size() == 2);
    CHECK(t->header.size() == nj_count);
    CHECK(t->rows[0].cells[nj_id] == "15");
    CHECK(t->rows[0].line == 1);
    CHECK(t->rows[1].cells[nj_id] == "21");
    CHECK(t->rows[1].cells[nj_nice] == "30");
    CHECK(t->rows[1].cells[nj_priority] == "18698");
    CHECK(t->rows[1].line == 3);
    // Two lines of one record that disagree cannot both be it.
    std::string bad = text;
    bad.replace(bad.find("15|15_3|mfprio-dave"), 19, "15|15_3|mfprio-erin");
    auto e = squeue_text_table(bad, "squeue.txt");
    REQUIRE(!e);
    CHECK(e.error().file == "squeue.txt");
    CHECK(e.error().line == 2);
    CHECK(e.error().column == 9);
    CHECK(e.error().message == "job 15: a line of the same job record as line 1 with another User");
    // Every line has the first line's 16 fields.
    auto short_line = squeue_text_table(text + "22|22|carol\n", "squeue.txt");
    REQUIRE(!short_line);
    CHECK(short_line.error().line == 4);
    CHECK(short_line.error().message.ends_with("prints 16"));
}

TEST_CASE("native: assoc_mgr's QOS records and association priorities, as slurmctld holds them") {
    // The QOS part as 22.05.8's `scontrol show assoc_mgr flags=qos` prints it (the captures
    // in tests/data/live), with the lines of its limits after Priority.
    const std::string qos_text =
        "Current Association Manager state\n\nQOS Records\n\nQOS=normal(1)\n    UsageRaw=25.000000\n"
        "    MinPrioThresh= \n    PreemptMode=OFF\n    Priority=0\n    Account Limits\n      chem\n"
        "        MaxJobsPA=N(1) MaxJobsAccruePA=N(0) MaxSubmitJobsPA=N(1)\n"
        "QOS=high(2)\n    UsageRaw=0.000000\n    Priority=100\n"
        "QOS=low(3)\n    UsageRaw=0.000000\n    Priority=10\n";
    auto q = read_assoc_mgr_qos({qos_text, "assoc_mgr.txt"});
    REQUIRE(q);
    REQUIRE(q->qos.size() == 3);
    CHECK(q->qos[0].name == "normal");
    CHECK(q->qos[0].priority == 0);
    CHECK(q->qos[1].name == "high");
    CHECK(q->qos[1].priority == 100);
    CHECK(q->qos[2].priority == 10);
    CHECK(q->qos[2].usage_factor == 1.0); // not printed there
    std::string bad = qos_text;
    bad.replace(bad.find("Priority=100"), 12, "Priority=1x0");
    auto b = read_assoc_mgr_qos({bad, "assoc_mgr.txt"});
    REQUIRE(!b);
    CHECK(b.error().file == "assoc_mgr.txt");
    CHECK(b.error().line == 15);
    CHECK(b.error().column == 14);
    CHECK(b.error().message == "QOS priority '1x0' is not an integer from 0 to 4294967295");
    std::string twice = qos_text;
    twice.replace(twice.find("QOS=low(3)"), 10, "QOS=HIGH(3)");
    auto t = read_assoc_mgr_qos({twice, "assoc_mgr.txt"});
    REQUIRE(!t);
    CHECK(t.error().line == 16);
    CHECK(t.error().message == "QOS 'HIGH' is listed twice");
    auto none = read_assoc_mgr_qos({std::string(assoc_mgr.substr(0, assoc_mgr.find("QOS Records"))), "assoc_mgr.txt"});
    REQUIRE(!none);
    CHECK(none.error().message == "no QOS record (`scontrol show assoc_mgr flags=qos` prints them)");
    // Without sacctmgr, an association's priority is assoc_mgr's.
    std::string prio(assoc_mgr);
    prio.replace(prio.find("alice(1001) Partition= Priority=0"), 33, "alice(1001) Partition= Priority=20");
    auto a = read_assoc_inputs(std::vector<conf_input>{{std::string(sshare_p), "sshare.txt"}, {prio, "assoc_mgr.txt"}});
    REQUIRE(a);
    CHECK(*a->rows[*a->find_user("chem", "alice")].priority == 20);
}

