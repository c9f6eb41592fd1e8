// Tests for mfprio/read/maui_cfg.hpp. Expected values come from the seed (002, Maui's "Job
// Prioritization" page: the CREDWEIGHT/USERCFG example, the FSWEIGHT example, the
// 'QOSCFG[special] QTWEIGHT=5000' and 'XFWEIGHT=5000' lines, the FSTARGET suffixes of the
// fair-share example) and from the reference (flux_maui.md part B: B1 parameter names and
// negative weights, B3 FSPOLICY/FSDEPTH, B4.6 the code defaults, B5 accrual policies).
#include <doctest/doctest.h>

#include <mfprio/read/maui_cfg.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h> // getpid

using namespace mfprio::config;
namespace maui = mfprio::maui;
using maui::component_id;
using maui::cred_kind;
using maui::fs_target;
using maui::fs_target_mode;
using maui::subcomponent;

namespace {

/// Parses `text` (as "test.cfg") and expects success.
maui_cfg ok(const std::string& text) {
    auto c = parse_maui_cfg(text, "test.cfg");
    if (!c) FAIL(c.error().to_string());
    return std::move(c).value();
}

/// Parses `text` and expects an error at `line` for `key` whose message contains `what`.
mfprio::input_error cfg_error(const std::string& text, std::size_t line, const std::string& key,
                              const std::string& what) {
    const auto c = parse_maui_cfg(text, "test.cfg");
    REQUIRE_FALSE(c);
    const auto& e = c.error();
    CAPTURE(e.to_string());
    CHECK(e.file == "test.cfg");
    CHECK(e.line == line);
    CHECK(e.key == key);
    CHECK(e.message.find(what) != std::string::npos);
    return e;
}

/// Checks that `c` has a warning at `line`, `column` for `key` whose message contains `what`.
void warned(const maui_cfg& c, std::size_t line, std::size_t column, const std::string& key, const std::string& what) {
    bool found = false;
    for (const auto& w : c.warnings)
        if (w.line == line && w.column == column && w.key == key && w.message.find(what) != std::string::npos) found = true;
    std::string all;
    for (const auto& w : c.warnings) all += w.to_string() + "\n";
    CAPTURE(all);
    CHECK(found);
}

/// The credential `name` of kind `k`; fails the test if there is none.
const maui_named_credential& cred(const maui_cfg& c, cred_kind k, std::string_view name) {
    const auto i = c.find(k, name);
    REQUIRE(i);
    return c.creds[maui::index(k)][*i];
}

} // namespace

TEST_CASE("config: maui.cfg defaults with an empty file (reference B4.6)") {
    for (const std::string text : {"", "\n\n", "# only a comment\n   \n\t# another\n"}) {
        const maui_cfg c = ok(text);
        CHECK(c.file == "test.cfg");
        // B4.6: all component weights 1, all subcomponent weights 0 except QUEUETIME 1.
        for (std::size_t i = 0; i < maui::component_count; ++i) {
            CHECK(c.weights.component_weight[i] == 1);
            CHECK(c.weights.component_cap[i] == 0);
        }
        for (std::size_t i = 0; i < maui::subcomponent_count; ++i) {
            CAPTURE(maui::subcomponents[i].name);
            CHECK(c.weights.sub_weight[i] == (i == maui::index(subcomponent::queuetime) ? 1 : 0));
            CHECK(c.weights.sub_cap[i] == 0);
        }
        // B4.6: XFMINWCLIMIT 120 s, FSPOLICY NONE, FSINTERVAL 43200 s, FSDEPTH 8, FSDECAY 1.0,
        // QUEUEPOLICY, REJECTNEGPRIOJOBS and ENABLENEGJOBPRIORITY FALSE.
        CHECK(c.opts.xf_min_wclimit == 120);
        CHECK(c.opts.fs_policy == maui::fs_metric::none);
        CHECK_FALSE(c.opts.fs_percent_based);
        CHECK(c.fs.interval == 43200);
        CHECK(c.fs.depth == 8);
        CHECK(c.fs.decay == 1.0);
        CHECK(c.opts.accrual == maui::accrual_policy::queuepolicy);
        CHECK_FALSE(c.opts.reject_negative);
        CHECK_FALSE(c.opts.enable_negative);
        CHECK(c.opts.preempt_prio_margin == 0);
        for (const auto& list : c.creds) CHECK(list.empty());
        CHECK_FALSE(c.find(cred_kind::user, "DEFAULT"));
    }
}

TEST_CASE("config: maui.cfg the seed's credential priority example (seed 002, CRED)") {
    const maui_cfg c = ok("CREDWEIGHT 1\n"
                          "USERWEIGHT 1\n"
                          "GROUPWEIGHT 1\n"
                          "USERCFG[john] PRIORITY=2000\n"
                          "USERCFG[paul] PRIORITY=-1000\n"
                          "GROUPCFG[staff] PRIORITY=10000\n");
    CHECK(c.weights[component_id::cred] == 1);
    CHECK(c.weights[subcomponent::user] == 1);
    CHECK(c.weights[subcomponent::group] == 1);
    CHECK(c.weights[subcomponent::account] == 0); // not given: code default
    const auto& users = c.creds[maui::index(cred_kind::user)];
    REQUIRE(users.size() == 2);
    CHECK(users[0].name == "john");
    CHECK(users[0].cred.priority == 2000);
    CHECK(users[0].line == 4);
    CHECK(users[1].name == "paul");
    CHECK(users[1].cred.priority == -1000); // "All priorities may be positive or negative."
    CHECK(users[1].line == 5);
    REQUIRE(c.creds[maui::index(cred_kind::group)].size() == 1);
    CHECK(cred(c, cred_kind::group, "staff").cred.priority == 10000);
    CHECK(cred(c, cred_kind::group, "staff").line == 6);
    CHECK(c.find(cred_kind::user, "paul") == 1);
    CHECK_FALSE(c.find(cred_kind::group, "john")); // kinds are apart
    CHECK(c.creds[maui::index(cred_kind::account)].empty());
}

TEST_CASE("config: maui.cfg the seed's fair-share weights example (seed 002, FS)") {
    // The seed's "PriorityWeights" list, one parameter per line.
    const maui_cfg c = ok("FSWEIGHT 100\n"
                          "FSUSERWEIGHT 10\n"
                          "FSGROUPWEIGHT 20\n"
                          "FSACCOUNTWEIGHT 30\n"
                          "FSQOSWEIGHT 40\n"
                          "FSCLASSWEIGHT 0\n");
    CHECK(c.weights[component_id::fs] == 100);
    CHECK(c.weights[subcomponent::fsuser] == 10);
    CHECK(c.weights[subcomponent::fsgroup] == 20);
    CHECK(c.weights[subcomponent::fsaccount] == 30);
    CHECK(c.weights[subcomponent::fsqos] == 40);
    CHECK(c.weights[subcomponent::fsclass] == 0);
    CHECK(c.weights[component_id::serv] == 1); // untouched
}

TEST_CASE("config: maui.cfg QOSCFG QTWEIGHT and XFWEIGHT (seed 002, SERV) merge into one QOS") {
    // The seed gives 'QOSCFG[special] QTWEIGHT=5000' and 'QOSCFG[special] XFWEIGHT=5000' as two
    // separate lines; one line with both means the same.
    const maui_cfg two = ok("QOSCFG[special] QTWEIGHT=5000\n"
                            "QOSCFG[special] XFWEIGHT=5000\n");
    const maui_cfg one = ok("QOSCFG[special] QTWEIGHT=5000 XFWEIGHT=5000\n");
    for (const maui_cfg* c : {&two, &one}) {
        REQUIRE(c->creds[maui::index(cred_kind::qos)].size() == 1);
        const auto& q = cred(*c, cred_kind::qos, "special");
        CHECK(q.cred.qt_weight == 5000);
        CHECK(q.cred.xf_weight == 5000);
        CHECK(q.cred.priority == 0);
        CHECK(q.line == 1);
    }
}

/// The name Maui 3.3 reads for a weight or cap key of the model (src/MConst.c's parameter
/// table): SERVICEWCAP and the USAGE prefix of EXECUTIONTIME's; "" where it has none.
std::string maui33_name(std::string_view key) {
    if (key == "SERVICECAP") return "SERVICEWCAP";
    if (key == "EXECUTIONTIMEWEIGHT" || key == "EXECUTIONTIMECAP") return "USAGE" + std::string(key);
    if (key == "UPROCCAP" || key == "UJOBCAP") return "";
    return std::string(key);
}

TEST_CASE("config: maui.cfg every weight and cap Maui 3.3 reads (reference B1, src/MConst.c)") {
    std::string text;
    for (std::size_t i = 0; i < maui::component_count; ++i) {
        text += maui33_name(maui::components[i].weight_key) + " " + std::to_string(100 + i) + "\n";
        text += maui33_name(maui::components[i].cap_key) + " " + std::to_string(i + 1) + "\n";
    }
    for (std::size_t i = 0; i < maui::subcomponent_count; ++i) {
        // Negative weights are legal (B1: WALLTIMEWEIGHT -1 favours short jobs).
        text += maui33_name(maui::subcomponents[i].weight_key) + " -" + std::to_string(200 + i) + "\n";
        if (const std::string cap = maui33_name(maui::subcomponents[i].cap_key); !cap.empty())
            text += cap + " " + std::to_string(1000 + i) + "\n";
    }
    const maui_cfg c = ok(text);
    const auto attr = [](std::size_t sub) { return maui::subcomponents[sub].parent == component_id::attr; };
    for (std::size_t i = 0; i < maui::component_count; ++i) {
        CAPTURE(maui::components[i].weight_key);
        CHECK(c.weights.component_weight[i] == static_cast<std::int64_t>(100 + i));
        // ATTRCAP is read as a string and stored from an integer never set: always 0.
        CHECK(c.weights.component_cap[i] == (i == maui::index(component_id::attr) ? 0.0 : static_cast<double>(i + 1)));
    }
    for (std::size_t i = 0; i < maui::subcomponent_count; ++i) {
        CAPTURE(maui::subcomponents[i].weight_key);
        const bool no_cap = i == maui::index(subcomponent::uproc) || i == maui::index(subcomponent::ujob);
        CHECK(c.weights.sub_weight[i] == (attr(i) ? 0 : -static_cast<std::int64_t>(200 + i)));
        CHECK(c.weights.sub_cap[i] == (attr(i) || no_cap ? 0.0 : static_cast<double>(1000 + i)));
    }
    // The ATTR weights and caps given non-zero: a warning each (2 weights, 3 caps).
    std::size_t attr_warnings = 0;
    for (const auto& w : c.warnings) attr_warnings += w.message.find("as 0 whatever its value") != std::string::npos;
    CHECK(attr_warnings == 5);
    CHECK(c.warnings.size() == 5);

    // MCfgProcessLine refuses an integer parameter of -1 ("has invalid value") and assigns
    // nothing: WALLTIMEWEIGHT keeps the 7 of the line before; PEWEIGHT its code default 0.
    const maui_cfg w = ok("WALLTIMEWEIGHT 7\nWALLTIMEWEIGHT -1\nPEWEIGHT -1\nRESWEIGHT +5\nXFACTORCAP -3\n");
    CHECK(w.weights[subcomponent::walltime] == 7);
    CHECK(w.weights[subcomponent::pe] == 0);
    warned(w, 2, 16, "WALLTIMEWEIGHT", "Maui 3.3 reads '-1' as -1: -1, which Maui 3.3 refuses, keeping the value before");
    CHECK(w.weights[component_id::res] == 5);
    CHECK(w.weights.sub_cap[maui::index(subcomponent::xfactor)] == -3); // <= 0: no cap
}

TEST_CASE("config: maui.cfg weights and caps read as Maui 3.3 reads them, with warnings") {
    // Subcomponent weights and caps (mdfInt in src/MConst.c): MCfgProcessLine's
    // IVal = (int)strtol(value, NULL, 0), -1 when that is 0 and the value does not start
    // with '0' or is missing; an IVal of -1 is refused ("parameter has invalid value") and the
    // code default (0 for these) stays; otherwise MFSProcessOConfig stores (long)IVal.
    const maui_cfg c = ok("QUEUETIMEWEIGHT 1.5\n"  // 1
                          "XFACTORWEIGHT 010\n"    // 2: octal
                          "BYPASSWEIGHT 0x10\n"    // 3: hexadecimal
                          "PROCWEIGHT 10abc\n"     // 4
                          "NODEWEIGHT ten\n"       // 5: cannot be read: -1, refused
                          "MEMWEIGHT\n"            // 6: no value: -1, refused
                          "DISKWEIGHT 4294967297\n" // 7: cast to int: 1
                          "SWAPWEIGHT 9223372036854775807\n" // 8: (int)LONG_MAX = -1, refused
                          "PSWEIGHT -0\n"          // 9: 0 not written with a leading 0: -1, refused
                          "PEWEIGHT 0\n"           // 10: 0
                          "RESCAP 0.25\n"          // 11: 0, no cap
                          "XFACTORCAP 2.5\n"       // 12: 2
                          "USERWEIGHT 5 6\n");     // 13: the first value
    CHECK(c.weights[subcomponent::queuetime] == 1);
    CHECK(c.weights[subcomponent::xfactor] == 8);
    CHECK(c.weights[subcomponent::bypass] == 16);
    CHECK(c.weights[subcomponent::proc] == 10);
    CHECK(c.weights[subcomponent::node] == 0);
    CHECK(c.weights[subcomponent::mem] == 0);
    CHECK(c.weights[subcomponent::disk] == 1);
    CHECK(c.weights[subcomponent::swap] == 0);
    CHECK(c.weights[subcomponent::ps] == 0);
    CHECK(c.weights[subcomponent::pe] == 0);
    CHECK(c.weights.component_cap[maui::index(component_id::res)] == 0.0);
    CHECK(c.weights.sub_cap[maui::index(subcomponent::xfactor)] == 2.0);
    CHECK(c.weights[subcomponent::user] == 5);
    warned(c, 1, 17, "QUEUETIMEWEIGHT", "Maui 3.3 reads '1.5' as 1");
    warned(c, 2, 15, "XFACTORWEIGHT", "reads '010' as 8");
    warned(c, 3, 14, "BYPASSWEIGHT", "reads '0x10' as 16");
    warned(c, 4, 12, "PROCWEIGHT", "reads '10abc' as 10");
    warned(c, 5, 12, "NODEWEIGHT", "cannot read 'ten' as an integer: -1, which Maui 3.3 refuses, keeping the value before");
    warned(c, 6, 1, "MEMWEIGHT", "MEMWEIGHT has no value: -1, which Maui 3.3 refuses");
    warned(c, 7, 12, "DISKWEIGHT", "reads '4294967297' as 1");
    warned(c, 9, 10, "PSWEIGHT", "reads '-0' as -1");
    warned(c, 11, 8, "RESCAP", "reads '0.25' as 0");
    warned(c, 13, 14, "USERWEIGHT", "reads only the first value and ignores '6'");
    CHECK(c.warnings.size() == 12); // every line but PEWEIGHT 0

    // Component weights (mdfString): strtol(value, &tail, 0) as a long; 'N%' is 10.
    const maui_cfg k = ok("FSWEIGHT 50%\nRESWEIGHT 9223372036854775807\nCREDWEIGHT lots\nSERVICEWEIGHT 2.9\n");
    CHECK(k.weights[component_id::fs] == 10);
    CHECK(k.weights[component_id::res] == INT64_MAX);
    CHECK(k.weights[component_id::cred] == 0);
    CHECK(k.weights[component_id::serv] == 2);
    warned(k, 1, 10, "FSWEIGHT", "reads a percentage weight '50%' as 10");
    warned(k, 3, 12, "CREDWEIGHT", "cannot read 'lots' as an integer and uses 0");
    CHECK(k.warnings.size() == 3);
    // A component weight without a value stays an error (Maui would call strtol on NULL).
    cfg_error("CREDWEIGHT 1\n  FSWEIGHT\n", 2, "FSWEIGHT", "FSWEIGHT needs a value");
}

TEST_CASE("config: maui.cfg names: Maui 3.3's own and back-level names; the documentation's are ignored") {
    // src/MConst.c: SERVICEWCAP, USAGEEXECUTIONTIMEWEIGHT; MCfgTranslateBackLevel: UFSWEIGHT,
    // GFSWEIGHT, AFSWEIGHT, SERVICETARGETWEIGHT, DIRECTSPECWEIGHT.
    const maui_cfg c = ok("SERVICEWCAP 4\nUFSWEIGHT 11\nGFSWEIGHT 12\nAFSWEIGHT 13\n"
                          "USAGEEXECUTIONTIMEWEIGHT 24\nSERVICETARGETWEIGHT 2\nDIRECTSPECWEIGHT 6\n");
    CHECK(c.weights.component_cap[maui::index(component_id::serv)] == 4);
    CHECK(c.weights[subcomponent::fsuser] == 11);
    CHECK(c.weights[subcomponent::fsgroup] == 12);
    CHECK(c.weights[subcomponent::fsaccount] == 13);
    CHECK(c.weights[subcomponent::executiontime] == 24);
    CHECK(c.weights[component_id::serv] == 2);
    CHECK(c.weights[component_id::cred] == 6);
    CHECK(c.warnings.empty());
    CHECK(ok("servicetargetweight 8\nServiceWeight 7\n").weights[component_id::serv] == 7);
    CHECK(ok("UFSWEIGHT 8\nFSUSERWEIGHT 9\n").weights[subcomponent::fsuser] == 9);

    // The documentation's (and Moab's) names that Maui 3.3 has no entry for: ignored, with a
    // warning naming the parameter Maui reads.
    const maui_cfg d = ok("SERVWEIGHT 2\nTARGWEIGHT 3\nSERVCAP 4\nTARGCAP 5\nSERVICECAP 6\n"
                          "QFSWEIGHT 14\nCFSWEIGHT 15\nUSAGECONSUMEDWEIGHT 21\nUSAGEREMAININGWEIGHT 22\n"
                          "USAGEPERCENTWEIGHT 23\nEXECUTIONTIMEWEIGHT 24\nPREEMPTPRIOMARGIN 500\n");
    const maui_cfg defaults = ok("");
    CHECK(d.weights.component_weight == defaults.weights.component_weight);
    CHECK(d.weights.sub_weight == defaults.weights.sub_weight);
    CHECK(d.weights.component_cap == defaults.weights.component_cap);
    CHECK(d.opts.preempt_prio_margin == 0);
    CHECK(d.warnings.size() == 12);
    warned(d, 1, 1, "SERVWEIGHT", "Maui 3.3 does not read SERVWEIGHT and ignores the line (Maui 3.3's parameter is SERVICEWEIGHT)");
    warned(d, 5, 1, "SERVICECAP", "service cap is SERVICEWCAP");
    warned(d, 6, 1, "QFSWEIGHT", "FSQOSWEIGHT");
    warned(d, 12, 1, "PREEMPTPRIOMARGIN", "its run-priority margin is always 0");

    // Names outside Maui 3.3's table (MConst.c MCfg[]): a warning with the closest name;
    // Maui's own parameters for other purposes (RMCFG, SERVERHOST, LOGLEVEL) pass silently.
    const maui_cfg u = ok("QUEUTIMEWEIGHT 5\nFSUSRCAP 2\nRMCFG[base] TYPE=PBS\nSERVERHOST head\n"
                          "LOGLEVEL 3\nSERVERHOTS head\nNOTAPARAM 1\n");
    CHECK(u.weights[subcomponent::queuetime] == 1);
    CHECK(u.warnings.size() == 4);
    warned(u, 1, 1, "QUEUTIMEWEIGHT", "unknown parameter 'QUEUTIMEWEIGHT': Maui 3.3 ignores it (did you mean QUEUETIMEWEIGHT?)");
    warned(u, 2, 1, "FSUSRCAP", "did you mean FSUSERCAP?");
    warned(u, 6, 1, "SERVERHOTS", "unknown parameter 'SERVERHOTS': Maui 3.3 ignores it (did you mean SERVERHOST?)");
    warned(u, 7, 1, "NOTAPARAM", "unknown parameter 'NOTAPARAM': Maui 3.3 ignores it");
    CHECK(u.warnings[3].message.find("did you mean") == std::string::npos);
    // The table is Maui's, sorted (the reader searches it by halves).
    CHECK(std::is_sorted(std::begin(detail::maui33_parameter_names), std::end(detail::maui33_parameter_names)));
    CHECK(std::size(detail::maui33_parameter_names) == 354);
    // Thousands of unknown names: a warning each, a "did you mean" for the first 100 only.
    std::string many;
    for (int i = 0; i < 1500; ++i) many += "QUEUTIMEWEIGHT 1\n";
    const maui_cfg m = ok(many);
    REQUIRE(m.warnings.size() == 1500);
    CHECK(m.warnings[99].message.find("did you mean") != std::string::npos);
    CHECK(m.warnings[100].message.find("did you mean") == std::string::npos);
}

TEST_CASE("config: maui.cfg Maui times") {
    CHECK(parse_maui_time("90") == 90);
    CHECK(parse_maui_time("0") == 0);
    CHECK(parse_maui_time("2:00") == 120);
    CHECK(parse_maui_time("2:00:00") == 7200);
    CHECK(parse_maui_time("1:00:00:00") == 86400);
    CHECK(parse_maui_time("1:02:03:04") == 86400 + 2 * 3600 + 3 * 60 + 4);
    CHECK(parse_maui_time("12:00:00") == 43200); // FSINTERVAL's default (B4.6)
    CHECK(parse_maui_time("0:90:00") == 5400);   // fields are added up, not range-checked
    CHECK(parse_maui_time("007") == 7);          // decimal, not octal
    // Bounded to max_epoch (9999-12-31T23:59:59 as seconds): 2932896 days 23:59:59.
    CHECK(parse_maui_time("2932896:23:59:59") == 253402300799);
    CHECK(parse_maui_time("253402300799") == 253402300799);
    CHECK_FALSE(parse_maui_time("2932897:00:00:00"));
    CHECK_FALSE(parse_maui_time("253402300800"));
    CHECK_FALSE(parse_maui_time("106751991167300:15:30:08")); // past 2^63-1 too
    CHECK_FALSE(parse_maui_time("99999999999999999999"));
    // MTime.c MUTimeFromString: strcmp(TString, "INFINITY") gives MAX_MTIME, 2140000000.
    CHECK(parse_maui_time("INFINITY") == 2140000000);
    for (const char* bad : {"", ":", "1:", ":1", "1::2", "1:2:3:4:5", "-1", "+1", "1.5", "1h",
                            " 1", "1 ", "infinity", "00:00:-1"}) {
        CAPTURE(bad);
        CHECK_FALSE(parse_maui_time(bad));
    }

    const maui_cfg c = ok("XFMINWCLIMIT 0:05:00\nFSINTERVAL 1:00:00:00\n"
                          "QOSCFG[q] QTTARGET=2:00:00\n");
    CHECK(c.opts.xf_min_wclimit == 300);
    CHECK(c.fs.interval == 86400);
    CHECK(cred(c, cred_kind::qos, "q").cred.qt_target == 7200);
    CHECK(ok("FSINTERVAL 3600\n").fs.interval == 3600);
}

TEST_CASE("config: maui.cfg FSTARGET and its suffixes (seed 002: target, floor '+', ceiling '-')") {
    CHECK(parse_fs_target("25") == fs_target{25, fs_target_mode::target});
    CHECK(parse_fs_target("25+") == fs_target{25, fs_target_mode::floor});
    CHECK(parse_fs_target("25-") == fs_target{25, fs_target_mode::ceiling});
    CHECK(parse_fs_target("25^") == fs_target{25, fs_target_mode::cap_absolute});
    CHECK(parse_fs_target("25%") == fs_target{25, fs_target_mode::cap_relative});
    CHECK(parse_fs_target("10.0+") == fs_target{10, fs_target_mode::floor}); // the seed's QOS 3
    CHECK(parse_fs_target("12.5") == fs_target{12.5, fs_target_mode::target});
    CHECK(parse_fs_target("0") == fs_target{0, fs_target_mode::target});
    CHECK(parse_fs_target("-0") == fs_target{0, fs_target_mode::target});
    for (const char* bad : {"", "+", "-", "%", "^", "-5", "-5+", "25++", "25+-", "+25", "x",
                            "25x", "25 ", "inf", "nan", "1e999"}) {
        CAPTURE(bad);
        CHECK_FALSE(parse_fs_target(bad));
    }

    // The seed's fair-share example targets: user 50.0, account 25.0, QOS 10.0+; group and
    // class have none.
    const maui_cfg c = ok("USERCFG[A] FSTARGET=50.0\n"
                          "ACCOUNTCFG[C] FSTARGET=25.0\n"
                          "QOSCFG[3] FSTARGET=10.0+\n"
                          "GROUPCFG[B] PRIORITY=0\n"
                          "CLASSCFG[E] FSTARGET=5-\n"
                          "USERCFG[DEFAULT] FSTARGET=5^\n"
                          "GROUPCFG[DEFAULT] FSTARGET=7%\n");
    CHECK(cred(c, cred_kind::user, "A").cred.target == fs_target{50, fs_target_mode::target});
    CHECK(cred(c, cred_kind::account, "C").cred.target == fs_target{25, fs_target_mode::target});
    CHECK(cred(c, cred_kind::qos, "3").cred.target == fs_target{10, fs_target_mode::floor});
    CHECK(cred(c, cred_kind::group, "B").cred.target == fs_target{});
    CHECK(cred(c, cred_kind::group, "B").cred.target.mode == fs_target_mode::none);
    CHECK(cred(c, cred_kind::job_class, "E").cred.target == fs_target{5, fs_target_mode::ceiling});
    CHECK(cred(c, cred_kind::user, "DEFAULT").cred.target ==
          fs_target{5, fs_target_mode::cap_absolute});
    CHECK(cred(c, cred_kind::group, "DEFAULT").cred.target ==
          fs_target{7, fs_target_mode::cap_relative});
}

TEST_CASE("config: maui.cfg every option value") {
    SUBCASE("XFMINWCLIMIT: a time, or negative for no minimum") {
        CHECK(ok("XFMINWCLIMIT 600\n").opts.xf_min_wclimit == 600);
        CHECK(ok("XFMINWCLIMIT 0\n").opts.xf_min_wclimit == 0);
        CHECK(ok("XFMINWCLIMIT -1\n").opts.xf_min_wclimit == 0); // the docs' "no limit" (B4.7)
        CHECK(ok("XFMINWCLIMIT -0:10:00\n").opts.xf_min_wclimit == 0);
    }
    SUBCASE("FSPOLICY: every metric, with and without '%', and the booleans (B3)") {
        struct row {
            const char* value;
            maui::fs_metric metric;
            bool percent;
        };
        const row rows[] = {
            {"NONE", maui::fs_metric::none, false},
            {"DEDICATEDPS", maui::fs_metric::dedicated_ps, false},
            {"DEDICATEDPES", maui::fs_metric::dedicated_pes, false},
            {"UTILIZEDPS", maui::fs_metric::utilized_ps, false},
            {"NONE%", maui::fs_metric::none, true},
            {"DEDICATEDPS%", maui::fs_metric::dedicated_ps, true},
            {"DEDICATEDPES%", maui::fs_metric::dedicated_pes, true},
            {"UTILIZEDPS%", maui::fs_metric::utilized_ps, true},
            {"dedicatedPEs", maui::fs_metric::dedicated_pes, false},
            {"utilizedps%", maui::fs_metric::utilized_ps, true},
            {"TRUE", maui::fs_metric::dedicated_ps, false},
            {"on", maui::fs_metric::dedicated_ps, false},
            {"Yes", maui::fs_metric::dedicated_ps, false},
            {"FALSE", maui::fs_metric::none, false},
            {"off", maui::fs_metric::none, false},
            {"NO", maui::fs_metric::none, false},
        };
        for (const row& r : rows) {
            CAPTURE(r.value);
            const maui_cfg c = ok(std::string("FSPOLICY ") + r.value + "\n");
            CHECK(c.opts.fs_policy == r.metric);
            CHECK(c.opts.fs_percent_based == r.percent);
        }
        // The last FSPOLICY wins, '%' included.
        const maui_cfg c = ok("FSPOLICY DEDICATEDPS%\nFSPOLICY UTILIZEDPS\n");
        CHECK(c.opts.fs_policy == maui::fs_metric::utilized_ps);
        CHECK_FALSE(c.opts.fs_percent_based);
    }
    SUBCASE("FSINTERVAL, FSDEPTH, FSDECAY") {
        const maui_cfg c = ok("FSINTERVAL 24:00:00\nFSDEPTH 7\nFSDECAY 0.5\n");
        CHECK(c.fs.interval == 86400);
        CHECK(c.fs.depth == 7);
        CHECK(c.fs.decay == 0.5);
        CHECK(ok("FSDEPTH 1\n").fs.depth == 1);
        CHECK(ok("FSDEPTH 24\n").fs.depth == 24); // Maui 3.3's limit (B3)
        CHECK(ok("FSDECAY 1\n").fs.decay == 1.0);
        CHECK(ok("FSDECAY 1.0\n").fs.decay == 1.0);
        CHECK(ok("FSDECAY 0.001\n").fs.decay == 0.001);
        CHECK(ok("FSINTERVAL 1\n").fs.interval == 1);
    }
    SUBCASE("JOBPRIOACCRUALPOLICY (B5)") {
        CHECK(ok("JOBPRIOACCRUALPOLICY ALWAYS\n").opts.accrual == maui::accrual_policy::always);
        CHECK(ok("JOBPRIOACCRUALPOLICY FULLPOLICY\n").opts.accrual == maui::accrual_policy::fullpolicy);
        CHECK(ok("JOBPRIOACCRUALPOLICY always\nJOBPRIOACCRUALPOLICY QueuePolicy\n").opts.accrual ==
              maui::accrual_policy::queuepolicy);
    }
    SUBCASE("REJECTNEGPRIOJOBS and ENABLENEGJOBPRIORITY: every boolean spelling") {
        for (const char* t : {"TRUE", "true", "ON", "On", "YES", "yes", "1"}) {
            CAPTURE(t);
            const maui_cfg c = ok(std::string("REJECTNEGPRIOJOBS ") + t + "\nENABLENEGJOBPRIORITY " + t + "\n");
            CHECK(c.opts.reject_negative);
            CHECK(c.opts.enable_negative);
        }
        for (const char* f : {"FALSE", "false", "OFF", "off", "NO", "No", "0"}) {
            CAPTURE(f);
            const maui_cfg c = ok(std::string("REJECTNEGPRIOJOBS TRUE\nENABLENEGJOBPRIORITY TRUE\n"
                                              "REJECTNEGPRIOJOBS ") + f + "\nENABLENEGJOBPRIORITY " + f + "\n");
            CHECK_FALSE(c.opts.reject_negative);
            CHECK_FALSE(c.opts.enable_negative);
        }
    }
}

TEST_CASE("config: maui.cfg names and keywords are case-insensitive, credential names are not") {
    const maui_cfg c = ok("fsweight 5\n"
                          "QueueTimeWeight 3\n"
                          "xfactorcap 2.5\n"
                          "fsPolicy dedicatedps\n"
                          "usercfg[Alice] priority=7 fstarget=20+\n"
                          "UserCfg[alice] Priority=8\n"
                          "qoscfg[hi] qtweight=1 XfWeight=2 qttarget=60 xftarget=3.5\n"
                          "groupcfg[g] classweight=4\n");
    CHECK(c.weights[component_id::fs] == 5);
    CHECK(c.weights[subcomponent::queuetime] == 3);
    CHECK(c.weights.sub_cap[maui::index(subcomponent::xfactor)] == 2); // an int, as Maui reads caps
    CHECK(c.opts.fs_policy == maui::fs_metric::dedicated_ps);
    const auto& users = c.creds[maui::index(cred_kind::user)];
    REQUIRE(users.size() == 2); // "Alice" and "alice" are two users
    CHECK(users[0].name == "Alice");
    CHECK(users[0].cred.priority == 7);
    CHECK(users[0].cred.target == fs_target{20, fs_target_mode::floor});
    CHECK(users[1].name == "alice");
    CHECK(users[1].cred.priority == 8);
    CHECK(c.find(cred_kind::user, "Alice") == 0);
    CHECK(c.find(cred_kind::user, "alice") == 1);
    CHECK_FALSE(c.find(cred_kind::user, "ALICE"));
    const auto& q = cred(c, cred_kind::qos, "hi").cred;
    CHECK(q.qt_weight == 1);
    CHECK(q.xf_weight == 2);
    CHECK(q.qt_target == 60);
    CHECK(q.xf_target == 3.5);
    CHECK(cred(c, cred_kind::group, "g").cred.class_weight == 4);
}

TEST_CASE("config: maui.cfg comments, white space, CRLF and unknown parameters") {
    const maui_cfg c = ok("# maui.cfg\r\n"
                          "SERVERHOST   head01\r\n"
                          "ADMIN1 root\r\n"
                          "RMCFG[base] TYPE=PBS\r\n"
                          "RMPOLLINTERVAL 00:00:30\r\n"
                          "SERVERPORT\r\n"                 // unknown, even without a value
                          "NOTAPARAM=1\r\n"                // unknown, with '='
                          "QUEUETIMEWEIGHT[batch] zzz\r\n" // indexed (per partition): not read
                          "\t FSWEIGHT\t\t42   # trailing comment\r\n"
                          "XFACTORWEIGHT 3#glued comment\r\n"
                          "   \r\n"
                          "#FSDEPTH 99\r\n"
                          "USERCFG[bob] PRIORITY=5 # MAXJOB=3\r\n"
                          "CREDWEIGHT 2"); // no final end of line
    CHECK(c.weights[component_id::fs] == 42);
    CHECK(c.weights[subcomponent::xfactor] == 3);
    CHECK(c.weights[subcomponent::queuetime] == 1);
    CHECK(c.weights[component_id::cred] == 2);
    CHECK(c.fs.depth == 8);
    CHECK(cred(c, cred_kind::user, "bob").cred.priority == 5);
    CHECK(cred(c, cred_kind::user, "bob").line == 13);
}

TEST_CASE("config: maui.cfg credentials: kinds, attributes, merges, DEFAULT") {
    const maui_cfg c = ok("USERCFG[DEFAULT] PRIORITY=10 FSTARGET=5\n"       // 1
                          "USERCFG[ann] PRIORITY=1 MAXJOB=4 QLIST=a,b\n"    // 2
                          "CLASSCFG[batch] PRIORITY=30 FLAGS=X\n"           // 3
                          "ACCOUNTCFG[physics] PRIORITY=-20 FSTARGET=40-\n" // 4
                          "QOSCFG[fast] PRIORITY=100 QDEF=x PLIST=y\n"      // 5
                          "USERCFG[ann] FSTARGET=15+ PRIORITY=2\n"          // 6: merges into line 2
                          "USERCFG[ben] MAXJOB=2\n"                         // 7: only unknown attributes
                          "QOSCFG[fast] XFTARGET=0 QTTARGET=0\n"            // 8
                          "USERCFG[ann] PRIORITY=3 PRIORITY=4\n"            // 9: the last one wins
                          "GROUPCFG[DEFAULT] CLASSWEIGHT=-6\n");            // 10
    const auto& users = c.creds[maui::index(cred_kind::user)];
    REQUIRE(users.size() == 3);
    CHECK(users[0].name == "DEFAULT");
    CHECK(users[0].cred.priority == 10);
    CHECK(users[0].cred.target == fs_target{5, fs_target_mode::target});
    CHECK(users[0].line == 1);
    CHECK(users[1].name == "ann");
    CHECK(users[1].cred.priority == 4);
    CHECK(users[1].cred.target == fs_target{15, fs_target_mode::floor}); // kept from line 6
    CHECK(users[1].line == 2);
    CHECK(users[2].name == "ben");
    CHECK(users[2].cred.priority == 0);
    CHECK(users[2].line == 7);
    CHECK(cred(c, cred_kind::job_class, "batch").cred.priority == 30);
    const auto& acc = cred(c, cred_kind::account, "physics");
    CHECK(acc.cred.priority == -20);
    CHECK(acc.cred.target == fs_target{40, fs_target_mode::ceiling});
    const auto& q = cred(c, cred_kind::qos, "fast");
    CHECK(q.cred.priority == 100); // kept from line 5
    CHECK(q.cred.xf_target == 0);
    CHECK(q.cred.qt_target == 0);
    CHECK(q.line == 5);
    CHECK(cred(c, cred_kind::group, "DEFAULT").cred.class_weight == -6);
    CHECK(c.find(cred_kind::user, "DEFAULT") == 0);
    CHECK_FALSE(c.find(cred_kind::job_class, "DEFAULT"));

    // Names are kept as written, with any characters but white space, '#' and ']'.
    const maui_cfg n = ok("ACCOUNTCFG[a.b-c_d@e:1] PRIORITY=1\nCLASSCFG[[x] PRIORITY=2\n");
    CHECK(n.find(cred_kind::account, "a.b-c_d@e:1") == 0);
    CHECK(n.find(cred_kind::job_class, "[x") == 0);
}

TEST_CASE("config: maui.cfg the same parameter twice: the last one wins") {
    const maui_cfg c = ok("FSWEIGHT 1\nFSDEPTH 3\nXFMINWCLIMIT 60\nFSWEIGHT 2\nfsdepth 4\n"
                          "XFMINWCLIMIT -1\nFSDECAY 0.5\nFSDECAY 0.8\n");
    CHECK(c.weights[component_id::fs] == 2);
    CHECK(c.fs.depth == 4);
    CHECK(c.opts.xf_min_wclimit == 0);
    CHECK(c.fs.decay == 0.8);
    // Every occurrence is checked, also the ones overridden later.
    cfg_error("FSPOLICY x\nFSPOLICY NONE\n", 1, "FSPOLICY", "expected NONE");
}

TEST_CASE("config: maui.cfg errors in parameter lines") {
    // A used parameter without a value.
    auto e = cfg_error("CREDWEIGHT 1\n  FSWEIGHT\n", 2, "FSWEIGHT", "FSWEIGHT needs a value");
    CHECK(e.column == 3);
    cfg_error("FSPOLICY # DEDICATEDPS\n", 1, "FSPOLICY", "needs a value");
    cfg_error("xfminwclimit\r\n", 1, "xfminwclimit", "xfminwclimit needs a value");
    // Text after an option's value.
    e = cfg_error("FSPOLICY DEDICATEDPS %\n", 1, "FSPOLICY", "unexpected text '%'");
    CHECK(e.column == 22);
    // NAME=VALUE for a used parameter.
    e = cfg_error("\tFSWEIGHT=100\n", 1, "FSWEIGHT", "a space, not '='");
    CHECK(e.column == 2);
    cfg_error("usercfg=x\n", 1, "usercfg", "a space, not '='");
}

TEST_CASE("config: maui.cfg errors in option values") {
    auto e = cfg_error("XFMINWCLIMIT 2h\n", 1, "XFMINWCLIMIT",
                       "expected a Maui time [[[DD:]HH:]MM:]SS (at most 253402300799 s), INFINITY or -1, got '2h'");
    CHECK(e.column == 14);
    cfg_error("XFMINWCLIMIT -x\n", 1, "XFMINWCLIMIT", "got '-x'");
    cfg_error("XFMINWCLIMIT -\n", 1, "XFMINWCLIMIT", "got '-'");
    cfg_error("XFMINWCLIMIT infinity\n", 1, "XFMINWCLIMIT", "got 'infinity'");
    // MFSProcessOConfig reads XFMINWCLIMIT and FSINTERVAL with MUTimeFromString: INFINITY is
    // MAX_MTIME (2140000000 s).
    CHECK(ok("XFMINWCLIMIT INFINITY\nFSINTERVAL INFINITY\n").opts.xf_min_wclimit == 2140000000.0);
    CHECK(ok("FSINTERVAL INFINITY\n").fs.interval == 2140000000);
    cfg_error("FSINTERVAL 2932897:00:00:00\n", 1, "FSINTERVAL", "(at most 253402300799 s)");

    for (const char* bad : {"FAIR", "DEDICATED", "%", "DEDICATEDPS%%", "1", "PS"}) {
        CAPTURE(bad);
        e = cfg_error(std::string("FSPOLICY ") + bad + "\n", 1, "FSPOLICY",
                      "expected NONE, DEDICATEDPS, DEDICATEDPES or UTILIZEDPS");
        CHECK(e.column == 10);
        CHECK(e.message.find("got '" + std::string(bad) + "'") != std::string::npos);
    }

    cfg_error("FSINTERVAL 0\n", 1, "FSINTERVAL", "FSINTERVAL must be greater than 0, got '0'");
    cfg_error("FSINTERVAL 0:00:00\n", 1, "FSINTERVAL", "must be greater than 0");
    cfg_error("FSINTERVAL -1\n", 1, "FSINTERVAL", "expected a Maui time [[[DD:]HH:]MM:]SS (at most 253402300799 s) or INFINITY, got '-1'");
    cfg_error("FSINTERVAL 1:2:3:4:5\n", 1, "FSINTERVAL", "expected a Maui time");

    cfg_error("FSDEPTH 0\n", 1, "FSDEPTH", "FSDEPTH must be at least 1, got '0'");
    cfg_error("FSDEPTH -3\n", 1, "FSDEPTH", "at least 1");
    cfg_error("FSDEPTH 8.0\n", 1, "FSDEPTH", "expected an integer of at least 1, got '8.0'");
    cfg_error("FSDEPTH 99999999999999999999\n", 1, "FSDEPTH", "expected an integer");
    // Above 24 Maui 3.3 clamps (MFSProcessOConfig: MIN(IVal, MAX_MFSDEPTH)): a warning.
    const maui_cfg deep = ok("FSDEPTH 32\n"); // the documentation's 32 (B3)
    CHECK(deep.fs.depth == 24);
    warned(deep, 1, 9, "FSDEPTH", "FSDEPTH 32 is above Maui 3.3's limit: it uses 24 fair-share windows");

    cfg_error("FSDECAY 0\n", 1, "FSDECAY", "FSDECAY must be greater than 0, got '0'");
    cfg_error("FSDECAY -0.5\n", 1, "FSDECAY", "greater than 0");
    cfg_error("FSDECAY half\n", 1, "FSDECAY", "expected a number greater than 0, got 'half'");
    const maui_cfg decay = ok("FSDECAY 1.01\n");
    CHECK(decay.fs.decay == 1.01);
    warned(decay, 1, 9, "FSDECAY", "above 1");

    cfg_error("JOBPRIOACCRUALPOLICY NEVER\n", 1, "JOBPRIOACCRUALPOLICY",
              "expected ALWAYS, QUEUEPOLICY or FULLPOLICY, got 'NEVER'");
    cfg_error("REJECTNEGPRIOJOBS maybe\n", 1, "REJECTNEGPRIOJOBS",
              "expected TRUE or FALSE (or ON/OFF, YES/NO, 1/0), got 'maybe'");
    cfg_error("ENABLENEGJOBPRIORITY 2\n", 1, "ENABLENEGJOBPRIORITY", "got '2'");
}

TEST_CASE("config: maui.cfg errors in credential lines") {
    // The brackets and the name.
    auto e = cfg_error("USERCFG PRIORITY=1\n", 1, "USERCFG", "expected USERCFG[name]");
    CHECK(e.column == 1);
    cfg_error("qoscfg\n", 1, "qoscfg", "expected QOSCFG[name]");
    e = cfg_error("  GROUPCFG[staff PRIORITY=1]\n", 1, "GROUPCFG[staff", "missing ']'");
    CHECK(e.column == 3);
    cfg_error("CLASSCFG[batch#] PRIORITY=1\n", 1, "CLASSCFG[batch", "missing ']'");
    cfg_error("ACCOUNTCFG[] PRIORITY=1\n", 1, "ACCOUNTCFG[]", "empty credential name");
    e = cfg_error("USERCFG[a]b PRIORITY=1\n", 1, "USERCFG[a]b", "unexpected text 'b' after ']'");
    CHECK(e.column == 11);
    cfg_error("USERCFG[john]\n", 1, "USERCFG[john]", "needs at least one ATTR=VALUE");
    cfg_error("USERCFG[john]   # PRIORITY=1\n", 1, "USERCFG[john]", "needs at least one ATTR=VALUE");

    // Pieces that are not ATTR=VALUE, and empty values (also of attributes mfprio ignores).
    e = cfg_error("USERCFG[john] PRIORITY=1 oops\n", 1, "USERCFG[john]", "expected ATTR=VALUE, got 'oops'");
    CHECK(e.column == 26);
    cfg_error("USERCFG[john] PRIORITY = 1\n", 1, "USERCFG[john]", "expected ATTR=VALUE, got 'PRIORITY'");
    cfg_error("USERCFG[john] =1\n", 1, "USERCFG[john]", "expected ATTR=VALUE, got '=1'");
    e = cfg_error("USERCFG[john] PRIORITY=\n", 1, "USERCFG[john] PRIORITY", "PRIORITY has an empty value");
    CHECK(e.column == 24);
    cfg_error("USERCFG[john] MAXJOB=\n", 1, "USERCFG[john] MAXJOB", "MAXJOB has an empty value");

    // Malformed values: the key names the credential and the attribute, the column the value.
    e = cfg_error("FSWEIGHT 1\nUSERCFG[john] PRIORITY=high\n", 2, "USERCFG[john] PRIORITY",
                  "expected a signed integer, got 'high'");
    CHECK(e.column == 24);
    CHECK(e.to_string() == "test.cfg:2:24: USERCFG[john] PRIORITY: expected a signed integer, got 'high'");
    e = cfg_error("GROUPCFG[g] FSTARGET=25* \n", 1, "GROUPCFG[g] FSTARGET",
                  "expected a percentage >= 0 with an optional suffix +, -, ^ or %");
    CHECK(e.column == 22);
    cfg_error("ACCOUNTCFG[a] fstarget=-10\n", 1, "ACCOUNTCFG[a] fstarget", "got '-10'");
    cfg_error("QOSCFG[q] QTWEIGHT=1.5\n", 1, "QOSCFG[q] QTWEIGHT", "expected a signed integer, got '1.5'");
    cfg_error("QOSCFG[q] XFWEIGHT=x\n", 1, "QOSCFG[q] XFWEIGHT", "expected a signed integer, got 'x'");
    cfg_error("QOSCFG[q] QTTARGET=2hours\n", 1, "QOSCFG[q] QTTARGET",
              "expected a Maui time [[[DD:]HH:]MM:]SS (at most 253402300799 s) or INFINITY, got '2hours'");
    cfg_error("QOSCFG[q] XFTARGET=-1\n", 1, "QOSCFG[q] XFTARGET", "expected a number >= 0, got '-1'");
    cfg_error("QOSCFG[q] XFTARGET=big\n", 1, "QOSCFG[q] XFTARGET", "expected a number >= 0, got 'big'");
    cfg_error("GROUPCFG[g] CLASSWEIGHT=1/2\n", 1, "GROUPCFG[g] CLASSWEIGHT", "expected a signed integer");

    // Known attributes on the wrong kind: the column is the attribute's.
    e = cfg_error("USERCFG[john] PRIORITY=1 QTWEIGHT=5\n", 1, "USERCFG[john] QTWEIGHT",
                  "QTWEIGHT applies to QOSCFG only");
    CHECK(e.column == 26);
    for (const char* kind : {"USERCFG", "GROUPCFG", "ACCOUNTCFG", "CLASSCFG"}) {
        CAPTURE(kind);
        const std::string head = std::string(kind) + "[x]";
        cfg_error(head + " XFWEIGHT=1\n", 1, head + " XFWEIGHT", "XFWEIGHT applies to QOSCFG only");
        cfg_error(head + " QTTARGET=1\n", 1, head + " QTTARGET", "QTTARGET applies to QOSCFG only");
        cfg_error(head + " xftarget=1\n", 1, head + " xftarget", "xftarget applies to QOSCFG only");
    }
    for (const char* kind : {"USERCFG", "ACCOUNTCFG", "QOSCFG", "CLASSCFG"}) {
        CAPTURE(kind);
        const std::string head = std::string(kind) + "[x]";
        cfg_error(head + " CLASSWEIGHT=1\n", 1, head + " CLASSWEIGHT",
                  "CLASSWEIGHT applies to GROUPCFG only");
    }

    // A bad attribute later on the line leaves nothing behind: the whole parse fails.
    cfg_error("USERCFG[a] PRIORITY=1\nUSERCFG[a] PRIORITY=2 FSTARGET=x\n", 2,
              "USERCFG[a] FSTARGET", "got 'x'");
}

TEST_CASE("config: maui.cfg read_maui_cfg") {
    const auto missing = read_maui_cfg("/no/such/dir/maui.cfg");
    REQUIRE_FALSE(missing);
    CHECK(missing.error().file == "/no/such/dir/maui.cfg");
    CHECK(missing.error().line == 0);
    CHECK(missing.error().message == "cannot open file");

    const auto path = (std::filesystem::temp_directory_path() /
                       ("mfprio_maui_cfg_test_" + std::to_string(::getpid()) + ".cfg"))
                          .string();
    std::ofstream(path, std::ios::binary) << "CREDWEIGHT 1\nUSERCFG[john] PRIORITY=2000\nFSDEPTH 0\n";
    const auto bad = read_maui_cfg(path);
    REQUIRE_FALSE(bad);
    CHECK(bad.error().file == path);
    CHECK(bad.error().line == 3);
    CHECK(bad.error().key == "FSDEPTH");
    std::ofstream(path, std::ios::binary | std::ios::trunc) << "CREDWEIGHT 1\nUSERCFG[john] PRIORITY=2000\n";
    const auto good = read_maui_cfg(path);
    std::filesystem::remove(path);
    REQUIRE(good);
    CHECK(good->file == path);
    CHECK(cred(*good, cred_kind::user, "john").cred.priority == 2000);
}
