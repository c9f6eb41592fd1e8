// Tests for mfprio/model/slurm_cluster.hpp: a cluster's parsed inputs to a model, the
// fair-share factors taken (Fair Tree's rank / N restored from sshare's six decimals, as
// Slurm's fair_tree.c computes them) or computed, and the release number.
#include <doctest/doctest.h>

#include <memory>
#include <string>

#include <mfprio/model/slurm_cluster.hpp>

namespace {
using namespace mfprio;

config::parsed_cluster cluster(const std::string& assoc_text, const std::string& flags) {
    config::parsed_cluster pc;
    auto conf = config::parse_slurm_conf("PriorityWeightFairshare=1000\nNodeName=n1 CPUs=4\nPartitionName=p Nodes=n1 Default=YES\n" + flags, "slurm.conf");
    auto qos = config::parse_qos_table("Name|Priority|UsageFactor\nnormal|0|1.0\n", "qos.txt");
    auto assoc = config::parse_assoc_table(assoc_text, "assoc.txt");
    REQUIRE(conf);
    REQUIRE(qos);
    REQUIRE(assoc);
    auto jobs = config::parse_jobs_table("JobID|User|Account|Partition|QOS|SubmitTime\n1|u1|a|p|normal|100\n2|u2|a|p|normal|100\n3|u3|a|p|normal|100\n", "jobs.txt",
                                         *conf, *qos, *assoc);
    REQUIRE(jobs);
    pc.conf = std::move(*conf);
    pc.qos = std::move(*qos);
    pc.assoc = std::move(*assoc);
    pc.jobs = std::make_shared<const config::jobs_table>(std::move(*jobs));
    pc.slurm_version = "22.05.8";
    return pc;
}
} // namespace

TEST_CASE("config: a cluster model takes Fair Tree's factors as rank / N, exactly") {
    // Three users: Fair Tree gives 1/3, 2/3 and 1 (rank / N); sshare prints 0.333333, 0.666667, 1.000000.
    const auto pc = cluster("Account|User|RawShares|FairShare\nroot|||\n a||1|\n  a|u1|1|0.333333\n  a|u2|1|0.666667\n"
                            "  a|u3|1|1.000000\n",
                            "");
    const auto m = config::build_cluster_model(pc, true);
    REQUIRE(m);
    CHECK(m->cluster.fairshare()[2] == 1.0 / 3.0);
    CHECK(m->cluster.fairshare()[3] == 2.0 / 3.0);
    CHECK(m->cluster.fairshare()[4] == 1.0);
    CHECK(m->settings.slurm_release == 2205);
    // Classic (NO_FAIR_TREE) factors are usage-dependent: taken as printed.
    const auto classic = config::build_cluster_model(
        cluster("Account|User|RawShares|FairShare\nroot|||\n a||1|\n  a|u1|1|0.333333\n  a|u2|1|0.5\n  a|u3|1|1\n",
                "PriorityFlags=NO_FAIR_TREE\n"),
        true);
    REQUIRE(classic);
    CHECK(classic->cluster.fairshare()[2] == 0.333333);
    // Taken without a FairShare column: an error naming the association input.
    auto bare = cluster("Account|User|RawShares\nroot||\n a||1\n  a|u1|1\n  a|u2|1\n  a|u3|1\n", "");
    bare.assoc_name = "assoc.txt";
    const auto e = config::build_cluster_model(bare, true);
    REQUIRE_FALSE(e);
    CHECK(e.error().key == "FairShare");
}

TEST_CASE("config: a release number from what the inputs print") {
    CHECK(config::slurm_version_number("22.05.8") == 2205);
    CHECK(config::slurm_version_number("24.11") == 2411);
    CHECK(config::slurm_version_number("22") == 0);
    CHECK(config::slurm_version_number("x.y") == 0);
}

TEST_CASE("config: charge_cluster needs RawUsage and refuses by kind without it") {
    // tests/data/whatif's association table has no RawUsage column.
    auto conf = mfprio::config::read_slurm_conf(std::string(MFPRIO_TEST_DATA) + "/whatif/slurm.conf");
    auto qos = mfprio::config::read_qos_table(std::string(MFPRIO_TEST_DATA) + "/whatif/qos.txt");
    auto assoc = mfprio::config::read_assoc_table(std::string(MFPRIO_TEST_DATA) + "/whatif/assoc.txt");
    REQUIRE(conf);
    REQUIRE(qos);
    REQUIRE(assoc);
    auto jobs = mfprio::config::read_jobs_table(std::string(MFPRIO_TEST_DATA) + "/whatif/jobs.txt", *conf, *qos, *assoc);
    REQUIRE(jobs);
    mfprio::config::parsed_cluster pc;
    pc.conf = std::move(*conf);
    pc.qos = std::move(*qos);
    pc.assoc = std::move(*assoc);
    pc.assoc_name = "assoc.txt";
    pc.jobs = std::make_shared<const mfprio::config::jobs_table>(std::move(*jobs));
    const auto e = mfprio::config::charge_cluster(pc, 1000, 3600);
    REQUIRE(e);
    CHECK(e->kind == mfprio::error_kind::shape);
    CHECK(e->file == "assoc.txt");
    CHECK(e->key == "RawUsage");
}
