// Tests for mfprio/slurm/qos.hpp (reference slurm.md 1.1 QOS):
//   qos = NO_NORMAL_QOS ? qos.priority : qos.priority / g_qos_max_priority
// computed only when qos.priority != 0; the norm stays 0 when the max is 0.
#include <mfprio/slurm/qos.hpp>

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
using mfprio::slurm::qos_factor;
using mfprio::slurm::qos_info;

// QOS priorities {0, 10, 40, 30}: max 40; norms 0, 10/40 = 0.25, 1, 30/40 = 0.75.
constexpr std::array<qos_info, 4> table{{{0, 0.0, 1.0}, {10, 0.25, 1.0}, {40, 1.0, 1.0}, {30, 0.75, 1.0}}};

double qos(std::uint32_t q, bool normalize) {
    mfprio::job j{};
    j.qos = static_cast<std::uint16_t>(q);
    context c{};
    c.qos = table;
    return qos_factor{normalize}(j, c);
}
} // namespace

TEST_CASE("slurm: the QOS factor is the QOS priority over the largest one") {
    CHECK(qos_factor::name == "qos");
    CHECK(qos_factor{}.normalize);
    // the table's norms are what Slurm computes (checked independently here)
    for (const auto& q : table) CHECK(q.norm_priority == normalize_priority(q.priority, 40));
    CHECK(qos(1, true) == 0.25);
    CHECK(qos(2, true) == 1.0); // seed 004: the buy-in QOS holds the highest priority -> 1.0
    CHECK(qos(3, true) == 0.75);
}

TEST_CASE("slurm: NO_NORMAL_QOS gives the raw QOS priority") {
    CHECK(qos(1, false) == 10.0);
    CHECK(qos(2, false) == 40.0);
    CHECK(qos(3, false) == 30.0);
}

TEST_CASE("slurm: a QOS with priority 0 gives 0") {
    CHECK(qos(0, true) == 0.0);
    CHECK(qos(0, false) == 0.0);
    // the priority-0 test wins over a (stale) norm in the table
    const std::array<qos_info, 1> odd{{{0, 0.5, 1.0}}};
    context c{};
    c.qos = odd;
    CHECK(qos_factor{}.for_qos(0, c) == 0.0);
    // every QOS at 0: the max is 0 and norms stay 0
    CHECK(normalize_priority(0, 0) == 0.0);
}

TEST_CASE("slurm: an unknown QOS gives 0") {
    CHECK(qos(4, true) == 0.0);
    CHECK(qos(4, false) == 0.0);
    CHECK(qos_factor{}(mfprio::job{}, context{}) == 0.0);
    CHECK(qos_factor{}.for_qos(2, context{}) == 0.0);
}

TEST_CASE("slurm: the QOS block hook gives the call operator's values, small tables and large") {
    // QOS k has priority 10 x (k % 5) (so some are 0): tables of 4 QOS (laid out by prepare)
    // and of 300 (more than table_limit: job by job); a block of jobs over them and unknown
    // ones, normalized and raw.
    for (const std::size_t count : {std::size_t{4}, qos_factor::table_limit + 44}) {
        CAPTURE(count);
        std::vector<qos_info> qos(count);
        for (std::size_t k = 0; k < count; ++k) {
            qos[k].priority = static_cast<std::uint32_t>(10 * (k % 5));
            qos[k].norm_priority = normalize_priority(qos[k].priority, count < 5 ? 30 : 40);
        }
        context c{};
        c.qos = qos;
        std::array<mfprio::job, mfprio::block_size> jobs{};
        for (std::size_t i = 0; i < jobs.size(); ++i) jobs[i].qos = static_cast<std::uint16_t>(i * 11);
        for (const bool normalize : {true, false}) {
            const qos_factor f{normalize};
            const auto prepared = f.prepare(c);
            CHECK(prepared.usable == (count <= qos_factor::table_limit));
            std::array<double, mfprio::block_size> out{};
            f.block(prepared, std::span<const mfprio::job, mfprio::block_size>(jobs), c,
                    std::span<double, mfprio::block_size>(out));
            for (std::size_t i = 0; i < jobs.size(); ++i) {
                CAPTURE(i);
                CHECK(out[i] == f(jobs[i], c));
            }
            CHECK(out[0] == 0.0); // QOS 0: priority 0
        }
    }
}
