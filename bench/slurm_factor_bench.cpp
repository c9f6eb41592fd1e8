// Each Slurm factor alone over the workload's jobs (1,000,000; 10,000 with
// MFPRIO_BENCH_SMALL=1): bm_factor calls the factor's call operator once per job and stores
// the result; bm_block, for the factors that have a block hook, calls it once per block of
// mfprio::block_size jobs (after `prepare`, once per pass, for the hooks that prepare), as
// the engine's batch does. ns_per_job is the time per job; items/s the same as a rate.

#include <cstddef>
#include <span>
#include <vector>

#include <benchmark/benchmark.h>

#include <mfprio/core/factor.hpp>
#include <mfprio/slurm/age.hpp>
#include <mfprio/slurm/association.hpp>
#include <mfprio/slurm/fairshare.hpp>
#include <mfprio/slurm/job_size.hpp>
#include <mfprio/slurm/nice.hpp>
#include <mfprio/slurm/partition.hpp>
#include <mfprio/slurm/qos.hpp>
#include <mfprio/slurm/site.hpp>
#include <mfprio/slurm/tres.hpp>

#include "slurm_workload.hpp"

namespace {

namespace ms = mfprio::slurm;
using mfprio_bench::workload;

template <class F>
void bm_factor(benchmark::State& state, F factor) {
    const auto& w = workload();
    const std::size_t n = w.jobs.size();
    std::vector<double> out(n);
    for (auto _ : state) {
        for (std::size_t k = 0; k < n; ++k) out[k] = factor(w.jobs[k], w.ctx);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
    state.counters["ns_per_job"] = benchmark::Counter(static_cast<double>(n),
        benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

template <class F>
void bm_block(benchmark::State& state, F factor) {
    const auto& w = workload();
    constexpr std::size_t b = mfprio::block_size;
    const std::size_t n = w.jobs.size() - w.jobs.size() % b;
    std::vector<double> out(n);
    for (auto _ : state) {
        const auto run = [&](const auto&... prepared) {
            for (std::size_t k = 0; k < n; k += b)
                factor.block(prepared..., std::span<const mfprio::job, b>(w.jobs.data() + k, b), w.ctx,
                             std::span<double, b>(out.data() + k, b));
        };
        if constexpr (mfprio::prepared_block_factor_policy<F, mfprio::job, ms::context>) run(factor.prepare(w.ctx));
        else run();
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
    state.counters["ns_per_job"] = benchmark::Counter(static_cast<double>(n),
        benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

ms::tres_factor three_tres() { return mfprio_bench::slurm_workload::tres_weights(); }

} // namespace

BENCHMARK_CAPTURE(bm_factor, age, ms::age_factor{604800})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_factor, association, ms::association_factor{true})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_factor, fairshare, ms::fairshare_factor{})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_factor, job_size_default, ms::job_size_factor{false, false})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_factor, job_size_favor_small, ms::job_size_factor{true, false})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_factor, job_size_relative_to_time, ms::job_size_factor{false, true})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_factor, partition, ms::partition_factor{true})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_factor, qos, ms::qos_factor{true})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_factor, tres_3_weighted, three_tres())->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_factor, site, ms::site_factor{})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_factor, nice, ms::nice_factor{})->Unit(benchmark::kMillisecond);

BENCHMARK_CAPTURE(bm_block, age, ms::age_factor{604800})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_block, job_size_default, ms::job_size_factor{false, false})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_block, job_size_favor_small, ms::job_size_factor{true, false})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_block, partition, ms::partition_factor{true})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_block, qos, ms::qos_factor{true})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_block, tres_3_weighted, three_tres())->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
