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

#include <mfprio/read/assoc_table.hpp>
#include <mfprio/model/flux_model.hpp>
#include <mfprio/replay/flux_plugin.hpp>
#include <mfprio/read/flux_tables.hpp>
#include <mfprio/inputs/flux.hpp>
#include <mfprio/report/flux.hpp>
#include <mfprio/read/qos_table.hpp>
#include <mfprio/read/slurm_conf.hpp>
#include <mfprio/text/table.hpp>
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
                   "`preset = NAME` first), or a preset: fcfs, flux-core, flux-accounting;\n"
                   "with --from or --live, mfprio_priority.so's (default: the one it reports)"},
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
    {"--live", "the Flux instance of FLUX_URI: asks what flux jobs, flux account list-*\n"
               "and flux jobtap query print, runs flux dmesg, reads the pending jobs'\n"
               "eventlogs (60 s together), and replays them: the priority each job has now"},
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
    "       mfprio queue --from DIR | --live [--policy P] [--check]   (mfprio_priority.so loaded)\n"
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
/// The files of `mfprio queue --jobs ...` (empty: not given).
struct flux_table_paths {
    std::string jobs, assoc, queues, banks, conf, qos;
};

/// The tables `mfprio queue --jobs ...` reads, and the model inputs pointing into them (so it
/// stays where it is built).
struct flux_tables {
    flux_tables() = default;
    flux_tables(const flux_tables&) = delete;
    flux_tables& operator=(const flux_tables&) = delete;

    std::optional<config::table> jobs;
    std::optional<config::assoc_table> assoc;
    std::optional<std::vector<config::flux_queue_row>> queues;
    std::optional<std::vector<config::flux_bank_row>> banks;
    std::optional<config::slurm_conf> conf;
    std::optional<config::qos_table> qos;
    config::flux_inputs in;

    /// Reads the files of `p`; the first error.
    [[nodiscard]] std::optional<input_error> read(const flux_table_paths& p) {
        auto j = config::read_table(p.jobs);
        if (!j) return j.error();
        jobs = std::move(*j);
        in.jobs = &*jobs;
        if (!p.assoc.empty()) {
            auto a = config::read_assoc_table(p.assoc);
            if (!a) return a.error();
            assoc = std::move(*a);
            in.assoc = &*assoc;
            in.assoc_file = p.assoc;
        }
        if (!p.queues.empty()) {
            auto q = config::read_queue_table(p.queues);
            if (!q) return q.error();
            queues = std::move(*q);
            in.queues = &*queues;
        }
        if (!p.banks.empty()) {
            auto b = config::read_bank_table(p.banks);
            if (!b) return b.error();
            banks = std::move(*b);
            in.banks = &*banks;
        }
        if (!p.conf.empty()) {
            auto c = config::read_slurm_conf(p.conf);
            if (!c) return c.error();
            conf = std::move(*c);
            auto q = config::read_qos_table(p.qos);
            if (!q) return q.error();
            qos = std::move(*q);
            in.conf = &*conf;
            in.qos = &*qos;
            in.conf_file = p.conf;
        }
        return std::nullopt;
    }
};

/// `mfprio queue --explain`: each term of the policy for job `j` (`id` as its input names it)
/// of `user`, the sum and how the priority follows from it.
template <class Explained>
[[nodiscard]] std::string explain_policy_job(const flux::job& j, std::string_view id, const std::string& user, const Explained& x) {
    std::string out = "job " + std::string(id) + " (user " + user + ", urgency " + std::to_string(j.urgency) + ")\n";
    for (const auto& term : x.terms) {
        char line[256];
        std::snprintf(line, sizeof line, "  %-12.*s %.17g x %.17g = %.17g\n", static_cast<int>(term.name.size()),
                      term.name.data(), term.factor, term.weight, term.contribution);
        out += line;
    }
    char sum[128];
    std::snprintf(sum, sizeof sum, "  sum %.17g\n", x.score);
    out += sum;
    static constexpr std::string_view how[] = {
        "the sum, rounded", "urgency 0: held", "urgency 31: expedited",
        "the rounded sum is 0 or less: 0, which holds the job in Flux (priority-hold)", "clamped at 4294967295"};
    out += "  priority " + std::to_string(x.priority.value) + " (" + std::string(how[static_cast<std::size_t>(x.priority.status)]) +
           ")\n";
    return out;
}

/// `mfprio queue --policy`'s table, seed 003's layout: "%7s %8s %10s" then " %10s" per factor;
/// values are the weighted contributions, rounded ("%.0f"); the jobs in `order`.
template <class Engine, class Ctx>
[[nodiscard]] std::string render_policy_queue(const Engine& engine, const Ctx& ctx, const std::vector<flux::job>& pending,
                                              const std::vector<flux::priority_value>& prio,
                                              const std::vector<std::size_t>& order,
                                              const std::vector<std::string>& user_names) {
    // Each cell after the first is a space and the value right-aligned in its width.
    std::string out;
    const auto cell = [&out](std::string_view v, std::size_t width) {
        if (!out.empty() && out.back() != '\n') out += ' ';
        out += right(v, width);
    };
    cell("JOBID", 7);
    cell("USER", 8);
    cell("PRIORITY", 10);
    for (const auto& n : engine.names()) cell(upper(n), 10);
    out += '\n';
    for (std::size_t k : order) {
        const auto& j = pending[k];
        const auto x = engine.explain(j, ctx);
        cell(std::to_string(j.id), 7);
        cell(user_names[j.user], 8);
        cell(std::to_string(prio[k].value), 10);
        for (const auto& term : x.terms) cell(fixed0(term.contribution), 10);
        out += '\n';
    }
    return out;
}

} // namespace detail

/// `mfprio queue --from DIR`: a Flux bundle replayed (`whatif --from` takes the same path).
outcome run_queue_from(args_t args);

/// The program `flux python -c` runs for `queue --live`: the bundle's Flux commands in one
/// process, each command's request sent by the program itself and its answer printed as the
/// command prints it, so that neither a Python process nor a command's own imports and
/// argument parser are paid per command (those were most of what a capture cost). Arguments:
/// a scratch directory, then the commands (`--` between them): a bundle file's name, then the
/// `flux` command the file holds the output of, or `=STEP` for one of the program's own
/// steps (below). Every request is sent before any answer is read; each command's standard
/// output and error go to scratch/FILE.out and .err, and one line per command on standard
/// output says `FILE STATUS`. The commands it knows (tests/live/flux.sh compares their files
/// with what the commands themselves print):
/// - `jobtap list`: job-manager's list of jobtap plugins, those not starting with '.';
/// - `jobtap query NAME`: the plugin's answer to job-manager's jobtap-query, as it came;
/// - `account list-{factors,queues,banks,users} --json`: flux-accounting's service asked as its
///   `flux account` command asks (fields unset, `json`, an empty `format`; the other options of
///   those commands are unset, which the service reads as their defaults), the first value of
///   its answer printed.
///
/// `=table`: the pending and running jobs of every user from one job-list request, printed as
/// `flux jobs -A -c 0 -o FORMAT` prints them (FORMAT: the fields below, each as flux-core's
/// JobInfo gives it, its default where job-list sends none; the header its headings), without
/// building a JobInfo per job, which is most of what `flux jobs` spends on a long queue.
///
/// `=eventlogs` (eventlogs.json): the pending jobs' eventlogs (those `=table` listed, when it
/// ran before, else job-list's pending jobs) and signed requests (J, the jobspec as submitted),
/// read from the KVS in one batch of lookups (through job-info, which takes a second hop per
/// job, where the KVS refuses them), one line per job: `{"id": ID, "eventlog": [...],
/// "submitted": {"bank": B, "queue": Q}}`, the events the plugin acts on (submit, urgency,
/// jobspec-update) with its last 256 memos (bounded: one is posted at every update) and, for a
/// job whose eventlog holds a jobspec-update (which may have changed them since; flux-accounting's
/// plugin posts one at each submission), the bank and queue of its jobspec as submitted.
inline constexpr std::string_view flux_capture_program = R"(import io, json, os, sys, traceback
import flux, flux.job, flux.constants as c
scratch, commands = sys.argv[1], [[]]
for a in sys.argv[2:]:
    if a == "--": commands.append([])
    else: commands[-1].append(a)
h, listed = flux.Flux(), None
TABLE = (("id", "JOBID", None), ("userid", "UID", None), ("urgency", "URG", None), ("priority", "PRI", ""),
         ("state", "STATE", None), ("queue", "QUEUE", ""), ("bank", "BANK", ""), ("t_submit", "T_SUBMIT", None),
         ("nnodes", "NNODES", ""), ("ncores", "NCORES", ""), ("duration", "DURATION", 0.0))
def table():
    rpc = flux.job.job_list(h, max_entries=0, attrs=[k for k, _, _ in TABLE[1:]], userid=c.FLUX_USERID_UNKNOWN,
                            states=c.FLUX_JOB_STATE_PENDING | c.FLUX_JOB_STATE_RUNNING)
    def finish(out):
        global listed
        from flux.job.info import statetostr
        listed = rpc.get_jobs()
        lines = [" ".join(t for _, t, _ in TABLE)]
        for j in listed:
            lines.append(" ".join(str(statetostr(j[k]) if k == "state" else j[k] if d is None else j.get(k, d)) for k, _, d in TABLE))
        out.write("\n".join(lines) + "\n")
    return finish
def lookup(ids):
    try:
        from flux.kvs import RAW
        from flux.core.inner import ffi
        from _flux._core import lib
        def original(J):
            v = lib.flux_unwrap_string(J.encode(), False, ffi.NULL, ffi.NULL)
            if v == ffi.NULL: raise ValueError("a job's signed request (J) cannot be read")
            try: return json.loads(ffi.string(v).decode())
            finally: lib.free(v)
        futures = [RAW.flux_kvs_lookup(h, ffi.NULL, 0, (flux.job.JobID(i).kvs + "." + k).encode()) for i in ids for k in ("eventlog", "J")]
        value, text = ffi.new("char *[1]"), []
        for f in futures:
            RAW.flux_kvs_lookup_get(f, value)
            text.append(ffi.string(value[0]).decode())
            RAW.flux_future_destroy(f)
        return [(i, log, lambda J=J: original(J)) for i, log, J in zip(ids, text[0::2], text[1::2])]
    except Exception:
        logs = flux.job.JobKVSLookup(h, ids, keys=["eventlog"]).data()
        updated = [d["id"] for d in logs if '"jobspec-update"' in d["eventlog"]]
        specs = {d["id"]: d["jobspec"] for d in flux.job.JobKVSLookup(h, updated, keys=["jobspec"], original=True).data()} if updated else {}
        return [(d["id"], d["eventlog"], lambda i=d["id"]: specs.get(i)) for d in logs]
WANTED = ("submit", "urgency", "jobspec-update", "memo")
def eventlogs():
    def finish(out):
        jobs = listed if listed is not None else flux.job.job_list(h, max_entries=0, attrs=[], userid=c.FLUX_USERID_UNKNOWN,
                                                                   states=c.FLUX_JOB_STATE_PENDING).get_jobs()
        ids = [j["id"] for j in jobs if j.get("state", c.FLUX_JOB_STATE_PENDING) & c.FLUX_JOB_STATE_PENDING]
        for i, log, original in lookup(ids) if ids else []:
            keep, memos = [], []
            for line in log.splitlines():
                if not any('"' + w + '"' in line for w in WANTED): continue
                e = json.loads(line)
                if e["name"] == "memo": memos.append(e)
                elif e["name"] in WANTED: keep.append(e)
            job = {"id": i, "eventlog": keep + memos[-256:]}
            spec = original() if '"jobspec-update"' in log else None
            if spec is not None:
                system = spec.get("attributes", {}).get("system", {})
                job["submitted"] = {k: system[k] for k in ("bank", "queue") if k in system}
            out.write(json.dumps(job, separators=(",", ":")) + "\n")
    return finish
def begin(cmd):
    if cmd == ["=table"]: return table()
    if cmd == ["=eventlogs"]: return eventlogs()
    if cmd == ["jobtap", "list"]:
        rpc = h.rpc("job-manager.jobtap", {"query_only": True})
        return lambda out: out.write("".join(n + "\n" for n in rpc.get()["plugins"] if not n.startswith(".")))
    if len(cmd) == 3 and cmd[:2] == ["jobtap", "query"]:
        rpc = h.rpc("job-manager.jobtap-query", {"name": cmd[2]})
        return lambda out: out.write(rpc.get_str() + "\n")
    if len(cmd) == 3 and cmd[0] == "account" and cmd[1] in ("list-factors", "list-queues", "list-banks", "list-users") and cmd[2] == "--json":
        rpc = h.rpc("accounting." + cmd[1].replace("-", "_"), {"fields": None, "json": True, "format": ""})
        def finish(out):
            value = list(rpc.get().values())[0]
            if value != 0: out.write(str(value) + "\n")
        return finish
    raise ValueError("mfprio's capture program does not run `flux " + " ".join(cmd) + "`")
started = []
for name, *cmd in commands:
    try:
        started.append((name, cmd, begin(cmd), None))
    except Exception as e:
        started.append((name, cmd, None, e))
for name, cmd, finish, error in started:
    out, status = io.StringIO(), 0
    try:
        if error is not None: raise error
        finish(out)
        err = ""
    except Exception as e:
        status, err = 1, "flux-" + cmd[0].lstrip("=") + ": ERROR: " + (e.strerror if isinstance(e, OSError) and e.strerror else str(e)) + "\n"
    for ext, text in ((".out", out.getvalue()), (".err", err)):
        with open(os.path.join(scratch, name + ext), "w", encoding="utf-8") as f:
            f.write(text)
    print(name, status, flush=True)
)";

/// What `queue --live` captures: each bundle file and the `flux` command whose output it
/// holds, or the capture program's own step that prints it (flux_capture_program), in the
/// order the program answers them (the jobs before their eventlogs). `flux jobtap list` says
/// whether flux-accounting's plugin or mfprio's (examples/flux_priority) is loaded; without
/// them, only the jobs are kept, with mfprio's its query too (the others may fail: they are
/// not read). The jobs table holds the fields the replay reads (`flux jobs --json` would print
/// them all), every pending and running job (`flux jobs` alone stops at 1,000), in the order
/// job-list gives them, the order Flux's queue listing prints.
struct flux_capture_file {
    std::string_view file;
    std::vector<std::string_view> command; ///< after `flux`, or the program's own step (`=NAME`)
};
inline const std::vector<flux_capture_file>& flux_capture_files() {
    static const std::vector<flux_capture_file> files = {
        {inputs::flux_files::jobtap_list, {"jobtap", "list"}},
        {inputs::flux_files::jobs_table, {"=table"}},
        {inputs::flux_files::mfprio_plugin, {"jobtap", "query", "mfprio_priority.so"}},
        {inputs::flux_files::plugin, {"jobtap", "query", "mf_priority.so"}},
        {inputs::flux_files::factors, {"account", "list-factors", "--json"}},
        {inputs::flux_files::queues, {"account", "list-queues", "--json"}},
        {inputs::flux_files::banks, {"account", "list-banks", "--json"}},
        {inputs::flux_files::users, {"account", "list-users", "--json"}},
        {inputs::flux_files::eventlogs, {"=eventlogs"}},
    };
    return files;
}

/// The command line that runs mfprio's capture program (`flux python -c`) over `scratch`:
/// each command, its bundle file first, `--` between commands.
[[nodiscard]] inline std::vector<std::string_view> flux_capture_command(const std::string& scratch) {
    std::vector<std::string_view> program = {"flux", "python", "-c", flux_capture_program, scratch};
    for (const auto& f : flux_capture_files()) {
        if (program.size() > 5) program.push_back("--");
        program.push_back(f.file);
        program.insert(program.end(), f.command.begin(), f.command.end());
    }
    return program;
}

/// Runs the commands of a Flux bundle on the instance of FLUX_URI within 60 s: all but
/// `flux dmesg` in one `flux python` process (flux_capture_program), that one beside it. Writes
/// their outputs into `dir` with `meta` (the time of capture and each command line with the
/// file that ran, `command.FILE=LINE`) and the manifest. flux-accounting's commands run when
/// its plugin is loaded, with the pending jobs' eventlogs and `flux dmesg` (when the plugin
/// was loaded): the replay takes the updates the plugin received from the eventlogs, so that
/// it explains the priorities Flux holds now. `err` names a failing command with its status
/// and standard error; `ran` gets each bundle file's command line (for errors in what they
/// printed).
inline bool capture_flux_live(const std::string& dir, std::string& err,
                              std::vector<std::pair<std::string, std::string>>& ran) {
    namespace fs = std::filesystem;
    const auto& files = flux_capture_files();
    const auto line_of = [](const flux_capture_file& f) {
        if (f.command.front() == "=table")
            return std::string("flux python -c PROGRAM (mfprio's capture program: the jobs as `flux jobs -A -c 0 -o` "
                               "prints the fields its header names)");
        if (f.command.front().starts_with("="))
            return "flux python -c PROGRAM (mfprio's capture program: " + std::string(f.command.front().substr(1)) + ")";
        std::vector<std::string_view> c = {"flux"};
        c.insert(c.end(), f.command.begin(), f.command.end());
        return command_text(c);
    };
    const auto failed = [&](const std::string& line, int status, std::string_view stderr_text) {
        err = "`" + line + "` " + (status < 0 ? std::string("failed") : "exited with status " + std::to_string(status)) +
              (text::trim(stderr_text).empty() ? std::string() : ": " + std::string(text::trim(stderr_text)));
        return false;
    };
    std::string scratch = (fs::temp_directory_path() / "mfprio-capture.XXXXXX").string();
    if (mkdtemp(scratch.data()) == nullptr) {
        err = "cannot make a temporary directory";
        return false;
    }
    struct remove_scratch {
        std::string dir;
        ~remove_scratch() {
            std::error_code ec;
            fs::remove_all(dir, ec);
        }
    } cleanup{scratch};
    const std::vector<std::string_view> dmesg = {"flux", "dmesg"};
    auto outputs = run_commands({flux_capture_command(scratch), dmesg}, 60);
    const auto captured = static_cast<std::int64_t>(std::time(nullptr));
    if (outputs[0].status != 0) return failed("flux python -c PROGRAM (mfprio's capture program)", outputs[0].status, outputs[0].err);
    // Each command's status, as the program printed it.
    std::vector<std::pair<std::string, int>> status;
    for (const auto& l : text::split_lines(outputs[0].out)) {
        const std::string_view t = text::trim(l.text);
        const std::size_t sp = t.rfind(' ');
        const auto code = sp == std::string_view::npos ? std::nullopt : text::parse_signed<int>(t.substr(sp + 1));
        if (!code) return failed("flux python -c PROGRAM (mfprio's capture program)", -1, "printed '" + std::string(t) + "'");
        status.emplace_back(std::string(t.substr(0, sp)), *code);
    }
    const auto read_scratch = [&](std::string_view name, std::string_view ext) -> std::optional<std::string> {
        std::ifstream f((fs::path(scratch) / (std::string(name) + std::string(ext))).string(), std::ios::binary);
        if (!f) return std::nullopt;
        return std::string(std::istreambuf_iterator<char>(f), {});
    };
    std::error_code ec;
    std::size_t total = 0;
    for (const auto& [name, code] : status) {
        const auto size = fs::file_size(fs::path(scratch) / (name + ".out"), ec);
        if (!ec) total += static_cast<std::size_t>(size);
    }
    if (total > max_command_output) {
        err = "the Flux commands printed more than " + std::to_string(max_command_output) + " bytes together";
        return false;
    }
    bool plugin = false, mine = false; // flux-accounting's plugin, mfprio's
    std::vector<std::pair<std::string, std::string>> outs; // bundle file, what its command printed
    for (std::size_t i = 0; i < files.size(); ++i) {
        const auto& f = files[i];
        if (i > 1 && !(f.file == inputs::flux_files::mfprio_plugin ? mine : plugin)) continue;
        const auto st = std::find_if(status.begin(), status.end(), [&](const auto& s) { return s.first == f.file; });
        if (st == status.end()) return failed(line_of(f), -1, "mfprio's capture program did not run it");
        if (st->second != 0) return failed(line_of(f), st->second, read_scratch(f.file, ".err").value_or(""));
        auto out = read_scratch(f.file, ".out");
        if (!out) return failed(line_of(f), -1, "its output is missing");
        if (auto nul = text::nul_byte_error(*out, "`" + line_of(f) + "` output")) {
            err = nul->to_string();
            return false;
        }
        if (f.file == files.front().file) {
            for (const auto& l : text::split_lines(*out)) {
                plugin = plugin || text::trim(l.text) == "mf_priority.so";
                mine = mine || text::trim(l.text) == "mfprio_priority.so";
            }
            continue; // (not a bundle file)
        }
        outs.emplace_back(std::string(f.file), std::move(*out));
    }
    if (plugin) {
        if (outputs[1].status != 0) return failed("flux dmesg", outputs[1].status, outputs[1].err);
        outs.emplace_back(inputs::flux_files::dmesg, std::move(outputs[1].out));
    }
    fs::create_directories(dir, ec);
    if (ec) {
        err = "cannot create " + dir + ": " + ec.message();
        return false;
    }
    inputs::remove_bundle(dir);
    std::vector<std::pair<std::string, std::string_view>> written;
    const auto write = [&](const std::string& name, std::string_view text) {
        std::ofstream f((fs::path(dir) / name).string(), std::ios::binary | std::ios::trunc);
        f.write(text.data(), static_cast<std::streamsize>(text.size()));
        f.close();
        if (!f) err = "cannot write " + (fs::path(dir) / name).string();
        return static_cast<bool>(f);
    };
    const std::string flux_path = outputs[0].path;
    std::string meta = "captured=" + std::to_string(captured) + "\nscenario=mfprio queue --live\n";
    for (const auto& [name, text] : outs) {
        if (!write(name, text)) return false;
        written.emplace_back(name, text);
        std::string line = "flux dmesg";
        for (const auto& f : files)
            if (f.file == name) line = line_of(f);
        ran.emplace_back(name, line);
        // The command line on one line, `flux` as the file that ran.
        meta += "command." + name + "=" + flux_path + line.substr(4) + "\n";
    }
    if (!write("meta", meta)) return false;
    written.emplace_back("meta", meta);
    return write("manifest", inputs::manifest_text(written));
}

/// With mfprio's own plugin loaded (the bundle in `dir` holds its query), whether the bundle
/// shows one refresh of it: its query did not load a changed policy, the plugin last refreshed
/// before the capture started (`started`, epoch seconds), and a query now reports that same
/// refresh. Otherwise the jobs' priorities may come from another refresh than the numbers
/// reported, and the capture is taken again.
[[nodiscard]] inline bool jobtap_capture_settled(const std::string& dir, double started) {
    std::ifstream f((std::filesystem::path(dir) / inputs::flux_files::mfprio_plugin).string(), std::ios::binary);
    if (!f) return true;
    const std::string text(std::istreambuf_iterator<char>(f), {});
    const auto r = inputs::read_jobtap_report(text, "query");
    if (!r) return true; // (said when the bundle is read)
    if (r->reloaded || r->refreshed >= started) return false;
    const auto again = run_command({"flux", "jobtap", "query", "mfprio_priority.so"}, 20);
    if (again.status != 0) return false;
    const auto r2 = inputs::read_jobtap_report(again.out, "query");
    return r2 && !r2->reloaded && r2->generation == r->generation;
}

} // namespace mfprio::cli
