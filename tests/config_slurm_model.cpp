// config/slurm_model.hpp: from Slurm's files to cluster tables, settings and jobs.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <mfprio/model.hpp>
#include <mfprio/read.hpp>
#include <mfprio/model/slurm_model.hpp>

namespace {

std::string data(const std::string& name) { return std::string(MFPRIO_TEST_DATA) + "/sprio/" + name; }

mfprio::expected<mfprio::config::slurm_model> load(std::string_view conf_text, std::string_view jobs_text) {
    using namespace mfprio::config;
    auto conf = parse_slurm_conf(conf_text, "test.conf");
    REQUIRE(conf);
    auto qos = parse_qos_table("Name|Priority\nnormal|0\nhigh|10\n", "qos.txt");
    REQUIRE(qos);
    auto assoc = parse_assoc_table("Account|User|FairShare\nroot||\n a||\n  a|u|0.5\n", "assoc.txt");
    REQUIRE(assoc);
    auto jobs = parse_jobs_table(jobs_text, "jobs.txt", *conf, *qos, *assoc);
    REQUIRE(jobs);
    return build_slurm_model(*conf, *qos, *assoc, *jobs, "test.conf");
}

constexpr std::string_view small_conf =
    "PriorityWeightTRES=CPU=1,GRES/gpu=2\n"
    "NodeName=n[1-3] CPUs=8 RealMemory=1000 Gres=gpu:2\n"
    "PartitionName=low Nodes=n[1-3] PriorityTier=1 Default=YES\n"
    "PartitionName=high Nodes=n1 PriorityTier=5\n";

} // namespace

TEST_CASE("config: the sprio scenario becomes cluster tables and jobs") {
    using namespace mfprio::config;
    auto conf = read_slurm_conf(data("slurm.conf"));
    auto qos = read_qos_table(data("qos.txt"));
    auto assoc = read_assoc_table(data("assoc.txt"));
    REQUIRE(conf);
    REQUIRE(qos);
    REQUIRE(assoc);
    auto jobs = read_jobs_table(data("jobs.txt"), *conf, *qos, *assoc);
    REQUIRE(jobs);
    auto m = build_slurm_model(*conf, *qos, *assoc, *jobs);
    REQUIRE(m);
    const auto& cl = m->cluster;
    // 8 nodes x 16 CPUs + 2 x 32 = 192 CPUs on 10 nodes (slurm.conf of the scenario)
    CHECK(cl.node_count() == 10);
    CHECK(cl.cpus() == 192);
    // gres/gpu is the first TRES after Slurm's eight fixed ones
    REQUIRE(cl.find_tres("gres/gpu"));
    CHECK(*cl.find_tres("gres/gpu") == 8);
    const auto gpu = *cl.find_partition("gpu");
    const auto& totals = cl.partitions()[gpu].tres_totals;
    CHECK(totals[mfprio::slurm::tres_id::cpu] == 64);
    CHECK(totals[mfprio::slurm::tres_id::mem] == 262144); // 2 x 131072 MB
    CHECK(totals[mfprio::slurm::tres_id::node] == 2);
    CHECK(totals[8] == 8);                                // 2 nodes x gpu:4
    // partition factors: PriorityJobFactor over the maximum (4)
    CHECK(cl.partitions()[gpu].norm_priority == 1.0);
    CHECK(cl.partitions()[*cl.find_partition("urgent")].norm_priority == 0.5);
    // weights and PriorityWeightTRES resolved to TRES ids in id order
    CHECK(m->weights.fairshare == 10000);
    REQUIRE(m->settings.tres.count == 3);
    CHECK(m->settings.tres.entries[0].id == 0);
    CHECK(m->settings.tres.entries[0].weight == 3000);
    CHECK(m->settings.tres.entries[1].id == 1);
    CHECK(m->settings.tres.entries[2].id == 8);
    CHECK(m->tres_weight_text == "CPU=3000,Mem=2000,GRES/gpu=6000");
    // job 1002 asked for cpu,urgent: urgent (tier 2) comes first and is the job's partition
    REQUIRE(m->lists.size() == m->jobs.size());
    const auto& j2 = m->jobs[1];
    CHECK(j2.id == 1002);
    REQUIRE(m->lists[1].partitions.size() == 2);
    CHECK(m->lists[1].partitions[0] == *cl.find_partition("urgent"));
    CHECK(m->lists[1].partitions[1] == *cl.find_partition("cpu"));
    CHECK(m->lists[1].qos.empty());
    CHECK(j2.partition == *cl.find_partition("urgent"));
    CHECK(j2.nice == 100);
    // job 1004 asked for normal,low: low (priority 50) first
    const auto& j4 = m->jobs[3];
    REQUIRE(m->lists[3].qos.size() == 2);
    CHECK(m->lists[3].qos[0] == *cl.find_qos("low"));
    CHECK(m->lists[3].partitions.empty());
    CHECK(j4.qos == *cl.find_qos("low"));
    // TRES counts by id in the jobs' request table, memory in MB (mem=8G -> 8192); the table
    // keeps a column for each TRES some job asks for: cpu, mem, node, gres/gpu (ids 0, 1, 3, 8)
    const auto requests = m->context(0).tres_requests;
    CHECK(requests.stride == 4);
    CHECK(m->tres_ids == std::vector<std::uint32_t>{0, 1, 3, 8});
    CHECK(requests.rows() == m->jobs.size());
    CHECK(requests.count(j4.tres_row, mfprio::slurm::tres_id::mem) == 8192);
    CHECK(requests.count(j4.tres_row, mfprio::slurm::tres_id::cpu) == 4);
    CHECK(requests.count(j4.tres_row, mfprio::slurm::tres_id::energy) == 0); // no column
    // the association priority is inherited from the account (chem 5)
    CHECK(cl.assoc_priority()[j4.association] == 5);
    // the model moves without breaking the views into its storage
    auto moved = std::move(*m);
    CHECK(moved.context(0).tres_requests.count(moved.jobs[3].tres_row, mfprio::slurm::tres_id::mem) == 8192);
    CHECK(moved.lists[1].partitions[0] == *moved.cluster.find_partition("urgent"));
}

TEST_CASE("config: ACCRUE_ALWAYS makes age accrue from the submit time") {
    const std::string with = std::string(small_conf) + "PriorityFlags=ACCRUE_ALWAYS\n";
    constexpr std::string_view jobs = "JobID|User|Account|Partition|QOS|SubmitTime|EligibleTime\n7|u|a|low|normal|1000|5000\n";
    auto always = load(with, jobs);
    REQUIRE(always);
    CHECK(always->jobs[0].accrue_time == 1000);
    auto normal = load(small_conf, jobs);
    REQUIRE(normal);
    CHECK(normal->jobs[0].accrue_time == 5000);
}

TEST_CASE("config: too many weighted TRES is an error naming PriorityWeightTRES") {
    std::string weights = "PriorityWeightTRES=";
    for (int i = 0; i < 33; ++i) weights += (i ? ",GRES/g" : "GRES/g") + std::to_string(i) + "=1";
    const std::string conf = weights + "\n" + std::string(small_conf.substr(small_conf.find('\n') + 1));
    auto m = load(conf, "JobID|User|Account|Partition|QOS|SubmitTime\n7|u|a|low|normal|1000\n");
    REQUIRE_FALSE(m);
    CHECK(m.error().file == "test.conf");
    CHECK(m.error().key == "PriorityWeightTRES");
    CHECK(m.error().message.find("more than 32 weighted TRES") != std::string::npos);
}
