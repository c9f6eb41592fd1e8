// Slurm's job priority against a plain evaluation written in this file from Slurm's formulas
// (priority_multifactor.c `set_priority_factors` and `_get_priority_internal`, the priority
// array of `_priority_each_partition` / `_priority_each_qos`; reference slurm.md 1, 1.1, 1.2),
// in Slurm's order and types, job by job, on random worlds: every flag, zero and huge weights,
// negative TRES weights, jobs past PriorityMaxAge or accruing in the future, held and
// administrator-set jobs, multi-partition and multi-QOS jobs. The engine's one-job path, its
// batch path (block hooks), the compile-time-weights engine and the priority arrays must give
// the plain value for every job.
#include <doctest/doctest.h>

#include <mfprio/slurm/multifactor.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace {

namespace ms = mfprio::slurm;
using mfprio::priority_status;
using mfprio::priority_value;

constexpr std::uint32_t no_val = 0xfffffffeu;   // Slurm's NO_VAL
constexpr std::uint32_t infinite = 0xffffffffu; // Slurm's INFINITE
constexpr std::uint32_t tres_kinds = 10;        // TRES ids 0..9 (cpu, mem, ..., two gres)

/// One random world: the cluster, its partitions, QOS and associations, the configuration
/// and the jobs with their partition and QOS lists.
struct world {
    ms::weights w{};
    ms::settings s{};
    std::vector<double> tres_w; // by TRES id, 0 for an unweighted TRES
    std::vector<std::vector<double>> part_totals;
    std::vector<ms::partition_info> parts;
    std::vector<ms::qos_info> qos;
    std::vector<double> fairshare, assoc_norm;
    std::vector<std::uint32_t> assoc_prio;
    std::vector<double> requests; // tres_kinds a job
    std::vector<mfprio::job> jobs;
    std::vector<std::vector<std::uint32_t>> job_parts, job_qos;
    ms::context c{};

    explicit world(std::uint32_t seed) {
        std::mt19937_64 rng(seed);
        const auto pick = [&](std::uint64_t k) { return static_cast<std::uint32_t>(rng() % k); };
        const auto chance = [&](std::uint32_t one_in) { return pick(one_in) == 0; };
        const auto weight = [&]() -> std::uint32_t {
            if (chance(5)) return 0;
            return chance(4) ? pick(1u << 28) : pick(100000);
        };
        w = {weight(), weight(), weight(), weight(), weight(), weight()};
        s.max_age = chance(10) ? 0 : 1 + pick(30 * 86400);
        s.favor_small = chance(2);
        for (const auto f : {ms::priority_flag::small_relative_to_time, ms::priority_flag::no_normal_assoc,
                             ms::priority_flag::no_normal_part, ms::priority_flag::no_normal_qos,
                             ms::priority_flag::no_normal_tres})
            if (chance(4)) s.flags.set(f);
        tres_w.assign(tres_kinds, 0.0);
        for (std::uint32_t id = 0; id < tres_kinds; ++id)
            if (chance(2)) {
                tres_w[id] = static_cast<double>(pick(20001)) / 8.0 - 1000.0; // negative weights too
                s.tres.add(id, tres_w[id]);
            }

        c.now = 1'800'000'000;
        c.node_count = chance(20) ? 0 : 1 + pick(2000);
        c.cluster_cpus = chance(20) ? 0 : c.node_count * (1 + pick(128));

        const std::uint32_t np = 1 + pick(6);
        part_totals.resize(np);
        std::uint32_t pmax = 1;
        for (std::uint32_t p = 0; p < np; ++p) {
            ms::partition_info pi{};
            pi.priority_job_factor = chance(5) ? 0 : pick(65534);
            pi.priority_tier = pick(3);
            pi.max_time = chance(4) ? infinite : chance(10) ? 0 : 1 + pick(10080);
            for (std::uint32_t id = 0; id < tres_kinds; ++id)
                part_totals[p].push_back(chance(6) ? 0.0 : static_cast<double>(1 + pick(1u << 20)));
            pmax = std::max(pmax, pi.priority_job_factor);
            parts.push_back(pi);
        }
        for (std::uint32_t p = 0; p < np; ++p) {
            parts[p].norm_priority = ms::normalize_priority(parts[p].priority_job_factor, pmax);
            parts[p].tres_totals = part_totals[p];
        }
        const std::uint32_t nq = 1 + pick(5);
        std::uint32_t qmax = 0;
        for (std::uint32_t q = 0; q < nq; ++q) {
            qos.push_back({chance(3) ? 0u : pick(100000), 0.0, 1.0});
            qmax = std::max(qmax, qos.back().priority);
        }
        for (auto& q : qos) q.norm_priority = ms::normalize_priority(q.priority, qmax);
        const std::uint32_t na = 1 + pick(50);
        std::uint32_t amax = 0;
        for (std::uint32_t a = 0; a < na; ++a) {
            fairshare.push_back(chance(8) ? 0.0 : chance(8) ? 1.0 : static_cast<double>(rng() >> 11) * 0x1p-53);
            assoc_prio.push_back(chance(3) ? 0u : pick(1000));
            amax = std::max(amax, assoc_prio.back());
        }
        for (auto a : assoc_prio) assoc_norm.push_back(ms::normalize_priority(a, amax));

        const std::uint32_t nj = 3000;
        requests.resize(std::size_t{nj} * tres_kinds);
        for (std::uint32_t i = 0; i < nj; ++i) {
            mfprio::job j{};
            j.id = 1000 + i;
            j.association = pick(na);
            j.partition = static_cast<std::uint16_t>(pick(np));
            j.qos = static_cast<std::uint16_t>(pick(nq));
            const std::uint32_t when = pick(8);
            j.accrue_time = when == 0 ? 0 : when == 1 ? c.now + 1 + pick(1000) : c.now - pick(60 * 86400);
            j.min_nodes = chance(10) ? 0 : 1 + pick(c.node_count + 10);
            j.cpus = chance(10) ? 0 : 1 + pick(c.cluster_cpus + 200);
            j.time_limit = chance(4) ? mfprio::no_val32 : chance(10) ? 0 : chance(10) ? infinite : 1 + pick(10080);
            j.nice = chance(3) ? static_cast<std::int32_t>(pick(20001)) - 10000 : 0;
            j.site_factor = chance(3) ? static_cast<std::int32_t>(pick(2000001)) - 1000000 : 0;
            j.admin_priority = chance(50) ? 1 + pick(1000000) : 0;
            j.state = chance(30) ? mfprio::job_state::held : mfprio::job_state::pending;
            j.tres_row = chance(20) ? mfprio::no_tres_row : i;
            for (std::uint32_t id = 0; id < tres_kinds; ++id)
                requests[std::size_t{i} * tres_kinds + id] = chance(3) ? 0.0 : static_cast<double>(1 + pick(1u << 16));
            jobs.push_back(j);
            std::vector<std::uint32_t> pl, ql;
            if (chance(4)) {
                for (std::uint32_t p = 0; p < np; ++p)
                    if (chance(2)) pl.push_back(p);
            }
            if (chance(4)) {
                for (std::uint32_t q = 0; q < nq; ++q)
                    if (chance(2)) ql.push_back(q);
            }
            job_parts.push_back(std::move(pl));
            job_qos.push_back(std::move(ql));
        }
        c.partitions = parts;
        c.qos = qos;
        c.fairshare = fairshare;
        c.assoc_priority = assoc_prio;
        c.assoc_priority_norm = assoc_norm;
        c.tres_requests = {requests, tres_kinds, {}};
        for (std::size_t i = 0; i < jobs.size(); ++i) {
            ms::sort_by_tier(job_parts[i], c);
            ms::sort_by_qos_priority(job_qos[i], c);
        }
    }

    [[nodiscard]] bool has(ms::priority_flag f) const { return s.flags.has(f); }

    // ---- the plain evaluation ---------------------------------------------------------

    /// The raw factors of `set_priority_factors` (each 0 unless its weight is non-zero).
    struct factors {
        double age = 0, assoc = 0, fs = 0, js = 0, part = 0, qos = 0;
    };

    [[nodiscard]] factors raw(const mfprio::job& j) const {
        factors f;
        if (w.age && j.accrue_time) {
            std::uint32_t diff = 0;
            if (c.now > j.accrue_time) diff = static_cast<std::uint32_t>(c.now - j.accrue_time);
            f.age = diff < s.max_age ? static_cast<double>(diff) / static_cast<double>(s.max_age) : 1.0;
        }
        f.fs = w.fairshare ? fairshare[j.association] : 0.0;
        const std::uint32_t N = c.node_count, C = c.cluster_cpus;
        if (w.job_size && N && C) {
            const std::uint32_t cpu_cnt = j.cpus, min_nodes = j.min_nodes;
            double js;
            if (has(ms::priority_flag::small_relative_to_time)) {
                js = static_cast<double>(min_nodes) * static_cast<double>(C) / static_cast<double>(N);
                if (cpu_cnt > js) js = static_cast<double>(cpu_cnt);
                std::uint32_t time_limit = 1;
                if (j.time_limit != no_val)
                    time_limit = j.time_limit;
                else
                    time_limit = parts[j.partition].max_time;
                js /= time_limit;
                js /= C;
                if (s.favor_small) js = 1.0 - js;
            } else if (s.favor_small) {
                js = (N > min_nodes) ? static_cast<double>(N - min_nodes) / static_cast<double>(N) : 0.0;
                if (cpu_cnt) {
                    js += static_cast<double>(static_cast<std::uint32_t>(C - cpu_cnt)) / static_cast<double>(C);
                    js /= 2;
                }
            } else {
                js = static_cast<double>(min_nodes) / static_cast<double>(N);
                if (cpu_cnt) {
                    js += static_cast<double>(cpu_cnt) / static_cast<double>(C);
                    js /= 2;
                }
            }
            if (js < .0)
                js = 0.0;
            else if (js > 1.0)
                js = 1.0;
            f.js = js;
        }
        const ms::partition_info& p = parts[j.partition];
        if (p.priority_job_factor && w.partition)
            f.part = has(ms::priority_flag::no_normal_part) ? p.priority_job_factor : p.norm_priority;
        if (w.assoc)
            f.assoc = has(ms::priority_flag::no_normal_assoc) ? assoc_prio[j.association] : assoc_norm[j.association];
        const ms::qos_info& q = qos[j.qos];
        if (q.priority && w.qos) f.qos = has(ms::priority_flag::no_normal_qos) ? q.priority : q.norm_priority;
        return f;
    }

    /// `_get_tres_factors` then `_get_tres_prio_weighted` for partition `p`: every TRES in id
    /// order, the request over the partition's count (or the raw count), times its weight.
    [[nodiscard]] double tres(const mfprio::job& j, std::uint32_t p) const {
        if (s.tres.count == 0) return 0.0;
        double tmp_tres = 0.0;
        for (std::uint32_t i = 0; i < tres_kinds; ++i) {
            const double value = j.tres_row == mfprio::no_tres_row ? 0.0 : requests[std::size_t{j.tres_row} * tres_kinds + i];
            double f = 0.0;
            if (has(ms::priority_flag::no_normal_tres))
                f = value;
            else if (value && part_totals[p][i])
                f = value / part_totals[p][i];
            f *= tres_w[i];
            tmp_tres += f;
        }
        return tmp_tres;
    }

    /// Floor at 1, clamp to 2^32-1, truncate. Slurm's (uint64_t) cast of a NaN sum gives 2^63
    /// on x86-64 (with gcc and clang alike), written out here because the cast is undefined in
    /// C++; of a sum past 2^64, 2^63 too with clang (gcc's code gives 0 there, then a priority
    /// of 0: mfprio takes the clamp).
    static std::uint32_t finish(double priority) {
        if (priority < 1) priority = 1;
        std::uint64_t tmp_64 = priority < 0x1p64 ? static_cast<std::uint64_t>(priority) : std::uint64_t{1} << 63;
        if (tmp_64 > 0xffffffff) tmp_64 = 0xffffffff;
        return static_cast<std::uint32_t>(tmp_64);
    }

    /// `_get_priority_internal`'s scalar priority; held jobs 0, administrator-set passed.
    [[nodiscard]] std::uint32_t priority(const mfprio::job& j) const {
        if (j.state == mfprio::job_state::held) return 0;
        if (j.admin_priority > 0) return j.admin_priority;
        factors f = raw(j);
        f.age *= static_cast<double>(w.age);
        f.assoc *= static_cast<double>(w.assoc);
        f.fs *= static_cast<double>(w.fairshare);
        f.js *= static_cast<double>(w.job_size);
        f.part *= static_cast<double>(w.partition);
        f.qos *= static_cast<double>(w.qos);
        const double priority = f.age + f.assoc + f.fs + f.js + f.part + f.qos + tres(j, j.partition) +
                                static_cast<double>(j.site_factor) - static_cast<double>(j.nice);
        return finish(priority);
    }

    /// The priority array: entry p * #QOS + q = part term + (age + assoc + fs + js + QOS term
    /// + the partition's TRES + site - nice); the QOS term of a QOS without priority (or with
    /// the QOS weight 0) is the job's own weighted QOS factor.
    [[nodiscard]] std::vector<std::uint32_t> array(std::size_t i) const {
        const mfprio::job& j = jobs[i];
        std::vector<std::uint32_t> out;
        const auto& pl = job_parts[i];
        const auto& ql = job_qos[i];
        if (pl.empty() && ql.empty()) return out;
        factors f = raw(j);
        const std::size_t np = pl.empty() ? 1 : pl.size();
        const std::size_t nq = ql.empty() ? 1 : ql.size();
        for (std::size_t pi = 0; pi < np; ++pi)
            for (std::size_t qi = 0; qi < nq; ++qi) {
                if (j.state == mfprio::job_state::held) {
                    out.push_back(0);
                    continue;
                }
                if (j.admin_priority > 0) {
                    out.push_back(j.admin_priority);
                    continue;
                }
                const std::uint32_t p = pl.empty() ? j.partition : pl[pi];
                const std::uint32_t q = ql.empty() ? j.qos : ql[qi];
                const double part = (has(ms::priority_flag::no_normal_part) ? parts[p].priority_job_factor
                                                                            : parts[p].norm_priority) *
                                    static_cast<double>(w.partition);
                double qos_term = f.qos * static_cast<double>(w.qos);
                if (qos[q].priority && w.qos)
                    qos_term = (has(ms::priority_flag::no_normal_qos) ? qos[q].priority : qos[q].norm_priority) *
                               static_cast<double>(w.qos);
                const double entry = part + (f.age * static_cast<double>(w.age) + f.assoc * static_cast<double>(w.assoc) +
                                             f.fs * static_cast<double>(w.fairshare) +
                                             f.js * static_cast<double>(w.job_size) + qos_term + tres(j, p) +
                                             static_cast<double>(j.site_factor) - static_cast<double>(j.nice));
                out.push_back(finish(entry));
            }
        return out;
    }
};

std::string describe(const world& x, std::size_t i, std::uint32_t got, std::uint32_t want) {
    const mfprio::job& j = x.jobs[i];
    return "job " + std::to_string(j.id) + ": " + std::to_string(got) + ", Slurm's formula gives " +
           std::to_string(want) + " (partition " + std::to_string(j.partition) + ", qos " + std::to_string(j.qos) +
           ", accrue " + std::to_string(j.accrue_time) + ", nodes " + std::to_string(j.min_nodes) + ", cpus " +
           std::to_string(j.cpus) + ", limit " + std::to_string(j.time_limit) + ")";
}

/// The first job whose value from `got` differs from the plain one, described; empty when none.
template <class Got>
std::string first_difference(const world& x, Got&& got) {
    for (std::size_t i = 0; i < x.jobs.size(); ++i) {
        const std::uint32_t want = x.priority(x.jobs[i]);
        const std::uint32_t have = got(i);
        if (have != want) return describe(x, i, have, want);
    }
    return {};
}

} // namespace

TEST_CASE("slurm: the engine equals Slurm's plain formula job by job on random worlds") {
    std::size_t floored = 0, clamped = 0, computed = 0, arrays = 0;
    for (std::uint32_t seed = 1; seed <= 60; ++seed) {
        CAPTURE(seed);
        const world x(seed);
        const auto e = ms::make_multifactor(x.w, x.s);
        CHECK(first_difference(x, [&](std::size_t i) { return e.priority(x.jobs[i], x.c).value; }) == "");
        std::vector<priority_value> out(x.jobs.size());
        e.batch(std::span<const mfprio::job>(x.jobs), x.c, std::span<priority_value>(out));
        CHECK(first_difference(x, [&](std::size_t i) { return out[i].value; }) == "");
        for (const auto& v : out) {
            floored += v.status == priority_status::floored;
            clamped += v.status == priority_status::clamped;
            computed += v.status == priority_status::computed;
        }
        // the priority arrays of the multi-partition and multi-QOS jobs
        std::string array_difference;
        for (std::size_t i = 0; i < x.jobs.size() && array_difference.empty(); ++i) {
            const std::vector<std::uint32_t> want = x.array(i);
            std::vector<priority_value> got(want.size());
            const ms::job_lists lists{x.job_parts[i], x.job_qos[i]};
            const std::size_t n = ms::priority_array(e, x.jobs[i], lists, x.c, std::span<priority_value>(got));
            arrays += n != 0;
            if (n != want.size()) {
                array_difference = "job " + std::to_string(x.jobs[i].id) + ": " + std::to_string(n) + " entries, want " +
                                   std::to_string(want.size());
                break;
            }
            for (std::size_t k = 0; k < n; ++k)
                if (got[k].value != want[k]) {
                    array_difference = "entry " + std::to_string(k) + " of " + describe(x, i, got[k].value, want[k]);
                    break;
                }
        }
        CHECK(array_difference == "");
    }
    // every way out of the sum was taken
    CHECK(floored > 100);
    CHECK(clamped > 100);
    CHECK(computed > 10000);
    CHECK(arrays > 10000);
}

TEST_CASE("slurm: the compile-time-weights engine equals Slurm's plain formula on random worlds") {
    // Seed 004's (MSU) weights: age 60000, fair-share 60000, job size 0, partition 0, QOS 3000.
    for (std::uint32_t seed = 101; seed <= 120; ++seed) {
        CAPTURE(seed);
        world x(seed);
        x.w = {60000, 0, 60000, 0, 0, 3000};
        const auto e = ms::make_fixed_multifactor<60000, 0, 60000, 0, 0, 3000>(x.s);
        std::vector<priority_value> out(x.jobs.size());
        e.batch(std::span<const mfprio::job>(x.jobs), x.c, std::span<priority_value>(out));
        CHECK(first_difference(x, [&](std::size_t i) { return out[i].value; }) == "");
        CHECK(first_difference(x, [&](std::size_t i) { return e.priority(x.jobs[i], x.c).value; }) == "");
    }
}
