// site_factor/mfprio's update pass: 20,000 pending jobs (2,000 with MFPRIO_BENCH_SMALL=1), each
// given its site factor by the plugin's C++ half, against a plain C loop of the same formula.
//
// - bm_policy/xfactor: the preset `xfactor` (SchedMD's xfactor plugin as its description reads:
//   wait over the time limit, a minimum limit of ten minutes, rounded, capped at 10, times
//   1000) through the policy engine the plugin runs (`queue::site_engine`, a dynamic engine:
//   one virtual call per term), from the plain struct the plugin's C shim fills.
// - bm_plain_c: the same formula written as a C loop over the same structs, no policy: the
//   floor a hand-written plugin has.
// - bm_policy/reconfigured: the seven-term policy of tests/live/site_factor.sh's second step.
//
// Before timing, the two xfactor variants are checked to give the same value for every job.

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <mfprio/queue/site.hpp>

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
    auto e = mfprio::queue::load_site_policy(text, "bench.policy");
    if (!e) throw std::runtime_error(e.error().to_string());
    return std::move(*e);
}

const char* const reconfigured = "partition = 3\nqos = 1\nqos.cap = 400\nnice = 1\ngpus = 50\nxfactor = 100\n"
                                 "xfactor.min_limit = 30\n";

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

BENCHMARK(bm_plain_c);
BENCHMARK_CAPTURE(bm_policy, xfactor, "preset = xfactor\n");
BENCHMARK_CAPTURE(bm_policy, reconfigured, reconfigured);

} // namespace

BENCHMARK_MAIN();
