// Tests for mfprio/read/jobs_table.hpp: the jobs table resolved against slurm.conf, the
// QOS table and the association table. Nice/SiteFactor range |v| <= 2147483645 is from
// reference 1.1 (Nice, Site); TimeLimit and time strings follow Slurm's time_str2mins.
#include <doctest/doctest.h>

#include <mfprio/read/jobs_table.hpp>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <optional>
#include <string>
#include <utility>
#include <vector>

using namespace mfprio::config;
using mfprio::job_state;

namespace {

/// Sets TZ (or unsets it for nullptr) for the lifetime of the object, then restores it.
struct tz_guard {
    std::optional<std::string> saved;
    explicit tz_guard(const char* tz) {
        if (const char* old = std::getenv("TZ")) saved = old;
        if (tz) ::setenv("TZ", tz, 1);
        else ::unsetenv("TZ");
        ::tzset();
    }
    ~tz_guard() {
        if (saved) ::setenv("TZ", saved->c_str(), 1);
        else ::unsetenv("TZ");
        ::tzset();
    }
};

struct inputs {
    slurm_conf conf;
    qos_table qos;
    assoc_table assoc;
};

inputs make_inputs(bool with_default = true, bool with_normal_qos = true) {
    inputs in;
    auto conf = parse_slurm_conf(std::string("NodeName=n[1-4] CPUs=8\n"
                                             "PartitionName=normal Nodes=ALL ") +
                                 (with_default ? "Default=YES" : "") +
                                 "\nPartitionName=gpu Nodes=n[3-4] PriorityTier=2\n"
                                 "PartitionName=long Nodes=n1\n");
    REQUIRE(conf);
    in.conf = std::move(*conf);
    auto qos = parse_qos_table(with_normal_qos ? "Name|Priority\nnormal|0\nhigh|100\n"
                                               : "Name|Priority\nhigh|100\n");
    REQUIRE(qos);
    in.qos = std::move(*qos);
    auto assoc = parse_assoc_table("Account|User|Partition|RawShares\n"
                                   "root|||\n"
                                   " phys|||1\n"
                                   "  phys|alice||1\n"
                                   "  phys|alice|gpu|1\n"
                                   "  phys|bob||1\n");
    REQUIRE(assoc);
    in.assoc = std::move(*assoc);
    return in;
}

const std::string header = "JobID|User|Account|Partition|SubmitTime";

/// Parses `text` against `in` and expects an error at `line` naming `key`, containing `what`.
mfprio::input_error jobs_error(const inputs& in, const std::string& text, std::size_t line,
                               const std::string& key, const std::string& what) {
    const auto j = parse_jobs_table(text, "jobs.txt", in.conf, in.qos, in.assoc);
    REQUIRE_FALSE(j);
    CAPTURE(j.error().to_string());
    CHECK(j.error().file == "jobs.txt");
    CHECK(j.error().line == line);
    CHECK(j.error().key == key);
    CHECK(j.error().message.find(what) != std::string::npos);
    return j.error();
}

} // namespace

TEST_CASE("config: jobs table with every column") {
    const auto in = make_inputs();
    tz_guard tz(nullptr);
    const auto j = parse_jobs_table(
        "jobid|user|account|partition|qos|submittime|eligibletime|numnodes|numcpus|timelimit|"
        "nice|sitefactor|tres|state|priority|Comment\n"
        "101|alice|phys|gpu,normal|high,normal|1700000000|1700000100|2|16|2-00:00:00|"
        "-100|2147483645|cpu=16,mem=16G,node=2,GRES/gpu=4,billing=2K|PENDING|0|anything\n",
        "jobs.txt", in.conf, in.qos, in.assoc);
    REQUIRE(j);
    REQUIRE(j->jobs.size() == 1);
    const auto& job = j->jobs[0];
    CHECK(job.job_id == 101);
    CHECK(job.user == "alice");
    CHECK(job.account == "phys");
    CHECK(job.partitions == std::vector<std::uint32_t>{1, 0}); // table order kept
    CHECK(job.qos == std::vector<std::uint32_t>{1, 0});
    CHECK(job.association == 3); // the gpu-specific association of the first partition
    CHECK(job.submit_time == 1700000000);
    CHECK(job.eligible_time == 1700000100);
    CHECK(job.num_nodes == 2);
    CHECK(job.num_cpus == 16);
    CHECK(job.time_limit == 2880);
    CHECK(job.nice == -100);
    CHECK(job.site_factor == 2147483645);
    using tres = std::vector<std::pair<std::string, double>>;
    CHECK(job.tres == tres{{"cpu", 16.0}, {"mem", 16384.0}, {"node", 2.0}, {"gres/gpu", 4.0},
                           {"billing", 2048.0}});
    CHECK(job.state == job_state::pending);
    CHECK(job.admin_priority == 0);
    CHECK(job.line == 2);
}

TEST_CASE("config: a pending job's node count is the one its TRES asked for, not NumNodes' estimate") {
    // squeue prints NumNodes=3 for a pending `-n 40` job on 16-CPU nodes (the scheduler's
    // estimate, job_mgr.c _pack_default_job_details), its requested TRES node=1 (the minimum
    // node count it asked for, which priority_multifactor.c's job size reads). A running job's
    // NumNodes is what it has.
    const auto in = make_inputs();
    const auto j = parse_jobs_table(header + "|NumNodes|NumCPUs|TRES|State\n"
                                             "1|alice|phys|normal|1700000000|3|40|cpu=40,mem=4000M,node=1,billing=40|PENDING\n"
                                             "2|alice|phys|normal|1700000000|3|40|cpu=40,mem=4000M,node=3,billing=40|RUNNING\n"
                                             "3|alice|phys|normal|1700000000|2|16||PENDING\n",
                                    "jobs.txt", in.conf, in.qos, in.assoc);
    REQUIRE(j);
    REQUIRE(j->jobs.size() == 3);
    CHECK(j->jobs[0].num_nodes == 1);
    CHECK(j->jobs[1].num_nodes == 3);
    CHECK(j->jobs[2].num_nodes == 2); // no TRES: NumNodes
}

TEST_CASE("config: jobs table defaults with only the required columns") {
    const auto in = make_inputs();
    const auto j = parse_jobs_table(header + "\n7|bob|phys||42\n8|alice|phys|long|43\n", "jobs.txt",
                                    in.conf, in.qos, in.assoc);
    REQUIRE(j);
    REQUIRE(j->jobs.size() == 2);
    const auto& a = j->jobs[0];
    CHECK(a.partitions == std::vector<std::uint32_t>{0}); // empty -> the default partition
    CHECK(a.qos == std::vector<std::uint32_t>{0});        // no QOS column -> "normal"
    CHECK(a.association == 4);
    CHECK(a.eligible_time == 42); // missing -> SubmitTime
    CHECK(a.num_nodes == 1);
    CHECK(a.num_cpus == 1);
    CHECK(a.time_limit == mfprio::no_val32);
    CHECK(a.nice == 0);
    CHECK(a.site_factor == 0);
    using tres = std::vector<std::pair<std::string, double>>;
    CHECK(a.tres == tres{{"cpu", 1.0}, {"node", 1.0}});
    CHECK(a.state == job_state::pending);
    CHECK(a.admin_priority == 0);
    // alice in partition "long": no long-specific association, so the plain one.
    CHECK(j->jobs[1].association == 2);
}

TEST_CASE("config: jobs table empty cells take the defaults") {
    const auto in = make_inputs();
    const auto j = parse_jobs_table(
        "JobID|User|Account|Partition|QOS|SubmitTime|EligibleTime|NumNodes|NumCPUs|TimeLimit|"
        "Nice|SiteFactor|TRES|State|Priority\n"
        "1|bob|phys|||100|||||||||\n"
        "2|bob|phys|normal||100||3|12||||||\n",
        "jobs.txt", in.conf, in.qos, in.assoc);
    REQUIRE(j);
    const auto& a = j->jobs[0];
    CHECK(a.qos == std::vector<std::uint32_t>{0});
    CHECK(a.eligible_time == 100);
    CHECK(a.num_nodes == 1);
    CHECK(a.time_limit == mfprio::no_val32);
    CHECK(a.state == job_state::pending);
    using tres = std::vector<std::pair<std::string, double>>;
    CHECK(j->jobs[1].tres == tres{{"cpu", 12.0}, {"node", 3.0}});
}

TEST_CASE("config: jobs table time formats with TZ unset (UTC) and set") {
    const auto in = make_inputs();
    const std::string text = "JobID|User|Account|Partition|SubmitTime|EligibleTime\n"
                             "1|bob|phys|normal|2024-01-15T12:00:00|2024-07-15T12:00:00\n"
                             "2|bob|phys|normal|2024-02-29 00:00:00|0\n"
                             "3|bob|phys|normal|1700000000|None\n"
                             "4|bob|phys|normal|1700000000|unknown\n";
    {
        tz_guard tz(nullptr); // UTC
        const auto j = parse_jobs_table(text, "jobs.txt", in.conf, in.qos, in.assoc);
        REQUIRE(j);
        CHECK(j->jobs[0].submit_time == 1705320000);   // 2024-01-15T12:00:00Z
        CHECK(j->jobs[0].eligible_time == 1721044800); // 2024-07-15T12:00:00Z
        CHECK(j->jobs[1].submit_time == 1709164800);   // 2024-02-29T00:00:00Z (leap day)
        CHECK(j->jobs[1].eligible_time == 0);          // 0 = not accruing
        CHECK(j->jobs[2].eligible_time == 0);          // None
        CHECK(j->jobs[3].eligible_time == 0);          // Unknown
    }
    {
        tz_guard tz("EST5EDT,M3.2.0,M11.1.0"); // POSIX rule: no tz database needed
        const auto j = parse_jobs_table(text, "jobs.txt", in.conf, in.qos, in.assoc);
        REQUIRE(j);
        CHECK(j->jobs[0].submit_time == 1705320000 + 5 * 3600);   // EST, UTC-5
        CHECK(j->jobs[0].eligible_time == 1721044800 + 4 * 3600); // EDT, UTC-4
        CHECK(j->jobs[2].submit_time == 1700000000);              // epoch is zone-free
    }
    {
        tz_guard tz("UTC0");
        CHECK(parse_job_time("2024-01-15T12:00:00") == 1705320000);
    }
}

TEST_CASE("config: jobs table parse_job_time accepts only real dates") {
    tz_guard tz(nullptr);
    CHECK(parse_job_time("0") == 0);
    CHECK(parse_job_time("1970-01-01T00:00:01") == 1);
    CHECK(parse_job_time("2000-03-01T00:00:00") == 951868800);
    CHECK_FALSE(parse_job_time("2023-02-29T00:00:00"));
    CHECK_FALSE(parse_job_time("2024-13-01T00:00:00"));
    CHECK_FALSE(parse_job_time("2024-04-31T00:00:00"));
    CHECK_FALSE(parse_job_time("2024-01-01T24:00:00"));
    CHECK_FALSE(parse_job_time("1969-12-31T23:59:59"));
    CHECK_FALSE(parse_job_time("2024-01-01"));
    CHECK_FALSE(parse_job_time("2024/01/01T00:00:00"));
    CHECK_FALSE(parse_job_time("-5"));
    CHECK_FALSE(parse_job_time("yesterday"));
    CHECK_FALSE(parse_job_time(""));
}

TEST_CASE("config: jobs table TimeLimit forms") {
    const auto in = make_inputs();
    const auto j = parse_jobs_table("JobID|User|Account|Partition|SubmitTime|TimeLimit\n"
                                    "1|bob|phys|normal|1|60\n"
                                    "2|bob|phys|normal|1|1:30\n" // min:sec, rounded up
                                    "3|bob|phys|normal|1|1-00:00:00\n"
                                    "4|bob|phys|normal|1|UNLIMITED\n"
                                    "5|bob|phys|normal|1|Partition_Limit\n"
                                    "6|bob|phys|normal|1|\n"
                                    "7|bob|phys|normal|1|2:00:00\n",
                                    "jobs.txt", in.conf, in.qos, in.assoc);
    REQUIRE(j);
    CHECK(j->jobs[0].time_limit == 60);
    CHECK(j->jobs[1].time_limit == 2);
    CHECK(j->jobs[2].time_limit == 1440);
    CHECK(j->jobs[3].time_limit == mfprio::infinite32);
    CHECK(j->jobs[4].time_limit == mfprio::no_val32);
    CHECK(j->jobs[5].time_limit == mfprio::no_val32);
    CHECK(j->jobs[6].time_limit == 120);
}

TEST_CASE("config: jobs table TRES counts: mem in MB, others with 1024 multipliers") {
    const auto in = make_inputs();
    struct row {
        const char* tres;
        const char* name;
        double value;
    };
    const row rows[] = {
        {"mem=100", "mem", 100.0},        {"mem=512K", "mem", 0.5},
        {"mem=2M", "mem", 2.0},           {"mem=16G", "mem", 16384.0},
        {"mem=1T", "mem", 1048576.0},     {"mem=1P", "mem", 1073741824.0},
        {"Mem=1.5g", "mem", 1536.0},      {"mem=4GB", "mem", 4096.0},
        {"cpu=2K", "cpu", 2048.0},        {"gres/gpu=1M", "gres/gpu", 1048576.0},
        {"license/matlab=3", "license/matlab", 3.0}, {"billing=1.5", "billing", 1.5},
        {"GRES/gpu:A100=2", "gres/gpu:A100", 2.0},
    };
    for (const auto& r : rows) {
        CAPTURE(r.tres);
        const auto j = parse_jobs_table(std::string("JobID|User|Account|Partition|SubmitTime|TRES\n"
                                                    "1|bob|phys|normal|1|") + r.tres + "\n",
                                        "jobs.txt", in.conf, in.qos, in.assoc);
        REQUIRE(j);
        REQUIRE(j->jobs[0].tres.size() == 1);
        CHECK(j->jobs[0].tres[0].first == r.name);
        CHECK(j->jobs[0].tres[0].second == r.value);
    }
}

TEST_CASE("config: jobs table State column") {
    const auto in = make_inputs();
    const std::pair<const char*, job_state> cases[] = {
        {"PENDING", job_state::pending},       {"pending", job_state::pending},
        {"PD", job_state::pending},            {"HELD", job_state::held},
        {"RUNNING", job_state::running},       {"R", job_state::running},
        {"SUSPENDED", job_state::suspended},   {"COMPLETING", job_state::completing},
        {"COMPLETED", job_state::finished},    {"FAILED", job_state::finished},
        {"CANCELLED by 1000", job_state::finished}, {"TIMEOUT", job_state::finished},
        {"NODE_FAIL", job_state::finished},    {"OUT_OF_MEMORY", job_state::finished},
    };
    for (const auto& c : cases) {
        CAPTURE(c.first);
        const auto j = parse_jobs_table(std::string("JobID|User|Account|Partition|SubmitTime|State\n"
                                                    "1|bob|phys|normal|1|") + c.first + "\n",
                                        "jobs.txt", in.conf, in.qos, in.assoc);
        REQUIRE(j);
        CHECK(j->jobs[0].state == c.second);
    }
}

TEST_CASE("config: jobs table admin priority") {
    const auto in = make_inputs();
    const auto j = parse_jobs_table("JobID|User|Account|Partition|SubmitTime|Priority\n"
                                    "1|bob|phys|normal|1|4294967295\n2|bob|phys|normal|1|\n",
                                    "jobs.txt", in.conf, in.qos, in.assoc);
    REQUIRE(j);
    CHECK(j->jobs[0].admin_priority == 4294967295u);
    CHECK(j->jobs[1].admin_priority == 0);
}

TEST_CASE("config: jobs table missing required columns") {
    const auto in = make_inputs();
    const char* columns[] = {"JobID", "User", "Account", "Partition", "SubmitTime"};
    for (const char* missing : columns) {
        CAPTURE(missing);
        std::string head;
        for (const char* c : columns)
            if (std::string(c) != missing) {
                if (!head.empty()) head += '|';
                head += c;
            }
        const auto e = jobs_error(in, head + "\n", 1, missing, "has no");
        CHECK(e.message.find(missing) != std::string::npos);
    }
}

TEST_CASE("config: jobs table cell errors name the job, line and column") {
    const auto in = make_inputs();
    const std::vector<std::string> cols = {"JobID",   "User",         "Account",  "Partition",
                                           "QOS",     "SubmitTime",   "EligibleTime",
                                           "NumNodes", "NumCPUs",     "TimeLimit", "Nice",
                                           "SiteFactor", "TRES",      "State",     "Priority"};
    auto line = [&](std::vector<std::pair<std::string, std::string>> changes) {
        std::vector<std::pair<std::string, std::string>> v = {
            {"JobID", "2"}, {"User", "bob"}, {"Account", "phys"}, {"Partition", "normal"},
            {"QOS", "normal"}, {"SubmitTime", "100"}};
        for (const auto& c : changes) {
            bool found = false;
            for (auto& x : v)
                if (x.first == c.first) {
                    x.second = c.second;
                    found = true;
                }
            if (!found) v.push_back(c);
        }
        std::string out;
        for (std::size_t i = 0; i < cols.size(); ++i) {
            if (i) out += '|';
            for (const auto& x : v)
                if (x.first == cols[i]) out += x.second;
        }
        return out;
    };
    std::string h;
    for (const auto& c : cols) {
        if (!h.empty()) h += '|';
        h += c;
    }
    const std::string ok = line({{"JobID", "1"}});
    auto err = [&](std::vector<std::pair<std::string, std::string>> changes, const std::string& key,
                   const std::string& what) {
        return jobs_error(in, h + "\n" + ok + "\n" + line(std::move(changes)) + "\n", 3, key, what);
    };
    REQUIRE(parse_jobs_table(h + "\n" + ok + "\n", "jobs.txt", in.conf, in.qos, in.assoc));
    err({{"JobID", "0"}}, "JobID", "JobID '0' is not a job id (1 to 4294967295, 1234_5, 1234_[6-9] or 1234+0)");
    err({{"JobID", "x"}}, "JobID", "JobID 'x' is not a job id");
    err({{"JobID", "1"}}, "JobID", "job 1: JobID is listed twice");
    err({{"User", ""}}, "User", "job 2: empty User");
    err({{"Account", ""}}, "Account", "job 2: empty Account");
    const auto p = err({{"Partition", "debug"}}, "Partition", "job 2: unknown partition 'debug'");
    CHECK(p.column == 12);
    err({{"Partition", "gpu,gpu"}}, "Partition", "'gpu' is listed twice");
    err({{"QOS", "urgent"}}, "QOS", "job 2: unknown QOS 'urgent'");
    err({{"QOS", "high,high"}}, "QOS", "'high' is listed twice");
    err({{"User", "carol"}}, "Account", "no association for user 'carol' in account 'phys'");
    err({{"Account", "chem"}}, "Account", "no association");
    err({{"SubmitTime", "2023-02-29T00:00:00"}}, "SubmitTime",
        "job 2: SubmitTime '2023-02-29T00:00:00' is not");
    err({{"SubmitTime", ""}}, "SubmitTime", "SubmitTime '' is not");
    // Times are bounded to 1970..9999 (max_epoch, 9999-12-31T23:59:59Z) so that no time
    // arithmetic overflows.
    err({{"SubmitTime", "253402300800"}}, "SubmitTime", "'253402300800' is not epoch seconds or YYYY-MM-DDTHH:MM:SS from 1970 to 9999");
    err({{"SubmitTime", "9223372036854775807"}}, "SubmitTime", "from 1970 to 9999");
    err({{"EligibleTime", "soon"}}, "EligibleTime", "EligibleTime 'soon'");
    err({{"NumNodes", "-1"}}, "NumNodes", "NumNodes '-1'");
    err({{"NumCPUs", "4294967296"}}, "NumCPUs", "NumCPUs '4294967296'");
    err({{"TimeLimit", "1h"}}, "TimeLimit", "invalid time '1h'");
    err({{"Nice", "2147483646"}}, "Nice", "Nice '2147483646'");
    err({{"Nice", "-2147483646"}}, "Nice", "from -2147483645");
    err({{"SiteFactor", "1.5"}}, "SiteFactor", "SiteFactor '1.5'");
    err({{"TRES", "cpu"}}, "TRES", "not of the form name=count");
    err({{"TRES", "gpu=1"}}, "TRES", "unknown TRES type 'gpu'");
    err({{"TRES", "cpu=-1"}}, "TRES", "count is not a number from 0 to below 2^64");
    err({{"TRES", "mem=1X"}}, "TRES", "count is not a number from 0 to below 2^64");
    // Slurm keeps TRES counts as uint64_t: 1e32 CPUs, or 1e308 TB of memory (infinite once in
    // MB), have no such count.
    err({{"TRES", "cpu=1e32"}}, "TRES", "'cpu=1e32': count is not a number from 0 to below 2^64");
    err({{"TRES", "mem=1e308T"}}, "TRES", "'mem=1e308T': count is not a number from 0 to below 2^64");
    err({{"TRES", "cpu=18446744073709551616"}}, "TRES", "below 2^64");
    err({{"TRES", "cpu=1,CPU=2"}}, "TRES", "'cpu' is listed twice");
    err({{"State", "WAITING"}}, "State", "unknown State 'WAITING'");
    err({{"Priority", "-5"}}, "Priority", "Priority '-5'");
    jobs_error(in, h + "\n2|bob|phys\n", 2, "", "row has 3 cells");
}

TEST_CASE("config: jobs table default partition and QOS must exist") {
    const auto no_default = make_inputs(false, true);
    jobs_error(no_default, header + "\n1|bob|phys||1\n", 2, "Partition",
               "job 1: no partition given and slurm.conf has no Default=YES partition");
    const auto no_normal = make_inputs(true, false);
    jobs_error(no_normal, header + "|QOS\n1|bob|phys|normal|1|\n", 2, "QOS",
               "job 1: no QOS given and the QOS table has no 'normal' QOS");
    const auto e = jobs_error(no_normal, header + "\n1|bob|phys|normal|1\n", 2, "JobID",
                              "no QOS given");
    CHECK(e.column == 1);
}

TEST_CASE("config: jobs table read from a file") {
    const auto in = make_inputs();
    const std::string path = "mfprio_test_jobs.txt";
    std::FILE* f = std::fopen(path.c_str(), "wb");
    REQUIRE(f != nullptr);
    std::fputs("JobID|User|Account|Partition|SubmitTime\n5|bob|phys|normal|10\n", f);
    std::fclose(f);
    const auto j = read_jobs_table(path, in.conf, in.qos, in.assoc);
    std::remove(path.c_str());
    REQUIRE(j);
    CHECK(j->jobs[0].job_id == 5);
    const auto missing = read_jobs_table("no_such_jobs.txt", in.conf, in.qos, in.assoc);
    REQUIRE_FALSE(missing);
    CHECK(missing.error().file == "no_such_jobs.txt");
    CHECK(missing.error().message == "cannot open file");
}

TEST_CASE("config: jobs table with the headers squeue and sacct print") {
    // Header names from Slurm's src/squeue/print.c (_print_str titles) and src/sacct/sacct.c
    // (fields[]); the rows are the clean table's jobs as those commands print them.
    const inputs in = make_inputs();
    const std::string clean =
        "JobID|User|Account|Partition|QOS|SubmitTime|EligibleTime|NumNodes|NumCPUs|TimeLimit|TRES|State|CurrentPriority\n"
        "1001|alice|phys|normal|high|2026-11-16T12:00:00|2026-11-16T13:00:00|2|16|1-00:00:00|cpu=16,mem=32G,node=2|PENDING|4000\n"
        "1002_[3-9]|bob|phys|gpu|normal|2026-11-11T12:00:00||1|4|UNLIMITED|cpu=4,node=1|PENDING|17\n"
        "1003+0|alice|phys|normal|normal|2026-11-11T12:00:00|2026-11-11T12:00:00|1|1|Partition_Limit|cpu=1,node=1|RUNNING|9\n";
    const std::string squeue =
        "JOBID|USER|ACCOUNT|PARTITION|QOS|SUBMIT_TIME|ELIGIBLE_TIME|NODES|CPUS|TIME_LIMIT|TRES_ALLOC|ST|PRIORITY\n"
        "1001|alice|phys|normal|high|2026-11-16T12:00:00|2026-11-16T13:00:00|2|16|1-00:00:00|cpu=16,mem=32G,node=2|PD|4000\n"
        "1002_[3-9]|bob|phys|gpu|normal|2026-11-11T12:00:00|N/A|1|4|UNLIMITED|cpu=4,node=1|PD|17\n"
        "1003+0|alice|phys|normal|normal|2026-11-11T12:00:00|2026-11-11T12:00:00|1|1|Partition_Limit|cpu=1,node=1|R|9\n";
    const std::string sacct =
        "JobID|User|Account|Partition|QOS|Submit|Eligible|NNodes|NCPUS|Timelimit|ReqTRES|State|Priority\n"
        "1001|alice|phys|normal|high|2026-11-16T12:00:00|2026-11-16T13:00:00|2|16|1-00:00:00|cpu=16,mem=32G,node=2|PENDING|4000\n"
        "1002_[3-9]|bob|phys|gpu|normal|2026-11-11T12:00:00|Unknown|1|4|UNLIMITED|cpu=4,node=1|PENDING|17\n"
        "1003+0|alice|phys|normal|normal|2026-11-11T12:00:00|2026-11-11T12:00:00|1|1|Partition_Limit|cpu=1,node=1|RUNNING|9\n"
        "1003+0.batch||phys||||2026-11-11T12:00:00|1|1||cpu=1,node=1|RUNNING|\n"
        "1003+0.extern||phys||||2026-11-11T12:00:00|1|1||cpu=1,node=1|RUNNING|\n";
    const auto want = parse_jobs_table(clean, "clean.txt", in.conf, in.qos, in.assoc);
    REQUIRE(want);
    for (const auto& printed : {std::pair{"squeue", squeue}, std::pair{"sacct", sacct}}) {
        const std::string name = printed.first;
        const std::string& text = printed.second;
        CAPTURE(name);
        const auto got = parse_jobs_table(text, "jobs.txt", in.conf, in.qos, in.assoc);
        REQUIRE(got);
        REQUIRE(got->jobs.size() == want->jobs.size());
        for (std::size_t i = 0; i < got->jobs.size(); ++i) {
            const auto &g = got->jobs[i], &w = want->jobs[i];
            CAPTURE(w.id_text);
            CHECK(g.id_text == w.id_text);
            CHECK(g.job_id == w.job_id);
            CHECK(g.partitions == w.partitions);
            CHECK(g.qos == w.qos);
            CHECK(g.association == w.association);
            CHECK(g.submit_time == w.submit_time);
            CHECK(g.num_nodes == w.num_nodes);
            CHECK(g.num_cpus == w.num_cpus);
            CHECK(g.time_limit == w.time_limit);
            CHECK(g.tres == w.tres);
            CHECK(g.state == w.state);
            // PRIORITY / Priority there is the job's current priority, not an admin's.
            CHECK(g.admin_priority == 0);
            CHECK(g.current_priority == w.current_priority);
        }
        // The clean table's empty EligibleTime is the submit time; N/A and Unknown are "not
        // eligible", as those commands print it.
        CHECK(got->jobs[0].eligible_time == want->jobs[0].eligible_time);
        CHECK(got->jobs[1].eligible_time == 0);
    }
    // Errors name the column as printed.
    const auto e = parse_jobs_table("JOBID|USER|ACCOUNT|PARTITION|SUBMIT_TIME\n1|alice|phys|normal|soon\n", "jobs.txt",
                                    in.conf, in.qos, in.assoc);
    REQUIRE_FALSE(e);
    CHECK(e.error().key == "SUBMIT_TIME");
    CHECK(e.error().column == 21);
    // A table of mfprio's own columns keeps Priority as the admin priority, and a step id is
    // an error there.
    const auto own = parse_jobs_table(header + "|Priority\n1|alice|phys|normal|0|77\n", "jobs.txt", in.conf, in.qos, in.assoc);
    REQUIRE(own);
    CHECK(own->jobs[0].admin_priority == 77);
    CHECK_FALSE(parse_jobs_table(header + "\n1.batch|alice|phys|normal|0\n", "jobs.txt", in.conf, in.qos, in.assoc));
}

TEST_CASE("config: job_list_places: array tasks split off stand where the array's record stood") {
    // slurmctld 22.05's job_array_split (job_mgr.c): the array's pending record becomes the
    // task, under the next job id, where it stood in the job list; _create_job_record appends
    // the copy that carries the rest of the array under the array's id. Array 5 had task 1
    // split off when the next id was 9, then task 2 when it was 12: 9 stands at 5's place,
    // 12 at 9's, and 5 (tasks 3-4) at 12's.
    const auto in = make_inputs();
    auto t = parse_jobs_table("JobID|User|Account|Partition|SubmitTime|ArrayJobID\n"
                              "5|alice|phys|normal|100|5\n"
                              "6|alice|phys|normal|100|\n"
                              "7|alice|phys|normal|100|0\n"
                              "9|alice|phys|normal|100|5\n"
                              "10|alice|phys|normal|100|\n"
                              "12|alice|phys|normal|100|5\n"
                              "13|alice|phys|normal|100|\n",
                              "jobs", in.conf, in.qos, in.assoc);
    REQUIRE(t);
    CHECK(t->jobs[3].array_job_id == 5);
    CHECK(t->jobs[1].array_job_id == 0);
    CHECK(job_list_places(*t) == std::vector<std::uint32_t>{12, 6, 7, 5, 10, 9, 13});
    // An array nothing was split off stays where it was submitted.
    auto u = parse_jobs_table("JobID|User|Account|Partition|SubmitTime|ArrayJobID\n"
                              "5|alice|phys|normal|100|5\n"
                              "6|alice|phys|normal|100|\n",
                              "jobs", in.conf, in.qos, in.assoc);
    REQUIRE(u);
    CHECK(job_list_places(*u) == std::vector<std::uint32_t>{5, 6});
    auto bad = parse_jobs_table("JobID|User|Account|Partition|SubmitTime|ArrayJobID\n"
                                "5|alice|phys|normal|100|x5\n",
                                "jobs", in.conf, in.qos, in.assoc);
    REQUIRE_FALSE(bad);
    CHECK(bad.error().to_string().starts_with("jobs:2:25: ArrayJobID: job 5: "));
}
