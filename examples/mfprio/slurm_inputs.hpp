#pragma once
// Where `mfprio sprio` and `mfprio sshare` get a cluster from: files in any format Slurm
// prints (read by kind, see config/slurm_native.hpp), `squeue --json` (read here with
// nlohmann-json, so that the library headers stay free of dependencies), a bundle directory
// (`--from DIR`), or the cluster itself (`--live`: the Slurm commands are run, with a time
// limit, and their outputs can be kept as a bundle with `--save DIR`).
//
// A bundle is a directory of the commands' outputs under fixed names (bundle_files below)
// and a `meta` file of key=value lines: captured (epoch seconds), slurm_version and
// priority_calc_time (the time of slurmctld's last priority recalculation, which is the
// time sprio's factors were computed at).

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <mfprio/config/jobs_table.hpp>
#include <mfprio/config/slurm_native.hpp>
#include <mfprio/config/text.hpp>

namespace mfprio::cli {

// ---------------------------------------------------------------------------------------
// squeue --json

namespace detail {

/// A number as squeue's JSON prints it: a plain number (22.05 to 23.02), or an object
/// {"set": bool, "infinite": bool, "number": n} (23.11 and later). nullopt when unset;
/// `infinite` is set for an infinite value.
struct json_number {
    std::optional<double> value;
    bool infinite = false;
};

[[nodiscard]] inline json_number json_num(const nlohmann::json& j) {
    json_number n;
    if (j.is_number()) n.value = j.get<double>();
    else if (j.is_object()) {
        const bool set = j.value("set", true);
        n.infinite = j.value("infinite", false);
        if (set && !n.infinite && j.contains("number") && j["number"].is_number()) n.value = j["number"].get<double>();
    }
    return n;
}

[[nodiscard]] inline std::string json_text(const nlohmann::json& job, const char* key) {
    const auto it = job.find(key);
    if (it == job.end() || it->is_null()) return {};
    if (it->is_string()) return it->get<std::string>();
    if (it->is_array()) { // job_state in 23.11+: ["PENDING"] (and flags such as "REQUEUED")
        for (const auto& e : *it)
            if (e.is_string()) return e.get<std::string>();
        return {};
    }
    const json_number n = json_num(*it);
    if (n.infinite) return "UNLIMITED";
    if (!n.value) return {};
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", *n.value);
    return buf;
}

/// The 1-based line of each job object in `text` (the line of its "job_id" key), in order.
[[nodiscard]] inline std::vector<std::size_t> json_job_lines(std::string_view text) {
    std::vector<std::size_t> lines;
    std::size_t line = 1;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\n') ++line;
        else if (text[i] == '"' && text.substr(i, 9) == "\"job_id\":") lines.push_back(line);
    }
    return lines;
}

} // namespace detail

/// `squeue --json` as a jobs table (config/slurm_native.hpp's columns). The layouts of
/// Slurm 22.05 (openapi v0.0.38) through 25.x: plain numbers or number objects, job_state a
/// string or a list, the nice value null for 0 and an unsigned wrap for negatives (22.05).
/// A pending job with priority 0 is held. Times are epoch seconds; 0 means unset. `version`
/// receives meta.Slurm.release when present.
[[nodiscard]] inline expected<config::table> squeue_json_table(std::string_view text, std::string_view file,
                                                               std::string* version = nullptr) {
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(config::detail::without_bom(text));
    } catch (const nlohmann::json::parse_error& e) {
        // e.byte is the 1-based offset where parsing stopped: turn it into line and column.
        std::size_t line = 1, column = 1;
        for (std::size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
            if (text[i] == '\n') {
                ++line;
                column = 1;
            } else {
                ++column;
            }
        }
        std::string what = e.what();
        if (const auto p = what.find("parse error"); p != std::string::npos) what = what.substr(p);
        return config::make_error(file, line, column, {}, "not valid JSON: " + what);
    }
    if (!doc.is_object() || !doc.contains("jobs") || !doc["jobs"].is_array())
        return config::make_error(file, 1, 1, "jobs", "a JSON document without a \"jobs\" list (not `squeue --json` output)");
    if (version != nullptr && doc.contains("meta") && doc["meta"].is_object()) {
        const auto& meta = doc["meta"];
        const nlohmann::json* slurm = meta.contains("Slurm") ? &meta["Slurm"] : meta.contains("slurm") ? &meta["slurm"] : nullptr;
        if (slurm != nullptr && slurm->is_object() && slurm->contains("release") && (*slurm)["release"].is_string())
            *version = (*slurm)["release"].get<std::string>();
    }
    const auto lines = detail::json_job_lines(text);
    config::table t = config::native_jobs_table(file);
    t.header_line = 1;
    std::size_t k = 0;
    for (const auto& job : doc["jobs"]) {
        const std::size_t line = k < lines.size() ? lines[k] : 1;
        ++k;
        if (!job.is_object()) return config::make_error(file, line, 1, "jobs", "an entry of \"jobs\" is not an object");
        config::table_row row;
        row.line = line;
        row.cells.assign(config::nj_count, std::string());
        row.columns.assign(config::nj_count, 1);
        using namespace config;
        row.cells[nj_id] = detail::json_text(job, "job_id");
        row.cells[nj_user] = detail::json_text(job, "user_name");
        row.cells[nj_account] = detail::json_text(job, "account");
        row.cells[nj_partition] = detail::json_text(job, "partition");
        row.cells[nj_qos] = detail::json_text(job, "qos");
        row.cells[nj_submit] = detail::json_text(job, "submit_time");
        row.cells[nj_eligible] = detail::json_text(job, "eligible_time");
        row.cells[nj_accrue] = detail::json_text(job, "accrue_time");
        for (const std::size_t c : {nj_eligible, nj_accrue})
            if (row.cells[c] == "0") row.cells[c] = "Unknown";
        row.cells[nj_nodes] = detail::json_text(job, "node_count");
        row.cells[nj_cpus] = detail::json_text(job, "cpus");
        std::string limit = detail::json_text(job, "time_limit");
        row.cells[nj_time_limit] = limit.empty() ? "Partition_Limit" : limit;
        // nice: null is 0; 22.05 prints a negative nice as its unsigned 32-bit wrap.
        if (const auto it = job.find("nice"); it != job.end() && !it->is_null()) {
            const detail::json_number n = detail::json_num(*it);
            double v = n.value.value_or(0.0);
            if (v > 2147483647.0 && v <= 4294967295.0) v -= 4294967296.0;
            char buf[32];
            std::snprintf(buf, sizeof buf, "%.0f", v);
            row.cells[nj_nice] = buf;
        }
        row.cells[nj_tres] = detail::json_text(job, "tres_req_str");
        row.cells[nj_state] = detail::json_text(job, "job_state");
        row.cells[nj_priority] = detail::json_text(job, "priority");
        if (row.cells[nj_state] == "PENDING" && row.cells[nj_priority] == "0") row.cells[nj_state] = "HELD";
        t.rows.push_back(std::move(row));
    }
    return t;
}

// ---------------------------------------------------------------------------------------
// Files by kind

/// Reads the file at `path` as a `conf_input` ("-" is standard input).
[[nodiscard]] inline expected<config::conf_input> read_input(const std::string& path) {
    if (path == "-") {
        std::string text;
        char buf[65536];
        std::size_t n = 0;
        while ((n = std::fread(buf, 1, sizeof buf, stdin)) > 0) text.append(buf, n);
        return config::conf_input{std::move(text), "<stdin>"};
    }
    auto text = config::read_text_file(path);
    if (!text) return text.error();
    return config::conf_input{std::move(*text), path};
}

/// The jobs table of a jobs input of any kind: squeue --json, scontrol show job, or a '|'
/// table (mfprio's jobs table).
[[nodiscard]] inline expected<config::table> jobs_input_table(const config::conf_input& in, std::string* version) {
    switch (config::detect_kind(in.text)) {
    case config::input_kind::json:
        return squeue_json_table(in.text, in.name, version);
    case config::input_kind::scontrol_jobs:
        return config::scontrol_jobs_table(in.text, in.name);
    case config::input_kind::pipe_table:
        return config::parse_table(config::detail::without_bom(in.text), in.name);
    default:
        return input_error{in.name, 0, 0, {},
                           "not a jobs input: expected `squeue --json`, `scontrol show job` or a '|' jobs table"};
    }
}

// ---------------------------------------------------------------------------------------
// Bundles and --live

/// A bundle's files: the command that writes each, and its file name.
struct bundle_file {
    std::string_view name;
    std::vector<std::string_view> command;
};

inline const std::vector<bundle_file>& bundle_files() {
    static const std::vector<bundle_file> files = {
        {"scontrol_show_config.txt", {"scontrol", "show", "config"}},
        {"scontrol_show_partition.txt", {"scontrol", "-o", "show", "partition"}},
        {"scontrol_show_node.txt", {"scontrol", "-o", "show", "node"}},
        {"sacctmgr_show_qos.txt", {"sacctmgr", "-P", "show", "qos"}},
        {"sshare_a_l_P.txt", {"sshare", "-a", "-l", "-P"}},
        {"scontrol_show_assoc_mgr.txt", {"scontrol", "show", "assoc_mgr", "flags=assoc,qos"}},
        {"sacctmgr_show_assoc.txt", {"sacctmgr", "-P", "show", "assoc"}},
        {"squeue.json", {"squeue", "-a", "--json"}},
    };
    return files;
}

/// The inputs of a cluster, from a bundle or the cluster itself.
struct cluster_inputs {
    std::vector<config::conf_input> conf;   ///< slurm.conf-like texts
    std::vector<config::conf_input> assoc;  ///< sshare / assoc_mgr / sacctmgr texts
    std::optional<config::conf_input> qos;  ///< sacctmgr show qos -P
    std::optional<config::conf_input> jobs; ///< squeue --json / scontrol show job / table
    std::string slurm_version;              ///< from meta or the inputs
    std::optional<std::int64_t> calc_time;  ///< slurmctld's last recalculation
    std::optional<std::int64_t> captured;   ///< when the bundle was captured
    std::string meta_text;                  ///< the meta file as written
};

/// Reads `meta`'s key=value lines into `ci`.
inline void read_meta(std::string_view text, cluster_inputs& ci) {
    ci.meta_text = std::string(text);
    for (const auto& l : config::detail::split_lines(text)) {
        const std::size_t eq = l.text.find('=');
        if (eq == std::string_view::npos) continue;
        const std::string_view k = config::trim(l.text.substr(0, eq)), v = config::trim(l.text.substr(eq + 1));
        if (k == "slurm_version") ci.slurm_version = std::string(v);
        else if (k == "priority_calc_time") ci.calc_time = config::parse_signed<std::int64_t>(v);
        else if (k == "captured") ci.captured = config::parse_signed<std::int64_t>(v);
    }
}

/// Files a bundle needs: the configuration, the QOS, the associations and the jobs.
/// `scontrol_show_job.txt` stands in for `squeue.json` when that is missing.
[[nodiscard]] inline expected<cluster_inputs> read_bundle(const std::string& dir) {
    cluster_inputs ci;
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return input_error{dir, 0, 0, {}, "not a directory (--from takes a bundle written by --save)"};
    const auto path = [&](std::string_view name) { return (fs::path(dir) / name).string(); };
    const auto exists = [&](std::string_view name) { return fs::exists(path(name), ec); };
    const auto get = [&](std::string_view name) -> expected<config::conf_input> { return read_input(path(name)); };
    for (const std::string_view n : {"scontrol_show_config.txt", "scontrol_show_node.txt", "scontrol_show_partition.txt"}) {
        if (!exists(n)) return input_error{path(n), 0, 0, {}, "missing from the bundle"};
        auto in = get(n);
        if (!in) return in.error();
        ci.conf.push_back(std::move(*in));
    }
    for (const std::string_view n : {"sshare_a_l_P.txt", "scontrol_show_assoc_mgr.txt", "sacctmgr_show_assoc.txt"}) {
        if (!exists(n)) {
            if (n == "sshare_a_l_P.txt") return input_error{path(n), 0, 0, {}, "missing from the bundle"};
            continue;
        }
        auto in = get(n);
        if (!in) return in.error();
        ci.assoc.push_back(std::move(*in));
    }
    if (!exists("sacctmgr_show_qos.txt")) return input_error{path("sacctmgr_show_qos.txt"), 0, 0, {}, "missing from the bundle"};
    auto qos = get("sacctmgr_show_qos.txt");
    if (!qos) return qos.error();
    ci.qos = std::move(*qos);
    const std::string_view jobs = exists("squeue.json") ? "squeue.json" : "scontrol_show_job.txt";
    if (!exists(jobs)) return input_error{path("squeue.json"), 0, 0, {}, "missing from the bundle"};
    auto j = get(jobs);
    if (!j) return j.error();
    ci.jobs = std::move(*j);
    if (exists("meta")) {
        auto m = config::read_text_file(path("meta"));
        if (!m) return m.error();
        read_meta(*m, ci);
    }
    return ci;
}

/// The outcome of running a command.
struct command_output {
    int status = -1;   ///< exit status, or -1 when it could not run or was killed
    std::string out;   ///< standard output
    std::string err;   ///< standard error (or why it could not run)
};

/// Runs `argv` (searched in PATH) with no input, collecting its outputs; kills it after
/// `timeout_s` seconds.
[[nodiscard]] inline command_output run_command(const std::vector<std::string_view>& argv, int timeout_s = 60) {
    command_output r;
    int out_pipe[2], err_pipe[2];
    if (pipe(out_pipe) != 0) {
        r.err = std::strerror(errno);
        return r;
    }
    if (pipe(err_pipe) != 0) {
        r.err = std::strerror(errno);
        close(out_pipe[0]);
        close(out_pipe[1]);
        return r;
    }
    std::vector<std::string> args(argv.begin(), argv.end());
    std::vector<char*> cargs;
    for (auto& a : args) cargs.push_back(a.data());
    cargs.push_back(nullptr);
    const pid_t pid = fork();
    if (pid < 0) {
        r.err = std::strerror(errno);
        for (const int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) close(fd);
        return r;
    }
    if (pid == 0) {
        const int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0) dup2(devnull, 0);
        dup2(out_pipe[1], 1);
        dup2(err_pipe[1], 2);
        for (const int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) close(fd);
        execvp(cargs[0], cargs.data());
        std::fprintf(stderr, "cannot run %s: %s\n", cargs[0], std::strerror(errno));
        _exit(127);
    }
    close(out_pipe[1]);
    close(err_pipe[1]);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
    pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
    bool timed_out = false;
    char buf[65536];
    while (fds[0].fd >= 0 || fds[1].fd >= 0) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
        if (left <= 0) {
            timed_out = true;
            break;
        }
        const int n = poll(fds, 2, static_cast<int>(left));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) continue;
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || fds[i].revents == 0) continue;
            const ssize_t got = read(fds[i].fd, buf, sizeof buf);
            if (got > 0) (i == 0 ? r.out : r.err).append(buf, static_cast<std::size_t>(got));
            else {
                close(fds[i].fd);
                fds[i].fd = -1;
            }
        }
    }
    for (auto& f : fds)
        if (f.fd >= 0) close(f.fd);
    if (timed_out) kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (timed_out) {
        r.status = -1;
        r.err += "(killed after " + std::to_string(timeout_s) + " s)";
    } else if (WIFEXITED(status)) {
        r.status = WEXITSTATUS(status);
    }
    return r;
}

/// The time of slurmctld's last priority recalculation: the first 8 bytes (a big-endian
/// 64-bit time) of StateSaveLocation/priority_last_decay_ran, when readable.
[[nodiscard]] inline std::optional<std::int64_t> last_decay_ran(std::string_view config_text) {
    std::string state;
    for (const auto& l : config::detail::split_lines(config_text)) {
        const std::size_t eq = l.text.find('=');
        if (eq != std::string_view::npos && config::trim(l.text.substr(0, eq)) == "StateSaveLocation")
            state = std::string(config::trim(l.text.substr(eq + 1)));
    }
    if (state.empty()) return std::nullopt;
    std::ifstream f(state + "/priority_last_decay_ran", std::ios::binary);
    unsigned char b[8];
    if (!f.read(reinterpret_cast<char*>(b), 8)) return std::nullopt;
    std::uint64_t v = 0;
    for (const unsigned char c : b) v = (v << 8) | c;
    if (v == 0 || v > 253402300799ULL) return std::nullopt;
    return static_cast<std::int64_t>(v);
}

/// Runs the bundle's commands on this host's cluster. `err` gets the failing command, its
/// status and its standard error.
[[nodiscard]] inline std::optional<cluster_inputs> capture_live(std::string& err, int timeout_s = 60) {
    cluster_inputs ci;
    ci.captured = static_cast<std::int64_t>(std::time(nullptr));
    for (const bundle_file& f : bundle_files()) {
        command_output r = run_command(f.command, timeout_s);
        if (r.status != 0) {
            std::string cmd;
            for (const auto& a : f.command) cmd += (cmd.empty() ? "" : " ") + std::string(a);
            err = "`" + cmd + "` " + (r.status < 0 ? std::string("failed") : "exited with status " + std::to_string(r.status));
            if (!r.err.empty()) err += ": " + std::string(config::trim(r.err));
            return std::nullopt;
        }
        config::conf_input in{std::move(r.out), "live:" + std::string(f.name)};
        if (f.name.starts_with("scontrol_show_") && f.name != "scontrol_show_assoc_mgr.txt") {
            if (f.name == "scontrol_show_config.txt") {
                ci.calc_time = last_decay_ran(in.text);
                ci.conf.insert(ci.conf.begin(), std::move(in));
            } else {
                ci.conf.push_back(std::move(in));
            }
        } else if (f.name == "sacctmgr_show_qos.txt") {
            ci.qos = std::move(in);
        } else if (f.name == "squeue.json") {
            ci.jobs = std::move(in);
        } else {
            ci.assoc.push_back(std::move(in));
        }
    }
    return ci;
}

/// Writes `ci` as a bundle into `dir` (created if missing). Returns an error sentence.
[[nodiscard]] inline std::optional<std::string> save_bundle(const cluster_inputs& ci, const std::string& dir) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return "cannot create " + dir + ": " + ec.message();
    const auto write = [&](std::string_view name, std::string_view text) -> std::optional<std::string> {
        const std::string p = (fs::path(dir) / name).string();
        std::ofstream f(p, std::ios::binary);
        f.write(text.data(), static_cast<std::streamsize>(text.size()));
        if (!f) return "cannot write " + p;
        return std::nullopt;
    };
    std::vector<const config::conf_input*> all;
    for (const auto& c : ci.conf) all.push_back(&c);
    for (const auto& c : ci.assoc) all.push_back(&c);
    if (ci.qos) all.push_back(&*ci.qos);
    if (ci.jobs) all.push_back(&*ci.jobs);
    for (const auto* in : all) {
        std::string_view name = in->name;
        if (const auto p = name.find(':'); p != std::string_view::npos) name.remove_prefix(p + 1);
        if (auto e = write(fs::path(name).filename().string(), in->text)) return e;
    }
    std::string meta;
    if (ci.captured) meta += "captured=" + std::to_string(*ci.captured) + "\n";
    meta += "slurm_version=" + ci.slurm_version + "\n";
    if (ci.calc_time) meta += "priority_calc_time=" + std::to_string(*ci.calc_time) + "\n";
    return write("meta", meta);
}

} // namespace mfprio::cli
