// `mfprio sprio` and `mfprio sshare` on what a real Slurm 22.05.8 cluster printed.
//
// tests/data/live/{fair_tree,classic} were captured by tests/live/run.sh from a one-host
// cluster (Debian 12's slurmctld, slurmd, slurmdbd, MariaDB, munge) right after one of
// slurmctld's priority recalculations; fair_tree_decay is an earlier capture of the same
// cluster with PriorityDecayHalfLife=1-0, fair_tree_running one with a job running (non-zero
// TRESRunMins, usage growing between recalculations). Each bundle holds the cluster's own outputs
// (squeue --json, scontrol show job/config/partition/node/assoc_mgr, sshare -a -l -P,
// sacctmgr show assoc/qos) and, under expected/, what the real sprio and sshare printed.
// tests/data/live/<release>/ hold the same captures (run.sh) on Slurm 23.11.11, 24.11.7, 25.11.7 and 26.05.3
// built from their sources: a reconfigure restarts slurmctld there, which recalculates at once.
// Every expected byte below comes from those files: none is mfprio's output.

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include "commands.hpp"
#include "fairshare_commands.hpp"
#include "whatif_commands.hpp"

namespace {

std::string bundle(const std::string& name) { return std::string(MFPRIO_TEST_DATA) + "/live/" + name; }

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

struct expected_output {
    const char* file;
    bool sprio;
    std::vector<std::string_view> options;
};

const std::vector<expected_output>& outputs() {
    static const std::vector<expected_output> v = {
        {"sprio.txt", true, {}},
        {"sprio_l.txt", true, {"-l"}},
        {"sprio_n.txt", true, {"-n"}},
        {"sprio_w.txt", true, {"-w"}},
        {"sprio_l_n.txt", true, {"-l", "-n"}},
        {"sshare_a_l.txt", false, {"-a", "-l"}},
        {"sshare_a_l_P.txt", false, {"-a", "-l", "-P"}},
        // sshare without -a lists the caller's user rows: the capture ran as root.
        {"sshare_A_chem_theory_l.txt", false, {"-A", "chem,theory", "-l"}},
    };
    return v;
}

mfprio::cli::outcome run(bool sprio, std::vector<std::string_view> args) {
    return sprio ? mfprio::cli::run_sprio(args) : mfprio::cli::run_sshare(args);
}

/// The bundle's files as --conf/--qos/--assoc/--jobs arguments.
std::vector<std::string> file_args(const std::string& dir, const std::string& jobs) {
    return {"--conf", dir + "/scontrol_show_config.txt", "--conf", dir + "/scontrol_show_partition.txt",
            "--conf", dir + "/scontrol_show_node.txt",  "--qos",  dir + "/sacctmgr_show_qos.txt",
            "--assoc", dir + "/sshare_a_l_P.txt",        "--assoc", dir + "/scontrol_show_assoc_mgr.txt",
            "--assoc", dir + "/sacctmgr_show_assoc.txt", "--jobs", dir + "/" + jobs};
}

std::string calc_time(const std::string& dir) {
    const std::string meta = slurp(dir + "/meta");
    const auto at = meta.find("priority_calc_time=");
    REQUIRE(at != std::string::npos);
    return meta.substr(at + 19, meta.find('\n', at) - at - 19);
}


/// A copy of bundle `name` in a temporary directory, `edit` applied to its files (name ->
/// text; an empty text drops the file), its manifest written anew as --save writes it.
std::string edited_bundle(const std::string& name, const std::string& tag,
                          const std::function<void(std::map<std::string, std::string>&)>& edit) {
    namespace fs = std::filesystem;
    const std::string src = bundle(name);
    const std::string dst = fs::temp_directory_path().string() + "/mfprio-edited-" + tag + "-" + std::to_string(::getpid());
    fs::remove_all(dst);
    fs::create_directories(dst);
    std::map<std::string, std::string> files;
    for (const auto& e : fs::directory_iterator(src))
        if (e.is_regular_file() && e.path().filename() != "manifest") files[e.path().filename().string()] = slurp(e.path().string());
    edit(files);
    std::vector<std::pair<std::string, std::string_view>> listed;
    for (const auto& [n, t] : files) {
        if (t.empty()) continue;
        std::ofstream(dst + "/" + n, std::ios::binary) << t;
        listed.emplace_back(n, t);
    }
    std::ofstream(dst + "/manifest", std::ios::binary) << mfprio::inputs::manifest_text(listed);
    return dst;
}

/// The captures run.sh took on each Slurm release built from source (tests/data/live/<release>/):
/// Fair Tree, NO_FAIR_TREE and the window after a reconfigure.
std::vector<std::string> release_captures() {
    std::vector<std::string> out;
    for (const char* release : {"23.11", "24.11", "25.11", "26.05"})
        for (const char* scenario : {"fair_tree", "classic", "reconfigured"}) out.push_back(std::string(release) + "/" + scenario);
    return out;
}

} // namespace

TEST_CASE("live: every capture replays byte for byte (--from), sprio and sshare") {
    setenv("USER", "root", 1);
    std::vector<std::string> names = {"fair_tree",      "classic",          "fair_tree_decay", "fair_tree_running",
                                      "busy_fair_tree", "busy_classic",     "future_fair_tree", "future_classic",
                                      "list_order"};
    for (const auto& r : release_captures()) names.push_back(r);
    for (const std::string& name : names) {
        const std::string dir = bundle(name);
        for (const auto& e : outputs()) {
            CAPTURE(name);
            CAPTURE(e.file);
            std::vector<std::string_view> args{"--from", dir};
            args.insert(args.end(), e.options.begin(), e.options.end());
            const auto o = run(e.sprio, args);
            CHECK(o.status == 0);
            CHECK(o.err == "");
            const std::string expected = slurp(dir + "/expected/" + e.file);
            REQUIRE(!expected.empty());
            CHECK(o.out == expected);
        }
    }
}

TEST_CASE("live: FUTURE nodes, jobs of more CPUs than a node, a GPU job in a partition without GPUs (22.05)") {
    // tests/data/live/future_{fair_tree,classic}: the busy cluster (see the next test case)
    // with a FUTURE node h1 in partition big (`scontrol -o --future show node` lists it,
    // slurmctld counts its 8 CPUs), jobs asking for more CPUs than a node has without -N
    // (squeue's NODES 3 and 2, their requested TRES node=1), and a GPU job submitted after the
    // recalculation in partitions gpu,debug: in debug, which has no GPU, 22.05's sprio shows
    // the GPU factor weighted twice. Each replays byte for byte in the test case above; here,
    // that the inputs hold what the test is about, and --verify against sprio's own rows.
    for (const char* name : {"future_fair_tree", "future_classic"}) {
        CAPTURE(name);
        const std::string dir = bundle(name);
        CHECK(slurp(dir + "/scontrol_show_node.txt").find("NodeName=h1 ") != std::string::npos);
        const std::string squeue = slurp(dir + "/squeue.txt");
        CHECK(squeue.find("|3|40|30:00|0|cpu=40,mem=62.50G,node=1,") != std::string::npos);
        const std::string sprio_l = slurp(dir + "/expected/sprio_l.txt");
        CHECK(sprio_l.find(" debug     mfprio-e") != std::string::npos);
        const std::vector<std::string_view> verify{"--from", dir, "--verify"};
        const auto o = mfprio::cli::run_sprio(verify);
        CHECK(o.err == "");
        CHECK(o.status == 0);
        CHECK(o.out.ends_with(" 0 differ (stored priorities, and sprio's own rows column by column)\n"));
        // sprio -S u,-y: rows of one user and one priority in the order slurmctld sends them
        // (its job list: job id order), not in squeue's.
        const std::vector<std::string_view> sorted{"--from", dir, "-S", "u,-y"};
        const auto s = mfprio::cli::run_sprio(sorted);
        CHECK(s.err == "");
        CHECK(s.out == slurp(dir + "/expected/sprio_S_u_y.txt"));
    }
}

TEST_CASE("live: a reconfigure with new weights before the next recalculation: sprio shows the weights before") {
    // tests/data/live/reconfigured: the future_classic cluster a minute later, with
    // PriorityWeightPartition 4000 -> 5000 and PriorityWeightQOS 6000 -> 7000 written into
    // slurm.conf and `scontrol reconfigure` run a second after slurmctld's recalculation
    // (meta: slurm_conf_changed, priority_calc_time), captured before the next one.
    // `scontrol show config` prints the new weights, sprio the factors of the old ones, but
    // for a job in several partitions, whose PARTITION term it computes with the new weight.
    const std::string dir = bundle("reconfigured");
    setenv("USER", "root", 1);
    for (const auto& e : outputs()) {
        CAPTURE(e.file);
        std::vector<std::string_view> args{"--from", dir};
        args.insert(args.end(), e.options.begin(), e.options.end());
        const auto o = run(e.sprio, args);
        CHECK(o.status == 0);
        CHECK(o.out == slurp(dir + "/expected/" + e.file));
        if (e.sprio)
            CHECK(o.err.find("mfprio sprio: sprio's rows show the factors of PriorityWeightPartition=4000 (configured "
                             "5000, ") != std::string::npos);
        else
            CHECK(o.err == "");
    }
    const std::vector<std::string_view> verify{"--from", dir, "--verify"};
    const auto v = mfprio::cli::run_sprio(verify);
    CHECK(v.status == 0);
    CHECK(v.out.ends_with(" 0 differ (stored priorities, and sprio's own rows column by column)\n"));
    CHECK(v.err.find("PriorityWeightQOS=6000 (configured 7000, ") != std::string::npos);
    // The same bundle without slurm.conf's time: nothing tells a reconfigure from inputs that
    // differ, so the rows are mfprio's own, the jobs are named and --verify counts them.
    const std::string no_time = edited_bundle("reconfigured", "notime", [](auto& files) {
        std::string& meta = files.at("meta");
        meta.erase(meta.find("slurm_conf_changed="));
    });
    const std::vector<std::string_view> verify2{"--from", no_time, "--verify"};
    const auto u = mfprio::cli::run_sprio(verify2);
    CHECK(u.status == 1);
    CHECK(u.err.find("when slurm.conf last changed is not in the inputs") != std::string::npos);
    CHECK(u.err.find("PARTITION: sprio 4000, mfprio 5000") != std::string::npos);
    std::filesystem::remove_all(no_time);
}

TEST_CASE("live: a busy cluster: jobs submitted after the recalculation, priorities set by hand") {
    // tests/data/live/busy_{fair_tree,classic}: captured by tests/live/run.sh two seconds after
    // submitting four more jobs (one partition; two partitions and a QOS; GPUs with nice; an
    // array) past slurmctld's last recalculation, with an array task split off by an update
    // and priorities set by `scontrol update` on job 8 (77777, one partition) and job 17
    // (55555, big and gpu); busy_classic under NO_FAIR_TREE with slurmdbd stopped (no
    // sacctmgr output in it). The jobs come from `squeue -r -O` (squeue.txt).
    // Their sprio and sshare outputs replay byte for byte in the test case above.
    for (const char* name : {"busy_fair_tree", "busy_classic"}) {
        CAPTURE(name);
        const std::string dir = bundle(name);
        // Every listed job's stored priority explained; the two set by hand named.
        const std::vector<std::string_view> verify{"--from", dir, "--verify"};
        const auto o = mfprio::cli::run_sprio(verify);
        CHECK(o.status == 0);
        CHECK(o.err == "");
        CHECK(o.out.find("job 8: 77777: set by an administrator (sprio shows it so)\n") != std::string::npos);
        CHECK(o.out.find("job 17: 55555: set by an administrator (sprio shows it so)\n") != std::string::npos);
        CHECK(o.out.ends_with(" 0 differ (stored priorities, and sprio's own rows column by column)\n"));
    }
}

TEST_CASE("live: a busy cluster in the library: each stored priority placed, the hand-set ones kept by what-if") {
    // busy_fair_tree (see above): jobs 8 and 17 had their priorities set by hand (77777, 55555,
    // tests/live/populate.sh); jobs 22 to 25 were submitted after the recalculation
    // (priority_calc_time in meta), between it and the capture.
    const std::string dir = bundle("busy_fair_tree");
    auto ci = mfprio::inputs::read_bundle(dir);
    REQUIRE(ci);
    mfprio::cli::outcome o;
    auto lc = mfprio::cli::load_cluster(*ci, mfprio::cli::fairshare_source::automatic, o, true);
    REQUIRE(lc);
    const auto times = mfprio::cli::times_of(*ci, std::nullopt);
    CHECK(times.calc == 1795716793);
    CHECK(times.listed == 1795716797);
    bool bad = false;
    const auto listing = mfprio::cli::sprio_listing_of(*ci, bad, o);
    REQUIRE(listing);
    const auto placed = mfprio::report::place_stored(lc->model, lc->fairshare_taken, times, &*listing);
    CHECK(placed.count(mfprio::config::priority_origin::administrator) == 2);
    for (std::size_t k = 0; k < lc->model.jobs.size(); ++k) {
        const auto& j = lc->model.jobs[k];
        CAPTURE(j.id);
        const bool by_hand = j.id == 8 || j.id == 17;
        CHECK((placed.origin[k] == mfprio::config::priority_origin::administrator) == by_hand);
        if (j.id == 8) CHECK(j.admin_priority == 77777);
        if (j.id == 17) CHECK(j.admin_priority == 55555);
    }
    // Listed by sprio's clock, not the recalculation's: the jobs submitted in between are in.
    const auto rows = mfprio::report::sprio_rows(lc->model.engine(), lc->model.cluster, std::span<const mfprio::job>(lc->model.jobs),
                                                 std::span<const mfprio::slurm::job_lists>(lc->model.lists),
                                                 lc->model.context(times.calc), lc->model.settings.flags, lc->model.user_names,
                                                 lc->model.begin_times, times.listed);
    const auto early = mfprio::report::sprio_rows(lc->model.engine(), lc->model.cluster, std::span<const mfprio::job>(lc->model.jobs),
                                                  std::span<const mfprio::slurm::job_lists>(lc->model.lists),
                                                  lc->model.context(times.calc), lc->model.settings.flags,
                                                  lc->model.user_names, lc->model.begin_times);
    const auto listed = [](const auto& rs, std::uint32_t id) {
        return std::any_of(rs.begin(), rs.end(), [&](const auto& r) { return r.job_id == id; });
    };
    for (const std::uint32_t id : {22u, 23u, 24u, 25u}) {
        CAPTURE(id);
        CHECK(listed(rows, id));
        CHECK_FALSE(listed(early, id));
    }
    // sprio's twin (report::sprio_rows_of) gives the rows sprio printed (the bundle's
    // sprio_factors.txt), and says they differ under another age weight than slurmctld's.
    {
        const mfprio::report::sprio_weights sw{lc->model.weights, lc->model.tres_weight_text};
        const auto twin = mfprio::report::sprio_rows_of(lc->model, lc->slurm_version, times, &*listing);
        CHECK(twin.size() >= listing->rows.size());
        CHECK(mfprio::report::compare_sprio(twin, sw, *listing).empty());
        lc->model.weights.age += 1000; // (lc is not used after this)
        const mfprio::report::sprio_weights ow{lc->model.weights, lc->model.tres_weight_text};
        const auto other = mfprio::report::sprio_rows_of(lc->model, lc->slurm_version, times, &*listing);
        CHECK_FALSE(mfprio::report::compare_sprio(other, ow, *listing).empty());
    }
    // What-if changes every computed priority but not the ones set by hand.
    const std::vector<std::string_view> args{"--from", dir, "--set", "PriorityWeightQOS=60000", "--json"};
    const auto w = mfprio::cli::run_whatif(args);
    REQUIRE(w.status == 0);
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    REQUIRE(parser.parse(simdjson::padded_string(w.out)).get(doc) == simdjson::SUCCESS);
    std::size_t seen = 0;
    const auto entries = doc["entries"].get_array().value();
    for (const auto e : entries) {
        const auto id = e["job_id"].get_uint64().value();
        if (id != 8) continue;
        ++seen;
        CHECK(e["old_priority"].get_uint64().value() == 77777);
        CHECK(e["new_priority"].get_uint64().value() == 77777);
    }
    CHECK(seen == 1);
}

TEST_CASE("live: a bundle's manifest and meta lines that are not of their form name their line") {
    namespace fs = std::filesystem;
    const std::string tmp = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/mfprio_bad_manifest";
    fs::remove_all(tmp);
    fs::create_directories(tmp);
    const auto err = [&] {
        const std::vector<std::string_view> args{"--from", tmp};
        const auto o = mfprio::cli::run_sprio(args);
        CHECK(o.status == 65);
        return o.err;
    };
    std::ofstream(tmp + "/manifest") << "mfprio-bundle 2\n";
    CHECK(err() == "mfprio: " + tmp + "/manifest:1:1: not an mfprio bundle manifest (its first line is 'mfprio-bundle 1')\n");
    std::ofstream(tmp + "/manifest") << "mfprio-bundle 1\nfile ../etc/passwd 10 0123456789abcdef\n";
    CHECK(err() == "mfprio: " + tmp + "/manifest:2:1: not a 'file NAME SIZE DIGEST' line\n");
    std::ofstream(tmp + "/manifest") << "mfprio-bundle 1\n";
    CHECK(err() == "mfprio: " + tmp + "/manifest: does not list scontrol_show_config.txt, which a bundle needs\n");
    fs::remove_all(tmp);
    mfprio::inputs::cluster_inputs ci;
    const auto e = mfprio::inputs::read_meta("captured=1795716797\nnonsense\n", "meta", ci);
    REQUIRE(e);
    CHECK(e->to_string() == "meta:2:1: not a key=value line");
    // When slurm.conf last changed (the reconfigure's evidence) is checked as the times are.
    mfprio::inputs::cluster_inputs ci2;
    const auto t = mfprio::inputs::read_meta("captured=1795716797\nslurm_conf_changed=soon\n", "meta", ci2);
    REQUIRE(t);
    CHECK(t->to_string() == "meta:2:20: slurm_conf_changed: 'soon' is not a time in epoch seconds from 1970 to 9999");
    CHECK_FALSE(ci2.conf_changed);
}

TEST_CASE("live: Slurm 23.11 to 26.05: what differs from 22.05, and --verify against their sprio") {
    // tests/data/live/26.05/classic (NO_FAIR_TREE), as 26.05.3 printed it: sshare prints no
    // FairShare for account rows (25.11 and later); job 21 (priority 55555 set by hand, in
    // partitions big and gpu) shows that priority and every factor 0 in both rows (23.02 and
    // later); job 43, in gpu and debug with one GPU, submitted after the recalculation, shows
    // in its debug row the gpu partition's weighted GPU factor (750: 3000 x one of its four
    // GPUs) weighted again, as 22.05 does. The replay test above checks mfprio prints each.
    const std::string dir = bundle("26.05/classic");
    const std::string sshare = slurp(dir + "/expected/sshare_a_l_P.txt");
    const auto cells_of = [&](std::string_view prefix) {
        const auto at = sshare.find(prefix);
        REQUIRE(at != std::string::npos);
        std::vector<std::string> cells(1);
        for (std::size_t i = at + 1; i < sshare.size() && sshare[i] != '\n'; ++i) {
            if (sshare[i] == '|') cells.emplace_back();
            else cells.back() += sshare[i];
        }
        return cells;
    };
    for (const char* account : {"\n chem||", "\n physics||", "\n  theory||"}) {
        CAPTURE(std::string(account));
        const auto cells = cells_of(account);
        REQUIRE(cells.size() > 7);
        CHECK(cells[6] != ""); // EffectvUsage
        CHECK(cells[7] == ""); // FairShare
    }
    const std::string listing = slurp(dir + "/sprio_factors.txt");
    CHECK(listing.find("\n21|big|55555|0|0|0|0|0|0|0|0|\n21|gpu|55555|0|0|0|0|0|0|0|0|\n") != std::string::npos);
    CHECK(listing.find("\n43|debug|2395663|0|0|0|15893|270|1000|0|0|cpu=500,mem=128000,gres/gpu=2250000\n") !=
          std::string::npos);
    // 26.05's squeue --json (data_parser v0.0.44) and scontrol show job give the same jobs
    // (a bundle reads the first of squeue.txt, squeue.json, scontrol_show_job.txt it holds).
    const std::string expected = slurp(bundle("26.05/fair_tree") + "/expected/sprio_l.txt");
    for (const bool json : {true, false}) {
        CAPTURE(json);
        const std::string edited = edited_bundle("26.05/fair_tree", json ? "json26" : "scontrol26", [&](auto& files) {
            files["squeue.txt"].clear();
            if (!json) files["squeue.json"].clear();
        });
        const std::vector<std::string_view> args{"--from", edited, "-l"};
        const auto o = mfprio::cli::run_sprio(args);
        CHECK(o.err == "");
        CHECK(o.out == expected);
        std::filesystem::remove_all(edited);
    }
    for (const std::string& name : release_captures()) {
        CAPTURE(name);
        const std::string from = bundle(name);
        const std::vector<std::string_view> verify{"--from", from, "--verify"};
        const auto o = mfprio::cli::run_sprio(verify);
        CHECK(o.err == "");
        CHECK(o.status == 0);
        CHECK(o.out.ends_with(" 0 differ (stored priorities, and sprio's own rows column by column)\n"));
        CHECK(o.out.find("job 21: 55555: set by an administrator (sprio shows it so)\n") != std::string::npos);
    }
}

TEST_CASE("live: --verify finds slurmctld's stored priority for every listed job") {
    for (const char* name : {"fair_tree", "classic", "fair_tree_decay"}) {
        CAPTURE(name);
        const std::string dir = bundle(name);
        const std::vector<std::string_view> args{"--from", dir, "--verify"};
        const auto o = mfprio::cli::run_sprio(args);
        CHECK(o.status == 0);
        // 14 pending jobs, of which the held one (13) and the dependent one (14) are not
        // listed by sprio: 12 compared.
        CHECK(o.err == "");
        CHECK(o.out == "verify: 12 jobs compared, 0 differ (stored priorities, and sprio's own rows column by column)\n");
    }
}

TEST_CASE("live: --verify lists a job whose stored priority differs") {
    // The same capture with job 8's Priority changed in squeue --json from 55313 (what
    // slurmctld computed) to 60000, as an administrator's `scontrol update priority` would.
    const std::string dir = bundle("fair_tree");
    std::string json = slurp(dir + "/squeue.json");
    const auto at = json.find("\"priority\": 55313");
    REQUIRE(at != std::string::npos);
    json.replace(at, 17, "\"priority\": 60000");
    const std::string tmp = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/mfprio_verify_squeue.json";
    std::ofstream(tmp, std::ios::binary) << json;
    auto files = file_args(dir, "");
    files.back() = tmp;
    const std::string now = calc_time(dir);
    std::vector<std::string_view> args(files.begin(), files.end());
    args.insert(args.end(), {"--now", now, "--verify"});
    const auto o = mfprio::cli::run_sprio(args);
    CHECK(o.status == 1);
    CHECK(o.out == "job 8: slurmctld 60000, mfprio 55313 (4687)\nverify: 12 jobs compared, 1 differ (stored priorities "
                   "only: no sprio output in the inputs)\n");
    std::remove(tmp.c_str());
}


TEST_CASE("live: a weight off by one in the inputs: the jobs named on stderr, --verify exit 1, none taken as set by hand") {
    // busy_fair_tree with PriorityWeightPartition 4000 (what slurmctld ran with) written as
    // 4001. Job 7 is in big, the partition of the highest PriorityJobFactor (40): its
    // partition factor is 1, so its PARTITION term is 4001 where sprio printed 4000
    // (expected/sprio_l.txt) and its priority 40388 where slurmctld holds 40387 (squeue.txt).
    const std::string dir = edited_bundle("busy_fair_tree", "weight", [](auto& files) {
        std::string& conf = files.at("scontrol_show_config.txt");
        const auto at = conf.find("PriorityWeightPartition = 4000\n");
        REQUIRE(at != std::string::npos);
        conf.replace(at, 30, "PriorityWeightPartition = 4001");
    });
    const std::vector<std::string_view> verify{"--from", dir, "--verify"};
    const auto v = mfprio::cli::run_sprio(verify);
    CHECK(v.status == 1);
    CHECK(v.out.find("job 7: slurmctld 40387, mfprio 40388 (-1)\n") != std::string::npos);
    CHECK(v.out.find("job 7 (big): PRIORITY: sprio 40387, mfprio 40388; PARTITION: sprio 4000, mfprio 4001\n") !=
          std::string::npos);
    // Jobs 8 and 17 stay the two set by hand: sprio's rows show them so.
    std::size_t admin = 0;
    for (std::size_t at = 0; (at = v.out.find("set by an administrator", at)) != std::string::npos; ++at) ++admin;
    CHECK(admin == 2);
    CHECK(v.out.find(" differ (stored priorities, and sprio's own rows column by column)\n") != std::string::npos);
    CHECK(v.out.find(" 0 differ") == std::string::npos);
    // Every command names the jobs it cannot reproduce and prints its own computation for them.
    const std::vector<std::string_view> sprio_l{"--from", dir, "-l"};
    const auto o = mfprio::cli::run_sprio(sprio_l);
    CHECK(o.status == 0);
    CHECK(o.err.find("mfprio sprio: job 7: slurmctld holds priority 40387, mfprio computes 40388, and sprio does not show "
                     "it as set by an administrator: (big): PRIORITY: sprio 40387, mfprio 40388; PARTITION: sprio 4000, "
                     "mfprio 4001\n") != std::string::npos);
    CHECK(o.out.find("              7 big       mfprio-a      40388          0          4        200      35714        391"
                     "       4001          0           0        cpu=62,mem=16\n") != std::string::npos);
    std::filesystem::remove_all(dir);
}

TEST_CASE("live: without sprio's own output no job is taken as set by an administrator") {
    // busy_fair_tree without sprio_factors.txt: jobs 8 and 17 hold priorities set by hand
    // (77777, 55555) that no computation gives; nothing shows them as set, so both are named
    // and --verify counts them.
    const std::string dir = edited_bundle("busy_fair_tree", "nolisting", [](auto& files) { files["sprio_factors.txt"].clear(); });
    const std::vector<std::string_view> verify{"--from", dir, "--verify"};
    const auto v = mfprio::cli::run_sprio(verify);
    CHECK(v.status == 1);
    CHECK(v.out.find("set by an administrator") == std::string::npos);
    CHECK(v.out.find("job 8: slurmctld 77777, mfprio ") != std::string::npos);
    CHECK(v.out.find("job 17: slurmctld 55555, mfprio ") != std::string::npos);
    CHECK(v.out.ends_with(" 2 differ (stored priorities only: no sprio output in the inputs)\n"));
    CHECK(v.err.find("mfprio sprio: job 8: slurmctld holds priority 77777, mfprio computes ") != std::string::npos);
    CHECK(v.err.find("no sprio output here to tell which factor differs") != std::string::npos);
    std::filesystem::remove_all(dir);
}

TEST_CASE("live: a bundle's sprio output that does not read is refused, naming its line") {
    const std::string dir = edited_bundle("busy_fair_tree", "badlisting", [](auto& files) {
        files["sprio_factors.txt"] = "JOBID|PARTITION|PRIORITY|AGE\n7|big|40387|4\n8|big|seven|0\n";
    });
    const std::vector<std::string_view> args{"--from", dir};
    const auto o = mfprio::cli::run_sprio(args);
    CHECK(o.status == 65);
    CHECK(o.out == "");
    CHECK(o.err == "mfprio: " + dir + "/sprio_factors.txt:3:7: PRIORITY: 'seven' is not an integer (sprio prints weighted "
                   "factors as integers)\n");
    std::filesystem::remove_all(dir);
}

TEST_CASE("live: the three jobs formats give the same sprio (files, --now at the recalculation)") {
    for (const char* name : {"fair_tree", "classic"}) {
        const std::string dir = bundle(name);
        const std::string now = calc_time(dir);
        for (const char* jobs : {"squeue.json", "scontrol_show_job.txt", "scontrol_show_job_o.txt"}) {
            CAPTURE(name);
            CAPTURE(jobs);
            const auto files = file_args(dir, jobs);
            std::vector<std::string_view> args(files.begin(), files.end());
            args.insert(args.end(), {"--now", now, "-l"});
            const auto o = mfprio::cli::run_sprio(args);
            CHECK(o.err == "");
            CHECK(o.out == slurp(dir + "/expected/sprio_l.txt"));
        }
    }
}

TEST_CASE("live: sprio -S orders rows of equal keys as slurmctld's job list holds the jobs, array tasks split off included") {
    // tests/data/live/list_order: the busy cluster of tests/live (22.05.8) where array 19
    // (tasks 1-3, dave) had task 2 split off by an update: slurmctld gave the task id 31 and
    // kept it where 19 stood, and appended the rest of the array (19, tasks 1 and 3) when 31
    // was made (`scontrol show job` lists 18, 31, 20 ... 30, 19, 32). `sprio -S u` sorts by
    // user only, so dave's rows keep that order: 31 before 24 before 19 (expected/sprio_S_u.txt,
    // lines 59-61), where job id order would put 19 first and 31 last.
    const std::string dir = bundle("list_order");
    const std::string expected = slurp(dir + "/expected/sprio_S_u.txt");
    REQUIRE(expected.find("             31 big ") < expected.find("             24 gpu "));
    REQUIRE(expected.find("             24 gpu ") < expected.find("             19 big "));
    const std::vector<std::string_view> from{"--from", dir, "-S", "u"};
    const auto o = mfprio::cli::run_sprio(from);
    CHECK(o.err == "");
    CHECK(o.out == expected);
    // Every jobs input tells the array's tasks: squeue -r's JobArrayID (above), squeue
    // --json's array_job_id, scontrol's ArrayJobId (a bundle reads the first of squeue.txt,
    // squeue.json, scontrol_show_job.txt it holds).
    const std::vector<std::pair<std::string, std::function<void(std::map<std::string, std::string>&)>>> inputs = {
        {"json", [](auto& files) { files["squeue.txt"].clear(); }},
        {"scontrol",
         [](auto& files) {
             files["squeue.txt"].clear();
             files["squeue.json"].clear();
         }},
        {"scontrol_o",
         [](auto& files) {
             files["squeue.txt"].clear();
             files["squeue.json"].clear();
             files["scontrol_show_job.txt"] = files["scontrol_show_job_o.txt"];
         }},
    };
    for (const auto& input : inputs) {
        const std::string& tag = input.first;
        CAPTURE(tag);
        const std::string edited = edited_bundle("list_order", "order-" + tag, input.second);
        const std::vector<std::string_view> args{"--from", edited, "-S", "u"};
        const auto f = mfprio::cli::run_sprio(args);
        CHECK(f.err == "");
        CHECK(f.out == expected);
        std::filesystem::remove_all(edited);
    }
}

TEST_CASE("live: the version decides the layout; --slurm-version overrides what the inputs say") {
    const std::string dir = bundle("fair_tree");
    // 22.05.8's sprio -l has no ACCOUNT and QOSNAME columns (the captured header).
    const std::vector<std::string_view> a{"--from", dir, "-l"};
    CHECK(mfprio::cli::run_sprio(a).out.starts_with(
        "          JOBID PARTITION     USER   PRIORITY       SITE        AGE"));
    // 23.02 and later: `%.15i %9r %.8u %.8o %.10Y ...` (sprio.c of those releases).
    const std::vector<std::string_view> b{"--from", dir, "-l", "--slurm-version", "23.02"};
    CHECK(mfprio::cli::run_sprio(b).out.starts_with(
        "          JOBID PARTITION     USER  ACCOUNT   PRIORITY       SITE        AGE"));
    const std::vector<std::string_view> bad{"--from", dir, "--slurm-version", "latest"};
    CHECK(mfprio::cli::run_sprio(bad).status == 2);
}

TEST_CASE("live: bad bundles and option mixes are errors that say what is wrong") {
    const std::vector<std::string_view> missing{"--from", "/nonexistent/bundle"};
    auto o = mfprio::cli::run_sprio(missing);
    CHECK(o.status == 65);
    CHECK(o.err == "mfprio: /nonexistent/bundle: not a directory (--from takes a bundle written by --save)\n");
    const std::string dir = bundle("fair_tree");
    const std::vector<std::string_view> both{"--from", dir, "--live"};
    o = mfprio::cli::run_sprio(both);
    CHECK(o.status == 2);
    CHECK(o.err.starts_with("mfprio sprio: give the cluster one way: --live, --from DIR, or the input files\n"));
    for (const auto& c : std::vector<std::tuple<std::string_view, std::string_view, std::string_view>>{
             {"--fairshare", "exact", "--fairshare takes taken, computed or auto, not 'exact'"},
             {"--timeout", "0", "--timeout takes seconds from 1 to 3600, not '0'"},
             {"--conf", "", "option --conf needs a value"}}) {
        const std::string_view opt = std::get<0>(c), value = std::get<1>(c), says = std::get<2>(c);
        CAPTURE(opt);
        std::vector<std::string_view> args{"--from", dir, opt};
        if (!value.empty()) args.push_back(value);
        o = mfprio::cli::run_sprio(args);
        CHECK(o.status == 2);
        CHECK(o.err.starts_with("mfprio sprio: " + std::string(says) + "\n"));
    }
    const std::vector<std::string_view> save{"--from", dir, "--save", "/tmp/x"};
    o = mfprio::cli::run_sprio(save);
    CHECK(o.status == 2);
    CHECK(o.err.starts_with("mfprio sprio: --save needs --live"));
}

TEST_CASE("live: a bundle that is not whole is refused, naming the file") {
    // A copy of the fair_tree capture, broken one way at a time; its manifest (written by
    // tests/live/manifest.py as --save writes one) records each file's size and digest.
    namespace fs = std::filesystem;
    const std::string from = bundle("fair_tree");
    const std::string tmp = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/mfprio_bad_bundle";
    const std::string manifest = "python3 " + std::string(MFPRIO_TEST_DATA) + "/../live/manifest.py " + tmp;
    const auto fresh = [&] {
        fs::remove_all(tmp);
        fs::create_directories(tmp);
        for (const auto& e : fs::directory_iterator(from))
            if (e.is_regular_file()) fs::copy_file(e.path(), tmp + "/" + e.path().filename().string());
    };
    const auto sprio_err = [&] {
        const std::vector<std::string_view> args{"--from", tmp, "-l"};
        const auto o = mfprio::cli::run_sprio(args);
        CHECK(o.status == 65);
        CHECK(o.out == "");
        return o.err;
    };
    fresh();
    {
        const std::vector<std::string_view> args{"--from", tmp, "-l"};
        CHECK(mfprio::cli::run_sprio(args).out == slurp(from + "/expected/sprio_l.txt")); // the copy is whole
    }
    fs::remove(tmp + "/sshare_a_l_P.txt");
    CHECK(sprio_err() == "mfprio: " + tmp + "/sshare_a_l_P.txt: missing from the bundle (its manifest lists it)\n");
    fresh();
    const std::string config = slurp(tmp + "/scontrol_show_config.txt");
    std::ofstream(tmp + "/scontrol_show_config.txt", std::ios::binary) << config.substr(0, config.size() / 2);
    CHECK(sprio_err() == "mfprio: " + tmp + "/scontrol_show_config.txt: has " + std::to_string(config.size() / 2) +
                             " bytes, the manifest says " + std::to_string(config.size()) +
                             ": cut short or changed since it was saved\n");
    fresh();
    std::string json = slurp(tmp + "/squeue.json");
    const auto at = json.find("\"priority\": 55313"); // job 8's stored priority, same length
    REQUIRE(at != std::string::npos);
    json.replace(at, 17, "\"priority\": 55314");
    std::ofstream(tmp + "/squeue.json", std::ios::binary) << json;
    CHECK(sprio_err() == "mfprio: " + tmp +
                             "/squeue.json: its content differs from what the manifest recorded: changed since it was saved\n");
    fresh();
    fs::remove(tmp + "/manifest");
    CHECK(sprio_err() == "mfprio: " + tmp + "/manifest: missing: not a whole bundle (--save writes one with its manifest)\n");
    // A meta without the recalculation's time: the factors' time would be unknown.
    fresh();
    std::ofstream(tmp + "/meta", std::ios::binary) << "captured=1795632733\nslurm_version=22.05.8\n";
    CHECK(std::system(manifest.c_str()) == 0);
    CHECK(sprio_err() == "mfprio: " + tmp + "/meta: priority_calc_time: missing: the time of slurmctld's recalculation the factors stand for\n");
    // meta's times are bounded as --now is.
    std::ofstream(tmp + "/meta", std::ios::binary) << "priority_calc_time=99999999999999\n";
    CHECK(std::system(manifest.c_str()) == 0);
    CHECK(sprio_err() == "mfprio: " + tmp + "/meta:1:20: priority_calc_time: '99999999999999' is not a time in epoch seconds from 1970 to 9999\n");
    // A scontrol show config cut before its priority settings, listed as it is.
    fresh();
    std::ofstream(tmp + "/scontrol_show_config.txt", std::ios::binary) << config.substr(0, config.find("PriorityType"));
    CHECK(std::system(manifest.c_str()) == 0);
    const std::string err = sprio_err();
    CHECK(err.starts_with("mfprio: " + tmp + "/scontrol_show_config.txt:"));
    CHECK(err.ends_with(": PriorityType: no PriorityType: not a whole `scontrol show config` output (cut short?)\n"));
    // An empty one: neither Slurm's settings nor priority 1 for every job, an error.
    fresh();
    std::ofstream(tmp + "/scontrol_show_config.txt", std::ios::binary).flush();
    CHECK(std::system(manifest.c_str()) == 0);
    CHECK(sprio_err() == "mfprio: " + tmp + "/scontrol_show_config.txt: empty: no configuration in it (an empty file, or "
                         "an output cut before its first line)\n");
    fs::remove_all(tmp);
}

TEST_CASE("live: each command's output is handed on as soon as it is complete, the failed ones' not") {
    // The first ends at once, the second after the third has failed; the callback sees each
    // finished output whole, in the order they end, and nothing of the one that failed.
    std::vector<std::pair<std::size_t, std::string>> seen;
    std::vector<bool> second_done_then;
    bool second_done = false;
    const auto r = mfprio::cli::run_commands(
        {{"sh", "-c", "echo quick"}, {"sh", "-c", "sleep 0.5; echo slow"}, {"sh", "-c", "echo no; exit 3"}}, 20,
        [&](std::size_t i, const mfprio::cli::command_output& out) {
            if (i == 1) second_done = true;
            seen.emplace_back(i, out.out);
            second_done_then.push_back(second_done);
        });
    REQUIRE(seen.size() == 2);
    CHECK(seen[0] == std::pair<std::size_t, std::string>{0, "quick\n"});
    CHECK(seen[1] == std::pair<std::size_t, std::string>{1, "slow\n"});
    CHECK_FALSE(second_done_then[0]);
    CHECK(r[2].status == 3);
    CHECK(r[0].out == "quick\n");
}

TEST_CASE("live: the commands --live runs are bounded in time and output, and leave nothing running") {
    using mfprio::cli::run_commands;
    const auto alive = [](const char* marker) {
        return std::system(("pgrep -f '" + std::string(marker) + "' >/dev/null").c_str()) == 0;
    };
    const auto start = std::chrono::steady_clock::now();
    const auto r = run_commands({{"sh", "-c", "echo first"},
                                 // closes its outputs and goes on: only the deadline ends it
                                 {"sh", "-c", "echo half; exec >&- 2>&-; exec sleep 271.5"},
                                 // leaves a child behind that holds its output open
                                 {"sh", "-c", "sleep 272.5 & echo done"},
                                 // floods its standard error past the bound
                                 {"sh", "-c", "yes >&2"}},
                                2);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(took < 10);
    CHECK(r[0].status == 0);
    CHECK(r[0].out == "first\n");
    CHECK(r[1].status == -1);
    CHECK(r[1].out == "half\n");
    CHECK(r[1].err == "(killed after 2 s)");
    CHECK(r[2].status == 0);
    CHECK(r[2].out == "done\n");
    CHECK(r[3].status == -1);
    CHECK(r[3].err.starts_with("printed more than "));
    CHECK_FALSE(alive("[s]leep 271.5")); // ([s]: the pattern does not match pgrep's own shell)
    CHECK_FALSE(alive("[s]leep 272.5"));
}

TEST_CASE("live: commands are found on PATH's absolute entries only, and what they detach is ended") {
    namespace fs = std::filesystem;
    using mfprio::cli::find_executable;
    const std::string dir = fs::temp_directory_path().string() + "/mfprio-path-" + std::to_string(::getpid());
    fs::create_directories(dir + "/bin");
    // A `scontrol` in the working directory that leaves a mark when it runs.
    const std::string mark = dir + "/ran";
    std::ofstream(dir + "/scontrol") << "#!/bin/sh\ntouch " << mark << "\n";
    std::ofstream(dir + "/bin/tool") << "#!/bin/sh\necho tool\n";
    fs::permissions(dir + "/scontrol", fs::perms::owner_all);
    fs::permissions(dir + "/bin/tool", fs::perms::owner_all);
    const std::string saved_path = std::getenv("PATH") ? std::getenv("PATH") : "";
    const fs::path saved_cwd = fs::current_path();
    fs::current_path(dir);
    // Empty entries (leading, doubled, trailing) and relative ones name the working directory:
    // skipped, so scontrol is not found and the one here never runs.
    for (const char* path : {":/nonexistent", "/nonexistent::/nonexistent2", "/nonexistent:", ".", "bin:."}) {
        CAPTURE(path);
        setenv("PATH", path, 1);
        CHECK(find_executable("scontrol") == "");
        const std::vector<std::string_view> args{"--live"};
        const auto o = mfprio::cli::run_sprio(args);
        CHECK(o.status == 65);
        CHECK(o.err == "mfprio sprio --live: `scontrol show config` failed: not found on PATH (its empty and relative "
                       "entries are not searched)\n");
    }
    CHECK_FALSE(fs::exists(mark));
    // An absolute entry is searched, after one without the command; a path with '/' is taken.
    setenv("PATH", ("/nonexistent:" + dir + "/bin/").c_str(), 1);
    CHECK(find_executable("tool") == dir + "/bin/tool");
    CHECK(find_executable("./bin/tool") == "./bin/tool");
    CHECK(find_executable("bin") == ""); // a directory is not a command
    const auto r = mfprio::cli::run_command({"tool"}, 5);
    CHECK(r.status == 0);
    CHECK(r.out == "tool\n");
    CHECK(r.path == dir + "/bin/tool");
    fs::current_path(saved_cwd);
    setenv("PATH", saved_path.c_str(), 1);
    // A command that detaches a daemon into a session of its own (setsid) and exits: the
    // daemon is out of reach of the command's process group, and still ended.
    const auto alive = [](const char* marker) {
        return std::system(("pgrep -f '" + std::string(marker) + "' >/dev/null").c_str()) == 0;
    };
    const auto d = mfprio::cli::run_commands({{"sh", "-c", "setsid sleep 281.5 >/dev/null 2>&1 & echo started"},
                                              {"sh", "-c", "(setsid sh -c 'sleep 282.5' &) ; echo twice"}},
                                             10);
    CHECK(d[0].status == 0);
    CHECK(d[0].out == "started\n");
    CHECK(d[1].status == 0);
    CHECK_FALSE(alive("[s]leep 281.5"));
    CHECK_FALSE(alive("[s]leep 282.5"));
    fs::remove_all(dir);
}

TEST_CASE("live: --save writes into a new or empty directory, or replaces a bundle with --force") {
    namespace fs = std::filesystem;
    using mfprio::inputs::save_dir_error;
    const std::string dir = fs::temp_directory_path().string() + "/mfprio-save-" + std::to_string(::getpid());
    fs::remove_all(dir);
    CHECK_FALSE(save_dir_error(dir, false)); // does not exist: created
    fs::create_directories(dir);
    CHECK_FALSE(save_dir_error(dir, false)); // empty
    // A bundle there: refused without --force; replaced with it, the old files gone.
    const auto ci = mfprio::inputs::read_bundle(bundle("fair_tree"));
    REQUIRE(ci);
    auto with_qos = *ci;
    REQUIRE(with_qos.qos);
    CHECK_FALSE(mfprio::inputs::save_bundle(with_qos, dir));
    REQUIRE(fs::exists(dir + "/sacctmgr_show_qos.txt"));
    CHECK(*save_dir_error(dir, false) == dir + " is not empty: --save writes a new bundle (--force replaces the bundle in it)");
    CHECK_FALSE(save_dir_error(dir, true));
    auto without_qos = *ci;
    without_qos.qos.reset();
    CHECK_FALSE(mfprio::inputs::save_bundle(without_qos, dir));
    CHECK_FALSE(fs::exists(dir + "/sacctmgr_show_qos.txt"));
    CHECK(mfprio::inputs::read_bundle(dir));
    // A directory holding anything but a whole bundle is never written into, even with --force.
    std::ofstream(dir + "/notes.txt") << "mine\n";
    const auto e = save_dir_error(dir, true);
    REQUIRE(e);
    CHECK(*e == dir + " does not hold a whole bundle, so --force does not replace it: " + dir +
                    "/notes.txt: not listed in the bundle's manifest: a bundle holds only the files its manifest lists");
    // The command line: refused before any command runs, with usage's status.
    const std::vector<std::string_view> args{"--live", "--save", dir};
    const auto o = mfprio::cli::run_sprio(args);
    CHECK(o.status == 2);
    CHECK(o.err.starts_with("mfprio sprio: " + dir + " is not empty: --save writes a new bundle"));
    const std::vector<std::string_view> force_alone{"--live", "--force"};
    CHECK(mfprio::cli::run_sprio(force_alone).err.starts_with("mfprio sprio: --force goes with --save DIR\n"));
    CHECK(fs::exists(dir + "/notes.txt"));
    fs::remove_all(dir);
}

TEST_CASE("live: a bundle holds the files its manifest lists and nothing else; each a regular file") {
    namespace fs = std::filesystem;
    const std::string dir = fs::temp_directory_path().string() + "/mfprio-unlisted-" + std::to_string(::getpid());
    fs::remove_all(dir);
    fs::copy(bundle("fair_tree"), dir, fs::copy_options::recursive);
    const auto from = [&] {
        const std::vector<std::string_view> args{"--from", dir};
        return mfprio::cli::run_sprio(args);
    };
    REQUIRE(from().status == 0); // (its expected/ directory is not part of the bundle)
    std::ofstream(dir + "/squeue.txt") << "JOBID\n";
    auto o = from();
    CHECK(o.status == 65);
    CHECK(o.err == "mfprio: " + dir + "/squeue.txt: not listed in the bundle's manifest: a bundle holds only the files its "
                   "manifest lists\n");
    fs::remove(dir + "/squeue.txt");
    // A FIFO in place of a listed file: refused at once, not read (it would wait for a writer).
    fs::remove(dir + "/meta");
    REQUIRE(mkfifo((dir + "/meta").c_str(), 0600) == 0);
    const auto start = std::chrono::steady_clock::now();
    o = from();
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
    CHECK(o.status == 65);
    CHECK(o.err == "mfprio: " + dir + "/meta: cannot read file: a FIFO, not a regular file\n");
    fs::remove_all(dir);
}

TEST_CASE("live: --live names the Slurm command that cannot run") {
    // PATH without Slurm's commands: the first one (scontrol) cannot be started.
    const char* old = std::getenv("PATH");
    const std::string saved = old ? old : "";
    setenv("PATH", "/nonexistent", 1);
    const std::vector<std::string_view> args{"--live"};
    const auto o = mfprio::cli::run_sprio(args);
    setenv("PATH", saved.c_str(), 1);
    CHECK(o.status == 65);
    CHECK(o.err == "mfprio sprio --live: `scontrol show config` failed: not found on PATH (its empty and relative "
                   "entries are not searched)\n");
}

TEST_CASE("live: squeue -h -O text with the documented fields gives the captured sprio") {
    // tests/data/live/squeue_text: another capture of the same cluster (Fair Tree), with
    // `squeue -a -h -t all -O "<config::squeue_format_without_tasks>"` taken right after sprio.
    const std::string dir = bundle("squeue_text");
    const std::string now = calc_time(dir);
    for (const char* opt : {"-l", "-n"}) {
        CAPTURE(opt);
        const auto files = file_args(dir, "squeue_O.txt");
        std::vector<std::string_view> args(files.begin(), files.end());
        args.insert(args.end(), {"--now", now, opt});
        const auto o = mfprio::cli::run_sprio(args);
        CHECK(o.err == "");
        CHECK(o.out == slurp(dir + "/expected/sprio_" + std::string(opt + 1) + ".txt"));
    }
}

TEST_CASE("live: squeue --json of the 23.11+ layout (number objects, state lists, meta.slurm)") {
    // tests/data/native/squeue_v0040.json, written from the data_parser v0.0.40 layout: the
    // same three jobs as config_slurm_native.cpp's `scontrol show job` text.
    const std::string path = std::string(MFPRIO_TEST_DATA) + "/native/squeue_v0040.json";
    auto in = mfprio::inputs::read_jobs_source(path);
    REQUIRE(in);
    std::string version;
    auto t = mfprio::inputs::squeue_json_table(in->text(), in->readable_after(), in->name, &version);
    REQUIRE(t);
    CHECK(version == "23.11.4");
    using namespace mfprio::config;
    const slurm_conf conf = *parse_slurm_conf("NodeName=n[1-4] CPUs=16 RealMemory=64000\n"
                                              "PartitionName=big Nodes=ALL Default=YES\nPartitionName=gpu Nodes=n[3-4]\n");
    const qos_table qos = *parse_qos_table("Name|Priority|UsageFactor\nnormal|0|1\nhigh|100|1\n");
    const assoc_table assoc = *parse_assoc_table("Account|User|RawShares\nroot||\n chem||1\n  chem|alice|1\n");
    auto jobs = jobs_table_from(*t, conf, qos, assoc);
    REQUIRE(jobs);
    REQUIRE(jobs->jobs.size() == 3);
    const auto& a = jobs->jobs[0];
    CHECK(a.job_id == 22);
    CHECK(a.line == 4); // the line of the job's object
    CHECK(a.partitions.size() == 2);
    CHECK(a.eligible_time == 1795571758);
    CHECK(*a.accrue_time == 1795571770);
    CHECK(a.time_limit == 45);
    CHECK(a.num_cpus == 3);
    CHECK(*a.current_priority == 33013);
    REQUIRE(a.tres.size() == 5);
    CHECK(a.tres[1].second == 64000.0);
    CHECK(a.tres[4].first == "gres/gpu:a100");
    const auto& b = jobs->jobs[1];
    CHECK(b.state == mfprio::job_state::held); // ["PENDING", "REQUEUED"], priority 0
    CHECK(b.eligible_time == 0);               // "set": false
    CHECK(*b.accrue_time == 0);
    CHECK(b.time_limit == mfprio::infinite32); // "infinite": true
    CHECK(b.nice == -50);
    const auto& c = jobs->jobs[2];
    CHECK(c.job_id == 31);
    CHECK(c.state == mfprio::job_state::running);
    CHECK(c.time_limit == mfprio::no_val32);   // not set: the partition's limit
}

TEST_CASE("live: squeue --json errors name the file, the line and the column") {
    const std::string tmp = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/mfprio_bad_squeue.json";
    const auto attempt = [&](const std::string& text) {
        std::ofstream(tmp, std::ios::binary) << text;
        auto in = mfprio::inputs::read_jobs_source(tmp);
        REQUIRE(in);
        auto t = mfprio::inputs::squeue_json_table(in->text(), in->readable_after(), in->name);
        std::remove(tmp.c_str());
        REQUIRE(!t);
        return t.error();
    };
    auto e = attempt("{\"jobs\": [\n  {\"job_id\": 1,\n   \"user_name\": }\n]}\n");
    CHECK(e.file == tmp);
    CHECK(e.line == 3);
    CHECK(e.message.starts_with("\"user_name\": not valid JSON: "));
    // The same with old Mac line ends, and with CRLF: lines end as every reader ends them.
    for (const char* end : {"\r", "\r\n"}) {
        const std::string nl = end;
        e = attempt("{\"jobs\": [" + nl + "  {\"job_id\": 1," + nl + "   \"user_name\": 7}" + nl + "]}" + nl);
        CHECK(e.line == 3);
        CHECK(e.column == 17);
        CHECK(e.message == "\"user_name\": expected a string or null");
    }
    e = attempt("{\"meta\": {}}\n");
    CHECK(e.message == "a JSON document without a \"jobs\" list (not `squeue --json` output)");
    e = attempt("[1, 2]\n");
    CHECK(e.message == "not `squeue --json` output: the document is not an object");
    e = attempt("{\"jobs\": [\n 7\n]}\n");
    CHECK(e.line == 2);
    CHECK(e.message == "an entry of \"jobs\" is not an object");
    // A cell nested thousands deep: refused by its type (a name is a string), without recursion.
    e = attempt("{\"jobs\": [\n {\"job_id\": 1,\n  \"user_name\": " + std::string(5000, '[') + std::string(5000, ']') +
                "}\n]}\n");
    CHECK(e.file == tmp);
    CHECK(e.line == 3);
    CHECK(e.message == "\"user_name\": expected a string or null");
    CHECK(attempt("{\"jobs\": [{\"job_id\": 1, \"job_state\": [[[[[[[[[[\"a\"]]]]]]]]]]}]}").message ==
          "\"job_state\": expected a string or a list of strings");
}

namespace {

/// A directory of fake Slurm commands (scontrol, squeue, sshare, sacctmgr, sprio: one script) that
/// print the busy_fair_tree capture, or misbehave as $MFPRIO_FAKE_MODE says: `hang` (sshare
/// waits on a child of its own), `closed` (squeue closes its outputs and runs on), `fork`
/// (every command leaves a child holding its output open and exits 0). scontrol show config
/// points StateSaveLocation at a directory holding the capture's priority_last_decay_ran.
/// The directory is removed when the test program exits.
std::string fake_slurm_commands() {
    namespace fs = std::filesystem;
    struct removed_at_exit {
        std::string path;
        ~removed_at_exit() {
            std::error_code ec;
            fs::remove_all(path, ec);
        }
    };
    static const removed_at_exit dir{[] {
        const std::string d = fs::temp_directory_path().string() + "/mfprio-fake-slurm-" + std::to_string(::getpid());
        fs::create_directories(d + "/state");
        const std::string b = bundle("busy_fair_tree");
        // The recalculation's time, big-endian, as slurmctld writes the state file.
        const std::uint64_t t = std::stoull(calc_time(b));
        std::string be;
        for (int i = 7; i >= 0; --i) be += static_cast<char>((t >> (8 * i)) & 0xff);
        std::ofstream(d + "/state/priority_last_decay_ran", std::ios::binary) << be;
        std::ofstream(d + "/fake", std::ios::binary)
            << "#!/bin/bash\n"
               "b=" << b << "\n"
               "case \"$(basename \"$0\") $*\" in\n"
               "  'scontrol show config') f=scontrol_show_config.txt ;;\n"
               "  'scontrol -o show partition') f=scontrol_show_partition.txt ;;\n"
               "  'scontrol -o --future show node') f=scontrol_show_node.txt ;;\n"
               "  'scontrol show assoc_mgr flags=assoc,qos') f=scontrol_show_assoc_mgr.txt ;;\n"
               "  'sshare -a -l -P') f=sshare_a_l_P.txt ;;\n"
               "  squeue*) f=squeue.txt ;;\n"
               "  sacctmgr*) f=sacctmgr_show_qos.txt ;;\n"
               "  sprio*) f=sprio_factors.txt ;;\n"
               "  *) echo \"fake: $0 $*\" >&2; exit 2 ;;\n"
               "esac\n"
               "case \"$MFPRIO_FAKE_MODE:$f\" in\n"
               "  hang:sshare_a_l_P.txt) sleep 301.5 & wait; exit 0 ;;\n"
               "  closed:squeue.txt) exec >&- 2>&-; exec sleep 302.5 ;;\n"
               "  fork:*) sleep 303.5 & ;;\n"
               "esac\n"
               "if [ $f = scontrol_show_config.txt ]; then\n"
               "  sed 's|^StateSaveLocation *=.*|StateSaveLocation       = "
            << d << "/state|' \"$b/$f\"\n"
               "else\n"
               "  cat \"$b/$f\"\n"
               "fi\n";
        fs::permissions(d + "/fake", fs::perms::owner_all);
        for (const char* c : {"scontrol", "squeue", "sshare", "sacctmgr", "sprio"})
            fs::create_symlink(d + "/fake", d + "/" + c);
        return d;
    }()};
    return dir.path;
}

/// `mfprio sprio --live` (with `extra` options) with the fake commands first on PATH in `mode`;
/// also how long it took, in seconds.
std::pair<mfprio::cli::outcome, double> live_with_fakes(const char* mode, std::vector<std::string_view> extra) {
    const std::string fakes = fake_slurm_commands();
    const char* old = std::getenv("PATH");
    const std::string saved = old ? old : "";
    setenv("PATH", (fakes + ":" + saved).c_str(), 1);
    setenv("MFPRIO_FAKE_MODE", mode, 1);
    std::vector<std::string_view> args{"--live"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto start = std::chrono::steady_clock::now();
    auto o = mfprio::cli::run_sprio(args);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    setenv("PATH", saved.c_str(), 1);
    unsetenv("MFPRIO_FAKE_MODE");
    return {std::move(o), took};
}

bool running(const char* marker) { return std::system(("pgrep -f '" + std::string(marker) + "' >/dev/null").c_str()) == 0; }

} // namespace

TEST_CASE("live: --live against Slurm commands that hang, close their outputs or fork: the deadline, no process left") {
    namespace fs = std::filesystem;
    const std::string b = bundle("busy_fair_tree");
    const std::string saved = fs::temp_directory_path().string() + "/mfprio-fake-live-" + std::to_string(::getpid());
    // What --live read is what the commands printed, and the state file's time is the
    // recalculation's: the saved bundle holds the capture's files and meta, and sprio from it
    // prints what --live printed.
    const auto check_capture = [&](const mfprio::cli::outcome& o) {
        CHECK(o.err == "");
        CHECK(o.status == 0);
        for (const char* f : {"scontrol_show_partition.txt", "scontrol_show_node.txt", "scontrol_show_assoc_mgr.txt",
                              "sshare_a_l_P.txt", "squeue.txt", "sprio_factors.txt"}) {
            CAPTURE(f);
            CHECK(slurp(saved + "/" + f) == slurp(b + "/" + f));
        }
        CHECK(slurp(saved + "/meta").find("priority_calc_time=" + calc_time(b) + "\n") != std::string::npos);
        const std::vector<std::string_view> from{"--from", saved};
        const auto replay = mfprio::cli::run_sprio(from);
        CHECK(replay.status == 0);
        CHECK(replay.out == o.out);
        CHECK(o.out.starts_with("          JOBID PARTITION   PRIORITY"));
        fs::remove_all(saved);
    };
    {
        const auto [o, took] = live_with_fakes("ok", {"--save", saved});
        check_capture(o);
    }
    // sshare's wrapper waits on a child: both killed at the deadline, the command named.
    {
        const auto [o, took] = live_with_fakes("hang", {"--timeout", "2"});
        CHECK(took < 10);
        CHECK(o.status == 65);
        CHECK(o.err == "mfprio sprio --live: `sshare -a -l -P` failed: (killed after 2 s)\n");
        CHECK_FALSE(running("[s]leep 301.5")); // ([s]: the pattern does not match pgrep's own shell)
    }
    // squeue closes its outputs and runs on: the deadline still ends it.
    {
        const auto [o, took] = live_with_fakes("closed", {"--timeout", "2"});
        CHECK(took < 10);
        CHECK(o.status == 65);
        CHECK(o.err.starts_with("mfprio sprio --live: `squeue -a -r -h -t PENDING,RUNNING,SUSPENDED -O "));
        CHECK(o.err.ends_with("` failed: (killed after 2 s)\n"));
        CHECK_FALSE(running("[s]leep 302.5"));
    }
    // Every command leaves a child holding its output open and succeeds: the outputs are
    // taken when the commands exit (well before a 30 s deadline), the children killed.
    {
        const auto [o, took] = live_with_fakes("fork", {"--timeout", "30", "--save", saved});
        CHECK(took < 15);
        check_capture(o);
        CHECK_FALSE(running("[s]leep 303.5"));
    }
}

TEST_CASE("live: the state file is read only when it is a regular file, without blocking") {
    namespace fs = std::filesystem;
    const std::string state = fs::temp_directory_path().string() + "/mfprio-state-" + std::to_string(::getpid());
    fs::create_directories(state);
    const std::string config = "StateSaveLocation       = " + state + "\n";
    const std::string file = state + "/priority_last_decay_ran";
    // A FIFO no one writes (or a hung file system's file): not read, no time.
    REQUIRE(mkfifo(file.c_str(), 0600) == 0);
    const auto start = std::chrono::steady_clock::now();
    CHECK_FALSE(mfprio::cli::last_decay_ran(config));
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
    fs::remove(file);
    // slurmctld's own file: the time, big-endian in its first 8 bytes.
    std::ofstream(file, std::ios::binary) << std::string("\0\0\0\0\x6a\x08\x0e\x39", 8);
    CHECK(mfprio::cli::last_decay_ran(config) == 0x6a080e39);
    fs::remove_all(state);
}
