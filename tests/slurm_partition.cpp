// Tests for mfprio/slurm/partition.hpp (reference slurm.md 1.1 Partition):
//   part = NO_NORMAL_PART ? PriorityJobFactor : PriorityJobFactor / part_max_priority
//   part_max_priority = max(1, max over all partitions of PriorityJobFactor)
// computed only when PriorityJobFactor != 0.
#include <mfprio/slurm/partition.hpp>

#include <mfprio/core/factor.hpp>
#include <mfprio/core/job.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <doctest/doctest.h>

namespace {
using mfprio::slurm::context;
using mfprio::slurm::normalize_priority;
using mfprio::slurm::partition_factor;
using mfprio::slurm::partition_info;

/// A context whose partitions have these PriorityJobFactors, normalized the way Slurm's
/// _sync_part_prio does: pjf / max(1, max pjf).
struct partitions {
    std::vector<partition_info> table;
    explicit partitions(std::initializer_list<std::uint32_t> pjf) {
        std::uint32_t max = 1;
        for (auto v : pjf) max = std::max(max, v);
        for (auto v : pjf) {
            partition_info p{};
            p.priority_job_factor = v;
            p.norm_priority = normalize_priority(v, max);
            table.push_back(p);
        }
    }
    context view() const {
        context c{};
        c.partitions = table;
        return c;
    }
};

double part(const partitions& ps, std::uint32_t p, bool normalize) {
    mfprio::job j{};
    j.partition = p;
    return partition_factor{normalize}(j, ps.view());
}
} // namespace

TEST_CASE("slurm: the partition factor is PriorityJobFactor over the largest one") {
    CHECK(partition_factor::name == "partition");
    CHECK(partition_factor{}.normalize);
    // PriorityJobFactor {1, 2, 4, 0}: max 4 -> 1/4, 2/4, 4/4, (0 adds nothing)
    const partitions ps{1, 2, 4, 0};
    CHECK(part(ps, 0, true) == 0.25);
    CHECK(part(ps, 1, true) == 0.5);
    CHECK(part(ps, 2, true) == 1.0);
    // seed 001 (Limoges) style: three partitions with different priorities {10, 20, 30}: 10/30
    const partitions lim{10, 20, 30};
    CHECK(part(lim, 0, true) == 10.0 / 30.0);
    CHECK(part(lim, 2, true) == 1.0);
    // for_partition gives the same for an explicit index (multi-partition jobs)
    CHECK(partition_factor{}.for_partition(1, ps.view()) == 0.5);
}

TEST_CASE("slurm: NO_NORMAL_PART gives the raw PriorityJobFactor") {
    const partitions ps{1, 2, 4, 0};
    CHECK(part(ps, 0, false) == 1.0);
    CHECK(part(ps, 1, false) == 2.0);
    CHECK(part(ps, 2, false) == 4.0);
    // u16 maximum allowed by Slurm: 65533
    const partitions big{65533};
    CHECK(part(big, 0, false) == 65533.0);
    CHECK(part(big, 0, true) == 1.0);
}

TEST_CASE("slurm: a PriorityJobFactor of 0 gives 0") {
    const partitions ps{1, 2, 4, 0};
    CHECK(part(ps, 3, true) == 0.0);
    CHECK(part(ps, 3, false) == 0.0);
    // The max is at least 1: all partitions at 0 normalize by 1 and give 0.
    const partitions zeros{0, 0};
    CHECK(zeros.table[0].norm_priority == 0.0);
    CHECK(part(zeros, 0, true) == 0.0);
    // The "pjf != 0" test is on PriorityJobFactor itself, whatever the context's norm says.
    partition_info odd{};
    odd.priority_job_factor = 0;
    odd.norm_priority = 0.75;
    const std::array<partition_info, 1> t{odd};
    context c{};
    c.partitions = t;
    CHECK(partition_factor{}.for_partition(0, c) == 0.0);
}

TEST_CASE("slurm: the partition factor reads the context's normalized value") {
    // A single partition with PriorityJobFactor 1 (the default) normalizes to 1/max(1, 1) = 1.
    const partitions one{1};
    CHECK(part(one, 0, true) == 1.0);
    // Default partition_info: PriorityJobFactor 1, norm 1.0.
    CHECK(partition_info{}.priority_job_factor == 1u);
    CHECK(partition_info{}.norm_priority == 1.0);
}

TEST_CASE("slurm: an unknown partition gives 0") {
    const partitions ps{1, 2};
    CHECK(part(ps, 2, true) == 0.0);
    CHECK(part(ps, 2, false) == 0.0);
    CHECK(partition_factor{}(mfprio::job{}, context{}) == 0.0);
}

TEST_CASE("slurm: the partition block hook gives the call operator's values, small tables and large") {
    // A block of jobs over partitions 0..39 (PriorityJobFactor k % 7, so some are 0) and an
    // unknown one, with tables of 40 partitions (laid out by prepare) and of 300 (more than
    // table_limit: job by job), normalized and raw.
    for (const std::size_t count : {std::size_t{40}, partition_factor::table_limit + 44}) {
        CAPTURE(count);
        std::vector<partition_info> table(count);
        for (std::size_t k = 0; k < count; ++k) {
            table[k].priority_job_factor = static_cast<std::uint32_t>(k % 7);
            table[k].norm_priority = normalize_priority(table[k].priority_job_factor, 6);
        }
        context c{};
        c.partitions = table;
        std::array<mfprio::job, mfprio::block_size> jobs{};
        for (std::size_t i = 0; i < jobs.size(); ++i) jobs[i].partition = static_cast<std::uint16_t>(i == 3 ? 65000 : i + 9);
        for (const bool normalize : {true, false}) {
            const partition_factor f{normalize};
            const auto prepared = f.prepare(c);
            CHECK(prepared.usable == (count <= partition_factor::table_limit));
            std::array<double, mfprio::block_size> out{};
            f.block(prepared, std::span<const mfprio::job, mfprio::block_size>(jobs), c,
                    std::span<double, mfprio::block_size>(out));
            for (std::size_t i = 0; i < jobs.size(); ++i) {
                CAPTURE(i);
                CHECK(out[i] == f(jobs[i], c));
            }
            CHECK(out[3] == 0.0);                      // unknown partition
            CHECK(out[5] == 0.0);                      // partition 14: PriorityJobFactor 0
            CHECK(out[6] == (normalize ? 1.0 / 6 : 1.0)); // partition 15: 15 % 7 = 1
        }
    }
}
