#pragma once
/// \file
/// A synthetic Slurm workload shared by the Slurm benchmarks: jobs built with a fixed-seed
/// RNG, 8 partitions, 6 QOS, 10,000 associations with random fair-share factors, and a TRES
/// request table owned by the workload: one row per job (in job order), one column per TRES
/// the jobs ask for (cpu, mem, node, gres/gpu: TRES ids 0, 1, 3, 8), as a scheduler keeps only
/// the TRES it tracks. The job count is 1,000,000, or 10,000 when MFPRIO_BENCH_SMALL=1 (the smoke run
/// of the test suite), or four times the last-level cache's worth when
/// MFPRIO_BENCH_OUT_OF_CACHE=1 (`job_count`). Everything here is set up once, outside the
/// timed loops.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <random>
#include <span>
#include <vector>

#include <mfprio/core/job.hpp>
#include <mfprio/slurm/context.hpp>
#include <mfprio/slurm/multifactor.hpp>
#include <mfprio/slurm/tres.hpp>

namespace mfprio_bench {

/// Job count of a full run, and of a smoke run (MFPRIO_BENCH_SMALL=1).
inline constexpr std::size_t full_jobs = 1'000'000;
inline constexpr std::size_t small_jobs = 10'000;

/// True when MFPRIO_BENCH_SMALL is set to anything but "" or "0".
inline bool small_run() {
    const char* v = std::getenv("MFPRIO_BENCH_SMALL");
    return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
}

/// Bytes a job brings into the batch: its 64-byte record, its TRES request row (4 doubles)
/// and its 8-byte result (the association entries, 10,000 x 16 bytes, stay in cache).
inline constexpr std::size_t bytes_per_job = 64 + 4 * sizeof(double) + 8;

/// The last-level cache of the CPU this runs on, in bytes (the largest cache level the C
/// library or sysfs reports), or 0 when neither says.
inline std::size_t last_level_cache_bytes() {
    long best = 0;
#ifdef _SC_LEVEL4_CACHE_SIZE
    for (int name : {_SC_LEVEL2_CACHE_SIZE, _SC_LEVEL3_CACHE_SIZE, _SC_LEVEL4_CACHE_SIZE}) best = std::max(best, sysconf(name));
#endif
    for (int index = 0; index < 8; ++index) {
        char path[96];
        std::snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", index);
        std::FILE* f = std::fopen(path, "r");
        if (f == nullptr) continue;
        long kib = 0;
        char unit = 0;
        if (std::fscanf(f, "%ld%c", &kib, &unit) == 2) {
            const long bytes = unit == 'M' ? kib << 20 : unit == 'K' ? kib << 10 : kib;
            best = std::max(best, bytes);
        }
        std::fclose(f);
    }
    return best > 0 ? static_cast<std::size_t>(best) : 0;
}

/// True when MFPRIO_BENCH_OUT_OF_CACHE is set to anything but "" or "0".
inline bool out_of_cache_run() {
    const char* v = std::getenv("MFPRIO_BENCH_OUT_OF_CACHE");
    return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
}

/// Jobs whose bytes (`bytes_per_job`) are four times the last-level cache, at least
/// `full_jobs`: a batch over them streams from main memory.
inline std::size_t out_of_cache_jobs() {
    const std::size_t n = 4 * last_level_cache_bytes() / bytes_per_job;
    return std::max(n, full_jobs);
}

/// The job count of this run: `small_jobs` with MFPRIO_BENCH_SMALL=1, `out_of_cache_jobs()`
/// with MFPRIO_BENCH_OUT_OF_CACHE=1 (said on stderr, with the cache size it came from),
/// else `full_jobs`.
inline std::size_t job_count() {
    if (small_run()) return small_jobs;
    if (!out_of_cache_run()) return full_jobs;
    const std::size_t n = out_of_cache_jobs();
    std::fprintf(stderr, "mfprio bench: %zu jobs (%zu MiB) for a last-level cache of %zu MiB\n", n,
                 n * bytes_per_job >> 20, last_level_cache_bytes() >> 20);
    return n;
}

/// True when MFPRIO_BENCH_FULL_TRES is set to anything but "" or "0": the TRES request rows
/// then hold every TRES id 0..8 (72 bytes a job) instead of the four the jobs ask for (32).
inline bool full_tres_rows() {
    const char* v = std::getenv("MFPRIO_BENCH_FULL_TRES");
    return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
}

/// Stops the program with a message: for set-up checks that must hold before timing.
[[noreturn]] inline void fail(const char* what) {
    std::fprintf(stderr, "mfprio bench: %s\n", what);
    std::abort();
}

/// The workload: owning tables and the context viewing them. Not copyable (the context and
/// the jobs hold spans into the tables).
struct slurm_workload {
    static constexpr std::uint32_t partition_count = 8;
    static constexpr std::uint32_t qos_count = 6;
    static constexpr std::uint32_t association_count = 10'000;
    static constexpr std::size_t tres_slots = mfprio::slurm::tres_id::first_dynamic + 1; ///< partition totals: ids 0..8
    static constexpr std::uint32_t gres_gpu = mfprio::slurm::tres_id::first_dynamic;     ///< id 8
    /// The column of each TRES id in the compact request table (cpu, mem, node, gres/gpu).
    static constexpr std::uint32_t none = mfprio::slurm::tres_table::no_column;
    static constexpr std::uint32_t compact_columns[tres_slots] = {0, 1, none, 2, none, none, none, none, 3};

    std::uint32_t request_columns = 4; ///< doubles per request row (tres_slots with full_tres_rows())
    std::uint32_t col_cpu = 0, col_mem = 1, col_node = 2, col_gpu = 3; ///< columns of the TRES the jobs ask for
    static constexpr std::int64_t now = 1'767'225'600; ///< 2026-01-01T00:00:00Z

    std::vector<double> partition_tres; ///< tres_slots totals per partition
    std::vector<mfprio::slurm::partition_info> partitions;
    std::vector<mfprio::slurm::qos_info> qos;
    std::vector<double> fairshare;
    std::vector<std::uint32_t> assoc_priority;
    std::vector<double> assoc_priority_norm;
    std::vector<double> tres_pool; ///< the request table: request_columns counts per job, contiguous
    std::vector<mfprio::job> jobs;
    mfprio::slurm::context ctx{};

    explicit slurm_workload(std::size_t n, std::uint32_t seed = 20130753u) {
        std::mt19937_64 rng(seed);
        auto uniform = [&](std::uint64_t lo, std::uint64_t hi) { // inclusive
            return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng);
        };
        auto real = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };

        // Cluster: 1,024 nodes x 128 CPUs, 512 GB each, 4 GPUs on a quarter of them.
        constexpr std::uint32_t nodes = 1024, cpus_per_node = 128;
        ctx.now = now;
        ctx.node_count = nodes;
        ctx.cluster_cpus = nodes * cpus_per_node;

        partition_tres.resize(std::size_t{partition_count} * tres_slots, 0.0);
        partitions.resize(partition_count);
        std::uint32_t max_job_factor = 1;
        for (std::uint32_t p = 0; p < partition_count; ++p) {
            const double pnodes = static_cast<double>(nodes / 2 + 64 * p % nodes);
            double* t = &partition_tres[std::size_t{p} * tres_slots];
            t[mfprio::slurm::tres_id::cpu] = pnodes * cpus_per_node;
            t[mfprio::slurm::tres_id::mem] = pnodes * 512.0 * 1024.0;
            t[mfprio::slurm::tres_id::node] = pnodes;
            t[gres_gpu] = p % 2 == 0 ? pnodes : 0.0; // half the partitions have no GPUs: factor 0
            auto& info = partitions[p];
            info.priority_job_factor = static_cast<std::uint32_t>(uniform(0, 100)); // 0 happens: adds nothing
            info.priority_tier = static_cast<std::uint32_t>(uniform(1, 3));
            info.max_time = static_cast<std::uint32_t>(uniform(60, 7 * 24 * 60));
            info.tres_totals = std::span<const double>(t, tres_slots);
            if (info.priority_job_factor > max_job_factor) max_job_factor = info.priority_job_factor;
        }
        for (auto& info : partitions)
            info.norm_priority = static_cast<double>(info.priority_job_factor) / static_cast<double>(max_job_factor);

        qos.resize(qos_count);
        std::uint32_t max_qos = 0;
        for (std::uint32_t q = 0; q < qos_count; ++q) {
            qos[q].priority = q == 0 ? 0u : static_cast<std::uint32_t>(uniform(1, 10'000)); // "normal" has 0
            if (qos[q].priority > max_qos) max_qos = qos[q].priority;
        }
        for (auto& info : qos) info.norm_priority = mfprio::slurm::normalize_priority(info.priority, max_qos);

        fairshare.resize(association_count);
        assoc_priority.resize(association_count);
        assoc_priority_norm.resize(association_count);
        std::uint32_t max_assoc = 0;
        for (std::uint32_t a = 0; a < association_count; ++a) {
            fairshare[a] = real(0.0, 1.0);
            assoc_priority[a] = static_cast<std::uint32_t>(uniform(0, 1000));
            if (assoc_priority[a] > max_assoc) max_assoc = assoc_priority[a];
        }
        for (std::uint32_t a = 0; a < association_count; ++a)
            assoc_priority_norm[a] = mfprio::slurm::normalize_priority(assoc_priority[a], max_assoc);

        ctx.partitions = partitions;
        ctx.qos = qos;
        ctx.fairshare = fairshare;
        ctx.assoc_priority = assoc_priority;
        ctx.assoc_priority_norm = assoc_priority_norm;

        // The request table: row k is job k's.
        if (full_tres_rows()) {
            request_columns = static_cast<std::uint32_t>(tres_slots);
            col_cpu = mfprio::slurm::tres_id::cpu;
            col_mem = mfprio::slurm::tres_id::mem;
            col_node = mfprio::slurm::tres_id::node;
            col_gpu = gres_gpu;
        }
        tres_pool.assign(n * request_columns, 0.0);
        ctx.tres_requests = mfprio::slurm::tres_table{tres_pool, request_columns, {}};
        if (!full_tres_rows()) ctx.tres_requests.columns = compact_columns;
        jobs.resize(n);
        for (std::size_t k = 0; k < n; ++k) {
            auto& j = jobs[k];
            j.id = static_cast<std::uint32_t>(k + 1);
            j.association = static_cast<std::uint32_t>(uniform(0, association_count - 1));
            j.user = j.association / 4;
            j.partition = static_cast<std::uint16_t>(uniform(0, partition_count - 1));
            j.qos = static_cast<std::uint16_t>(uniform(0, qos_count - 1));
            j.state = mfprio::job_state::pending;
            j.submit_time = now - static_cast<std::int64_t>(uniform(0, 14 * 86400));
            // One job in 16 does not accrue age yet (accrue_time 0); the others accrue from
            // some point after submission, up to twice PriorityMaxAge ago.
            j.accrue_time = uniform(0, 15) == 0 ? 0 : j.submit_time + static_cast<std::int64_t>(uniform(0, 600));
            j.min_nodes = static_cast<std::uint32_t>(uniform(1, 64));
            j.cpus = static_cast<std::uint32_t>(uniform(1, 2048));
            j.time_limit = uniform(0, 7) == 0 ? mfprio::no_val32 : static_cast<std::uint32_t>(uniform(1, 2 * 24 * 60));
            j.nice = uniform(0, 9) == 0 ? static_cast<std::int32_t>(uniform(0, 2000)) - 1000 : 0;
            j.site_factor = uniform(0, 19) == 0 ? static_cast<std::int32_t>(uniform(0, 5000)) : 0;
            double* t = &tres_pool[k * request_columns];
            t[col_cpu] = static_cast<double>(j.cpus);
            t[col_mem] = static_cast<double>(j.cpus) * static_cast<double>(uniform(1, 8)) * 1024.0;
            t[col_node] = static_cast<double>(j.min_nodes);
            t[col_gpu] = uniform(0, 3) == 0 ? static_cast<double>(j.min_nodes * uniform(1, 4)) : 0.0;
            j.tres_row = static_cast<std::uint32_t>(k);
        }
    }

    slurm_workload(const slurm_workload&) = delete;
    slurm_workload& operator=(const slurm_workload&) = delete;

    /// PriorityWeightTRES=CPU=1000,Mem=500,GRES/gpu=2000: three weighted TRES.
    [[nodiscard]] static mfprio::slurm::tres_factor tres_weights() {
        mfprio::slurm::tres_factor t{};
        t.add(mfprio::slurm::tres_id::cpu, 1000.0);
        t.add(mfprio::slurm::tres_id::mem, 500.0);
        t.add(gres_gpu, 2000.0);
        return t;
    }
};

// The benchmarks' slurm.conf: PriorityWeightAge=1000 PriorityWeightAssoc=100
// PriorityWeightFairshare=10000 PriorityWeightJobSize=1000 PriorityWeightPartition=1000
// PriorityWeightQOS=2000 PriorityWeightTRES=CPU=1000,Mem=500,GRES/gpu=2000 PriorityMaxAge=7-0.
inline constexpr mfprio::slurm::weights bench_weights{1000, 100, 10000, 1000, 1000, 2000};
inline constexpr std::uint32_t bench_max_age = 604800;
inline constexpr const char* bench_tres_weights = "CPU=1000,Mem=500,GRES/gpu=2000";

inline mfprio::slurm::settings bench_settings() {
    mfprio::slurm::settings s{};
    s.max_age = bench_max_age;
    s.tres = slurm_workload::tres_weights();
    return s;
}

/// The engine with the benchmarks' weights as template arguments.
using fixed_engine = mfprio::slurm::fixed_multifactor_engine<bench_weights.age, bench_weights.assoc,
    bench_weights.fairshare, bench_weights.job_size, bench_weights.partition, bench_weights.qos>;

inline fixed_engine make_fixed() {
    return mfprio::slurm::make_fixed_multifactor<bench_weights.age, bench_weights.assoc, bench_weights.fairshare,
                                                 bench_weights.job_size, bench_weights.partition, bench_weights.qos>(
        bench_settings());
}

/// The same weights read at run time, as from slurm.conf.
inline mfprio::slurm::multifactor_engine make_runtime() {
    return mfprio::slurm::make_multifactor(bench_weights, bench_settings());
}

/// The workload of this run, built on first use (outside any timed region).
inline const slurm_workload& workload() {
    static const slurm_workload w(job_count());
    return w;
}

} // namespace mfprio_bench
