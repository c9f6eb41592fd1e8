// The conformance suite (cpp-sort's every_* habit): one templated property check run over
// every Slurm factor policy, on a few hundred generated jobs (fixed-seed RNG) in a context with
// several partitions, QOS and associations, including unknown indices and the edge values of
// each field. Properties:
//   - the factor_policy concept holds for mfprio::job and the call operator is noexcept;
//   - the result is finite (and the same when asked twice: factors are pure);
//   - the result is in [0, 1] for the normalized factors: age, association (normalized),
//     fair-share, job size (every mode), partition (normalized), QOS (normalized).
//     Not for TRES: Slurm does not clamp a TRES factor (a job may ask more than its partition
//     has, and NO_NORMAL_TRES weighs raw counts); not for site and nice: they are unweighted
//     integers added to the sum as is; not for the NO_NORMAL_* variants, which are raw values;
//   - monotonicity where Slurm's formula declares it (separate test cases below);
//   - a factor's block hook gives its call operator's values bit for bit, and an engine's
//     batch gives its one-job path's priorities and sums.
#include <mfprio/core/factor.hpp>
#include <mfprio/core/job.hpp>
#include <mfprio/slurm/age.hpp>
#include <mfprio/slurm/association.hpp>
#include <mfprio/slurm/context.hpp>
#include <mfprio/slurm/fairshare.hpp>
#include <mfprio/slurm/job_size.hpp>
#include <mfprio/slurm/multifactor.hpp>
#include <mfprio/slurm/nice.hpp>
#include <mfprio/slurm/partition.hpp>
#include <mfprio/slurm/qos.hpp>
#include <mfprio/slurm/site.hpp>
#include <mfprio/slurm/tres.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <doctest/doctest.h>

namespace {

namespace ms = mfprio::slurm;
using mfprio::infinite32;
using mfprio::no_val32;
using ms::context;

constexpr std::int64_t now = 1'700'000'000;
constexpr std::uint32_t nodes = 64;
constexpr std::uint32_t cpus = 4096;
constexpr std::size_t tres_count = 10; // 8 fixed + license (8) + gres/gpu (9)

/// The generated world: tables, jobs and the context viewing them. Generated with mt19937_64
/// (fully specified by the standard) and plain modulo, never std::*_distribution, whose
/// output differs between standard libraries.
struct world {
    std::vector<std::array<double, tres_count>> partition_tres;
    std::vector<ms::partition_info> partitions;
    std::vector<ms::qos_info> qos;
    std::vector<double> fairshare;
    std::vector<std::uint32_t> assoc_priority;
    std::vector<double> assoc_norm;
    std::vector<double> job_tres; ///< the TRES request table: tres_count counts per job
    std::vector<mfprio::job> jobs;

    world() {
        std::mt19937_64 rng(20130753);
        const auto below = [&](std::uint64_t n) { return static_cast<std::uint32_t>(rng() % n); };

        // Partitions: PriorityJobFactor {1, 10, 100, 0, 65533}, MaxTime {60, UNLIMITED, 0, 1440, 7},
        // normalized by max(1, max pjf) = 65533.
        const std::array<std::uint32_t, 5> pjf{1, 10, 100, 0, 65533};
        const std::array<std::uint32_t, 5> max_time{60, infinite32, 0, 1440, 7};
        partition_tres.resize(pjf.size());
        for (std::size_t p = 0; p < pjf.size(); ++p) {
            auto& t = partition_tres[p];
            t.fill(0.0);
            t[ms::tres_id::cpu] = 1024.0 * static_cast<double>(p + 1);
            t[ms::tres_id::mem] = 262144.0 * static_cast<double>(p + 1);
            t[ms::tres_id::node] = 16.0;
            t[8] = 20.0;                       // licenses: system-wide
            t[9] = p % 2 == 0 ? 8.0 : 0.0;     // GPUs in even partitions only
        }
        for (std::size_t p = 0; p < pjf.size(); ++p) {
            ms::partition_info info{};
            info.priority_job_factor = pjf[p];
            info.norm_priority = ms::normalize_priority(pjf[p], 65533);
            info.priority_tier = static_cast<std::uint32_t>(p % 3);
            info.max_time = max_time[p];
            info.tres_totals = partition_tres[p];
            partitions.push_back(info);
        }
        // QOS priorities {0, 10, 100, 1000}: max 1000.
        for (std::uint32_t v : {0u, 10u, 100u, 1000u}) qos.push_back({v, ms::normalize_priority(v, 1000), 1.0});
        // 50 associations: fair-share k / 2^20 in [0, 1], priorities 0..1000.
        std::uint32_t assoc_max = 0;
        for (int a = 0; a < 50; ++a) {
            fairshare.push_back(static_cast<double>(below((1u << 20) + 1)) / static_cast<double>(1u << 20));
            assoc_priority.push_back(below(1001));
            assoc_max = std::max(assoc_max, assoc_priority.back());
        }
        for (auto v : assoc_priority) assoc_norm.push_back(ms::normalize_priority(v, assoc_max));

        // Jobs. Indices run one or two past the tables (unknown partition/QOS/association).
        constexpr std::size_t job_count = 400;
        job_tres.assign(job_count * tres_count, 0.0);
        jobs.resize(job_count);
        for (std::size_t k = 0; k < job_count; ++k) {
            mfprio::job& j = jobs[k];
            j.id = static_cast<std::uint32_t>(k + 1);
            j.partition = static_cast<std::uint16_t>(below(partitions.size() + 1));
            j.qos = static_cast<std::uint16_t>(below(qos.size() + 1));
            j.association = below(fairshare.size() + 2);
            switch (below(5)) {
            case 0: j.accrue_time = 0; break;                                   // not accruing
            case 1: j.accrue_time = now + below(1000000) + 1; break;            // future
            default: j.accrue_time = now - static_cast<std::int64_t>(below(3000000)); break;
            }
            j.min_nodes = 1 + below(2 * nodes);          // up to twice the cluster
            switch (below(4)) {
            case 0: j.cpus = 0; break;                   // unknown CPU count
            case 1: j.cpus = cpus + 1 + below(cpus); break; // more than the cluster (the wrap quirk)
            default: j.cpus = 1 + below(cpus); break;
            }
            switch (below(6)) {
            case 0: j.time_limit = no_val32; break;
            case 1: j.time_limit = infinite32; break;
            case 2: j.time_limit = 0; break;
            default: j.time_limit = 1 + below(100000); break;
            }
            // nice and site factor anywhere in [-2147483645, 2147483645]
            j.nice = static_cast<std::int32_t>(std::int64_t{below(2 * 2147483645ull + 1)} - 2147483645);
            j.site_factor = static_cast<std::int32_t>(std::int64_t{below(2 * 2147483645ull + 1)} - 2147483645);
            double* t = &job_tres[k * tres_count];
            t[ms::tres_id::cpu] = j.cpus;
            t[ms::tres_id::mem] = below(1u << 22);
            t[8] = below(30);
            t[9] = below(12);
            // Row k is job k's; one job in 20 has no row, one in 40 a row past the table.
            j.tres_row = k % 20 == 7 ? mfprio::no_tres_row : static_cast<std::uint32_t>(k % 40 == 13 ? job_count + k : k);
        }
    }

    [[nodiscard]] context view(std::int64_t at = now) const {
        context c{};
        c.now = at;
        c.node_count = nodes;
        c.cluster_cpus = cpus;
        c.partitions = partitions;
        c.qos = qos;
        c.fairshare = fairshare;
        c.assoc_priority = assoc_priority;
        c.assoc_priority_norm = assoc_norm;
        c.tres_requests = {job_tres, static_cast<std::uint32_t>(tres_count), {}};
        return c;
    }
};

const world& the_world() {
    static const world w;
    return w;
}

ms::tres_factor make_tres(bool normalize) {
    ms::tres_factor t{};
    t.add(ms::tres_id::cpu, 1000.0);
    t.add(ms::tres_id::mem, 20.0 / 1024.0);
    t.add(8, 400.0);
    t.add(9, -250.0); // negative weights are allowed
    t.normalize = normalize;
    return t;
}

/// One factor under test.
template <class F>
struct entry {
    const char* label;
    F factor;
    bool normalized; ///< must stay in [0, 1]
};

/// Every Slurm factor policy, in every mode.
auto all_factors() {
    return std::make_tuple(
        entry<ms::age_factor>{"age (7-0)", ms::age_factor{604800}, true},
        entry<ms::age_factor>{"age (0)", ms::age_factor{0}, true},
        entry<ms::age_factor>{"age (1 s)", ms::age_factor{1}, true},
        entry<ms::association_factor>{"assoc", ms::association_factor{true}, true},
        entry<ms::association_factor>{"assoc NO_NORMAL_ASSOC", ms::association_factor{false}, false},
        entry<ms::fairshare_factor>{"fairshare", ms::fairshare_factor{}, true},
        entry<ms::job_size_factor>{"job size favor large", ms::job_size_factor{false, false}, true},
        entry<ms::job_size_factor>{"job size favor small", ms::job_size_factor{true, false}, true},
        entry<ms::job_size_factor>{"job size favor small, Slurm 22.05", ms::job_size_factor{true, false, true}, true},
        entry<ms::job_size_factor>{"job size SMALL_RELATIVE_TO_TIME", ms::job_size_factor{false, true}, true},
        entry<ms::job_size_factor>{"job size SMALL_RELATIVE_TO_TIME favor small", ms::job_size_factor{true, true}, true},
        entry<ms::partition_factor>{"partition", ms::partition_factor{true}, true},
        entry<ms::partition_factor>{"partition NO_NORMAL_PART", ms::partition_factor{false}, false},
        entry<ms::qos_factor>{"qos", ms::qos_factor{true}, true},
        entry<ms::qos_factor>{"qos NO_NORMAL_QOS", ms::qos_factor{false}, false},
        entry<ms::tres_factor>{"tres", make_tres(true), false},
        entry<ms::tres_factor>{"tres NO_NORMAL_TRES", make_tres(false), false},
        entry<ms::site_factor>{"site", ms::site_factor{}, false},
        entry<ms::nice_factor>{"nice", ms::nice_factor{}, false});
}

template <class F>
void check_conformance(const entry<F>& e, const world& w) {
    static_assert(mfprio::factor_policy<F, mfprio::job, context>);
    static_assert(noexcept(std::declval<const F&>()(std::declval<const mfprio::job&>(), std::declval<const context&>())));
    INFO("factor: ", e.label);
    const context c = w.view();
    std::size_t not_finite = 0, out_of_range = 0, impure = 0;
    std::size_t first_bad = w.jobs.size();
    for (std::size_t k = 0; k < w.jobs.size(); ++k) {
        const double v = e.factor(w.jobs[k], c);
        const bool finite = std::isfinite(v);
        const bool in_range = v >= 0.0 && v <= 1.0;
        const bool pure = e.factor(w.jobs[k], c) == v;
        not_finite += finite ? 0 : 1;
        out_of_range += (e.normalized && !in_range) ? 1 : 0;
        impure += pure ? 0 : 1;
        if ((!finite || (e.normalized && !in_range) || !pure) && first_bad == w.jobs.size()) first_bad = k;
    }
    INFO("first failing job index: ", first_bad);
    CHECK(not_finite == 0);
    CHECK(out_of_range == 0);
    CHECK(impure == 0);
}

/// Counts the adjacent pairs of `values` that break non-decreasing (sign +1) or
/// non-increasing (sign -1) order.
std::size_t order_breaks(const std::vector<double>& values, int sign) {
    std::size_t breaks = 0;
    for (std::size_t k = 1; k < values.size(); ++k)
        if (sign > 0 ? values[k] < values[k - 1] : values[k] > values[k - 1]) ++breaks;
    return breaks;
}

} // namespace

TEST_CASE("every factor: concept, noexcept, finite, pure, and in [0, 1] when normalized") {
    const world& w = the_world();
    REQUIRE(w.jobs.size() >= 300);
    std::apply([&](const auto&... e) { (check_conformance(e, w), ...); }, all_factors());
}

TEST_CASE("every factor: the generated jobs reach the edge cases") {
    // The suite means something only if the generator produced the awkward jobs.
    const world& w = the_world();
    std::size_t not_accruing = 0, future = 0, unknown_part = 0, unknown_qos = 0, unknown_assoc = 0, over_cpus = 0,
                over_nodes = 0, zero_cpus = 0, zero_limit = 0, unlimited = 0, no_limit = 0;
    for (const auto& j : w.jobs) {
        not_accruing += j.accrue_time == 0;
        future += j.accrue_time > now;
        unknown_part += j.partition >= w.partitions.size();
        unknown_qos += j.qos >= w.qos.size();
        unknown_assoc += j.association >= w.fairshare.size();
        over_cpus += j.cpus > cpus;
        over_nodes += j.min_nodes > nodes;
        zero_cpus += j.cpus == 0;
        zero_limit += j.time_limit == 0;
        unlimited += j.time_limit == infinite32;
        no_limit += j.time_limit == no_val32;
    }
    CHECK(not_accruing > 0);
    CHECK(future > 0);
    CHECK(unknown_part > 0);
    CHECK(unknown_qos > 0);
    CHECK(unknown_assoc > 0);
    CHECK(over_cpus > 0);
    CHECK(over_nodes > 0);
    CHECK(zero_cpus > 0);
    CHECK(zero_limit > 0);
    CHECK(unlimited > 0);
    CHECK(no_limit > 0);
    // ... and TRES really goes past 1 for some job (why it is not in the range check).
    bool above_one = false;
    ms::tres_factor cpu_only{};
    cpu_only.add(ms::tres_id::cpu, 1.0);
    for (const auto& j : w.jobs) above_one = above_one || cpu_only(j, w.view()) > 1.0;
    CHECK(above_one);
}

TEST_CASE("every factor: site and nice are the job's integers, unscaled") {
    const world& w = the_world();
    const context c = w.view();
    std::size_t wrong = 0;
    for (const auto& j : w.jobs) {
        wrong += ms::site_factor{}(j, c) != static_cast<double>(j.site_factor);
        wrong += ms::nice_factor{}(j, c) != -static_cast<double>(j.nice);
    }
    CHECK(wrong == 0);
}

TEST_CASE("every factor: age is non-decreasing in now") {
    const world& w = the_world();
    for (const ms::age_factor f : {ms::age_factor{604800}, ms::age_factor{0}, ms::age_factor{1}, ms::age_factor{1209600}}) {
        CAPTURE(f.max_age);
        std::size_t breaks = 0;
        for (const auto& j : w.jobs) {
            std::vector<double> v;
            for (std::int64_t t = now - 2000000; t <= now + 4000000; t += 50000) v.push_back(f(j, w.view(t)));
            breaks += order_breaks(v, +1);
        }
        CHECK(breaks == 0);
    }
}

TEST_CASE("every factor: job size favoring large is non-decreasing in nodes and CPUs") {
    // CPUs from 1: a CPU count of 0 means "unknown" and switches the formula to nodes alone
    // (n/N can exceed (n/N + 1/C)/2), so 0 -> 1 is not a step of the same formula.
    const world& w = the_world();
    for (const bool relative : {false, true}) {
        const ms::job_size_factor f{false, relative};
        CAPTURE(relative);
        std::size_t breaks = 0;
        for (const auto& base : w.jobs) {
            mfprio::job j = base;
            if (j.cpus == 0) j.cpus = 1;
            std::vector<double> by_nodes, by_cpus;
            for (std::uint32_t n = 1; n <= 2 * nodes; ++n) {
                j.min_nodes = n;
                by_nodes.push_back(f(j, w.view()));
            }
            j.min_nodes = base.min_nodes;
            for (std::uint32_t c = 1; c <= 2 * cpus; c += 7) {
                j.cpus = c;
                by_cpus.push_back(f(j, w.view()));
            }
            breaks += order_breaks(by_nodes, +1) + order_breaks(by_cpus, +1);
        }
        CHECK(breaks == 0);
    }
}

TEST_CASE("every factor: job size favoring small is non-increasing in nodes and CPUs") {
    // CPUs from 1 (see above) and, without SMALL_RELATIVE_TO_TIME, up to C only: past C the
    // uint32 (C - c) wraps and the factor jumps to 1 (reference slurm.md 7.6), by design.
    const world& w = the_world();
    for (const bool relative : {false, true}) {
        const ms::job_size_factor f{true, relative};
        CAPTURE(relative);
        const std::uint32_t cpu_limit = relative ? 2 * cpus : cpus;
        std::size_t breaks = 0;
        for (const auto& base : w.jobs) {
            mfprio::job j = base;
            j.cpus = std::clamp<std::uint32_t>(j.cpus, 1, cpu_limit);
            std::vector<double> by_nodes, by_cpus;
            for (std::uint32_t n = 1; n <= 2 * nodes; ++n) {
                j.min_nodes = n;
                by_nodes.push_back(f(j, w.view()));
            }
            j.min_nodes = base.min_nodes;
            for (std::uint32_t c = 1; c <= cpu_limit; c += 7) {
                j.cpus = c;
                by_cpus.push_back(f(j, w.view()));
            }
            breaks += order_breaks(by_nodes, -1) + order_breaks(by_cpus, -1);
        }
        CHECK(breaks == 0);
    }
    // The wrap itself: one CPU past the cluster gives 1 (would be a break above).
    mfprio::job j{};
    j.min_nodes = 1;
    j.cpus = cpus + 1;
    CHECK(ms::job_size_factor{true, false}(j, the_world().view()) == 1.0);
}

TEST_CASE("every factor: the partition factor is non-decreasing in PriorityJobFactor") {
    const world& w = the_world();
    const context c = w.view();
    for (const bool normalize : {true, false}) {
        const ms::partition_factor f{normalize};
        CAPTURE(normalize);
        std::size_t breaks = 0;
        for (const auto& base : w.jobs) {
            mfprio::job a = base, b = base;
            for (std::uint32_t pa = 0; pa < w.partitions.size(); ++pa)
                for (std::uint32_t pb = 0; pb < w.partitions.size(); ++pb) {
                    if (w.partitions[pa].priority_job_factor > w.partitions[pb].priority_job_factor) continue;
                    a.partition = pa;
                    b.partition = pb;
                    breaks += f(a, c) > f(b, c);
                }
        }
        CHECK(breaks == 0);
    }
}

TEST_CASE("every factor: the QOS factor is non-decreasing in QOS priority") {
    const world& w = the_world();
    const context c = w.view();
    for (const bool normalize : {true, false}) {
        const ms::qos_factor f{normalize};
        CAPTURE(normalize);
        std::size_t breaks = 0;
        for (std::uint32_t qa = 0; qa < w.qos.size(); ++qa)
            for (std::uint32_t qb = 0; qb < w.qos.size(); ++qb) {
                if (w.qos[qa].priority > w.qos[qb].priority) continue;
                mfprio::job a{}, b{};
                a.qos = qa;
                b.qos = qb;
                breaks += f(a, c) > f(b, c);
            }
        CHECK(breaks == 0);
    }
}

namespace {
template <class F>
void check_block_hook(const entry<F>& e, const world& w) {
    INFO("factor: ", e.label);
    constexpr std::size_t n = mfprio::block_size;
    const context c = w.view();
    std::size_t differ = 0, blocks = 0;
    for (std::size_t base = 0; base + n <= w.jobs.size(); base += n, ++blocks) {
        std::array<double, n> out{};
        const std::span<const mfprio::job, n> jobs(w.jobs.data() + base, n);
        if constexpr (mfprio::prepared_block_factor_policy<F, mfprio::job, context>)
            e.factor.block(e.factor.prepare(c), jobs, c, std::span<double, n>(out));
        else
            e.factor.block(jobs, c, std::span<double, n>(out));
        for (std::size_t i = 0; i < n; ++i)
            differ += std::bit_cast<std::uint64_t>(out[i]) != std::bit_cast<std::uint64_t>(e.factor(w.jobs[base + i], c));
    }
    CHECK(blocks >= 10);
    CHECK(differ == 0);
}
} // namespace

TEST_CASE("every factor: a block hook gives the call operator's values, bit for bit") {
    const world& w = the_world();
    std::size_t hooked = 0;
    std::apply([&](const auto&... e) {
        (
            [&] {
                using F = std::remove_cvref_t<decltype(e.factor)>;
                if constexpr (mfprio::block_factor_policy<F, mfprio::job, context> ||
                              mfprio::prepared_block_factor_policy<F, mfprio::job, context>) {
                    check_block_hook(e, w);
                    ++hooked;
                }
            }(),
            ...);
    }, all_factors());
    // age (3 modes), job size (5 modes), partition (2), QOS (2) and TRES (2 modes) have one.
    CHECK(hooked == 14);
}

namespace {
/// An engine's batch against its one-job path over the generated jobs (whole blocks and a
/// tail): the same priorities, and the same raw sums bit for bit.
template <class E>
void check_batch(const E& e, const world& w, const char* label) {
    INFO("engine: ", label);
    const context c = w.view();
    const std::span<const mfprio::job> jobs(w.jobs);
    REQUIRE(jobs.size() % mfprio::block_size != 0); // a tail too
    std::vector<mfprio::priority_value> out(jobs.size());
    std::vector<double> sums(jobs.size());
    e.batch(jobs, c, std::span<mfprio::priority_value>(out));
    e.batch_scores(jobs, c, std::span<double>(sums));
    std::size_t differ = 0, computed = 0;
    for (std::size_t k = 0; k < jobs.size(); ++k) {
        differ += !(out[k] == e.priority(jobs[k], c));
        differ += std::bit_cast<std::uint64_t>(sums[k]) != std::bit_cast<std::uint64_t>(e.score(jobs[k], c));
        computed += out[k].status == mfprio::priority_status::computed;
    }
    CHECK(differ == 0);
    CHECK(computed > 0); // not every job floored or clamped: the sums were compared for real
}
} // namespace

TEST_CASE("every factor: an engine's batch gives its one-job path's values") {
    const world& w = the_world();
    const ms::weights some{1000, 100, 10000, 1000, 1000, 2000};
    const ms::weights zeros{0, 100, 0, 1000, 0, 2000}; // runtime zero weights are skipped
    ms::settings s{};
    s.tres = make_tres(true);
    check_batch(ms::make_multifactor(some, s), w, "runtime weights");
    check_batch(ms::make_multifactor(zeros, s), w, "runtime weights, some 0");
    check_batch(ms::make_fixed_multifactor<1000, 100, 10000, 1000, 1000, 2000>(s), w, "fixed weights");
    check_batch(ms::make_fixed_multifactor<0, 0, 10000, 0, 1000, 0>(s), w, "fixed weights, some 0");
    ms::settings raw = s;
    raw.favor_small = true;
    raw.flags.set(ms::priority_flag::no_normal_assoc)
        .set(ms::priority_flag::no_normal_part)
        .set(ms::priority_flag::no_normal_qos)
        .set(ms::priority_flag::no_normal_tres);
    check_batch(ms::make_multifactor(some, raw), w, "favor small, NO_NORMAL_*");
    ms::settings relative = s;
    relative.flags.set(ms::priority_flag::small_relative_to_time);
    check_batch(ms::make_multifactor(some, relative), w, "SMALL_RELATIVE_TO_TIME");
    ms::settings no_tres = s;
    no_tres.tres = {};
    no_tres.max_age = 0;
    check_batch(ms::make_multifactor(some, no_tres), w, "no TRES weights, PriorityMaxAge=0");
}
