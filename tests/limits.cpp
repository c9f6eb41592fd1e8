// The tool's resource bounds: no input file under 1 MB makes a command take more than 5 s of
// CPU or 1 GB of memory. (The heaviest cases take 1.0-1.3 s on one 2.1 GHz core; the bound
// leaves room for a slower machine and meson's MALLOC_PERTURB_, and still stops a reader that
// compares every name with every other, which takes many seconds on these inputs.) Each case writes an input of about 1 MB shaped for the worst a reader
// allows (names that each get a "did you mean", the most nodes and partition memberships
// slurm.conf takes, deep and wide association trees, tens of thousands of jobs, the longest
// charge `usage` computes...), then runs the command in a child process whose address space
// is limited to 1 GiB (it fails rather than grow past it) and measures the child's CPU time.
// Built for optimized builds without sanitizers (their overhead is not the tool's).
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.hpp"

namespace {

constexpr std::size_t one_mb = 1'000'000;
constexpr double max_cpu_seconds = 5.0;
constexpr rlim_t max_bytes = rlim_t{1} << 30;

std::filesystem::path dir() {
    static const auto d = [] {
        auto p = std::filesystem::temp_directory_path() / ("mfprio-limits-" + std::to_string(::getpid()));
        std::filesystem::create_directories(p);
        return p;
    }();
    return d;
}

/// Writes `text` to a file named `name` in the test's directory; returns its path.
std::string put(const std::string& name, const std::string& text) {
    std::filesystem::create_directories(dir()); // (a test case removes it when it ends)
    const auto path = (dir() / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

/// `line(i)` for i = 0, 1, ... after `head` until the text reaches about 1 MB.
template <class Line>
std::string about_1mb(std::string head, Line&& line) {
    for (std::size_t i = 0; head.size() < one_mb - 200; ++i) head += line(i);
    return head;
}

struct usage_report {
    bool exited = false;  ///< the child exited (not killed, not out of memory)
    int status = -1;      ///< its exit status
    double cpu = 0;       ///< user + system seconds
    long max_rss_kb = 0;  ///< its peak resident memory
};

/// Runs `mfprio ARGS` in a child limited to `address_space` bytes (`cpu_seconds` of CPU as
/// a backstop) and reports how it ended, the CPU and the memory it used.
usage_report run_limited(std::vector<std::string> args, rlim_t address_space = max_bytes, rlim_t cpu_seconds = 10) {
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        const rlimit mem{address_space, address_space};
        const rlimit cpu{cpu_seconds, cpu_seconds};
        ::setrlimit(RLIMIT_AS, &mem);
        ::setrlimit(RLIMIT_CPU, &cpu);
        std::vector<std::string_view> views(args.begin(), args.end());
        const auto o = mfprio::cli::run_main(views);
        ::_exit(o.status);
    }
    int status = 0;
    rusage ru{};
    REQUIRE(::wait4(pid, &status, 0, &ru) == pid);
    usage_report r;
    r.exited = WIFEXITED(status);
    r.status = r.exited ? WEXITSTATUS(status) : -1;
    r.cpu = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
            static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    r.max_rss_kb = ru.ru_maxrss;
    return r;
}

void check_bounded(const std::string what, std::vector<std::string> args, std::initializer_list<int> statuses) {
    CAPTURE(what);
    const auto r = run_limited(std::move(args));
    CAPTURE(r.cpu);
    CAPTURE(r.status);
    CHECK(r.exited); // not killed for CPU, not aborted for want of memory
    CHECK(r.cpu <= max_cpu_seconds);
    bool expected = false;
    for (const int s : statuses) expected = expected || s == r.status;
    CHECK(expected);
}

} // namespace

TEST_CASE("limits: no input under 1 MB takes more than 5 s of CPU or 1 GB of memory") {
    const std::string qos = put("qos.txt", "Name|Priority|UsageFactor\nnormal|0|1\n");
    const std::string small_conf = put("small.conf", "NodeName=n[1-4] CPUs=8 RealMemory=64000\n"
                                                     "PartitionName=p Nodes=ALL Default=YES\nPriorityCalcPeriod=1\n");
    const std::string small_assoc = put("small_assoc.txt", "Account|User|RawShares|RawUsage\nroot|||\n a||1|\n  a|u0|1|5\n");

    // maui.cfg: unknown names, each within reach of a "did you mean"; random bytes.
    const std::string unknown_cfg = put("unknown.cfg", about_1mb("", [](std::size_t i) {
        return "QUEUTIMEWEIGHT" + std::to_string(i % 100) + " 5\nSERVERHOTS x\n";
    }));
    std::string garbage;
    for (std::size_t i = 0; garbage.size() < one_mb - 200; ++i) garbage += "abcXYZ[]=% \n\t#"[(i * 7919) % 15];
    const std::string garbage_cfg = put("garbage.cfg", garbage);
    const std::string maui_jobs = put("maui_jobs.txt", about_1mb("JobID|User|SubmitTime|WCLimit|Req\n", [](std::size_t i) {
        return std::to_string(i + 1) + "|u" + std::to_string(i % 997) + "|1000|INFINITY|2x(procs=4,mem=1G);1x(procs=1)\n";
    }));
    check_bounded("lint maui.cfg of unknown names", {"lint", "--maui-cfg", unknown_cfg}, {1});
    check_bounded("diagnose maui.cfg of random bytes", {"diagnose", "--maui-cfg", garbage_cfg, "--jobs", maui_jobs,
                                                         "--now", "100000"},
                  {0, 65});

    // slurm.conf: misspelled Priority keys; the most nodes and partition memberships.
    const std::string typo_conf = put("typo.conf", about_1mb("NodeName=n1 CPUs=8\n", [](std::size_t i) {
        return "PriorityWieghtAge" + std::to_string(i) + "=1\n";
    }));
    std::string nodes = "NodeName=n[1-200000] CPUs=8\n";
    for (int i = 0; i < 10; ++i) nodes += "PartitionName=p" + std::to_string(i) + " Nodes=n[1-200000]\n";
    const std::string nodes_conf = put("nodes.conf", nodes);
    const std::string many_partitions = put("partitions.conf", about_1mb("NodeName=n[1-200000] CPUs=8\n", [](std::size_t i) {
        return "PartitionName=q" + std::to_string(i) + " Nodes=ALL\n";
    }));
    check_bounded("lint slurm.conf of misspelled keys", {"lint", "--conf", typo_conf}, {1});
    check_bounded("sshare, 200000 nodes in 10 partitions", {"sshare", "--conf", nodes_conf, "--assoc", small_assoc}, {0});
    check_bounded("sshare, thousands of partitions of every node",
                  {"sshare", "--conf", many_partitions, "--assoc", small_assoc}, {65});

    // Associations: deep and wide; jobs: tens of thousands.
    const std::string deep = put("deep.txt", about_1mb("Account|User|RawShares|RawUsage\nroot|||\n", [](std::size_t i) {
        return std::string(i + 1, ' ') + "d" + std::to_string(i) + "||1|5\n";
    }));
    const std::string wide = put("wide.txt", about_1mb("Account|User|RawShares|RawUsage\nroot|||\n a||1|\n", [](std::size_t i) {
        return "  a|u" + std::to_string(i) + "|1|" + std::to_string(i) + "\n";
    }));
    const std::string jobs = put("jobs.txt", about_1mb("JobID|User|Account|Partition|SubmitTime|TRES|State\n", [](std::size_t i) {
        return std::to_string(i + 1) + "|u" + std::to_string(i % 20000) + "|a|p|1000|cpu=4,mem=1G,node=1|" +
               (i % 3 ? "PENDING" : "RUNNING") + "\n";
    }));
    check_bounded("sshare -a -l, a tree thousands deep", {"sshare", "--conf", small_conf, "--assoc", deep, "-a", "-l"},
                  {0, 65});
    check_bounded("sshare -a -l, tens of thousands of users", {"sshare", "--conf", small_conf, "--assoc", wide, "-a", "-l"},
                  {0});
    check_bounded("sprio -l, tens of thousands of jobs",
                  {"sprio", "--conf", small_conf, "--qos", qos, "--assoc", wide, "--jobs", jobs, "-l", "--now", "100000"},
                  {0});
    check_bounded("whatif, tens of thousands of jobs",
                  {"whatif", "--conf", small_conf, "--qos", qos, "--assoc", wide, "--jobs", jobs, "--set",
                   "PriorityWeightAge=1000", "--now", "100000"},
                  {0});
    // usage: 36 hours of one-minute passes over every association and running job is within
    // its step bound (2162 passes x about 73000 steps); 2^31-1 s (the longest Slurm time) is
    // refused at once.
    check_bounded("usage near its step bound",
                  {"usage", "--conf", small_conf, "--qos", qos, "--assoc", wide, "--jobs", jobs, "--elapsed",
                   "1-12:00:00"},
                  {0});
    check_bounded("usage over 68 years of one-minute passes",
                  {"usage", "--conf", small_conf, "--qos", qos, "--assoc", wide, "--jobs", jobs, "--elapsed",
                   "24855-03:14:07"},
                  {2});

    // Long lists where a reader must not compare every name with every other: tens of
    // thousands of QOS, credentials, partitions and banks, and a job naming every partition.
    const std::string many_qos = put("many_qos.txt", about_1mb("Name|Priority|UsageFactor\nnormal|0|1\n", [](std::size_t i) {
        return "Q" + std::to_string(i) + "|" + std::to_string(i) + "|1\n";
    }));
    std::string part_conf = "NodeName=n1 CPUs=8\n", all_parts;
    for (std::size_t i = 0; part_conf.size() < one_mb / 2; ++i) {
        part_conf += "PartitionName=p" + std::to_string(i) + " Nodes=n1\n";
        all_parts += (i ? "," : "") + ("p" + std::to_string(i));
    }
    const std::string parts_conf = put("parts.conf", part_conf);
    const std::string long_job = put("long_job.txt", "JobID|User|Account|Partition|QOS|SubmitTime\n1|u0|a|" + all_parts +
                                                         "|normal|1000\n2|u1|a|" + all_parts + "|normal|1000\n");
    const std::string qos_jobs = put("qos_jobs.txt", about_1mb("JobID|User|Account|Partition|QOS|SubmitTime\n", [](std::size_t i) {
        return std::to_string(i + 1) + "|u" + std::to_string(i % 1000) + "|a|p|Q" + std::to_string(i) + "|1000\n";
    }));
    const std::string creds_cfg = put("creds.cfg", about_1mb("QUEUETIMEWEIGHT 1\n", [](std::size_t i) {
        return "USERCFG[u" + std::to_string(i) + "] PRIORITY=" + std::to_string(i % 1000) + "\n";
    }));
    check_bounded("sprio, tens of thousands of QOS, a job in each",
                  {"sprio", "--conf", small_conf, "--qos", many_qos, "--assoc", wide, "--jobs", qos_jobs, "--now", "100000"},
                  {0, 65}); // 65: more QOS than a job's 16-bit index holds, said at the QOS table's line
    check_bounded("sprio, jobs naming every one of thousands of partitions",
                  {"sprio", "--conf", parts_conf, "--qos", qos, "--assoc", wide, "--jobs", long_job, "--now", "100000"},
                  {0});
    check_bounded("diagnose, tens of thousands of user credentials",
                  {"diagnose", "--maui-cfg", creds_cfg, "--jobs", maui_jobs, "--now", "100000"}, {0});

    // -o formats at their widest line (2043 of 2048 characters) over every row.
    check_bounded("sshare -o at the widest line",
                  {"sshare", "--conf", small_conf, "--assoc", wide, "-a", "-o", "TRESRunMins%1000,RawUsage%1000,User%40"},
                  {0});
    check_bounded("sprio -o at the widest line",
                  {"sprio", "--conf", small_conf, "--qos", qos, "--assoc", wide, "--jobs", jobs, "--now", "100000", "-o",
                   "%2000i%48u"},
                  {0});

    std::filesystem::remove_all(dir());
}

TEST_CASE("limits: memory follows what the readers keep, and --live's output is capped") {
    // 8 MB of words scontrol never prints (`xN=y`) in `scontrol show node` output: the reader
    // keeps the keys it reads, so the peak stays near the inputs' own size (the text and one
    // blanked copy), far below what keeping every pair would take (about 58 bytes a byte).
    const std::string node = std::string(MFPRIO_TEST_DATA) + "/live/fair_tree/scontrol_show_node.txt";
    std::ifstream in(node, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    REQUIRE(!text.empty());
    text += "   ";
    for (std::size_t i = 0; text.size() < 8'000'000; ++i) text += "x" + std::to_string(i % 100) + "=y ";
    text += "\n";
    const std::string junk = put("junk_node.txt", text);
    const std::string b = std::string(MFPRIO_TEST_DATA) + "/live/fair_tree/";
    const auto r = run_limited({"sprio", "--conf", b + "scontrol_show_config.txt", "--conf", b + "scontrol_show_partition.txt",
                                "--conf", junk, "--qos", b + "sacctmgr_show_qos.txt", "--assoc", b + "sshare_a_l_P.txt",
                                "--jobs", b + "squeue.json", "--now", "1795618312"});
    CAPTURE(r.max_rss_kb);
    CHECK(r.exited);
    CHECK(r.status == 0);
    CHECK(r.max_rss_kb < 64 * 1024);

    // --live with a squeue that prints without end: refused at the output bound (1 GiB),
    // its memory that bound and the string's growth, not what squeue printed in 20 s.
    const auto fakes = dir() / "flood";
    std::filesystem::create_directories(fakes);
    std::ofstream(fakes / "fake") << "#!/bin/sh\ncase \"$0\" in *squeue) exec yes ;; *) echo x ;; esac\n";
    std::filesystem::permissions(fakes / "fake", std::filesystem::perms::owner_all);
    for (const char* c : {"scontrol", "squeue", "sshare", "sacctmgr"})
        if (!std::filesystem::exists(fakes / c)) std::filesystem::create_symlink(fakes / "fake", fakes / c);
    const std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
    setenv("PATH", (fakes.string() + ":" + path).c_str(), 1);
    // (Reading 1 GiB from a pipe takes 3-6 s of system time here; more under a loaded test
    // run with MALLOC_PERTURB_ filling every buffer: the CPU backstop is 40 s.)
    const auto flood = run_limited({"sprio", "--live", "--timeout", "20"}, rlim_t{4} << 30, 40);
    setenv("PATH", path.c_str(), 1);
    CAPTURE(flood.max_rss_kb);
    CHECK(flood.exited);
    CHECK(flood.status == 65);
    // 1 GiB of output and at most the half-size buffer its string grew from: never the
    // 2 GiB string of the next doubling.
    CHECK(flood.max_rss_kb < 1'990'000);

    // queue --live with every flux command (but `flux jobtap list`, which names the plugin)
    // flooding at once: the bound is on what all of them print together, so the memory is
    // that of one flood, not seven.
    const auto flux_fakes = dir() / "flux_flood";
    std::filesystem::create_directories(flux_fakes);
    std::ofstream(flux_fakes / "flux") << "#!/bin/sh\ncase \"$*\" in 'jobtap list') echo mf_priority.so ;; *) exec yes ;; esac\n";
    std::filesystem::permissions(flux_fakes / "flux", std::filesystem::perms::owner_all);
    setenv("PATH", (flux_fakes.string() + ":" + path).c_str(), 1);
    const auto flux_flood = run_limited({"queue", "--live"}, rlim_t{4} << 30, 40);
    setenv("PATH", path.c_str(), 1);
    CAPTURE(flux_flood.max_rss_kb);
    CHECK(flux_flood.exited);
    CHECK(flux_flood.status == 65);
    CHECK(flux_flood.max_rss_kb < 1'990'000);
    std::filesystem::remove_all(dir());
}
