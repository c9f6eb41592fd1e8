// Tests for mfprio/config/config.hpp (the umbrella): the four readers used together, as the
// command-line tool does: slurm.conf, the QOS table, sshare output and a jobs table.
#include <doctest/doctest.h>

#include <mfprio/config/config.hpp>

#include <string>

using namespace mfprio::config;

TEST_CASE("config: umbrella header, all readers together") {
    const auto conf = parse_slurm_conf("PriorityWeightAge=1000\n"
                                       "PriorityWeightFairshare=10000\n"
                                       "PriorityWeightTRES=CPU=1000,Mem=2000G\n"
                                       "NodeName=n[01-04] CPUs=32 RealMemory=192000\n"
                                       "PartitionName=normal Nodes=ALL Default=YES\n");
    REQUIRE(conf);
    const auto qos = parse_qos_table("Name|Priority|UsageFactor\nnormal|0|1.000000\n");
    REQUIRE(qos);
    const auto assoc = parse_assoc_table("Account|User|RawShares|NormShares|RawUsage\n"
                                         "root|||1.000000|100\n"
                                         " a||1|1.000000|100\n"
                                         "  a|u|1|1.000000|100\n");
    REQUIRE(assoc);
    const auto jobs = parse_jobs_table("JobID|User|Account|Partition|SubmitTime|TRES\n"
                                       "1|u|a||1700000000|cpu=4,mem=8G\n",
                                       "jobs.txt", *conf, *qos, *assoc);
    REQUIRE(jobs);
    REQUIRE(jobs->jobs.size() == 1);
    const auto& j = jobs->jobs[0];
    CHECK(j.association == 2);
    CHECK(j.partitions == std::vector<std::uint32_t>{0});
    CHECK(j.qos == std::vector<std::uint32_t>{0});
    CHECK(conf->total_cpus() == 128);
    // mem weight per MB times mem in MB: 2000 per GB * 8 GB.
    CHECK(conf->weight_tres[1].weight * j.tres[1].second == 16000.0);
}
