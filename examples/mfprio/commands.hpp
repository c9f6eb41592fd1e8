#pragma once
// The mfprio command-line tool's commands, as functions from arguments to output text and
// an exit status, so that tests can run them without a process. main.cpp only dispatches.
//
// Exit status: 0 success, 2 usage error, 65 bad input data (sysexits' EX_DATAERR).

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <mfprio/config/assoc_table.hpp>
#include <mfprio/config/jobs_table.hpp>
#include <mfprio/config/qos_table.hpp>
#include <mfprio/config/slurm_conf.hpp>
#include <mfprio/config/slurm_fairshare.hpp>
#include <mfprio/config/slurm_model.hpp>
#include <mfprio/config/text.hpp>
#include <mfprio/report/sprio.hpp>

namespace mfprio::cli {

inline constexpr int exit_ok = 0;
inline constexpr int exit_usage = 2;
inline constexpr int exit_data = 65;

/// What a command printed and how it ended.
struct outcome {
    int status = exit_ok;
    std::string out;
    std::string err;
};

/// Where a command's Slurm inputs come from: files, or texts (the demo's embedded data).
struct slurm_sources {
    std::string conf, qos, assoc, jobs;   ///< file paths
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

/// Parses `--now`: epoch seconds or YYYY-MM-DDTHH:MM:SS (local time of TZ, UTC when unset).
inline std::optional<std::int64_t> parse_now(std::string_view s) {
    std::int64_t v = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc() && p == s.data() + s.size()) return v;
    return config::parse_job_time(s);
}

/// Reads the value `v` of option `a` when `a` is one the Maui and Flux commands share:
/// `--now T` or `--explain JOBID`. Returns false for any other option; on a bad value,
/// `error` says what is wrong.
inline bool common_value(std::string_view a, std::string_view v, std::optional<std::int64_t>& now,
                         std::optional<std::uint32_t>& explain, std::string& error) {
    if (a == "--now") {
        now = parse_now(v);
        if (!now) error = "--now takes epoch seconds or YYYY-MM-DDTHH:MM:SS, not '" + std::string(v) + "'";
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

/// Loads the four Slurm inputs into a model. On failure, `o` holds the message and status.
inline std::optional<config::slurm_model> load_slurm(const slurm_sources& src, outcome& o) {
    const auto fail = [&](const input_error& e) {
        o.status = exit_data;
        o.err += "mfprio: " + e.to_string() + "\n";
        return std::nullopt;
    };
    auto conf = src.texts ? config::parse_slurm_conf(src.texts[0], std::string(src.name) + "/slurm.conf")
                          : config::read_slurm_conf(src.conf);
    if (!conf) return fail(conf.error());
    auto qos = src.texts ? config::parse_qos_table(src.texts[1], std::string(src.name) + "/qos.txt")
                         : config::read_qos_table(src.qos);
    if (!qos) return fail(qos.error());
    auto assoc = src.texts ? config::parse_assoc_table(src.texts[2], std::string(src.name) + "/assoc.txt")
                           : config::read_assoc_table(src.assoc);
    if (!assoc) return fail(assoc.error());
    auto jobs = src.texts ? config::parse_jobs_table(src.texts[3], std::string(src.name) + "/jobs.txt", *conf, *qos, *assoc)
                          : config::read_jobs_table(src.jobs, *conf, *qos, *assoc);
    if (!jobs) return fail(jobs.error());
    auto model = config::build_slurm_model(*conf, *qos, *assoc, *jobs, src.texts ? src.name : std::string_view(src.conf));
    if (!model) return fail(model.error());
    // With RawUsage in the association table, fair-share is computed (the algorithm
    // slurm.conf selects) instead of taken from its FairShare column.
    const std::string assoc_name = src.texts ? std::string(src.name) + "/assoc.txt" : src.assoc;
    auto computed = config::apply_computed_fairshare(model->cluster, *assoc, config::fairshare_options_of(*conf), assoc_name);
    if (!computed) return fail(computed.error());
    return std::move(*model);
}

inline constexpr std::string_view sprio_help =
    "usage: mfprio sprio --conf FILE --qos FILE --assoc FILE --jobs FILE [options]\n"
    "\n"
    "Prints what Slurm's sprio prints for the jobs of a jobs table, computed by mfprio from\n"
    "slurm.conf, `sacctmgr show qos -P` output, `sshare -a -P -l` output and a jobs table.\n"
    "\n"
    "  --conf FILE      slurm.conf (Priority* keys, NodeName and PartitionName lines)\n"
    "  --qos FILE       QOS table: Name|Priority|UsageFactor\n"
    "  --assoc FILE     association table (sshare -a -P -l); its FairShare column is used\n"
    "  --jobs FILE      jobs table (JobID|User|Account|Partition|QOS|SubmitTime|...)\n"
    "  --now T          time of the calculation: epoch seconds or YYYY-MM-DDTHH:MM:SS\n"
    "                   (TZ, else UTC); default: the current time\n"
    "  -l, --long       long format\n"
    "  -n, --norm       normalized (unweighted) factors\n"
    "  -w, --weights    print the weights only\n"
    "  -o, --format F   output format, e.g. \"%.15i %9r %.10Y %.10F\"\n"
    "  -S, --sort KEYS  sort keys (default i); '-' before a key sorts it descending\n"
    "  -j, --jobs-ids L comma list of job ids (also -j L)\n"
    "  -u, --user L     comma list of users\n"
    "  -p, --partition L comma list of partitions\n"
    "  -h, --noheader   no header line\n"
    "  --explain JOBID  a plain-language breakdown of one job's priority\n"
    "  --help           this text\n";

/// `mfprio sprio ...`
inline outcome run_sprio(std::span<const std::string_view> args, const slurm_sources* embedded = nullptr) {
    outcome o;
    slurm_sources src;
    report::sprio_options opt;
    std::optional<std::int64_t> now;
    std::optional<std::uint32_t> explain;
    const auto usage = [&](std::string msg) {
        o.status = exit_usage;
        o.err += "mfprio sprio: " + msg + "\nTry 'mfprio sprio --help'.\n";
        return o;
    };
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view a = args[i];
        const auto value = [&]() -> std::optional<std::string_view> {
            if (i + 1 >= args.size()) return std::nullopt;
            return args[++i];
        };
        if (a == "--help") {
            o.out = sprio_help;
            return o;
        }
        if (a == "-l" || a == "--long") opt.long_list = true;
        else if (a == "-n" || a == "--norm") opt.normalized = true;
        else if (a == "-w" || a == "--weights") opt.weights = true;
        else if (a == "-h" || a == "--noheader") opt.no_header = true;
        else if (a == "--conf" || a == "--qos" || a == "--assoc" || a == "--jobs" || a == "--now" || a == "-o" ||
                 a == "--format" || a == "-j" || a == "--jobs-ids" || a == "-u" || a == "--user" || a == "-p" ||
                 a == "--partition" || a == "--explain" || a == "-S" || a == "--sort") {
            auto v = value();
            if (!v) return usage(std::string("option ") + std::string(a) + " needs a value");
            if (a == "--conf") src.conf = *v;
            else if (a == "--qos") src.qos = *v;
            else if (a == "--assoc") src.assoc = *v;
            else if (a == "--jobs") src.jobs = *v;
            else if (a == "--now") {
                now = parse_now(*v);
                if (!now) return usage("--now takes epoch seconds or YYYY-MM-DDTHH:MM:SS, not '" + std::string(*v) + "'");
            } else if (a == "-o" || a == "--format") opt.format = *v;
            else if (a == "-S" || a == "--sort") opt.sort = *v;
            else if (a == "-u" || a == "--user") opt.users = split_list(*v);
            else if (a == "-p" || a == "--partition") opt.partitions = split_list(*v);
            else if (a == "-j" || a == "--jobs-ids" || a == "--explain") {
                for (const auto& id : split_list(*v)) {
                    std::uint32_t n = 0;
                    const auto [p, ec] = std::from_chars(id.data(), id.data() + id.size(), n);
                    if (ec != std::errc() || p != id.data() + id.size())
                        return usage("'" + id + "' is not a job id");
                    if (a == "--explain") explain = n;
                    else opt.jobs.push_back(n);
                }
            }
        } else if (a.starts_with("--format=")) opt.format = a.substr(9);
        else return usage("unknown option '" + std::string(a) + "'");
    }
    if (opt.long_list && !opt.format.empty()) return usage("-l and -o cannot be used together");
    if (embedded == nullptr) {
        if (src.conf.empty() || src.qos.empty() || src.assoc.empty() || src.jobs.empty())
            return usage("--conf, --qos, --assoc and --jobs are required");
    } else {
        src = *embedded;
    }
    auto model = load_slurm(src, o);
    if (!model) return o;
    const std::int64_t t = now ? *now : static_cast<std::int64_t>(std::time(nullptr));
    const auto ctx = model->context(t);
    const auto engine = model->engine();
    auto rows = report::sprio_rows(engine, model->cluster, std::span<const job>(model->jobs),
                                   std::span<const slurm::job_lists>(model->lists), ctx, model->settings.flags,
                                   model->user_names);
    const report::sprio_weights w{model->weights, model->tres_weight_text};
    if (explain) {
        bool found = false;
        for (const auto& r : rows)
            if (r.job_id == *explain) {
                o.out += report::render_explain(r, w);
                found = true;
            }
        if (!found) {
            o.status = exit_data;
            o.err += "mfprio sprio: job " + std::to_string(*explain) + " is not listed by sprio (unknown, held, not pending, or not yet eligible)\n";
        }
        return o;
    }
    auto res = report::render_sprio(std::move(rows), w, opt);
    if (!res.error.empty()) return usage(res.error);
    o.out = std::move(res.text);
    return o;
}

inline constexpr std::string_view lint_help =
    "usage: mfprio lint --conf FILE [--assoc FILE]\n"
    "\n"
    "Checks slurm.conf's priority settings:\n"
    "  - the six integer weights must not add up past 2^32-1 (Slurm: \"PriorityWeight values too high\");\n"
    "  - for each weight, the smallest factor difference that still changes the priority after\n"
    "    truncation to an integer (seed 000: with a weight of 10, fair-share factors .59534 and\n"
    "    .50002 give the same priority);\n"
    "  - age and fair-share weights are ignored unless AccountingStorageType=accounting_storage/slurmdbd;\n"
    "  - with --assoc, under Fair Tree, the fair-share weight against the number of user\n"
    "    associations (the factor moves in steps of 1/N).\n"
    "Exit status 0 when nothing is wrong, 1 when a warning was printed.\n";

/// `mfprio lint ...`
inline outcome run_lint(std::span<const std::string_view> args) {
    outcome o;
    std::string conf_path, assoc_path;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--help") {
            o.out = lint_help;
            return o;
        }
        if ((args[i] == "--conf" || args[i] == "--assoc") && i + 1 < args.size()) {
            (args[i] == "--conf" ? conf_path : assoc_path) = args[i + 1];
            ++i;
        } else {
            o.status = exit_usage;
            o.err = "mfprio lint: unknown or incomplete option '" + std::string(args[i]) + "'\nTry 'mfprio lint --help'.\n";
            return o;
        }
    }
    if (conf_path.empty()) {
        o.status = exit_usage;
        o.err = "mfprio lint: --conf is required\nTry 'mfprio lint --help'.\n";
        return o;
    }
    auto conf = config::read_slurm_conf(conf_path);
    if (!conf) {
        o.status = exit_data;
        o.err = "mfprio: " + conf.error().to_string() + "\n";
        return o;
    }
    int warnings = 0;
    char buf[512];
    const slurm::weights w{conf->weight_age, conf->weight_assoc, conf->weight_fairshare, conf->weight_job_size,
                           conf->weight_partition, conf->weight_qos};
    if (w.overflows()) {
        std::snprintf(buf, sizeof buf,
                      "warning: PriorityWeight values too high: the six weights add up to %llu, more than "
                      "4294967295; priorities can overflow and be clamped to 4294967295\n",
                      static_cast<unsigned long long>(w.sum()));
        o.out += buf;
        ++warnings;
    } else {
        std::snprintf(buf, sizeof buf, "ok: the six weights add up to %llu (at most 4294967295)\n",
                      static_cast<unsigned long long>(w.sum()));
        o.out += buf;
    }
    const struct { const char* key; std::uint32_t value; } keys[] = {
        {"PriorityWeightAge", w.age},         {"PriorityWeightAssoc", w.assoc},
        {"PriorityWeightFairshare", w.fairshare}, {"PriorityWeightJobSize", w.job_size},
        {"PriorityWeightPartition", w.partition}, {"PriorityWeightQOS", w.qos}};
    for (const auto& k : keys) {
        if (k.value == 0) continue;
        const double step = 1.0 / static_cast<double>(k.value);
        const auto a = static_cast<long long>(0.59534 * k.value);
        const auto b = static_cast<long long>(0.50002 * k.value);
        std::snprintf(buf, sizeof buf,
                      "%s=%u: resolves factor differences of %.3g and more; factors .59534 and .50002 give %lld and %lld%s\n",
                      k.key, k.value, step, a, b, a == b ? " (indistinguishable: raise the weight, Slurm suggests 1000 or more)" : "");
        o.out += buf;
        if (a == b) ++warnings;
    }
    const bool slurmdbd = conf->accounting_storage_type == "accounting_storage/slurmdbd";
    if (!slurmdbd && (w.age != 0 || w.fairshare != 0)) {
        o.out += "warning: AccountingStorageType is not accounting_storage/slurmdbd: slurmctld forces "
                 "PriorityWeightAge and PriorityWeightFairshare to 0\n";
        ++warnings;
    }
    if (!assoc_path.empty()) {
        auto assoc = config::read_assoc_table(assoc_path);
        if (!assoc) {
            o.status = exit_data;
            o.err = "mfprio: " + assoc.error().to_string() + "\n";
            return o;
        }
        std::size_t users = 0;
        for (const auto& r : assoc->rows) users += r.user.empty() ? 0 : 1;
        if (conf->flags.has(slurm::priority_flag::fair_tree) && w.fairshare != 0) {
            std::snprintf(buf, sizeof buf,
                          "%s: Fair Tree ranks %zu user associations, so the fair-share factor moves in steps of "
                          "1/%zu; PriorityWeightFairshare=%u %s\n",
                          w.fairshare < users ? "warning" : "ok", users, users, w.fairshare,
                          w.fairshare < users ? "cannot separate every rank: use at least the number of user "
                                                "associations (1 to 2 times it is enough)"
                                              : "separates every rank");
            o.out += buf;
            if (w.fairshare < users) ++warnings;
        }
    }
    if (warnings != 0) o.status = 1;
    return o;
}

} // namespace mfprio::cli
