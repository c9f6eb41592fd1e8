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

/// The program `flux python -c` runs for `queue --live`: the bundle's Python commands in one
/// interpreter, so that Python starts and imports Flux's modules once, not once per command.
/// Arguments: a scratch directory, then the commands of each process (`---` between
/// processes, `--` between commands): a bundle file's name and the `flux` subcommand with its
/// arguments (none: the eventlogs, below). Each command is its own script (`flux-NAME.py` in
/// FLUX_EXEC_PATH, the file `flux NAME` runs), compiled here with its imports loaded, then
/// run as `__main__` in a fork of this process, its standard output and error in
/// scratch/FILE.out and .err; a command without such a script is exec'd as `flux NAME ...`.
/// The processes run at once, each forked as soon as what it runs is loaded (the objects
/// loaded before are frozen out of the garbage collector, whose passes would otherwise copy
/// every page the fork shares). One line per command on standard output: `FILE STATUS`.
///
/// The eventlogs (eventlogs.json): the pending jobs of every user (job-list, whose answer
/// comes in parts), then their eventlogs from the KVS in one batch of lookups, one line per
/// job: `{"id": ID, "eventlog": [...], "submitted": {"bank": B, "queue": Q}}`, the events the
/// plugin acts on (submit, urgency, jobspec-update) with its last 256 memos (bounded: one is
/// posted at every update) and, for a job whose eventlog holds a jobspec-update (which may
/// have changed them since), the bank and queue of its jobspec as submitted (a second batch).
inline constexpr std::string_view flux_capture_program = R"(import gc, json, os, sys, traceback
import flux, flux.job, flux.constants as c
scratch, children = sys.argv[1], [[[]]]
for a in sys.argv[2:]:
    if a == "---": children.append([[]])
    elif a == "--": children[-1].append([])
    else: children[-1][-1].append(a)
def script(cmd):
    for d in os.environ.get("FLUX_EXEC_PATH", "").split(":"):
        p = os.path.join(d, "flux-" + cmd + ".py")
        if d and os.path.isfile(p): return p
code = {}
def load(path):
    import ast
    try:
        tree = ast.parse(open(path, encoding="utf-8").read(), path)
        imports = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
        exec(compile(ast.Module(imports, []), path, "exec"), {"__name__": "preload"})
        code[path] = compile(tree, path, "exec")
    except Exception:
        pass
def eventlogs():
    h = flux.Flux()
    jobs = flux.job.job_list(h, max_entries=0, attrs=[], userid=c.FLUX_USERID_UNKNOWN, states=c.FLUX_JOB_STATE_PENDING).get_jobs()
    ids = [j["id"] for j in jobs]
    logs = flux.job.JobKVSLookup(h, ids, keys=["eventlog"]).data() if ids else []
    updated = [d["id"] for d in logs if '"jobspec-update"' in d["eventlog"]]
    specs = {d["id"]: d["jobspec"] for d in flux.job.JobKVSLookup(h, updated, keys=["jobspec"], original=True).data()} if updated else {}
    for d in logs:
        keep, memos = [], []
        for line in d["eventlog"].splitlines():
            e = json.loads(line)
            if e["name"] == "memo": memos.append(e)
            elif e["name"] in ("submit", "urgency", "jobspec-update"): keep.append(e)
        out = {"id": d["id"], "eventlog": keep + memos[-256:]}
        if d["id"] in specs:
            system = specs[d["id"]].get("attributes", {}).get("system", {})
            out["submitted"] = {k: system[k] for k in ("bank", "queue") if k in system}
        print(json.dumps(out, separators=(",", ":")))
def run(name, cmd):
    for fd, ext in ((1, ".out"), (2, ".err")):
        f = os.open(os.path.join(scratch, name + ext), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(f, fd)
        os.close(f)
    path = script(cmd[0]) if cmd else None
    if not cmd:
        eventlogs()
        return 0
    if path not in code:
        pid = os.fork()
        if pid == 0:
            os.execvp("flux", ["flux"] + cmd)
        return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    sys.argv = [path] + cmd[1:]
    try:
        exec(code[path], {"__name__": "__main__", "__file__": path, "__builtins__": __builtins__})
    except SystemExit as e:
        if isinstance(e.code, str): print(e.code, file=sys.stderr)
        return e.code if isinstance(e.code, int) else int(e.code is not None)
    return 0
def start(commands):
    sys.stdout.flush()
    sys.stderr.flush()
    gc.freeze()
    pid = os.fork()
    if pid: return pid
    out, err, kept = sys.stdout, sys.stderr, []
    for name, *cmd in commands:
        try:
            status = run(name, cmd)
        except BaseException:
            traceback.print_exc()
            status = 1
        try:
            for stream in (sys.stdout, sys.stderr, out, err):
                stream.flush()
        except BaseException:
            status = status or 1
        kept += [sys.stdout, sys.stderr]
        sys.stdout, sys.stderr = out, err
        os.write(fds[1], (name + " " + str(status) + "\n").encode())
    os._exit(0)
fds = os.pipe()
pids = []
for commands in children:
    for name, *cmd in commands:
        if cmd and script(cmd[0]) and script(cmd[0]) not in code: load(script(cmd[0]))
    pids.append(start(commands))
os.close(fds[1])
with os.fdopen(fds[0], "rb") as r:
    sys.stdout.buffer.write(r.read())
for pid in pids: os.waitpid(pid, 0)
)";

/// What `queue --live` captures: each bundle file and the `flux` subcommand that prints it
/// (none: the eventlogs, which flux_capture_program reads itself). `flux jobtap list` says
/// whether flux-accounting's plugin or mfprio's (examples/flux_priority) is loaded; without
/// them, only `flux jobs` is kept, with mfprio's its query too (the others may fail: they are
/// not read). `flux jobs -o` with the fields the replay reads
/// (--json would print them all) lists the jobs in the order job-list gives them, the order
/// Flux's queue listing prints.
/// The commands run in four processes, one after the other in each: those that take longest
/// (the eventlogs, flux jobs) alone, the small ones three by three.
struct flux_capture_file {
    std::string_view file;
    std::vector<std::string_view> command; ///< after `flux`
    int process = 0;                       ///< which of the program's processes runs it
};
inline const std::vector<flux_capture_file>& flux_capture_files() {
    static const std::vector<flux_capture_file> files = {
        {inputs::flux_files::jobtap_list, {"jobtap", "list"}, 2},
        {inputs::flux_files::jobs_table, {"jobs", "-A", "-a", "-o", "{id.dec} {userid} {urgency} {priority} {state} {queue} {bank} {t_submit} {nnodes} {ncores} {duration}"}, 1},
        {inputs::flux_files::mfprio_plugin, {"jobtap", "query", "mfprio_priority.so"}, 2},
        {inputs::flux_files::plugin, {"jobtap", "query", "mf_priority.so"}, 2},
        {inputs::flux_files::factors, {"account", "list-factors", "--json"}, 2},
        {inputs::flux_files::queues, {"account", "list-queues", "--json"}, 3},
        {inputs::flux_files::banks, {"account", "list-banks", "--json"}, 3},
        {inputs::flux_files::users, {"account", "list-users", "--json"}, 3},
        {inputs::flux_files::eventlogs, {}, 0},
    };
    return files;
}

/// The command line that runs mfprio's capture program (`flux python -c`) over `scratch`:
/// each process's commands, their bundle file first, `--` between commands, `---` between
/// processes.
[[nodiscard]] inline std::vector<std::string_view> flux_capture_command(const std::string& scratch) {
    std::vector<std::string_view> program = {"flux", "python", "-c", flux_capture_program, scratch};
    for (int process = 0; process < 4; ++process) {
        if (process > 0) program.push_back("---");
        bool first = true;
        for (const auto& f : flux_capture_files()) {
            if (f.process != process) continue;
            if (!first) program.push_back("--");
            first = false;
            program.push_back(f.file);
            program.insert(program.end(), f.command.begin(), f.command.end());
        }
    }
    return program;
}

/// Runs the commands of a Flux bundle on the instance of FLUX_URI within 60 s: the Python
/// ones in one `flux python` process (flux_capture_program), `flux dmesg` beside it. Writes
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
        if (f.command.empty()) return std::string("flux python -c PROGRAM (mfprio's eventlogs program)");
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
