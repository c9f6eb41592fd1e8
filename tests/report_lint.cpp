// Tests for mfprio/report/lint.hpp, the library's lint of slurm.conf's priority settings.
// The rules checked come from Slurm's documentation and code: the six integer weights are
// uint32 and their sum clamps at 2^32 - 1 (priority_multifactor.c), keys slurmctld does not
// know are ignored, PriorityFlags takes the words of slurm.conf(5), without slurmdbd the age
// and fair-share weights are forced to 0, and Fair Tree's factor is rank / N over the user
// associations (fair_tree.html).
#include <doctest/doctest.h>

#include <string>
#include <string_view>

#include <mfprio/read/assoc_table.hpp>
#include <mfprio/read/slurm_conf.hpp>
#include <mfprio/report/lint.hpp>

namespace {
using namespace mfprio;

report::lint_report lint(std::string_view text) {
    const auto conf = config::parse_slurm_conf(text, "slurm.conf");
    REQUIRE(conf);
    return report::lint_slurm_conf(*conf, text, "slurm.conf");
}

bool has(const report::lint_report& r, std::string_view start) {
    for (const auto& l : r.lines)
        if (l.starts_with(start)) return true;
    return false;
}
} // namespace

TEST_CASE("report lint: a sound configuration has no warning") {
    const auto r = lint("AccountingStorageType=accounting_storage/slurmdbd\nPriorityType=priority/multifactor\n"
                        "PriorityWeightAge=1000\nPriorityWeightFairshare=10000\nPriorityFlags=SMALL_RELATIVE_TO_TIME\n");
    CHECK(r.warnings == 0);
    CHECK(has(r, "ok: the six weights add up to 11000 (at most 4294967295)"));
    // One line per weight that is not 0: 1/1000 resolves, .59534 and .50002 give 595 and 500.
    CHECK(has(r, "PriorityWeightAge=1000: resolves factor differences of 0.001 and more; factors .59534 and .50002 "
                 "give 595 and 500"));
    CHECK(r.lines.size() == 3);
}

TEST_CASE("report lint: unknown keys and flag words at their line and column, weights past 2^32 - 1") {
    const auto r = lint("AccountingStorageType=accounting_storage/slurmdbd\n"
                        "PriorityWieghtAge=1\n  PriorityFlags=MAX_TRES,FAIRTREE\n"
                        "PriorityWeightQOS=4294967295\nPriorityWeightPartition=1\n");
    CHECK(has(r, "warning: slurm.conf:2:1: unknown slurm.conf parameter 'PriorityWieghtAge' (did you mean "
                 "PriorityWeightAge?)"));
    CHECK(has(r, "warning: slurm.conf:3:26: PriorityFlags word 'FAIRTREE'"));
    CHECK(has(r, "warning: PriorityWeight values too high: the six weights add up to 4294967296"));
    // A weight of 1 cannot tell .59534 from .50002 (both 0): a warning, printed as a note.
    CHECK(has(r, "PriorityWeightPartition=1: resolves factor differences of 1 and more; factors .59534 and .50002 give "
                 "0 and 0 (indistinguishable"));
    CHECK(r.warnings == 4);
}

TEST_CASE("report lint: age and fair-share weights without slurmdbd; Fair Tree's steps of 1/N") {
    const auto none = lint("PriorityWeightFairshare=2000\n");
    CHECK(has(none, "warning: AccountingStorageType is not accounting_storage/slurmdbd"));
    const std::string text = "AccountingStorageType=accounting_storage/slurmdbd\nPriorityWeightFairshare=2\n";
    const auto conf = config::parse_slurm_conf(text, "slurm.conf");
    REQUIRE(conf);
    const auto assoc = config::parse_assoc_table("Account|User|RawShares\nroot||1\n a||1\n  a|u1|1\n  a|u2|1\n  a|u3|1\n",
                                                 "assoc.txt");
    REQUIRE(assoc);
    auto r = report::lint_slurm_conf(*conf, text, "slurm.conf");
    const auto before = r.warnings;
    report::lint_fair_tree_steps(*conf, *assoc, r);
    // Three user associations, weight 2: ranks 1/3 and 2/3 apart give 0.67 and 1.33, one rank lost.
    CHECK(r.lines.back().starts_with("warning: Fair Tree ranks 3 user associations, so the fair-share factor moves "
                                     "in steps of 1/3; PriorityWeightFairshare=2 cannot separate every rank"));
    CHECK(r.warnings == before + 1);
    // NO_FAIR_TREE: no such line.
    const std::string classic = text + "PriorityFlags=NO_FAIR_TREE\n";
    const auto cc = config::parse_slurm_conf(classic, "slurm.conf");
    REQUIRE(cc);
    auto rc = report::lint_slurm_conf(*cc, classic, "slurm.conf");
    const auto lines = rc.lines.size();
    report::lint_fair_tree_steps(*cc, *assoc, rc);
    CHECK(rc.lines.size() == lines);
}
