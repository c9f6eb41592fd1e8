// The prioritized queue: the dynamic engine, a full reprioritization, and reading the latest
// snapshot while one runs. Over the Slurm workload of `slurm_workload.hpp` (1,000,000 jobs;
// 10,000 with MFPRIO_BENCH_SMALL=1) with the weights of `slurm_engine_bench.cpp`.
//
//   engine/...   Slurm's seven terms (plus site and nice) through `batch`, ns per job:
//                compile-time weights (`make_fixed_multifactor`), runtime weights
//                (`make_multifactor`), and a dynamic engine (`queue::dynamic_engine`) built
//                from `slurm_registry()` and a policy text with the same names, weights and
//                order (one virtual call per term per chunk of 256 jobs, each factor
//                prepared once per `batch`). Also the
//                flux-accounting preset of `builtin_registry()` against
//                `flux::make_flux_accounting_engine`, over the same jobs as `flux::job`.
//                Every engine pair is checked to give identical priorities for every job
//                before anything is timed; the ratios are printed after the table.
//   pass/...     A full reprioritization: every priority (runtime weights), the entries of
//                the queued jobs, and the snapshot sorted in `slurm_order`, wall time per pass
//                (CPU time: the whole process's). `pass/full` is `pending_jobs::reprioritize`,
//                `pass/builder` the reprioritizer's pass (`pass_builder::compute` then
//                `finish`), and the split: `pass/priorities` (`compute` alone: batch,
//                classes, entries) and `pass/sort` (`finish` alone: `sort_entries` into a
//                recycled snapshot). The table is in submission order (jobs sorted by submit
//                time, ids renumbered in that order, TRES rows moved with them), as a
//                scheduler's is; `pass/full_unordered` keeps the workload's order (submit
//                times random in table order, so the tie-break keys are packed too and the
//                sort is harder).
//   snapshot/latest   A `reprioritizer` passes over the submission-order table back to back
//                (period 1 ms, so the next pass starts as soon as one ends), with 1 or 2
//                threads (0: no pass running, for comparison); the benchmark's thread calls
//                `latest()` in a loop and times each call alone with the TSC (lfence; rdtsc;
//                lfence around the call; the dropped pointer is released outside the timed
//                region). Counters: p50, p99, p99.9 and max in ns, how many calls took over
//                1 us, the timer's own cost (the same fences around nothing, median), the mean
//                of batches of 100 calls timed with steady_clock, and how many passes ran
//                while sampling (and the fraction of the sampling time they covered).

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <x86intrin.h>

#include <benchmark/benchmark.h>

#include <mfprio/core/job.hpp>
#include <mfprio/core/result.hpp>
#include <mfprio/flux/context.hpp>
#include <mfprio/flux/job.hpp>
#include <mfprio/flux/presets.hpp>
#include <mfprio/queue/builtin.hpp>
#include <mfprio/queue/dynamic.hpp>
#include <mfprio/queue/order.hpp>
#include <mfprio/queue/pending.hpp>
#include <mfprio/queue/policy.hpp>
#include <mfprio/queue/reprioritizer.hpp>
#include <mfprio/queue/snapshot.hpp>
#include <mfprio/slurm/multifactor.hpp>

#include "slurm_workload.hpp"

namespace {

namespace ms = mfprio::slurm;
namespace mq = mfprio::queue;
using mfprio_bench::fail;
using mfprio_bench::workload;

// ---- The engines ---------------------------------------------------------------------------

// The benchmarks' slurm.conf (slurm_workload.hpp), as slurm_engine_bench.
using mfprio_bench::bench_settings;
using mfprio_bench::bench_weights;
using mfprio_bench::make_fixed;
using mfprio_bench::make_runtime;

/// The same nine terms as a policy file: names, weights and order of `make_multifactor`.
constexpr std::string_view slurm_policy = "# slurm.conf's weights, in Slurm's order of addition\n"
                                          "age = 1000\n"
                                          "age.max_age = 7-0\n"
                                          "assoc = 100\n"
                                          "fairshare = 10000\n"
                                          "jobsize = 1000\n"
                                          "partition = 1000\n"
                                          "qos = 2000\n"
                                          "tres = 1\n"
                                          "site = 1\n"
                                          "nice = 1\n";

using slurm_dynamic_engine = mq::dynamic_engine<mfprio::job, ms::context, mfprio::slurm_result>;

slurm_dynamic_engine make_dynamic() {
    auto reg = mq::slurm_registry();
    // TRES is not in the registry (its weights need the cluster's TRES ids): register the
    // configured factor, as the registry's documentation says.
    ms::tres_factor tres = mfprio_bench::slurm_workload::tres_weights();
    tres.normalize = true; // no NO_NORMAL_TRES
    if (!reg.add("tres", tres)) fail("cannot register the TRES factor");
    auto e = mq::load_policy(slurm_policy, reg, mfprio::slurm_result{}, "<queue_bench policy>");
    if (!e) {
        std::fprintf(stderr, "mfprio bench: %s\n", e.error().to_string().c_str());
        fail("the bench's policy does not load");
    }
    return std::move(*e);
}

// ---- Flux: the flux-accounting preset over the same jobs -----------------------------------

struct flux_workload {
    std::vector<std::int64_t> queue_priority{0, 100, 1000, 5, -3};
    std::vector<double> bank_priority{0.0, 3.5, -1.25, 10.0};
    std::vector<mfprio::flux::job> jobs;
    mfprio::flux::context ctx{};

    flux_workload() {
        const auto& w = workload();
        static_cast<ms::context&>(ctx) = w.ctx;
        ctx.queue_priority = queue_priority;
        ctx.bank_priority = bank_priority;
        std::mt19937_64 rng(20260101u);
        jobs.resize(w.jobs.size());
        for (std::size_t k = 0; k < jobs.size(); ++k) {
            auto& j = jobs[k];
            static_cast<mfprio::job&>(j) = w.jobs[k];
            j.queue = rng() % 8 == 0 ? mfprio::flux::no_index : static_cast<std::uint32_t>(rng() % 5);
            j.bank = rng() % 8 == 0 ? mfprio::flux::no_index : static_cast<std::uint32_t>(rng() % 4);
            j.submit_seq = k;
            j.urgency = rng() % 4 == 0 ? static_cast<std::uint8_t>(rng() % 32) : mfprio::flux::urgency_default;
        }
    }
    flux_workload(const flux_workload&) = delete;
    flux_workload& operator=(const flux_workload&) = delete;
};

const flux_workload& flux_jobs() {
    static const flux_workload f;
    return f;
}

mq::flux_dynamic_engine make_flux_dynamic() {
    auto e = mq::builtin_preset("flux-accounting");
    if (!e) fail("the flux-accounting preset does not load");
    return std::move(*e);
}

// ---- The submission-order table --------------------------------------------------------------

/// The workload's jobs as a scheduler's table holds them: in submission order (by submit
/// time, then the workload's id), ids renumbered 1..n in that order (job ids grow with
/// submission), each job's TRES row moved with it. Same jobs, same priorities.
struct submission_table {
    std::vector<mfprio::job> jobs;
    std::vector<double> tres;
    std::vector<std::uint32_t> from; ///< jobs[k] is workload job from[k]
    ms::context ctx{};

    submission_table() {
        const auto& w = workload();
        const std::size_t n = w.jobs.size();
        const std::size_t stride = w.ctx.tres_requests.stride;
        from.resize(n);
        std::iota(from.begin(), from.end(), 0u);
        std::stable_sort(from.begin(), from.end(), [&](std::uint32_t a, std::uint32_t b) {
            return w.jobs[a].submit_time < w.jobs[b].submit_time;
        });
        jobs.resize(n);
        tres.resize(n * stride);
        for (std::size_t k = 0; k < n; ++k) {
            const mfprio::job& src = w.jobs[from[k]];
            jobs[k] = src;
            jobs[k].id = static_cast<std::uint32_t>(k + 1);
            jobs[k].tres_row = static_cast<std::uint32_t>(k);
            const double* row = w.ctx.tres_requests.row(src.tres_row);
            if (row == nullptr) fail("a workload job has no TRES row");
            std::copy(row, row + stride, tres.begin() + static_cast<std::ptrdiff_t>(k * stride));
        }
        ctx = w.ctx;
        ctx.tres_requests.counts = tres;
    }
    submission_table(const submission_table&) = delete;
    submission_table& operator=(const submission_table&) = delete;
};

const submission_table& table() {
    static const submission_table t;
    return t;
}

// ---- Set-up checks ----------------------------------------------------------------------------

template <class A, class B, class J, class Ctx>
void check_pair(const A& a, const B& b, std::span<const J> jobs, const Ctx& c, const char* what) {
    const std::size_t n = jobs.size();
    std::vector<typename A::output_type> pa(n);
    std::vector<typename B::output_type> pb(n);
    a.batch(jobs, c, std::span<typename A::output_type>(pa));
    b.batch(jobs, c, std::span<typename B::output_type>(pb));
    std::size_t computed = 0;
    for (std::size_t k = 0; k < n; ++k) {
        if (!(pa[k] == pb[k]) || !(pa[k] == a.priority(jobs[k], c))) {
            std::fprintf(stderr, "mfprio bench: %s: job %zu: %lld against %lld\n", what, k,
                         static_cast<long long>(pa[k].value), static_cast<long long>(pb[k].value));
            fail("the engines disagree");
        }
        if (static_cast<int>(pa[k].status) == 0) ++computed; // `computed` is the first status of each system
    }
    if (computed * 2 < n) fail("fewer than half of the checked priorities are computed sums");
}

void check_setup() {
    const auto& w = workload();
    const std::span<const mfprio::job> jobs(w.jobs);
    const auto dyn = make_dynamic();
    check_pair(dyn, make_runtime(), jobs, w.ctx, "dynamic against runtime weights");
    check_pair(dyn, make_fixed(), jobs, w.ctx, "dynamic against compile-time weights");
    const auto& f = flux_jobs();
    check_pair(make_flux_dynamic(), mfprio::flux::make_flux_accounting_engine(),
               std::span<const mfprio::flux::job>(f.jobs), f.ctx, "flux-accounting preset");
    // The submission-order table gives each job the priority it has in the workload.
    const auto& t = table();
    const auto e = make_runtime();
    std::vector<mfprio::priority_value> a(jobs.size()), b(jobs.size());
    e.batch(jobs, w.ctx, std::span<mfprio::priority_value>(a));
    e.batch(std::span<const mfprio::job>(t.jobs), t.ctx, std::span<mfprio::priority_value>(b));
    for (std::size_t k = 0; k < b.size(); ++k)
        if (!(b[k] == a[t.from[k]])) fail("the submission-order table changes a priority");
    // And a pass queues every job, in Slurm's order.
    mq::pending_jobs<mfprio::job, mq::slurm_order> q;
    for (const auto& j : t.jobs)
        if (!q.insert(j)) fail("duplicate job id");
    const auto s = q.reprioritize(e, t.ctx);
    if (s->size() != t.jobs.size()) fail("a pass did not queue every job");
    for (std::size_t i = 1; i < s->size(); ++i)
        if (!mq::slurm_order::before((*s)[i - 1], (*s)[i])) fail("a snapshot is not in Slurm's order");
    if (!q.last_sort().tie_break_in_input_order) fail("the submission-order table is not seen in order");
}

// ---- Benchmarks: engines ------------------------------------------------------------------------

void per_job_counters(benchmark::State& state, std::size_t n) {
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
    state.counters["ns_per_job"] = benchmark::Counter(static_cast<double>(n),
        benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

template <class Engine, class J, class Ctx>
void run_batch(benchmark::State& state, const Engine& e, std::span<const J> jobs, const Ctx& c) {
    std::vector<typename Engine::output_type> out(jobs.size());
    for (auto _ : state) {
        e.batch(jobs, c, std::span<typename Engine::output_type>(out));
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    per_job_counters(state, jobs.size());
}

void bm_engine_fixed(benchmark::State& state) {
    run_batch(state, make_fixed(), std::span<const mfprio::job>(workload().jobs), workload().ctx);
}
void bm_engine_runtime(benchmark::State& state) {
    run_batch(state, make_runtime(), std::span<const mfprio::job>(workload().jobs), workload().ctx);
}
void bm_engine_dynamic(benchmark::State& state) {
    run_batch(state, make_dynamic(), std::span<const mfprio::job>(workload().jobs), workload().ctx);
}
void bm_flux_compile_time(benchmark::State& state) {
    run_batch(state, mfprio::flux::make_flux_accounting_engine(), std::span<const mfprio::flux::job>(flux_jobs().jobs),
              flux_jobs().ctx);
}
void bm_flux_dynamic(benchmark::State& state) {
    run_batch(state, make_flux_dynamic(), std::span<const mfprio::flux::job>(flux_jobs().jobs), flux_jobs().ctx);
}

// ---- Benchmarks: a full reprioritization ------------------------------------------------------

/// A pending-job set holding the submission-order table (or the workload's order), built on
/// first use.
mq::pending_jobs<mfprio::job, mq::slurm_order>& pending(bool submission_order) {
    static std::unique_ptr<mq::pending_jobs<mfprio::job, mq::slurm_order>> sets[2];
    auto& p = sets[submission_order ? 1 : 0];
    if (!p) {
        p = std::make_unique<mq::pending_jobs<mfprio::job, mq::slurm_order>>();
        for (const auto& j : submission_order ? table().jobs : workload().jobs)
            if (!p->insert(j)) fail("duplicate job id");
    }
    return *p;
}

mq::pass_options options_of(const benchmark::State& state) {
    mq::pass_options o{};
    o.threads = static_cast<unsigned>(state.range(0));
    return o;
}

void pass_counters(benchmark::State& state, std::size_t n, const mq::sort_report& r) {
    per_job_counters(state, n);
    state.counters["key_bits"] = r.key_bits;
    state.counters["truncated"] = r.truncated ? 1 : 0;
    state.counters["counting"] = r.counting_sorted ? 1 : 0;
    state.counters["counted_in_pass"] = r.counted_in_pass ? 1 : 0;
}

void run_full(benchmark::State& state, bool submission_order) {
    auto& q = pending(submission_order);
    const ms::context& c = submission_order ? table().ctx : workload().ctx;
    const auto e = make_runtime();
    const auto o = options_of(state);
    (void)q.reprioritize(e, c, o); // warm: buffers at size
    for (auto _ : state) {
        auto s = q.reprioritize(e, c, o);
        benchmark::DoNotOptimize(s.get());
    }
    pass_counters(state, q.size(), q.last_sort());
}

void bm_pass_full(benchmark::State& state) { run_full(state, true); }
void bm_pass_full_unordered(benchmark::State& state) { run_full(state, false); }

template <class Engine>
void run_builder(benchmark::State& state, const Engine& e) {
    const auto& t = table();
    const auto o = options_of(state);
    const std::span<const mfprio::job> jobs(t.jobs);
    mq::pass_builder<mq::slurm_order> b;
    b.compute(jobs, e, t.ctx, o);
    (void)b.finish({}, std::chrono::steady_clock::now());
    for (auto _ : state) {
        const auto started = std::chrono::steady_clock::now();
        b.compute(jobs, e, t.ctx, o);
        auto s = b.finish({}, started);
        benchmark::DoNotOptimize(s.get());
    }
    pass_counters(state, jobs.size(), b.last_sort());
}

void bm_pass_builder(benchmark::State& state) { run_builder(state, make_runtime()); }
void bm_pass_builder_dynamic(benchmark::State& state) { run_builder(state, make_dynamic()); }

void bm_pass_priorities(benchmark::State& state) {
    const auto& t = table();
    const auto o = options_of(state);
    const auto e = make_runtime();
    const std::span<const mfprio::job> jobs(t.jobs);
    mq::pass_builder<mq::slurm_order> b;
    b.compute(jobs, e, t.ctx, o);
    for (auto _ : state) {
        b.compute(jobs, e, t.ctx, o);
        benchmark::DoNotOptimize(b.staged().data());
    }
    per_job_counters(state, jobs.size());
}

void bm_pass_sort(benchmark::State& state) {
    const auto& t = table();
    const auto o = options_of(state);
    const std::span<const mfprio::job> jobs(t.jobs);
    mq::pass_builder<mq::slurm_order> b;
    b.compute(jobs, make_runtime(), t.ctx, o);
    (void)b.finish({}, std::chrono::steady_clock::now());
    for (auto _ : state) {
        auto s = b.finish({}, std::chrono::steady_clock::now());
        benchmark::DoNotOptimize(s.get());
    }
    pass_counters(state, jobs.size(), b.last_sort());
}

// ---- Benchmark: reading the latest snapshot while a pass runs ------------------------------

inline std::uint64_t tsc() noexcept {
    _mm_lfence();
    const std::uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
}

/// TSC ticks per nanosecond, against steady_clock over 50 ms (once).
double tsc_per_ns() {
    static const double f = [] {
        const auto c0 = std::chrono::steady_clock::now();
        const std::uint64_t t0 = tsc();
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        const auto c1 = std::chrono::steady_clock::now();
        const std::uint64_t t1 = tsc();
        return static_cast<double>(t1 - t0) /
               static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(c1 - c0).count());
    }();
    return f;
}

/// Latencies in TSC ticks: exact counts below `limit` ticks, the rest kept as they are.
class latency_histogram {
public:
    static constexpr std::size_t limit = 1 << 16;
    latency_histogram() : counts_(limit, 0) {}

    void add(std::uint64_t ticks) {
        if (ticks < limit) ++counts_[ticks];
        else slow_.push_back(ticks);
        ++total_;
    }
    [[nodiscard]] std::uint64_t total() const noexcept { return total_; }
    [[nodiscard]] std::uint64_t above(std::uint64_t ticks) const {
        std::uint64_t n = 0;
        for (std::size_t t = ticks + 1; t < limit; ++t) n += counts_[t];
        for (const auto s : slow_) n += s > ticks ? 1 : 0;
        return n;
    }
    /// The smallest latency that at least `q` of the calls do not exceed.
    [[nodiscard]] std::uint64_t quantile(double q) {
        if (total_ == 0) return 0;
        auto rank = static_cast<std::uint64_t>(q * static_cast<double>(total_ - 1)) + 1; // 1-based
        for (std::size_t t = 0; t < limit; ++t) {
            if (counts_[t] >= rank) return t;
            rank -= counts_[t];
        }
        std::sort(slow_.begin(), slow_.end());
        return slow_[static_cast<std::size_t>(rank - 1)];
    }
    [[nodiscard]] std::uint64_t max() const {
        if (!slow_.empty()) return *std::max_element(slow_.begin(), slow_.end());
        for (std::size_t t = limit; t-- > 0;)
            if (counts_[t] != 0) return t;
        return 0;
    }

private:
    std::vector<std::uint64_t> counts_;
    std::vector<std::uint64_t> slow_;
    std::uint64_t total_ = 0;
};

struct table_provider {
    const submission_table* t;
    mq::pass_input<mfprio::job, ms::context> operator()() const {
        mq::pass_input<mfprio::job, ms::context> in{};
        in.jobs = t->jobs;
        in.context = &t->ctx;
        return in;
    }
};

void bm_snapshot_latest(benchmark::State& state) {
    const unsigned threads = static_cast<unsigned>(state.range(0)); // 0: no pass running
    const bool small = mfprio_bench::small_run();
    const std::uint64_t min_samples = small ? 20'000 : 2'000'000;
    const std::uint64_t min_passes = small ? 3 : 20;
    const double per_ns = tsc_per_ns();

    mq::reprioritizer_options opt{};
    opt.period = threads == 0 ? std::chrono::milliseconds(0) : std::chrono::milliseconds(1);
    opt.pass.threads = std::max(1u, threads);
    mq::reprioritizer r(mq::slurm_order{}, make_runtime(), table_provider{&table()}, opt);
    r.start();
    if (!r.wait_for_pass(1, std::chrono::seconds(120))) fail("the reprioritizer made no pass");

    latency_histogram hist;
    std::uint64_t timer_ticks = 0, batch_ns = 0, batch_calls = 0, passes = 0, checksum = 0;
    double busy = 0.0, wall = 0.0;
    for (auto _ : state) {
        // The timer's own cost: the same fences around nothing.
        std::vector<std::uint64_t> empty(10'001);
        for (auto& e : empty) {
            const std::uint64_t t0 = tsc();
            const std::uint64_t t1 = tsc();
            e = t1 - t0;
        }
        std::nth_element(empty.begin(), empty.begin() + 5000, empty.end());
        timer_ticks = empty[5000];

        const std::uint64_t passes0 = r.passes();
        const auto start = std::chrono::steady_clock::now();
        std::shared_ptr<const mq::snapshot> s = r.latest();
        std::uint64_t last_generation = s->generation();
        std::uint64_t n = 0;
        for (;;) {
            // Each call timed alone; the pointer it replaces is released after t1.
            for (int i = 0; i < 1000; ++i) {
                const std::uint64_t t0 = tsc();
                std::shared_ptr<const mq::snapshot> next = r.latest();
                const std::uint64_t t1 = tsc();
                hist.add(t1 - t0);
                s = std::move(next); // the scheduler would read it here
                checksum += s->size();
            }
            // 100 calls timed together with steady_clock.
            {
                const auto b0 = std::chrono::steady_clock::now();
                for (int i = 0; i < 100; ++i) {
                    std::shared_ptr<const mq::snapshot> next = r.latest();
                    benchmark::DoNotOptimize(next.get());
                }
                const auto b1 = std::chrono::steady_clock::now();
                batch_ns += static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(b1 - b0).count());
                batch_calls += 100;
            }
            n += 1000;
            if (s->generation() < last_generation) fail("latest() went back in time");
            last_generation = s->generation();
            if (s->size() != table().jobs.size()) fail("a snapshot does not hold every job");
            const bool enough_passes = threads == 0 || r.passes() - passes0 >= min_passes;
            if (n >= min_samples && enough_passes) break;
        }
        const auto stop = std::chrono::steady_clock::now();
        passes = r.passes() - passes0;
        wall = std::chrono::duration<double>(stop - start).count();
        busy = static_cast<double>(passes) * std::chrono::duration<double>(r.stats().last_pass).count();
    }
    r.stop();
    benchmark::DoNotOptimize(checksum);
    if (r.failures() != 0) fail("a pass failed");

    const auto ns = [&](std::uint64_t ticks) { return static_cast<double>(ticks) / per_ns; };
    state.counters["p50_ns"] = ns(hist.quantile(0.50));
    state.counters["p99_ns"] = ns(hist.quantile(0.99));
    state.counters["p999_ns"] = ns(hist.quantile(0.999));
    state.counters["max_ns"] = ns(hist.max());
    state.counters["over_1us"] = static_cast<double>(hist.above(static_cast<std::uint64_t>(1000.0 * per_ns)));
    state.counters["calls"] = static_cast<double>(hist.total());
    state.counters["timer_ns"] = ns(timer_ticks);
    state.counters["batch100_ns"] = batch_calls == 0 ? 0.0 : static_cast<double>(batch_ns) / static_cast<double>(batch_calls);
    state.counters["passes"] = static_cast<double>(passes);
    state.counters["pass_busy"] = wall > 0 ? std::min(1.0, busy / wall) : 0.0;
    state.counters["pass_ms"] = std::chrono::duration<double, std::milli>(r.stats().last_pass).count();
}

// ---- Console output plus summary lines --------------------------------------------------------

/// The console table, then the median (over repetitions) of each benchmark's figure, and the
/// ratios of the dynamic engines to the compile-time ones.
class summary_reporter : public benchmark::ConsoleReporter {
public:
    summary_reporter() : benchmark::ConsoleReporter(OO_Tabular) {}

    void ReportRuns(const std::vector<Run>& runs) override {
        benchmark::ConsoleReporter::ReportRuns(runs);
        for (const Run& r : runs) {
            if (r.run_type != Run::RT_Iteration || r.error_occurred) continue;
            std::string name = r.benchmark_name();
            for (const char* suffix : {"/process_time", "/real_time", "/iterations:1"})
                for (std::size_t at; (at = name.find(suffix)) != std::string::npos;)
                    name.erase(at, std::string_view(suffix).size());
            const auto it = r.counters.find("ns_per_job");
            if (it != r.counters.end()) ns_per_job_[name].push_back(it->second.value * 1e9);
            for (const char* c : {"p50_ns", "p99_ns", "p999_ns", "max_ns", "over_1us", "calls"})
                if (const auto k = r.counters.find(c); k != r.counters.end()) latency_[name][c].push_back(k->second.value);
            wall_ms_[name].push_back(r.GetAdjustedRealTime() * unit_to_ms(r.time_unit));
            cpu_ms_[name].push_back(r.GetAdjustedCPUTime() * unit_to_ms(r.time_unit));
        }
    }

    void Finalize() override {
        benchmark::ConsoleReporter::Finalize();
        auto& os = GetOutputStream();
        char line[240];
        os << "\nMedians over repetitions (engines: ns per job; passes: ms per pass, wall and the process's CPU):\n";
        for (const auto& [name, v] : ns_per_job_) {
            if (name.rfind("engine/", 0) == 0)
                std::snprintf(line, sizeof line, "  %-32s %8.2f ns/job\n", name.c_str(), median(v));
            else
                std::snprintf(line, sizeof line, "  %-32s %8.2f ms wall %8.2f ms CPU\n", name.c_str(),
                              median(wall_ms_[name]), median(cpu_ms_[name]));
            os << line;
        }
        for (auto& [name, c] : latency_) {
            std::snprintf(line, sizeof line,
                          "  %-32s latest(): p50 %.0f ns, p99 %.0f ns, p99.9 %.0f ns, max %.0f ns; %.0f of %.0f calls over 1 us\n",
                          name.c_str(), median(c["p50_ns"]), median(c["p99_ns"]), median(c["p999_ns"]),
                          median(c["max_ns"]), median(c["over_1us"]), median(c["calls"]));
            os << line;
        }
        const auto ratio = [&](const char* num, const char* den) {
            const auto a = ns_per_job_.find(num), b = ns_per_job_.find(den);
            if (a == ns_per_job_.end() || b == ns_per_job_.end()) return;
            std::snprintf(line, sizeof line, "  %-52s %6.2fx\n", (std::string(num) + " / " + den).c_str(),
                          median(a->second) / median(b->second));
            os << line;
        };
        os << "Ratios (medians; the goal: the dynamic engine within 3x the compile-time engine):\n";
        ratio("engine/dynamic_policy", "engine/runtime_weights");
        ratio("engine/dynamic_policy", "engine/fixed_weights");
        ratio("engine/flux_dynamic_preset", "engine/flux_compile_time");
        os.flush();
    }

private:
    static double unit_to_ms(benchmark::TimeUnit u) {
        switch (u) {
        case benchmark::kNanosecond: return 1e-6;
        case benchmark::kMicrosecond: return 1e-3;
        case benchmark::kMillisecond: return 1.0;
        default: return 1e3;
        }
    }
    static double median(std::vector<double> v) {
        if (v.empty()) return 0.0;
        std::sort(v.begin(), v.end());
        const std::size_t m = v.size() / 2;
        return v.size() % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2.0;
    }

    std::map<std::string, std::vector<double>> ns_per_job_, wall_ms_, cpu_ms_;
    std::map<std::string, std::map<std::string, std::vector<double>>> latency_;
};

} // namespace

BENCHMARK(bm_engine_fixed)->Name("engine/fixed_weights")->Unit(benchmark::kMillisecond);
BENCHMARK(bm_engine_runtime)->Name("engine/runtime_weights")->Unit(benchmark::kMillisecond);
BENCHMARK(bm_engine_dynamic)->Name("engine/dynamic_policy")->Unit(benchmark::kMillisecond);
BENCHMARK(bm_flux_compile_time)->Name("engine/flux_compile_time")->Unit(benchmark::kMillisecond);
BENCHMARK(bm_flux_dynamic)->Name("engine/flux_dynamic_preset")->Unit(benchmark::kMillisecond);

BENCHMARK(bm_pass_full)->Name("pass/full")->ArgName("threads")->Arg(1)->Arg(2)
    ->UseRealTime()->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond);
BENCHMARK(bm_pass_full_unordered)->Name("pass/full_unordered")->ArgName("threads")->Arg(1)->Arg(2)
    ->UseRealTime()->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond);
BENCHMARK(bm_pass_builder)->Name("pass/builder")->ArgName("threads")->Arg(1)->Arg(2)
    ->UseRealTime()->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond);
BENCHMARK(bm_pass_builder_dynamic)->Name("pass/builder_dynamic")->ArgName("threads")->Arg(1)->Arg(2)
    ->UseRealTime()->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond);
BENCHMARK(bm_pass_priorities)->Name("pass/priorities")->ArgName("threads")->Arg(1)->Arg(2)
    ->UseRealTime()->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond);
BENCHMARK(bm_pass_sort)->Name("pass/sort")->ArgName("threads")->Arg(1)->Arg(2)
    ->UseRealTime()->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond);

BENCHMARK(bm_snapshot_latest)->Name("snapshot/latest")->ArgName("threads")->Arg(0)->Arg(1)->Arg(2)
    ->Iterations(1)->UseRealTime()->Unit(benchmark::kMillisecond);

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    check_setup();
    summary_reporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::Shutdown();
    return 0;
}
