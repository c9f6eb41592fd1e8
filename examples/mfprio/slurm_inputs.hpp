#pragma once
// Where `mfprio sprio` and `mfprio sshare` get a cluster from: files in any format Slurm
// prints (read by kind, see config/slurm_native.hpp), `squeue --json` (read here with
// simdjson, so that the library headers stay free of dependencies), a bundle directory
// (`--from DIR`), or the cluster itself (`--live`: the Slurm commands are run, with a time
// limit, and their outputs can be kept as a bundle with `--save DIR`). `squeue --json` is read
// with simdjson (Debian: libsimdjson-dev): the library headers use no JSON library.
//
// A bundle is a directory of the commands' outputs under fixed names (bundle_files below)
// and a `meta` file of key=value lines: captured (epoch seconds), slurm_version and
// priority_calc_time (the time of slurmctld's last priority recalculation, which is the
// time sprio's factors were computed at).

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <simdjson.h>

#include <mfprio/config/jobs_table.hpp>
#include <mfprio/config/slurm_native.hpp>
#include <mfprio/config/text.hpp>

namespace mfprio::cli {

// ---------------------------------------------------------------------------------------
// squeue --json

namespace detail {

/// The text of a JSON value as the jobs table wants it: a string as is; a number as its
/// token; squeue's number object ({"set", "infinite", "number"}, 23.11 and later) as its
/// number, "UNLIMITED" when infinite, empty when not set; the first string of a list
/// (job_state in 23.11 and later: ["PENDING"]); empty for null. false on a JSON error.
[[nodiscard]] inline simdjson::error_code json_cell(simdjson::ondemand::value v, std::string& out, int depth = 0) {
    using simdjson::ondemand::json_type;
    out.clear();
    // Slurm's cells nest two deep at most (a list of states, a number object); deeper input
    // is refused before the recursion can run out of stack.
    if (depth > 8) return simdjson::DEPTH_ERROR;
    json_type type;
    if (auto e = v.type().get(type)) return e;
    switch (type) {
    case json_type::string: {
        std::string_view sv;
        if (auto e = v.get_string().get(sv)) return e;
        out.assign(sv);
        return simdjson::SUCCESS;
    }
    case json_type::number: {
        std::string_view raw = v.raw_json_token();
        while (!raw.empty() && config::is_space(raw.back())) raw.remove_suffix(1);
        out.assign(raw); // the jobs table checks the number
        return simdjson::SUCCESS;
    }
    case json_type::object: {
        simdjson::ondemand::object o;
        if (auto e = v.get_object().get(o)) return e;
        bool set = true, infinite = false;
        std::string number;
        for (auto field : o) {
            std::string_view key;
            if (auto e = field.unescaped_key().get(key)) return e;
            simdjson::ondemand::value fv;
            if (auto e = field.value().get(fv)) return e;
            if (key == "set") {
                if (auto e = fv.get_bool().get(set)) return e;
            } else if (key == "infinite") {
                if (auto e = fv.get_bool().get(infinite)) return e;
            } else if (key == "number") {
                if (auto e = json_cell(fv, number, depth + 1)) return e;
            }
        }
        if (infinite) out = "UNLIMITED";
        else if (set) out = std::move(number);
        return simdjson::SUCCESS;
    }
    case json_type::array: {
        simdjson::ondemand::array a;
        if (auto e = v.get_array().get(a)) return e;
        for (auto item : a) {
            simdjson::ondemand::value iv;
            if (auto e = item.get(iv)) return e;
            std::string cell;
            if (auto e = json_cell(iv, cell, depth + 1)) return e;
            if (out.empty()) out = std::move(cell);
        }
        return simdjson::SUCCESS;
    }
    case json_type::null:
        return simdjson::SUCCESS;
    case json_type::boolean: {
        bool b = false;
        if (auto e = v.get_bool().get(b)) return e;
        out = b ? "true" : "false";
        return simdjson::SUCCESS;
    }
    }
    return simdjson::SUCCESS;
}

/// The jobs table column of a job's JSON key, or nj_count for the keys not read (about 95
/// of squeue's 110). By length first: this runs for every key of every job.
[[nodiscard]] inline std::size_t json_job_column(std::string_view k) noexcept {
    using namespace std::string_view_literals;
    using namespace config;
    switch (k.size()) {
    case 3: return k == "qos"sv ? nj_qos : nj_count;
    case 4: return k == "cpus"sv ? nj_cpus : k == "nice"sv ? nj_nice : nj_count;
    case 6: return k == "job_id"sv ? nj_id : nj_count;
    case 7: return k == "account"sv ? nj_account : nj_count;
    case 8: return k == "priority"sv ? nj_priority : nj_count;
    case 9: return k == "user_name"sv ? nj_user : k == "partition"sv ? nj_partition : k == "job_state"sv ? nj_state : nj_count;
    case 10: return k == "node_count"sv ? nj_nodes : k == "time_limit"sv ? nj_time_limit : nj_count;
    case 11: return k == "submit_time"sv ? nj_submit : k == "accrue_time"sv ? nj_accrue : nj_count;
    case 12: return k == "tres_req_str"sv ? nj_tres : nj_count;
    case 13: return k == "eligible_time"sv ? nj_eligible : nj_count;
    default: return nj_count;
    }
}

/// Line and column of byte `offset` of `text`, counting from the previous call's position.
struct line_counter {
    std::string_view text;
    std::size_t at = 0, line = 1, line_start = 0;
    void advance(std::size_t offset) {
        offset = std::min(offset, text.size());
        if (offset <= at) return;
        const std::string_view span = text.substr(at, offset - at);
        const auto newlines = static_cast<std::size_t>(std::count(span.begin(), span.end(), '\n'));
        if (newlines != 0) {
            line += newlines;
            line_start = at + span.rfind('\n') + 1;
        }
        at = offset;
    }
    [[nodiscard]] std::size_t column() const noexcept { return at - line_start + 1; }
};

} // namespace detail

/// `squeue --json` as a jobs table (config/slurm_native.hpp's columns). The layouts of
/// Slurm 22.05 (openapi v0.0.38) through 25.x: plain numbers or number objects, job_state a
/// string or a list, the nice value null for 0 and an unsigned wrap for negatives (22.05).
/// A pending job with priority 0 is held. Times are epoch seconds; 0 means unset. `version`
/// receives meta.Slurm.release (meta.slurm.release in later layouts) when present. The
/// text is parsed in place when `readable_after` bytes after it may be read (simdjson's
/// padding), copied otherwise.
[[nodiscard]] inline expected<config::table> squeue_json_table(std::string_view text, std::size_t readable_after,
                                                               std::string_view file, std::string* version = nullptr) {
    using namespace config;
    const std::string_view body = config::detail::without_bom(text);
    const std::size_t bom = text.size() - body.size();
    simdjson::padded_string copy;
    simdjson::padded_string_view view;
    if (readable_after >= simdjson::SIMDJSON_PADDING) {
        view = simdjson::padded_string_view(body.data(), body.size(), body.size() + readable_after);
    } else {
        copy = simdjson::padded_string(body);
        view = copy;
    }
    simdjson::ondemand::parser parser;
    simdjson::ondemand::document doc;
    detail::line_counter lc{body};
    bool iterating = false;
    const auto fail = [&](simdjson::error_code e, std::string what) -> input_error {
        const char* loc = nullptr;
        if (iterating && !doc.current_location().get(loc) && loc >= body.data() && loc <= body.data() + body.size())
            lc.advance(static_cast<std::size_t>(loc - body.data()));
        if (what.empty()) what = std::string("not valid JSON: ") + simdjson::error_message(e);
        return config::make_error(file, lc.line, lc.column() + (lc.line == 1 ? bom : 0), "jobs", what);
    };
    if (auto e = parser.iterate(view).get(doc)) return fail(e, {});
    iterating = true;
    simdjson::ondemand::object root;
    if (auto e = doc.get_object().get(root)) return fail(e, "not `squeue --json` output: the document is not an object");
    table t = native_jobs_table(file);
    t.header_line = 1;
    bool have_jobs = false;
    std::string cell;
    for (auto field : root) {
        std::string_view key;
        if (auto e = field.unescaped_key().get(key)) return fail(e, {});
        simdjson::ondemand::value v;
        if (auto e = field.value().get(v)) return fail(e, {});
        if (key == "meta") {
            simdjson::ondemand::object meta;
            if (v.get_object().get(meta)) continue;
            for (auto m : meta) {
                std::string_view mk;
                if (auto e = m.unescaped_key().get(mk)) return fail(e, {});
                if (mk != "Slurm" && mk != "slurm") continue;
                simdjson::ondemand::object so;
                if (m.value().get_object().get(so)) continue;
                for (auto f : so) {
                    std::string_view fk;
                    if (auto e = f.unescaped_key().get(fk)) return fail(e, {});
                    std::string_view release;
                    if (fk == "release" && !f.value().get_string().get(release) && version != nullptr)
                        *version = std::string(release);
                }
            }
            continue;
        }
        if (key != "jobs") continue;
        have_jobs = true;
        simdjson::ondemand::array jobs;
        if (auto e = v.get_array().get(jobs)) return fail(e, "\"jobs\" is not a list (not `squeue --json` output)");
        for (auto item : jobs) {
            simdjson::ondemand::object job;
            if (auto e = item.get_object().get(job)) return fail(e, "an entry of \"jobs\" is not an object");
            const char* loc = nullptr;
            if (!doc.current_location().get(loc)) lc.advance(static_cast<std::size_t>(loc - body.data()));
            table_row row;
            row.line = lc.line;
            row.cells.assign(nj_count, std::string());
            row.columns.assign(nj_count, 1);
            std::string nice;
            for (auto jf : job) {
                // The key as written (squeue's keys have no escapes): no unescaping copy.
                simdjson::ondemand::raw_json_string rk;
                if (auto e = jf.key().get(rk)) return fail(e, {});
                const char* kp = rk.raw();
                const void* kq = std::memchr(kp, '"', 32);
                const std::size_t col =
                    kq == nullptr ? nj_count
                                  : detail::json_job_column(std::string_view(kp, static_cast<std::size_t>(static_cast<const char*>(kq) - kp)));
                if (col == nj_count) continue; // skipped unread by On Demand
                simdjson::ondemand::value jv;
                if (auto e = jf.value().get(jv)) return fail(e, {});
                if (auto e = detail::json_cell(jv, cell)) return fail(e, {});
                row.cells[col] = cell;
            }
            // 0 (22.05) or an unset number object (later layouts): no such time.
            for (const std::size_t c : {nj_eligible, nj_accrue})
                if (row.cells[c] == "0" || row.cells[c].empty()) row.cells[c] = "Unknown";
            if (row.cells[nj_time_limit].empty()) row.cells[nj_time_limit] = "Partition_Limit";
            // 22.05 prints a negative nice as its unsigned 32-bit wrap.
            if (const auto n = parse_unsigned<std::uint64_t>(row.cells[nj_nice]); n && *n > 2147483647 && *n <= 4294967295)
                row.cells[nj_nice] = std::to_string(static_cast<std::int64_t>(*n) - 4294967296);
            if (row.cells[nj_state] == "PENDING" && row.cells[nj_priority] == "0") row.cells[nj_state] = "HELD";
            t.rows.push_back(std::move(row));
        }
    }
    if (!have_jobs) return config::make_error(file, 1, 1, "jobs", "a JSON document without a \"jobs\" list (not `squeue --json` output)");
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
    // Read with room for simdjson's padding, so that a large squeue --json is parsed in place.
    std::ifstream f(path, std::ios::binary | std::ios::ate);
    if (!f) return input_error{path, 0, 0, {}, "cannot open file"};
    const auto size = static_cast<std::size_t>(f.tellg());
    std::string text;
    text.reserve(size + simdjson::SIMDJSON_PADDING);
    text.resize(size);
    f.seekg(0);
    if (size != 0 && !f.read(text.data(), static_cast<std::streamsize>(size))) return input_error{path, 0, 0, {}, "cannot read file"};
    return config::conf_input{std::move(text), path};
}

/// A jobs input: a text in memory, or a large file mapped (a 100,000-job squeue --json is
/// some 300 MB: mapping it saves copying it).
struct jobs_source {
    std::string name;
    std::string owned;                 ///< the text, when read into memory
    std::shared_ptr<const char> mapped; ///< the mapping, when mapped
    std::size_t mapped_size = 0;       ///< the file's size
    std::size_t mapped_after = 0;      ///< readable bytes after the end (the rest of the last page)

    jobs_source() = default;
    jobs_source(config::conf_input in) : name(std::move(in.name)), owned(std::move(in.text)) {}
    jobs_source(std::string text, std::string n) : name(std::move(n)), owned(std::move(text)) {}

    [[nodiscard]] std::string_view text() const noexcept {
        return mapped ? std::string_view(mapped.get(), mapped_size) : std::string_view(owned);
    }
    [[nodiscard]] std::size_t readable_after() const noexcept {
        return mapped ? mapped_after : owned.capacity() - owned.size();
    }
};

/// Reads the jobs input at `path`: mapped when it is a regular file of 1 MiB or more, read
/// into memory otherwise ("-": standard input).
[[nodiscard]] inline expected<jobs_source> read_jobs_source(const std::string& path) {
    if (path != "-") {
        const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
        struct stat st {};
        if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= (1 << 20)) {
            const auto size = static_cast<std::size_t>(st.st_size);
            void* p = mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
            close(fd);
            if (p != MAP_FAILED) {
                jobs_source j;
                j.name = path;
                j.mapped = std::shared_ptr<const char>(static_cast<const char*>(p), [size](const char* q) {
                    munmap(const_cast<char*>(q), size);
                });
                j.mapped_size = size;
                const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
                j.mapped_after = size % page == 0 ? 0 : page - size % page;
                return j;
            }
        } else if (fd >= 0) {
            close(fd);
        }
    }
    auto in = read_input(path);
    if (!in) return in.error();
    return jobs_source(std::move(*in));
}

/// The jobs table of a jobs input of any kind: squeue --json, scontrol show job, or a '|'
/// table (mfprio's jobs table).
[[nodiscard]] inline expected<config::table> jobs_input_table(const jobs_source& in, std::string* version) {
    const std::string_view text = in.text();
    switch (config::detect_kind(text)) {
    case config::input_kind::json:
        return squeue_json_table(text, in.readable_after(), in.name, version);
    case config::input_kind::scontrol_jobs:
        return config::scontrol_jobs_table(text, in.name);
    case config::input_kind::squeue_text:
        return config::squeue_text_table(text, in.name);
    case config::input_kind::pipe_table:
        return config::parse_table(config::detail::without_bom(text), in.name);
    default:
        return input_error{in.name, 0, 0, {},
                           "not a jobs input: expected `squeue --json`, `scontrol show job`, `squeue -h -O` with the "
                           "format of `mfprio sprio --help`, or a '|' jobs table"};
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
    std::optional<jobs_source> jobs;        ///< squeue --json / scontrol show job / table
    std::string slurm_version;              ///< from meta or the inputs
    std::optional<std::int64_t> calc_time;  ///< slurmctld's last recalculation
    std::optional<std::int64_t> captured;   ///< when the bundle was captured
};

/// Reads `meta`'s key=value lines into `ci`.
inline void read_meta(std::string_view text, cluster_inputs& ci) {
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
    auto j = read_jobs_source(path(jobs));
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
    if (v == 0 || v > static_cast<std::uint64_t>(config::max_epoch)) return std::nullopt;
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
            ci.jobs = jobs_source(std::move(in));
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
    std::vector<std::pair<std::string_view, std::string_view>> all; // name, text
    for (const auto& c : ci.conf) all.emplace_back(c.name, c.text);
    for (const auto& c : ci.assoc) all.emplace_back(c.name, c.text);
    if (ci.qos) all.emplace_back(ci.qos->name, ci.qos->text);
    if (ci.jobs) all.emplace_back(ci.jobs->name, ci.jobs->text());
    for (auto [name, text] : all) {
        if (const auto p = name.find(':'); p != std::string_view::npos) name.remove_prefix(p + 1);
        if (auto e = write(fs::path(name).filename().string(), text)) return e;
    }
    std::string meta;
    if (ci.captured) meta += "captured=" + std::to_string(*ci.captured) + "\n";
    meta += "slurm_version=" + ci.slurm_version + "\n";
    if (ci.calc_time) meta += "priority_calc_time=" + std::to_string(*ci.calc_time) + "\n";
    return write("meta", meta);
}

} // namespace mfprio::cli
