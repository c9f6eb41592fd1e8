#pragma once
// `mfprio queue`: a runtime-configured (dynamic) engine over a jobs table, printed as seed
// 003's sprio-like table.

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <mfprio/config/assoc_table.hpp>
#include <mfprio/config/flux_model.hpp>
#include <mfprio/config/flux_plugin.hpp>
#include <mfprio/config/flux_tables.hpp>
#include <mfprio/inputs/flux.hpp>
#include <mfprio/report/flux.hpp>
#include <mfprio/config/qos_table.hpp>
#include <mfprio/config/slurm_conf.hpp>
#include <mfprio/config/table.hpp>
#include <mfprio/fairshare/compute.hpp>
#include <mfprio/flux/order.hpp>
#include <mfprio/queue/builtin.hpp>
#include <mfprio/queue/policy.hpp>

#include "commands.hpp"

namespace mfprio::cli {

using report::explain_flux_job;
using report::flux_f58;

/// `mfprio queue`'s options: its --help lists them, its parser takes them and no other.
inline constexpr option_row queue_option_rows[] = {
    {"--policy P", "a policy file (`name = weight` lines, `name.option = value`,\n"
                   "`preset = NAME` first), or a preset: fcfs, flux-core, flux-accounting"},
    {"--jobs FILE", "jobs table: JobID|User|SubmitTime, and Bank (or Account), Queue,\n"
                    "Urgency (0..31, default 16), EligibleTime, State, NumNodes, NumCPUs"},
    {"--assoc FILE", "association table (sshare -a -P -l): FairShare by (bank, user)"},
    {"--algorithm A", "compute fair-share from RawShares and RawUsage instead (flux, ...)", algorithm_values},
    {"--queues FILE", "Name|Priority (integer) table of queues"},
    {"--banks FILE", "Name|Priority table of banks"},
    {"--default-bank U=B ", "user U's default bank B (repeatable): U's jobs without a Bank (or\n"
                            "Account) cell are in bank B, as flux-accounting submits them"},
    {"--conf FILE", "slurm.conf, with --qos: Slurm's jobs table and Slurm's factors' tables"},
    {"--qos FILE", "QOS table (with --conf)"},
    {"--from DIR", "a Flux bundle (tests/live/flux.sh writes them): flux jobs --json and\n"
                   "flux-accounting's tables, replayed through the plugin as it behaves\n"
                   "(cached queue and bank factors per user-bank pair, int products,\n"
                   "no upper clamp); the bundles named by its meta's previous= too"},
    {"--live", "the Flux instance of FLUX_URI: runs flux jobs, flux account list-*,\n"
               "flux jobtap query, flux dmesg and reads the pending jobs' eventlogs\n"
               "(60 s together), and replays them: the priority each job has now"},
    {"--save DIR", "with --live: keep what Flux printed as a bundle for --from (a new or\n"
                   "empty directory)"},
    {"--force", "with --save: replace the bundle DIR holds"},
    {"--check", "with --from or --live: compare every pending job's priority and the\n"
                "queue order with what Flux printed; exit 1 on a difference"},
    {"--next-update", "with --from or --live: the priorities the next flux account-priority-update\n"
                      "gives (the database as the bundle holds it, the pairs' cached factors)"},
    {"--exact-products", "with --from: the plugin's int x int products computed exactly"},
    {"--set KEY=VALUE", "with --from or --live, repeatable: what the queue would be after a\n"
                        "change: weight.FACTOR (fairshare, queue, bank, urgency), queue.NAME,\n"
                        "bank.NAME (priorities), bankshares.NAME, shares.USER[@BANK],\n"
                        "usage.USER[@BANK] (fair-share recomputed as flux account-update-fshare\n"
                        "stores it, inactive banks and associations left out);\n"
                        "after flux account-priority-update (the plugin's cached factors)"},
    {"--new-submissions", "with --set: for jobs as if each were submitted again (each job's\n"
                          "own queue and its bank's priority)"},
    {"--now T", "time of the calculation: epoch seconds or YYYY-MM-DDTHH:MM:SS\n"
                "(TZ, else UTC); default: the current time"},
    {"--explain JOBID", "every term of one job's priority; with --from or --live the id as\n"
                        "Flux prints it (f58 or decimal) and where the plugin's factors came from"},
    {"--help", "this text"},
};

inline const std::vector<option_spelling> queue_option_spellings = option_spellings_of({queue_option_rows});
inline const std::vector<std::string_view> queue_option_names = option_names_of(queue_option_spellings);

inline const std::string queue_help = render_help(
    "usage: mfprio queue --policy P --jobs FILE [options]\n"
    "       mfprio queue --from DIR | --live [--save DIR] [--check | --next-update] [--exact-products]\n"
    "\n"
    "Runs a runtime-configured engine over a jobs table and prints, in queue order, each\n"
    "pending job's priority and every named factor's weighted value (seed 003's table).\n"
    "\n",
    {queue_option_rows}, 20,
    
    "\n"
    "Priorities follow flux-accounting: urgency 0 holds (0), 31 expedites (4294967295), the\n"
    "sum is rounded, a sum of 0 or less is 0 (a priority-hold in Flux) and the top is clamped\n"
    "at 4294967295. Order: priority, then job id.\n"
    "\n"
    "Example: mfprio queue --policy flux-accounting --jobs jobs.txt --assoc assoc.txt --queues queues.txt\n");

namespace detail {
inline std::string upper(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return out;
}
inline std::string right(std::string_view s, std::size_t w) {
    return std::string(w > s.size() ? w - s.size() : 0, ' ') + std::string(s);
}
inline std::string fixed0(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.0f", v);
    std::string s = buf;
    if (s == "-0") s = "0";
    return s;
}
} // namespace detail

/// `mfprio queue --from DIR`: a Flux bundle replayed (`whatif --from` takes the same path).
outcome run_queue_from(args_t args);

/// The program `flux python` runs for a bundle's eventlogs.json: the pending jobs of every user
/// (job-list, whose answer comes in parts), then their eventlogs from the KVS in one batch of
/// lookups, one line per job: `{"id": ID, "submitted": {"bank": B, "queue": Q}, "eventlog":
/// [...]}`, the bank and queue of the jobspec as submitted (a jobspec-update may have changed
/// them since) and the events the plugin acts on (submit, urgency, jobspec-update) with its
/// last 256 memos (bounded: one is posted at every update).
inline constexpr std::string_view flux_eventlogs_program = R"(import json, flux, flux.job, flux.constants as c
h = flux.Flux()
jobs = flux.job.job_list(h, max_entries=0, attrs=[], userid=c.FLUX_USERID_UNKNOWN, states=c.FLUX_JOB_STATE_PENDING).get_jobs()
ids = [j["id"] for j in jobs]
for d in (flux.job.JobKVSLookup(h, ids, keys=["eventlog", "jobspec"], original=True).data() if ids else []):
    keep, memos = [], []
    for line in d["eventlog"].splitlines():
        e = json.loads(line)
        if e["name"] == "memo": memos.append(e)
        elif e["name"] in ("submit", "urgency", "jobspec-update"): keep.append(e)
    system = d["jobspec"].get("attributes", {}).get("system", {})
    submitted = {k: system[k] for k in ("bank", "queue") if k in system}
    print(json.dumps({"id": d["id"], "submitted": submitted, "eventlog": keep + memos[-256:]}, separators=(",", ":")))
)";

/// Runs the commands of a Flux bundle on the instance of FLUX_URI, all at once within 60 s,
/// and writes their outputs into `dir` with `meta` (the time of capture and each command line
/// with the file that ran, `command.FILE=LINE`) and the manifest. flux-accounting's commands
/// run when its plugin is loaded (`flux jobtap list`), with the pending jobs' eventlogs
/// (flux_eventlogs_program) and `flux dmesg` (when the plugin was loaded): the replay takes
/// the updates the plugin received from the eventlogs, so that it explains the priorities Flux
/// holds now. `err` names a failing command with its status and standard error; `ran` gets
/// each bundle file's command line (for errors in what they printed).
inline bool capture_flux_live(const std::string& dir, std::string& err,
                              std::vector<std::pair<std::string, std::string>>& ran) {
    const auto failed = [&](std::vector<std::string_view> c, const command_output& r) {
        for (auto& a : c)
            if (a == flux_eventlogs_program) a = "PROGRAM"; // (mfprio's eventlogs program)
        err = "`" + command_text(c) + "` " +
              (r.status < 0 ? std::string("failed") : "exited with status " + std::to_string(r.status)) +
              (r.err.empty() ? std::string() : ": " + std::string(text::trim(r.err)));
        return false;
    };
    const std::vector<std::string_view> list = {"flux", "jobtap", "list"};
    auto listed = run_commands({list}, 60);
    if (listed[0].status != 0) return failed(list, listed[0]);
    bool plugin = false;
    for (const auto& l : text::split_lines(listed[0].out)) plugin = plugin || text::trim(l.text) == "mf_priority.so";
    std::vector<std::pair<std::string, std::vector<std::string_view>>> files = {
        {"flux_jobs.json", {"flux", "jobs", "-A", "-a", "--json"}},
        {"flux_jobs.txt", {"flux", "jobs", "-A", "-n", "-o", "{id.f58} {id.dec} {userid} {urgency} {priority} {state} {queue} {bank}"}},
    };
    if (plugin) {
        files.push_back({"jobtap_mf_priority.json", {"flux", "jobtap", "query", "mf_priority.so"}});
        files.push_back({"list_factors.json", {"flux", "account", "list-factors", "--json"}});
        files.push_back({"list_queues.json", {"flux", "account", "list-queues", "--json"}});
        files.push_back({"list_banks.json", {"flux", "account", "list-banks", "--json"}});
        files.push_back({"list_users.json", {"flux", "account", "list-users", "--json"}});
        files.push_back({"eventlogs.json", {"flux", "python", "-c", flux_eventlogs_program}});
        files.push_back({"flux_dmesg.txt", {"flux", "dmesg"}});
    }
    std::vector<std::vector<std::string_view>> commands;
    for (const auto& f : files) commands.push_back(f.second);
    auto outputs = run_commands(commands, 60);
    const auto captured = static_cast<std::int64_t>(std::time(nullptr));
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
        err = "cannot create " + dir + ": " + ec.message();
        return false;
    }
    inputs::remove_bundle(dir);
    std::vector<std::pair<std::string, std::string_view>> written;
    const auto write = [&](const std::string& name, std::string_view text) {
        std::ofstream f((std::filesystem::path(dir) / name).string(), std::ios::binary | std::ios::trunc);
        f.write(text.data(), static_cast<std::streamsize>(text.size()));
        f.close();
        if (!f) err = "cannot write " + (std::filesystem::path(dir) / name).string();
        return static_cast<bool>(f);
    };
    std::string meta = "captured=" + std::to_string(captured) + "\nscenario=mfprio queue --live\n";
    for (std::size_t i = 0; i < files.size(); ++i) {
        const command_output& r = outputs[i];
        if (r.status != 0) return failed(files[i].second, r);
        if (auto nul = text::nul_byte_error(r.out, "`" + command_text(files[i].second) + "` output")) {
            err = nul->to_string();
            return false;
        }
        if (!write(files[i].first, r.out)) return false;
        written.emplace_back(files[i].first, r.out);
        // A command line on one line: the eventlogs program is named, not written out.
        std::vector<std::string_view> line = files[i].second;
        for (auto& a : line)
            if (a == flux_eventlogs_program) a = "PROGRAM";
        ran.emplace_back(files[i].first, command_text(line) + (files[i].first == "eventlogs.json" ? " (mfprio's eventlogs program)" : ""));
        line.front() = r.path;
        meta += "command." + files[i].first + "=" + command_text(line) + "\n";
    }
    if (!write("meta", meta)) return false;
    written.emplace_back("meta", meta);
    return write("manifest", inputs::manifest_text(written));
}

} // namespace mfprio::cli
