// Fair-share: every algorithm's pass over a whole association tree, the usage decay pass,
// charging one job's usage, and the memory a tree and its result columns take.
//
// Trees (fixed seed, built with `tree_builder` before anything is timed; shares 1-100 and
// usage uniform at random for every association):
//   ref      the reference tree: 10 accounts x 10 sub-accounts x 999 users
//            (100,011 associations);
//   flat     one account holding every user;
//   deep     chains of 16 nested accounts under the root, 4 users on every account of a
//            chain (users at depth 17);
//   wide     many accounts under the root, 4 users each.
// Shapes come in 1,000, 100,000 and 1,000,000 associations (about: whole chains and
// accounts). With MFPRIO_BENCH_SMALL=1 (the test suite's smoke run) the reference tree is
// 10 x 10 x 9 users and the shapes have 1,000 associations only.
//
// Benchmarks, named <what>/<tree>/<associations>:
//   classic, depth_oblivious, linear   `fairshare::compute` with columns reused across passes;
//   classic_2_threads,                 the same on two threads (`options::threads`), on the
//   depth_oblivious_2_threads          reference tree and the 1,000,000-association shapes;
//   fair_tree, fair_tree_merge, flux   the workspace overloads (no allocation once warm);
//   fair_tree_alloc                    `fairshare::compute` for Fair Tree (a new workspace
//                                      per pass), to show what the workspace saves;
//   classic_floor                      not a pass: the arithmetic of classic alone, over
//                                      the reference tree's values in flat arrays (three
//                                      long double divisions and one pow(2, y) per
//                                      association through the pass's pow2_writer, no tree
//                                      walk, no shares product): what the classic pass
//                                      cannot go below while computing Slurm's bits;
//   decay                              `usage_ledger::decay_pass(300 s)`;
//   charge_same_dt, charge_varying_dt  `usage_ledger::charge` of one job (random user,
//                                      random billable TRES), Δ = 300 s for every job (the
//                                      ledger's cached pow) or a new Δ per job (one pow each);
//   memory                             bytes per association (counters; nothing is timed).
// Pass benchmarks report ms per pass and ns_per_assoc; charges report ns per job. Memory is
// the capacity of every per-association vector of `tree` and `columns` (and of the
// workspaces, separately) divided by the association count; the three name columns
// (std::string account, user, partition) are left out and shown apart. The memory table
// is printed again after the benchmark table.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include "fairshare_trees.hpp"

#include <mfprio/fairshare/columns.hpp>
#include <mfprio/fairshare/compute.hpp>
#include <mfprio/fairshare/decay.hpp>
#include <mfprio/fairshare/fair_tree.hpp>
#include <mfprio/fairshare/flux_tree.hpp>
#include <mfprio/fairshare/pow2.hpp>
#include <mfprio/fairshare/tree.hpp>
#include <mfprio/fairshare/usage.hpp>

namespace {

namespace fs = mfprio::fairshare;

constexpr std::uint32_t seed = mfprio_bench::tree_seed;

/// True when MFPRIO_BENCH_SMALL is set to anything but "" or "0".
bool small_run() {
    const char* v = std::getenv("MFPRIO_BENCH_SMALL");
    return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
}

[[noreturn]] void fail(const char* what) {
    std::fprintf(stderr, "mfprio bench: %s\n", what);
    std::abort();
}

// ---- Trees: fairshare_trees.hpp --------------------------------------------------------

using mfprio_bench::label;
using mfprio_bench::make_tree;
using mfprio_bench::name_of;
using mfprio_bench::shape;
using mfprio_bench::tree_spec;

std::string tree_label(const tree_spec& spec) {
    if (spec.kind == shape::ref) return label("ref/", 1 + 10 + 100 + 100 * spec.size);
    std::string s(name_of(spec.kind));
    s += '/';
    s += std::to_string(spec.size);
    return s;
}

/// The tree of the running benchmark: built on first use, kept while consecutive
/// benchmarks ask for the same one (benchmarks are registered tree by tree), then freed.
fs::tree& tree_for(const tree_spec& spec) {
    static std::string current;
    static std::unique_ptr<fs::tree> t;
    const std::string want = tree_label(spec);
    if (!t || current != want) {
        t.reset();
        t = std::make_unique<fs::tree>(make_tree(spec));
        current = want;
    }
    return *t;
}

// ---- Memory ---------------------------------------------------------------------------------

template <class T>
std::size_t bytes(const std::vector<T>& v) {
    return v.capacity() * sizeof(T);
}

struct footprint {
    std::size_t assocs = 0;
    double tree = 0, columns = 0, names = 0, fair_tree_ws = 0, flux_ws = 0; // bytes per association
};

footprint measure(const fs::tree& t, const fs::columns& c, const fs::fair_tree_workspace& fw,
                  const fs::flux_tree_workspace& xw) {
    const double n = static_cast<double>(t.size());
    footprint f;
    f.assocs = t.size();
    f.tree = static_cast<double>(bytes(t.parent) + bytes(t.fs_parent) + bytes(t.shares_raw) + bytes(t.level_shares) +
                                 bytes(t.depth) + bytes(t.user) + bytes(t.child_begin) + bytes(t.children) +
                                 bytes(t.usage_raw) + bytes(t.classic_shares) + bytes(t.fair_tree_shares) +
                                 bytes(t.level_part)) / n;
    f.columns = static_cast<double>(bytes(c.shares_norm) + bytes(c.usage_efctv) + bytes(c.level_fs) +
                                    bytes(c.fs_factor)) / n;
    std::size_t names = bytes(t.account) + bytes(t.user_name) + bytes(t.partition);
    for (const auto* col : {&t.account, &t.user_name, &t.partition})
        for (const std::string& s : *col)
            if (s.capacity() > 15) names += s.capacity() + 1; // beyond libstdc++'s small-string buffer
    f.names = static_cast<double>(names) / n;
    f.fair_tree_ws =
        static_cast<double>(bytes(fw.order) + bytes(fw.merged) + bytes(fw.keys) + bytes(fw.key) + bytes(fw.frames)) / n;
    f.flux_ws = static_cast<double>(bytes(xw.usage) + bytes(xw.weight) + bytes(xw.has_sub_bank) +
                                    bytes(xw.child_begin) + bytes(xw.children) + bytes(xw.merged) + bytes(xw.keys) +
                                    bytes(xw.frames)) / n;
    return f;
}

std::vector<std::pair<std::string, footprint>>& footprints() {
    static std::vector<std::pair<std::string, footprint>> v;
    return v;
}

// ---- Benchmarks -----------------------------------------------------------------------------

void per_assoc_counters(benchmark::State& state, std::size_t n) {
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
    state.counters["assocs"] = static_cast<double>(n);
    state.counters["ns_per_assoc"] = benchmark::Counter(static_cast<double>(n),
        benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

/// A pass of `algo` through `fairshare::compute`, columns reused.
void bm_compute(benchmark::State& state, tree_spec spec, fs::algorithm algo, unsigned threads = 1) {
    const fs::tree& t = tree_for(spec);
    fs::columns c;
    const fs::options o{algo, 1, threads};
    fs::compute(t, c, o); // warm: columns sized
    for (auto _ : state) {
        fs::compute(t, c, o);
        benchmark::DoNotOptimize(c.fs_factor.data());
        benchmark::ClobberMemory();
    }
    per_assoc_counters(state, t.size());
}

/// Fair Tree (Slurm's ties, or merged) with a reused workspace.
void bm_fair_tree(benchmark::State& state, tree_spec spec, bool merge) {
    const fs::tree& t = tree_for(spec);
    fs::columns c;
    fs::fair_tree_workspace ws;
    fs::fair_tree(t, c, ws, merge);
    for (auto _ : state) {
        fs::fair_tree(t, c, ws, merge);
        benchmark::DoNotOptimize(c.fs_factor.data());
        benchmark::ClobberMemory();
    }
    per_assoc_counters(state, t.size());
}

/// flux-accounting's weighted tree with a reused workspace.
void bm_flux(benchmark::State& state, tree_spec spec) {
    const fs::tree& t = tree_for(spec);
    fs::columns c;
    fs::flux_tree_workspace ws;
    fs::flux_tree(t, c, ws);
    for (auto _ : state) {
        fs::flux_tree(t, c, ws);
        benchmark::DoNotOptimize(c.fs_factor.data());
        benchmark::ClobberMemory();
    }
    per_assoc_counters(state, t.size());
}

/// The classic pass's arithmetic without the tree: per association UN = raw / root,
/// UE = UN + (UE_parent - UN) * (shares / level_shares), F = pow(2, -(UE / S)), in Slurm's
/// types and grouping, over flat copies of the tree's values (set up outside the timed loop).
void bm_classic_floor(benchmark::State& state, tree_spec spec) {
    const fs::tree& t = tree_for(spec);
    fs::columns c;
    fs::compute(t, c, {fs::algorithm::classic, 1});
    const std::size_t n = t.size();
    std::vector<long double> usage(t.usage_raw.begin(), t.usage_raw.end()), ue_parent(n);
    std::vector<std::uint32_t> shares(n), level(n);
    for (std::uint32_t a = 1; a < n; ++a) {
        ue_parent[a] = c.usage_efctv[t.fs_parent[a]];
        shares[a] = t.is_use_parent(a) ? 1 : t.shares_raw[a];
        level[a] = t.level_shares[a] == 0 ? 1 : t.level_shares[a];
    }
    std::vector<double> s(c.shares_norm), f(n);
    const long double root = usage[0];
    for (auto _ : state) {
        // The powers as the pass computes them: queued, in batches (pow2.hpp).
        fs::detail::pow2_writer w;
        for (std::size_t a = 1; a < n; ++a) {
            const long double un = usage[a] / root;
            const long double ue = un + (ue_parent[a] - un) * (static_cast<long double>(shares[a]) /
                                                                static_cast<long double>(level[a]));
            w.put(static_cast<double>(-(ue / static_cast<long double>(s[a]))), &f[a]);
        }
        w.flush();
        benchmark::DoNotOptimize(f.data());
        benchmark::ClobberMemory();
    }
    per_assoc_counters(state, n);
}

/// One decay pass of PriorityCalcPeriod's default 300 s (Slurm's 7-day half-life): one
/// pow, one long double multiply per association. The tree's usage is restored afterwards.
void bm_decay(benchmark::State& state, tree_spec spec) {
    fs::tree& t = tree_for(spec);
    const std::vector<long double> saved = t.usage_raw;
    fs::usage_ledger ledger(t);
    for (auto _ : state) {
        ledger.decay_pass(300.0);
        benchmark::DoNotOptimize(t.usage_raw.data());
        benchmark::ClobberMemory();
    }
    t.usage_raw = saved;
    per_assoc_counters(state, t.size());
}

/// Charging one job: 4,096 pre-drawn jobs (a random user association, billable TRES 1-512,
/// and for `varying` a random Δ in (0, 300] s), one per iteration, in turn.
void bm_charge(benchmark::State& state, tree_spec spec, bool varying) {
    fs::tree& t = tree_for(spec);
    const std::vector<long double> saved = t.usage_raw;
    std::vector<std::uint32_t> users;
    for (std::uint32_t a = 0; a < t.size(); ++a)
        if (t.is_user(a)) users.push_back(a);
    struct job {
        std::uint32_t assoc;
        double billable, seconds;
    };
    constexpr std::size_t jobs_n = 4096;
    std::vector<job> jobs(jobs_n);
    std::mt19937_64 rng(seed + 1);
    for (auto& j : jobs) {
        j.assoc = users[std::uniform_int_distribution<std::size_t>(0, users.size() - 1)(rng)];
        j.billable = static_cast<double>(std::uniform_int_distribution<int>(1, 512)(rng));
        j.seconds = varying ? std::uniform_real_distribution<double>(0.5, 300.0)(rng) : 300.0;
    }
    fs::usage_ledger ledger(t);
    std::size_t k = 0;
    for (auto _ : state) {
        const job& j = jobs[k];
        k = (k + 1) & (jobs_n - 1);
        ledger.charge(j.assoc, j.seconds, j.billable);
        benchmark::ClobberMemory();
    }
    benchmark::DoNotOptimize(t.usage_raw.data());
    t.usage_raw = saved;
    state.SetItemsProcessed(state.iterations());
    state.counters["depth"] = static_cast<double>(t.depth[users.back()]);
}

/// Bytes per association (nothing to time: the loop only re-reads the capacities). Columns
/// and workspaces have run once so that they hold what a pass needs.
void bm_memory(benchmark::State& state, tree_spec spec) {
    const fs::tree& t = tree_for(spec);
    fs::columns c;
    fs::fair_tree_workspace fw;
    fs::flux_tree_workspace xw;
    fs::fair_tree(t, c, fw, true); // merge mode also sizes `merged`
    fs::flux_tree(t, c, xw);
    fs::compute(t, c, {fs::algorithm::classic, 1});
    footprint f;
    for (auto _ : state) {
        f = measure(t, c, fw, xw);
        benchmark::DoNotOptimize(f);
    }
    state.counters["assocs"] = static_cast<double>(f.assocs);
    state.counters["tree_B"] = f.tree;
    state.counters["columns_B"] = f.columns;
    state.counters["total_B"] = f.tree + f.columns;
    state.counters["names_B"] = f.names;
    state.counters["fair_tree_ws_B"] = f.fair_tree_ws;
    state.counters["flux_ws_B"] = f.flux_ws;
    auto& v = footprints();
    const std::string label = tree_label(spec);
    bool seen = false;
    for (const auto& e : v) seen = seen || e.first == label;
    if (!seen) v.emplace_back(label, f);
}

// ---- Set-up checks --------------------------------------------------------------------------

/// The workspace overloads, run twice, give what a fresh `compute` gives (a stale workspace
/// would show here), and the pass produces real factors, not all zeros.
void check_workspaces() {
    const fs::tree t = make_tree({shape::ref, small_run() ? std::size_t{9} : std::size_t{99}});
    for (const bool merge : {false, true}) {
        fs::columns fresh, reused;
        fs::compute(t, fresh, {merge ? fs::algorithm::fair_tree_merge : fs::algorithm::fair_tree, 1});
        fs::fair_tree_workspace ws;
        fs::fair_tree(t, reused, ws, !merge);
        fs::fair_tree(t, reused, ws, merge);
        if (std::memcmp(fresh.fs_factor.data(), reused.fs_factor.data(), t.size() * sizeof(double)) != 0)
            fail("fair_tree with a reused workspace differs from compute");
    }
    fs::columns fresh, reused;
    fs::compute(t, fresh, {fs::algorithm::flux, 1});
    fs::flux_tree_workspace ws;
    fs::flux_tree(t, reused, ws);
    fs::flux_tree(t, reused, ws);
    if (std::memcmp(fresh.fs_factor.data(), reused.fs_factor.data(), t.size() * sizeof(double)) != 0)
        fail("flux_tree with a reused workspace differs from compute");
    std::size_t nonzero = 0;
    for (std::uint32_t a = 0; a < t.size(); ++a) nonzero += t.is_user(a) && fresh.fs_factor[a] > 0.0;
    if (nonzero * 2 < t.user_count) fail("fewer than half of the users have a non-zero factor");
}

// ---- Registration and output ----------------------------------------------------------------

void register_tree(const tree_spec& spec) {
    const std::string l = tree_label(spec);
    const auto reg = [&](const std::string& what, auto fn, benchmark::TimeUnit unit) {
        benchmark::RegisterBenchmark((what + "/" + l).c_str(), fn)->Unit(unit);
    };
    constexpr auto ms = benchmark::kMillisecond;
    reg("classic", [spec](benchmark::State& s) { bm_compute(s, spec, fs::algorithm::classic); }, ms);
    const bool two_threads = spec.kind == shape::ref || spec.size >= 1'000'000;
    if (two_threads)
        reg("classic_2_threads", [spec](benchmark::State& s) { bm_compute(s, spec, fs::algorithm::classic, 2); }, ms);
    reg("fair_tree", [spec](benchmark::State& s) { bm_fair_tree(s, spec, false); }, ms);
    reg("fair_tree_merge", [spec](benchmark::State& s) { bm_fair_tree(s, spec, true); }, ms);
    if (spec.kind == shape::ref)
        reg("fair_tree_alloc", [spec](benchmark::State& s) { bm_compute(s, spec, fs::algorithm::fair_tree); }, ms);
    if (spec.kind == shape::ref)
        reg("classic_floor", [spec](benchmark::State& s) { bm_classic_floor(s, spec); }, ms);
    reg("depth_oblivious", [spec](benchmark::State& s) { bm_compute(s, spec, fs::algorithm::depth_oblivious); }, ms);
    if (two_threads)
        reg("depth_oblivious_2_threads",
            [spec](benchmark::State& s) { bm_compute(s, spec, fs::algorithm::depth_oblivious, 2); }, ms);
    reg("flux", [spec](benchmark::State& s) { bm_flux(s, spec); }, ms);
    reg("linear", [spec](benchmark::State& s) { bm_compute(s, spec, fs::algorithm::linear); }, ms);
    reg("decay", [spec](benchmark::State& s) { bm_decay(s, spec); }, ms);
    reg("charge_same_dt", [spec](benchmark::State& s) { bm_charge(s, spec, false); }, benchmark::kNanosecond);
    reg("charge_varying_dt", [spec](benchmark::State& s) { bm_charge(s, spec, true); }, benchmark::kNanosecond);
    benchmark::RegisterBenchmark((std::string("memory/") += l).c_str(), [spec](benchmark::State& s) { bm_memory(s, spec); })
        ->Iterations(1);
}

void print_footprints() {
    if (footprints().empty()) return;
    std::printf("\nBytes per association (vector capacities / associations):\n");
    std::printf("  %-14s %10s %8s %8s %8s %8s %10s %8s\n", "tree", "assocs", "tree", "columns", "total", "names",
                "fair_tree", "flux");
    std::printf("  %-14s %10s %8s %8s %8s %8s %10s %8s\n", "", "", "", "", "", "(apart)", "workspace", "wksp");
    for (const auto& [label, f] : footprints())
        std::printf("  %-14s %10zu %8.1f %8.1f %8.1f %8.1f %10.1f %8.1f\n", label.c_str(), f.assocs, f.tree, f.columns,
                    f.tree + f.columns, f.names, f.fair_tree_ws, f.flux_ws);
}

} // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    check_workspaces();
    const bool small = small_run();
    register_tree({shape::ref, small ? std::size_t{9} : std::size_t{999}});
    const std::vector<std::size_t> sizes =
        small ? std::vector<std::size_t>{1'000} : std::vector<std::size_t>{1'000, 100'000, 1'000'000};
    for (const shape s : {shape::flat, shape::deep, shape::wide})
        for (const std::size_t n : sizes) register_tree({s, n});
    benchmark::RunSpecifiedBenchmarks();
    print_footprints();
    benchmark::Shutdown();
    return 0;
}
