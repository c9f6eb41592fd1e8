// `mfprio whatif` on small queues whose every number is worked out here by hand.
//
// tests/data/whatif/slurm.conf: only the partition (weight 1000) and QOS (weight 2000) factors
// count. Partitions a (PriorityJobFactor 1) and b (2), both tier 1: normalized by the largest
// factor, a = 0.5 -> 500, b = 1.0 -> 1000. QOS normal 0, high 100: normalized by the largest,
// 0 and 1 -> 0 and 2000. Jobs (all pending, eligible at submit; job 1 asks for 16 CPUs, the
// others 1; the cluster has 4 nodes of 4 CPUs, both partitions all of them):
//   1 alice chem a normal submit 100 -> 500
//   2 bob   chem b normal submit 200 -> 1000
//   3 carol phys a high   submit 300 -> 2500
//   4 dave  phys b normal submit 400 -> 1000
// Slurm's queue order (tier, then priority, then submit time): 3, 2, 4, 1. With 4 entries the
// head of the queue is 10% of 4, at least 1: the first position (job 3: carol, phys).
// Kendall's tau = 1 - 2 x inversions / (n(n-1)/2); a move is old position - new position.

#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>

#include <mfprio/read/slurm_conf.hpp>

#include "cli.hpp"

namespace {

std::string data(const std::string& name) { return std::string(MFPRIO_TEST_DATA) + "/whatif/" + name; }

mfprio::cli::outcome whatif(std::vector<std::string_view> extra, const char* conf = "slurm.conf",
                            const char* assoc = "assoc.txt", const char* jobs = "jobs.txt") {
    static std::vector<std::string> paths;
    paths = {data(conf), data("qos.txt"), data(assoc), data(jobs)};
    std::vector<std::string_view> args{"--conf", paths[0], "--qos", paths[1], "--assoc", paths[2], "--jobs", paths[3],
                                       "--now", "1000"};
    args.insert(args.end(), extra.begin(), extra.end());
    return mfprio::cli::run_whatif(args);
}

} // namespace

TEST_CASE("whatif: --help names every slurm.conf key --set changes, and --set takes each") {
    const std::vector<std::string_view> help_args{"whatif", "--help"};
    const auto help = mfprio::cli::run_main(help_args).out;
    std::size_t keys = 0;
    for (const auto& k : mfprio::config::slurm_conf_keys) {
        if (!k.settable) continue;
        CAPTURE(k.name);
        ++keys;
        CHECK(help.find(std::string(k.name)) != std::string::npos);
    }
    // slurm_conf.hpp's table: the seven PriorityWeight* (TRES among them), PriorityMaxAge,
    // PriorityCalcPeriod, PriorityDecayHalfLife, PriorityFavorSmall, PriorityFlags,
    // PriorityUsageResetPeriod and FairShareDampeningFactor.
    CHECK(keys == 14);
    CHECK(help.find("PriorityJobFactor") != std::string::npos);
    CHECK(help.find("assoc.ACCOUNT/USER.Shares") != std::string::npos);
}

TEST_CASE("whatif: a weight (PriorityWeightQOS=0)") {
    // After: 1 -> 500, 2 -> 1000, 3 -> 500, 4 -> 1000; order 2, 4 (submit 200 < 400), 1, 3
    // (submit 100 < 300). Old order 3, 2, 4, 1 gets new positions 4, 1, 2, 3: 3 inversions,
    // tau = 1 - 6/6 = 0. Moves -3, +1, +1, +1: 3 up, 1 down; |moves| 1, 1, 1, 3: median 1,
    // largest 3. Job 3's QOS term went from 2000 to 0. The head: carol/phys before, bob/chem after.
    const auto o = whatif({"--set", "PriorityWeightQOS=0"});
    CHECK(o.status == 0);
    CHECK(o.out ==
          "whatif: PriorityWeightQOS=0\n"
          "queue entries compared: 4   Kendall's tau: 0.0000\n"
          "moved up: 3   moved down: 1   unchanged: 0   median move: 1   largest move: 3\n"
          "\n"
          "largest moves:\n"
          "     JOBID PARTITION  USER       ACCOUNT      OLD_PRIO   NEW_PRIO OLD_POS NEW_POS  MOVE  TERM\n"
          "         3 a          carol      phys             2500        500       1       4    -3  qos\n"
          "         2 b          bob        chem             1000       1000       2       1    +1  -\n"
          "         4 b          dave       phys             1000       1000       3       2    +1  -\n"
          "         1 a          alice      chem              500        500       4       3    +1  -\n"
          "\n"
          "head of the queue (first 1 of 4 positions), by account:\n"
          "ACCOUNT                BEFORE    AFTER\n"
          "chem                     0.0%   100.0%\n"
          "phys                   100.0%     0.0%\n"
          "\n"
          "head of the queue (first 1 of 4 positions), by user:\n"
          "USER                   BEFORE    AFTER\n"
          "bob                      0.0%   100.0%\n"
          "carol                  100.0%     0.0%\n");
}

TEST_CASE("whatif: a partition's PriorityJobFactor") {
    // partition.a.PriorityJobFactor=4: the largest factor is now 4, a = 4/4 -> 1000, b = 2/4 ->
    // 500. 1 -> 1000, 2 -> 500, 3 -> 3000, 4 -> 500; order 3, 1, 2, 4. Old order 3, 2, 4, 1 gets
    // 1, 3, 4, 2: 2 inversions, tau = 1 - 4/6 = 0.3333. Moves 0, -1, -1, +2; |moves| 0, 1, 1, 2:
    // median 1, largest 2. The head stays job 3 (carol, phys).
    const auto o = whatif({"--set", "partition.a.PriorityJobFactor=4", "--top", "1"});
    CHECK(o.status == 0);
    CHECK(o.out.starts_with("whatif: partition.a.PriorityJobFactor=4\n"
                            "queue entries compared: 4   Kendall's tau: 0.3333\n"
                            "moved up: 1   moved down: 2   unchanged: 1   median move: 1   largest move: 2\n"
                            "\n"
                            "largest moves:\n"
                            "     JOBID PARTITION  USER       ACCOUNT      OLD_PRIO   NEW_PRIO OLD_POS NEW_POS  MOVE  TERM\n"
                            "         1 a          alice      chem              500       1000       4       2    +2  partition\n"
                            "\n"));
    CHECK(o.out.find("phys                   100.0%   100.0%\n") != std::string::npos);
}

TEST_CASE("whatif: a QOS's Priority") {
    // qos.normal.Priority=100: both QOS normalize to 1 -> 2000 for every job: 1 -> 2500,
    // 2 -> 3000, 3 -> 2500, 4 -> 3000; order 2, 4, 1, 3: the same moves as without QOS weight
    // (tau 0), job 1's QOS term up 2000.
    const auto o = whatif({"--set", "qos.normal.Priority=100"});
    CHECK(o.status == 0);
    CHECK(o.out.find("Kendall's tau: 0.0000\nmoved up: 3   moved down: 1") != std::string::npos);
    CHECK(o.out.find("         1 a          alice      chem              500       2500       4       3    +1  qos\n") !=
          std::string::npos);
}

TEST_CASE("whatif: TRES weights") {
    // PriorityWeightTRES=CPU=1000: the TRES factor is CPUs over the partition's 16, so job 1
    // gets 1000 x 16/16 = 1000 -> 1500 and the others 1000 x 1/16 = 62.5: 2 -> 1062,
    // 3 -> 2562, 4 -> 1062. Order 3, 1, 2, 4: as for the partition factor above, tau 0.3333,
    // job 1 up 2 by its TRES term.
    const auto o = whatif({"--set", "PriorityWeightTRES=CPU=1000", "--top", "1"});
    CHECK(o.status == 0);
    CHECK(o.out.starts_with("whatif: PriorityWeightTRES=CPU=1000\n"
                            "queue entries compared: 4   Kendall's tau: 0.3333\n"
                            "moved up: 1   moved down: 2   unchanged: 1   median move: 1   largest move: 2\n"
                            "\n"
                            "largest moves:\n"
                            "     JOBID PARTITION  USER       ACCOUNT      OLD_PRIO   NEW_PRIO OLD_POS NEW_POS  MOVE  TERM\n"
                            "         1 a          alice      chem              500       1500       4       2    +2  tres\n"));
}

TEST_CASE("whatif: job size, favouring large jobs and then small ones") {
    // PriorityWeightJobSize=4000, favouring large jobs: job 1 (1 node of 4, 16 CPUs of 16)
    // (1/4 + 16/16)/2 = 0.625 -> 2500, total 3000; the others (1/4 + 1/16)/2 = 0.15625 -> 625:
    // 2 -> 1625, 3 -> 3125, 4 -> 1625. Order 3, 1, 2, 4: job 1 up 2 by its job size term.
    const auto large = whatif({"--set", "PriorityWeightJobSize=4000", "--top", "1"});
    CHECK(large.out.find("         1 a          alice      chem              500       3000       4       2    +2  jobsize\n") !=
          std::string::npos);
    // With PriorityFavorSmall=YES: job 1 ((4-1)/4 + (16-16)/16)/2 = 0.375 -> 1500, total 2000;
    // the others ((4-1)/4 + (16-1)/16)/2 = 0.84375 -> 3375: 2 -> 4375, 3 -> 5875, 4 -> 4375.
    // Order 3, 2, 4, 1 as before: nothing moves.
    const auto small = whatif({"--set", "PriorityWeightJobSize=4000", "--set", "PriorityFavorSmall=YES"});
    CHECK(small.out.find("Kendall's tau: 1.0000\nmoved up: 0   moved down: 0   unchanged: 4") != std::string::npos);
}

TEST_CASE("whatif: PriorityFlags +FLAG changes priorities, not the order") {
    // +NO_NORMAL_PART: the partition factor is the raw PriorityJobFactor: a -> 1000, b -> 2000;
    // 1 -> 1000, 2 -> 2000, 3 -> 3000, 4 -> 2000: order 3, 2, 4, 1 as before, tau 1, no move.
    const auto o = whatif({"--set", "PriorityFlags=+NO_NORMAL_PART"});
    CHECK(o.status == 0);
    CHECK(o.out.starts_with("whatif: PriorityFlags=+NO_NORMAL_PART\n"
                            "queue entries compared: 4   Kendall's tau: 1.0000\n"
                            "moved up: 0   moved down: 0   unchanged: 4   median move: 0   largest move: 0\n"
                            "\n"
                            "head of the queue"));
}

TEST_CASE("whatif: a partition's PriorityTier puts its queue first") {
    // partition.a.PriorityTier=2: a's entries (jobs 3 and 1) before b's: 3, 1, 2, 4, with the
    // same priorities; moves 0, -1, -1, +2 and the term "tier" for job 1.
    const auto o = whatif({"--set", "partition.a.PriorityTier=2", "--top", "1"});
    CHECK(o.out.find("         1 a          alice      chem              500        500       4       2    +2  tier\n") !=
          std::string::npos);
}

TEST_CASE("whatif: an association's shares (Fair Tree recomputed on both sides)") {
    // tests/data/whatif/fairshare.conf: Fair Tree, fair-share weighted 1000 and QOS 200 (alice's
    // job has QOS high: +200). chem (shares 1, usage 10) and phys (1, 5) under a root of usage
    // 15; one user each. Before: LevelFS chem = (1/2)/(10/15) = 0.75, phys = (1/2)/(5/15) = 1.5:
    // phys ranks first, carol gets 2/2 -> 1000, alice 1/2 -> 500 + 200 = 700.
    // assoc.chem.Shares=5: chem = (5/6)/(10/15) = 1.25, phys = (1/6)/(5/15) = 0.5: alice
    // 1000 + 200 = 1200, carol 500. The two swap: tau = -1.
    const auto o = whatif({"--set", "assoc.chem.Shares=5"}, "fairshare.conf", "fairshare_assoc.txt", "fairshare_jobs.txt");
    CHECK(o.status == 0);
    CHECK(o.out ==
          "whatif: assoc.chem.Shares=5\n"
          "queue entries compared: 2   Kendall's tau: -1.0000\n"
          "moved up: 1   moved down: 1   unchanged: 0   median move: 1   largest move: 1\n"
          "\n"
          "largest moves:\n"
          "     JOBID PARTITION  USER       ACCOUNT      OLD_PRIO   NEW_PRIO OLD_POS NEW_POS  MOVE  TERM\n"
          "         3 a          carol      phys             1000        500       1       2    -1  fairshare\n"
          "         1 a          alice      chem              700       1200       2       1    +1  fairshare\n"
          "\n"
          "head of the queue (first 1 of 2 positions), by account:\n"
          "ACCOUNT                BEFORE    AFTER\n"
          "chem                     0.0%   100.0%\n"
          "phys                   100.0%     0.0%\n"
          "\n"
          "head of the queue (first 1 of 2 positions), by user:\n"
          "USER                   BEFORE    AFTER\n"
          "alice                    0.0%   100.0%\n"
          "carol                  100.0%     0.0%\n");
}

TEST_CASE("whatif: FairShareDampeningFactor under NO_FAIR_TREE") {
    // The world of the test above, classic fair-share after the change (Slurm's classic:
    // a top-level account's EffectvUsage is its NormUsage, a lone user's its account's):
    // alice UE = 10/15, carol UE = 5/15, both NormShares 1/2; F = 2^(-(UE/S)/d).
    // d = 1: alice 2^(-1.3333) = 0.39685 -> 396.85 + 200 = 596, carol 2^(-0.6667) = 0.62996
    //        -> 629: carol still first, nothing moves.
    // d = 2: alice 2^(-0.6667) -> 629.96 + 200 = 829, carol 2^(-0.3333) = 0.79370 -> 793:
    //        alice first.
    const auto d1 = whatif({"--set", "PriorityFlags=+NO_FAIR_TREE"}, "fairshare.conf", "fairshare_assoc.txt",
                           "fairshare_jobs.txt");
    CHECK(d1.out.find("Kendall's tau: 1.0000\nmoved up: 0   moved down: 0   unchanged: 2") != std::string::npos);
    const auto d2 = whatif({"--set", "PriorityFlags=+NO_FAIR_TREE", "--set", "FairShareDampeningFactor=2"}, "fairshare.conf",
                           "fairshare_assoc.txt", "fairshare_jobs.txt");
    CHECK(d2.out.find("         3 a          carol      phys             1000        793       1       2    -1  fairshare\n"
                      "         1 a          alice      chem              700        829       2       1    +1  fairshare\n") !=
          std::string::npos);
}

TEST_CASE("whatif: bad keys and values name them and the close matches") {
    auto o = whatif({"--set", "PriorityWeightQSO=0"});
    CHECK(o.status == 2);
    CHECK(o.err.starts_with("mfprio whatif: unknown key 'PriorityWeightQSO' (did you mean PriorityWeightQOS?)\n"));
    o = whatif({"--set", "partition.c.PriorityJobFactor=2"});
    CHECK(o.status == 2);
    CHECK(o.err.find("unknown key 'partition.c.PriorityJobFactor' (did you mean partition.a.PriorityJobFactor or "
                     "partition.b.PriorityJobFactor?)") != std::string::npos);
    o = whatif({"--set", "partition.a.PriorityJobFactor=70000"});
    CHECK(o.err.find("partition.a.PriorityJobFactor: '70000' is not an integer from 0 to 65533") != std::string::npos);
    o = whatif({"--set", "PriorityWeightAge=lots"});
    CHECK(o.status == 2);
    CHECK(o.err.find("PriorityWeightAge: ") != std::string::npos);
    o = whatif({});
    CHECK(o.status == 2);
    CHECK(o.err.starts_with("mfprio whatif: nothing to compare: give at least one --set KEY=VALUE or --new-site-policy FILE\n"));
    o = whatif({"--set", "PriorityWeightQOS=0", "--after", "soon"});
    CHECK(o.err.starts_with("mfprio whatif: --after takes a Slurm time string up to 3650 days (e.g. 7-0), not 'soon'\n"));
    o = whatif({"--set", "PriorityWeightQOS=0", "--top", "0"});
    CHECK(o.err.starts_with("mfprio whatif: --top takes a positive integer, not '0'\n"));
    o = whatif({"--set", "qos.high.UsageFactor=-1"});
    // The QOS table's own bound (qos_table.hpp: 0 to 1e6).
    CHECK(o.err.find("qos.high.UsageFactor: '-1' is not a number from 0 to 1e+06") != std::string::npos);
    o = whatif({"--set", "qos.high.UsageFactor=1e308"});
    CHECK(o.status == 2);
    CHECK(o.err.find("qos.high.UsageFactor: '1e308' is not a number from 0 to 1e+06") != std::string::npos);
    o = whatif({"--set", "assoc.chem/alice.Shares=lots"});
    CHECK(o.err.find("assoc.chem/alice.Shares: 'lots' is not 'parent' or an integer from 0 to 4294967295") !=
          std::string::npos);
    o = whatif({"--set", "=3"});
    CHECK(o.err.starts_with("mfprio whatif: --set takes KEY=VALUE, not '=3'\n"));
}

TEST_CASE("whatif --after: usage decayed and charged, jobs aged, on both sides") {
    // tests/data/whatif/decay.conf: Fair Tree, age and fair-share weighted 1000 each,
    // PriorityMaxAge 1 day, PriorityDecayHalfLife 1 day, PriorityCalcPeriod 5 minutes. alice
    // (chem) has usage 1000, carol (phys) 0 and a running 1-CPU job; both have a pending job
    // submitted at t = 1; now = 43201.
    // Slurm's decay per second is d = 1 - 0.693/86400; one period of 300 s multiplies usage by
    // q = d^300 = 0.99759660 and charges a running job 300 x q x billable (1 CPU). After n
    // periods alice has 1000 q^n and carol 300 q (1 - q^n) / (1 - q):
    //   n = 3 (--after 15): alice 992.81, carol 895.70: phys still ranks first (carol F = 1)
    //   n = 4 (--after 20): alice 990.42, carol 1192.56: chem ranks first (alice F = 1)
    // Age at now + 15 min: (43201 + 900 - 1) / 86400 = 0.5104167 -> 510.4.
    // With --set PriorityWeightFairshare=0 the after side has age only: equal priorities, so
    // submit time then job id: 1 before 3.
    const auto o15 = whatif({"--set", "PriorityWeightFairshare=0", "--after", "15", "--now", "43201"}, "decay.conf",
                            "decay_assoc.txt", "decay_jobs.txt");
    CHECK(o15.status == 0);
    // 15 minutes: before, carol 1000 + 510.4 = 1510, alice 500 + 510.4 = 1010; after, 510 each.
    CHECK(o15.out.starts_with("whatif: PriorityWeightFairshare=0\n"
                              "queue entries compared: 2   Kendall's tau: -1.0000\n"
                              "moved up: 1   moved down: 1   unchanged: 0   median move: 1   largest move: 1\n"
                              "\n"
                              "largest moves:\n"
                              "     JOBID PARTITION  USER       ACCOUNT      OLD_PRIO   NEW_PRIO OLD_POS NEW_POS  MOVE  TERM\n"
                              "         3 a          carol      phys             1510        510       1       2    -1  fairshare\n"
                              "         1 a          alice      chem             1010        510       2       1    +1  fairshare\n"));
    // 20 minutes: alice's job leads on both sides; nothing moves.
    const auto o20 = whatif({"--set", "PriorityWeightFairshare=0", "--after", "20", "--now", "43201"}, "decay.conf",
                            "decay_assoc.txt", "decay_jobs.txt");
    CHECK(o20.out.starts_with("whatif: PriorityWeightFairshare=0\n"
                              "queue entries compared: 2   Kendall's tau: 1.0000\n"
                              "moved up: 0   moved down: 0   unchanged: 2   median move: 0   largest move: 0\n"
                              "\n"
                              "head of the queue (first 1 of 2 positions), by account:\n"
                              "ACCOUNT                BEFORE    AFTER\n"
                              "chem                   100.0%   100.0%\n"));
    // Without RawUsage there is nothing to decay.
    const auto bad = whatif({"--set", "PriorityWeightQOS=0", "--after", "1-0"});
    CHECK(bad.status == 65);
    CHECK(bad.err == "mfprio: " + data("assoc.txt") +
                         ": RawUsage: whatif --after needs each association's RawUsage (sshare -a -l -P prints it)\n");
}

TEST_CASE("whatif --json: the same numbers for scripts") {
    const auto o = whatif({"--set", "PriorityWeightQOS=0", "--json", "--top", "1"});
    CHECK(o.status == 0);
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    REQUIRE(parser.parse(simdjson::padded_string(o.out)).get(doc) == simdjson::SUCCESS);
    // The numbers of the first test case above.
    CHECK(doc["entries_compared"].get_uint64().value() == 4);
    CHECK(doc["kendall_tau"].get_double().value() == 0.0);
    CHECK(doc["moved_up"].get_uint64().value() == 3);
    CHECK(doc["largest_move"].get_uint64().value() == 3);
    CHECK(doc["largest_moves"].get_array().size() == 1);
    CHECK(doc["largest_moves"].at(0)["job_id"].get_uint64().value() == 3);
    CHECK(doc["largest_moves"].at(0)["move"].get_int64().value() == -3);
    CHECK(doc["largest_moves"].at(0)["term"].get_string().value() == "qos");
    CHECK(doc["head"]["by_account"].at(0)["name"].get_string().value() == "chem");
    CHECK(doc["head"]["by_account"].at(0)["after"].get_double().value() == 100.0);
    CHECK(doc["changes"].at(0)["key"].get_string().value() == "PriorityWeightQOS");
    // Every entry, moved or not, with both priorities and positions; --top limits only the
    // largest moves.
    const auto entries = doc["entries"].get_array().value();
    CHECK(entries.size() == 4);
    std::size_t position = 0;
    for (const auto e : entries) {
        CHECK(e["old_position"].get_uint64().value() == ++position); // in the old queue's order
        CHECK(e["move"].get_int64().value() == static_cast<std::int64_t>(e["old_position"].get_uint64().value()) -
                                                   static_cast<std::int64_t>(e["new_position"].get_uint64().value()));
        if (e["job_id"].get_uint64().value() == 3) {
            CHECK(e["new_priority"].get_uint64().value() == doc["largest_moves"].at(0)["new_priority"].get_uint64().value());
            CHECK(e["old_priority"].get_uint64().value() == doc["largest_moves"].at(0)["old_priority"].get_uint64().value());
        }
    }
}

TEST_CASE("whatif --svg: a well-formed chart of the accounts' shares of the head") {
    // The first test case's change with the head at 1 position: chem 0% -> 100%, phys 100% ->
    // 0%, chem listed first (the larger share after).
    const std::string tmp = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/mfprio_whatif.svg";
    const auto o = whatif({"--set", "PriorityWeightQOS=0", "--head", "1", "--svg", tmp});
    CHECK(o.status == 0);
    std::ifstream in(tmp);
    std::stringstream text;
    text << in.rdbuf();
    const std::string svg = text.str();
    CHECK(svg.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\""));
    const auto chem = svg.find(">chem</text>"), phys = svg.find(">phys</text>");
    REQUIRE(chem != std::string::npos);
    REQUIRE(phys != std::string::npos);
    CHECK(chem < phys);
    // chem: before 0.0%, after 100.0%; phys: before 100.0%, after 0.0% (in that order).
    const auto pct = [&](std::size_t from) {
        std::vector<std::string> v;
        for (std::size_t at = svg.find("%</text>", from); at != std::string::npos && v.size() < 2; at = svg.find("%</text>", at + 1)) {
            const auto open = svg.rfind('>', at);
            v.push_back(svg.substr(open + 1, at - open - 1));
        }
        return v;
    };
    CHECK(pct(chem) == std::vector<std::string>{"0.0", "100.0"});
    CHECK(pct(phys) == std::vector<std::string>{"100.0", "0.0"});
    // Well-formed XML, as xmllint (libxml2) reads it.
    CHECK(std::system(("xmllint --noout '" + tmp + "'").c_str()) == 0);
    std::remove(tmp.c_str());
}
