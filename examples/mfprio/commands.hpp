#pragma once
// What the mfprio tool's commands share (their options, help texts, inputs and the cluster
// they load) and what `sprio` and `lint` are made of; the commands themselves are declared in
// cli.hpp and defined in the .cpp files beside it. main.cpp only dispatches.

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <future>
#include <initializer_list>
#include <ctime>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <mfprio/read/assoc_table.hpp>
#include <mfprio/read/jobs_table.hpp>
#include <mfprio/read/maui_cfg.hpp>
#include <mfprio/read/qos_table.hpp>
#include <mfprio/read/slurm_conf.hpp>
#include <mfprio/model/slurm_fairshare.hpp>
#include <mfprio/model/slurm_cluster.hpp>
#include <mfprio/model/slurm_model.hpp>
#include <mfprio/replay/site_snapshot.hpp>
#include <mfprio/replay/slurm_stored.hpp>
#include <mfprio/queue/site.hpp>
#include <mfprio/queue/site_factors.hpp>
#include <mfprio/text/text.hpp>
#include <mfprio/read/slurm_native.hpp>
#include <mfprio/report/lint.hpp>
#include <mfprio/report/sprio.hpp>
#include <mfprio/report/sprio_twin.hpp>
#include <mfprio/report/sprio_verify.hpp>

#include "cli.hpp"
#include "live.hpp"

namespace mfprio::cli {

using report::gpu_minutes_of;
using report::place_stored;
using report::sprio_rows_of;
using report::sprio_times;

/// Where a command's Slurm inputs come from: files, or texts (the demo's embedded data).
struct slurm_sources {
    std::vector<std::string> confs, assocs; ///< file paths (several, merged)
    std::string qos, jobs;                ///< file paths
    const std::string_view* texts = nullptr; ///< when set: conf, qos, assoc, jobs texts
    std::string_view name;                ///< label for embedded data
};

inline std::vector<std::string> split_list(std::string_view s) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= s.size()) {
        const std::size_t end = s.find(',', start);
        const std::string_view item = s.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
        if (!item.empty()) out.emplace_back(item);
        if (end == std::string_view::npos) break;
        start = end + 1;
    }
    return out;
}

/// One option row of a command's --help: `left` is what stands before the help column, the
/// option's spellings (", "-separated; a short one before a long one is the same option)
/// and its value's name ("-o, --format F"; a row may list several options, "--live, --save
/// DIR"), `help` its lines. The rows are the one list of a command's options: its --help is
/// rendered from them, its parser takes their spellings and refuses any other.
struct option_row {
    std::string_view left;
    std::string_view help;
    /// The words its value is one of, space-separated ("" for a file, a number, a name...):
    /// what the shell completion offers after it; tests/cli_docs.cpp checks that the parser
    /// takes each and refuses another.
    std::string_view values = {};
};

/// The values of --fairshare and of --algorithm (fairshare::parse_algorithm's names).
inline constexpr std::string_view fairshare_source_values = "taken computed auto";
inline constexpr auto algorithm_values_text = fairshare::algorithm_names(" ");
inline constexpr std::string_view algorithm_values = algorithm_values_text.view();
/// The algorithms as a sentence lists them ("classic, fair-tree, ..."), for help and errors.
inline constexpr auto algorithm_list_text = fairshare::algorithm_names(", ");

/// A command's --help: `head`, the rows of `groups` with their help at `column` (the further
/// lines of a help there too), then `tail`.
[[nodiscard]] inline std::string render_help(std::string_view head,
                                             std::initializer_list<std::span<const option_row>> groups,
                                             std::size_t column, std::string_view tail) {
    std::string out(head);
    for (const auto rows : groups)
        for (const auto& r : rows) {
            out += "  ";
            out.append(r.left);
            out.append(std::max<std::size_t>(1, column > r.left.size() + 2 ? column - 2 - r.left.size() : 0), ' ');
            std::size_t start = 0;
            for (;;) {
                const std::size_t end = r.help.find('\n', start);
                if (start != 0) out.append(column, ' ');
                out.append(r.help.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
                out += '\n';
                if (end == std::string_view::npos) break;
                start = end + 1;
            }
        }
    out.append(tail);
    return out;
}

/// An option's spelling and whether it takes a value.
struct option_spelling {
    std::string_view name;
    bool takes_value = false;
    std::string_view values = {}; ///< its row's `values`
};

/// The spellings of `rows`, in order: each word of a row's `left` that starts with '-' (a
/// trailing ',' or ':' aside), each taking a value when a word not starting with '-' follows
/// it or the long spelling it is a short form of.
[[nodiscard]] inline std::vector<option_spelling> option_spellings(std::span<const option_row> rows) {
    std::vector<option_spelling> out;
    for (const auto& r : rows) {
        std::size_t group = out.size(); // the first spelling of the current option
        bool short_before = false;
        std::size_t i = 0;
        while (i < r.left.size()) {
            while (i < r.left.size() && r.left[i] == ' ') ++i;
            std::size_t j = i;
            while (j < r.left.size() && r.left[j] != ' ') ++j;
            std::string_view w = r.left.substr(i, j - i);
            i = j;
            while (!w.empty() && (w.back() == ',' || w.back() == ':')) w.remove_suffix(1);
            if (w.empty()) continue;
            if (w.front() == '-') {
                if (!short_before) group = out.size();
                out.push_back({.name = w, .takes_value = false, .values = r.values});
                short_before = w.size() == 2;
            } else {
                for (std::size_t k = group; k < out.size(); ++k) out[k].takes_value = true;
                group = out.size();
                short_before = false;
            }
        }
    }
    return out;
}

/// The spellings of every row of `groups`: what a command's parser takes, its man page and
/// its shell completion list.
[[nodiscard]] inline std::vector<option_spelling> option_spellings_of(
    std::initializer_list<std::span<const option_row>> groups) {
    std::vector<option_spelling> out;
    for (const auto rows : groups)
        for (const auto& s : option_spellings(rows)) out.push_back(s);
    return out;
}

/// True when `a` is one of `spellings` and takes a value (its row says so).
[[nodiscard]] inline bool takes_value(std::span<const option_spelling> spellings, std::string_view a) noexcept {
    for (const auto& s : spellings)
        if (s.name == a) return s.takes_value;
    return false;
}

/// The value of the option at `args[i]`, advancing `i` past it; nullopt when the option is
/// the last argument, with `error` saying so.
[[nodiscard]] inline std::optional<std::string_view> option_value(std::span<const std::string_view> args,
                                                                  std::size_t& i, std::string& error) {
    if (i + 1 < args.size()) return args[++i];
    error = "option " + std::string(args[i]) + " needs a value";
    return std::nullopt;
}

/// The names of `spellings`, for the known-option check and "did you mean".
[[nodiscard]] inline std::vector<std::string_view> option_names_of(std::span<const option_spelling> spellings) {
    std::vector<std::string_view> out;
    for (const auto& s : spellings) out.push_back(s.name);
    return out;
}

/// Whether `a` is one of `names` (`--format=X` counts as `--format` where that is one).
[[nodiscard]] inline bool known_option(std::string_view a, std::span<const std::string_view> names) {
    const std::size_t eq = a.find('=');
    const std::string_view base = a.starts_with("--") && eq != std::string_view::npos ? a.substr(0, eq) : a;
    for (const std::string_view n : names)
        if (n == a || (base != a && n == base && n == "--format")) return true;
    return false;
}

/// The usage error of an option `a` that command `cmd` does not know: exit 2, the message
/// with a "did you mean", the command's usage line (the first line of `help`) and where to
/// read more.
[[nodiscard]] inline outcome unknown_option(std::string_view cmd, std::string_view a,
                                            std::span<const std::string_view> names, std::string_view help) {
    outcome o;
    o.status = exit_usage;
    const std::string_view usage_line = help.substr(0, help.find('\n'));
    o.err = "mfprio " + std::string(cmd) + ": unknown option '" + std::string(a) + "'" + text::did_you_mean(a, names) +
            "\n" + std::string(usage_line) + "\nTry 'mfprio " + std::string(cmd) + " --help'.\n";
    return o;
}

/// Parses `--now`: epoch seconds or YYYY-MM-DDTHH:MM:SS (local time of TZ, UTC when unset),
/// from 1970-01-01 to 9999-12-31 (so that no time arithmetic downstream can overflow).
inline std::optional<std::int64_t> parse_now(std::string_view s) {
    std::int64_t v = 0;
    std::optional<std::int64_t> t;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc() && p == s.data() + s.size()) t = v;
    else t = config::parse_job_time(s);
    if (!t || *t < 0 || *t > config::max_epoch) return std::nullopt;
    return t;
}

/// Reads the value `v` of option `a` when `a` is one the Maui and Flux commands share:
/// `--now T` or `--explain JOBID`. Returns false for any other option; on a bad value,
/// `error` says what is wrong.
inline bool common_value(std::string_view a, std::string_view v, std::optional<std::int64_t>& now,
                         std::optional<std::uint32_t>& explain, std::string& error) {
    if (a == "--now") {
        now = parse_now(v);
        if (!now) error = "--now takes epoch seconds or YYYY-MM-DDTHH:MM:SS from 1970 to 9999, not '" + std::string(v) + "'";
        return true;
    }
    if (a == "--explain") {
        const auto id = config::parse_unsigned<std::uint32_t>(v);
        if (!id) error = "'" + std::string(v) + "' is not a job id";
        else explain = *id;
        return true;
    }
    return false;
}

using config::fairshare_source;
using config::parsed_cluster;

/// The error `e` into `o` (status exit_data); returns nullopt for the caller to return.
inline std::nullopt_t data_error(const input_error& e, outcome& o) {
    o.status = exit_data;
    o.err += "mfprio: " + e.to_string() + "\n";
    return std::nullopt;
}

/// inputs::parse_cluster, its error into `o`.
/// The configuration's warnings (config::slurm_conf::warnings) into `o.err`.
inline void conf_warnings(const config::slurm_conf& conf, outcome& o) {
    for (const auto& w : conf.warnings) o.err += "mfprio: warning: " + w + "\n";
}

inline std::optional<parsed_cluster> parse_cluster(const cluster_inputs& ci, outcome& o) {
    auto pc = inputs::parse_cluster(ci);
    if (!pc) return data_error(pc.error(), o);
    conf_warnings(pc->conf, o);
    return std::move(*pc);
}

/// config::build_cluster_model, its error into `o`.
inline std::optional<config::slurm_model> build_model(const parsed_cluster& pc, bool taken, outcome& o) {
    auto model = config::build_cluster_model(pc, taken);
    if (!model) return data_error(model.error(), o);
    return std::move(*model);
}

/// inputs::load_cluster, its error into `o`.
inline std::optional<loaded_cluster> load_cluster(const cluster_inputs& ci, fairshare_source fs, outcome& o,
                                                  bool cluster_output = false) {
    auto lc = inputs::load_cluster(ci, fs, cluster_output);
    if (!lc) return data_error(lc.error(), o);
    conf_warnings(lc->conf, o);
    return std::move(*lc);
}

/// The cluster inputs of `src`'s files or embedded texts.
inline std::optional<cluster_inputs> inputs_of(const slurm_sources& src, outcome& o) {
    if (src.texts != nullptr) {
        cluster_inputs ci;
        const std::string n(src.name);
        ci.conf.push_back({std::string(src.texts[0]), n + "/slurm.conf"});
        ci.qos = config::conf_input{std::string(src.texts[1]), n + "/qos.txt"};
        ci.assoc.push_back({std::string(src.texts[2]), n + "/assoc.txt"});
        ci.jobs = jobs_source(std::string(src.texts[3]), n + "/jobs.txt");
        return ci;
    }
    auto ci = read_cluster_files({.confs = src.confs, .assocs = src.assocs, .qos = src.qos, .jobs = src.jobs});
    if (!ci) return data_error(ci.error(), o);
    return std::move(*ci);
}

/// The options that say where a cluster's inputs come from (sprio lists them in full,
/// whatif and the bundle paths take them too).
inline constexpr option_row input_option_rows[] = {
    {"--conf FILE", "slurm.conf, or `scontrol show config`, `scontrol show partition` and\n"
                    "`scontrol show node` outputs (give --conf once for each; merged)"},
    {"--qos FILE", "`sacctmgr show qos -P` output (Name, Priority, UsageFactor columns)"},
    {"--assoc FILE", "`sshare -a -l -P` output, plus `scontrol show assoc_mgr` (exact usage)\n"
                     "and `sacctmgr show assoc -P` (association priority) outputs, merged"},
    {"--jobs FILE", "`squeue --json`, `scontrol show job` (-o or not), squeue's text with\n"
                    "the fields below, or a '|' jobs table\n"
                    "(JobID|User|Account|Partition|QOS|SubmitTime|...); - reads stdin"},
    {"--live", "run the Slurm commands on this host and use what they print"},
    {"--save DIR", "with --live: keep the captured outputs as a bundle in DIR (a new or\n"
                   "empty directory)"},
    {"--force", "with --save: replace the bundle DIR holds"},
    {"--from DIR", "replay a bundle written by --save"},
    {"--timeout S", "seconds the Slurm commands of --live may take together (default 60)"},
    {"--slurm-version V ", "print as Slurm V does (default: the version the inputs print,\n"
                           "else the newest); e.g. 22.05 has no ACCOUNT/QOSNAME in -l"},
    {"--fairshare M", "taken: sshare's FairShare column as the cluster computed it;\n"
                      "computed: from RawShares and RawUsage; auto (default): for a cluster's\n"
                      "own outputs (--live, --from, assoc_mgr given) taken, or computed where\n"
                      "that is exact (NO_FAIR_TREE without decay); else computed", fairshare_source_values},
};

/// The options `mfprio sprio` and `mfprio sshare` share for where a cluster comes from.
struct cluster_options {
    slurm_sources src;
    std::string from;        ///< --from DIR
    bool live = false;       ///< --live
    std::string save;        ///< --save DIR
    bool force = false;      ///< --force: --save replaces the bundle DIR holds
    std::string version;     ///< --slurm-version
    fairshare_source fs = fairshare_source::automatic;
    int timeout = 60;        ///< --timeout seconds for the Slurm commands, together
    bool usage_factors = false; ///< --live also asks sacctmgr for the QOS UsageFactor (charging usage)
    bool sprio_listing = false; ///< --live also runs sprio (the jobs' stored priorities are placed)
    /// With sprio_listing: called with sprio's output as soon as it is complete (capture_live).
    std::function<void(const std::string&)> sprio_done;
};

/// Reads the option at `args[i]` into `c` when it is one of these, advancing `i` past its
/// value. Returns false for any other option; `error` says what is wrong with a bad value or
/// a missing one.
inline bool cluster_option(std::span<const std::string_view> args, std::size_t& i, cluster_options& c,
                           std::string& error) {
    const std::string_view a = args[i];
    if (a == "--live" || a == "--force") {
        (a == "--live" ? c.live : c.force) = true;
        return true;
    }
    static const std::vector<option_spelling> spellings = option_spellings(input_option_rows);
    if (!takes_value(spellings, a)) return false;
    const std::optional<std::string_view> v = option_value(args, i, error);
    if (!v) return true;
    if (a == "--conf") c.src.confs.emplace_back(*v);
    else if (a == "--assoc") c.src.assocs.emplace_back(*v);
    else if (a == "--qos") c.src.qos = *v;
    else if (a == "--jobs") c.src.jobs = *v;
    else if (a == "--from") c.from = *v;
    else if (a == "--save") c.save = *v;
    else if (a == "--slurm-version") {
        if (config::slurm_version_number(*v) == 0) error = "--slurm-version takes a release such as 22.05 or 24.11.3, not '" + std::string(*v) + "'";
        c.version = *v;
    } else if (a == "--timeout") {
        const auto t = config::parse_unsigned<unsigned>(*v);
        if (!t || *t == 0 || *t > 3600) error = "--timeout takes seconds from 1 to 3600, not '" + std::string(*v) + "'";
        else c.timeout = static_cast<int>(*t);
    } else {
        if (*v == "taken") c.fs = fairshare_source::taken;
        else if (*v == "computed") c.fs = fairshare_source::computed;
        else if (*v == "auto") c.fs = fairshare_source::automatic;
        else error = "--fairshare takes taken, computed or auto, not '" + std::string(*v) + "'";
    }
    return true;
}

/// A usage error of `mfprio CMD` into `o` (status exit_usage): the sentence and where help is.
inline void usage_error(outcome& o, std::string_view cmd, const std::string& msg) {
    o.status = exit_usage;
    o.err += "mfprio " + std::string(cmd) + ": " + msg + "\nTry 'mfprio " + std::string(cmd) + " --help'.\n";
}

/// A command's usage errors: `usage(msg)` fills `o` (`usage_error`) and returns it.
inline auto usage_reporter(outcome& o, std::string_view cmd) {
    return [&o, cmd](const std::string& msg) {
        usage_error(o, cmd, msg);
        return o;
    };
}

/// What every command's option loop does first with an argument `a`: `--help` puts the
/// command's help into `o`; an option not in `names` makes `o` its usage error
/// (`unknown_option`). True when the command returns `o` there.
[[nodiscard]] inline bool help_or_unknown(outcome& o, std::string_view cmd, std::string_view a,
                                          std::span<const std::string_view> names, std::string_view help) {
    if (a == "--help") {
        o.out = help;
        return true;
    }
    if (known_option(a, names)) return false;
    o = unknown_option(cmd, a, names, help);
    return true;
}

/// The cluster's inputs as `c` says: files, a bundle, or the live cluster (saved when asked).
/// `need_jobs`: the jobs input is required. Returns nullopt with `o` filled on failure.
inline std::optional<cluster_inputs> gather_inputs(const cluster_options& c, bool need_jobs, std::string_view cmd,
                                                   outcome& o) {
    const auto usage = [&](const std::string& msg) {
        usage_error(o, cmd, msg);
        return std::nullopt;
    };
    const bool files = !c.src.confs.empty() || !c.src.assocs.empty() || !c.src.qos.empty() || !c.src.jobs.empty();
    if ((c.live ? 1 : 0) + (c.from.empty() ? 0 : 1) + (files ? 1 : 0) > 1)
        return usage("give the cluster one way: --live, --from DIR, or the input files");
    if (!c.save.empty() && !c.live) return usage("--save needs --live (a bundle is what --live captured)");
    if (c.force && c.save.empty()) return usage("--force goes with --save DIR");
    if (!c.save.empty())
        if (auto e = save_dir_error(c.save, c.force)) return usage(*e);
    std::optional<cluster_inputs> ci;
    if (c.live) {
        std::string err;
        std::string notes;
        ci = capture_live(err, c.timeout, c.usage_factors, &notes, c.sprio_listing, c.sprio_done);
        if (!notes.empty()) o.err += "mfprio " + std::string(cmd) + " --live: warning: " + notes;
        if (!ci) {
            o.status = exit_data;
            o.err += "mfprio " + std::string(cmd) + " --live: " + err + "\n";
            return std::nullopt;
        }
        if (!c.save.empty()) {
            // The version as the inputs print it, for the meta file.
            std::string v;
            (void)config::read_slurm_conf_inputs(ci->conf, &v);
            ci->slurm_version = v;
            if (auto e = save_bundle(*ci, c.save)) {
                o.status = exit_data;
                o.err += "mfprio " + std::string(cmd) + ": " + *e + "\n";
                return std::nullopt;
            }
        }
    } else if (!c.from.empty()) {
        auto b = read_bundle(c.from);
        if (!b) {
            o.status = exit_data;
            o.err += "mfprio: " + b.error().to_string() + "\n";
            return std::nullopt;
        }
        ci = std::move(*b);
    } else {
        if (c.src.confs.empty() || c.src.assocs.empty() || (need_jobs && (c.src.qos.empty() || c.src.jobs.empty())))
            return usage(need_jobs ? "--conf, --qos, --assoc and --jobs are required (or --live, or --from DIR)"
                                   : "--conf and --assoc are required (or --live, or --from DIR)");
        ci = inputs_of(c.src, o);
    }
    if (ci && !c.version.empty()) ci->slurm_version = c.version;
    return ci;
}


/// "  the input options of mfprio sprio (--conf, ..., --fairshare)", wrapped as the other
/// lines of a help are (for commands that take them without listing them again).
[[nodiscard]] inline std::string input_options_summary() {
    std::string out, line = "  the input options of mfprio sprio (";
    const auto spellings = option_spellings(input_option_rows);
    for (std::size_t k = 0; k < spellings.size(); ++k) {
        const std::string word = std::string(spellings[k].name) + (k + 1 < spellings.size() ? "," : ")");
        if (line.size() + 1 + word.size() > 90) {
            out += line + "\n";
            line = "  " + word;
        } else {
            line += (line.back() == '(' ? "" : " ") + word;
        }
    }
    return out + line + "\n";
}

/// `mfprio sprio`'s options: its --help lists them, its parser takes them and no other.
inline constexpr option_row sprio_option_rows[] = {
    {"--verify", "compare each job's priority as slurmctld holds it (squeue/scontrol\n"
                 "Priority) with mfprio's and, where sprio's own output is at hand (--live,\n"
                 "a --save bundle), every sprio row column by column; lists every\n"
                 "difference, exit 1 if any"},
    {"--now T", "time of the calculation: epoch seconds or YYYY-MM-DDTHH:MM:SS\n"
                "(TZ, else UTC); default: slurmctld's last recalculation for --live and\n"
                "--from (sprio shows the factors of that moment), else the current time"},
    {"-l, --long", "long format"},
    {"-n, --norm", "normalized (unweighted) factors"},
    {"-w, --weights", "print the weights only"},
    {"-o, --format F", slurm::sprio_format_help.view()},
    {"-S, --sort KEYS", slurm::sprio_sort_help.view()},
    {"-j, --jobs-ids L", "comma list of job ids (also -j L)"},
    {"-u, --user L", "comma list of users"},
    {"-p, --partition L", "comma list of partitions"},
    {"-h, --noheader", "no header line"},
    {"--explain JOBID", "a plain-language breakdown of one job's priority"},
    {"--site-policy FILE", "the SITE column as site_factor/mfprio computes it from this policy\n"
                           "(PrioritySiteFactorParameters=policy=FILE): at the recalculation, or\n"
                           "at submission for a job submitted since"},
    {"--site-snapshot DIR", "the plugin's snapshot=DIR (DIR/site_factor_snapshot): its last\n"
                            "update's time, and the usage slurmctld's last recalculation used\n"
                            "(classic and depth-oblivious fair-share exact; GPU usage)"},
    {"--help", "this text"},
};

inline const std::vector<option_spelling> sprio_option_spellings = option_spellings_of({input_option_rows, sprio_option_rows});
inline const std::vector<std::string_view> sprio_option_names = option_names_of(sprio_option_spellings);

inline const std::string sprio_help = render_help(
    "usage: mfprio sprio --conf FILE... --qos FILE --assoc FILE... --jobs FILE [options]\n"
    "       mfprio sprio --live [--save DIR] [options]\n"
    "       mfprio sprio --from DIR [options]\n"
    "\n"
    "Prints what Slurm's sprio prints, computed by mfprio from the cluster's configuration,\n"
    "QOS, associations and jobs, in the formats Slurm prints them (told apart by content).\n"
    "\n",
    {input_option_rows, sprio_option_rows}, 19,
    
    "\n"
    "squeue's text: squeue -a -r -h -t all -O \"JobID:0|,JobArrayID:0|,UserName:0|,Account:0|,\n"
    "  Partition:0|,QOS:0|,SubmitTime:0|,EligibleTime:0|,AccrueTime:0|,NumNodes:0|,NumCPUs:0|,\n"
    "  TimeLimit:0|,Nice:0|,tres-alloc:0|,State:0|,PriorityLong:0\"   (one line, no spaces; -r and\n"
    "  JobArrayID keep an array's tasks and a task split off from it apart)\n"
    "\n"
    "A busy cluster: jobs submitted, released or requeued since slurmctld's last recalculation\n"
    "are listed with the age 0 they were computed with, a job updated since then with the age\n"
    "its stored priority points to. A priority an administrator set is shown as sprio shows it\n"
    "where sprio's own output (--live runs sprio) shows it so; any other stored priority mfprio\n"
    "cannot reproduce is named on stderr with the columns where sprio's row differs.\n"
    "\n"
    "Example: mfprio sprio --live -l --save bundle; later: mfprio sprio --from bundle -l\n");

[[nodiscard]] inline sprio_times times_of(const cluster_inputs& ci, std::optional<std::int64_t> now) {
    sprio_times t;
    t.from_cluster = !now && ci.calc_time;
    t.calc = now ? *now : ci.calc_time ? *ci.calc_time : static_cast<std::int64_t>(std::time(nullptr));
    t.listed = !now && ci.captured && *ci.captured >= t.calc ? *ci.captured : t.calc;
    return t;
}

/// What sprio printed, read from the inputs when they hold it (a bundle's sprio_factors.txt,
/// or --live's own run of sprio); nullopt without, and with `failed` set (exit 65 in `o`) when
/// it does not read.
/// `read`: the listing already read (sprio_listing_reader), else it is read here.
[[nodiscard]] inline std::optional<config::sprio_listing>
sprio_listing_of(const cluster_inputs& ci, bool& failed, outcome& o,
                 std::future<expected<config::sprio_listing>>* read = nullptr) {
    if (!ci.sprio) return std::nullopt;
    auto l = read != nullptr && read->valid() ? read->get() : config::parse_sprio_listing(ci.sprio->text, ci.sprio->name);
    if (!l) {
        failed = true;
        return data_error(l.error(), o);
    }
    return std::move(*l);
}

/// Starts reading what sprio printed (tens of thousands of rows on a busy cluster) on a thread
/// of its own, for sprio_listing_of to take, while the caller waits for the other outputs or
/// reads them and builds the model: `text` as named in cluster_inputs::sprio.
[[nodiscard]] inline std::future<expected<config::sprio_listing>> sprio_listing_reader(std::string text) {
    return std::async(std::launch::async, [t = std::move(text)] {
        return config::parse_sprio_listing(t, "live:" + std::string(sprio_listing_file().name));
    });
}
/// The same for a listing in `ci` (a bundle's); no future without one. `ci` must outlive it.
[[nodiscard]] inline std::future<expected<config::sprio_listing>> sprio_listing_reader(const cluster_inputs& ci) {
    if (!ci.sprio) return {};
    return std::async(std::launch::async,
                      [&ci] { return config::parse_sprio_listing(ci.sprio->text, ci.sprio->name); });
}

/// The rows of each job in a listing of sprio rows: found by job id in O(log n), for the
/// checks that visit every job (a busy cluster has tens of thousands of rows).
class rows_by_job {
public:
    explicit rows_by_job(std::span<const report::sprio_row> rows) : rows_(rows) {
        order_.reserve(rows.size());
        for (std::size_t i = 0; i < rows.size(); ++i) order_.emplace_back(rows[i].job_id, i);
        std::sort(order_.begin(), order_.end()); // by id, then listing order
    }
    /// Calls `f(row)` for each row of job `id`, in listing order.
    template <class F> void each(std::uint32_t id, F&& f) const {
        auto it = std::lower_bound(order_.begin(), order_.end(), std::pair<std::uint32_t, std::size_t>{id, 0});
        for (; it != order_.end() && it->first == id; ++it) f(rows_[it->second]);
    }
    /// mfprio's priorities of job `id`, one a row ("40387" or "4000, 2500"); empty when it has none.
    [[nodiscard]] std::string priorities(std::uint32_t id) const {
        std::string list;
        each(id, [&](const report::sprio_row& r) {
            list += (list.empty() ? "" : ", ") + std::to_string(static_cast<long long>(r.priority()));
        });
        return list;
    }

private:
    std::span<const report::sprio_row> rows_;
    std::vector<std::pair<std::uint32_t, std::size_t>> order_;
};

/// What differs in each job's sprio rows (report::sprio_difference::what, joined by "; "), by job id.
[[nodiscard]] inline std::unordered_map<std::uint32_t, std::string>
differences_by_job(std::span<const report::sprio_difference> diffs) {
    std::unordered_map<std::uint32_t, std::string> why;
    for (const auto& d : diffs) {
        std::string& w = why[d.job_id];
        w += (w.empty() ? "" : "; ") + d.what();
    }
    return why;
}

/// Names on standard error each job whose priority as slurmctld holds it mfprio cannot
/// reproduce (config::priority_origin::unexplained): its stored and computed priorities, and
/// the columns in which sprio's own rows differ from mfprio's where sprio's output is at hand.
/// mfprio's rows for it stay its own computation: nothing is explained away.
inline void name_unexplained(const loaded_cluster& lc, std::span<const report::sprio_row> rows,
                             const config::stored_priorities& placed, std::span<const report::sprio_difference> diffs,
                             bool have_listing, std::string_view cmd, outcome& o) {
    const auto& m = lc.model;
    std::optional<rows_by_job> by_job;
    const auto whys = differences_by_job(diffs);
    for (std::size_t k = 0; k < placed.origin.size() && k < m.jobs.size(); ++k) {
        if (placed.origin[k] != config::priority_origin::unexplained) continue;
        if (!by_job) by_job.emplace(rows);
        const std::uint32_t id = m.jobs[k].id;
        const std::string ours = by_job->priorities(id);
        if (ours.empty()) continue; // sprio does not list it: slurmctld's pass skips it too
        const auto found = whys.find(id);
        std::string why = found == whys.end() ? std::string() : found->second;
        if (why.empty())
            why = have_listing ? "sprio's rows for it equal mfprio's: the stored priority was computed at a moment "
                                 "or from inputs the outputs do not show"
                               : "no sprio output here to tell which factor differs (--live runs sprio; --save keeps "
                                 "its output in the bundle)";
        o.err += "mfprio " + std::string(cmd) + ": job " + std::to_string(id) + ": slurmctld holds priority " +
                 std::to_string(*m.current_priorities[k]) + ", mfprio computes " + ours +
                 ", and sprio does not show it as set by an administrator: " + why + "\n";
    }
}

/// The weights sprio's rows show where they are not the configured ones
/// (report::weights_shown), said on standard error. Where slurm.conf changed after slurmctld's
/// last recalculation (a reconfigure: slurmctld keeps each job's factors of the weights before
/// until its next one) and the rows show one weight for each such column, `lc` takes those
/// weights and its jobs as they were before placement (`unplaced`), for the caller to place
/// and compute again, and true is
/// returned: what slurmctld holds is shown. Otherwise mfprio's inputs differ from what
/// slurmctld computed with, and the rows stay as computed.
[[nodiscard]] inline bool held_weights(loaded_cluster& lc, std::span<const job> unplaced,
                                       std::span<const report::sprio_row> rows, const report::sprio_weights& w,
                                       const config::sprio_listing& listing, const cluster_inputs& ci,
                                       const sprio_times& t, std::string_view cmd, outcome& o) {
    const auto shown = report::weights_shown(rows, w, listing);
    if (shown.empty()) return false;
    std::string list;
    bool unique = true;
    for (const auto& s : shown) {
        list += (list.empty() ? "" : ", ") + s.value_text() + " (configured " + std::to_string(s.configured) + ", " +
                std::to_string(s.rows) + " rows)";
        unique = unique && s.unique();
    }
    const bool reconfigured = ci.conf_changed && *ci.conf_changed >= t.calc;
    const std::string prefix = "mfprio " + std::string(cmd) + ": sprio's rows show the factors of " + list;
    if (!reconfigured || !unique) {
        o.err += prefix + "; " +
                 (reconfigured ? std::string("more than one weight gives them")
                  : ci.conf_changed
                      ? std::string("slurm.conf has not changed since slurmctld's last recalculation: mfprio's "
                                    "inputs differ from what slurmctld computed with")
                      : std::string("when slurm.conf last changed is not in the inputs: a reconfigure since "
                                    "slurmctld's last recalculation cannot be told from inputs that differ")) +
                 "\n";
        return false;
    }
    o.err += prefix + ": slurm.conf changed at " + std::to_string(*ci.conf_changed) +
             ", after slurmctld's last recalculation at " + std::to_string(t.calc) +
             ", and slurmctld keeps each job's factors of the weights before until its next one; shown as it holds "
             "them\n";
    lc.model.jobs.assign(unplaced.begin(), unplaced.end());
    for (const auto& s : shown) {
        const auto v = static_cast<std::uint32_t>(s.low);
        switch (s.column) {
        case config::sprio_column::age: lc.model.weights.age = v; break;
        case config::sprio_column::assoc: lc.model.weights.assoc = v; break;
        case config::sprio_column::fairshare: lc.model.weights.fairshare = v; break;
        case config::sprio_column::job_size: lc.model.weights.job_size = v; break;
        case config::sprio_column::partition: lc.model.weights.partition = v; break;
        case config::sprio_column::qos: lc.model.weights.qos = v; break;
        default: break;
        }
    }
    return true;
}

/// `--verify`: each pending job's priority as slurmctld holds it against mfprio's, for the
/// partition slurmctld computed it for (a multi-partition job's stored priority is the one of
/// one of its partitions: any of them matches), and, where sprio's own output is at hand
/// (`diffs`), every row and column of it against mfprio's. Lists every difference, and the
/// jobs whose stored priority was placed otherwise than at the last recalculation; exit 1
/// when a job differs.
inline void verify_priorities(const loaded_cluster& lc, std::span<const report::sprio_row> rows,
                              const config::stored_priorities& placed, std::span<const report::sprio_difference> diffs,
                              bool have_listing, outcome& o) {
    const auto& m = lc.model;
    std::size_t compared = 0;
    std::vector<std::uint32_t> differ;
    const rows_by_job by_job(rows);
    for (std::size_t k = 0; k < m.jobs.size(); ++k) {
        if (!m.current_priorities[k]) continue;
        const std::uint32_t id = m.jobs[k].id;
        const std::string ours = by_job.priorities(id);
        if (ours.empty()) continue; // not listed by sprio: not recalculated
        ++compared;
        const auto origin = k < placed.origin.size() ? placed.origin[k] : config::priority_origin::unknown;
        if (origin == config::priority_origin::administrator) {
            o.out += "job " + std::to_string(id) + ": " + std::to_string(*m.current_priorities[k]) +
                     ": set by an administrator (sprio shows it so)\n";
            continue;
        }
        if (origin == config::priority_origin::without_age)
            o.out += "job " + std::to_string(id) + ": computed since the last recalculation, before it accrued age\n";
        else if (origin == config::priority_origin::updated)
            o.out += "job " + std::to_string(id) + ": computed at an update since the last recalculation (at " +
                     std::to_string(placed.computed_at[k]) + ", inferred)\n";
        const long long theirs = *m.current_priorities[k];
        bool found = m.jobs[k].admin_priority != 0;
        long long first = -1;
        by_job.each(id, [&](const report::sprio_row& r) {
            const auto v = static_cast<long long>(r.priority());
            if (first < 0) first = v;
            found = found || v == theirs;
        });
        if (found) continue;
        differ.push_back(id);
        o.out += "job " + std::to_string(id) + ": slurmctld " + std::to_string(theirs) + ", mfprio " + ours + " (" +
                 std::to_string(theirs - first) + ")\n";
    }
    for (const auto& d : diffs) {
        o.out += d.to_string() + "\n";
        differ.push_back(d.job_id);
    }
    std::sort(differ.begin(), differ.end());
    differ.erase(std::unique(differ.begin(), differ.end()), differ.end());
    o.out += "verify: " + std::to_string(compared) + " jobs compared, " + std::to_string(differ.size()) + " differ (" +
             (have_listing ? "stored priorities, and sprio's own rows column by column"
                           : "stored priorities only: no sprio output in the inputs") +
             ")\n";
    if (!differ.empty()) o.status = 1;
}

/// Sets each pending job's site factor as site_factor/mfprio computes it with `site`: at its
/// last update pass `calc` (site_factor_p_update), or at submission for a job submitted
/// after it (site_factor_p_set). The association's GPU usage is `gpu_at_pass`'s (the
/// plugin's snapshot) for a job of the pass where given, else `gpu_now`'s (assoc_mgr's: the
/// usage changes at each recalculation and when a job ends, not in between).
inline void apply_site_policy(const queue::site_engine& site, config::slurm_model& model, std::int64_t calc,
                              std::span<const std::optional<std::uint64_t>> gpu_now,
                              std::span<const std::optional<std::uint64_t>> gpu_at_pass = {}) {
    const auto gpu = model.cluster.find_tres("gres/gpu");
    const auto ctx = model.context(calc);
    for (std::size_t k = 0; k < model.jobs.size(); ++k) {
        job& j = model.jobs[k];
        if (j.state != job_state::pending) continue;
        const std::int64_t begin = k < model.begin_times.size() ? model.begin_times[k] : 0;
        const bool at_pass = j.submit_time <= calc;
        const std::int64_t at = at_pass ? calc : j.submit_time;
        const auto partitions = k < model.lists.size() ? model.lists[k].partitions : std::span<const std::uint32_t>{};
        std::optional<std::uint64_t> used;
        if (at_pass && j.association < gpu_at_pass.size()) used = gpu_at_pass[j.association];
        if (!used && j.association < gpu_now.size()) used = gpu_now[j.association];
        const auto value = site.priority(queue::site_job_of(j, ctx, at_pass ? begin : 0, gpu, partitions, used.value_or(0)),
                                         queue::site_context{at});
        j.site_factor = static_cast<std::int32_t>(value);
    }
}

/// The association of each job whose fair-share factor slurmctld computes in a pass at
/// `pass`, in the order of its job list (job id order): pending and not held; then the jobs
/// submitted since, in the same order. (slurmctld also skips a job whose priority an
/// administrator set, which the inputs do not tell apart: one counts here as needing it.)
[[nodiscard]] inline std::vector<std::size_t> needing_fairshare(const config::slurm_model& m, std::int64_t pass) {
    std::vector<std::size_t> order;
    for (std::size_t k = 0; k < m.jobs.size(); ++k)
        if (m.jobs[k].state == job_state::pending) order.push_back(k);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const bool late_a = m.jobs[a].submit_time > pass, late_b = m.jobs[b].submit_time > pass;
        if (late_a != late_b) return late_b;
        return m.jobs[a].id < m.jobs[b].id;
    });
    std::vector<std::size_t> out;
    out.reserve(order.size());
    for (const std::size_t k : order) out.push_back(m.jobs[k].association);
    return out;
}

/// The plugin's snapshot in `dir` when it stands for slurmctld's last recalculation `calc`
/// (taken within PriorityCalcPeriod after it); nullopt with a warning in `o.err` when it
/// is older (the plugin did not run at it) or newer (a recalculation under way), and with
/// an error (exit 65) when it cannot be read.
[[nodiscard]] inline std::optional<config::site_snapshot> read_site_snapshot(const std::string& dir, std::int64_t calc,
                                                                             std::int64_t period, bool& failed, outcome& o) {
    const std::string path = dir + "/" + std::string(config::site_snapshot_file);
    auto text = text::read_text_file(path, text::max_input_bytes, text::file_source::regular);
    if (text) {
        auto s = config::parse_site_snapshot(*text, path);
        if (s) {
            if (s->pass < calc)
                o.err += "mfprio sprio: warning: " + path + " is older than slurmctld's last recalculation (" +
                         std::to_string(s->pass) + " < " + std::to_string(calc) +
                         "): the plugin did not run at it; not used\n";
            else if (s->pass >= calc + (period > 0 ? period : 1))
                o.err += "mfprio sprio: warning: " + path + " is newer than slurmctld's last recalculation (" +
                         std::to_string(s->pass) + " >= " + std::to_string(calc) + " + PriorityCalcPeriod): a "
                         "recalculation is under way; not used, run again\n";
            else
                return std::move(*s);
            return std::nullopt;
        }
        text = s.error();
    }
    failed = true;
    o.status = exit_data;
    o.err += "mfprio: " + text.error().to_string() + "\n";
    return std::nullopt;
}

/// The job ids of a comma-separated list (sprio's -j) into `out`; the usage error naming the
/// first that is not one.
[[nodiscard]] inline std::optional<std::string> parse_job_ids(std::string_view list, std::vector<std::uint32_t>& out) {
    for (const auto& id : split_list(list)) {
        std::uint32_t n = 0;
        const auto [p, ec] = std::from_chars(id.data(), id.data() + id.size(), n);
        if (ec != std::errc() || p != id.data() + id.size()) return "'" + id + "' is not a job id";
        out.push_back(n);
    }
    return std::nullopt;
}

/// Classic and depth-oblivious fair-share as slurmctld computed it in the snapshot's pass (read
/// from `dir`), set into `lc`'s model (Fair Tree's factors are ranks, exact from sshare
/// already). False, with the error in `o` (exit 65), when the snapshot and the tables disagree.
[[nodiscard]] inline bool snapshot_fairshare_taken(loaded_cluster& lc, const config::site_snapshot& snapshot,
                                                   const std::string& dir, outcome& o) {
    const auto& flags = lc.conf.flags;
    const bool depth_oblivious = flags.has(slurm::priority_flag::depth_oblivious);
    if (!depth_oblivious && flags.has(slurm::priority_flag::fair_tree)) return true;
    const std::string path = dir + "/" + std::string(config::site_snapshot_file);
    auto fs = config::snapshot_fairshare(snapshot, lc.assoc, needing_fairshare(lc.model, snapshot.pass), depth_oblivious,
                                         lc.conf.fairshare_dampening, path);
    if (!fs) {
        o.status = exit_data;
        o.err += "mfprio: " + fs.error().to_string() + "\n";
        return false;
    }
    for (std::size_t i = 0; i < fs->size(); ++i)
        if (lc.assoc.rows[i].is_user()) lc.model.cluster.set_fairshare(static_cast<std::uint32_t>(i), (*fs)[i]);
    lc.fairshare_taken = false;
    return true;
}

/// sprio's rows in the window after a reconfigure: the factors slurmctld holds (`held`, from
/// its last recalculation) but, for a job in several partitions, the PARTITION term with the
/// weight of the moment (`now`), as sprio's _filter_job computes it.
[[nodiscard]] inline std::vector<report::sprio_row> sprio_rows_after_reconfigure(std::vector<report::sprio_row> held,
                                                                                 const std::vector<report::sprio_row>& now) {
    if (held.size() != now.size()) return held;
    for (std::size_t k = 0; k < held.size(); ++k) {
        const auto& r = held[k];
        const auto other_partition = [&](std::size_t i) { return held[i].job_id == r.job_id && held[i].partition != r.partition; };
        const bool several = (k > 0 && other_partition(k - 1)) || (k + 1 < held.size() && other_partition(k + 1));
        if (several && held[k].direct_priority == 0) held[k].factors.part = now[k].factors.part;
    }
    return held;
}

/// `mfprio sprio --explain JOB`: each of the job's rows explained; a job sprio does not list is
/// an error naming the jobs input `where` and, when the job is in it, its line.
inline void explain_sprio_job(std::span<const report::sprio_row> rows, const report::sprio_weights& w,
                              const config::slurm_model& model, std::string where, std::uint32_t id, outcome& o) {
    bool found = false;
    for (const auto& r : rows)
        if (r.job_id == id) {
            o.out += report::render_explain(r, w);
            found = true;
        }
    if (found) return;
    bool in_input = false;
    for (std::size_t k = 0; k < model.jobs.size() && k < model.job_lines.size(); ++k)
        if (job_traits<job>::id(model.jobs[k]) == id) {
            where += ":" + std::to_string(model.job_lines[k]);
            in_input = true;
            break;
        }
    o.status = exit_data;
    o.err += "mfprio: " + where + ": job " + std::to_string(id) +
             (in_input ? " is not listed by sprio (held, not pending, or not yet eligible)\n" : " is not in the jobs input\n");
}

/// `mfprio lint`'s options: its --help lists them, its parser takes them and no other.
inline constexpr option_row lint_option_rows[] = {
    {"--conf FILE", "slurm.conf"},
    {"--assoc FILE", "association table (sshare -a -l -P), with --conf"},
    {"--maui-cfg FILE", "maui.cfg"},
    {"--site-policy FILE", "a policy of site_factor/mfprio (PrioritySiteFactorParameters=policy=FILE)"},
    {"--help", "this text"},
};

inline const std::vector<option_spelling> lint_option_spellings = option_spellings_of({lint_option_rows});
inline const std::vector<std::string_view> lint_option_names = option_names_of(lint_option_spellings);

inline const std::string lint_help = render_help(
    "usage: mfprio lint --conf FILE [--assoc FILE]\n"
    "       mfprio lint --maui-cfg FILE\n"
    "       mfprio lint --site-policy FILE\n"
    "\n"
    "With --site-policy, reads the policy as site_factor/mfprio reads it: an error names its\n"
    "file, line, column and what is wrong (exit 65), as the plugin logs it.\n"
    "\n"
    "With --maui-cfg, lists what Maui 3.3 accepts in maui.cfg but reads otherwise than it\n"
    "looks: weights and caps read as C's strtol and int (1.5 is 1, 010 is 8; -1 and ten\n"
    "are refused and the default stays), a group's CLASSWEIGHT (no effect in Maui 3.3),\n"
    "percentage component weights (10), FSDEPTH above 24, FSDECAY above 1, the documentation's\n"
    "parameter names Maui 3.3 ignores (SERVWEIGHT, SERVICECAP, PREEMPTPRIOMARGIN...) and\n"
    "unknown names ending in WEIGHT or CAP, with the closest known name.\n"
    "\n"
    "With --conf, checks slurm.conf's priority settings:\n"
    "  - the six integer weights must not add up past 2^32-1 (Slurm: \"PriorityWeight values too high\");\n"
    "  - for each weight, the smallest factor difference that still changes the priority after\n"
    "    truncation to an integer (seed 000: with a weight of 10, fair-share factors .59534 and\n"
    "    .50002 give the same priority);\n"
    "  - age and fair-share weights are ignored unless AccountingStorageType=accounting_storage/slurmdbd;\n"
    "  - PriorityFlags words that are no flag (Slurm ignores them: NO_FAIR_TRE leaves Fair Tree on)\n"
    "    and misspelled Priority keys, with the closest known name;\n"
    "  - with --assoc, under Fair Tree, the fair-share weight against the number of user\n"
    "    associations (the factor moves in steps of 1/N).\n"
    "\n",
    {lint_option_rows}, 20,
    "Exit status 0 when nothing is wrong, 1 when a warning was printed.\n"
    "\n"
    "Example: mfprio lint --conf /etc/slurm/slurm.conf; mfprio lint --maui-cfg maui.cfg\n");

/// `mfprio lint --maui-cfg FILE`: maui.cfg's warnings, one a line, exit 1 when there is one.
inline outcome run_lint_maui(const std::string& path) {
    outcome o;
    auto cfg = config::read_maui_cfg(path);
    if (!cfg) {
        o.status = exit_data;
        o.err = "mfprio: " + cfg.error().to_string() + "\n";
        return o;
    }
    for (const auto& w : cfg->warnings) o.out += "warning: " + w.to_string() + "\n";
    if (cfg->warnings.empty()) o.out = "ok: Maui 3.3 reads " + path + " as written\n";
    else o.status = 1;
    return o;
}

} // namespace mfprio::cli
