// Tests for mfprio/report/whatif.hpp, the library's what-if: apply_whatif on a cluster's
// parsed inputs, compare_queues on the two models, changed_term. The cluster is
// tests/data/whatif (four jobs); the priorities, orders, tau and moves are worked out by hand
// in tests/cli_whatif.cpp from Slurm's multifactor formula.
#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <mfprio/model/slurm_model.hpp>
#include <mfprio/report/whatif.hpp>

namespace {
using namespace mfprio;

std::string data(const std::string& name) { return std::string(MFPRIO_TEST_DATA) + "/whatif/" + name; }

struct cluster {
    config::parsed_cluster pc;
    std::vector<config::conf_input> conf_inputs;
};

cluster read_cluster() {
    cluster c;
    auto text = config::read_text_file(data("slurm.conf"));
    REQUIRE(text);
    c.conf_inputs.push_back({*text, data("slurm.conf")});
    auto conf = config::read_slurm_conf_inputs(c.conf_inputs);
    auto qos = config::read_qos_table(data("qos.txt"));
    auto assoc = config::read_assoc_table(data("assoc.txt"));
    REQUIRE(conf);
    REQUIRE(qos);
    REQUIRE(assoc);
    auto jobs = config::read_jobs_table(data("jobs.txt"), *conf, *qos, *assoc);
    REQUIRE(jobs);
    c.pc.conf = std::move(*conf);
    c.pc.qos = std::move(*qos);
    c.pc.assoc = std::move(*assoc);
    c.pc.jobs = std::make_shared<const config::jobs_table>(std::move(*jobs));
    return c;
}

config::slurm_model model_of(const config::parsed_cluster& pc) {
    auto m = config::build_slurm_model(pc.conf, pc.qos, pc.assoc, *pc.jobs, "slurm.conf");
    REQUIRE(m);
    return std::move(*m);
}

using changes = std::vector<std::pair<std::string, std::string>>;
} // namespace

TEST_CASE("report whatif: PriorityWeightQOS=0 reorders the queue as worked out by hand") {
    auto c = read_cluster();
    const auto before = model_of(c.pc);
    auto changed = c.pc;
    const changes ch{{"PriorityWeightQOS", "0"}};
    const auto applied = report::apply_whatif(changed, c.conf_inputs, ch);
    REQUIRE(applied.error.empty());
    CHECK_FALSE(applied.fairshare);
    CHECK(changed.conf.weight_qos == 0);
    const auto after = model_of(changed);
    const auto r = report::compare_queues(before, after, 1000);
    // Old order 3, 2, 4, 1 at 2500, 1000, 1000, 500; new positions 4, 1, 2, 3; tau 0.
    REQUIRE(r.entries.size() == 4);
    CHECK(r.entries[0].job_id == 3);
    CHECK(r.entries[0].old_priority == 2500);
    CHECK(r.entries[0].new_priority == 500);
    CHECK(r.entries[0].new_position == 4);
    CHECK(r.entries[1].job_id == 2);
    CHECK(r.entries[1].new_position == 1);
    CHECK(r.tau == doctest::Approx(0.0));
    CHECK(r.up == 3);
    CHECK(r.down == 1);
    CHECK(r.median_move == doctest::Approx(1.0));
    CHECK(r.largest_move == 3);
    CHECK(report::changed_term(before, after, 1000, r.entries[0]) == "qos");
    CHECK(report::changed_term(before, after, 1000, r.entries[1]) == "-");
}

TEST_CASE("report whatif: a partition's factor, tau 1/3; the same model compared with itself moves nothing") {
    auto c = read_cluster();
    const auto before = model_of(c.pc);
    CHECK(report::compare_queues(before, before, 1000).tau == doctest::Approx(1.0));
    CHECK(report::compare_queues(before, before, 1000).up == 0);
    auto changed = c.pc;
    const changes ch{{"partition.a.PriorityJobFactor", "4"}};
    REQUIRE(report::apply_whatif(changed, c.conf_inputs, ch).error.empty());
    const auto after = model_of(changed);
    const auto r = report::compare_queues(before, after, 1000);
    // Old order 3, 2, 4, 1 gets 1, 3, 4, 2: two inversions, tau = 1 - 4/6.
    CHECK(r.tau == doctest::Approx(1.0 / 3.0));
    CHECK(r.largest_move == 2);
    CHECK(report::changed_term(before, after, 1000, r.entries[3]) == "partition");
}

TEST_CASE("report whatif: changes that cannot be made change nothing and say why") {
    auto c = read_cluster();
    auto changed = c.pc;
    const changes typo{{"PriorityWeightQSO", "0"}};
    const auto r = report::apply_whatif(changed, c.conf_inputs, typo);
    CHECK(r.error == "unknown key 'PriorityWeightQSO' (did you mean PriorityWeightQOS?)");
    const changes big{{"partition.a.PriorityJobFactor", "65534"}};
    CHECK(report::apply_whatif(changed, c.conf_inputs, big).error ==
          "partition.a.PriorityJobFactor: '65534' is not an integer from 0 to 65533");
    const changes shares{{"assoc.chem.Shares", "3"}};
    CHECK(report::apply_whatif(changed, c.conf_inputs, shares).fairshare);
}

TEST_CASE("report whatif: the summary's movers and head shares follow the orders worked out by hand") {
    auto c = read_cluster();
    const auto before = model_of(c.pc);
    auto changed = c.pc;
    const changes ch{{"PriorityWeightQOS", "0"}};
    REQUIRE(report::apply_whatif(changed, c.conf_inputs, ch).error.empty());
    const auto after = model_of(changed);
    const auto r = report::compare_queues(before, after, 1000);
    // Old order 3, 2, 4, 1; new positions 4, 1, 2, 3: job 3 moves 3 down, the others 1 up
    // each, tied and kept in the old order.
    const auto s = report::summarize_whatif(before, after, 1000, r, 2, 2);
    REQUIRE(s.movers.size() == 2);
    CHECK(r.entries[s.movers[0]].job_id == 3);
    CHECK(r.entries[s.movers[1]].job_id == 2);
    CHECK(s.terms == std::vector<std::string>{"qos", "-"});
    CHECK(s.head == 2);
    CHECK(s.entries == 4);
    // The head (two positions): jobs 3 (carol, phys) and 2 (bob, chem) before; 2 and 4
    // (dave, phys) after. Alice is in neither head.
    REQUIRE(s.by_account.size() == 2);
    REQUIRE(s.by_user.size() == 3);
    CHECK(s.by_user[0].who == "bob");
    CHECK(s.by_user[1].who == "dave");
    CHECK(s.by_user[1].before == doctest::Approx(0.0));
    CHECK(s.by_user[1].after == doctest::Approx(50.0));
    CHECK(s.by_user[2].who == "carol");
    CHECK(s.by_user[2].after == doctest::Approx(0.0));
    for (const auto& a : s.by_account) {
        CHECK(a.before == doctest::Approx(50.0));
        CHECK(a.after == doctest::Approx(50.0));
    }
    // Without a head, a tenth of the queue, at least one position: job 3, then job 2.
    const auto d = report::summarize_whatif(before, after, 1000, r, 10);
    CHECK(d.head == 1);
    CHECK(d.movers.size() == 4);
    const std::string text = report::render_whatif(before, r, d, "PriorityWeightQOS=0");
    CHECK(text.starts_with("whatif: PriorityWeightQOS=0\nqueue entries compared: 4   Kendall's tau: 0.0000\n"));
    CHECK(text.find("\nhead of the queue (first 1 of 4 positions), by user:\n") != std::string::npos);
}
