// Tests for mfprio/read/slurm_conf.hpp. Expected values come from the seeds (000:
// "Configuration Example" and the TRESBillingWeights example) and from the reference
// (§1.3 PriorityFlags, §1.4 parameters and defaults), and from Slurm's parse_config.c /
// parse_value.c / read_config.c behaviour as described in the header.
#include <doctest/doctest.h>

#include <mfprio/read/slurm_conf.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h> // getpid

using namespace mfprio::config;
using mfprio::slurm::priority_flag;
using mfprio::slurm::priority_flags;

namespace {

/// Parses `text` and expects an error whose message contains `what`, at `line`.
mfprio::input_error conf_error(const std::string& text, std::size_t line, const std::string& what,
                               const std::string& key = {}) {
    const auto c = parse_slurm_conf(text, "test.conf");
    REQUIRE_FALSE(c);
    const auto& e = c.error();
    CAPTURE(e.to_string());
    CHECK(e.file == "test.conf");
    CHECK(e.line == line);
    CHECK(e.message.find(what) != std::string::npos);
    if (!key.empty()) CHECK(e.key == key);
    return e;
}

/// A fresh, empty temporary directory, removed by the destructor.
struct temp_dir {
    std::filesystem::path path;
    temp_dir() {
        static int counter = 0;
        path = std::filesystem::temp_directory_path() /
               ("mfprio_conf_test_" + std::to_string(::getpid()) + "_" + std::to_string(++counter));
        std::filesystem::remove_all(path);
        std::filesystem::create_directories(path);
    }
    ~temp_dir() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
    void write(const std::string& name, const std::string& text) const {
        const auto p = path / name;
        std::filesystem::create_directories(p.parent_path());
        std::ofstream(p, std::ios::binary) << text;
    }
    [[nodiscard]] std::string operator/(const std::string& name) const { return (path / name).string(); }
};

bool approx(double a, double b) { return a == doctest::Approx(b).epsilon(1e-12); }

} // namespace

TEST_CASE("config: slurm.conf defaults are Slurm's (reference 1.4)") {
    const auto c = parse_slurm_conf("");
    REQUIRE(c);
    CHECK(c->priority_type == "priority/multifactor");
    CHECK(c->decay_half_life == 604800);
    CHECK(c->calc_period == 300);
    CHECK(c->max_age == 604800);
    CHECK(c->usage_reset == usage_reset_period::none);
    CHECK_FALSE(c->favor_small);
    CHECK(c->weight_age == 0);
    CHECK(c->weight_assoc == 0);
    CHECK(c->weight_fairshare == 0);
    CHECK(c->weight_job_size == 0);
    CHECK(c->weight_partition == 0);
    CHECK(c->weight_qos == 0);
    CHECK(c->weight_tres.empty());
    CHECK(c->weight_tres_text.empty());
    CHECK(c->flags == priority_flags{});
    CHECK(c->flags.has(priority_flag::fair_tree));
    CHECK(c->fairshare_dampening == 1);
    CHECK(c->accounting_storage_type.empty());
    CHECK(c->nodes.empty());
    CHECK(c->partitions.empty());
    CHECK(c->total_cpus() == 0);
    CHECK_FALSE(c->default_partition());
}

TEST_CASE("config: slurm.conf seed 000 first configuration example") {
    // Seed 000, "Configuration Example", first example, verbatim (incl. the inline comment).
    const char* text = R"(# Activate the Multi-factor Job Priority Plugin with decay
PriorityType=priority/multifactor

# 2 week half-life
PriorityDecayHalfLife=14-0

# The larger the job, the greater its job size priority.
PriorityFavorSmall=NO

# The job's age factor reaches 1.0 after waiting in the
# queue for 2 weeks.
PriorityMaxAge=14-0

# This next group determines the weighting of each of the
# components of the Multi-factor Job Priority Plugin.
# The default value for each of the following is 1.
PriorityWeightAge=1000
PriorityWeightFairshare=10000
PriorityWeightJobSize=1000
PriorityWeightPartition=1000
PriorityWeightQOS=0 # don't use the qos factor
)";
    const auto c = parse_slurm_conf(text);
    REQUIRE(c);
    CHECK(c->priority_type == "priority/multifactor");
    CHECK(c->decay_half_life == 1209600); // 14-0
    CHECK(c->max_age == 1209600);
    CHECK_FALSE(c->favor_small);
    CHECK(c->weight_age == 1000);
    CHECK(c->weight_fairshare == 10000);
    CHECK(c->weight_job_size == 1000);
    CHECK(c->weight_partition == 1000);
    CHECK(c->weight_qos == 0);
    CHECK(c->weight_assoc == 0); // not in the example: Slurm's default is 0 (the seed's "1" is outdated)
}

TEST_CASE("config: slurm.conf seed 000 second example (no decay, monthly reset)") {
    const auto c = parse_slurm_conf("PriorityType=priority/multifactor\n"
                                    "PriorityDecayHalfLife=0\n"
                                    "PriorityUsageResetPeriod=MONTHLY\n"
                                    "PriorityFavorSmall=NO\n");
    REQUIRE(c);
    CHECK(c->decay_half_life == 0);
    CHECK(c->usage_reset == usage_reset_period::monthly);
}

TEST_CASE("config: slurm.conf time keys round up to minutes") {
    const auto c = parse_slurm_conf("PriorityDecayHalfLife=1:30\nPriorityMaxAge=2-12\n"
                                    "PriorityCalcPeriod=0:01\n");
    REQUIRE(c);
    CHECK(c->decay_half_life == 120); // 90 s -> 2 min (time_str2mins rounds up) -> 120 s
    CHECK(c->max_age == 216000);
    CHECK(c->calc_period == 60);
    const auto d = parse_slurm_conf("PriorityCalcPeriod=10\nPriorityMaxAge=UNLIMITED\n"
                                    "PriorityDecayHalfLife=infinite\n");
    REQUIRE(d);
    CHECK(d->calc_period == 600);
    CHECK(d->max_age == 4294967236);        // (uint32)(INFINITE * 60), as Slurm stores it
    CHECK(d->decay_half_life == 4294967236);
}

TEST_CASE("config: slurm.conf PriorityUsageResetPeriod values and the half-life 0 rule") {
    const std::pair<const char*, usage_reset_period> cases[] = {
        {"none", usage_reset_period::none},       {"NOW", usage_reset_period::now},
        {"Daily", usage_reset_period::daily},     {"WEEKLY", usage_reset_period::weekly},
        {"monthly", usage_reset_period::monthly}, {"QUARTERLY", usage_reset_period::quarterly},
        {"YEARLY", usage_reset_period::yearly}};
    for (const auto& entry : cases) {
        CAPTURE(entry.first);
        const auto c = parse_slurm_conf(std::string("PriorityUsageResetPeriod=") + entry.first);
        REQUIRE(c);
        CHECK(c->usage_reset == entry.second);
    }
    // Slurm refuses half-life 0 only when PriorityUsageResetPeriod is absent.
    const auto e = conf_error("ClusterName=c\n\nPriorityDecayHalfLife=0\n", 3,
                              "needs a PriorityUsageResetPeriod", "PriorityDecayHalfLife");
    CHECK(e.column == 1);
    CHECK(parse_slurm_conf("PriorityDecayHalfLife=0\nPriorityUsageResetPeriod=NONE\n"));
    conf_error("PriorityUsageResetPeriod=hourly\n", 1, "bad value 'hourly'",
               "PriorityUsageResetPeriod");
}

TEST_CASE("config: slurm.conf PriorityFlags substring rules (reference 1.3)") {
    struct row {
        const char* text;
        std::vector<priority_flag> on;
    };
    const row rows[] = {
        {"FAIR_TREE", {priority_flag::fair_tree}}, // FAIR_TREE is the default, not a keyword
        {"NO_FAIR_TREE", {}},
        {"no_fair_tree,incr_only", {priority_flag::incr_only}},
        {"DEPTH_OBLIVIOUS", {priority_flag::depth_oblivious}}, // clears FAIR_TREE
        {"DEPTH_OBLIVIOUS,NO_FAIR_TREE", {priority_flag::depth_oblivious}},
        {"MAX_TRES", {priority_flag::fair_tree, priority_flag::max_tres}},
        // "MAX_TRES_GRES" contains "MAX_TRES": only MAX_TRES_GRES is set.
        {"MAX_TRES_GRES", {priority_flag::fair_tree, priority_flag::max_tres_gres}},
        {"MAX_TRES,MAX_TRES_GRES", {priority_flag::fair_tree, priority_flag::max_tres_gres}},
        {"NO_NORMAL_ALL",
         {priority_flag::fair_tree, priority_flag::no_normal_assoc, priority_flag::no_normal_part,
          priority_flag::no_normal_qos, priority_flag::no_normal_tres}},
        {"NO_NORMAL_QOS,NO_NORMAL_PART",
         {priority_flag::fair_tree, priority_flag::no_normal_part, priority_flag::no_normal_qos}},
        {"NO_NORMAL_ASSOC", {priority_flag::fair_tree, priority_flag::no_normal_assoc}},
        {"NO_NORMAL_TRES", {priority_flag::fair_tree, priority_flag::no_normal_tres}},
        {"ACCRUE_ALWAYS,SMALL_RELATIVE_TO_TIME,CALCULATE_RUNNING",
         {priority_flag::fair_tree, priority_flag::accrue_always,
          priority_flag::small_relative_to_time, priority_flag::calculate_running}},
        {"calculate_running", {priority_flag::fair_tree, priority_flag::calculate_running}},
        {"NONSENSE,FOO", {priority_flag::fair_tree}}, // unknown words are ignored, like Slurm
        {"xxINCR_ONLYxx", {priority_flag::fair_tree, priority_flag::incr_only}}, // substring
    };
    for (const auto& r : rows) {
        CAPTURE(r.text);
        const auto c = parse_slurm_conf(std::string("PriorityFlags=") + r.text);
        REQUIRE(c);
        priority_flags expected = priority_flags::none();
        for (const auto f : r.on) expected.set(f);
        CHECK(c->flags.bits == expected.bits);
        CHECK(c->flags_text == r.text);
    }
}

TEST_CASE("config: slurm.conf integer keys follow Slurm's strtoul rules") {
    const auto c = parse_slurm_conf("PriorityWeightAge=0x10\n"
                                    "PriorityWeightAssoc=010\n" // leading 0: octal, 8
                                    "PriorityWeightFairshare=2k\n"
                                    "PriorityWeightJobSize=UNLIMITED\n"
                                    "PriorityWeightPartition=4294967295\n"
                                    "priorityweightqos=+7\n" // keys are case-insensitive
                                    "FairShareDampeningFactor=5\n");
    REQUIRE(c);
    CHECK(c->weight_age == 16);
    CHECK(c->weight_assoc == 8);
    CHECK(c->weight_fairshare == 2048);
    CHECK(c->weight_job_size == 4294967295u);
    CHECK(c->weight_partition == 4294967295u);
    CHECK(c->weight_qos == 7);
    CHECK(c->fairshare_dampening == 5);
    CHECK(c->weights_may_overflow());
    CHECK_FALSE(parse_slurm_conf("PriorityWeightAge=1000")->weights_may_overflow());

    conf_error("PriorityWeightAge=-1\n", 1, "less than zero", "PriorityWeightAge");
    conf_error("PriorityWeightAge=4294967296\n", 1, "greater than 4294967295", "PriorityWeightAge");
    conf_error("PriorityWeightAge=4194304k\n", 1, "greater than 4294967295", "PriorityWeightAge");
    conf_error("PriorityWeightQOS=1.5\n", 1, "not a valid number", "PriorityWeightQOS");
    conf_error("PriorityWeightQOS=08\n", 1, "not a valid number", "PriorityWeightQOS");
    conf_error("PriorityWeightQOS=99999999999999999999999\n", 1, "out of range", "PriorityWeightQOS");
    conf_error("FairShareDampeningFactor=0\n", 1, "at least 1", "FairShareDampeningFactor");
    conf_error("FairShareDampeningFactor=65536\n", 1, "greater than 65535", "FairShareDampeningFactor");
    conf_error("FairShareDampeningFactor=2k\n", 1, "not a valid number", "FairShareDampeningFactor");
}

TEST_CASE("config: slurm.conf other simple keys") {
    const auto c = parse_slurm_conf("PriorityFavorSmall=yes\n"
                                    "AccountingStorageType=accounting_storage/slurmdbd\n"
                                    "AccountingStorageEnforce=associations,limits,qos\n"
                                    "ClusterName=MyCluster\n"
                                    "PriorityType=priority/basic\n");
    REQUIRE(c);
    CHECK(c->favor_small);
    CHECK(c->accounting_storage_type == "accounting_storage/slurmdbd");
    CHECK(c->accounting_storage_enforce == "associations,limits,qos");
    CHECK(c->cluster_name == "MyCluster");
    CHECK(c->priority_type == "priority/basic");
    for (const char* yes : {"YES", "true", "Up", "1"})
        CHECK(parse_slurm_conf(std::string("PriorityFavorSmall=") + yes)->favor_small);
    for (const char* no : {"NO", "false", "down", "0"})
        CHECK_FALSE(parse_slurm_conf(std::string("PriorityFavorSmall=") + no)->favor_small);
    conf_error("PriorityFavorSmall=maybe\n", 1, "not a valid option", "PriorityFavorSmall");
}

TEST_CASE("config: slurm.conf PriorityWeightTRES units and names") {
    const auto c = parse_slurm_conf("PriorityWeightTRES=CPU=1000,Mem=2000G,GRES/gpu=3000\n");
    REQUIRE(c);
    CHECK(c->weight_tres_text == "CPU=1000,Mem=2000G,GRES/gpu=3000");
    REQUIRE(c->weight_tres.size() == 3);
    CHECK(c->weight_tres[0] == tres_weight{"cpu", 1000.0});
    CHECK(c->weight_tres[1].name == "mem");
    CHECK(approx(c->weight_tres[1].weight, 2000.0 / 1024.0)); // per MB
    CHECK(c->weight_tres[2] == tres_weight{"gres/gpu", 3000.0});

    struct row {
        const char* text;
        const char* name;
        double weight;
    };
    const row rows[] = {
        {"Mem=0.25G", "mem", 0.25 / 1024.0},
        {"mem=1T", "mem", 1.0 / (1024.0 * 1024.0)},
        {"mem=1P", "mem", 1.0 / (1024.0 * 1024.0 * 1024.0)},
        {"mem=3M", "mem", 3.0},    // M is the base unit of mem: unchanged
        {"mem=3K", "mem", 3.0},    // below the base unit: Slurm leaves the weight unchanged
        {"mem=0.25GB", "mem", 0.25 / 1024.0},
        {"cpu=2048K", "cpu", 2.0}, // base 1: K divides by 1024
        {"cpu=1M", "cpu", 1.0 / (1024.0 * 1024.0)},
        {"node=1g", "node", 1.0 / (1024.0 * 1024.0 * 1024.0)},
        {"bb/datawarp=1G", "bb/datawarp", 1.0 / 1024.0}, // bb: base MB too
        {"CPU=-5", "cpu", -5.0},                          // negative weights allowed
        {"GRES/GPU:A100=7", "gres/GPU:A100", 7.0},        // type lower-cased, name kept
        {"License/Foo=1.5", "license/Foo", 1.5},
        {"fs/disk=2", "fs/disk", 2.0},
        {"energy=1e-3", "energy", 0.001},
        {"billing=1,vmem=2,pages=3,ic/ofed=4", "billing", 1.0},
    };
    for (const auto& r : rows) {
        CAPTURE(r.text);
        const auto w = parse_tres_weights(r.text);
        REQUIRE(w);
        REQUIRE_FALSE(w->empty());
        CHECK(w->front().name == r.name);
        CHECK(approx(w->front().weight, r.weight));
    }
    const auto repeated = parse_tres_weights("cpu=1,,mem=2, cpu=3 ,");
    REQUIRE(repeated);
    REQUIRE(repeated->size() == 2);
    CHECK(repeated->at(0) == tres_weight{"cpu", 3.0}); // Slurm overwrites: last value wins
    CHECK(repeated->at(1) == tres_weight{"mem", 2.0});
}

TEST_CASE("config: slurm.conf TRES weight errors") {
    struct row {
        const char* text;
        const char* message;
        std::size_t column;
    };
    const row rows[] = {
        {"cpu=1,foo=2", "unknown TRES type 'foo'", 7},
        {"cpu", "not of the form", 1},
        {"cpu=", "not of the form", 1},
        {"cpu=1,gres=2", "needs a name", 7},
        {"cpu/x=1", "takes no name", 1},
        {"cpu=abc", "has no number", 1},
        {"cpu=1X", "unit must be one of", 1},
        {"mem=1GX", "unit must be one of", 1},
        {"cpu=1T", "too large for cpu", 1},
        {"gres/gpu=1P", "too large for gres/gpu", 1},
    };
    for (const auto& r : rows) {
        CAPTURE(r.text);
        const auto w = parse_tres_weights(r.text);
        REQUIRE_FALSE(w);
        CHECK(w.error().message.find(r.message) != std::string::npos);
        CHECK(w.error().column == r.column);
    }
    // Inside slurm.conf the error names the key, the line and the column of the item.
    const auto e = conf_error("ClusterName=x\nPriorityWeightTRES=CPU=1,Bogus=2\n", 2,
                              "unknown TRES type", "PriorityWeightTRES");
    CHECK(e.column == 26);
}

TEST_CASE("config: slurm.conf seed 000 billing example: CPU=1.0,Mem=0.25G") {
    // Seed 000: TRESBillingWeights=CPU=1.0,Mem=0.25G on 16 CPU / 64 GB nodes bills
    // Job1 (1 CPU, 60 GB) 16, Job2 (16 CPU, 1 GB) 16.25, Job3 (16 CPU, 60 GB) 31.
    const auto c = parse_slurm_conf("NodeName=n[1-2] CPUs=16 RealMemory=65536\n"
                                    "PartitionName=p Nodes=ALL TRESBillingWeights=CPU=1.0,Mem=0.25G\n");
    REQUIRE(c);
    REQUIRE(c->partitions.size() == 1);
    const auto& part = c->partitions[0];
    CHECK(part.billing_weights_text == "CPU=1.0,Mem=0.25G");
    REQUIRE(part.billing_weights.size() == 2);
    const double w_cpu = part.billing_weights[0].weight;
    const double w_mem = part.billing_weights[1].weight; // per MB
    auto bill = [&](double cpus, double mem_gb) { return cpus * w_cpu + mem_gb * 1024.0 * w_mem; };
    CHECK(bill(1, 60) == 16.0);
    CHECK(bill(16, 1) == 16.25);
    CHECK(bill(16, 60) == 31.0);
}

TEST_CASE("config: slurm.conf comments, continuation, escapes, quotes, blanks around '='") {
    const char* text = "PriorityWeightAge = 1000   # trailing comment\n"
                       "   PriorityWeightQOS=5\n"
                       "PriorityFlags=NO_FAIR_TREE,\\\n"
                       "INCR_ONLY\n"
                       "PriorityWeightTRES=cpu=1,\\   \n"
                       "mem=2\n" // joined without a separator: leading blanks would end the value
                       "ClusterName=a\\#b\n"
                       "AccountingStorageEnforce=\"limits,qos\"\n"
                       "PriorityType=x\\\\y # a literal backslash\n"
                       "# PriorityWeightJobSize=99\n"
                       "PriorityWeightFairshare=7 # also \\\n"
                       "PriorityWeightJobSize=8\n";
    const auto c = parse_slurm_conf(text);
    REQUIRE(c);
    CHECK(c->weight_age == 1000);
    CHECK(c->weight_qos == 5);
    CHECK(c->flags_text == "NO_FAIR_TREE,INCR_ONLY");
    CHECK(c->flags.has(priority_flag::incr_only));
    CHECK_FALSE(c->flags.has(priority_flag::fair_tree));
    CHECK(c->weight_tres_text == "cpu=1,mem=2");
    REQUIRE(c->weight_tres.size() == 2);
    CHECK(c->cluster_name == "a#b");
    CHECK(c->accounting_storage_enforce == "limits,qos");
    CHECK(c->priority_type == "x\\y");
    CHECK(c->weight_fairshare == 7); // the backslash was inside the comment: no continuation
    CHECK(c->weight_job_size == 8);
}

TEST_CASE("config: slurm.conf last value of a repeated key wins, unknown keys are ignored") {
    const auto c = parse_slurm_conf("PriorityWeightAge=1\n"
                                    "SlurmctldHost=ctl(10.0.0.1) whatever is here\n"
                                    "DownNodes=n1 State=DOWN Reason=\"disk broken\"\n"
                                    "SchedulerParameters=bf_window=4320\n"
                                    "PriorityWeightAge=2\n");
    REQUIRE(c);
    CHECK(c->weight_age == 2);
}

TEST_CASE("config: slurm.conf line syntax errors") {
    conf_error("ClusterName=x\nthis is not a pair\n", 2, "expected Key=Value");
    conf_error("PriorityWeightAge=1 PriorityWeightQOS=2\n", 1, "one Key=Value per line",
               "PriorityWeightAge");
    conf_error("PriorityWeightAge=\"\"\n", 1, "empty value", "PriorityWeightAge");
    conf_error("PriorityWeightAge+=1\n", 1, "operator '+=' is not supported", "PriorityWeightAge");
    conf_error("PriorityWeightAge=\n", 1, "expected Key=Value");
    const auto e = conf_error("\n\nPriorityFlags=A,\\\n  B C\n", 4, "one Key=Value per line",
                              "PriorityFlags");
    CHECK(e.column == 3); // pieces join without a separator: "A,  B C" ends the value at "A,"
    CHECK(e.message.find("'B C'") != std::string::npos);
    conf_error("PriorityDecayHalfLife=2 weeks\n", 1, "one Key=Value per line");
    conf_error("PriorityDecayHalfLife=2w\n", 1, "invalid time '2w'", "PriorityDecayHalfLife");
    conf_error("PriorityMaxAge=1-2-3\n", 1, "invalid time", "PriorityMaxAge");
    conf_error("PriorityCalcPeriod=0\n", 1, "at least one minute", "PriorityCalcPeriod");
    conf_error("PriorityCalcPeriod=UNLIMITED\n", 1, "at least one minute", "PriorityCalcPeriod");
    conf_error("PriorityCalcPeriod=x\n", 1, "invalid time", "PriorityCalcPeriod");
}

TEST_CASE("config: slurm.conf NodeName lines, DEFAULT and CPU rules") {
    const char* text = "NodeName=DEFAULT CPUs=8 RealMemory=1000 State=UNKNOWN\n"
                       "NodeName=n[01-03] RealMemory=192000 Gres=gpu:4,gpu:a100:2\n"
                       "NodeName=DEFAULT Sockets=2\n" // adds to the defaults (CPUs=8 still there)
                       "NodeName=m1 Feature=big\n"
                       "NodeName=DEFAULT CPUs=1 RealMemory=1\n"
                       "NodeName=b1 Boards=2 Sockets=2 CoresPerSocket=16 ThreadsPerCore=2 CPUs=128\n"
                       "NodeName=x1 Sockets=2 CoresPerSocket=16 ThreadsPerCore=2 Procs=64\n"
                       "NodeName=y1 Boards=2 SocketsPerBoard=2 CoresPerSocket=4 Gres=mps:2k,bandwidth:lustre:4G(S:0)\n"
                       "NodeName=z1 Gres=gpu:tesla:2(S:0-1),nic\n";
    const auto c = parse_slurm_conf(text);
    REQUIRE(c);
    REQUIRE(c->node_count() == 8);
    CHECK(c->nodes[0].name == "n01");
    CHECK(c->nodes[2].name == "n03");
    CHECK(c->nodes[0].cpus == 8);
    CHECK(c->nodes[0].real_memory == 192000);
    using gres = std::vector<std::pair<std::string, std::uint64_t>>;
    CHECK(c->nodes[1].gres == gres{{"gpu", 4}, {"gpu:a100", 2}});
    CHECK(c->nodes[3].name == "m1");
    CHECK(c->nodes[3].cpus == 8); // CPUs=8 from the first DEFAULT line
    CHECK(c->nodes[3].real_memory == 1000);
    CHECK(c->nodes[3].gres.empty());
    CHECK(c->nodes[4].name == "b1");
    CHECK(c->nodes[4].cpus == 128);
    CHECK(c->nodes[5].cpus == 64);
    CHECK(c->nodes[6].name == "y1");
    CHECK(c->nodes[6].cpus == 1); // CPUs=1 from the last DEFAULT counts as given
    CHECK(c->nodes[6].gres == gres{{"mps", 2048}, {"bandwidth:lustre", 4ull << 30}});
    CHECK(c->nodes[7].gres == gres{{"gpu:tesla", 2}, {"nic", 1}});
    CHECK(c->total_cpus() == 3 * 8 + 8 + 128 + 64 + 1 + 1);
    CHECK(c->find_node("m1") == 3);
    CHECK_FALSE(c->find_node("nope"));

    // CPUs computed from the topology when not given (first DEFAULT has no CPUs here).
    const auto t = parse_slurm_conf("NodeName=a Boards=2 Sockets=2 CoresPerSocket=8 ThreadsPerCore=2\n"
                                    "NodeName=b Sockets=4\n"
                                    "NodeName=c\n"
                                    "NodeName=d Boards=2 SocketsPerBoard=2 CoresPerSocket=4\n");
    REQUIRE(t);
    CHECK(t->nodes[3].cpus == 2 * 2 * 4); // Boards*SocketsPerBoard*CoresPerSocket*ThreadsPerCore
    CHECK(t->nodes[0].cpus == 64);
    CHECK(t->nodes[1].cpus == 4);
    CHECK(t->nodes[2].cpus == 1);
    CHECK(t->nodes[2].real_memory == 1);
}

TEST_CASE("config: slurm.conf NodeName errors") {
    conf_error("NodeName=n1 CPUs=0\n", 1, "at least 1", "CPUs");
    conf_error("NodeName=n1 CPUs=65536\n", 1, "greater than 65535", "CPUs");
    conf_error("NodeName=n1 CPUs=UNLIMITED\n", 1, "UNLIMITED is not a valid value", "CPUs");
    conf_error("NodeName=n1 Sockets=x\n", 1, "not a valid number", "Sockets");
    conf_error("NodeName=n1 RealMemory=-5\n", 1, "less than zero", "RealMemory");
    conf_error("NodeName=n1 Sockets=256 CoresPerSocket=256\n", 1, "more than Slurm's 65535 CPUs",
               "CPUs");
    const auto g = conf_error("NodeName=n1 Gres=gpu:4,,gpu:2\n", 1, "empty Gres entry", "Gres");
    CHECK(g.column == 24);
    conf_error("NodeName=n1 Gres=gpu:1x\n", 1, "Gres count", "Gres");
    conf_error("NodeName=n1 Gres=:4\n", 1, "has no name", "Gres");
    const auto h = conf_error("NodeName=n[1-3 CPUs=2\n", 1, "unbalanced '['", "NodeName");
    CHECK(h.column == 11);
    conf_error("NodeName=n1\nNodeName=n[0-2]\n", 2, "node 'n1' is defined twice", "NodeName");
    conf_error("NodeName=n1 CPUs=2 garbage\n", 1, "expected Key=Value", "NodeName");
}

TEST_CASE("config: slurm.conf PartitionName lines") {
    const char* text = "PartitionName=DEFAULT MaxTime=1-00:00:00 PriorityTier=3 State=UP\n"
                       "PartitionName=normal Nodes=n[001-003] PriorityJobFactor=10 MaxTime=2-00:00:00 "
                       "TRESBillingWeights=CPU=1.0,Mem=0.25G Default=YES\n"
                       "PartitionName=all Nodes=ALL Priority=7 AllowGroups=ALL\n"
                       "PartitionName=DEFAULT PriorityJobFactor=65533\n"
                       "PartitionName=gpu Nodes=g1,n002,n[001-002] MaxTime=UNLIMITED Default=yes\n"
                       "PartitionName=empty\n"
                       "NodeName=n[001-003] CPUs=4\n" // nodes may come after the partitions
                       "NodeName=g1 CPUs=16\n";
    const auto c = parse_slurm_conf(text);
    REQUIRE(c);
    REQUIRE(c->partitions.size() == 4);
    const auto& normal = c->partitions[0];
    CHECK(normal.name == "normal");
    CHECK(normal.nodes == std::vector<std::uint32_t>{0, 1, 2});
    CHECK(normal.priority_job_factor == 10);
    CHECK(normal.priority_tier == 3);   // from DEFAULT
    CHECK(normal.max_time == 2 * 1440); // minutes
    CHECK(normal.billing_weights_text == "CPU=1.0,Mem=0.25G");
    CHECK(normal.billing_weights.size() == 2);
    CHECK_FALSE(normal.is_default); // a later Default=YES wins, as in Slurm
    const auto& all = c->partitions[1];
    CHECK(all.nodes == std::vector<std::uint32_t>{0, 1, 2, 3});
    CHECK(all.priority_job_factor == 7); // Priority= sets both
    CHECK(all.priority_tier == 7);
    CHECK(all.max_time == 1440); // DEFAULT MaxTime=1-00:00:00
    const auto& gpu = c->partitions[2];
    CHECK(gpu.nodes == std::vector<std::uint32_t>{0, 1, 3}); // node-table order, no duplicates
    CHECK(gpu.priority_job_factor == 65533);
    CHECK(gpu.max_time == mfprio::infinite32);
    CHECK(gpu.is_default);
    CHECK(c->partitions[3].nodes.empty());
    CHECK(c->partitions[3].priority_job_factor == 65533);
    CHECK(c->partitions[3].priority_tier == 3);
    CHECK(c->find_partition("gpu") == 2);
    CHECK_FALSE(c->find_partition("GPU")); // partition names are case-sensitive
    CHECK(c->default_partition() == 2);
    CHECK(c->total_cpus() == 3 * 4 + 16);

    const auto plain = parse_slurm_conf("PartitionName=p\n");
    REQUIRE(plain);
    CHECK(plain->partitions[0].priority_job_factor == 1);
    CHECK(plain->partitions[0].priority_tier == 1);
    CHECK(plain->partitions[0].max_time == mfprio::infinite32);
    CHECK_FALSE(plain->partitions[0].is_default);
    CHECK_FALSE(plain->default_partition());
}

TEST_CASE("config: slurm.conf PartitionName errors") {
    const auto e = conf_error("NodeName=n1\nPartitionName=p Nodes=n[1-2]\n", 2,
                              "node 'n2' is not defined", "Nodes");
    CHECK(e.column == 23);
    conf_error("PartitionName=p Nodes=n[2-1]\n", 1, "reversed range", "Nodes");
    conf_error("PartitionName=p PriorityJobFactor=65534\n", 1, "greater than 65533",
               "PriorityJobFactor");
    conf_error("PartitionName=p Priority=70000\n", 1, "greater than 65535", "Priority");
    conf_error("PartitionName=p PriorityTier=-1\n", 1, "less than zero", "PriorityTier");
    conf_error("PartitionName=p MaxTime=forever\n", 1, "invalid time", "MaxTime");
    conf_error("PartitionName=p Default=perhaps\n", 1, "not a valid option", "Default");
    conf_error("PartitionName=p TRESBillingWeights=CPU=x\n", 1, "has no number",
               "TRESBillingWeights");
    conf_error("PartitionName=p\nPartitionName=p\n", 2, "partition 'p' is defined twice",
               "PartitionName");
    conf_error("PartitionName=p Nodes=ALL =x\n", 1, "expected Key=Value", "PartitionName");
}

TEST_CASE("config: slurm.conf Include relative to the including file, errors name the right file") {
    temp_dir dir;
    dir.write("slurm.conf", "ClusterName=Alpha\n"
                            "PriorityWeightAge=1\n"
                            "Include prio.conf\n"
                            "include   sub/nodes.conf  \n"
                            "INCLUDE %c-extra.conf\n"
                            "PriorityWeightQOS=3\n");
    dir.write("prio.conf", "PriorityWeightAge=10\nPriorityWeightFairshare=20\n");
    dir.write("sub/nodes.conf", "NodeName=n[1-2] CPUs=4\nInclude parts.conf\n");
    dir.write("sub/parts.conf", "PartitionName=p Nodes=ALL Default=YES\n");
    dir.write("alpha-extra.conf", "PriorityWeightJobSize=5\n");
    const auto c = read_slurm_conf(dir / "slurm.conf");
    REQUIRE(c);
    CHECK(c->weight_age == 10); // the included file came after the first value
    CHECK(c->weight_fairshare == 20);
    CHECK(c->weight_job_size == 5);
    CHECK(c->weight_qos == 3);
    CHECK(c->node_count() == 2);
    REQUIRE(c->partitions.size() == 1);
    CHECK(c->partitions[0].nodes.size() == 2);

    // From a string, Include resolves against base_dir.
    const auto s = parse_slurm_conf("Include prio.conf\n", "inline.conf", dir.path.string());
    REQUIRE(s);
    CHECK(s->weight_fairshare == 20);

    // A missing included file: the including file and its line.
    dir.write("missing.conf", "ClusterName=x\nInclude nothere.conf\n");
    const auto m = read_slurm_conf(dir / "missing.conf");
    REQUIRE_FALSE(m);
    CHECK(m.error().file == dir / "missing.conf");
    CHECK(m.error().line == 2);
    CHECK(m.error().key == "Include");
    CHECK(m.error().message.find("cannot open included file") != std::string::npos);

    // An error inside an included file names that file and its own line.
    dir.write("bad_inner.conf", "\n\nPriorityWeightAge=lots\n");
    dir.write("outer.conf", "Include bad_inner.conf\n");
    const auto b = read_slurm_conf(dir / "outer.conf");
    REQUIRE_FALSE(b);
    CHECK(b.error().file == dir / "bad_inner.conf");
    CHECK(b.error().line == 3);
    CHECK(b.error().key == "PriorityWeightAge");

    // A cycle: a -> b -> a.
    dir.write("a.conf", "Include b.conf\n");
    dir.write("b.conf", "ClusterName=x\nInclude a.conf\n");
    const auto cyc = read_slurm_conf(dir / "a.conf");
    REQUIRE_FALSE(cyc);
    CHECK(cyc.error().file == dir / "b.conf");
    CHECK(cyc.error().line == 2);
    CHECK(cyc.error().message.find("Include cycle") != std::string::npos);

    // Self-inclusion.
    dir.write("self.conf", "Include self.conf\n");
    const auto self = read_slurm_conf(dir / "self.conf");
    REQUIRE_FALSE(self);
    CHECK(self.error().message.find("Include cycle") != std::string::npos);

    // %c without ClusterName; Include with '='; Include without a path; trailing text.
    conf_error("Include %c.conf\n", 1, "no ClusterName", "Include");
    conf_error("Include=foo.conf\n", 1, "not '='", "Include");
    conf_error("Include\n", 1, "needs a file name", "Include");
    conf_error("Include a.conf b.conf\n", 1, "after the Include path", "Include");
}

TEST_CASE("config: slurm.conf read_slurm_conf on a missing file") {
    const auto c = read_slurm_conf("/no/such/slurm.conf");
    REQUIRE_FALSE(c);
    CHECK(c.error().file == "/no/such/slurm.conf");
    CHECK(c.error().line == 0);
    CHECK(c.error().message == "cannot open file");
}

TEST_CASE("config: slurm.conf canonical TRES names") {
    CHECK(*canonical_tres_name("CPU") == "cpu");
    CHECK(*canonical_tres_name(" Mem ") == "mem");
    CHECK(*canonical_tres_name("GRES/gpu:A100") == "gres/gpu:A100");
    CHECK(*canonical_tres_name("BB/datawarp") == "bb/datawarp");
    CHECK(canonical_tres_name("gpu").error().message.find("unknown TRES type 'gpu'") !=
          std::string::npos);
    CHECK(canonical_tres_name("license/").error().message.find("needs a name") != std::string::npos);
    CHECK(tres_base_unit("mem") == 2);
    CHECK(tres_base_unit("bb/x") == 2);
    CHECK(tres_base_unit("gres/gpu") == 0);
}

TEST_CASE("config: slurm.conf node and partition sizes are bounded") {
    // 200,000 nodes in all: one line can reach the bound, one node more cannot.
    const auto full = parse_slurm_conf("NodeName=n[1-199999] CPUs=1\nNodeName=last CPUs=1\n");
    REQUIRE(full);
    CHECK(full->nodes.size() == 200000);
    conf_error("NodeName=n[1-199999] CPUs=1\nNodeName=a,b CPUs=1\n", 2,
               "the NodeName lines define more than 200000 nodes, the most mfprio reads", "NodeName");
    conf_error("NodeName=n[1-99999999] CPUs=1\n", 1, "more than 200000 nodes", "NodeName");
    // 2,000,000 partition memberships in all: ten partitions of all 200,000 nodes, not eleven.
    std::string parts = "NodeName=n[1-200000] CPUs=1\n";
    for (int i = 0; i < 10; ++i) parts += "PartitionName=p" + std::to_string(i) + " Nodes=ALL\n";
    REQUIRE(parse_slurm_conf(parts));
    const auto e = conf_error(parts + "PartitionName=extra Nodes=n[1-2]\n", 12,
                              "the partitions list more than 2000000 nodes in all", "Nodes");
    CHECK(e.column == 27);
    conf_error(parts + "PartitionName=extra Nodes=ALL\n", 12, "more than 2000000 nodes in all", "Nodes");
}

TEST_CASE("config: slurm.conf of more partitions than a job's 16-bit index holds") {
    std::string text = "NodeName=n1 CPUs=1\n";
    for (int i = 0; i < 65536; ++i) text += "PartitionName=p" + std::to_string(i) + "\n";
    REQUIRE(parse_slurm_conf(text));
    conf_error(text + "PartitionName=one_more\n", 65538, "more than 65536 partitions", "PartitionName");
}
