// `mfprio queue` against expectations derived outside mfprio.
//
// tests/data/queue: seed003.policy (seed 003's six factors: wait_time, fair_share, qos, queue,
// job_size, user) over a ten-node, 320-CPU cluster (slurm.conf), QOS normal 0 / high 100,
// fair-share alice 0.9, bob 0.4, carol 0.6 (assoc.txt) and queues bronze 1, silver 2, gold 5.
// expected_seed003.txt was computed by an independent script from reference slurm.md 1.1
// (age = min(1, waited / PriorityMaxAge), job size = (nodes/N + CPUs/C) / 2) and
// flux_maui.md A2.1 (queue priority, urgency - 16, C rounding, urgency 0 holds, 31
// expedites), in seed 003's "%7s %8s %10s" + " %10s" layout. By hand, job 1001 (alice, one
// day waited, 1 node and 32 CPUs, queue silver, urgency 16): 1000 x 86400/604800 = 142.86 +
// 100000 x 0.9 + 0 + 10000 x 2 + 1000 x (0.1 + 0.1)/2 + 0 = 110242.86 -> 110243.

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cli.hpp"

namespace {
std::string data(const std::string& name) { return std::string(MFPRIO_TEST_DATA) + "/queue/" + name; }
std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}
mfprio::cli::outcome queue(std::vector<std::string> args) {
    args.insert(args.end(), {"--now", "1800000000"});
    std::vector<std::string_view> views(args.begin(), args.end());
    return mfprio::cli::run_queue(views);
}
std::vector<std::string> seed003() {
    return {"--policy", data("seed003.policy"), "--jobs", data("jobs.txt"), "--conf", data("slurm.conf"),
            "--qos", data("qos.txt"), "--assoc", data("assoc.txt"), "--queues", data("queues.txt")};
}
std::vector<std::string> flux(const std::string& policy) {
    return {"--policy", policy, "--jobs", data("jobs_flux.txt"), "--assoc", data("assoc.txt"),
            "--queues", data("queues.txt"), "--banks", data("banks.txt")};
}
} // namespace

TEST_CASE("cli: queue prints seed 003's table for its six factors") {
    const auto o = queue(seed003());
    CHECK(o.status == 0);
    CHECK(o.err == "");
    CHECK(o.out == slurp(data("expected_seed003.txt")));
    CHECK(o.out.rfind("  JOBID     USER   PRIORITY  WAIT_TIME FAIR_SHARE        QOS      QUEUE   JOB_SIZE       USER\n", 0) == 0);
    CHECK(o.out.find("   1001    alice     110243 ") != std::string::npos);
    CHECK(o.out.find("1007") == std::string::npos); // running: not in the pending queue
}

TEST_CASE("cli: queue with flux-accounting's preset and defaults") {
    // Reference A2.1 defaults: fair-share 100000, queue 10000, bank 0, urgency 1000 x (u - 16).
    // 1: 90000 + 20000 = 110000; 2: 40000 + 50000 + 4000 = 94000; 3: 60000 + 10000 - 1000 =
    // 69000; 5: 60000 - 15000 = 45000; 4: urgency 0 holds: 0, last.
    const auto o = queue(flux("flux-accounting"));
    CHECK(o.status == 0);
    CHECK(o.out == "  JOBID     USER   PRIORITY  FAIRSHARE      QUEUE       BANK    URGENCY\n"
                   "      1    alice     110000      90000      20000          0          0\n"
                   "      2      bob      94000      40000      50000          0       4000\n"
                   "      3    carol      69000      60000      10000          0      -1000\n"
                   "      5    carol      45000      60000          0          0     -15000\n"
                   "      4      bob          0      40000          0          0     -16000\n");
}

TEST_CASE("cli: queue with a policy file that overrides a preset") {
    // preset = flux-accounting; urgency = 1; bank = 1000; banks A 0.5, B 3.5 (t1054's 3.5):
    // 1: 90000 + 20000 + 500 + 0 = 110500; 2: 40000 + 50000 + 500 + 4 = 90504;
    // 3: 60000 + 10000 + 3500 - 1 = 73499; 5: 60000 + 3500 - 15 = 63485; 4: held.
    const auto o = queue(flux(data("override.policy")));
    CHECK(o.status == 0);
    CHECK(o.out.find("      1    alice     110500 ") != std::string::npos);
    CHECK(o.out.find("      2      bob      90504 ") != std::string::npos);
    CHECK(o.out.find("      3    carol      73499 ") != std::string::npos);
    CHECK(o.out.find("      5    carol      63485 ") != std::string::npos);
    CHECK(o.out.find("      4      bob          0 ") != std::string::npos);
}

TEST_CASE("cli: queue --explain and the FCFS preset") {
    auto args = flux("flux-accounting");
    args.insert(args.end(), {"--explain", "4"});
    const auto x = queue(args);
    CHECK(x.status == 0);
    CHECK(x.out.find("priority 0 (urgency 0: held)") != std::string::npos);
    auto missing_args = flux("flux-accounting");
    missing_args.insert(missing_args.end(), {"--explain", "4242"});
    const auto missing = queue(missing_args);
    CHECK(missing.status == 65);
    CHECK(missing.err == "mfprio: " + data("jobs_flux.txt") + ": job 4242 is not in the jobs table\n");
    // FCFS (seed 003): each job one below the last submitted, from 4294967295.
    const auto f = queue(flux("fcfs"));
    CHECK(f.out.find("      1    alice 4294967295 4294967295\n") != std::string::npos);
    CHECK(f.out.find("      5    carol 4294967291 4294967291\n") != std::string::npos);
}

TEST_CASE("cli: queue --default-bank: a job without a bank is in its user's default bank") {
    // flux-accounting's plugin gives a job submitted without a bank its user's default bank
    // (update_jobspec_bank, users_def_bank). Job 6, carol, no Bank: in bank B it has B's
    // association (FairShare 0.6) and B's priority 3.5. override.policy (bank weight 1000,
    // urgency weight 1), urgency 16, no queue: 100000 x 0.6 + 1000 x 3.5 = 63500.
    const std::string jobs = "/tmp/mfprio_cli_queue_default_bank.txt";
    std::ofstream(jobs) << "JobID|User|Bank|Queue|Urgency|SubmitTime\n"
                           "1|alice|A|silver|16|1799990000\n"
                           "6|carol|||16|1799990500\n";
    std::vector<std::string> args{"--policy", data("override.policy"), "--jobs", jobs, "--assoc", data("assoc.txt"),
                                  "--queues", data("queues.txt"), "--banks", data("banks.txt")};
    const auto without = queue(args);
    CHECK(without.status == mfprio::cli::exit_data);
    CHECK(without.err.find("job 6: no association for user 'carol' in bank ''") != std::string::npos);
    args.insert(args.end(), {"--default-bank", "carol=B", "--default-bank", "alice=B"});
    const auto o = queue(args);
    CHECK(o.status == 0);
    CHECK(o.out.find("      6    carol      63500 ") != std::string::npos);
    // alice's job names bank A: her default bank does not apply (90000 + 20000 + 500 = 110500).
    CHECK(o.out.find("      1    alice     110500 ") != std::string::npos);
    args.insert(args.end(), {"--default-bank", "carol"});
    CHECK(queue(args).err.find("--default-bank takes USER=BANK, not 'carol'") != std::string::npos);
}

TEST_CASE("cli: queue errors") {
    const auto bad = queue(flux(data("bad.policy")));
    CHECK(bad.status == mfprio::cli::exit_data);
    CHECK(bad.out == "");
    CHECK(bad.err.find(data("bad.policy") + ":2:") != std::string::npos);
    CHECK(bad.err.find("gpu_hours") != std::string::npos);
    CHECK(queue({"--jobs", data("jobs_flux.txt")}).status == mfprio::cli::exit_usage);
    CHECK(queue({"--policy", "fcfs", "--jobs", data("jobs_flux.txt"), "--conf", data("slurm.conf")}).err.find(
              "--conf and --qos go together") != std::string::npos);
    CHECK(queue({"--policy", "fcfs", "--jobs", data("jobs_flux.txt"), "--algorithm", "best"}).status ==
          mfprio::cli::exit_usage);
    CHECK(queue({"--policy", "/nonexistent.policy", "--jobs", data("jobs_flux.txt")}).status ==
          mfprio::cli::exit_data);
    const auto help = queue({"--help"});
    CHECK(help.out.find("--policy P") != std::string::npos);
}
