// The Slurm engine, Slurm's seven weighted terms plus site and nice, over the workload's
// jobs (1,000,000; 10,000 with MFPRIO_BENCH_SMALL=1) through `engine.batch`:
//   fixed_weights    make_fixed_multifactor<...>: weights are template arguments;
//   runtime_weights  make_multifactor: weights read at run time, as from slurm.conf;
//   one_job_*        the same engines' one-job path, `priority`, job by job;
//   dispatched       the baseline: one virtual call per factor per job and a vector of
//                    weights, the generic loop of a runtime-configured scheduler;
//   memory_floor     not an engine: reads what the engines read (the job record, its TRES
//                    row, its association's two entries), writes one 8-byte result a job and
//                    computes nothing, to show how much of a figure is memory traffic;
//   paired/*         the batch and one-job paths each timed against the memory floor in the
//                    same iterations (both passes every iteration, in alternating order):
//                    their ratio_to_floor is the median of the iterations' ratios, which a
//                    slow spell of a shared machine moves far less than the ratio of two
//                    benchmarks run seconds apart.
// All three run the same factor policies and the same floor/clamp, and are checked to give
// identical priorities for every job of the run (and the same as the engine's one-job path,
// `priority`) before anything is timed. After the table, each variant's time per job is
// given as a ratio against the baseline of the same run.
//
// The jobs are 64-byte mfprio::job records; their TRES requests are a table of 4 doubles a
// job (the TRES they ask for: cpu, mem, node, gres/gpu). MFPRIO_BENCH_FULL_TRES=1 makes it a
// row of every TRES id 0..8 (72 bytes a job) instead, to show what the compact rows save.

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include <mfprio/core/job.hpp>
#include <mfprio/core/result.hpp>
#include <mfprio/slurm/multifactor.hpp>

#include "slurm_workload.hpp"

namespace {

namespace ms = mfprio::slurm;
using mfprio_bench::workload;

// The benchmarks' slurm.conf and engines (slurm_workload.hpp).
using mfprio_bench::bench_settings;
using mfprio_bench::bench_weights;
using mfprio_bench::make_fixed;
using mfprio_bench::make_runtime;

// ---- The runtime-dispatched baseline -------------------------------------------------------

struct dyn_factor {
    virtual ~dyn_factor() = default;
    virtual double eval(const mfprio::job& j, const ms::context& c) const = 0;
};

template <class F>
struct dyn_policy : dyn_factor {
    explicit dyn_policy(F f) : factor(std::move(f)) {}
    double eval(const mfprio::job& j, const ms::context& c) const override { return factor(j, c); }
    F factor;
};

/// Factors and weights in Slurm's order of addition, as a runtime-configured engine holds
/// them; the same policies (and flags) the engines get from the same settings.
class dyn_engine {
public:
    dyn_engine(const ms::weights& w, const ms::settings& s) {
        add(ms::age_factor{s.max_age}, w.age);
        add(ms::association_factor{!s.flags.has(ms::priority_flag::no_normal_assoc)}, w.assoc);
        add(ms::fairshare_factor{}, w.fairshare);
        add(ms::job_size_factor{s.favor_small, s.flags.has(ms::priority_flag::small_relative_to_time)}, w.job_size);
        add(ms::partition_factor{!s.flags.has(ms::priority_flag::no_normal_part)}, w.partition);
        add(ms::qos_factor{!s.flags.has(ms::priority_flag::no_normal_qos)}, w.qos);
        ms::tres_factor tres = s.tres;
        tres.normalize = !s.flags.has(ms::priority_flag::no_normal_tres);
        add(tres, 1.0);
        add(ms::site_factor{}, 1.0);
        add(ms::nice_factor{}, 1.0);
    }

    void batch(std::span<const mfprio::job> jobs, const ms::context& c, std::span<mfprio::priority_value> out) const {
        const std::size_t n = jobs.size();
        const std::size_t terms = factors_.size();
        for (std::size_t k = 0; k < n; ++k) {
            const mfprio::job& j = jobs[k];
            out[k] = result_(j, [&]() noexcept {
                double sum = 0.0;
                for (std::size_t t = 0; t < terms; ++t)
                    if (weights_[t] != 0.0) sum += factors_[t]->eval(j, c) * weights_[t];
                return sum;
            });
        }
    }

private:
    template <class F, class W>
    void add(F f, W weight) {
        factors_.push_back(std::make_unique<dyn_policy<F>>(std::move(f)));
        weights_.push_back(static_cast<double>(weight));
    }

    std::vector<std::unique_ptr<dyn_factor>> factors_;
    std::vector<double> weights_;
    mfprio::slurm_result result_{};
};

// ---- Set-up check: the three must agree before anything is timed ----------------------------

void check_identical() {
    const auto& w = workload();
    const std::span<const mfprio::job> jobs(w.jobs);
    const std::size_t n = jobs.size();
    std::vector<mfprio::priority_value> a(n), b(n), d(n);
    make_fixed().batch(jobs, w.ctx, std::span<mfprio::priority_value>(a));
    make_runtime().batch(jobs, w.ctx, std::span<mfprio::priority_value>(b));
    dyn_engine(bench_weights, bench_settings()).batch(jobs, w.ctx, d);
    // ... and the engine's one-job path (score, then the result policy): batch must give what
    // priority gives, job by job.
    const auto fixed = make_fixed();
    std::size_t computed = 0;
    for (std::size_t k = 0; k < n; ++k) {
        const mfprio::priority_value single = fixed.priority(jobs[k], w.ctx);
        if (!(a[k] == b[k]) || !(a[k] == d[k]) || !(a[k] == single)) {
            std::fprintf(stderr,
                         "mfprio bench: job %zu: fixed %u (status %d), runtime %u (status %d), dispatched %u (status %d), "
                         "one job at a time %u (status %d)\n",
                         k, a[k].value, static_cast<int>(a[k].status), b[k].value, static_cast<int>(b[k].status),
                         d[k].value, static_cast<int>(d[k].status), single.value, static_cast<int>(single.status));
            mfprio_bench::fail("the engines disagree");
        }
        if (a[k].status == mfprio::priority_status::computed) ++computed;
    }
    // A check that every job floors to 1 would prove nothing: most must be computed sums.
    if (computed * 2 < n) mfprio_bench::fail("fewer than half of the checked priorities are computed sums");
}

// ---- Benchmarks ---------------------------------------------------------------------------

void per_job_counters(benchmark::State& state, std::size_t n) {
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
    state.counters["ns_per_job"] = benchmark::Counter(static_cast<double>(n),
        benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

template <class Engine>
void run_batch(benchmark::State& state, const Engine& e) {
    const auto& w = workload();
    const std::span<const mfprio::job> jobs(w.jobs);
    std::vector<mfprio::priority_value> out(jobs.size());
    for (auto _ : state) {
        e.batch(jobs, w.ctx, std::span<mfprio::priority_value>(out));
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    per_job_counters(state, jobs.size());
}

/// Not an engine: reads every byte the engines read for a job (its record's fields, the counts
/// of its row of the TRES request table, its association's fair-share factor and normalized
/// priority) and writes one 8-byte result, in the same layout, adding them up with no factor
/// arithmetic: the memory floor under the engines' figures.
struct memory_floor {
    void batch(std::span<const mfprio::job> jobs, const ms::context& c, std::span<mfprio::priority_value> out) const {
        const auto& w = workload();
        const std::size_t n = jobs.size();
        const double* table = c.tres_requests.counts.data();
        const std::size_t stride = c.tres_requests.stride;
        const double* const fairshare = c.fairshare.data();
        const double* const assoc_norm = c.assoc_priority_norm.data();
        for (std::size_t k = 0; k < n; ++k) {
            const mfprio::job& j = jobs[k];
            const std::uint64_t fields = std::uint64_t{j.association} + j.partition + j.qos +
                static_cast<std::uint8_t>(j.state) + static_cast<std::uint64_t>(j.accrue_time) + j.min_nodes +
                j.cpus + j.time_limit + static_cast<std::uint32_t>(j.nice) +
                static_cast<std::uint32_t>(j.site_factor) + j.admin_priority;
            const double* row = table + std::size_t{j.tres_row} * stride;
            const double tres = row[w.col_cpu] + row[w.col_mem] + row[w.col_gpu];
            const double assoc = fairshare[j.association] + assoc_norm[j.association];
            out[k] = {static_cast<std::uint32_t>(fields) ^ static_cast<std::uint32_t>(tres + assoc),
                      mfprio::priority_status::computed};
        }
    }
};

/// The engine's one-job path, `priority(job, context)`, job by job: what a scheduler that
/// computes one job at a time (at submission, at an update) pays.
template <class Engine>
void run_one_job(benchmark::State& state, const Engine& e) {
    const auto& w = workload();
    const std::span<const mfprio::job> jobs(w.jobs);
    std::vector<mfprio::priority_value> out(jobs.size());
    mfprio::priority_value* const o = out.data();
    for (auto _ : state) {
        for (std::size_t k = 0; k < jobs.size(); ++k) o[k] = e.priority(jobs[k], w.ctx);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    per_job_counters(state, jobs.size());
}

void bm_memory_floor(benchmark::State& state) { run_batch(state, memory_floor{}); }
void bm_one_job_fixed(benchmark::State& state) { run_one_job(state, make_fixed()); }
void bm_one_job_runtime(benchmark::State& state) { run_one_job(state, make_runtime()); }
void bm_dispatched(benchmark::State& state) { run_batch(state, dyn_engine(bench_weights, bench_settings())); }
void bm_fixed_weights(benchmark::State& state) { run_batch(state, make_fixed()); }
void bm_runtime_weights(benchmark::State& state) { run_batch(state, make_runtime()); }

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.empty() ? 0.0 : v.size() % 2 != 0 ? v[m] : (v[m - 1] + v[m]) / 2;
}

/// `pass(jobs, context, out)` and the memory floor, both in every iteration, the floor first
/// in one iteration and second in the next, each timed on its own. The iteration's time (the
/// table's) is the pass's; the counters: ratio_to_floor, the median over the iterations of the
/// pass's time over the floor's in the same iteration; ns_per_job and ns_per_job_floor, the
/// medians of each.
template <class Pass>
void run_paired(benchmark::State& state, Pass pass) {
    const auto& w = workload();
    const std::span<const mfprio::job> jobs(w.jobs);
    std::vector<mfprio::priority_value> out(jobs.size());
    const std::span<mfprio::priority_value> o(out);
    const auto timed = [&](auto&& run) {
        const auto start = std::chrono::steady_clock::now();
        run(jobs, w.ctx, o);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    const auto floor = [](std::span<const mfprio::job> j, const ms::context& c, std::span<mfprio::priority_value> r) {
        memory_floor{}.batch(j, c, r);
    };
    std::vector<double> ratios, seconds, floor_seconds;
    bool floor_first = true;
    for (auto _ : state) {
        double floor_s = 0.0, pass_s = 0.0;
        if (floor_first) {
            floor_s = timed(floor);
            pass_s = timed(pass);
        } else {
            pass_s = timed(pass);
            floor_s = timed(floor);
        }
        floor_first = !floor_first;
        state.SetIterationTime(pass_s);
        ratios.push_back(pass_s / floor_s);
        seconds.push_back(pass_s);
        floor_seconds.push_back(floor_s);
    }
    const auto n = static_cast<double>(jobs.size());
    state.counters["ratio_to_floor"] = median(ratios);
    state.counters["ns_per_job"] = median(seconds) / n;
    state.counters["ns_per_job_floor"] = median(floor_seconds) / n;
}

template <class Engine>
auto batch_pass(Engine e) {
    return [e](std::span<const mfprio::job> jobs, const ms::context& c, std::span<mfprio::priority_value> out) {
        e.batch(jobs, c, out);
    };
}
template <class Engine>
auto one_job_pass(Engine e) {
    return [e](std::span<const mfprio::job> jobs, const ms::context& c, std::span<mfprio::priority_value> out) {
        mfprio::priority_value* const o = out.data();
        for (std::size_t k = 0; k < jobs.size(); ++k) o[k] = e.priority(jobs[k], c);
    };
}

void bm_paired_fixed(benchmark::State& state) { run_paired(state, batch_pass(make_fixed())); }
void bm_paired_runtime(benchmark::State& state) { run_paired(state, batch_pass(make_runtime())); }
void bm_paired_one_job_fixed(benchmark::State& state) { run_paired(state, one_job_pass(make_fixed())); }
void bm_paired_one_job_runtime(benchmark::State& state) { run_paired(state, one_job_pass(make_runtime())); }

// ---- Console output plus ratios against the baseline ----------------------------------------

/// The console table, then each benchmark's ns_per_job as a speed-up over the dispatched
/// baseline of the same run. With --benchmark_repetitions the best (lowest) repetition of
/// each is used: on a shared machine the minimum is the least disturbed figure.
class ratio_reporter : public benchmark::ConsoleReporter {
public:
    ratio_reporter() : benchmark::ConsoleReporter(OO_Tabular) {}

    void ReportRuns(const std::vector<Run>& runs) override {
        benchmark::ConsoleReporter::ReportRuns(runs);
        for (const Run& r : runs) {
            if (r.run_type != Run::RT_Iteration || r.error_occurred) continue;
            const auto it = r.counters.find("ns_per_job");
            if (it == r.counters.end()) continue;
            const double ns = it->second.value * 1e9;
            bool found = false;
            for (auto& [name, value] : results_)
                if (name == r.run_name.function_name) {
                    if (ns < value) value = ns;
                    found = true;
                }
            if (!found) results_.emplace_back(r.run_name.function_name, ns);
        }
    }

    void Finalize() override {
        benchmark::ConsoleReporter::Finalize();
        double base = 0.0;
        for (const auto& [name, ns] : results_)
            if (name == "bm_dispatched") base = ns;
        auto& os = GetOutputStream();
        os << "\nns per job (best repetition), and speed-up over the dispatched baseline of this run:\n";
        for (const auto& [name, ns] : results_) {
            char line[160];
            if (base > 0.0) std::snprintf(line, sizeof line, "  %-22s %8.2f ns/job  %6.2fx\n", name.c_str(), ns, base / ns);
            else std::snprintf(line, sizeof line, "  %-22s %8.2f ns/job\n", name.c_str(), ns);
            os << line;
        }
        os.flush();
    }

private:
    std::vector<std::pair<std::string, double>> results_;
};

} // namespace

BENCHMARK(bm_dispatched)->Unit(benchmark::kMillisecond);
BENCHMARK(bm_memory_floor)->Unit(benchmark::kMillisecond);
BENCHMARK(bm_fixed_weights)->Unit(benchmark::kMillisecond);
BENCHMARK(bm_runtime_weights)->Unit(benchmark::kMillisecond);
BENCHMARK(bm_one_job_fixed)->Unit(benchmark::kMillisecond);
BENCHMARK(bm_one_job_runtime)->Unit(benchmark::kMillisecond);
BENCHMARK(bm_paired_fixed)->Name("paired/fixed_weights")->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(bm_paired_runtime)->Name("paired/runtime_weights")->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(bm_paired_one_job_fixed)->Name("paired/one_job_fixed")->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(bm_paired_one_job_runtime)->Name("paired/one_job_runtime")->UseManualTime()->Unit(benchmark::kMillisecond);

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    check_identical();
    ratio_reporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::Shutdown();
    return 0;
}
