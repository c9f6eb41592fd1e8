// Tests for mfprio's Flux jobtap plugin's shared parts: the factors it offers
// (queue::jobtap_registry), how a job becomes a flux::job (model/flux_jobtap.hpp), the
// flux-accounting preset with the database's weights, and the reader of its query
// (inputs/flux_jobtap.hpp). Values worked by hand from mf_priority.cpp's priority_calculation
// (flux-accounting 0.60) and flux-core's job-list counts; columns of errors counted by hand.
#include <doctest/doctest.h>

#include <mfprio/inputs/flux_jobtap.hpp>
#include <mfprio/model/flux_jobtap.hpp>
#include <mfprio/queue/builtin.hpp>

#include "cli.hpp"

#include <string>
#include <vector>

using mfprio::config::jobtap_inputs;
using mfprio::config::jobtap_job;
using mfprio::config::jobtap_model;

namespace {

jobtap_inputs bank_tree() {
    jobtap_inputs in;
    in.now = 1000;
    in.nodes = 8;
    in.cores = 32;
    in.queues = {{"batch", 1}, {"urgent", 20}};
    in.banks = {{"root", 0}, {"ml", 2}, {"bio", 4}};
    in.associations = {{5001, "ml", 0.625, "ml"}, {5001, "bio", 0.5, "ml"}, {5002, "bio", 0.125, "bio"}};
    return in;
}

} // namespace

TEST_CASE("jobtap: the factors a Flux job carries; Slurm's others are an error at their line, not a term of 0") {
    const auto reg = mfprio::queue::jobtap_registry();
    for (const char* ok : {"age", "wait_time", "jobsize", "job_size", "fairshare", "fair_share", "queue", "bank", "urgency", "user",
                           "flux_urgency"})
        CHECK(mfprio::queue::parse_policy(std::string(ok) + " = 1\n", reg, "p"));
    // "qos" at line 2, column 1.
    const auto qos = mfprio::queue::parse_policy("age = 1\nqos = 5\n", reg, "p");
    REQUIRE_FALSE(qos);
    CHECK(qos.error().to_string().starts_with("p:2:1: qos: unknown factor 'qos' (known factors: age"));
    CHECK_FALSE(mfprio::queue::parse_policy("fcfs = 1\n", reg, "p"));
    CHECK_FALSE(mfprio::queue::parse_policy("preset = fcfs\n", reg, "p"));
    CHECK(mfprio::queue::parse_policy("preset = flux-accounting\n", reg, "p"));
}

TEST_CASE("jobtap: a job as the plugin reads it") {
    const jobtap_model m(bank_tree());
    jobtap_job j;
    j.userid = 5001;
    j.urgency = 20;
    j.t_submit = 990.97; // rounded down: 990
    j.queue = "urgent";
    j.nnodes = 2;
    j.ncores = 8;
    j.duration = 90; // 1.5 minutes: 2
    const auto f = m.job(j);
    CHECK(f.submit_time == 990);
    CHECK(f.accrue_time == 990);
    CHECK(f.min_nodes == 2);
    CHECK(f.cpus == 8);
    CHECK(f.time_limit == 2);
    CHECK(f.queue == 1);
    CHECK(f.association == 0); // no bank: the default bank, ml
    CHECK(f.bank == 1);
    CHECK(f.urgency == 20);
    const auto c = m.context();
    CHECK(c.now == 1000);
    CHECK(c.node_count == 8);
    CHECK(c.cluster_cpus == 32);
    CHECK(c.fairshare[f.association] == 0.625);

    j.bank = "bio";
    j.queue = "scratch"; // unknown to the database
    j.nnodes = 0;        // no nodes in the jobspec
    j.ncores = -1;       // as job-list prints an unknown count
    j.duration = 0;
    const auto g = m.job(j);
    CHECK(g.association == 1);
    CHECK(g.bank == 2);
    CHECK(g.queue == mfprio::flux::no_index);
    CHECK(g.min_nodes == 0);
    CHECK(g.cpus == 0);
    CHECK(g.time_limit == mfprio::no_val32);

    j.userid = 5003; // no association at all
    j.bank = "";
    const auto h = m.job(j);
    CHECK(h.association == mfprio::flux::no_index);
    CHECK(h.bank == mfprio::flux::no_index);
    CHECK(m.association(5002, "ml") == mfprio::flux::no_index);
}

TEST_CASE("jobtap: the flux-accounting preset takes the database's weights, as mf_priority.so stores them") {
    jobtap_inputs in = bank_tree();
    // priority_factor_weight_table: the queue weight past the int range keeps its low 32 bits
    // (2^32 + 3 -> 3, flux::truncate_weight); the file's own urgency line wins.
    in.weights = {{"fairshare", 200000}, {"queue", 4294967299}, {"bank", 1000}, {"urgency", 7}};
    const jobtap_model m(std::move(in));
    auto e = mfprio::config::jobtap_engine("preset = flux-accounting\nurgency = 50\n", "p", m.inputs());
    REQUIRE(e);
    jobtap_job j;
    j.userid = 5001;
    j.bank = "bio";
    j.queue = "urgent";
    j.urgency = 18;
    // 200000 x 0.5 + 3 x 20 + 1000 x 4 + 50 x (18 - 16) = 100000 + 60 + 4000 + 100
    CHECK(e->priority(m.job(j), m.context()).value == 104160);
    // Without database weights: the defaults 100000, 10000, 0 and the file's 50:
    // 50000 + 200000 + 0 + 100.
    const jobtap_model plain(bank_tree());
    auto d = mfprio::config::jobtap_engine("preset = flux-accounting\nurgency = 50\n", "p", plain.inputs());
    REQUIRE(d);
    CHECK(d->priority(plain.job(j), plain.context()).value == 250100);
    // A policy not starting from the preset ignores them.
    auto own = mfprio::config::jobtap_engine("bank = 1\n", "p", m.inputs());
    REQUIRE(own);
    CHECK(own->priority(m.job(j), m.context()).value == 4);
}

TEST_CASE("jobtap: the query's report, and its bad input at the value") {
    using mfprio::inputs::read_jobtap_report;
    const auto r = read_jobtap_report(
        "{\"name\":\"mfprio_priority.so\",\"policy\":\"flux-core\",\"policy_text\":\"preset = flux-core\\n\",\"now\":1000,"
        "\"refreshed\":1000.25,\"nodes\":8,\"cores\":32,\"generation\":3,\"reloaded\":false,\"queues\":[[\"batch\",1]],"
        "\"banks\":[[\"ml\",2.5]],\"associations\":[[5001,\"ml\",0.625,\"ml\"]],\"weights\":[[\"bank\",1000]]}\n",
        "q.json");
    REQUIRE(r);
    CHECK(r->policy_text == "preset = flux-core\n");
    CHECK(r->inputs.now == 1000);
    CHECK(r->refreshed == 1000.25);
    CHECK(r->generation == 3);
    CHECK(r->inputs.banks.at(0).second == 2.5);
    CHECK(r->inputs.associations.at(0).default_bank == "ml");
    CHECK(r->inputs.weights.at(0).second == 1000);

    // "cores" is a string: its value starts at column 55.
    const auto cores = read_jobtap_report("{\"policy_text\":\"age = 1\\n\",\"now\":17,\"nodes\":2,\"cores\":\"8\"}", "q.json");
    REQUIRE_FALSE(cores);
    CHECK(cores.error().to_string() == "q.json:1:55: \"cores\" is not a whole number from 0 to 4294967295");
    // A fair-share of 2 (column 55) in an association.
    const auto fs = read_jobtap_report("{\"policy_text\":\"x\",\"now\":1,\"associations\":[[5001,\"ml\",2,\"ml\"]]}", "q.json");
    REQUIRE_FALSE(fs);
    CHECK(fs.error().to_string() ==
          "q.json:1:55: each entry of \"associations\" is [user id, bank, fair-share, default bank]");
    // Cut after 46 bytes: the error at the end.
    const auto cut = read_jobtap_report("{\"policy_text\":\"x\",\"now\":1,\"queues\":[[\"batch\",", "q.json");
    REQUIRE_FALSE(cut);
    CHECK(cut.error().to_string().starts_with("q.json:1:47: not valid JSON"));
    const auto none = read_jobtap_report("{\"policy_text\":\"x\"}", "q.json");
    REQUIRE_FALSE(none);
    CHECK(none.error().to_string() == "q.json:1:1: not `flux jobtap query mfprio_priority.so` output: \"now\" is missing");
}

TEST_CASE("jobtap: the twin computes pending jobs only") {
    const jobtap_model m(bank_tree());
    auto e = mfprio::config::jobtap_engine("queue = 100\nurgency = 1\n", "p", m.inputs());
    REQUIRE(e);
    std::vector<mfprio::config::flux_job_row> jobs(2);
    jobs[0].state = "SCHED";
    jobs[0].queue = "urgent";
    jobs[0].urgency = 10;
    jobs[1].state = "RUN";
    const auto p = mfprio::inputs::jobtap_priorities(jobs, m, *e);
    REQUIRE(p.size() == 2);
    CHECK(p[0] == 1994); // 100 x 20 + (10 - 16)
    CHECK_FALSE(p[1]);
}

TEST_CASE("jobtap: the captures of tests/live/flux_plugin.sh replayed: every pending job as Flux held it") {
    // Captured by `mfprio queue --live --save` inside a real flux-core 0.88.0 instance with
    // mfprio_priority.so loaded (flux-accounting 0.60.0's database of three bank levels):
    // plugin_accounting under the flux-accounting preset, plugin_site under a five-term policy
    // refreshed every 8 seconds (age, size, queue, fair-share, urgency; queues moved and
    // urgencies changed between refreshes), plugin_edited after its weights changed,
    // plugin_malformed with a malformed file refused and the policy before in force.
    for (const char* name : {"plugin_accounting", "plugin_site", "plugin_edited", "plugin_malformed"}) {
        CAPTURE(name);
        const std::string dir = std::string(MFPRIO_TEST_DATA) + "/flux/" + name;
        const std::vector<std::string_view> args{"--from", dir, "--check"};
        const auto o = mfprio::cli::run_queue(args);
        CHECK(o.status == 0);
        CHECK(o.out.find(" pending jobs compared, 0 differ, queue order identical\n") != std::string::npos);
        // The malformed file's error is said, with its place (line 8, column 23).
        CHECK((o.err.find("site.policy:8:23: jobsize.favor_small: expected yes or no, not 'maybe'") != std::string::npos) ==
              (std::string_view(name) == "plugin_malformed"));
    }
    // Another policy than the one in force: said on stderr, and every job differs.
    const std::string dir = std::string(MFPRIO_TEST_DATA) + "/flux/plugin_site";
    const std::vector<std::string_view> args{"--from", dir, "--check", "--policy", "flux-core"};
    const auto o = mfprio::cli::run_queue(args);
    CHECK(o.status == 1);
    CHECK(o.err.find("mfprio_priority.so runs another policy than flux-core") != std::string::npos);
    CHECK(o.out.find("check: 390 pending jobs compared, ") != std::string::npos);
    CHECK(o.out.find(", 0 differ") == std::string::npos);
    // The options of flux-accounting's plugin do not apply.
    const std::vector<std::string_view> set{"--from", dir, "--set", "weight.queue=1"};
    CHECK(mfprio::cli::run_queue(set).status == mfprio::cli::exit_usage);
}
