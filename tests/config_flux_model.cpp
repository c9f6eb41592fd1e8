// Tests for mfprio/read/flux_tables.hpp (queue and bank tables, the Flux columns of a jobs
// table) and mfprio/model/flux_model.hpp (jobs with and without slurm.conf, associations,
// fair-share from the FairShare column or computed, submission order).
#include <doctest/doctest.h>

#include <mfprio/model/flux_model.hpp>

#include <string>

using namespace mfprio;
using namespace mfprio::config;

TEST_CASE("config: queue and bank tables") {
    const auto q = parse_queue_table("Name|Priority|Comment\nbronze|0|\nsilver|100|x\ngold|-5|\nplain||\n", "queues.txt");
    REQUIRE(q);
    std::vector<std::string> names;
    std::vector<std::int64_t> priorities;
    for (const auto& r : *q) {
        names.push_back(r.name);
        priorities.push_back(r.priority);
    }
    CHECK(names == std::vector<std::string>{"bronze", "silver", "gold", "plain"});
    CHECK(priorities == std::vector<std::int64_t>{0, 100, -5, 0});
    CHECK((*q)[2].line == 4);
    CHECK(find_named(*q, "gold") == 2);
    CHECK_FALSE(find_named(*q, "GOLD")); // names are case-sensitive
    // Bank priorities are doubles (flux-accounting bank_table.priority; t1054 uses 3.5).
    const auto b = parse_bank_table("Priority|Name\n3.5|A\n-1.25|B\n");
    REQUIRE(b);
    REQUIRE(b->size() == 2);
    CHECK((*b)[0].priority == 3.5);
    CHECK((*b)[1].priority == -1.25);
    const auto err = [](std::string_view text, bool integer) {
        if (integer) {
            const auto t = parse_queue_table(text, "t.txt");
            REQUIRE_FALSE(t);
            return t.error();
        }
        const auto t = parse_bank_table(text, "t.txt");
        REQUIRE_FALSE(t);
        return t.error();
    };
    CHECK(err("Name\na\n", true).message == "the table has no Priority column");
    CHECK(err("Priority\n1\n", true).key == "Name");
    CHECK(err("Name|Priority\n|1\n", true).message == "empty name");
    auto e = err("Name|Priority\na|1\na|2\n", true);
    CHECK(e.line == 3);
    CHECK(e.message == "'a' is listed twice");
    // A queue priority is an int in flux-accounting: 3.5 and 2^31 are refused.
    CHECK(err("Name|Priority\na|3.5\n", true).message == "'a': Priority '3.5' is not an integer from -2147483648 to 2147483647");
    CHECK(err("Name|Priority\na|2147483648\n", true).column == 3);
    CHECK(err("Name|Priority\na|lots\n", false).message == "'a': Priority 'lots' is not a number from -1e+300 to 1e+300");
}

TEST_CASE("config: Flux columns of a jobs table") {
    const auto t = parse_table("JobID|Account|Bank|Queue|Urgency\n1|acct|||\n2|acct|B|gold|31\n3||||0\n", "jobs.txt");
    REQUIRE(t);
    const auto c = flux_columns_from(*t);
    REQUIRE(c);
    CHECK((*c)[0].urgency == 16); // RFC 30 default
    CHECK((*c)[0].bank == "acct"); // Bank defaults to Account
    CHECK((*c)[1].bank == "B");
    CHECK((*c)[1].queue == "gold");
    CHECK((*c)[1].urgency == 31);
    CHECK((*c)[2].urgency == 0);
    CHECK((*c)[2].bank.empty());
    const auto bad = parse_table("JobID|Urgency\n7|32\n", "jobs.txt");
    const auto e = flux_columns_from(*bad);
    REQUIRE_FALSE(e);
    CHECK(e.error().line == 2);
    CHECK(e.error().key == "Urgency");
    CHECK(e.error().message == "job 7: Urgency '32' is not an integer from 0 to 31");
}

TEST_CASE("config: Flux model without slurm.conf") {
    const auto assoc = parse_assoc_table("Account|User|RawShares|FairShare\nroot||1|\n A||1|\n  A|alice|1|0.75\n"
                                         " B||1|\n  B|alice|1|0.25\n  B|bob|1|0.5\n");
    REQUIRE(assoc);
    const auto queues = parse_queue_table("Name|Priority\nbronze|1\ngold|3\n");
    const auto banks = parse_bank_table("Name|Priority\nA|0.5\nB|2\n");
    const auto jobs = parse_table("JobID|User|Bank|Queue|Urgency|SubmitTime|State\n"
                                  "10|alice|A|gold|20|500|\n"
                                  "11|alice|B|bronze||400|\n"
                                  "12|bob|B|tin|0|500|\n"
                                  "9|bob|B|||500|RUNNING\n",
                                  "jobs.txt");
    REQUIRE(jobs);
    flux_inputs in;
    in.jobs = &*jobs;
    in.assoc = &*assoc;
    in.queues = &*queues;
    in.banks = &*banks;
    const auto m = build_flux_model(in);
    REQUIRE(m);
    REQUIRE(m->jobs.size() == 4);
    CHECK(m->user_names == std::vector<std::string>{"alice", "bob"});
    const auto c = m->context(1000);
    // alice in A: FairShare 0.75; alice in B 0.25; bob in B 0.5 (the association table's column).
    CHECK(c.fairshare[m->jobs[0].association] == 0.75);
    CHECK(c.fairshare[m->jobs[1].association] == 0.25);
    CHECK(c.fairshare[m->jobs[2].association] == 0.5);
    CHECK(m->jobs[0].queue == 1);
    CHECK(c.queue_priority[m->jobs[0].queue] == 3);
    CHECK(m->jobs[2].queue == 2); // unknown queue "tin": past the table (factor 0)
    CHECK(m->jobs[2].queue >= c.queue_priority.size());
    CHECK(m->jobs[3].queue == flux::no_index);
    CHECK(c.bank_priority[m->jobs[1].bank] == 2.0);
    CHECK(m->jobs[0].urgency == 20);
    CHECK(m->jobs[1].urgency == 16);
    CHECK(m->jobs[2].urgency == 0);
    CHECK(m->jobs[3].state == job_state::running);
    // Submission order: 11 (400), then 9, 10, 12 at 500 by job id.
    CHECK(m->jobs[1].submit_seq == 0);
    CHECK(m->jobs[3].submit_seq == 1);
    CHECK(m->jobs[0].submit_seq == 2);
    CHECK(m->jobs[2].submit_seq == 3);

    // A (bank, user) without an association is refused, naming the job.
    const auto stray = parse_table("JobID|User|Bank|SubmitTime\n5|carol|A|1\n", "jobs.txt");
    in.jobs = &*stray;
    const auto e = build_flux_model(in);
    REQUIRE_FALSE(e);
    CHECK(e.error().line == 2);
    CHECK(e.error().message == "job 5: no association for user 'carol' in bank 'A' in the association table");
}

TEST_CASE("config: Flux model computes flux-accounting's fair-share") {
    // Two users under root with equal shares: the one with less usage ranks first. With
    // flux-accounting's rank/N (reference A2.5): N = 2, the better user 2/2 = 1, the other 1/2.
    const auto assoc = parse_assoc_table("Account|User|RawShares|RawUsage\nroot||1|\n A||1|30\n  A|u1|1|10\n  A|u2|1|20\n");
    REQUIRE(assoc);
    const auto jobs = parse_table("JobID|User|Bank|SubmitTime\n1|u1|A|1\n2|u2|A|1\n");
    flux_inputs in;
    in.jobs = &*jobs;
    in.assoc = &*assoc;
    in.algorithm = fairshare::algorithm::flux;
    const auto m = build_flux_model(in);
    REQUIRE(m);
    const auto c = m->context(10);
    CHECK(c.fairshare[m->jobs[0].association] == 1.0);
    CHECK(c.fairshare[m->jobs[1].association] == 0.5);
    // Without RawUsage the algorithm cannot run.
    const auto plain = parse_assoc_table("Account|User|FairShare\nroot||\n A||\n  A|u1|1\n  A|u2|1\n");
    in.assoc = &*plain;
    const auto e = build_flux_model(in);
    REQUIRE_FALSE(e);
    CHECK(e.error().message == "computing fair-share needs the RawShares and RawUsage columns");
    in.assoc = nullptr;
    CHECK(build_flux_model(in).error().message == "computing fair-share needs an association table");
}

TEST_CASE("config: Flux model with slurm.conf adds the Flux columns to Slurm's jobs") {
    const auto conf = parse_slurm_conf("PriorityType=priority/multifactor\nNodeName=n[1-4] CPUs=8\n"
                                       "PartitionName=batch Nodes=n[1-4] Default=YES\n");
    const auto qos = parse_qos_table("Name|Priority\nnormal|0\n");
    const auto assoc = parse_assoc_table("Account|User|RawShares|FairShare\nroot||1|\n A||1|\n  A|alice|1|0.5\n");
    const auto jobs = parse_table("JobID|User|Account|Partition|SubmitTime|NumCPUs|Urgency|Queue\n"
                                  "1|alice|A||100|4|31|q\n");
    REQUIRE((conf && qos && assoc && jobs));
    flux_inputs in;
    in.jobs = &*jobs;
    in.assoc = &*assoc;
    in.conf = &*conf;
    in.qos = &*qos;
    const auto m = build_flux_model(in);
    REQUIRE(m);
    REQUIRE(m->slurm);
    CHECK(m->jobs[0].cpus == 4);
    CHECK(m->jobs[0].urgency == 31);
    CHECK(m->jobs[0].bank == 0); // no bank table: the Account names an unknown bank, past the (empty) table
    const auto c = m->context(200);
    CHECK(c.fairshare[m->jobs[0].association] == 0.5);
    CHECK(c.cluster_cpus == 32);
    // Slurm's jobs table without the QOS table: refused.
    in.qos = nullptr;
    CHECK_FALSE(build_flux_model(in));
}

TEST_CASE("config: Flux model jobs table errors name the line, the column and the job") {
    const auto err = [](std::string_view text) {
        const auto t = parse_table(text, "jobs.txt");
        REQUIRE(t);
        flux_inputs in;
        in.jobs = &*t;
        const auto m = build_flux_model(in);
        REQUIRE_FALSE(m);
        return m.error();
    };
    CHECK(err("User|SubmitTime\na|1\n").message == "the jobs table has no JobID column");
    CHECK(err("JobID|SubmitTime\n1|1\n").key == "User");
    CHECK(err("JobID|User\n1|a\n").key == "SubmitTime");
    const std::string head = "JobID|User|SubmitTime|EligibleTime|State|NumNodes|NumCPUs\n";
    auto e = err(head + "0|a|1||||\n");
    CHECK(e.line == 2);
    CHECK(e.column == 1);
    CHECK(e.message == "job: JobID '0' is not an integer from 1 to 4294967295");
    e = err(head + "4|a|1||||\n4|b|1||||\n");
    CHECK(e.line == 3);
    CHECK(e.message == "job 4: JobID is listed twice");
    CHECK(err(head + "4||1||||\n").message == "job 4: empty User");
    CHECK(err(head + "4|a|soon||||\n").message ==
          "job 4: SubmitTime 'soon' is not epoch seconds or YYYY-MM-DDTHH:MM:SS from 1970 to 9999");
    CHECK(err(head + "4|a|1|later|||\n").message ==
          "job 4: EligibleTime 'later' is not epoch seconds or YYYY-MM-DDTHH:MM:SS from 1970 to 9999");
    CHECK(err(head + "4|a|1||WAITING||\n").message == "job 4: unknown State 'WAITING'");
    e = err(head + "4|a|1|||-2|\n");
    CHECK(e.key == "NumNodes");
    CHECK(e.message == "job 4: NumNodes '-2' is not an integer from 0 to 4294967295");
    CHECK(err(head + "4|a|1||||x\n").key == "NumCPUs");
    // The Flux columns are checked first: a bad urgency names its job.
    CHECK(err("JobID|User|SubmitTime|Urgency\n9|a|1|40\n").message == "job 9: Urgency '40' is not an integer from 0 to 31");
}
