// Tests for mfprio/slurm/multifactor.hpp: Slurm's engine (reference slurm.md 1), the seed
// configurations, the order of addition, floor/clamp/overflow, held and admin-set jobs,
// priority arrays of multi-partition and multi-QOS jobs (reference 1.2), INCR_ONLY and which
// jobs the periodic pass recalculates.
#include <mfprio/slurm/multifactor.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include <doctest/doctest.h>

namespace {

namespace ms = mfprio::slurm;
using mfprio::priority_status;
using mfprio::priority_value;
using ms::context;

constexpr std::int64_t now = 1'700'000'000;
constexpr std::int64_t day = 86400;

/// Tables for the tests: partitions by PriorityJobFactor (normalized by max(1, max)), QOS by
/// priority (normalized by the max), associations by fair-share factor and priority.
struct tables {
    std::vector<std::vector<double>> part_tres;
    std::vector<ms::partition_info> partitions;
    std::vector<ms::qos_info> qos;
    std::vector<double> fairshare;
    std::vector<std::uint32_t> assoc_priority;
    std::vector<double> assoc_norm;
    std::uint32_t node_count = 8;
    std::uint32_t cpus = 256;

    void add_partition(std::uint32_t pjf, std::uint32_t tier, std::vector<double> tres = {}) {
        ms::partition_info p{};
        p.priority_job_factor = pjf;
        p.priority_tier = tier;
        partitions.push_back(p);
        part_tres.push_back(std::move(tres));
    }
    void add_qos(std::uint32_t priority) { qos.push_back({priority, 0.0, 1.0}); }
    void add_assoc(double fs, std::uint32_t priority = 0) {
        fairshare.push_back(fs);
        assoc_priority.push_back(priority);
    }
    context view(std::int64_t at = now) {
        std::uint32_t pmax = 1, qmax = 0, amax = 0;
        for (const auto& p : partitions) pmax = std::max(pmax, p.priority_job_factor);
        for (const auto& q : qos) qmax = std::max(qmax, q.priority);
        for (auto a : assoc_priority) amax = std::max(amax, a);
        for (std::size_t i = 0; i < partitions.size(); ++i) {
            partitions[i].norm_priority = ms::normalize_priority(partitions[i].priority_job_factor, pmax);
            partitions[i].tres_totals = part_tres[i];
        }
        for (auto& q : qos) q.norm_priority = ms::normalize_priority(q.priority, qmax);
        assoc_norm.clear();
        for (auto a : assoc_priority) assoc_norm.push_back(ms::normalize_priority(a, amax));
        context c{};
        c.now = at;
        c.node_count = node_count;
        c.cluster_cpus = cpus;
        c.partitions = partitions;
        c.qos = qos;
        c.fairshare = fairshare;
        c.assoc_priority = assoc_priority;
        c.assoc_priority_norm = assoc_norm;
        return c;
    }
};

/// `c` with a one-row TRES request table holding `row` (counts by TRES id): the row of every
/// job whose tres_row is 0.
context with_requests(context c, std::span<const double> row) {
    c.tres_requests = {row, static_cast<std::uint32_t>(row.size()), {}};
    return c;
}

// ---------------------------------------------------------------------------------------
// Seed 000's example configuration: PriorityWeightAge=1000, PriorityWeightFairshare=10000,
// PriorityWeightJobSize=1000, PriorityWeightPartition=1000, PriorityWeightQOS=0,
// PriorityMaxAge=14-0 (1209600 s), PriorityFavorSmall=NO.
// ---------------------------------------------------------------------------------------
constexpr ms::weights seed000_weights{1000, 0, 10000, 1000, 1000, 0};
ms::settings seed000_settings() {
    ms::settings s{};
    s.max_age = 1209600;
    return s;
}
/// 8 nodes, 256 CPUs; partitions PriorityJobFactor {1, 3, 4} (norms 0.25, 0.75, 1);
/// QOS {0, 50} (so the zero QOS weight has something to ignore); association 0 has the
/// fair-share factor of seed 000's user 4, 2^(-.25/.25) = 0.5, and association 1 factor 1.
tables seed000_tables() {
    tables t;
    t.add_partition(1, 1);
    t.add_partition(3, 1);
    t.add_partition(4, 1);
    t.add_qos(0);
    t.add_qos(50);
    t.add_assoc(0.5);
    t.add_assoc(1.0);
    return t;
}
/// A week in the queue, user 4's association, partition 1, 2 nodes and 64 CPUs, QOS 1.
mfprio::job seed000_job() {
    mfprio::job j{};
    j.id = 4;
    j.association = 0;
    j.partition = 1;
    j.qos = 1;
    j.accrue_time = now - 7 * day;
    j.min_nodes = 2;
    j.cpus = 64;
    return j;
}
// By hand (reference slurm.md 1, left to right):
//   age  = 604800/1209600 = 0.5                  x 1000  = 500
//   fs   = 0.5                                   x 10000 = 5000
//   js   = (2/8 + 64/256)/2 = 0.25               x 1000  = 250
//   part = 3/4 = 0.75                            x 1000  = 750
//   qos  = 50/50 = 1 but PriorityWeightQOS=0             = 0
//   sum  = 500 + 0 + 5000 + 250 + 750 + 0 + 0 + 0 - 0 = 6500 (all exact)
constexpr double seed000_sum = 6500.0;

} // namespace

TEST_CASE("slurm: multifactor defaults") {
    const ms::weights w{};
    CHECK(w.age == 0u);
    CHECK(w.assoc == 0u);
    CHECK(w.fairshare == 0u);
    CHECK(w.job_size == 0u);
    CHECK(w.partition == 0u);
    CHECK(w.qos == 0u);
    const ms::settings s{};
    CHECK(s.max_age == 604800u);
    CHECK_FALSE(s.favor_small);
    CHECK(s.flags == ms::priority_flags{}); // FAIR_TREE only
    CHECK(s.tres.count == 0u);
    // Every weight 0: nothing but the floor.
    auto t = seed000_tables();
    CHECK(ms::make_multifactor(w).priority(seed000_job(), t.view()) == priority_value{1u, priority_status::floored});
}

TEST_CASE("slurm: multifactor with seed 000's example configuration") {
    auto t = seed000_tables();
    const context c = t.view();
    const auto e = ms::make_multifactor(seed000_weights, seed000_settings());
    const auto j = seed000_job();
    CHECK(e.score(j, c) == seed000_sum);
    CHECK(e.priority(j, c) == priority_value{6500u, priority_status::computed});

    const auto x = e.explain(j, c);
    REQUIRE(x.terms.size() == 9);
    // Slurm's order of addition: age, assoc, fs, js, part, qos, tres, site, nice
    CHECK(x.terms[0].name == "age");
    CHECK(x.terms[1].name == "assoc");
    CHECK(x.terms[2].name == "fairshare");
    CHECK(x.terms[3].name == "jobsize");
    CHECK(x.terms[4].name == "partition");
    CHECK(x.terms[5].name == "qos");
    CHECK(x.terms[6].name == "tres");
    CHECK(x.terms[7].name == "site");
    CHECK(x.terms[8].name == "nice");
    CHECK(x.terms[0].factor == 0.5);
    CHECK(x.terms[0].contribution == 500.0);
    CHECK(x.terms[2].factor == 0.5);
    CHECK(x.terms[2].weight == 10000.0);
    CHECK(x.terms[2].contribution == 5000.0);
    CHECK(x.terms[3].factor == 0.25);
    CHECK(x.terms[3].contribution == 250.0);
    CHECK(x.terms[4].factor == 0.75);
    CHECK(x.terms[4].contribution == 750.0);
    CHECK(x.terms[5].factor == 0.0); // weight 0: not evaluated
    CHECK(x.terms[5].contribution == 0.0);
    CHECK(x.score == seed000_sum);
    CHECK(x.priority.value == 6500u);

    // Compile-time weights give the same.
    const auto f = ms::make_fixed_multifactor<1000, 0, 10000, 1000, 1000, 0>(seed000_settings());
    CHECK(f.priority(j, c) == priority_value{6500u, priority_status::computed});

    // nice 100: 6500 - 100 = 6400; site 7 on top: 6500 + 7 - 100 = 6407
    auto n = j;
    n.nice = 100;
    CHECK(e.priority(n, c).value == 6400u);
    n.site_factor = 7;
    CHECK(e.priority(n, c).value == 6407u);

    // Two weeks in the queue: age 1 -> 1000; 7000
    auto old = j;
    old.accrue_time = now - 14 * day;
    CHECK(e.priority(old, c).value == 7000u);
}

namespace {
// ---------------------------------------------------------------------------------------
// Seed 004 (MSU ICER): age up to 60000 after 30 days, fair-share 60000 for no recent usage,
// size 100 per CPU and 20 per GB, +3000 for buy-in jobs. Modelled as
//   PriorityWeightAge=60000 PriorityMaxAge=30-0 (2592000 s) PriorityWeightFairshare=60000
//   PriorityWeightQOS=3000 (the buy-in QOS has the highest QOS priority: factor 1.0)
//   PriorityWeightTRES=CPU=100,Mem=20G with PriorityFlags=NO_NORMAL_TRES
//   (Mem=20G: 20/1024 per MB = 0.01953125, exact in binary; reference slurm.md 1.1 TRES)
// ---------------------------------------------------------------------------------------
constexpr ms::weights msu_weights{60000, 0, 60000, 0, 0, 3000};
ms::settings msu_settings() {
    ms::settings s{};
    s.max_age = 30 * 86400; // 2592000
    s.flags.set(ms::priority_flag::no_normal_tres);
    s.tres.add(ms::tres_id::cpu, 100.0);
    s.tres.add(ms::tres_id::mem, 20.0 / 1024.0);
    return s;
}
/// QOS 0 "general" (priority 0), QOS 1 "buyin" (priority 100, the highest: norm 1).
/// Association 0: no recent usage (factor 1.0); association 1: heavy usage (factor 0).
tables msu_tables() {
    tables t;
    t.node_count = 1000;
    t.cpus = 50000;
    t.add_partition(1, 1);
    t.add_qos(0);
    t.add_qos(100);
    t.add_assoc(1.0);
    t.add_assoc(0.0);
    return t;
}
struct msu_job {
    std::array<double, 2> tres{}; // cpu, mem (MB): the job's row of its request table
    mfprio::job j{};
    msu_job(double cpus, double mem_mb, std::uint32_t qos, std::uint32_t assoc, std::int64_t waited) {
        tres = {cpus, mem_mb};
        j.tres_row = 0;
        j.cpus = static_cast<std::uint32_t>(cpus);
        j.qos = static_cast<std::uint16_t>(qos);
        j.association = assoc;
        j.accrue_time = waited < 0 ? 0 : now - waited;
    }
    msu_job(const msu_job&) = delete;
    /// `c` with this job's request table.
    [[nodiscard]] context in(const context& c) const { return with_requests(c, tres); }
};
} // namespace

TEST_CASE("slurm: multifactor reaches seed 004's (MSU) maxima") {
    auto t = msu_tables();
    const context c = t.view();
    const auto e = ms::make_multifactor(msu_weights, msu_settings());

    // Age: 30 days / 30 days = 1 x 60000 = 60000; longer stays 60000
    {
        const msu_job m(0, 0, 0, 1, 30 * day);
        CHECK(e.explain(m.j, m.in(c)).terms[0].contribution == 60000.0);
        CHECK(e.priority(m.j, m.in(c)).value == 60000u);
        const msu_job older(0, 0, 0, 1, 90 * day);
        CHECK(e.priority(older.j, older.in(c)).value == 60000u);
    }
    // Fair-share: no recent usage, factor 1.0 x 60000 = 60000
    {
        const msu_job m(0, 0, 0, 0, -1);
        CHECK(e.explain(m.j, m.in(c)).terms[2].contribution == 60000.0);
        CHECK(e.priority(m.j, m.in(c)).value == 60000u);
    }
    // Size: 1 CPU and 1 GB (1024 MB): 1 x 100 + 1024 x 20/1024 = 100 + 20 = 120
    {
        const msu_job m(1, 1024, 0, 1, -1);
        CHECK(e.explain(m.j, m.in(c)).terms[6].contribution == 120.0);
        CHECK(e.priority(m.j, m.in(c)).value == 120u);
    }
    // Size: 520 CPUs: 520 x 100 = 52000 ("52000+ depending on memory requested")
    {
        const msu_job m(520, 0, 0, 1, -1);
        CHECK(e.explain(m.j, m.in(c)).terms[6].contribution == 52000.0);
        CHECK(e.priority(m.j, m.in(c)).value == 52000u);
    }
    // QOS: the buy-in QOS, 100/100 = 1 x 3000 = 3000; the general QOS (priority 0) adds 0
    {
        const msu_job buyin(0, 0, 1, 1, -1);
        CHECK(e.explain(buyin.j, buyin.in(c)).terms[5].contribution == 3000.0);
        CHECK(e.priority(buyin.j, buyin.in(c)).value == 3000u);
        const msu_job general(0, 0, 0, 1, -1);
        CHECK(e.priority(general.j, general.in(c)) == priority_value{1u, priority_status::floored});
    }
    // "Buy-in account jobs are never below this threshold" (backfill minimum 3000): a fresh
    // 1-CPU buy-in job with a zero fair-share: 0 + 0 + 3000 + 100 = 3100 >= 3000
    {
        const msu_job m(1, 0, 1, 1, -1);
        CHECK(e.priority(m.j, m.in(c)).value == 3100u);
    }
}

TEST_CASE("slurm: multifactor full sum with seed 004's (MSU) weights") {
    auto t = msu_tables();
    const context c = t.view();
    const auto e = ms::make_multifactor(msu_weights, msu_settings());
    // 15 days (0.5 x 60000 = 30000), no recent usage (1.0 x 60000 = 60000),
    // 520 CPUs and 4 GB = 4096 MB (TRES, id order: 0 + 520 x 100 = 52000, + 4096 x 0.01953125
    // = 80 -> 52080), buy-in QOS (3000). Left to right:
    //   0 + 30000 + 0 + 60000 + 0 + 0 + 3000 + 52080 + 0 - 0 = 145080
    const msu_job m(520, 4096, 1, 0, 15 * day);
    const auto x = e.explain(m.j, m.in(c));
    CHECK(x.terms[0].contribution == 30000.0);
    CHECK(x.terms[2].contribution == 60000.0);
    CHECK(x.terms[5].contribution == 3000.0);
    CHECK(x.terms[6].contribution == 52080.0);
    CHECK(x.score == 145080.0);
    CHECK(e.priority(m.j, m.in(c)) == priority_value{145080u, priority_status::computed});
}

TEST_CASE("slurm: multifactor flags and settings reach the factors") {
    tables t;
    t.add_partition(2, 1, {64});
    t.add_partition(4, 1, {64});
    t.add_qos(10);
    t.add_qos(40);
    t.add_assoc(0.5, 5);
    t.add_assoc(0.5, 20);
    mfprio::job j{};
    j.partition = 0;
    j.qos = 0;
    j.association = 0;
    j.min_nodes = 2;
    j.cpus = 64;
    j.time_limit = 4;
    const std::array<double, 1> tres{16};
    j.tres_row = 0;
    const context c = with_requests(t.view(), tres);
    const ms::weights w{0, 1, 0, 1, 1, 1};

    ms::settings s{};
    s.tres.add(ms::tres_id::cpu, 1.0);
    {
        // normalized: assoc 5/20, js (2/8 + 64/256)/2, part 2/4, qos 10/40, tres 16/64
        const auto x = ms::make_multifactor(w, s).explain(j, c);
        CHECK(x.terms[1].factor == 0.25);
        CHECK(x.terms[3].factor == 0.25);
        CHECK(x.terms[4].factor == 0.5);
        CHECK(x.terms[5].factor == 0.25);
        CHECK(x.terms[6].factor == 0.25);
    }
    s.flags.set(ms::priority_flag::no_normal_assoc)
        .set(ms::priority_flag::no_normal_part)
        .set(ms::priority_flag::no_normal_qos)
        .set(ms::priority_flag::no_normal_tres)
        .set(ms::priority_flag::small_relative_to_time);
    s.favor_small = true;
    {
        // raw: assoc 5, part 2, qos 10, tres 16; js favor small relative to time:
        // 1 - max(2*256/8, 64)/4/256 = 1 - 64/4/256 = 1 - 0.0625 = 0.9375
        const auto x = ms::make_multifactor(w, s).explain(j, c);
        CHECK(x.terms[1].factor == 5.0);
        CHECK(x.terms[3].factor == 0.9375);
        CHECK(x.terms[4].factor == 2.0);
        CHECK(x.terms[5].factor == 10.0);
        CHECK(x.terms[6].factor == 16.0);
        // 0 + 5 + 0 + 0.9375 + 2 + 10 + 16 = 33.9375 -> 33
        CHECK(x.score == 33.9375);
        CHECK(x.priority.value == 33u);
    }
    s.flags.set(ms::priority_flag::small_relative_to_time, false);
    {
        // favor small without the time flag: ((8-2)/8 + (256-64)/256)/2 = 0.75
        CHECK(ms::make_multifactor(w, s).explain(j, c).terms[3].factor == 0.75);
    }
    // The settings' max_age reaches the age factor: a day of accrual at PriorityMaxAge=4-0
    j.accrue_time = now - day;
    s.max_age = 4 * 86400;
    CHECK(ms::make_multifactor(ms::weights{1000, 0, 0, 0, 0, 0}, s).explain(j, c).terms[0].factor == 0.25);
}

TEST_CASE("slurm: multifactor adds site and nice last") {
    // Order made observable with a TRES term of 2^53 (CPU=9007199254740992 with NO_NORMAL_TRES,
    // 1 CPU), site factor 1 and nice -1 (which adds +1). The doubles around 2^53 are 2 apart,
    // so 2^53 + 1 is a tie that rounds to even, 2^53:
    //   Slurm's order: ((2^53) + 1) + 1 = 2^53 + 1 -> 2^53, then + 1 -> 2^53
    //   site and nice first would give (1 + 1) + 2^53 = 2^53 + 2 (exact)
    ms::settings s{};
    s.flags.set(ms::priority_flag::no_normal_tres);
    s.tres.add(ms::tres_id::cpu, 9007199254740992.0);
    tables t;
    t.add_partition(1, 1);
    const std::array<double, 1> tres{1};
    const context c = with_requests(t.view(), tres);
    mfprio::job j{};
    j.tres_row = 0;
    j.site_factor = 1;
    j.nice = -1;
    const auto e = ms::make_multifactor(ms::weights{}, s);
    CHECK(e.score(j, c) == 9007199254740992.0);
    CHECK(e.score(j, c) != 9007199254740994.0);
    const auto x = e.explain(j, c);
    CHECK(x.terms[7].contribution == 1.0);
    CHECK(x.terms[8].contribution == 1.0);
    CHECK(x.score == 9007199254740992.0);
    CHECK(x.priority == priority_value{4294967295u, priority_status::clamped});
}

TEST_CASE("slurm: multifactor floors at 1 when nice is huge, clamps when site is") {
    auto t = seed000_tables();
    const context c = t.view();
    const auto e = ms::make_multifactor(seed000_weights, seed000_settings());
    auto j = seed000_job();
    // 6500 - 2147483645 < 1 -> 1
    j.nice = 2147483645;
    CHECK(e.priority(j, c) == priority_value{1u, priority_status::floored});
    // 6500 - 2147483645 - 2147483645 = -4294960790 -> 1
    j.site_factor = -2147483645;
    CHECK(e.score(j, c) == -4294960790.0);
    CHECK(e.priority(j, c) == priority_value{1u, priority_status::floored});
    // 6500 + 2147483645 + 2147483645 = 4294973790 > 4294967295 -> clamped
    j.site_factor = 2147483645;
    j.nice = -2147483645;
    CHECK(e.score(j, c) == 4294973790.0);
    CHECK(e.priority(j, c) == priority_value{4294967295u, priority_status::clamped});
    // 6500 + 2147483645 = 2147490145 (no clamp)
    j.nice = 0;
    CHECK(e.priority(j, c) == priority_value{2147490145u, priority_status::computed});
}

TEST_CASE("slurm: weights::overflows is Slurm's configuration check") {
    // read_config.c: the six integer weights summed, "too high" when > 0xFFFFFFFF
    const ms::weights at_limit{4294967295u, 0, 0, 0, 0, 0};
    CHECK(at_limit.sum() == 4294967295ull);
    CHECK_FALSE(at_limit.overflows());
    const ms::weights split{2147483648u, 0, 2147483647u, 0, 0, 0}; // 2^31 + 2^31 - 1
    CHECK(split.sum() == 4294967295ull);
    CHECK_FALSE(split.overflows());
    const ms::weights one_more{2147483648u, 0, 2147483648u, 0, 0, 0};
    CHECK(one_more.sum() == 4294967296ull);
    CHECK(one_more.overflows());
    const ms::weights all{1000000000u, 1000000000u, 1000000000u, 1000000000u, 1000000000u, 1000000000u};
    CHECK(all.sum() == 6000000000ull);
    CHECK(all.overflows());
    // TRES weights are not part of the check.
    CHECK_FALSE(seed000_weights.overflows());
}

namespace {
/// A job whose six factors are all 1 in `t` (built by all_ones_tables).
tables all_ones_tables() {
    tables t;
    t.add_partition(4, 1);
    t.add_qos(7);
    t.add_assoc(1.0, 9);
    return t;
}
mfprio::job all_ones_job() {
    mfprio::job j{};
    j.accrue_time = now - 30 * day; // past the default 7-day max age: 1
    j.min_nodes = 8;                // = N
    j.cpus = 256;                   // = C: (8/8 + 256/256)/2 = 1
    return j;
}
} // namespace

TEST_CASE("slurm: multifactor clamps a sum past 2^32-1 (weights that overflow)") {
    auto t = all_ones_tables();
    const context c = t.view();
    const ms::weights all{1000000000u, 1000000000u, 1000000000u, 1000000000u, 1000000000u, 1000000000u};
    REQUIRE(all.overflows());
    const auto e = ms::make_multifactor(all, {});
    // every factor 1: 6 x 1e9 = 6e9 > 4294967295 -> clamped
    CHECK(e.score(all_ones_job(), c) == 6e9);
    CHECK(e.priority(all_ones_job(), c) == priority_value{4294967295u, priority_status::clamped});
    // at the limit: 2^31 + (2^31 - 1) = 4294967295 exactly, not clamped
    const ms::weights split{2147483648u, 0, 2147483647u, 0, 0, 0};
    CHECK(ms::make_multifactor(split, {}).priority(all_ones_job(), c) ==
          priority_value{4294967295u, priority_status::computed});
}

TEST_CASE("slurm: multifactor passes admin-set priorities and holds through") {
    auto t = seed000_tables();
    const context c = t.view();
    const auto e = ms::make_multifactor(seed000_weights, seed000_settings());
    auto j = seed000_job();
    j.admin_priority = 77;
    CHECK(e.priority(j, c) == priority_value{77u, priority_status::admin_set});
    CHECK(e.explain(j, c).priority == priority_value{77u, priority_status::admin_set});
    j.admin_priority = 0;
    j.state = mfprio::job_state::held;
    CHECK(e.priority(j, c) == priority_value{0u, priority_status::held});
    CHECK(e.explain(j, c).priority == priority_value{0u, priority_status::held});
}

namespace {
// ---------------------------------------------------------------------------------------
// Priority arrays (reference slurm.md 1.2). Partitions: p0 PriorityJobFactor 1, tier 1,
// 64 CPUs; p1 PriorityJobFactor 4, tier 2, 32 CPUs (norms 1/4 and 4/4). QOS: q0 priority 0,
// q1 priority 10, q2 priority 20 (norms 0, 0.5, 1). Weights: age 1000, fs 1000, part 1000,
// qos 2000; TRES CPU=100 (normalized per partition). The job: half of max age (500), fair-share
// 0.25 (250), 16 CPUs (TRES 16/32 x 100 = 50 in p1, 16/64 x 100 = 25 in p0).
// ---------------------------------------------------------------------------------------
tables array_tables() {
    tables t;
    t.add_partition(1, 1, {64});
    t.add_partition(4, 2, {32});
    t.add_qos(0);
    t.add_qos(10);
    t.add_qos(20);
    t.add_assoc(0.25);
    return t;
}
ms::settings array_settings() {
    ms::settings s{};
    s.tres.add(ms::tres_id::cpu, 100.0);
    return s;
}
constexpr ms::weights array_weights{1000, 0, 1000, 0, 1000, 2000};

struct array_job {
    std::array<std::uint32_t, 2> parts{1, 0}; // sorted by tier, descending
    std::array<std::uint32_t, 2> qos{2, 0};   // sorted by QOS priority, descending
    std::array<double, 1> tres{16};           // the job's row of its request table
    mfprio::job j{};
    ms::job_lists lists{parts, qos};
    array_job() {
        j.id = 100;
        j.partition = 1;
        j.qos = 2;
        j.association = 0;
        j.accrue_time = now - 302400; // half of 7-0
        j.tres_row = 0;
    }
    array_job(const array_job&) = delete;
    /// `c` with this job's request table.
    [[nodiscard]] context in(const context& c) const { return with_requests(c, tres); }
};
} // namespace

TEST_CASE("slurm: priority_array for 2 partitions x 2 QOS, with the QOS fallback quirk") {
    auto t = array_tables();
    const context c = t.view();
    const auto e = ms::make_multifactor(array_weights, array_settings());
    const array_job a;
    REQUIRE(ms::priority_array_size(a.lists) == 4);
    std::array<priority_value, 4> out{};
    REQUIRE(ms::priority_array(e, a.j, a.lists, a.in(c), std::span<priority_value>(out)) == 4);
    // entry p*nq + q, part + (age + assoc + fs + js + qos + tres + site - nice):
    //   [0] p1,q2: 1.0x1000 + (500 + 0 + 250 + 0 + 1.0x2000 + 50 + 0 - 0) = 1000 + 2800 = 3800
    //   [1] p1,q0: q0 has priority 0 -> the job's own QOS term (q2: 2000), not 0:       = 3800
    //   [2] p0,q2: 0.25x1000 + (500 + 250 + 2000 + 25) = 250 + 2775                     = 3025
    //   [3] p0,q0: the same fallback                                                    = 3025
    CHECK(out[0] == priority_value{3800u, priority_status::computed});
    CHECK(out[1] == priority_value{3800u, priority_status::computed});
    CHECK(out[2] == priority_value{3025u, priority_status::computed});
    CHECK(out[3] == priority_value{3025u, priority_status::computed});
    // Without the quirk [1] would be 1000 + (500 + 250 + 0 + 50) = 1800.
    CHECK(out[1].value != 1800u);
    // The scalar priority is the job's own partition and QOS (p1, q2): 3800
    CHECK(e.priority(a.j, a.in(c)).value == 3800u);

    // breakdown of [2] (p0, q2), as sprio shows a row
    const auto b = ms::breakdown(e, a.j, a.in(c), 0, 2);
    CHECK(b.partition == 0u);
    CHECK(b.qos == 2u);
    CHECK(b.age == 500.0);
    CHECK(b.assoc == 0.0);
    CHECK(b.fairshare == 250.0);
    CHECK(b.job_size == 0.0);
    CHECK(b.part == 250.0);
    CHECK(b.qos_term == 2000.0);
    CHECK(b.tres == 25.0);
    CHECK(b.site == 0.0);
    CHECK(b.nice == 0.0);
    CHECK(b.array_sum() == 3025.0);
    CHECK(b.scalar_sum() == 3025.0);
}

TEST_CASE("slurm: priority_array's QOS fallback is the job's own QOS, not the list's first") {
    auto t = array_tables();
    const context c = t.view();
    const auto e = ms::make_multifactor(array_weights, array_settings());
    array_job a;
    a.j.qos = 1; // own QOS q1: 0.5 x 2000 = 1000
    std::array<priority_value, 4> out{};
    REQUIRE(ms::priority_array(e, a.j, a.lists, a.in(c), std::span<priority_value>(out)) == 4);
    //   [0] p1,q2: 1000 + (500 + 250 + 2000 + 50) = 3800
    //   [1] p1,q0: fallback to own q1: 1000 + (500 + 250 + 1000 + 50) = 2800
    //   [2] p0,q2: 250 + (500 + 250 + 2000 + 25) = 3025
    //   [3] p0,q0: 250 + (500 + 250 + 1000 + 25) = 2025
    CHECK(out[0].value == 3800u);
    CHECK(out[1].value == 2800u);
    CHECK(out[2].value == 3025u);
    CHECK(out[3].value == 2025u);
    // With PriorityWeightQOS=0 every entry falls back to the job's own (zero) QOS term:
    //   [0],[1]: 1000 + (500 + 250 + 50) = 1800; [2],[3]: 250 + (500 + 250 + 25) = 1025
    const auto no_qos = ms::make_multifactor(ms::weights{1000, 0, 1000, 0, 1000, 0}, array_settings());
    REQUIRE(ms::priority_array(no_qos, a.j, a.lists, a.in(c), std::span<priority_value>(out)) == 4);
    CHECK(out[0].value == 1800u);
    CHECK(out[1].value == 1800u);
    CHECK(out[2].value == 1025u);
    CHECK(out[3].value == 1025u);
}

TEST_CASE("slurm: priority_array with one list only, or none") {
    auto t = array_tables();
    const context c = t.view();
    const auto e = ms::make_multifactor(array_weights, array_settings());
    std::array<priority_value, 4> out{};
    {
        // partitions only: 2 entries with the job's own QOS q2 (2000)
        array_job a;
        a.lists.qos = {};
        REQUIRE(ms::priority_array_size(a.lists) == 2);
        REQUIRE(ms::priority_array(e, a.j, a.lists, a.in(c), std::span<priority_value>(out)) == 2);
        CHECK(out[0].value == 3800u); // p1
        CHECK(out[1].value == 3025u); // p0
    }
    {
        // QOS only: 2 entries in the job's own partition p1
        array_job a;
        a.lists.partitions = {};
        a.j.qos = 1;
        const std::array<std::uint32_t, 2> qos{2, 1};
        a.lists.qos = qos;
        REQUIRE(ms::priority_array_size(a.lists) == 2);
        REQUIRE(ms::priority_array(e, a.j, a.lists, a.in(c), std::span<priority_value>(out)) == 2);
        CHECK(out[0].value == 3800u); // q2: 1000 + (500 + 250 + 2000 + 50)
        CHECK(out[1].value == 2800u); // q1: 1000 + (500 + 250 + 1000 + 50)
    }
    {
        // neither: Slurm keeps no array; nothing is written
        array_job a;
        a.lists.partitions = {};
        a.lists.qos = {};
        out.fill(priority_value{12345u, priority_status::computed});
        CHECK(ms::priority_array_size(a.lists) == 0);
        CHECK(ms::priority_array(e, a.j, a.lists, a.in(c), std::span<priority_value>(out)) == 0);
        CHECK(out[0].value == 12345u);
    }
}

namespace {
/// A scheduler's own job type that carries its partition and QOS lists (and everything else
/// of mfprio::job): priority_array and friends read the lists through job_traits.
struct listed_job : mfprio::job {
    std::span<const std::uint32_t> partitions{};
    std::span<const std::uint32_t> qos_list{};
};
} // namespace

TEST_CASE("slurm: priority_array reads the lists of a job type that carries them") {
    auto t = array_tables();
    const context c = t.view();
    const auto e = ms::make_multifactor(array_weights, array_settings());
    const array_job a;
    listed_job l{};
    static_cast<mfprio::job&>(l) = a.j;
    l.partitions = a.parts;
    l.qos_list = a.qos;
    REQUIRE(ms::priority_array_size(l) == 4);
    std::array<priority_value, 4> from_lists{}, from_type{};
    REQUIRE(ms::priority_array(e, a.j, a.lists, a.in(c), std::span<priority_value>(from_lists)) == 4);
    REQUIRE(ms::priority_array(e, l, a.in(c), std::span<priority_value>(from_type)) == 4);
    CHECK(from_type == from_lists);
    CHECK(from_type[0].value == 3800u); // the first case's values
    CHECK(from_type[3].value == 3025u);
    // mfprio::job itself carries none: no array without explicit lists
    CHECK(ms::priority_array_size(a.j) == 0);
}

TEST_CASE("slurm: priority_array for held and admin-set jobs") {
    auto t = array_tables();
    const context c = t.view();
    const auto e = ms::make_multifactor(array_weights, array_settings());
    array_job a;
    std::array<priority_value, 4> out{};
    a.j.state = mfprio::job_state::held;
    REQUIRE(ms::priority_array(e, a.j, a.lists, a.in(c), std::span<priority_value>(out)) == 4);
    for (const auto& v : out) CHECK(v == priority_value{0u, priority_status::held});
    a.j.state = mfprio::job_state::pending;
    a.j.admin_priority = 77;
    REQUIRE(ms::priority_array(e, a.j, a.lists, a.in(c), std::span<priority_value>(out)) == 4);
    for (const auto& v : out) CHECK(v == priority_value{77u, priority_status::admin_set});
}

TEST_CASE("slurm: priority_array groups part + (rest), unlike the scalar order") {
    // reference slurm.md 1.2: entry = part_term + (age + assoc + fs + js + qos + tres + site - nice)
    // versus the scalar ((((age + assoc) + fs) + js) + part) + qos + tres + site - nice.
    //
    // Make it observable: part P = 1.0 x 2^31 (PriorityWeightPartition=2147483648); near 2^31
    // the doubles are u = 2^-21 apart. age a = (2^23 - 3)/2^23 = 1 - 3*2^-23 = 1 - 0.75u
    // (PriorityMaxAge = 2^23 s, accrued 2^23 - 3 s, weight 1); TRES b = 3 CPUs x 2^-24 =
    // 3*2^-24 = 0.375u (NO_NORMAL_TRES).
    //   scalar: a + P = P + 1 - 0.75u -> P + 1 - u (nearest); + b = P + 1 - 0.625u -> P + 1 - u
    //           = 2147483649 - 2^-21, truncated: 2147483648
    //   array:  a + b = 1 - 3*2^-24 (exact); P + that = P + 1 - 0.375u -> P + 1 = 2147483649
    tables t;
    t.add_partition(1, 1);
    const std::array<double, 1> tres{3};
    const context c = with_requests(t.view(), tres);
    ms::settings s{};
    s.max_age = 1u << 23;
    s.flags.set(ms::priority_flag::no_normal_tres);
    s.tres.add(ms::tres_id::cpu, 0x1p-24);
    const auto e = ms::make_multifactor(ms::weights{1, 0, 0, 0, 2147483648u, 0}, s);
    const std::array<std::uint32_t, 1> parts{0};
    mfprio::job j{};
    j.partition = 0;
    j.accrue_time = now - ((1 << 23) - 3);
    j.tres_row = 0;

    const double scalar = 2147483649.0 - 0x1p-21;
    CHECK(e.score(j, c) == scalar);
    CHECK(e.priority(j, c) == priority_value{2147483648u, priority_status::computed});
    const auto b = ms::breakdown(e, j, c, 0, 0);
    CHECK(b.age == 1.0 - 3 * 0x1p-23);
    CHECK(b.tres == 3 * 0x1p-24);
    CHECK(b.part == 2147483648.0);
    CHECK(b.scalar_sum() == scalar);
    CHECK(b.array_sum() == 2147483649.0);

    const ms::job_lists lists{parts, {}}; // a one-entry partition list: Slurm builds the array
    std::array<priority_value, 1> out{};
    REQUIRE(ms::priority_array(e, j, lists, c, std::span<priority_value>(out)) == 1);
    CHECK(out[0] == priority_value{2147483649u, priority_status::computed});
}

TEST_CASE("slurm: sort_by_tier and sort_by_qos_priority are stable descending sorts") {
    tables t;
    t.add_partition(1, 1); // 0
    t.add_partition(1, 3); // 1
    t.add_partition(1, 1); // 2
    t.add_partition(1, 3); // 3
    t.add_partition(1, 2); // 4
    t.add_qos(5);  // 0
    t.add_qos(10); // 1
    t.add_qos(5);  // 2
    t.add_qos(10); // 3
    const context c = t.view();
    // tiers {1, 3, 1, 3, 2}: 3s first in given order, then 2, then 1s in given order
    std::array<std::uint32_t, 5> parts{0, 1, 2, 3, 4};
    ms::sort_by_tier(parts, c);
    CHECK(parts == std::array<std::uint32_t, 5>{1, 3, 4, 0, 2});
    std::array<std::uint32_t, 5> reversed{4, 3, 2, 1, 0};
    ms::sort_by_tier(reversed, c);
    CHECK(reversed == std::array<std::uint32_t, 5>{3, 1, 4, 2, 0});
    // an unknown partition counts as tier 0: last
    std::array<std::uint32_t, 3> with_unknown{9, 0, 1};
    ms::sort_by_tier(with_unknown, c);
    CHECK(with_unknown == std::array<std::uint32_t, 3>{1, 0, 9});
    // QOS priorities {5, 10, 5, 10}
    std::array<std::uint32_t, 4> qos{0, 1, 2, 3};
    ms::sort_by_qos_priority(qos, c);
    CHECK(qos == std::array<std::uint32_t, 4>{1, 3, 0, 2});
    std::array<std::uint32_t, 4> qos_rev{3, 2, 1, 0};
    ms::sort_by_qos_priority(qos_rev, c);
    CHECK(qos_rev == std::array<std::uint32_t, 4>{3, 1, 2, 0});
}

TEST_CASE("slurm: sort_by_tier and sort_by_qos_priority keep the given order among equals on long lists") {
    // Long enough (64 > 16) that a non-stable std::sort would not fall back to insertion sort.
    // Partition k has tier k % 3, QOS k has priority 10 * (k % 4): the sorted list is every
    // index of the top tier (priority) ascending, then the next, and so on.
    tables t;
    constexpr std::uint32_t n = 64;
    for (std::uint32_t k = 0; k < n; ++k) {
        t.add_partition(1, k % 3);
        t.add_qos(10 * (k % 4));
    }
    const context c = t.view();
    std::vector<std::uint32_t> parts(n), qos(n);
    for (std::uint32_t k = 0; k < n; ++k) parts[k] = qos[k] = k;
    ms::sort_by_tier(parts, c);
    ms::sort_by_qos_priority(qos, c);
    std::vector<std::uint32_t> want_parts, want_qos;
    for (std::uint32_t tier = 3; tier-- > 0;)
        for (std::uint32_t k = 0; k < n; ++k)
            if (k % 3 == tier) want_parts.push_back(k);
    for (std::uint32_t level = 4; level-- > 0;)
        for (std::uint32_t k = 0; k < n; ++k)
            if (k % 4 == level) want_qos.push_back(k);
    CHECK(parts == want_parts);
    CHECK(qos == want_qos);
}

TEST_CASE("slurm: apply_incr_only keeps the larger priority only under INCR_ONLY") {
    CHECK(ms::apply_incr_only(100, 50, true) == 100u);
    CHECK(ms::apply_incr_only(100, 150, true) == 150u);
    CHECK(ms::apply_incr_only(100, 100, true) == 100u);
    CHECK(ms::apply_incr_only(100, 50, false) == 50u);
    CHECK(ms::apply_incr_only(100, 150, false) == 150u);
}

TEST_CASE("slurm: recalculated_periodically: pending, running with CALCULATE_RUNNING, never held") {
    ms::priority_flags plain{};
    ms::priority_flags running{};
    running.set(ms::priority_flag::calculate_running);
    mfprio::job j{};
    j.state = mfprio::job_state::pending;
    CHECK(ms::recalculated_periodically(j, plain));
    CHECK(ms::recalculated_periodically(j, running));
    j.state = mfprio::job_state::running;
    CHECK_FALSE(ms::recalculated_periodically(j, plain));
    CHECK(ms::recalculated_periodically(j, running));
    j.state = mfprio::job_state::suspended;
    CHECK_FALSE(ms::recalculated_periodically(j, plain));
    CHECK(ms::recalculated_periodically(j, running));
    j.state = mfprio::job_state::held;
    CHECK_FALSE(ms::recalculated_periodically(j, plain));
    CHECK_FALSE(ms::recalculated_periodically(j, running));
    j.state = mfprio::job_state::completing;
    CHECK_FALSE(ms::recalculated_periodically(j, running));
    j.state = mfprio::job_state::finished;
    CHECK_FALSE(ms::recalculated_periodically(j, running));
}
