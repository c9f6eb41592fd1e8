// A catalogue of dirty and malformed inputs, one table: each dirty-but-valid input must give
// what its clean file gives (CRLF, a byte order mark, old Mac CR-only line ends, trailing
// spaces, tabs, comments, case, columns in another order...), and each malformed one an
// error at the expected line and column with a sentence saying what is wrong. The readers:
// maui.cfg, slurm.conf, the QOS table (a pipe table, as sacctmgr -P prints it) and the Maui
// jobs table. Expected lines and columns are counted by hand in the inputs below.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include <mfprio/read/maui_cfg.hpp>
#include <mfprio/read/maui_jobs.hpp>
#include <mfprio/read/qos_table.hpp>
#include <mfprio/read/slurm_conf.hpp>
#include <mfprio/report/sprio.hpp>

#include "cli.hpp"
#include "live.hpp"

namespace {
using namespace mfprio;

enum class reader { maui_cfg, slurm_conf, qos, maui_jobs };

/// What a reader made of a text, as one string (equal strings: the same result), or the
/// error as "line:column: key: message".
struct outcome {
    bool ok = false;
    std::string text;
};

std::string num(double v) { return std::to_string(v); }

outcome read(reader r, std::string_view text) {
    outcome o;
    const auto fail = [&](const input_error& e) {
        o.text = std::to_string(e.line) + ":" + std::to_string(e.column) + ": " + e.key + ": " + e.message;
        return o;
    };
    switch (r) {
    case reader::maui_cfg: {
        const auto c = config::parse_maui_cfg(text, "maui.cfg");
        if (!c) return fail(c.error());
        for (const auto w : c->weights.component_weight) o.text += std::to_string(w) + ",";
        for (const auto w : c->weights.sub_weight) o.text += std::to_string(w) + ",";
        o.text += std::to_string(static_cast<int>(c->opts.fs_policy)) + "," + num(c->opts.xf_min_wclimit) + ";";
        for (const auto& kind : c->creds)
            for (const auto& cr : kind)
                o.text += cr.name + "=" + std::to_string(cr.cred.priority) + "/" + num(cr.cred.target.value) + ";";
        break;
    }
    case reader::slurm_conf: {
        const auto c = config::parse_slurm_conf(text, "slurm.conf");
        if (!c) return fail(c.error());
        o.text = std::to_string(c->weight_age) + "," + std::to_string(c->weight_fairshare) + "," +
                 std::to_string(c->max_age) + "," + c->flags_text + "," + std::to_string(c->node_count()) + "," +
                 std::to_string(c->total_cpus()) + ";";
        for (const auto& p : c->partitions)
            o.text += p.name + "/" + std::to_string(p.priority_job_factor) + "/" + std::to_string(p.nodes.size()) + ";";
        break;
    }
    case reader::qos: {
        const auto q = config::parse_qos_table(text, "qos.txt");
        if (!q) return fail(q.error());
        for (const auto& d : q->qos) o.text += d.name + "=" + std::to_string(d.priority) + "/" + num(d.usage_factor) + ";";
        break;
    }
    case reader::maui_jobs: {
        const auto t = config::parse_maui_jobs(text, "jobs.txt");
        if (!t) return fail(t.error());
        for (const auto& row : t->jobs) {
            const auto& j = row.job;
            o.text += std::to_string(j.id) + ":" + row.creds[0] + "," + std::to_string(j.submit_time) + "," +
                      std::to_string(static_cast<int>(j.state)) + "," + std::to_string(j.start_time) + "," +
                      std::to_string(j.wclimit) + "," + std::to_string(j.procs) + ";";
        }
        break;
    }
    }
    o.ok = true;
    return o;
}

constexpr std::string_view clean_maui =
    "QUEUETIMEWEIGHT 5\nFSPOLICY DEDICATEDPS\nUSERCFG[john] PRIORITY=10 FSTARGET=20\n";
constexpr std::string_view clean_slurm =
    "PriorityType=priority/multifactor\nPriorityWeightAge=1000\nPriorityWeightFairshare=10000\n"
    "PriorityFlags=NO_FAIR_TREE\nPriorityMaxAge=7-0\nNodeName=n[1-4] CPUs=32 RealMemory=64000\n"
    "PartitionName=batch Nodes=n[1-4] PriorityJobFactor=10\n";
constexpr std::string_view clean_qos = "Name|Priority|UsageFactor\nnormal|0|1.0\nhigh|100|2.0\n";
constexpr std::string_view clean_jobs =
    "JobID|User|SubmitTime|State|StartTime|WCLimit|Procs\n1|john|1000|Idle||1:00:00|4\n"
    "2|mary|900|Running|1500|2:00:00|8\n";

/// One case: the reader, the input, and either the clean text it must equal or the error.
struct entry {
    const char* what;
    reader r;
    std::string input;
    std::string_view same_as;    ///< accepted: must read as this clean text does
    std::size_t line = 0;        ///< rejected: the error's line
    std::size_t column = 0;      ///< and column
    const char* message = "";    ///< and a part of its sentence
};

std::string crlf(std::string_view s) {
    std::string o;
    for (const char c : s) o += c == '\n' ? std::string("\r\n") : std::string(1, c);
    return o;
}
std::string cr(std::string_view s) {
    std::string o(s);
    for (char& c : o)
        if (c == '\n') c = '\r';
    return o;
}
std::string bom(std::string_view s) { return "\xEF\xBB\xBF" + std::string(s); }
std::string trailing_spaces(std::string_view s) {
    std::string o;
    for (const char c : s) o += c == '\n' ? std::string("  \t\n") : std::string(1, c);
    return o;
}
std::string no_final_newline(std::string_view s) { return std::string(s.substr(0, s.size() - 1)); }

std::vector<entry> catalogue() {
    using R = reader;
    const auto ok = [](const char* what, R r, std::string in, std::string_view clean) {
        return entry{what, r, std::move(in), clean};
    };
    const auto bad = [](const char* what, R r, std::string in, std::size_t line, std::size_t col, const char* msg) {
        return entry{what, r, std::move(in), {}, line, col, msg};
    };
    const std::string m(clean_maui), s(clean_slurm), q(clean_qos), j(clean_jobs);
    return {
        // maui.cfg, accepted
        ok("maui.cfg CRLF", R::maui_cfg, crlf(m), clean_maui),
        ok("maui.cfg BOM", R::maui_cfg, bom(m), clean_maui),
        ok("maui.cfg CR only", R::maui_cfg, cr(m), clean_maui),
        ok("maui.cfg BOM and CRLF", R::maui_cfg, bom(crlf(m)), clean_maui),
        ok("maui.cfg trailing spaces and tabs", R::maui_cfg, trailing_spaces(m), clean_maui),
        ok("maui.cfg no final newline", R::maui_cfg, no_final_newline(m), clean_maui),
        ok("maui.cfg tabs and indentation", R::maui_cfg,
           "  QUEUETIMEWEIGHT\t5\n\tFSPOLICY   DEDICATEDPS\nUSERCFG[john]\tPRIORITY=10\t FSTARGET=20\n", clean_maui),
        ok("maui.cfg comments and blank lines", R::maui_cfg,
           "# weights\n\nQUEUETIMEWEIGHT 5 # minutes\n\n# fair-share\nFSPOLICY DEDICATEDPS\n"
           "USERCFG[john] PRIORITY=10 FSTARGET=20 # john\n",
           clean_maui),
        ok("maui.cfg lower-case names and keywords", R::maui_cfg,
           "queuetimeweight 5\nfspolicy dedicatedps\nusercfg[john] priority=10 fstarget=20\n", clean_maui),
        ok("maui.cfg other parameters between", R::maui_cfg,
           "SERVERHOST head\nQUEUETIMEWEIGHT 5\nRMCFG[base] TYPE=PBS\nFSPOLICY DEDICATEDPS\nADMIN1 root\n"
           "USERCFG[john] PRIORITY=10 FSTARGET=20\n",
           clean_maui),
        ok("maui.cfg a credential over two lines", R::maui_cfg,
           "QUEUETIMEWEIGHT 5\nFSPOLICY DEDICATEDPS\nUSERCFG[john] PRIORITY=10\nUSERCFG[john] FSTARGET=20\n",
           clean_maui),
        ok("maui.cfg the last value wins", R::maui_cfg,
           "QUEUETIMEWEIGHT 1\nQUEUETIMEWEIGHT 5\nFSPOLICY DEDICATEDPS\nUSERCFG[john] PRIORITY=10 FSTARGET=20\n",
           clean_maui),
        // maui.cfg, rejected
        bad("maui.cfg bad FSPOLICY", R::maui_cfg, "QUEUETIMEWEIGHT 5\nFSPOLICY sometimes\n", 2, 10, "expected NONE"),
        bad("maui.cfg missing ]", R::maui_cfg, "USERCFG[john PRIORITY=1\n", 1, 1, "missing ']'"),
        bad("maui.cfg empty credential name", R::maui_cfg, "USERCFG[] PRIORITY=1\n", 1, 1, "empty credential name"),
        bad("maui.cfg attribute without value", R::maui_cfg, "USERCFG[john] PRIORITY\n", 1, 15, "expected ATTR=VALUE"),
        bad("maui.cfg NAME=VALUE", R::maui_cfg, "FSWEIGHT=100\n", 1, 1, "a space, not '='"),
        bad("maui.cfg FSDEPTH 0", R::maui_cfg, "FSDEPTH 0\n", 1, 9, "at least 1"),
        bad("maui.cfg accrual policy", R::maui_cfg, "JOBPRIOACCRUALPOLICY NEVER\n", 1, 22, "expected ALWAYS"),
        bad("maui.cfg XFMINWCLIMIT", R::maui_cfg, "XFMINWCLIMIT 2h\n", 1, 14, "expected a Maui time"),
        bad("maui.cfg FSTARGET", R::maui_cfg, "USERCFG[john] FSTARGET=x\n", 1, 24, "expected a percentage"),
        bad("maui.cfg error after a BOM: columns after it", R::maui_cfg, bom("FSPOLICY never\n"), 1, 10,
            "expected NONE"),
        bad("maui.cfg error in a CR-only file: its line", R::maui_cfg, "QUEUETIMEWEIGHT 5\rFSWEIGHT 1\rFSDECAY x\r", 3,
            9, "expected a number"),
        bad("maui.cfg QOS attribute on a user", R::maui_cfg, "USERCFG[john] QTWEIGHT=5\n", 1, 15, "QOSCFG only"),
        // slurm.conf, accepted
        ok("slurm.conf CRLF", R::slurm_conf, crlf(s), clean_slurm),
        ok("slurm.conf BOM", R::slurm_conf, bom(s), clean_slurm),
        ok("slurm.conf CR only (PriorityFlags kept)", R::slurm_conf, cr(s), clean_slurm),
        ok("slurm.conf trailing spaces and tabs", R::slurm_conf, trailing_spaces(s), clean_slurm),
        ok("slurm.conf no final newline", R::slurm_conf, no_final_newline(s), clean_slurm),
        ok("slurm.conf comments and blank lines", R::slurm_conf,
           "# priorities\n\nPriorityType=priority/multifactor # multifactor\nPriorityWeightAge=1000\n\n"
           "PriorityWeightFairshare=10000\nPriorityFlags=NO_FAIR_TREE\nPriorityMaxAge=7-0\n"
           "NodeName=n[1-4] CPUs=32 RealMemory=64000 # nodes\nPartitionName=batch Nodes=n[1-4] PriorityJobFactor=10\n",
           clean_slurm),
        ok("slurm.conf keys in any case", R::slurm_conf,
           "prioritytype=priority/multifactor\npriorityweightage=1000\nPRIORITYWEIGHTFAIRSHARE=10000\n"
           "priorityflags=NO_FAIR_TREE\nprioritymaxage=7-0\nnodename=n[1-4] cpus=32 realmemory=64000\n"
           "partitionname=batch nodes=n[1-4] priorityjobfactor=10\n",
           clean_slurm),
        ok("slurm.conf other parameters between", R::slurm_conf,
           "ClusterName=c\nSlurmctldHost=head\n" + s + "SchedulerType=sched/backfill\n", clean_slurm),
        ok("slurm.conf MaxAge as minutes", R::slurm_conf,
           "PriorityType=priority/multifactor\nPriorityWeightAge=1000\nPriorityWeightFairshare=10000\n"
           "PriorityFlags=NO_FAIR_TREE\nPriorityMaxAge=10080\nNodeName=n[1-4] CPUs=32 RealMemory=64000\n"
           "PartitionName=batch Nodes=n[1-4] PriorityJobFactor=10\n",
           clean_slurm),
        ok("slurm.conf nodes listed one by one", R::slurm_conf,
           "PriorityType=priority/multifactor\nPriorityWeightAge=1000\nPriorityWeightFairshare=10000\n"
           "PriorityFlags=NO_FAIR_TREE\nPriorityMaxAge=7-0\nNodeName=n1,n2,n3,n4 CPUs=32 RealMemory=64000\n"
           "PartitionName=batch Nodes=n[1-4] PriorityJobFactor=10\n",
           clean_slurm),
        // slurm.conf, rejected
        bad("slurm.conf weight not a number", R::slurm_conf, "PriorityWeightAge=abc\n", 1, 19, "PriorityWeightAge"),
        bad("slurm.conf MaxAge not a time", R::slurm_conf, "PriorityMaxAge=forever\n", 1, 16, "PriorityMaxAge"),
        bad("slurm.conf a token without '='", R::slurm_conf, "PriorityWeightAge 1000\n", 1, 1, "Key=Value"),
        bad("slurm.conf a partition of unknown nodes", R::slurm_conf,
            "NodeName=n[1-4] CPUs=32\nPartitionName=batch Nodes=m[1-2]\n", 2, 27, "node 'm1' is not defined"),
        bad("slurm.conf error after a BOM: columns after it", R::slurm_conf, bom("PriorityWeightAge=x\n"), 1, 19,
            "PriorityWeightAge"),
        bad("slurm.conf error in a CR-only file: its line", R::slurm_conf,
            "PriorityType=priority/multifactor\rPriorityWeightQOS=-5\r", 2, 19, "PriorityWeightQOS"),
        // QOS table (sacctmgr show qos -P), accepted
        ok("qos CRLF", R::qos, crlf(q), clean_qos),
        ok("qos BOM", R::qos, bom(q), clean_qos),
        ok("qos CR only", R::qos, cr(q), clean_qos),
        ok("qos spaces around cells", R::qos, "Name | Priority | UsageFactor\n normal | 0 | 1.0 \nhigh|100|2.0\n",
           clean_qos),
        ok("qos columns in another order, more columns", R::qos,
           "UsageFactor|MaxWall|Priority|Name\n1.0||0|normal\n2.0|1-00:00:00|100|high\n", clean_qos),
        ok("qos -p's trailing '|'", R::qos, "Name|Priority|UsageFactor|\nnormal|0|1.0|\nhigh|100|2.0|\n", clean_qos),
        ok("qos blank lines at the end", R::qos, q + "\n\n", clean_qos),
        // QOS table, rejected
        bad("qos priority not a number", R::qos, "Name|Priority\nnormal|abc\n", 2, 8, "Priority"),
        bad("qos without a Name column", R::qos, "Priority|UsageFactor\n0|1.0\n", 1, 0, "Name"),
        bad("qos wrong number of cells", R::qos, "Name|Priority\nnormal|0|7\n", 2, 0, ""),
        // Maui jobs table, accepted
        ok("maui jobs CRLF", R::maui_jobs, crlf(j), clean_jobs),
        ok("maui jobs BOM", R::maui_jobs, bom(j), clean_jobs),
        ok("maui jobs CR only", R::maui_jobs, cr(j), clean_jobs),
        ok("maui jobs states in another case", R::maui_jobs,
           "JobID|User|SubmitTime|State|StartTime|WCLimit|Procs\n1|john|1000|idle||1:00:00|4\n"
           "2|mary|900|RUNNING|1500|2:00:00|8\n",
           clean_jobs),
        ok("maui jobs WCLimit with days", R::maui_jobs,
           "JobID|User|SubmitTime|State|StartTime|WCLimit|Procs\n1|john|1000|Idle||0:01:00:00|4\n"
           "2|mary|900|Running|1500|7200|8\n",
           clean_jobs),
        ok("maui jobs an unknown column", R::maui_jobs,
           "JobID|User|SubmitTime|State|StartTime|WCLimit|Procs|Comment\n1|john|1000|Idle||1:00:00|4|x\n"
           "2|mary|900|Running|1500|2:00:00|8|y\n",
           clean_jobs),
        // Maui jobs table, rejected
        bad("maui jobs unknown state", R::maui_jobs, "JobID|User|SubmitTime|State\n1|john|1000|Sleeping\n", 2, 13,
            "unknown State 'Sleeping'"),
        bad("maui jobs WCLimit", R::maui_jobs, "JobID|User|SubmitTime|WCLimit\n1|john|1000|soon\n", 2, 13,
            "is not a Maui time"),
        bad("maui jobs id twice", R::maui_jobs, "JobID|User|SubmitTime\n1|john|1000\n1|mary|1000\n", 3, 1,
            "listed twice"),
        bad("maui jobs running without start", R::maui_jobs, "JobID|User|SubmitTime|State\n1|john|1000|Running\n", 2,
            1, "needs a StartTime"),
        bad("maui jobs Req", R::maui_jobs, "JobID|User|SubmitTime|Req\n1|john|1000|2x(procs=4\n", 2, 15,
            "missing ')'"),
        bad("maui jobs empty user", R::maui_jobs, "JobID|User|SubmitTime\n1||1000\n", 2, 3, "empty User"),
        bad("maui jobs time past 9999", R::maui_jobs, "JobID|User|SubmitTime\n1|john|253402300800\n", 2, 8,
            "from 1970 to 9999"),
        bad("maui jobs Mem unit", R::maui_jobs, "JobID|User|SubmitTime|Mem\n1|john|1000|64Q\n", 2, 13,
            "is not an amount of MB"),
        // INFINITY is MAX_MTIME (MUTimeFromString), UNLIMITED the same.
        ok("maui jobs WCLimit INFINITY", R::maui_jobs,
           "JobID|User|SubmitTime|State|StartTime|WCLimit|Procs\n1|john|1000|Idle||INFINITY|4\n",
           "JobID|User|SubmitTime|State|StartTime|WCLimit|Procs\n1|john|1000|Idle||2140000000|4\n"),
        ok("maui jobs WCLimit UNLIMITED", R::maui_jobs,
           "JobID|User|SubmitTime|State|StartTime|WCLimit|Procs\n1|john|1000|Idle||UNLIMITED|4\n",
           "JobID|User|SubmitTime|State|StartTime|WCLimit|Procs\n1|john|1000|Idle||2140000000|4\n"),
        // QOS numbers out of the range the code holds
        bad("qos usage factor 1e308", R::qos, "Name|Priority|UsageFactor\nnormal|0|1e308\n", 2, 10,
            "is not a number from 0 to 1e+06"),
        bad("qos usage factor inf", R::qos, "Name|Priority|UsageFactor\nnormal|0|inf\n", 2, 10, "is not a number"),
    };
}

} // namespace

TEST_CASE("catalogue: dirty but valid inputs read as the clean ones; malformed ones are located and explained") {
    const auto cases = catalogue();
    CHECK(cases.size() >= 50);
    for (const auto& c : cases) {
        const std::string what = c.what;
        CAPTURE(what);
        const outcome got = read(c.r, c.input);
        CAPTURE(got.text);
        if (!c.same_as.empty()) {
            const outcome clean = read(c.r, c.same_as);
            REQUIRE(clean.ok);
            CHECK(got.ok);
            CHECK(got.text == clean.text);
        } else {
            CHECK_FALSE(got.ok);
            const std::string where = std::to_string(c.line) + ":" + std::to_string(c.column) + ": ";
            CHECK(got.text.rfind(where, 0) == 0);
            CHECK(got.text.find(c.message) != std::string::npos);
            CHECK(got.text.size() > where.size() + 10); // a sentence, not a code
        }
    }
}

TEST_CASE("catalogue: the tool's bounds and warnings on odd input") {
    namespace cli = mfprio::cli;
    const auto run = [](std::vector<std::string_view> a) { return cli::run_main(a); };
    const std::string dir = "/tmp/mfprio_catalogue_";
    std::ofstream(dir + "maui.cfg") << "QUEUETIMEWEIGHT 1\n\x01\x02garbage 5\n";
    std::ofstream(dir + "jobs.txt") << "JobID|User|SubmitTime\n1|john|1000\n";
    std::ofstream(dir + "slurm.conf") << "PriorityType=priority/multifactor\nPriorityWieghtAge=1000\n"
                                         "PriorityWeightFairshare=100 # ok\n";
    std::ofstream(dir + "assoc.txt") << "Account|User|RawShares|RawUsage\nroot||1|0\n a||1|0\n  a|u|1|0\n";
    const std::string cfg = dir + "maui.cfg", jobs = dir + "jobs.txt", conf = dir + "slurm.conf",
                      assoc = dir + "assoc.txt";
    // --now within 1970..9999: the whole int64 range would overflow the time arithmetic.
    for (const std::string_view now : {"-9223372036854775808", "-1", "253402300800", "10000-01-01T00:00:00"}) {
        CAPTURE(now);
        const auto o = run({"diagnose", "--maui-cfg", cfg, "--jobs", jobs, "--now", now});
        CHECK(o.status == cli::exit_usage);
        CHECK(o.err.find("from 1970 to 9999") != std::string::npos);
    }
    CHECK(run({"diagnose", "--maui-cfg", cfg, "--jobs", jobs, "--now", "253402300799"}).status == 0);
    // A maui.cfg line whose name is no parameter name: a warning, not silence.
    const auto lint = run({"lint", "--maui-cfg", cfg});
    CHECK(lint.status == 1);
    CHECK(lint.out.find(cfg + ":2:1: ") != std::string::npos);
    CHECK(lint.out.find("is not a parameter name") != std::string::npos);
    // A misspelled Priority key in slurm.conf: a lint warning with the closest name.
    const auto slint = run({"lint", "--conf", conf});
    CHECK(slint.status == 1);
    CHECK(slint.out.find("warning: " + conf + ":2:1: unknown slurm.conf parameter 'PriorityWieghtAge' "
                         "(did you mean PriorityWeightAge?)") != std::string::npos);
    // sshare -o widths are bounded as sprio's are: no gigabytes of padding.
    for (const std::string_view fmt : {"Account%99999999", "Account%-2147483648", "Account%1x"}) {
        CAPTURE(fmt);
        const auto o = run({"sshare", "--conf", conf, "--assoc", assoc, "-a", "-o", fmt});
        CHECK(o.status != 0);
        CHECK(o.out.size() < 1000);
        CHECK(o.err.find("field width must be an integer from -4096 to 4096") != std::string::npos);
    }
    const auto wide = run({"sshare", "--conf", conf, "--assoc", assoc, "-a", "-o", "Account%30,User%"});
    CHECK(wide.status == 0);
    // And the line is bounded (2048): 20 fields of 4096 would be 81940 characters a row.
    std::string many, many_sprio;
    for (int i = 0; i < 20; ++i) many += "Account%4096,", many_sprio += "%4096i";
    const auto too_wide = run({"sshare", "--conf", conf, "--assoc", assoc, "-a", "-o", many});
    CHECK(too_wide.status == cli::exit_usage);
    CHECK(too_wide.err.find("the fields' widths add up to 81940 characters, more than 2048 a line") != std::string::npos);
    std::vector<report::sprio_field> fields;
    CHECK(report::parse_sprio_format(many_sprio, fields) == "the fields' widths add up to 81920 characters, more than 2048 a line");
    CHECK_FALSE(report::parse_sprio_format("%2000i%48u", fields));
    CHECK(report::parse_sprio_format("%2000i%49u", fields));
    CHECK(fields.empty());
    // Every exit-65 message names the file (and the line where there is one).
    std::ofstream(dir + "bad_jobs.txt") << "JobID|User|SubmitTime\n1|john|soon\n";
    std::ofstream(dir + "bad_assoc.txt") << "Account|User|RawShares|RawUsage\nroot||1|1e308\n";
    std::ofstream(dir + "qos.txt") << "Name|Priority|UsageFactor\nnormal|0|1\n";
    std::ofstream(dir + "bad_qos.txt") << "Name|Priority|UsageFactor\nnormal|0|-1\n";
    std::ofstream(dir + "slurm_jobs.txt") << "JobID|User|Account|Partition|SubmitTime\n1|u|a||1000\n";
    std::ofstream(dir + "ok.conf") << "NodeName=n1 CPUs=4\nPartitionName=p Nodes=n1 Default=YES\n";
    std::ofstream(dir + "bad.policy") << "engine = nosuch\n";
    const std::string bad_jobs = dir + "bad_jobs.txt", bad_assoc = dir + "bad_assoc.txt", qos = dir + "qos.txt",
                      bad_qos = dir + "bad_qos.txt", sjobs = dir + "slurm_jobs.txt", ok_conf = dir + "ok.conf",
                      policy = dir + "bad.policy", missing = dir + "missing.conf";
    const struct {
        std::vector<std::string_view> args;
        std::string file_line;
    } failing[] = {
        {{"diagnose", "--maui-cfg", cfg, "--jobs", bad_jobs}, bad_jobs + ":2:"},
        {{"diagnose", "--maui-cfg", cfg, "--jobs", jobs, "--explain", "7"}, jobs + ": job 7"},
        {{"sprio", "--conf", ok_conf, "--qos", qos, "--assoc", bad_assoc, "--jobs", sjobs}, bad_assoc + ":2:"},
        {{"sprio", "--conf", ok_conf, "--qos", bad_qos, "--assoc", assoc, "--jobs", sjobs}, bad_qos + ":2:"},
        {{"sshare", "--conf", ok_conf, "--assoc", bad_assoc}, bad_assoc + ":2:"},
        {{"usage", "--conf", ok_conf, "--qos", qos, "--assoc", assoc, "--jobs", bad_jobs, "--elapsed", "10"},
         bad_jobs + ":"},
        {{"whatif", "--conf", ok_conf, "--qos", qos, "--assoc", bad_assoc, "--jobs", sjobs, "--set",
          "PriorityWeightAge=1"},
         bad_assoc + ":2:"},
        {{"queue", "--policy", policy, "--jobs", sjobs}, policy + ":1:"},
        {{"lint", "--conf", missing}, missing + ": cannot open file"},
    };
    for (const auto& f : failing) {
        CAPTURE(f.args[0]);
        const auto o = run(f.args);
        CAPTURE(o.err);
        CHECK(o.status == cli::exit_data);
        // The last line is the error (warnings come before it).
        const std::string last = o.err.substr(o.err.rfind('\n', o.err.size() - 2) + 1);
        CHECK(last.rfind("mfprio: " + f.file_line, 0) == 0);
    }
    for (const auto& f : {cfg, jobs, conf, assoc, bad_jobs, bad_assoc, qos, bad_qos, sjobs, ok_conf, policy})
        std::remove(f.c_str());
}

namespace {

namespace fs = std::filesystem;

/// A copy of the busy_fair_tree capture (tests/data/live) in a directory of its own, with
/// one file changed by `change` and the manifest written again for it: the bundle path's
/// dirty and malformed inputs, each reaching the reader of the file it changes.
struct bundle_copy {
    std::string dir;
    explicit bundle_copy(const std::string& name) {
        dir = (fs::temp_directory_path() / ("mfprio-catalogue-" + name + "-" + std::to_string(::getpid()))).string();
        fs::remove_all(dir);
        fs::create_directories(dir);
        for (const auto& e : fs::directory_iterator(std::string(MFPRIO_TEST_DATA) + "/live/busy_fair_tree"))
            if (e.is_regular_file() && e.path().filename() != "manifest") fs::copy_file(e.path(), dir + "/" + e.path().filename().string());
    }
    ~bundle_copy() { fs::remove_all(dir); }
    bundle_copy(const bundle_copy&) = delete;
    bundle_copy& operator=(const bundle_copy&) = delete;

    [[nodiscard]] std::string path(const std::string& file) const { return dir + "/" + file; }
    [[nodiscard]] std::string read(const std::string& file) const {
        std::ifstream in(path(file), std::ios::binary);
        return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    }
    void write(const std::string& file, const std::string& text) const { std::ofstream(path(file), std::ios::binary) << text; }
    /// The manifest of the regular files there (as --save writes it).
    void seal() const {
        std::vector<std::pair<std::string, std::string>> files;
        for (const auto& e : fs::directory_iterator(dir))
            if (e.is_regular_file() && e.path().filename() != "manifest")
                files.emplace_back(e.path().filename().string(), read(e.path().filename().string()));
        std::sort(files.begin(), files.end());
        std::vector<std::pair<std::string, std::string_view>> views(files.begin(), files.end());
        write("manifest", mfprio::cli::manifest_text(views));
    }
};

/// `text` with the first `from` after line `line` (1-based) replaced by `to`.
std::string replace_on_line(std::string text, std::size_t line, std::string_view from, std::string_view to) {
    std::size_t at = 0;
    for (std::size_t l = 1; l < line; ++l) at = text.find('\n', at) + 1;
    const std::size_t p = text.find(from, at);
    REQUIRE(p != std::string::npos);
    REQUIRE(text.find('\n', at) > p); // on that line
    return text.replace(p, from.size(), to);
}

} // namespace

TEST_CASE("catalogue: the bundle and live paths: dirty inputs read as clean ones, malformed ones located") {
    namespace cli = mfprio::cli;
    const auto sprio = [](const std::string& dir) {
        const std::vector<std::string_view> args{"sprio", "--from", dir};
        return cli::run_main(args);
    };
    const std::string clean = sprio(std::string(MFPRIO_TEST_DATA) + "/live/busy_fair_tree").out;
    REQUIRE(clean.starts_with("          JOBID PARTITION"));

    // Accepted: old Mac line ends (CR only) in every text file, sshare's included.
    {
        bundle_copy b("cr");
        for (const char* f : {"sshare_a_l_P.txt", "scontrol_show_config.txt", "scontrol_show_partition.txt",
                              "scontrol_show_node.txt", "scontrol_show_assoc_mgr.txt", "squeue.txt", "meta"}) {
            std::string t = b.read(f);
            std::replace(t.begin(), t.end(), '\n', '\r');
            b.write(f, t);
        }
        b.seal();
        const auto o = sprio(b.dir);
        CHECK(o.err == "");
        CHECK(o.out == clean);
    }

    // Refused, naming the file, line and column (counted by hand in the capture's files).
    struct bad_case {
        const char* what;
        const char* file;
        std::size_t line;
        std::string_view from, to;
        std::string where_what; ///< the error after "mfprio: DIR/FILE:"
    };
    const bad_case cases[] = {
        // squeue --json: tokens that are not JSON, or not of the field's type, in fields read.
        {"job_id 1_0", "squeue.json", 917, "\"job_id\": 7", "\"job_id\": 1_0",
         "917:17: jobs: \"job_id\": not valid JSON: Problem while parsing a number"},
        {"partition []", "squeue.json", 938, "\"partition\": \"big\"", "\"partition\": []",
         "938:20: jobs: \"partition\": expected a string or null"},
        {"cpus []", "squeue.json", 108, "\"cpus\": 2", "\"cpus\": []",
         "108:15: jobs: \"cpus\": expected a number, a number object or null"},
        {"nice nul", "squeue.json", 103, "\"nice\": null", "\"nice\": nul",
         "103:15: jobs: \"nice\": not valid JSON: a token that is not null, true, false, a number or a string"},
        {"eligible_time {}", "squeue.json", 56, "\"eligible_time\": 1795716741", "\"eligible_time\": {}",
         "56:24: jobs: \"eligible_time\": a number object without \"number\""},
        // NUL bytes in the native outputs: the file, its line and column.
        {"NUL in scontrol show partition", "scontrol_show_partition.txt", 2, "PartitionName=big", std::string_view("PartitionName=b\0g", 17),
         "2:16: a NUL byte: not a text file"},
        {"NUL in scontrol show config", "scontrol_show_config.txt", 3, "=", std::string_view("=\0", 2), ""},
        {"NUL in assoc_mgr", "scontrol_show_assoc_mgr.txt", 1, "C", std::string_view("\0", 1), "1:1: a NUL byte: not a text file"},
        // meta values as the options they stand for.
        {"meta slurm_version", "meta", 2, "22.05.8", "latest", "2:15: slurm_version: 'latest' is not a release such as 22.05 or 24.11.3"},
    };
    for (const auto& c : cases) {
        CAPTURE(c.what);
        bundle_copy b("bad");
        // squeue.txt is read before squeue.json: without it, the JSON is.
        if (std::string_view(c.file) == "squeue.json") fs::remove(b.path("squeue.txt"));
        b.write(c.file, replace_on_line(b.read(c.file), c.line, c.from, c.to));
        b.seal();
        const auto o = sprio(b.dir);
        CAPTURE(o.err);
        CHECK(o.status == cli::exit_data);
        CHECK(o.out.empty());
        CHECK(o.err.starts_with("mfprio: " + b.path(c.file) + ":" + std::to_string(c.line) + ":"));
        if (!c.where_what.empty()) CHECK(o.err == "mfprio: " + b.path(c.file) + ":" + c.where_what + "\n");
    }
    // Two documents in squeue.json: the second one is refused where it starts.
    {
        bundle_copy b("two");
        fs::remove(b.path("squeue.txt"));
        const std::string t = b.read("squeue.json");
        const auto lines = static_cast<std::size_t>(std::count(t.begin(), t.end(), '\n'));
        b.write("squeue.json", t + "\n{\"jobs\": []}\n"); // (the capture ends without a line end)
        b.seal();
        const auto o = sprio(b.dir);
        CHECK(o.status == cli::exit_data);
        CHECK(o.err == "mfprio: " + b.path("squeue.json") + ":" + std::to_string(lines + 2) +
                           ":1: jobs: more after the JSON document (one `squeue --json` output a file)\n");
    }
    // A bundle file replaced by a directory, by a symlink to one, or by a device.
    for (const char* kind : {"directory", "symlink", "device"}) {
        CAPTURE(kind);
        bundle_copy b("kind");
        b.seal();
        fs::remove(b.path("sshare_a_l_P.txt"));
        if (std::string_view(kind) == "directory") fs::create_directory(b.path("sshare_a_l_P.txt"));
        else if (std::string_view(kind) == "symlink") fs::create_directory_symlink(b.dir, b.path("sshare_a_l_P.txt"));
        else fs::create_symlink("/dev/zero", b.path("sshare_a_l_P.txt"));
        const auto o = sprio(b.dir);
        CHECK(o.status == cli::exit_data);
        CHECK(o.err == "mfprio: " + b.path("sshare_a_l_P.txt") + ": cannot read file: " +
                           (std::string_view(kind) == "device" ? "a device, not a regular file" : "a directory") + "\n");
    }
}

TEST_CASE("catalogue: whatif --set takes one key's value; --json is UTF-8 whatever the names") {
    namespace cli = mfprio::cli;
    const std::string d = std::string(MFPRIO_TEST_DATA) + "/whatif/";
    const std::string conf = d + "slurm.conf", qos = d + "qos.txt";
    const auto whatif = [&](std::vector<std::string_view> extra, const std::string& assoc, const std::string& jobs) {
        std::vector<std::string_view> args{"whatif", "--conf", conf, "--qos", qos, "--assoc", assoc, "--jobs", jobs};
        args.insert(args.end(), extra.begin(), extra.end());
        return cli::run_main(args);
    };
    const std::string assoc = d + "assoc.txt", jobs = d + "jobs.txt";
    // A value is one word on one line: another key, an Include or a comment is no part of it.
    for (const std::string_view v : {"PriorityWeightAge=12\nPriorityWeightQOS=9000000", "PriorityWeightAge=12\rInclude /etc/passwd",
                                     "PriorityWeightAge=1 PriorityWeightQOS=9", "PriorityWeightAge=1#x",
                                     "PriorityWeightAge=1\tPriorityWeightQOS=9"}) {
        CAPTURE(v);
        const auto o = whatif({"--set", v}, assoc, jobs);
        CHECK(o.status == cli::exit_usage);
        CHECK(o.err.starts_with("mfprio whatif: --set PriorityWeightAge: the value must be one word (no spaces, line "
                                "ends, control characters or '#')\n"));
    }
    // A PriorityFlags word that is no flag: Slurm ignores it; a warning names it.
    const auto typo = whatif({"--set", "PriorityFlags=NO_FAIR_TRE"}, assoc, jobs);
    CHECK(typo.status == 0);
    CHECK(typo.err == "mfprio whatif: warning: PriorityFlags: 'NO_FAIR_TRE' is no flag: Slurm ignores it (did you "
                      "mean NO_FAIR_TREE?)\n");
    // Names and --set bytes that are not UTF-8: --json writes U+FFFD for them.
    const std::string dir = (fs::temp_directory_path() / ("mfprio-catalogue-utf8-" + std::to_string(::getpid()))).string();
    fs::create_directories(dir);
    const auto rename = [](std::string t) {
        for (std::size_t p; (p = t.find("alice")) != std::string::npos;) t.replace(p, 5, "al\xff" "ce");
        return t;
    };
    const auto slurp = [](const std::string& p) {
        std::ifstream in(p, std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    };
    std::ofstream(dir + "/assoc.txt", std::ios::binary) << rename(slurp(assoc));
    std::ofstream(dir + "/jobs.txt", std::ios::binary) << rename(slurp(jobs));
    const auto o = whatif({"--set", "PriorityFlags=\xfe\xff", "--json", "--head", "4"}, dir + "/assoc.txt", dir + "/jobs.txt");
    CHECK(o.status == 0);
    const auto doc = nlohmann::json::parse(o.out, nullptr, false);
    REQUIRE_FALSE(doc.is_discarded());
    CHECK(o.out.find("al\xEF\xBF\xBD" "ce") != std::string::npos);
    CHECK(o.out.find("\xEF\xBF\xBD\xEF\xBF\xBD") != std::string::npos);
    fs::remove_all(dir);
}

TEST_CASE("catalogue: lint warns of a PriorityFlags word that is no flag, at its column") {
    const std::string conf = (fs::temp_directory_path() / ("mfprio-catalogue-flags-" + std::to_string(::getpid()))).string();
    std::ofstream(conf) << "PriorityType=priority/multifactor\nPriorityWeightAge=1000\n"
                           "PriorityFlags=CALCULATE_RUNNING,NO_FAIR_TRE,XNO_NORMAL_QOS\n";
    const std::vector<std::string_view> args{"lint", "--conf", conf};
    const auto o = mfprio::cli::run_main(args);
    CHECK(o.status == 1);
    CHECK(o.out.find("warning: " + conf + ":3:33: PriorityFlags word 'NO_FAIR_TRE' is no flag: Slurm ignores it (did "
                     "you mean NO_FAIR_TREE?)\n") != std::string::npos);
    CHECK(o.out.find("warning: " + conf + ":3:45: PriorityFlags word 'XNO_NORMAL_QOS' is no flag: Slurm reads the flag "
                     "names inside it") != std::string::npos);
    std::remove(conf.c_str());
}

TEST_CASE("catalogue: every command refuses a NUL byte (at its line and column) and an oversized file the same way") {
    namespace fs = std::filesystem;
    const std::string data = MFPRIO_TEST_DATA;
    const std::string dir = (fs::temp_directory_path() / ("mfprio-catalogue-nul-" + std::to_string(::getpid()))).string();
    fs::create_directories(dir);
    // One invocation per command family, with the option whose file is spoiled: each
    // argument "@name" is a copy of tests/data/<family>/name in `dir`.
    struct family {
        std::vector<std::string> args;
    };
    const std::vector<family> families = {
        {{"sprio", "--conf", "@sprio/slurm.conf", "--qos", "@sprio/qos.txt", "--assoc", "@sprio/assoc.txt",
          "--jobs", "@sprio/jobs.txt"}},
        {{"sshare", "--conf", "@sshare/seed000.conf", "--assoc", "@sshare/seed000_assoc.txt"}},
        {{"usage", "--conf", "@usage/slurm.conf", "--qos", "@usage/qos.txt", "--assoc", "@usage/assoc.txt", "--jobs",
          "@usage/jobs.txt", "--elapsed", "10"}},
        {{"whatif", "--conf", "@whatif/slurm.conf", "--qos", "@whatif/qos.txt", "--assoc", "@whatif/assoc.txt",
          "--jobs", "@whatif/jobs.txt", "--set", "PriorityWeightAge=1"}},
        {{"diagnose", "--maui-cfg", "@diagnose/maui.cfg", "--jobs", "@diagnose/jobs.txt", "--nodes",
          "@diagnose/nodes.txt"}},
        {{"queue", "--policy", "@queue/seed003.policy", "--jobs", "@queue/jobs.txt", "--assoc", "@queue/assoc.txt"}},
        {{"lint", "--conf", "@lint/fine.conf", "--assoc", "@lint/assoc3.txt"}},
        {{"lint", "--maui-cfg", "@maui/fairshare-20/maui.cfg"}},
    };
    const auto place = [&](const std::string& a) {
        const std::string target = dir + "/" + fs::path(a.substr(1)).filename().string();
        fs::copy_file(data + "/" + a.substr(1), target, fs::copy_options::overwrite_existing);
        return target;
    };
    for (const auto& f : families) {
        std::vector<std::string> files;
        std::vector<std::string> args;
        for (const auto& a : f.args) {
            args.push_back(a.starts_with('@') ? place(a) : a);
            if (a.starts_with('@')) files.push_back(args.back());
        }
        const auto run = [&] {
            std::vector<std::string_view> v(args.begin(), args.end());
            return mfprio::cli::run_main(v);
        };
        REQUIRE(run().status == 0); // the clean inputs are read
        for (const auto& file : files) {
            CAPTURE(f.args.front());
            CAPTURE(file);
            // A NUL byte as the third byte of line 2.
            std::string text;
            {
                std::ifstream in(file, std::ios::binary);
                text.assign(std::istreambuf_iterator<char>(in), {});
            }
            const std::size_t line2 = text.find('\n') + 1;
            REQUIRE(line2 + 3 < text.size());
            std::string spoiled = text;
            spoiled[line2 + 2] = '\0';
            std::ofstream(file, std::ios::binary | std::ios::trunc) << spoiled;
            const auto nul = run();
            CHECK(nul.status == 65);
            CHECK(nul.err.find(file + ":2:3: a NUL byte: not a text file") != std::string::npos);
            // Past the bound of one input (a sparse file: no disk is written).
            fs::resize_file(file, mfprio::text::max_input_bytes + 1);
            const auto big = run();
            CHECK(big.status == 65);
            CHECK(big.err.find(file + ": larger than 1073741824 bytes, the most mfprio reads from one input") !=
                  std::string::npos);
            std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
        }
        CHECK(run().status == 0);
    }
    fs::remove_all(dir);
}
