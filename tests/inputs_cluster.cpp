// A cluster's files to its model in the library (mfprio/inputs/cluster.hpp): read, resolved
// and built without the tool. Expected priorities are the real slurmctld's: the stored
// priority squeue printed for each job in tests/data/live/fair_tree (Slurm 22.05.8, captured
// by tests/live/run.sh on a quiet cluster, every job recalculated at priority_calc_time).
#include <doctest/doctest.h>

#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include <mfprio/inputs.hpp>

namespace {

std::string live(const std::string& bundle, const std::string& file) {
    return std::string(MFPRIO_TEST_DATA) + "/live/" + bundle + "/" + file;
}

} // namespace

TEST_CASE("inputs: a cluster's files read, resolved and built reproduce slurmctld's stored priorities") {
    mfprio::inputs::cluster_files f;
    for (const char* c : {"scontrol_show_config.txt", "scontrol_show_node.txt", "scontrol_show_partition.txt"})
        f.confs.push_back(live("fair_tree", c));
    f.assocs = {live("fair_tree", "sshare_a_l_P.txt"), live("fair_tree", "scontrol_show_assoc_mgr.txt")};
    f.qos = live("fair_tree", "sacctmgr_show_qos.txt");
    f.jobs = live("fair_tree", "squeue.json");
    auto ci = mfprio::inputs::read_cluster_files(f);
    REQUIRE(ci);
    REQUIRE(ci->jobs);
    auto lc = mfprio::inputs::load_cluster(*ci, mfprio::config::fairshare_source::automatic, true);
    REQUIRE(lc);
    CHECK(lc->slurm_version == "22.05.8");
    const auto& m = lc->model;
    const std::int64_t calc = 1795618312; // the bundle's meta: priority_calc_time
    const auto rows = mfprio::report::sprio_rows(m.engine(), m.cluster, std::span<const mfprio::job>(m.jobs),
                                                 std::span<const mfprio::slurm::job_lists>(m.lists), m.context(calc),
                                                 m.settings.flags, m.user_names, m.begin_times);
    std::size_t compared = 0;
    for (std::size_t k = 0; k < m.jobs.size(); ++k) {
        if (!m.current_priorities[k] || m.jobs[k].admin_priority != 0) continue;
        CAPTURE(m.jobs[k].id);
        std::vector<std::uint64_t> ours;
        for (const auto& r : rows)
            if (r.job_id == m.jobs[k].id) ours.push_back(r.priority());
        if (ours.empty()) continue; // not pending: sprio lists it not
        ++compared;
        // A job in several partitions has a priority for each; slurmctld stores one of them.
        CHECK(std::find(ours.begin(), ours.end(), *m.current_priorities[k]) != ours.end());
    }
    CHECK(compared >= 10);
}

TEST_CASE("inputs: a missing file and missing inputs are refused by kind, naming the file") {
    mfprio::inputs::cluster_files f;
    f.confs = {live("fair_tree", "scontrol_show_config.txt")};
    f.assocs = {live("fair_tree", "no_such_file.txt")};
    const auto ci = mfprio::inputs::read_cluster_files(f);
    REQUIRE_FALSE(ci);
    CHECK(ci.error().kind == mfprio::error_kind::cannot_open);
    CHECK(ci.error().file == live("fair_tree", "no_such_file.txt"));

    f.assocs = {live("fair_tree", "sshare_a_l_P.txt")};
    auto no_jobs = mfprio::inputs::read_cluster_files(f);
    REQUIRE(no_jobs);
    CHECK_FALSE(no_jobs->jobs);
    const auto pc = mfprio::inputs::parse_cluster(*no_jobs);
    REQUIRE_FALSE(pc);
    CHECK(pc.error().kind == mfprio::error_kind::shape);
}

TEST_CASE("inputs: any jobs input is told apart by content and gives the same jobs") {
    // The same cluster's jobs as squeue --json and as scontrol show job printed them.
    auto json = mfprio::inputs::read_jobs_source(live("fair_tree", "squeue.json"));
    auto scontrol = mfprio::inputs::read_jobs_source(live("fair_tree", "scontrol_show_job.txt"));
    REQUIRE(json);
    REQUIRE(scontrol);
    std::string version;
    const auto a = mfprio::inputs::jobs_input_table(*json, &version);
    const auto b = mfprio::inputs::jobs_input_table(*scontrol, nullptr);
    REQUIRE(a);
    REQUIRE(b);
    CHECK(version == "22.05.8");
    REQUIRE(a->rows.size() == b->rows.size());
    for (std::size_t r = 0; r < a->rows.size(); ++r) {
        CAPTURE(r);
        CHECK(a->rows[r].cells[mfprio::config::nj_id] == b->rows[r].cells[mfprio::config::nj_id]);
        CHECK(a->rows[r].cells[mfprio::config::nj_priority] == b->rows[r].cells[mfprio::config::nj_priority]);
    }
    const mfprio::inputs::jobs_source junk(std::string("hello\n"), "junk.txt");
    const auto c = mfprio::inputs::jobs_input_table(junk, nullptr);
    REQUIRE_FALSE(c);
    CHECK(c.error().file == "junk.txt");
}

TEST_CASE("inputs: a bundle's cluster charged an hour on: the running jobs' associations gain usage") {
    // tests/data/live/fair_tree_running: jobs running on the real cluster when it was captured.
    auto ci = mfprio::inputs::read_bundle(std::string(MFPRIO_TEST_DATA) + "/live/fair_tree_running");
    REQUIRE(ci);
    auto pc = mfprio::inputs::parse_cluster(*ci);
    REQUIRE(pc);
    const auto before = pc->assoc.rows;
    std::size_t grew = 0;
    REQUIRE_FALSE(mfprio::config::charge_cluster(*pc, *ci->calc_time, 3600));
    REQUIRE(pc->assoc.rows.size() == before.size());
    for (std::size_t r = 0; r < before.size(); ++r)
        if (pc->assoc.rows[r].raw_usage > before[r].raw_usage) ++grew;
    CHECK(grew > 0);
}
