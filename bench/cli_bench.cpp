// The mfprio tool on a large cluster's own outputs: `squeue --json` of 100,000 pending jobs
// read and sprio printed, end to end (files read, JSON parsed, jobs resolved, the model built,
// every job's priority computed, the table rendered), on one core.
//
// The jobs file is generated before anything is timed: every job is a copy of job 7 of the
// captured Slurm 22.05.8 output (tests/data/live/fair_tree/squeue.json, all 110 fields as
// squeue prints them, about 3.2 KB a job) with its id, user, account, partitions, QOS, times,
// sizes and TRES varied. 10,000 users in 100 accounts; the configuration, QOS and association
// inputs are the same kinds of outputs (scontrol show config/partition/node, sacctmgr show qos
// -P, sshare -a -l -P). With MFPRIO_BENCH_SMALL=1 (the test suite's smoke run) 10,000 jobs.
//
// Benchmarks:
//   sprio_squeue_json/<jobs>   `mfprio sprio -l` with --jobs squeue.json (ms per run);
//   sprio_scontrol/<jobs>      the same jobs as `scontrol show job` output;
//   whatif_squeue_json/<jobs>  `mfprio whatif` with two --set changes (fair-share weight and a
//                              partition's factor): both models, both queues, the comparison;
//   read_squeue_json/<jobs>    the JSON reader alone (file in memory -> jobs table).

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

#include <benchmark/benchmark.h>

#include "commands.hpp"
#include "whatif_commands.hpp"

namespace {

std::size_t job_count() { return std::getenv("MFPRIO_BENCH_SMALL") ? 10000 : 100000; }

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

/// Replaces the value of `"key": value` (up to the ',' ending the line) in a job object.
void set_field(std::string& obj, std::string_view key, const std::string& value) {
    const std::string k = "\"" + std::string(key) + "\": ";
    const auto at = obj.find(k);
    if (at == std::string::npos) {
        std::fprintf(stderr, "cli_bench: the template has no %s\n", k.c_str());
        std::exit(1);
    }
    const auto from = at + k.size();
    // A string value ends at its closing quote (squeue's strings here have no escapes).
    const auto to = obj[from] == '"' ? obj.find('"', from + 1) + 1 : obj.find_first_of(",\n", from);
    obj.replace(from, to - from, value);
}

struct files {
    std::string dir, json, scontrol;
    std::vector<std::string> conf_args;
};

/// Writes the inputs into a temporary directory once.
bool generated = false;

const files& inputs() {
    static files f = [] {
        generated = true;
        files r;
        r.dir = (std::filesystem::temp_directory_path() / ("mfprio_cli_bench_" + std::to_string(getpid()))).string();
        std::filesystem::create_directories(r.dir);
        const std::string live = std::string(MFPRIO_BENCH_DATA) + "/live/fair_tree/";
        // The template: job 7's object, as squeue printed it.
        const std::string captured = slurp(live + "squeue.json");
        const auto id = captured.find("\"job_id\": 7,");
        const auto open = captured.rfind("\n    {", id);
        const auto close = captured.find("\n    }", id);
        if (id == std::string::npos || open == std::string::npos || close == std::string::npos) {
            std::fprintf(stderr, "cli_bench: job 7 not found in %ssqueue.json\n", live.c_str());
            std::exit(1);
        }
        const std::string job7 = captured.substr(open + 1, close + 6 - open - 1);
        const std::string head = captured.substr(0, captured.find("\"jobs\": [") + 9);
        static const char* parts[] = {"\"big\"", "\"gpu\"", "\"big,gpu\"", "\"debug\""};
        static const char* qos[] = {"\"normal\"", "\"high\"", "\"low\""};
        std::string json = head + "\n";
        std::string sc;
        const std::size_t n = job_count();
        for (std::size_t i = 0; i < n; ++i) {
            std::string o = job7;
            const std::string t = std::to_string(1795571756 - static_cast<long>(i % 86400));
            set_field(o, "job_id", std::to_string(1000 + i));
            set_field(o, "user_name", "\"u" + std::to_string(i % 10000) + "\"");
            set_field(o, "account", "\"a" + std::to_string(i % 10000 / 100) + "\"");
            set_field(o, "partition", parts[i % 4]);
            set_field(o, "qos", qos[i % 3]);
            set_field(o, "submit_time", t);
            set_field(o, "eligible_time", t);
            set_field(o, "accrue_time", t);
            set_field(o, "cpus", std::to_string(1 + i % 16));
            set_field(o, "node_count", std::to_string(1 + i % 2));
            set_field(o, "tres_req_str", "\"cpu=" + std::to_string(1 + i % 16) + ",mem=" + std::to_string(500 * (1 + i % 8)) +
                                             "M,node=" + std::to_string(1 + i % 2) + (i % 5 == 0 ? ",gres/gpu=1" : "") + "\"");
            json += o;
            json += i + 1 < n ? ",\n" : "\n";
            const std::string p = std::string(parts[i % 4]).substr(1, std::string(parts[i % 4]).size() - 2);
            const std::string q = std::string(qos[i % 3]).substr(1, std::string(qos[i % 3]).size() - 2);
            sc += "JobId=" + std::to_string(1000 + i) + " JobName=wrap UserId=u" + std::to_string(i % 10000) +
                  "(2000) GroupId=root(0) MCS_label=N/A Priority=1000 Nice=0 Account=a" + std::to_string(i % 10000 / 100) +
                  " QOS=" + q + " JobState=PENDING Reason=Priority Dependency=(null) Requeue=1 Restarts=0 BatchFlag=1 "
                  "Reboot=0 ExitCode=0:0 RunTime=00:00:00 TimeLimit=01:00:00 TimeMin=N/A SubmitTime=" + t +
                  " EligibleTime=" + t + " AccrueTime=" + t + " StartTime=Unknown EndTime=Unknown Deadline=N/A "
                  "Partition=" + p + " AllocNode:Sid=localhost:1 ReqNodeList=(null) ExcNodeList=(null) NodeList= NumNodes=" +
                  std::to_string(1 + i % 2) + " NumCPUs=" + std::to_string(1 + i % 16) +
                  " NumTasks=1 CPUs/Task=1 TRES=cpu=" + std::to_string(1 + i % 16) + ",mem=" + std::to_string(500 * (1 + i % 8)) +
                  "M,node=" + std::to_string(1 + i % 2) + " Command=(null) WorkDir=/tmp Power=\n";
        }
        json += "  ]\n}\n";
        r.json = r.dir + "/squeue.json";
        r.scontrol = r.dir + "/scontrol_show_job.txt";
        std::ofstream(r.json, std::ios::binary) << json;
        std::ofstream(r.scontrol, std::ios::binary) << sc;
        // Associations: root, 100 accounts, 100 users each (10,000 users), as sshare -a -l -P
        // prints them; usage varies so that fair-share has something to rank.
        std::string sshare = "Account|User|RawShares|NormShares|RawUsage|NormUsage|EffectvUsage|FairShare|LevelFS|"
                             "GrpTRESMins|TRESRunMins\nroot|||0.000000|1000||1.000000||||\n";
        for (int a = 0; a < 100; ++a) {
            sshare += " a" + std::to_string(a) + "||" + std::to_string(1 + a % 7) + "|0.010000|100|0.010000|0.010000||1.000000||\n";
            for (int u = 0; u < 100; ++u) {
                const int user = a * 100 + u;
                char fs[32];
                std::snprintf(fs, sizeof fs, "%.6f", (10000 - user) / 10000.0);
                sshare += "  a" + std::to_string(a) + "|u" + std::to_string(user) + "|" + std::to_string(1 + user % 5) +
                          "|0.010000|" + std::to_string((user * 7919) % 1000) + "|0.001000|0.001000|" + fs + "|1.000000||\n";
            }
        }
        std::ofstream(r.dir + "/sshare_a_l_P.txt") << sshare;
        for (const char* name : {"scontrol_show_config.txt", "scontrol_show_partition.txt", "scontrol_show_node.txt",
                                 "sacctmgr_show_qos.txt"})
            std::filesystem::copy_file(live + name, r.dir + "/" + name, std::filesystem::copy_options::overwrite_existing);
        r.conf_args = {"--conf", r.dir + "/scontrol_show_config.txt", "--conf", r.dir + "/scontrol_show_partition.txt",
                       "--conf", r.dir + "/scontrol_show_node.txt",  "--qos",  r.dir + "/sacctmgr_show_qos.txt",
                       "--assoc", r.dir + "/sshare_a_l_P.txt",       "--now",  "1795571956"};
        return r;
    }();
    return f;
}

void run_sprio(benchmark::State& state, const std::string& jobs) {
    const files& f = inputs();
    std::vector<std::string_view> args(f.conf_args.begin(), f.conf_args.end());
    args.insert(args.end(), {"--jobs", jobs, "-l"});
    std::size_t bytes = 0;
    for (auto _ : state) {
        const auto o = mfprio::cli::run_sprio(args);
        if (o.status != 0) {
            state.SkipWithError(o.err.c_str());
            return;
        }
        bytes = o.out.size();
        benchmark::DoNotOptimize(o.out.data());
    }
    state.counters["jobs"] = static_cast<double>(job_count());
    state.counters["output_bytes"] = static_cast<double>(bytes);
    state.counters["input_MB"] = static_cast<double>(std::filesystem::file_size(jobs)) / 1e6;
}

void sprio_squeue_json(benchmark::State& state) { run_sprio(state, inputs().json); }

void whatif_squeue_json(benchmark::State& state) {
    const files& f = inputs();
    std::vector<std::string_view> args(f.conf_args.begin(), f.conf_args.end());
    args.insert(args.end(), {"--jobs", f.json, "--set", "PriorityWeightFairshare=100000", "--set", "partition.gpu.PriorityJobFactor=50"});
    for (auto _ : state) {
        const auto o = mfprio::cli::run_whatif(args);
        if (o.status != 0) {
            state.SkipWithError(o.err.c_str());
            return;
        }
        benchmark::DoNotOptimize(o.out.data());
    }
    state.counters["jobs"] = static_cast<double>(job_count());
    state.counters["associations"] = 10101;
}
void sprio_scontrol(benchmark::State& state) { run_sprio(state, inputs().scontrol); }

void read_squeue_json(benchmark::State& state) {
    auto in = mfprio::inputs::read_jobs_source(inputs().json);
    if (!in) {
        state.SkipWithError("cannot read the generated squeue.json");
        return;
    }
    for (auto _ : state) {
        auto t = mfprio::inputs::squeue_json_table(in->text(), in->readable_after(), in->name);
        if (!t) {
            state.SkipWithError(t.error().to_string().c_str());
            return;
        }
        benchmark::DoNotOptimize(t->rows.data());
    }
}

} // namespace

BENCHMARK(sprio_squeue_json)->Name("sprio_squeue_json/" + std::to_string(job_count()))->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(sprio_scontrol)->Name("sprio_scontrol/" + std::to_string(job_count()))->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(whatif_squeue_json)->Name("whatif_squeue_json/" + std::to_string(job_count()))->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(read_squeue_json)->Name("read_squeue_json/" + std::to_string(job_count()))->Unit(benchmark::kMillisecond)->UseRealTime();

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    std::error_code ec;
    if (generated) std::filesystem::remove_all(inputs().dir, ec);
    return 0;
}
