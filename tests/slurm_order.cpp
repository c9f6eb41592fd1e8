// Tests for mfprio/slurm/order.hpp (reference slurm.md 1.2 Scheduling order, sort_job_queue2):
// higher partition PriorityTier, then higher priority (the array entry for multi-partition
// jobs), then earlier submit time, then lower job id; one queue record per (partition, QOS)
// entry; held jobs are not queued.
#include <mfprio/slurm/order.hpp>

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include <doctest/doctest.h>

namespace {
namespace ms = mfprio::slurm;
using ms::queue_entry;

queue_entry entry(std::uint32_t tier, std::uint32_t priority, std::int64_t submit, std::uint32_t id) {
    queue_entry e{};
    e.tier = tier;
    e.priority = priority;
    e.submit_time = submit;
    e.job_id = id;
    return e;
}
} // namespace

TEST_CASE("slurm: schedules_before: tier, then priority, then submit time, then job id") {
    // a higher tier wins over any priority
    CHECK(ms::schedules_before(entry(2, 1, 500, 9), entry(1, 1000000, 1, 1)));
    CHECK_FALSE(ms::schedules_before(entry(1, 1000000, 1, 1), entry(2, 1, 500, 9)));
    // same tier: higher priority first
    CHECK(ms::schedules_before(entry(1, 2000, 500, 9), entry(1, 1000, 1, 1)));
    CHECK_FALSE(ms::schedules_before(entry(1, 1000, 1, 1), entry(1, 2000, 500, 9)));
    // same tier and priority: earlier submit first
    CHECK(ms::schedules_before(entry(1, 1000, 100, 9), entry(1, 1000, 200, 1)));
    CHECK_FALSE(ms::schedules_before(entry(1, 1000, 200, 1), entry(1, 1000, 100, 9)));
    // all equal but the id: lower id first
    CHECK(ms::schedules_before(entry(1, 1000, 100, 1), entry(1, 1000, 100, 2)));
    CHECK_FALSE(ms::schedules_before(entry(1, 1000, 100, 2), entry(1, 1000, 100, 1)));
    // irreflexive (a strict weak order)
    CHECK_FALSE(ms::schedules_before(entry(1, 1000, 100, 1), entry(1, 1000, 100, 1)));
}

namespace {
// Partitions p0 (PriorityJobFactor 1, tier 1) and p1 (PriorityJobFactor 2, tier 2): norms
// 1/2 and 2/2. QOS q0 (priority 0) and q1 (priority 10: norm 1). Weights: age 1000,
// partition 1000, QOS 100. PriorityMaxAge 7-0.
constexpr std::int64_t now = 1'700'000'000;
constexpr std::array<ms::partition_info, 2> parts{{
    {.priority_job_factor = 1, .norm_priority = 0.5, .priority_tier = 1, .max_time = 60, .tres_totals = {}},
    {.priority_job_factor = 2, .norm_priority = 1.0, .priority_tier = 2, .max_time = 60, .tres_totals = {}},
}};
constexpr std::array<ms::qos_info, 2> qos{{{0, 0.0, 1.0}, {10, 1.0, 1.0}}};

ms::context make_context() {
    ms::context c{};
    c.now = now;
    c.node_count = 8;
    c.cluster_cpus = 256;
    c.partitions = parts;
    c.qos = qos;
    return c;
}

mfprio::job make(std::uint32_t id, std::uint32_t part, std::int64_t submit, bool half_aged,
                 mfprio::job_state state = mfprio::job_state::pending) {
    mfprio::job j{};
    j.id = id;
    j.partition = static_cast<std::uint16_t>(part);
    j.qos = 0;
    j.submit_time = submit;
    j.accrue_time = half_aged ? now - 302400 : 0;
    j.state = state;
    return j;
}
} // namespace

TEST_CASE("slurm: build_queue: one record per entry, held and running jobs left out, Slurm's order") {
    const auto e = ms::make_multifactor(ms::weights{1000, 0, 0, 0, 1000, 100});
    const std::array<std::uint32_t, 2> multi_parts{1, 0};
    const std::array<std::uint32_t, 2> multi_qos{1, 0};
    std::vector<mfprio::job> jobs;
    std::vector<ms::job_lists> lists(8); // the partition and QOS lists of each job (most have none)
    // [0] id 10, p0, half aged: 500 + 500 = 1000
    jobs.push_back(make(10, 0, 100, true));
    // [1] id 11, partitions {p1, p0}, not aged: p1 entry 1000 + (0) = 1000; p0 entry 500
    jobs.push_back(make(11, 1, 200, false));
    lists[1].partitions = multi_parts;
    // [2] id 12 held, [3] id 13 running: not queued
    jobs.push_back(make(12, 1, 10, true, mfprio::job_state::held));
    jobs.push_back(make(13, 1, 10, true, mfprio::job_state::running));
    // [4] id 9, p0, half aged, same submit time as id 10: 1000
    jobs.push_back(make(9, 0, 100, true));
    // [5] id 14, p0, not aged, submitted earliest: 500
    jobs.push_back(make(14, 0, 50, false));
    // [6] id 15, p0, QOS list {q1, q0}, own QOS q0: q1 entry 500 + (1.0 x 100) = 600;
    //     q0 entry: priority-0 QOS -> the job's own QOS term (q0: 0) = 500
    jobs.push_back(make(15, 0, 300, false));
    lists[6].qos = multi_qos;
    // [7] id 16, p0, administrator-set priority 5000
    jobs.push_back(make(16, 0, 400, false));
    jobs.back().admin_priority = 5000;

    REQUIRE(lists.size() == jobs.size());
    std::vector<queue_entry> q;
    ms::build_queue(e, std::span<const mfprio::job>(jobs), std::span<const ms::job_lists>(lists), make_context(), q);
    // Expected: tier 2 first (id 11 in p1), then tier 1 by priority 5000 > 1000 > 600 > 500,
    // ties by submit time then id: 1000: id 9 and id 10 (both submitted at 100) -> 9, 10;
    // 500: id 14 (50), id 11 in p0 (200), id 15 with q0 (300).
    struct want {
        std::uint32_t index, id, part, qos, tier, prio;
        std::int64_t submit;
    };
    const std::array<want, 8> expected{{
        {1, 11, 1, 0, 2, 1000, 200},
        {7, 16, 0, 0, 1, 5000, 400},
        {4, 9, 0, 0, 1, 1000, 100},
        {0, 10, 0, 0, 1, 1000, 100},
        {6, 15, 0, 1, 1, 600, 300},
        {5, 14, 0, 0, 1, 500, 50},
        {1, 11, 0, 0, 1, 500, 200},
        {6, 15, 0, 0, 1, 500, 300},
    }};
    REQUIRE(q.size() == expected.size());
    for (std::size_t k = 0; k < expected.size(); ++k) {
        CAPTURE(k);
        CHECK(q[k].job_index == expected[k].index);
        CHECK(q[k].job_id == expected[k].id);
        CHECK(q[k].partition == expected[k].part);
        CHECK(q[k].qos == expected[k].qos);
        CHECK(q[k].tier == expected[k].tier);
        CHECK(q[k].priority == expected[k].prio);
        CHECK(q[k].submit_time == expected[k].submit);
    }
}

TEST_CASE("slurm: build_queue clears its output and queues nothing for no pending jobs") {
    const auto e = ms::make_multifactor(ms::weights{1000, 0, 0, 0, 1000, 0});
    std::vector<queue_entry> q(3);
    const std::array<mfprio::job, 2> jobs{make(1, 0, 0, true, mfprio::job_state::held),
                                          make(2, 0, 0, true, mfprio::job_state::finished)};
    ms::build_queue(e, std::span<const mfprio::job>(jobs), make_context(), q);
    CHECK(q.empty());
}
