// site_factor/mfprio's update pass: 20,000 pending jobs (2,000 with MFPRIO_BENCH_SMALL=1), each
// given its site factor by the plugin's C++ half, against a plain C loop of the same formula.
//
// - update/xfactor: the preset `xfactor` (SchedMD's xfactor plugin as its description reads:
//   wait over the time limit, a minimum limit of ten minutes, rounded, capped at 10, times
//   1000) through the policy engine the plugin runs (`queue::site_engine`, a dynamic engine:
//   one virtual call per term), from the plain struct the plugin's C shim fills.
// - update/plain_c: the same formula written as a C loop over the same structs, no policy:
//   the floor a hand-written plugin has.
// - update/reconfigured: the nine-term policy of tests/live/site_factor.sh's second step
//   (with gpu_fair_use).
// - lock/...: what the plugin does under slurmctld's job lock in one update, through its C
//   interface (site_core.cpp, as the C shim calls it): every pending job's value
//   (lock/jobs), the copy of 2,000 associations for the snapshot and its hand-over to the
//   writer thread (lock/snapshot), both (lock/jobs_and_snapshot). write/2000 is that
//   thread's work for the same snapshot (the text, a new file, the rename), outside the
//   lock; it runs beside the next iterations, as beside slurmctld.
//
// Before timing, the two xfactor variants are checked to give the same value for every job.

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <mfprio/replay/site_snapshot.hpp>
#include <mfprio/queue/site.hpp>

#include "../examples/site_factor/site_job.h"

namespace {

using mfprio::queue::site_context;
using mfprio::queue::site_job;

std::size_t job_count() { return std::getenv("MFPRIO_BENCH_SMALL") != nullptr ? 2000 : 20000; }

const std::vector<site_job>& jobs() {
    static const std::vector<site_job> all = [] {
        std::mt19937_64 rng(36);
        std::vector<site_job> v(job_count());
        for (std::size_t i = 0; i < v.size(); ++i) {
            site_job& j = v[i];
            j.id = static_cast<std::uint32_t>(i + 1);
            j.submit_time = 1'800'000'000 - static_cast<std::int64_t>(rng() % (14 * 86400));
            j.begin_time = rng() % 4 == 0 ? j.submit_time + static_cast<std::int64_t>(rng() % 3600) : 0;
            j.time_limit = rng() % 20 == 0 ? mfprio::no_val32 : static_cast<std::uint32_t>(5 + rng() % 2880);
            j.partition_priority = static_cast<std::uint32_t>(rng() % 50);
            j.qos_priority = static_cast<std::uint32_t>(rng() % 1000);
            j.nice = static_cast<std::int32_t>(rng() % 200) - 100;
            j.cpus = static_cast<std::uint32_t>(1 + rng() % 256);
            j.nodes = static_cast<std::uint32_t>(1 + rng() % 8);
            j.mem_mb = 1000 + rng() % 500000;
            j.gpus = rng() % 3 == 0 ? rng() % 8 : 0;
            j.owner_gpu_minutes = rng() % 60000;
        }
        return v;
    }();
    return all;
}

constexpr std::int64_t now = 1'800'000'000;

/// The xfactor formula as a C programmer writes it from its description.
std::int64_t plain_xfactor(const site_job* j, std::int64_t t) {
    const std::int64_t start = j->begin_time > j->submit_time ? j->begin_time : j->submit_time;
    const std::int64_t wait = t > start ? t - start : 0;
    std::int64_t limit = (j->time_limit == mfprio::no_val32 || j->time_limit == mfprio::infinite32)
                             ? 86400
                             : (std::int64_t)j->time_limit * 60;
    if (limit < 600) limit = 600;
    double x = (double)wait / (double)limit;
    x = std::floor(x + 0.5);
    if (x > 10) x = 10;
    return (std::int64_t)std::floor(x * 1000 + 0.5);
}

mfprio::queue::site_engine policy(const char* text) {
    auto e = mfprio::queue::load_site_policy(text, "bench.policy", mfprio::queue::site_registry());
    if (!e) throw std::runtime_error(e.error().to_string());
    return std::move(*e);
}

const char* const reconfigured = "gpu_fair_use = 5000\ngpu_fair_use.budget = 20\npartition = 3\nqos = 1\n"
                                 "qos.cap = 400\nnice = 1\ngpus = 50\nxfactor = 100\nxfactor.min_limit = 30\n";

void check_same() {
    const auto e = policy("preset = xfactor\n");
    for (const auto& j : jobs())
        if (e.priority(j, site_context{now}) != plain_xfactor(&j, now))
            throw std::runtime_error("the policy and the plain loop differ for job " + std::to_string(j.id));
}

void bm_policy(benchmark::State& state, const char* text) {
    check_same();
    const auto e = policy(text);
    const auto& js = jobs();
    std::vector<std::int64_t> out(js.size());
    for (auto _ : state) {
        const site_context c{now};
        for (std::size_t i = 0; i < js.size(); ++i) out[i] = e.priority(js[i], c);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    state.counters["ns_per_job"] = benchmark::Counter(static_cast<double>(js.size()),
                                                      benchmark::Counter::kIsIterationInvariantRate |
                                                          benchmark::Counter::kInvert);
}

void bm_plain_c(benchmark::State& state) {
    check_same();
    const auto& js = jobs();
    std::vector<std::int64_t> out(js.size());
    for (auto _ : state) {
        for (std::size_t i = 0; i < js.size(); ++i) out[i] = plain_xfactor(&js[i], now);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    state.counters["ns_per_job"] = benchmark::Counter(static_cast<double>(js.size()),
                                                      benchmark::Counter::kIsIterationInvariantRate |
                                                          benchmark::Counter::kInvert);
}

/// The plugin's C interface configured with `policy` (and a snapshot directory), in a
/// directory of its own.
struct plugin_setup {
    std::filesystem::path dir;
    explicit plugin_setup(const char* policy, bool snapshot) {
        dir = std::filesystem::temp_directory_path() / ("mfprio-site-bench-" + std::to_string(::getpid()));
        std::filesystem::create_directories(dir);
        std::ofstream(dir / "site.policy") << policy;
        const std::string params = "policy=" + (dir / "site.policy").string() + (snapshot ? ",snapshot=" + dir.string() : "");
        char error[512];
        if (mfprio_site_configure(params.c_str(), error, sizeof error) != 0) throw std::runtime_error(error);
    }
    ~plugin_setup() {
        mfprio_site_clear();
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
    }
};

std::vector<mfprio_site_job> c_jobs() {
    std::vector<mfprio_site_job> out;
    for (const auto& j : jobs()) {
        mfprio_site_job c{};
        c.id = j.id;
        c.submit_time = j.submit_time;
        c.begin_time = j.begin_time;
        c.time_limit = j.time_limit;
        c.partition_priority = j.partition_priority;
        c.qos_priority = j.qos_priority;
        c.nice = j.nice;
        c.cpus = j.cpus;
        c.nodes = j.nodes;
        c.mem_mb = j.mem_mb;
        c.gpus = j.gpus;
        c.owner_gpu_minutes = j.owner_gpu_minutes;
        out.push_back(c);
    }
    return out;
}

constexpr std::size_t snapshot_assocs = 2000;

/// Associations as slurmctld holds them: 2,000 users' associations under 100 accounts.
struct assoc_names {
    std::vector<std::string> accounts, users;
    std::vector<mfprio_site_assoc> rows;
    assoc_names() {
        std::mt19937_64 rng(2000);
        for (std::size_t i = 0; i < snapshot_assocs; ++i) {
            accounts.push_back("account" + std::to_string(i % 100));
            users.push_back("user" + std::to_string(i));
        }
        for (std::size_t i = 0; i < snapshot_assocs; ++i) {
            mfprio_site_assoc a{};
            a.id = static_cast<std::uint32_t>(i + 1);
            a.account = accounts[i].c_str();
            a.user = users[i].c_str();
            a.partition = nullptr;
            a.shares_norm = 1.0 / static_cast<double>(1 + rng() % 1000);
            a.usage_raw = static_cast<long double>(rng() % 100000000) / 7.0L;
            a.usage_norm = a.usage_raw / 1e12L;
            a.usage_efctv = a.usage_norm * 0.75L;
            a.shares_raw = static_cast<std::uint32_t>(1 + rng() % 100);
            a.level_shares = 5000;
            a.fs_parent = 0;
            a.gpu_usage = static_cast<long double>(rng() % 1000000) / 3.0L;
            rows.push_back(a);
        }
    }
};

void bm_lock(benchmark::State& state, bool with_jobs, bool snapshot) {
    const plugin_setup setup("preset = xfactor\n", snapshot);
    const auto all = c_jobs();
    const std::span<const mfprio_site_job> js(all.data(), with_jobs ? all.size() : 0);
    const assoc_names names;
    std::vector<std::int64_t> out(all.size());
    for (auto _ : state) {
        for (std::size_t i = 0; i < js.size(); ++i) out[i] = mfprio_site_value(&js[i], now);
        if (mfprio_site_snapshot_wanted()) {
            for (const auto& a : names.rows) mfprio_site_snapshot_add(&a);
            mfprio_site_snapshot_commit(now);
        }
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    state.counters["jobs"] = static_cast<double>(js.size());
    state.counters["associations"] = snapshot ? static_cast<double>(snapshot_assocs) : 0.0;
}

void bm_write(benchmark::State& state) {
    const auto dir = std::filesystem::temp_directory_path() / ("mfprio-site-bench-w" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const assoc_names names;
    mfprio::config::site_snapshot s;
    s.pass = now;
    for (const auto& a : names.rows)
        s.assocs.push_back({a.id, a.account, a.user, "", a.shares_raw, a.level_shares, a.shares_norm, a.usage_raw,
                            a.usage_norm, a.usage_efctv, a.fs_parent, a.gpu_usage, 0});
    const auto path = dir / std::string(mfprio::config::site_snapshot_file);
    for (auto _ : state) {
        const std::string text = mfprio::config::format_site_snapshot(s);
        std::ofstream(path.string() + ".new", std::ios::binary) << text;
        std::filesystem::rename(path.string() + ".new", path);
    }
    state.counters["associations"] = static_cast<double>(snapshot_assocs);
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
}

BENCHMARK(bm_plain_c)->Name("update/plain_c");
BENCHMARK_CAPTURE(bm_policy, xfactor, "preset = xfactor\n")->Name("update/xfactor");
BENCHMARK_CAPTURE(bm_policy, reconfigured, reconfigured)->Name("update/reconfigured");
BENCHMARK_CAPTURE(bm_lock, jobs, true, false)->Name("lock/jobs")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(bm_lock, snapshot, false, true)->Name("lock/snapshot")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(bm_lock, jobs_and_snapshot, true, true)->Name("lock/jobs_and_snapshot")->Unit(benchmark::kMicrosecond);
BENCHMARK(bm_write)->Name("write/2000")->Unit(benchmark::kMicrosecond);

} // namespace

BENCHMARK_MAIN();
