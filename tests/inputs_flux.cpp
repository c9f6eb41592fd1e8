// Flux as it runs: what flux-core 0.88.0 and flux-accounting 0.60.0 printed, read as printed
// (mfprio/inputs/flux.hpp), and flux-accounting's plugin replayed over it
// (mfprio/replay/flux_plugin.hpp). The bundles under tests/data/flux were captured from a real
// instance by tests/live/flux.sh; every expected priority and order below is what that
// instance printed (flux_jobs.json, flux_jobs.txt).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <sys/stat.h>

#include <mfprio/inputs.hpp>

#include "queue_commands.hpp"
#include "whatif_commands.hpp"

namespace {

std::string flux_dir(const std::string& name) { return std::string(MFPRIO_TEST_DATA) + "/flux/" + name; }

const char* const scenarios[] = {"default", "weights", "edits", "overflow", "above", "core"};

/// The pending jobs' ids in the order flux jobs listed them.
std::vector<std::uint64_t> flux_order(const std::string& file) {
    auto t = mfprio::text::read_text_file(file);
    REQUIRE(t);
    std::vector<std::uint64_t> ids;
    for (const auto& l : mfprio::text::split_lines(*t)) {
        const auto f = mfprio::text::split(mfprio::text::trim(l.text), ' ');
        if (f.size() < 2) continue;
        const auto id = mfprio::text::parse_unsigned<std::uint64_t>(f[1]);
        REQUIRE(id);
        ids.push_back(*id);
    }
    return ids;
}

/// The plugin replayed over a bundle's history: each pending job's priority, by job index.
std::vector<std::optional<std::int64_t>> replay(const mfprio::inputs::flux_history& h,
                                                mfprio::config::flux_plugin_options o = {}) {
    std::vector<std::optional<std::int64_t>> out(h.latest.jobs.size());
    if (h.latest.plugin) {
        const auto r = mfprio::config::replay_flux_plugin(h.updates, h.latest.jobs, o, h.held, h.plugin_history());
        for (std::size_t k = 0; k < r.size(); ++k)
            if (r[k]) out[k] = r[k]->value.value;
    } else {
        const auto r = mfprio::config::flux_core_priorities(h.latest.jobs);
        for (std::size_t k = 0; k < r.size(); ++k)
            if (r[k]) out[k] = r[k]->value;
    }
    return out;
}

std::size_t differences(const mfprio::inputs::flux_history& h, const std::vector<std::optional<std::int64_t>>& ours) {
    std::size_t n = 0;
    for (std::size_t k = 0; k < ours.size(); ++k)
        if (h.latest.jobs[k].pending() && ours[k] != h.latest.jobs[k].priority) ++n;
    return n;
}

} // namespace

TEST_CASE("flux: every bundle replays with every priority and the queue order Flux printed") {
    for (const char* name : scenarios) {
        CAPTURE(name);
        auto h = mfprio::inputs::read_flux_history(flux_dir(name));
        REQUIRE(h);
        const auto ours = replay(*h);
        std::size_t pending = 0;
        for (std::size_t k = 0; k < ours.size(); ++k) {
            const auto& j = h->latest.jobs[k];
            if (!j.pending()) continue;
            ++pending;
            CAPTURE(j.id);
            REQUIRE(j.priority);
            CHECK(ours[k] == j.priority);
        }
        CHECK(pending >= 20);
        std::vector<std::uint64_t> order;
        for (const std::size_t k : mfprio::config::flux_queue_order(h->latest.jobs, ours)) order.push_back(h->latest.jobs[k].id);
        CHECK(order == flux_order(flux_dir(name) + "/flux_jobs.txt"));
        // The tool says the same.
        const std::string dir = flux_dir(name);
        const std::vector<std::string_view> args{"queue", "--from", dir, "--check"};
        const auto o = mfprio::cli::run_queue(std::span(args).subspan(1));
        CHECK(o.status == 0);
        CHECK(o.out.ends_with(" 0 differ, queue order identical\n"));
    }
}

TEST_CASE("flux: the plugin's behaviours are what make the replay exact") {
    // Without the 32-bit products: the three jobs submitted to the queue of priority
    // 1000000000 under queue weight 3 get 0 in Flux (3 x 1000000000 wraps to -1294967296).
    auto overflow = mfprio::inputs::read_flux_history(flux_dir("overflow"));
    REQUIRE(overflow);
    CHECK(differences(*overflow, replay(*overflow, {.exact_products = true})) > 0);
    std::size_t wrapped = 0;
    for (const auto& j : overflow->latest.jobs)
        if (j.queue == "urgent" && j.urgency != 0 && j.priority == 0) ++wrapped;
    CHECK(wrapped >= 3);
    // With an upper clamp: Flux keeps 12705094704 and orders it above expedited jobs.
    auto above = mfprio::inputs::read_flux_history(flux_dir("above"));
    REQUIRE(above);
    CHECK(differences(*above, replay(*above, {.clamp_upper = true})) > 0);
    CHECK(std::any_of(above->latest.jobs.begin(), above->latest.jobs.end(),
                      [](const auto& j) { return j.priority == 12705094704; }));
    // Without the history: the edits' bundle alone, as if the plugin had received only its
    // database, gives each pair the edited queue and bank priorities, which Flux did not.
    auto edits = mfprio::inputs::read_flux_history(flux_dir("edits"));
    REQUIRE(edits);
    auto alone = *edits;
    alone.updates.resize(1);
    alone.held.clear();
    alone.updates[0].time = 0; // before every submission: each job computed from its own queue
    CHECK(differences(alone, replay(alone)) > 0);
    // One bundle without its history: the plugin's cache as `flux jobtap query` printed it
    // stands in for the submissions before. `weights` (no bank priority changed since the
    // submissions) replays exactly from its own files; without the printed cache each pair
    // would take its job's own queue, which Flux did not.
    // Its jobs, all submitted before its one database, are taken as computed with it: each
    // pair caches its latest job's queue, with or without the printed cache.
    auto weights_alone = mfprio::inputs::read_flux_history(flux_dir("weights"));
    REQUIRE(weights_alone);
    weights_alone->updates.resize(1);
    weights_alone->held = weights_alone->latest.held;
    REQUIRE(weights_alone->held.size() == 8); // root's and the seven associations
    CHECK(differences(*weights_alone, replay(*weights_alone)) == 0);
    weights_alone->held.clear();
    weights_alone->observations.clear();
    CHECK(differences(*weights_alone, replay(*weights_alone)) == 0);
    // The cached queue factor: alice's two jobs in bank ml (urgent, then batch) print the same
    // priority after a recomputation (50571 in `weights`): the pair's latest job is in batch.
    auto weights = mfprio::inputs::read_flux_history(flux_dir("weights"));
    REQUIRE(weights);
    const auto r = mfprio::config::replay_flux_plugin(weights->updates, weights->latest.jobs);
    std::size_t alice_ml = 0;
    for (std::size_t k = 0; k < r.size(); ++k) {
        const auto& j = weights->latest.jobs[k];
        if (j.userid != 5001 || j.bank != "ml") continue;
        ++alice_ml;
        CHECK(j.priority == 50571);
        REQUIRE(r[k]);
        CHECK(r[k]->queue_factor == 1); // batch's priority
        CHECK(r[k]->fairshare == 0.571429); // as stored, 6 decimals (4/7 is 0.5714285...)
    }
    CHECK(alice_ml == 2);
}

TEST_CASE("flux readers: 64-bit ids, user ids to names, Flux's states, \"unlimited\"") {
    const std::string users = R"([{"username": "alice", "userid": 5001, "bank": "ml", "default_bank": "ml",
 "fairshare": 0.571429, "max_nodes": "unlimited", "active": 1}])";
    auto u = mfprio::inputs::flux_users_from(users, "users.json");
    REQUIRE(u);
    REQUIRE(u->size() == 1);
    CHECK((*u)[0].fairshare == 0.571429);
    const std::string jobs = "{\"jobs\": [{\"id\": 132439343104, \"userid\": 5001, \"urgency\": 16, \"priority\": 5368712266,\n"
                             " \"state\": \"SCHED\", \"t_submit\": 1795745768.1383095, \"queue\": \"batch\", \"bank\": \"ml\"},\n"
                             " {\"id\": 73316433920, \"userid\": 5009, \"urgency\": 31, \"state\": \"INACTIVE\"}]}";
    auto j = mfprio::inputs::flux_jobs_from(jobs, "jobs.json", *u);
    REQUIRE(j);
    REQUIRE(j->size() == 2);
    CHECK((*j)[0].id == 132439343104u);
    CHECK((*j)[0].username == "alice");
    CHECK((*j)[0].priority == 5368712266);
    CHECK((*j)[0].pending());
    CHECK((*j)[1].username.empty()); // a user the users input does not hold: shown by id
    CHECK_FALSE((*j)[1].pending());
    // Flux prints the id in f58 as "ƒ" and base 58: the bundle's "jobid" field.
    CHECK(mfprio::cli::flux_f58(132439343104u) == "\xc6\x92" "4UnDFb5");
    CHECK(mfprio::cli::flux_f58(73316433920u) == "\xc6\x92" "2vhitVu");
    // "unlimited" stands for 2147483647, weights included.
    auto w = mfprio::inputs::flux_factors_from(R"([{"factor": "fairshare", "weight": "unlimited"}, {"factor": "queue", "weight": 3}])",
                                               "factors.json");
    REQUIRE(w);
    CHECK(w->fairshare == 2147483647);
    CHECK(w->queue == 3);
    CHECK(w->urgency == 1000); // not listed: the plugin's default
    auto q = mfprio::inputs::flux_queues_from(R"([{"queue": "batch", "priority": 1, "max_nodes_per_assoc": "unlimited"}])", "q.json");
    REQUIRE(q);
    CHECK((*q)[0].priority == 1);
}

TEST_CASE("flux readers: a bad value is refused at its file, line and column") {
    const auto err = [](const auto& r) {
        REQUIRE_FALSE(r);
        return r.error().to_string();
    };
    CHECK(err(mfprio::inputs::flux_jobs_from("{\"jobs\": [\n {\"id\": 1, \"state\": \"QUEUED\"}]}", "jobs.json")) ==
          "jobs.json:2:21: \"state\": 'QUEUED' is not a Flux job state (DEPEND, PRIORITY, SCHED, RUN, CLEANUP, INACTIVE)");
    CHECK(err(mfprio::inputs::flux_jobs_from("{\"jobs\": [{\"id\": 7, \"urgency\": 40}]}", "jobs.json")) ==
          "jobs.json:1:32: \"urgency\": '40' is not an urgency from 0 to 31");
    CHECK(err(mfprio::inputs::flux_jobs_from("[]", "jobs.json")) ==
          "jobs.json:1:1: not `flux jobs --json` output: the document is not an object");
    CHECK(err(mfprio::inputs::flux_users_from("[{\"userid\": 5001,\r\n \"fairshare\": 1.5}]", "u.json")) ==
          "u.json:2:15: \"fairshare\": '1.5' is not a fair-share from 0 to 1");
    CHECK(err(mfprio::inputs::flux_factors_from("[{\"factor\": \"queue\", \"weight\": \"many\"}]", "f.json")) ==
          "f.json:1:32: \"weight\": 'many' is not an integer weight");
    CHECK(err(mfprio::inputs::flux_queues_from("[{\"queue\": \"batch\", \"priority\": 1}", "q.json")).starts_with("q.json:1:"));
    // A queue's priority is a C int in flux-accounting 0.60 (Queue::priority,
    // src/plugins/accounting.hpp), a bank's a double (Bank::priority) that mfprio takes within
    // +-1e300: the same ranges as the queue and bank tables (mfprio/read/flux_tables.hpp).
    CHECK(err(mfprio::inputs::flux_queues_from("[{\"queue\": \"batch\", \"priority\": 2147483648}]", "q.json")) ==
          "q.json:1:33: \"priority\": '2147483648' is not an integer from -2147483648 to 2147483647");
    CHECK(err(mfprio::inputs::flux_banks_from("[{\"bank\": \"root\", \"priority\": 1e301}]", "b.json")) ==
          "b.json:1:31: \"priority\": '1e301' is not a number from -1e+300 to 1e+300");
    // A job's size and time limit (flux-core's job-list: nnodes and ncores are counts, -1 or
    // absent until known; duration in seconds, 0 for none): columns counted by hand, the
    // value's first character.
    CHECK(err(mfprio::inputs::flux_jobs_from("{\"jobs\": [{\"id\": 7, \"nnodes\": 4294967296}]}", "jobs.json")) ==
          "jobs.json:1:31: \"nnodes\": '4294967296' is not a count of nodes");
    CHECK(err(mfprio::inputs::flux_jobs_from("{\"jobs\": [{\"id\": 7, \"duration\": -5}]}", "jobs.json")) ==
          "jobs.json:1:33: \"duration\": '-5' is not a duration in seconds");
    const std::string head = "JOBID UID URG PRI STATE NNODES NCORES DURATION\n";
    CHECK(err(mfprio::inputs::flux_jobs_text_from(head + "7 5001 16 16 SCHED x 4 60\n", "t")) ==
          "t:2:20: NNODES: 'x' is not a count of nodes");
    CHECK(err(mfprio::inputs::flux_jobs_text_from(head + "7 5001 16 16 SCHED 2 -2 60\n", "t")) ==
          "t:2:22: NCORES: '-2' is not a count of cores");
    CHECK(err(mfprio::inputs::flux_jobs_text_from(head + "7 5001 16 16 SCHED 2 4 1e16\n", "t")) ==
          "t:2:24: DURATION: '1e16' is not a duration in seconds");
    // Not known yet: an empty field, or -1 as job-list gives it.
    const auto known = mfprio::inputs::flux_jobs_text_from(head + "7 5001 16 16 SCHED  -1 0\n", "t");
    REQUIRE(known);
    CHECK((*known)[0].nnodes == 0);
    CHECK((*known)[0].ncores == 0);
}

TEST_CASE("flux readers: flux jobs -o text, ids in f58 and decimal, users by id, state letters") {
    // As flux jobs -A -a -o '{id} {id.dec} {userid} {urgency} {priority} {state} {queue} {bank}
    // {t_submit}' printed (flux-core 0.88.0): an empty queue and bank are empty fields.
    const std::string text = "JOBID JOBID UID URG PRI STATE QUEUE BANK T_SUBMIT\r\n"
                             "\xc6\x92QioWX1 15569256448 0 20 20 SCHED   1795746592.8780808\r\n"
                             "\xc6\x92" "4UnDFb5 132439343104 5001 16 67143 SCHED batch ml 1795745768.1383095\r\n";
    const std::vector<mfprio::config::flux_user_row> users{
        {.username = "alice", .userid = 5001, .bank = "ml", .default_bank = "ml", .fairshare = 0.571429, .active = true}};
    auto j = mfprio::inputs::read_flux_jobs(text, "jobs.txt", users);
    REQUIRE(j);
    REQUIRE(j->size() == 2);
    CHECK((*j)[0].id == 15569256448u);
    CHECK((*j)[0].queue.empty());
    CHECK((*j)[0].bank.empty());
    CHECK((*j)[0].urgency == 20);
    CHECK((*j)[1].id == 132439343104u);
    CHECK((*j)[1].username == "alice");
    CHECK((*j)[1].priority == 67143);
    CHECK((*j)[1].queue == "batch");
    CHECK((*j)[1].t_submit == 1795745768.1383095);
    // {id.dec} and {state_single}, as flux jobs -o '{id.dec} {userid} {urgency} {priority}
    // {state_single}' prints them.
    auto d = mfprio::inputs::read_flux_jobs("JOBID UID URG PRI S\n19293798400 0 16 16 S\n", "d.txt");
    REQUIRE(d);
    CHECK((*d)[0].id == 19293798400u);
    CHECK((*d)[0].state == "SCHED");
    CHECK(mfprio::inputs::parse_flux_jobid("fQioWX1") == 15569256448u);
    CHECK_FALSE(mfprio::inputs::parse_flux_jobid("\xc6\x92QioWX0")); // 0 is not an f58 digit
    CHECK_FALSE(mfprio::inputs::parse_flux_jobid("fzzzzzzzzzzzzzzzzzzzz")); // past 64 bits
    // Errors at the field.
    const auto e = mfprio::inputs::read_flux_jobs("JOBID UID URG PRI S\n19293798400 0 16 16 Q\n", "d.txt");
    REQUIRE_FALSE(e);
    CHECK(e.error().to_string() == "d.txt:2:21: S: 'Q' is not a Flux job state letter (N, D, P, S, R, C, I)");
    const auto t = mfprio::inputs::read_flux_jobs("JOBID UID URG PRI S T_SUBMIT\n1 0 16 16 S 2026-11-27T02:29:53\n", "t.txt");
    REQUIRE_FALSE(t);
    CHECK(t.error().to_string() ==
          "t.txt:2:13: T_SUBMIT: '2026-11-27T02:29:53' is not a time in epoch seconds from 1970 to 9999 (use {t_submit}, not {t_submit!d})");
    const auto h = mfprio::inputs::read_flux_jobs("JOBID PRI\n1 2\n", "h.txt");
    REQUIRE_FALSE(h);
    CHECK(h.error().kind == mfprio::error_kind::shape);
    CHECK(h.error().line == 1);
}

TEST_CASE("flux readers: the plugin's state from flux jobtap query") {
    auto held = mfprio::inputs::flux_plugin_state_from(
        R"({"name":"mf_priority.so","mf_priority_map":[{"userid":5001,"banks":[{"bank_name":"ml","fairshare":0.571429,)"
        R"("queue_factor":1,"queues":[]},{"bank_name":"web","fairshare":0.714286,"queue_factor":20}]}],"queues":{}})",
        "jobtap.json");
    REQUIRE(held);
    REQUIRE(held->size() == 2);
    CHECK((*held)[0].userid == 5001);
    CHECK((*held)[0].bank == "ml");
    CHECK((*held)[0].queue_factor == 1);
    CHECK((*held)[1].queue_factor == 20);
    CHECK((*held)[1].fairshare == 0.714286);
    const auto bad = mfprio::inputs::flux_plugin_state_from("{\"mf_priority_map\":[{\"userid\":5001,\n\"banks\":[{\"queue_factor\":\"x\"}]}]}",
                                                            "jobtap.json");
    REQUIRE_FALSE(bad);
    CHECK(bad.error().to_string() == "jobtap.json:2:26: \"queue_factor\": not an integer");
    const auto none = mfprio::inputs::flux_plugin_state_from("{\"name\":\"x\"}", "jobtap.json");
    REQUIRE_FALSE(none);
    CHECK(none.error().to_string() == "jobtap.json:1:1: no \"mf_priority_map\": not `flux jobtap query mf_priority.so` output");
}

TEST_CASE("flux: queue --live without a Flux names the command that failed and changes nothing") {
    const char* old = std::getenv("PATH");
    const std::string saved = old != nullptr ? old : "";
    setenv("PATH", "/nonexistent-mfprio-path", 1);
    const std::string save = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/mfprio_flux_live_save";
    std::filesystem::remove_all(save);
    const std::vector<std::string_view> args{"--live", "--save", save};
    const auto o = mfprio::cli::run_queue(args);
    setenv("PATH", saved.c_str(), 1);
    CHECK(o.status == 65);
    CHECK(o.err == "mfprio queue --live: `flux python -c PROGRAM (mfprio's capture program)` failed: not found on PATH "
                   "(its empty and relative entries are not searched)\n");
    CHECK_FALSE(std::filesystem::exists(save + "/manifest"));
    // Usage errors: --save without --live, both sources, neither.
    const std::vector<std::string_view> from_save{"--from", "x", "--save", "y"};
    CHECK(mfprio::cli::run_queue(from_save).status == 2);
    const std::vector<std::string_view> both{"--from", "x", "--live"};
    CHECK(mfprio::cli::run_queue(both).status == 2);
    const std::vector<std::string_view> check_alone{"--policy", "fcfs", "--jobs", "j", "--check"};
    CHECK(mfprio::cli::run_queue(check_alone).status == 2);
}

namespace {

/// `mfprio queue --from DIR --set ...`: each listed job's new priority, by f58 id.
std::vector<std::pair<std::string, std::string>> whatif_priorities(const std::vector<std::string_view>& args) {
    const auto o = mfprio::cli::run_queue(args);
    REQUIRE(o.status == 0);
    std::vector<std::pair<std::string, std::string>> out;
    std::size_t line = 0;
    for (const auto& l : mfprio::text::split_lines(o.out)) {
        if (++line <= 4) continue; // the heading, the summary, a blank line, the column names
        std::vector<std::string> f;
        for (const auto w : mfprio::text::split(mfprio::text::trim(l.text), ' '))
            if (!w.empty()) f.emplace_back(w);
        REQUIRE(f.size() == 8);
        out.emplace_back(f[0], f[4]);
    }
    std::sort(out.begin(), out.end());
    return out;
}

/// What Flux printed in a bundle: each pending job's priority, by f58 id.
std::vector<std::pair<std::string, std::string>> printed(const std::string& name) {
    auto t = mfprio::text::read_text_file(flux_dir(name) + "/flux_jobs.txt");
    REQUIRE(t);
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& l : mfprio::text::split_lines(*t)) {
        const auto f = mfprio::text::split(mfprio::text::trim(l.text), ' ');
        if (f.size() >= 5) out.emplace_back(std::string(f[0]), std::string(f[4]));
    }
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace

TEST_CASE("flux whatif: the administrator's edits, applied to the bundle before, predict what Flux printed after") {
    // tests/live/flux.sh made these edits between the bundles, then ran priority-update.
    const std::string weights = flux_dir("weights"), defaults = flux_dir("default");
    CHECK(whatif_priorities({"--from", defaults, "--set", "weight.fairshare=50000", "--set", "weight.queue=20000", "--set",
                             "weight.bank=1000", "--set", "weight.urgency=2000"}) == printed("weights"));
    CHECK(whatif_priorities({"--from", weights, "--set", "queue.debug=50", "--set", "queue.urgent=3", "--set", "bank.ml=7",
                             "--set", "shares.carol@web=5", "--set", "usage.bob@ml=40", "--set", "usage.erin@sci=900",
                             "--set", "usage.frank@web=300"}) == printed("edits"));
    // For new submissions: `default`'s jobs were each computed when submitted (the database
    // came before them), so an unchanged weight gives back what Flux printed.
    CHECK(whatif_priorities({"--from", defaults, "--set", "weight.bank=0", "--new-submissions"}) == printed("default"));
    // And the edits for new submissions are not what a recomputation gives.
    CHECK(whatif_priorities({"--from", weights, "--set", "queue.debug=50", "--new-submissions"}) !=
          whatif_priorities({"--from", weights, "--set", "queue.debug=50"}));
    // `mfprio whatif --from` tells a Flux bundle by its content and answers the same.
    const std::vector<std::string_view> q{"--from", weights, "--set", "bank.ml=7", "--new-submissions"};
    CHECK(mfprio::cli::run_whatif(q).out == mfprio::cli::run_queue(q).out);
    // Changes that cannot be made change nothing and say why.
    const std::vector<std::string_view> bad{"--from", weights, "--set", "queue.nosuch=5"};
    const auto o = mfprio::cli::run_queue(bad);
    CHECK(o.status == 2);
    CHECK(o.err.starts_with("mfprio queue: --set no queue 'nosuch' in flux-accounting's queue table\n"));
    const std::string core_dir = flux_dir("core");
    const std::vector<std::string_view> core{"--from", core_dir, "--set", "weight.bank=5"};
    CHECK(mfprio::cli::run_queue(core).status == 2);
}

TEST_CASE("flux: fair-share computed from shares and usage is what flux account-update-fshare stored") {
    // list_users.json's fairshare column, written by flux-accounting 0.60's update-fshare,
    // in three database states (before and after carol's shares and three usages changed).
    for (const char* name : {"default", "weights", "edits"}) {
        CAPTURE(name);
        auto b = mfprio::inputs::read_flux_bundle(flux_dir(name));
        REQUIRE(b);
        REQUIRE(b->update);
        const auto fs = mfprio::config::flux_fairshare_as_stored(b->update->db);
        REQUIRE(fs.size() == 7);
        for (std::size_t u = 0; u < fs.size(); ++u) {
            CAPTURE(b->update->db.users[u].username);
            CHECK(fs[u] == b->update->db.users[u].fairshare);
        }
    }
}

TEST_CASE("flux: --explain shows each term and where the plugin's factors came from") {
    // Job ƒ7NBQA9M of `above`: Flux printed 12705082704 = 50000 x 1.0 + (3 x 1000000000
    // wrapped to -1294967296) + 2000000000 x 7 + 0 (list_factors.json, list_queues.json,
    // list_banks.json of `overflow`, when bob last submitted to urgent, and list_users.json).
    const std::string above = flux_dir("above");
    const std::vector<std::string_view> args{"--from", above, "--explain", "\xc6\x92" "7NBQA9M"};
    const auto o = mfprio::cli::run_queue(args);
    REQUIRE(o.status == 0);
    CHECK(o.out.find("user bob, bank ml, queue urgent, urgency 16, SCHED\n") != std::string::npos);
    CHECK(o.out.find("= -1294967296 (the pair's cached queue factor: its latest job's queue) (wrapped in 32 bits)\n") !=
          std::string::npos);
    CHECK(o.out.find("  bank        2000000000 x 7 = 14000000000.000000") != std::string::npos);
    CHECK(o.out.ends_with("  priority  12705082704 (the sum rounded; no upper clamp)\n"));
    // The decimal id says the same; an id not in the bundle is named.
    const std::vector<std::string_view> dec{"--from", above, "--explain", "242313330688"};
    CHECK(mfprio::cli::run_queue(dec).out == o.out);
    const std::vector<std::string_view> missing{"--from", above, "--explain", "12345"};
    const auto m = mfprio::cli::run_queue(missing);
    CHECK(m.status == 65);
    CHECK(m.err.starts_with("mfprio queue: job \xc6\x92" "4fr is not among the jobs of "));
}

TEST_CASE("flux readers: list-banks --json, priorities as doubles, shares, the root without a parent") {
    // As flux account list-banks --json printed them (tests/data/flux/default).
    auto b = mfprio::inputs::flux_banks_from(R"([{"bank_id": 1, "bank": "root", "active": 1, "parent_bank": "", "shares": 1,
 "job_usage": 0.0, "priority": 0.0}, {"bank_id": 3, "bank": "ml", "active": 1, "parent_bank": "eng", "shares": 2,
 "job_usage": 0.0, "priority": 3.5}])", "banks.json");
    REQUIRE(b);
    REQUIRE(b->size() == 2);
    CHECK((*b)[0].parent.empty());
    CHECK((*b)[1].parent == "eng");
    CHECK((*b)[1].shares == 2);
    CHECK((*b)[1].priority == 3.5);
    const auto bad = mfprio::inputs::flux_banks_from("[{\"bank\": \"ml\",\n  \"shares\": -2}]", "banks.json");
    REQUIRE_FALSE(bad);
    CHECK(bad.error().to_string() == "banks.json:2:13: \"shares\": '-2' is not a number of shares");
}

namespace {

/// Writes a Flux bundle of `files` (name, text) into a fresh directory `name` under `root`,
/// with its manifest.
std::string write_bundle(const std::string& root, const std::string& name,
                         const std::vector<std::pair<std::string, std::string>>& files) {
    const std::string dir = root + "/" + name;
    std::filesystem::create_directories(dir);
    std::vector<std::pair<std::string, std::string_view>> listed;
    for (const auto& [n, t] : files) {
        std::ofstream(dir + "/" + n, std::ios::binary) << t;
        listed.emplace_back(n, t);
    }
    std::ofstream(dir + "/manifest", std::ios::binary) << mfprio::inputs::manifest_text(listed);
    return dir;
}

/// The error read_flux_history reports for the bundle in `dir` (it must report one).
std::string history_error(const std::string& dir) {
    const auto h = mfprio::inputs::read_flux_history(dir);
    REQUIRE_FALSE(h);
    return h.error().to_string();
}

/// A fresh scratch directory for a test's bundles: TMPDIR (or /tmp) / `name`.
std::string scratch_root(const std::string& name) {
    const std::string root = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/" + name;
    std::filesystem::remove_all(root);
    return root;
}

} // namespace

TEST_CASE("flux bundles and --set: bad meta, a previous= loop, bad values are refused and say where") {
    const std::string root = scratch_root("mfprio_flux_bundles");
    const std::string jobs = "{\"jobs\": []}\n";
    const auto err = history_error;
    const auto bad_time = write_bundle(root, "bad_time", {{"flux_jobs.json", jobs}, {"meta", "captured=1\npriority_update=soon\n"}});
    CHECK(err(bad_time) == bad_time + "/meta:2:17: priority_update: 'soon' is not a time in epoch seconds from 1970 to 9999");
    const auto bad_prev = write_bundle(root, "bad_prev", {{"flux_jobs.json", jobs}, {"meta", "previous=../x\n"}});
    CHECK(err(bad_prev) == bad_prev + "/meta:1:10: previous: '../x' is not a sibling bundle's name");
    const auto no_meta = write_bundle(root, "no_meta", {{"flux_jobs.json", jobs}});
    CHECK(err(no_meta) == no_meta + "/meta: not listed in the manifest");
    const auto no_jobs = write_bundle(root, "no_jobs", {{"meta", "captured=1\n"}});
    CHECK(err(no_jobs) == no_jobs + "/manifest: lists neither flux_jobs.json nor flux_jobs_table.txt");
    const auto bad_pri = write_bundle(root, "bad_pri", {{"flux_jobs_table.txt", "JOBID UID URG PRI STATE\n7 5001 16 x SCHED\n"},
                                                       {"meta", "captured=1\n"}});
    CHECK(err(bad_pri) == bad_pri + "/flux_jobs_table.txt:2:11: PRI: 'x' is not a priority");
    const auto users_only = write_bundle(root, "users_only", {{"flux_jobs.json", jobs}, {"meta", "priority_update=1\n"},
                                                             {"list_users.json", "[]\n"}});
    CHECK(err(users_only).ends_with("lists list_users.json without list_factors.json, list_queues.json and list_banks.json"));
    write_bundle(root, "a", {{"flux_jobs.json", jobs}, {"meta", "previous=b\n"}});
    const auto b = write_bundle(root, "b", {{"flux_jobs.json", jobs}, {"meta", "previous=a\n"}});
    const auto loop = mfprio::inputs::read_flux_history(b);
    REQUIRE_FALSE(loop);
    CHECK(loop.error().kind == mfprio::error_kind::reference);
    CHECK(loop.error().message == "the bundles' previous= lines form a loop");
    // --set values checked as flux-accounting's commands check them; nothing applied.
    auto weights = mfprio::inputs::read_flux_history(flux_dir("weights"));
    REQUIRE(weights);
    auto db = weights->updates.front().db;
    const auto before = db.weights.queue;
    CHECK(mfprio::config::apply_flux_change(db, "weight.queue", "lots") == "weight.queue: 'lots' is not an integer weight");
    CHECK(mfprio::config::apply_flux_change(db, "weight.speed", "1") ==
          "unknown factor 'speed' (fairshare, queue, bank, urgency)");
    CHECK(mfprio::config::apply_flux_change(db, "shares.alice", "0") ==
          "shares.alice: '0' is not a number of shares from 1 to 2147483647");
    CHECK(mfprio::config::apply_flux_change(db, "usage.nobody", "5") == "no association of user 'nobody'");
    CHECK(mfprio::config::apply_flux_change(db, "bank.ml", "x") == "bank.ml: 'x' is not a number");
    // Numbers as Python's float() reads them (flux account's argparse), without C's extras:
    // no hexadecimal, no inf or nan.
    CHECK(mfprio::config::apply_flux_change(db, "bank.ml", "0x10") == "bank.ml: '0x10' is not a number");
    CHECK(mfprio::config::apply_flux_change(db, "usage.alice", "inf") == "usage.alice: 'inf' is not a usage of 0 or more");
    CHECK(mfprio::config::apply_flux_change(db, "usage.alice", "-1") == "usage.alice: '-1' is not a usage of 0 or more");
    CHECK(db.weights.queue == before);
    CHECK(mfprio::config::apply_flux_change(db, "bank.ml", "2.5e1") == "");
    std::filesystem::remove_all(root);
}

TEST_CASE("flux bundles: flux_jobs.txt's lines are read as Flux printed them, a FIFO is not waited on") {
    const std::string root = scratch_root("mfprio_flux_order");
    const std::string jobs = "{\"jobs\": []}\n";
    const auto err = history_error;
    // flux jobs -A -n -o '{id.f58} {id.dec} ...': ƒ2 is 1 in f58 ("1" is the digit 0), so the
    // id of "ƒ2" is 1; the columns below are counted in bytes (ƒ is two).
    const auto good = write_bundle(root, "good", {{"flux_jobs.json", jobs}, {"meta", "captured=1\n"},
                                                  {"flux_jobs.txt", "\xc6\x92" "2 1 5001 16 16 SCHED batch ml\n\n"
                                                                    "f3 2 5001 16 16 SCHED batch ml\n"}});
    const auto b = mfprio::inputs::read_flux_history(good);
    REQUIRE(b);
    REQUIRE(b->latest.expected_order);
    CHECK(*b->latest.expected_order == std::vector<std::uint64_t>{1, 2});
    const auto junk = write_bundle(root, "junk", {{"flux_jobs.json", jobs}, {"meta", "captured=1\n"},
                                                  {"flux_jobs.txt", "\xc6\x92" "2 1 5001\n  oops 7\n"}});
    CHECK(err(junk) == junk + "/flux_jobs.txt:2:3: JOBID: 'oops' is not a Flux job id (f58 or decimal)");
    const auto mismatch = write_bundle(root, "mismatch", {{"flux_jobs.json", jobs}, {"meta", "captured=1\n"},
                                                          {"flux_jobs.txt", "f3 7 5001\n"}});
    CHECK(err(mismatch) == mismatch + "/flux_jobs.txt:1:4: JOBID: '7' is not the job id 2 in decimal");
    // A FIFO in place of a listed file.
    const auto fifo = write_bundle(root, "fifo", {{"flux_jobs.json", jobs}, {"meta", "captured=1\n"}});
    std::filesystem::remove(fifo + "/flux_jobs.json");
    REQUIRE(mkfifo((fifo + "/flux_jobs.json").c_str(), 0600) == 0);
    CHECK(err(fifo) == fifo + "/flux_jobs.json: cannot read file: a FIFO, not a regular file");
    std::filesystem::remove_all(root);
}

TEST_CASE("flux readers: a value of another JSON type than Flux prints is refused at its column") {
    using mfprio::inputs::flux_jobs_from;
    const auto err = [](std::string_view text) {
        const auto j = flux_jobs_from(text, "jobs.json");
        REQUIRE_FALSE(j);
        return j.error().to_string();
    };
    // Columns counted by hand: {"jobs": [{"id": X  -> X at column 18.
    CHECK(err(R"({"jobs": [{"id": 7, "urgency": {}}]})") == "jobs.json:1:32: \"urgency\": an object, not a number");
    CHECK(err(R"({"jobs": [{"id": true}]})") == "jobs.json:1:18: \"id\": a boolean, not a number");
    CHECK(err(R"({"jobs": [{"id": 7, "state": []}]})") == "jobs.json:1:30: \"state\": a list, not a string");
    CHECK(err(R"({"jobs": [{"id": 7, "userid": [5002]}]})") == "jobs.json:1:31: \"userid\": a list, not a number");
    CHECK(err(R"({"jobs": [{"id": "7"}]})") == "jobs.json:1:18: \"id\": a string, not a number");
    CHECK(err(R"({"jobs": [{"id": 18446744073709551616}]})") == "jobs.json:1:18: \"id\": '18446744073709551616' is not a job id");
    CHECK(err(R"({"jobs": [{"id": 7, "t_submit": 1e308}]})") ==
          "jobs.json:1:33: \"t_submit\": '1e308' is not a time in epoch seconds from 1970 to 9999");
    // A job listed twice: refused at the second entry, naming the first.
    CHECK(err("{\"jobs\": [{\"id\": 7},\n {\"id\": 8},\n {\"id\": 7}]}") == "jobs.json:3:2: id: job 7 is listed twice (first on line 1)");
    // Fields flux jobs prints that mfprio does not read keep whatever type they have.
    const auto ok = flux_jobs_from(R"({"jobs": [{"id": 7, "annotations": {"sched": {}}, "dependencies": [], "name": 3}]})", "jobs.json");
    REQUIRE(ok);
    CHECK(ok->front().id == 7);
}

TEST_CASE("flux readers: list-factors names each of flux-accounting's factors once, with a weight") {
    using mfprio::inputs::flux_factors_from;
    const auto err = [](std::string_view text) {
        const auto w = flux_factors_from(text, "factors.json");
        REQUIRE_FALSE(w);
        return w.error().to_string();
    };
    const auto w = flux_factors_from(R"([{"factor": "fairshare", "weight": 100000}, {"factor": "urgency", "weight": 1000}])", "f");
    REQUIRE(w);
    CHECK(w->fairshare == 100000);
    CHECK(w->urgency == 1000);
    CHECK(err(R"([{"factor": "fairshar", "weight": 5}])") ==
          "factors.json:1:13: \"factor\": 'fairshar' is not a factor of flux-accounting (fairshare, queue, bank, urgency) "
          "(did you mean fairshare?)");
    CHECK(err(R"([{"factor": 3, "weight": 5}])") == "factors.json:1:13: \"factor\": a number, not a string");
    CHECK(err(R"([{"factor": null, "weight": 5}])") == "factors.json:1:13: \"factor\": null, not a string");
    CHECK(err("[{\"weight\": 5}]") == "factors.json:1:2: an entry without \"factor\"");
    CHECK(err("[{\"factor\": \"queue\"}]") == "factors.json:1:2: an entry without \"weight\"");
    CHECK(err("[{\"factor\": \"queue\", \"weight\": 1},\n {\"factor\": \"queue\", \"weight\": 2}]") ==
          "factors.json:2:2: factor: 'queue' is listed twice");
}

TEST_CASE("flux readers: a JSON text that is not JSON is refused where it stops being JSON") {
    using mfprio::inputs::flux_jobs_from;
    const auto err = [](std::string_view text) {
        const auto j = flux_jobs_from(text, "jobs.json");
        REQUIRE_FALSE(j);
        return j.error().to_string();
    };
    // Cut short: at the end of what is there (line 2, after its 10 characters).
    CHECK(err("{\"jobs\": [\n {\"id\": 7,") == "jobs.json:2:11: not valid JSON: JSON document ended early in the middle of an object or array.");
    // Invalid UTF-8 (a lone 0xff) in a string: at that byte, column 13.
    CHECK(err("{\"jobs\": [{\"\xff\": 1}]}").starts_with("jobs.json:1:13: not valid JSON: "));
    // A raw tab inside a string: at the tab, column 23 of line 2.
    CHECK(err("{\"jobs\": [\n{\"id\": 7, \"queue\": \"ba\tch\"}]}").starts_with("jobs.json:2:23: not valid JSON: "));
    // A stray '}' after the document: at it.
    CHECK(err("{\"jobs\": []}\n}\n") == "jobs.json:2:1: more after the JSON document");
}

TEST_CASE("flux bundles: meta's keys once each, times within 1970-9999, previous= found from any spelling of the bundle") {
    namespace fs = std::filesystem;
    const std::string root = scratch_root("mfprio_flux_meta");
    const std::string jobs = "{\"jobs\": []}\n";
    const auto err = history_error;
    const auto twice = write_bundle(root, "twice", {{"flux_jobs.json", jobs}, {"meta", "priority_update=1\ncaptured=2\npriority_update=3\n"}});
    CHECK(err(twice) == twice + "/meta:3:1: priority_update: given twice (first on line 1)");
    const auto huge = write_bundle(root, "huge", {{"flux_jobs.json", jobs}, {"meta", "priority_update=1e308\n"}});
    CHECK(err(huge) == huge + "/meta:1:17: priority_update: '1e308' is not a time in epoch seconds from 1970 to 9999");
    const auto lost = write_bundle(root, "lost", {{"flux_jobs.json", jobs}, {"meta", "captured=1\nprevious=gone\n"}});
    CHECK(err(lost) == lost + "/meta:2:10: previous: 'gone' names no bundle beside this one (" + root + "/gone is not a directory)");
    // --from ., --from DIR/. and --from DIR/ find the previous bundle beside DIR.
    write_bundle(root, "before", {{"flux_jobs.json", jobs}, {"meta", "captured=1\n"}});
    const auto after = write_bundle(root, "after", {{"flux_jobs.json", jobs}, {"meta", "captured=2\nprevious=before\n"}});
    const fs::path cwd = fs::current_path();
    fs::current_path(after);
    CHECK(mfprio::inputs::read_flux_history("."));
    fs::current_path(root);
    CHECK(mfprio::inputs::read_flux_history("after/."));
    CHECK(mfprio::inputs::read_flux_history("after/"));
    CHECK(mfprio::inputs::read_flux_history("./after"));
    fs::current_path(cwd);
    fs::remove_all(root);
}

TEST_CASE("squeue --json read from a copy (no padding after the text) locates its errors as in place") {
    // The same text read in place (64 bytes readable after it) and from simdjson's padded
    // copy (none): every location counted in the text, not in the copy.
    const std::string text = "{\"jobs\": [\n{\"job_id\": 1}, 5]}";
    const std::string padded = text + std::string(64, ' ');
    for (const std::size_t after : {std::size_t{0}, std::size_t{64}}) {
        CAPTURE(after);
        const auto t = mfprio::inputs::squeue_json_table(std::string_view(padded.data(), text.size()), after, "s.json");
        REQUIRE_FALSE(t);
        CHECK(t.error().to_string() == "s.json:2:16: jobs: an entry of \"jobs\" is not an object");
        const std::string trailing = "{\"jobs\": []}}";
        const std::string trailing_padded = trailing + std::string(64, ' ');
        const auto u = mfprio::inputs::squeue_json_table(std::string_view(trailing_padded.data(), trailing.size()), after, "s.json");
        REQUIRE_FALSE(u);
        CHECK(u.error().to_string() == "s.json:1:13: jobs: more after the JSON document (one `squeue --json` output a file)");
    }
}

TEST_CASE("flux: queue --live names the flux command whose output is wrong, not its deleted scratch file") {
    namespace fs = std::filesystem;
    const std::string dir = fs::temp_directory_path().string() + "/mfprio-fake-flux-" + std::to_string(::getpid());
    fs::create_directories(dir);
    // A flux without flux-accounting's plugin whose jobs table (what `flux jobs -o` prints)
    // holds an urgency out of range. (Its `flux python` does what mfprio's capture program does: each command's
    // output in the scratch directory given, then `FILE STATUS` per command.)
    std::ofstream(dir + "/flux") << "#!/bin/sh\n"
                                    "case \"$1\" in\n"
                                    "  python) s=$4\n"
                                    "    echo .priority-default >\"$s/jobtap_list.txt.out\"\n"
                                    "    printf 'JOBID UID URG PRI STATE QUEUE BANK T_SUBMIT\\n7 5001 32  SCHED   1.5\\n' >\"$s/flux_jobs_table.txt.out\"\n"
                                    "    for f in jobtap_list.txt flux_jobs_table.txt; do : >>\"$s/$f.err\"; echo \"$f 0\"; done ;;\n"
                                    "  *) : ;;\n"
                                    "esac\n";
    fs::permissions(dir + "/flux", fs::perms::owner_all);
    const std::string saved = std::getenv("PATH") ? std::getenv("PATH") : "";
    setenv("PATH", (dir + ":" + saved).c_str(), 1);
    const std::vector<std::string_view> args{"--live"};
    const auto o = mfprio::cli::run_queue(args);
    setenv("PATH", saved.c_str(), 1);
    CHECK(o.status == 65);
    // Line 2, column 8: the URG field (after "7 5001 ").
    CHECK(o.err == "mfprio: `flux python -c PROGRAM (mfprio's capture program: the jobs as `flux jobs -A -c 0 -o` "
                   "prints the fields its header names)` output:2:8: URG: '32' is not an urgency from 0 to 31\n");
    fs::remove_all(dir);
}

TEST_CASE("flux --set: fair-share recomputed as update-fshare reads the database (inactive banks and associations left out)") {
    // flux-accounting 0.60, src/fairness/reader/data_reader_db.cpp (get_sub_banks): an
    // association with active = 0 is not added to the tree, nor a sub-bank with active = 0;
    // update_fairshare_values writes only the tree's associations, so one left out keeps the
    // fair-share stored before. Compared here with the same database without them.
    auto weights = mfprio::inputs::read_flux_history(flux_dir("weights"));
    REQUIRE(weights);
    const auto db = weights->updates.back().db;
    REQUIRE(db.users.size() >= 3);
    // One association made inactive; the same database without it.
    auto inactive = db;
    inactive.users[1].active = false;
    inactive.users[1].fairshare = 0.123456; // its stored value: kept
    auto without = db;
    without.users.erase(without.users.begin() + 1);
    const auto fs_inactive = mfprio::config::flux_fairshare_as_stored(inactive);
    const auto fs_without = mfprio::config::flux_fairshare_as_stored(without);
    CHECK(fs_inactive[1] == 0.123456);
    for (std::size_t u = 0, w = 0; u < db.users.size(); ++u) {
        if (u == 1) continue;
        CAPTURE(u);
        CHECK(fs_inactive[u] == fs_without[w++]);
    }
    // A no-op --set (a user's shares set to what they are) moves no fair-share of the
    // database as captured.
    auto same = db;
    CHECK(mfprio::config::apply_flux_change(same, "shares." + db.users[0].username + "@" + db.users[0].bank,
                                            std::to_string(db.users[0].shares)) == "");
    for (std::size_t u = 0; u < db.users.size(); ++u) {
        CAPTURE(u);
        CHECK(same.users[u].fairshare == db.users[u].fairshare);
    }
    // A bank's shares: the key, its bounds, an unknown bank.
    auto banks = db;
    const std::string bank = db.banks.back().name;
    CHECK(mfprio::config::apply_flux_change(banks, "bankshares." + bank, "0") ==
          "bankshares." + bank + ": '0' is not a number of shares from 1 to 2147483647");
    CHECK(mfprio::config::apply_flux_change(banks, "bankshares.nosuch", "3") == "no bank 'nosuch'");
    CHECK(mfprio::config::apply_flux_change(banks, "bankshares." + bank, "7") == "");
    CHECK(banks.banks.back().shares == 7);
}

TEST_CASE("flux: a pending job whose user and bank no database holds is listed, not dropped in silence") {
    namespace fs = std::filesystem;
    const std::string root = fs::temp_directory_path().string() + "/mfprio_flux_unknown_" + std::to_string(::getpid());
    fs::remove_all(root);
    // The weights bundle alone (its previous= dropped), one job's user id made one that
    // flux-accounting's users table does not hold.
    const auto listed = mfprio::inputs::read_manifest_files(flux_dir("weights"));
    REQUIRE(listed);
    std::vector<std::pair<std::string, std::string>> files;
    std::string changed_id;
    for (auto [name, text] : *listed) {
        if (name == "meta") {
            std::string kept;
            for (const auto& l : mfprio::text::split_lines(text))
                if (!l.text.starts_with("previous=")) kept += std::string(l.text) + "\n";
            text = kept;
        }
        if (name == "flux_jobs.json") {
            const std::size_t at = text.find("\"userid\": ");
            REQUIRE(at != std::string::npos);
            const std::size_t end = text.find_first_of(",}", at);
            text.replace(at, end - at, "\"userid\": 4242");
            const std::size_t id = text.rfind("\"id\": ", at);
            REQUIRE(id != std::string::npos);
            changed_id = text.substr(id + 6, text.find_first_of(",}", id) - id - 6);
        }
        files.emplace_back(name, text);
    }
    const std::string dir = write_bundle(root, "unknown_user", files);
    const std::vector<std::string_view> args{"--from", dir};
    const auto o = mfprio::cli::run_queue(args);
    CHECK(o.status == 0);
    const std::string f58 = mfprio::cli::flux_f58(std::stoull(changed_id));
    CHECK(o.err.find("mfprio queue: warning: job " + f58 + " (user ") != std::string::npos);
    CHECK(o.err.find("its user has no association in that bank in the database flux-accounting's plugin received") !=
          std::string::npos);
    CHECK(o.out.find(f58 + " ") == std::string::npos); // not in the table
    fs::remove_all(root);
}

namespace {

// tests/live/flux_admin.sh's bundles: 330 jobs of 13 users in banks three levels deep, then the
// administrator's everyday operations, one bundle after each (the bundle's meta says which).
const char* const admin_scenarios[] = {"admin_base",     "admin_urgency", "admin_update",   "admin_after",  "admin_delete",
                                       "admin_disabled", "admin_set",     "admin_reloaded", "admin_reload", "admin_reload2"};

/// A copy of bundle `name` (and the bundles before it) in a scratch directory, with `edit`
/// applied to the copy of `name` (its manifest rewritten), for a test that takes something out.
std::string edited_copy(const std::string& name, const std::function<void(const std::string& dir)>& edit) {
    namespace fs = std::filesystem;
    const std::string root = fs::temp_directory_path().string() + "/mfprio-flux-admin-" + std::to_string(::getpid());
    fs::remove_all(root);
    fs::create_directories(root);
    for (const char* n : admin_scenarios) fs::copy(flux_dir(n), root + "/" + n);
    edit(root + "/" + name);
    for (const char* n : admin_scenarios) {
        std::vector<std::pair<std::string, std::string>> files;
        for (const auto& e : fs::directory_iterator(root + "/" + n)) {
            const std::string f = e.path().filename().string();
            if (f == "manifest") continue;
            auto t = mfprio::text::read_text_file(e.path().string());
            REQUIRE(t);
            files.emplace_back(f, *t);
        }
        std::sort(files.begin(), files.end());
        std::vector<std::pair<std::string, std::string_view>> listed(files.begin(), files.end());
        std::ofstream(root + "/" + n + "/manifest", std::ios::binary) << mfprio::inputs::manifest_text(listed);
    }
    return root + "/" + name;
}

} // namespace

TEST_CASE("flux administration: urgency, flux update, delete-user, a disabled association and a reload replay exactly") {
    // Every pending job's priority and the queue order are what the instance printed
    // (flux_jobs.json, flux_jobs.txt) after each operation.
    for (const char* name : admin_scenarios) {
        CAPTURE(name);
        auto h = mfprio::inputs::read_flux_history(flux_dir(name));
        REQUIRE(h);
        REQUIRE(h->latest.eventlogs);
        const auto ours = replay(*h);
        std::size_t pending = 0;
        for (const auto& j : h->latest.jobs) pending += j.pending() ? 1 : 0;
        CHECK(pending > 300);
        CHECK(differences(*h, ours) == 0);
        const auto order = mfprio::config::flux_queue_order(h->latest.jobs, ours);
        std::vector<std::uint64_t> ids;
        for (const std::size_t k : order) ids.push_back(h->latest.jobs[k].id);
        CHECK(ids == flux_order(flux_dir(name) + "/flux_jobs.txt"));
        // And through the tool, as an administrator runs it.
        const std::string dir = flux_dir(name);
        const std::vector<std::string_view> args{"--from", dir, "--check"};
        const auto o = mfprio::cli::run_queue(args);
        CHECK(o.status == 0);
        CHECK(o.out.ends_with(" 0 differ, queue order identical\n"));
    }
}

TEST_CASE("flux administration: --set predicts the next update whenever the bundle was captured") {
    // tests/live/flux_admin.sh: judy's shares in chem set to 7 after admin_disabled, then
    // update-fshare and a priority-update; admin_set holds what Flux computed. The predicted
    // update comes a second after the capture; here the capture is moved to a second after the
    // middle of the last real update's pass, so that the memos of half that pass fall near the
    // predicted update's time. They are the earlier pass's, not the predicted one's: the
    // prediction computes every job (a live run captured such a bundle, where the jobs whose
    // memos came first in the pass were predicted to keep their priorities).
    std::vector<double> memos; // every memo of the pending jobs' eventlogs
    {
        const auto h = mfprio::inputs::read_flux_history(flux_dir("admin_disabled"));
        REQUIRE(h);
        for (const auto& j : h->latest.jobs) memos.insert(memos.end(), j.computed.begin(), j.computed.end());
    }
    std::sort(memos.begin(), memos.end());
    REQUIRE(memos.size() > 300);
    // The last pass: its memos, the last of all, within a second of each other.
    std::size_t first = memos.size() - 1;
    while (first > 0 && memos.back() - memos[first - 1] < 1.0) --first;
    REQUIRE(memos.size() - first > 300);
    const double middle = memos[first + (memos.size() - first) / 2];
    const std::string dir = edited_copy("admin_disabled", [&](const std::string& d) {
        auto t = mfprio::text::read_text_file(d + "/meta");
        REQUIRE(t);
        std::string meta;
        for (const auto& l : mfprio::text::split_lines(*t)) {
            char captured[64];
            std::snprintf(captured, sizeof captured, "captured=%.6f", middle + 1.0);
            meta += l.text.starts_with("captured=") ? std::string(captured) : std::string(l.text);
            meta += "\n";
        }
        std::ofstream(d + "/meta", std::ios::binary) << meta;
    });
    CHECK(whatif_priorities({"--from", dir, "--set", "shares.judy@chem=7"}) == printed("admin_set"));
    CHECK(whatif_priorities({"--from", flux_dir("admin_disabled"), "--set", "shares.judy@chem=7"}) == printed("admin_set"));
    std::filesystem::remove_all(std::filesystem::path(dir).parent_path());
}

TEST_CASE("flux administration: what the eventlogs and flux dmesg carry is what makes each operation exact") {
    // Without each piece, the replay differs from what Flux printed (these checks fail if the
    // replay stopped reading it).
    const auto differs_without = [](const std::string& name, const std::function<void(const std::string&)>& edit) {
        const std::string dir = edited_copy(name, edit);
        auto h = mfprio::inputs::read_flux_history(dir);
        REQUIRE(h);
        const std::size_t n = differences(*h, replay(*h));
        std::filesystem::remove_all(std::filesystem::path(dir).parent_path());
        return n;
    };
    const auto without_events = [](const std::string& names) {
        return [names](const std::string& dir) {
            // Each eventlog line without the events of the names given: an event is the
            // balanced {...} that starts with "timestamp" (Flux's event names and contexts
            // here hold no braces in strings).
            auto t = mfprio::text::read_text_file(dir + "/eventlogs.json");
            REQUIRE(t);
            std::string out;
            for (const auto& l : mfprio::text::split_lines(*t)) {
                const std::string line(l.text);
                std::string kept;
                std::size_t pos = 0;
                for (std::size_t at = line.find("{\"timestamp\"", pos); at != std::string::npos; at = line.find("{\"timestamp\"", pos)) {
                    std::size_t end = at;
                    for (int depth = 0; end < line.size(); ++end) {
                        depth += line[end] == '{' ? 1 : line[end] == '}' ? -1 : 0;
                        if (depth == 0) break;
                    }
                    const std::size_t name_at = line.find("\"name\":\"", at) + 8;
                    const std::string event = line.substr(name_at, line.find('"', name_at) - name_at);
                    kept += line.substr(pos, at - pos);
                    if (names.find("|" + event + "|") == std::string::npos) kept += line.substr(at, end + 1 - at);
                    pos = end + 1;
                }
                kept += line.substr(pos);
                // The commas left between and around the events taken out.
                for (std::size_t c; (c = kept.find(",,")) != std::string::npos;) kept.erase(c, 1);
                for (std::size_t c; (c = kept.find("[,")) != std::string::npos;) kept.erase(c + 1, 1);
                for (std::size_t c; (c = kept.find(",]")) != std::string::npos;) kept.erase(c, 1);
                out += kept + "\n";
            }
            std::ofstream(dir + "/eventlogs.json", std::ios::binary) << out;
        };
    };
    // flux job urgency: the job recomputed at once with its pair's factors of the time.
    CHECK(differs_without("admin_urgency", without_events("|urgency|")) > 0);
    // flux update queue=: the pair's queue factor changed, the job recomputed.
    CHECK(differs_without("admin_update", without_events("|jobspec-update|")) > 0);
    // A reload: without flux dmesg's record of it (in every bundle of the history) the pairs
    // keep their caches.
    CHECK(differs_without("admin_reload", [](const std::string& dir) {
              for (const char* n : admin_scenarios) std::filesystem::remove(dir + "/../" + n + "/flux_dmesg.txt");
          }) > 0);
    // The pass after the reload in the order the memos show.
    CHECK(differs_without("admin_reload2", without_events("|memo|")) > 0);
}

TEST_CASE("flux administration: one capture without history (what --live takes) explains what Flux holds") {
    // Each bundle as `queue --live` captures it: no priority_update= and no previous bundle;
    // the updates come from the eventlogs' memos, the loads from flux dmesg, the database is
    // the one the bundle holds.
    for (const char* name : admin_scenarios) {
        CAPTURE(name);
        const std::string dir = edited_copy(name, [](const std::string& d) {
            auto meta = mfprio::text::read_text_file(d + "/meta");
            REQUIRE(meta);
            std::string kept;
            for (const auto& l : mfprio::text::split_lines(*meta))
                if (!l.text.starts_with("priority_update=") && !l.text.starts_with("previous=")) kept += std::string(l.text) + "\n";
            std::ofstream(d + "/meta", std::ios::binary) << kept;
        });
        auto h = mfprio::inputs::read_flux_history(dir);
        REQUIRE(h);
        CHECK(h->latest.passes);
        CHECK(differences(*h, replay(*h)) == 0);
        // After the reload frank's association (deleted from web) is in no table: neither the
        // database nor the plugin's query; his jobs' memos give his fair-share.
        if (std::string_view(name) == "admin_reloaded") {
            const auto r = mfprio::config::replay_flux_plugin(h->updates, h->latest.jobs, {}, h->held, h->plugin_history());
            std::size_t from_memo = 0;
            for (const auto& p : r) from_memo += p && p->fairshare_from_memo ? 1 : 0;
            CHECK(from_memo > 0);
        }
        std::filesystem::remove_all(std::filesystem::path(dir).parent_path());
    }
}

TEST_CASE("flux administration: a deleted association keeps its jobs' priorities, as the plugin keeps it") {
    // frank was deleted from web with --force before admin_delete; the plugin keeps his entry
    // (flux jobtap query still lists it) and computes his jobs, new ones too.
    auto h = mfprio::inputs::read_flux_history(flux_dir("admin_delete"));
    REQUIRE(h);
    const auto r = mfprio::config::replay_flux_plugin(h->updates, h->latest.jobs, {}, h->held, h->plugin_history());
    std::size_t frank = 0;
    for (std::size_t k = 0; k < r.size(); ++k) {
        const auto& j = h->latest.jobs[k];
        if (!j.pending() || j.userid != 5006) continue;
        ++frank;
        REQUIRE(r[k]);
        CHECK(r[k]->pair_deleted);
        CHECK(r[k]->value.value == *j.priority);
    }
    CHECK(frank > 10);
    const std::string dir = flux_dir("admin_delete");
    const std::vector<std::string_view> args{"--from", dir, "--check"};
    CHECK(mfprio::cli::run_queue(args).err.empty()); // no job left unexplained
}

TEST_CASE("flux administration: --next-update predicts, --check compares with what Flux holds") {
    // admin_update: six jobs moved to other queues; their pairs' other jobs change only at the
    // next priority-update, which admin_after captured.
    const std::string update = flux_dir("admin_update");
    const std::vector<std::string_view> next{"--from", update, "--next-update"};
    const auto o = mfprio::cli::run_queue(next);
    REQUIRE(o.status == 0);
    std::vector<std::pair<std::string, std::string>> predicted;
    std::size_t line = 0;
    for (const auto& l : mfprio::text::split_lines(o.out)) {
        if (++line == 1) continue; // the column names
        std::vector<std::string> f;
        for (const auto w : mfprio::text::split(mfprio::text::trim(l.text), ' '))
            if (!w.empty()) f.emplace_back(w);
        REQUIRE(f.size() >= 4);
        predicted.emplace_back(f[0], f[3]);
    }
    std::sort(predicted.begin(), predicted.end());
    CHECK(predicted == printed("admin_after"));
    CHECK(predicted != printed("admin_update"));
    const std::vector<std::string_view> both{"--from", update, "--next-update", "--check"};
    CHECK(mfprio::cli::run_queue(both).status == 2);
}

TEST_CASE("flux readers: eventlogs.json and flux dmesg, bad values refused at their line and column") {
    const std::string f = "eventlogs.json";
    // A line as flux_admin.sh writes it.
    auto ok = mfprio::inputs::read_flux_eventlogs(
        "{\"id\":7,\"submitted\":{\"bank\":\"web\",\"queue\":\"urgent\"},\"eventlog\":["
        "{\"timestamp\":100.5,\"name\":\"submit\",\"context\":{\"userid\":5001,\"urgency\":12,\"flags\":0,\"version\":1}},"
        "{\"timestamp\":101,\"name\":\"memo\",\"context\":{\"fairshare\":0.5}},"
        "{\"timestamp\":102,\"name\":\"urgency\",\"context\":{\"userid\":0,\"urgency\":31}},"
        "{\"timestamp\":103,\"name\":\"jobspec-update\",\"context\":{\"attributes.system.queue\":\"debug\",\"attributes.system.bank\":\"ml\"}}]}\r\n",
        f);
    REQUIRE(ok);
    REQUIRE(ok->size() == 1);
    const auto& e = ok->front();
    CHECK(e.id == 7);
    CHECK(e.submit_urgency == 12);
    CHECK(e.submit_bank == "web");
    CHECK(e.submit_queue == "urgent");
    REQUIRE(e.computed.size() == 1);
    CHECK(e.computed[0] == 101);
    REQUIRE(e.events.size() == 3);
    CHECK(e.events[0].what == mfprio::config::flux_job_event::kind::urgency);
    CHECK(e.events[0].urgency == 31);
    CHECK(e.events[1].what == mfprio::config::flux_job_event::kind::bank); // the bank first, as job_updated takes it
    CHECK(e.events[1].value == "ml");
    CHECK(e.events[2].value == "debug");
    const auto error = [&](std::string_view text) {
        auto r = mfprio::inputs::read_flux_eventlogs(text, f);
        REQUIRE_FALSE(r);
        return r.error().to_string();
    };
    // Columns counted by hand: the value's first byte.
    CHECK(error("{\"id\":true,\"eventlog\":[]}") == "eventlogs.json:1:7: \"id\": not a Flux job id (a positive integer below 2^64)");
    CHECK(error("\n{\"id\":1,\"eventlog\":[{\"timestamp\":-1,\"name\":\"memo\"}]}") ==
          "eventlogs.json:2:34: \"timestamp\": not a time in epoch seconds from 1970 to 9999");
    CHECK(error("{\"id\":1,\"eventlog\":[{\"timestamp\":1,\"name\":\"urgency\",\"context\":{\"urgency\":32}}]}") ==
          "eventlogs.json:1:74: \"urgency\": not an urgency from 0 to 31");
    CHECK(error("{\"id\":1,\"eventlog\":[{\"timestamp\":1,\"name\":\"urgency\",\"context\":{}}]}") ==
          "eventlogs.json:1:21: an urgency event without its urgency");
    CHECK(error("{\"id\":1,\"eventlog\":[]}\n{\"id\":1,\"eventlog\":[]}") == "eventlogs.json:2:1: job 1 twice (first on line 1)");
    CHECK(error("{\"id\":1,\"eventlog\":[{\"timestamp\":1,") ==
          "eventlogs.json:1:36: not valid JSON: JSON document ended early in the middle of an object or array.");
    CHECK(error("{\"id\":1}") == "eventlogs.json:1:1: an eventlog line needs \"id\" and \"eventlog\"");
    CHECK(error("{\"id\":1,\"submitted\":{\"bank\":5},\"eventlog\":[]}") == "eventlogs.json:1:29: \"bank\": not a string");

    // flux dmesg: the plugin's loads; other lines skipped.
    auto loads = mfprio::inputs::read_flux_plugin_loads(
        "2026-11-28T14:29:44.660469Z job-manager.debug[0]: jobtap plugin .history registered method job-manager.history.get\n"
        "2026-11-28T14:29:46.022097Z job-manager.debug[0]: jobtap plugin mf_priority registered method job-manager.mf_priority.rec_update\n"
        "2026-11-28T14:29:46.022132Z job-manager.debug[0]: jobtap plugin mf_priority registered method job-manager.mf_priority.reprioritize\n",
        "flux_dmesg.txt");
    REQUIRE(loads);
    REQUIRE(loads->size() == 1);
    // 2026-11-28T14:29:46.022097Z: date -u -d 2026-11-28T14:29:46Z +%s is 1795876186.
    CHECK(loads->front() == doctest::Approx(1795876186.022097).epsilon(1e-15));
    auto bad = mfprio::inputs::read_flux_plugin_loads(
        "\n2026-02-30T14:29:46.022097Z job-manager.debug[0]: jobtap plugin mf_priority registered method job-manager.mf_priority.rec_update\n",
        "flux_dmesg.txt");
    REQUIRE_FALSE(bad);
    CHECK(bad.error().to_string() == "flux_dmesg.txt:2:1: '2026-02-30T14:29:46.022097Z' is not a date");
}

TEST_CASE("flux: jobs submitted before the plugin received any data are held, then found at the first update") {
    // tests/live/flux_held.sh: flux-accounting's plugin loaded and its database filled, no
    // priority-update yet; 130 jobs held by the placeholder association (no priority), the
    // first update (each job finds its pair, sets the pair's queue factor to its own queue and
    // is moved to its user's default bank), 40 jobs computed as they arrive. held_live is the
    // last moment as `queue --live --save` keeps it: no history, the jobs as `flux jobs -o`
    // prints them, only jobs with a jobspec-update carrying their submitted bank and queue.
    for (const char* name : {"held_wait", "held_first", "held_after", "held_live"}) {
        CAPTURE(name);
        auto h = mfprio::inputs::read_flux_history(flux_dir(name));
        REQUIRE(h);
        std::size_t pending = 0, without = 0;
        for (const auto& j : h->latest.jobs) {
            pending += j.pending() ? 1 : 0;
            without += j.pending() && !j.priority ? 1 : 0;
        }
        CHECK(pending >= 130);
        CHECK(without == (std::string_view(name) == "held_wait" ? pending : 0));
        CHECK(differences(*h, replay(*h)) == 0);
        const std::string dir = flux_dir(name);
        const std::vector<std::string_view> args{"--from", dir, "--check"};
        const auto o = mfprio::cli::run_queue(args);
        CHECK(o.status == 0);
        CHECK(o.out.ends_with(" 0 differ, queue order identical\n"));
    }
    // `flux jobs -o` prints an empty PRI for a job without a priority.
    const auto table = mfprio::inputs::flux_jobs_text_from("JOBID UID URG PRI STATE\n7 5001 16  PRIORITY\n", "t");
    REQUIRE(table);
    CHECK(!(*table)[0].priority);
    // The same capture with a memo just after each submission, as if the plugin had computed
    // every job as it arrived (the database received before them): the replay differs.
    namespace fs = std::filesystem;
    const std::string root = fs::temp_directory_path().string() + "/mfprio-flux-held-" + std::to_string(::getpid());
    fs::remove_all(root);
    std::vector<std::pair<std::string, std::string>> files;
    for (const auto& e : fs::directory_iterator(flux_dir("held_live"))) {
        const std::string f = e.path().filename().string();
        if (f == "manifest") continue;
        auto t = mfprio::text::read_text_file(e.path().string());
        REQUIRE(t);
        if (f == "eventlogs.json") {
            std::string out;
            for (const auto& l : mfprio::text::split_lines(*t)) {
                std::string line(l.text);
                const std::string key = "{\"timestamp\":";
                const std::size_t at = line.find(key);
                REQUIRE(at != std::string::npos);
                const double submitted = std::stod(line.substr(at + key.size()));
                const std::size_t end = line.find("}}", at);
                REQUIRE(end != std::string::npos);
                char memo[128];
                std::snprintf(memo, sizeof memo, ",{\"timestamp\":%.6f,\"name\":\"memo\",\"context\":{\"fairshare\":0.5}}", submitted + 0.03);
                line.insert(end + 2, memo);
                out += line + "\n";
            }
            *t = out;
        }
        files.emplace_back(f, *t);
    }
    const std::string dir = write_bundle(root, "computed", files);
    auto h = mfprio::inputs::read_flux_history(dir);
    REQUIRE(h);
    CHECK(differences(*h, replay(*h)) > 0);
    fs::remove_all(root);
}

TEST_CASE("flux library: what Flux holds, the next update, --set and --check without the tool") {
    // Expected values: the priorities Flux printed in the bundles (tests/live/flux.sh captured
    // admin_update, then ran flux account-priority-update and captured admin_after; `default`
    // and `weights` hold flux-accounting's database before and after the weight edits).
    auto update = mfprio::inputs::read_flux_history(flux_dir("admin_update"));
    REQUIRE(update);
    const auto& jobs = update->latest.jobs;
    const auto now = mfprio::inputs::compute_flux_priorities(*update, {});
    REQUIRE(now.priority.size() == jobs.size());
    CHECK(differences(*update, now.priority) == 0);
    auto c = mfprio::report::check_flux(jobs, now.priority, update->latest.expected_order);
    CHECK(c.differ == 0);
    CHECK(c.compared > 300);
    CHECK(c.text.ends_with(" pending jobs compared, 0 differ, queue order identical\n"));

    // --check says "differs" for one job whose priority mfprio would compute otherwise, and
    // for an order Flux did not list.
    auto wrong = now.priority;
    std::size_t changed = 0;
    while (!jobs[changed].pending() || !wrong[changed]) ++changed;
    *wrong[changed] += 1;
    c = mfprio::report::check_flux(jobs, wrong, update->latest.expected_order);
    CHECK(c.differ >= 1);
    CHECK(c.text.find("job " + mfprio::report::flux_f58(jobs[changed].id) + " (") != std::string::npos);
    auto order = update->latest.expected_order;
    REQUIRE(order);
    REQUIRE(order->size() > 2);
    std::swap(order->front(), order->back());
    CHECK(mfprio::report::check_flux(jobs, now.priority, order).text.find("queue order differs") != std::string::npos);

    // The next priority-update: what Flux printed after it.
    auto after = mfprio::inputs::read_flux_history(flux_dir("admin_after"));
    REQUIRE(after);
    const auto next = mfprio::inputs::compute_flux_priorities(*update, {}, true);
    std::size_t matched = 0, moved = 0;
    for (std::size_t k = 0; k < jobs.size(); ++k) {
        if (!jobs[k].pending()) continue;
        for (const auto& j : after->latest.jobs)
            if (j.id == jobs[k].id && j.pending()) {
                CHECK(next.priority[k] == j.priority);
                ++matched;
                moved += next.priority[k] != now.priority[k] ? 1 : 0;
            }
    }
    CHECK(matched > 300);
    CHECK(moved > 0);

    // --set on the bundle before the weight edits gives what Flux printed after them.
    auto before = mfprio::inputs::read_flux_history(flux_dir("default"));
    auto weights = mfprio::inputs::read_flux_history(flux_dir("weights"));
    REQUIRE(before);
    REQUIRE(weights);
    const std::vector<std::pair<std::string, std::string>> edits{
        {"weight.fairshare", "50000"}, {"weight.queue", "20000"}, {"weight.bank", "1000"}, {"weight.urgency", "2000"}};
    const auto predicted = mfprio::inputs::flux_whatif(*before, edits, {}, false);
    REQUIRE(predicted.error.empty());
    std::size_t compared = 0;
    for (std::size_t k = 0; k < before->latest.jobs.size(); ++k)
        for (const auto& j : weights->latest.jobs)
            if (j.id == before->latest.jobs[k].id && j.pending()) {
                CHECK(predicted.priority[k] == j.priority);
                ++compared;
            }
    CHECK(compared >= 20);
    const auto table = mfprio::report::render_flux_whatif(before->latest.jobs, mfprio::inputs::compute_flux_priorities(*before, {}).priority,
                                                          predicted.priority, edits, false);
    CHECK(table.starts_with("whatif: weight.fairshare=50000, weight.queue=20000, weight.bank=1000, weight.urgency=2000 "
                            "(after flux account-priority-update)\n"));
    // A change that cannot be made says why and computes nothing.
    const std::vector<std::pair<std::string, std::string>> bad{{"queue.nosuch", "5"}};
    const auto refused = mfprio::inputs::flux_whatif(*before, bad, {}, false);
    CHECK(refused.error == "no queue 'nosuch' in flux-accounting's queue table");
    CHECK(refused.priority.empty());
}

TEST_CASE("flux replay: when the next update comes, and which update is the latest") {
    // A second after the latest of the jobs' submissions, their events and the capture time,
    // and after the time given; the latest update is the one of the greatest time, wherever
    // it is listed.
    std::vector<mfprio::config::flux_job_row> jobs(2);
    jobs[0].t_submit = 100;
    jobs[1].t_submit = 250.5;
    mfprio::config::flux_capture c{.jobs = jobs, .captured = 200.0};
    CHECK(mfprio::config::flux_time_after(c, 0) == 251.5);
    CHECK(mfprio::config::flux_time_after(c, 300) == 301);
    c.captured = 400.0;
    CHECK(mfprio::config::flux_time_after(c, 0) == 401);
    jobs[0].events.push_back({});
    jobs[0].events.back().time = 500;
    CHECK(mfprio::config::flux_time_after(c, 0) == 501);
    std::vector<mfprio::config::flux_update> updates(3);
    updates[0].time = 5;
    updates[1].time = 9;
    updates[2].time = 7;
    CHECK(&mfprio::config::latest_flux_update(updates) == &updates[1]);
}
