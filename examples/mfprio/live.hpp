#pragma once
// `--live`: the Slurm commands of a bundle (inputs::bundle_files) run on this host's cluster,
// at once and within a time limit, their outputs taken as the cluster's inputs; the time of
// slurmctld's last recalculation read from its state file.

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <filesystem>

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mfprio/inputs.hpp>

namespace mfprio::cli {

using namespace mfprio::inputs;

/// The outcome of running a command.
struct command_output {
    int status = -1;   ///< exit status, or -1 when it could not run or was killed
    std::string out;   ///< standard output
    std::string err;   ///< standard error (or why it could not run)
    std::string path;  ///< the file that ran (find_executable), "" when none was found
};

/// The most the commands of one run may print together on their standard outputs (the
/// readers' own bound for one input), and each on its standard error. What is kept is
/// bounded, not only what each prints: commands that all flood stop at the one bound.
inline constexpr std::size_t max_command_output = config::max_input_bytes;
inline constexpr std::size_t max_command_errors = std::size_t{1} << 20;

/// The file that runs the command `name`: `name` itself when it holds a '/', else the first
/// executable regular file of that name in PATH's absolute entries (/usr/local/bin:/usr/bin:
/// /bin when PATH is unset). Empty and relative entries are skipped: they name the working
/// directory, where anyone may have left a `squeue`. "" when there is none.
[[nodiscard]] inline std::string find_executable(std::string_view name) {
    const auto runnable = [](const std::string& p) {
        struct stat st {};
        return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(p.c_str(), X_OK) == 0;
    };
    if (name.find('/') != std::string_view::npos) return runnable(std::string(name)) ? std::string(name) : std::string();
    const char* env = std::getenv("PATH");
    const std::string_view path = env != nullptr ? env : "/usr/local/bin:/usr/bin:/bin";
    for (std::size_t start = 0; start <= path.size();) {
        std::size_t end = path.find(':', start);
        if (end == std::string_view::npos) end = path.size();
        const std::string_view dir = path.substr(start, end - start);
        if (dir.starts_with('/')) {
            std::string p(dir);
            if (!p.ends_with('/')) p += '/';
            p.append(name);
            if (runnable(p)) return p;
        }
        start = end + 1;
    }
    return {};
}

/// A command line as one string, its words separated by spaces (for messages and meta).
[[nodiscard]] inline std::string command_text(const std::vector<std::string_view>& argv) {
    std::string t;
    for (const auto a : argv) {
        if (!t.empty()) t += ' ';
        t.append(a);
    }
    return t;
}

namespace detail {

/// The processes whose parent is this process (from /proc; empty where there is none).
[[nodiscard]] inline std::vector<pid_t> own_children() {
    std::vector<pid_t> out;
    const pid_t self = getpid();
    std::error_code ec;
    for (std::filesystem::directory_iterator it("/proc", ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::FILE* f = std::fopen((it->path() / "stat").c_str(), "r");
        if (f == nullptr) continue;
        char buf[512];
        const std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
        std::fclose(f);
        buf[n] = 0;
        // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so the fields
        // are counted from its last ')'.
        const char* close = std::strrchr(buf, ')');
        int ppid = 0;
        if (close != nullptr && std::sscanf(close + 1, " %*c %d", &ppid) == 1 && ppid == self)
            out.push_back(static_cast<pid_t>(std::stoi(name)));
    }
    return out;
}

/// While alive, this process is a child subreaper (prctl PR_SET_CHILD_SUBREAPER): what the
/// commands start and leave behind, even in a session of its own (setsid, a daemon's double
/// fork), becomes this process's child when its parent exits, so that it can be found and
/// ended. The setting before is restored at the end.
class subreaper {
public:
    subreaper() noexcept {
        int was = 0;
        if (prctl(PR_GET_CHILD_SUBREAPER, &was) == 0) was_ = was;
        (void)prctl(PR_SET_CHILD_SUBREAPER, 1);
        before_ = own_children();
    }
    subreaper(const subreaper&) = delete;
    subreaper& operator=(const subreaper&) = delete;
    ~subreaper() {
        // Kills and reaps the children that came to this process during the run (those of
        // the commands that escaped their process group), again until none is left: one
        // killed before it was reaped may have handed on children of its own.
        for (int round = 0; round < 64; ++round) {
            bool any = false;
            for (const pid_t p : own_children()) {
                if (std::find(before_.begin(), before_.end(), p) != before_.end()) continue;
                kill(p, SIGKILL);
                while (waitpid(p, nullptr, 0) < 0 && errno == EINTR) {
                }
                any = true;
            }
            if (!any) break;
        }
        if (was_ == 0) (void)prctl(PR_SET_CHILD_SUBREAPER, 0);
    }

private:
    int was_ = 1;
    std::vector<pid_t> before_;
};

/// One command of run_commands: its process (the leader of its own group), the read ends of
/// its standard output and error, and a pidfd that becomes readable when it exits (-1 where
/// the kernel has none: then its exit is looked for every 50 ms).
struct child_process {
    pid_t pid = -1;
    int fd[2] = {-1, -1}; ///< standard output, standard error (non-blocking)
    int pidfd = -1;
    bool exited = false, killed = false, over = false;
};

inline void close_fd(int& fd) noexcept {
    if (fd >= 0) close(fd);
    fd = -1;
}

/// Starts `argv` in a process group of its own, standard input from /dev/null. On failure,
/// `out.err` says why and the child counts as exited.
inline child_process start_child(const std::vector<std::string_view>& argv, command_output& out) {
    child_process c;
    out.path = find_executable(argv.front());
    if (out.path.empty()) {
        out.err = "not found on PATH (its empty and relative entries are not searched)";
        c.exited = true;
        return c;
    }
    int out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1};
    if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
        out.err = std::strerror(errno);
        for (int& fd : {std::ref(out_pipe[0]), std::ref(out_pipe[1]), std::ref(err_pipe[0]), std::ref(err_pipe[1])})
            close_fd(fd);
        c.exited = true;
        return c;
    }
    std::vector<std::string> args(argv.begin(), argv.end());
    std::vector<char*> cargs;
    for (auto& a : args) cargs.push_back(a.data());
    cargs.push_back(nullptr);
    const pid_t pid = fork();
    if (pid < 0) {
        out.err = std::strerror(errno);
        for (int& fd : {std::ref(out_pipe[0]), std::ref(out_pipe[1]), std::ref(err_pipe[0]), std::ref(err_pipe[1])})
            close_fd(fd);
        c.exited = true;
        return c;
    }
    if (pid == 0) {
        setpgid(0, 0);
        const int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0) dup2(devnull, 0);
        dup2(out_pipe[1], 1);
        dup2(err_pipe[1], 2);
        execv(out.path.c_str(), cargs.data());
        std::fprintf(stderr, "cannot run %s: %s\n", cargs[0], std::strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid); // also here, so that a kill cannot come before the child's own call
    c.pid = pid;
    close_fd(out_pipe[1]);
    close_fd(err_pipe[1]);
    c.fd[0] = out_pipe[0];
    c.fd[1] = err_pipe[0];
    for (const int fd : c.fd) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    c.pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
    return c;
}

} // namespace detail

namespace detail {

/// Makes room in `to` for `size` characters (at most `room`): capacities double from 64 KiB and
/// never pass `room`. Returns how much the capacity grew.
inline std::size_t grow_output(std::string& to, std::size_t size, std::size_t room) {
    if (size <= to.capacity()) return 0;
    std::size_t cap = std::max<std::size_t>(to.capacity(), std::size_t{1} << 16);
    while (cap < size) cap *= 2;
    const std::size_t before = to.capacity();
    // (A new string, reserved from empty, gets what it asks for: growing one in place may take
    // twice its old buffer.)
    std::string grown;
    grown.reserve(std::min(cap, room));
    grown.append(to);
    to.swap(grown);
    return to.capacity() - before;
}

/// Closes what is left open of `c` and, when it printed past its bound, says so in `r`.
inline void finish_child(child_process& c, command_output& r) {
    for (int& fd : c.fd) close_fd(fd);
    close_fd(c.pidfd);
    if (!c.over) return;
    r.status = -1;
    r.out.clear();
    r.err = "printed more than mfprio reads (" + std::to_string(max_command_output) +
            " bytes on the commands' outputs together, or " + std::to_string(max_command_errors) + " on its errors)";
}

} // namespace detail

/// Runs the commands `argvs` (each found by find_executable) at once, each with no input and in
/// a process group of its own, collecting their outputs until every one has exited and its
/// outputs are read, or until `timeout_s` seconds have passed for all of them together: then
/// every group still running (the command and whatever it started) is killed. When a command
/// exits, whatever it left running in its group is killed too (it holds no claim on the
/// result, and its open output would otherwise hold the read), and so is whatever it
/// detached into a session of its own. An output that takes the outputs together past their
/// bound kills its group. Nothing is left running when this returns.
/// `finished(i, output)`, when given, is called for each command that exited with status 0
/// as soon as its outputs are complete, while the others may still run.
[[nodiscard]] inline std::vector<command_output>
run_commands(const std::vector<std::vector<std::string_view>>& argvs, int timeout_s = 60,
             const std::function<void(std::size_t, const command_output&)>& finished = {}) {
    const std::size_t n = argvs.size();
    std::vector<command_output> r(n);
    const detail::subreaper reaper;
    std::size_t kept = 0; // the buffers of standard output, all commands together
    std::vector<detail::child_process> cs;
    cs.reserve(n);
    for (std::size_t i = 0; i < n; ++i) cs.push_back(detail::start_child(argvs[i], r[i]));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
    std::vector<char> buf(1 << 16);
    const auto kill_group = [&](detail::child_process& c) {
        if (c.pid > 0 && !c.exited) {
            kill(-c.pid, SIGKILL);
            c.killed = true;
        }
    };
    // Reads what `c`'s output `k` holds now; false at its end (or past its bound).
    const auto read_some = [&](std::size_t i, int k) {
        detail::child_process& c = cs[i];
        for (;;) {
            const ssize_t got = read(c.fd[k], buf.data(), buf.size());
            if (got < 0 && errno == EINTR) continue;
            if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
            if (got <= 0) return false;
            std::string& to = k == 0 ? r[i].out : r[i].err;
            const auto n = static_cast<std::size_t>(got);
            // What this output's buffer may still grow to: the errors' own bound, or its own
            // buffer and what the outputs' buffers together have not taken of their bound
            // (buffers, not bytes: several floods at once cost the one bound, not twice it).
            const std::size_t room =
                k == 0 ? to.capacity() + (kept < max_command_output ? max_command_output - kept : 0) : max_command_errors;
            if (to.size() + n > room) {
                c.over = true;
                kill_group(c);
                return false;
            }
            const std::size_t grown = detail::grow_output(to, to.size() + n, room);
            if (k == 0) kept += grown;
            to.append(buf.data(), n);
        }
    };
    const auto reap = [&](detail::child_process& c, bool block) {
        int status = 0;
        pid_t w;
        while ((w = waitpid(c.pid, &status, block ? 0 : WNOHANG)) < 0 && errno == EINTR) {
        }
        if (w != c.pid) return;
        c.exited = true;
        if (WIFEXITED(status) && !c.killed) r[&c - cs.data()].status = WEXITSTATUS(status);
        kill(-c.pid, SIGKILL);
        detail::close_fd(c.pidfd);
    };
    std::vector<pollfd> p;
    std::vector<std::pair<std::size_t, int>> which; // child, 0/1 output or 2 its pidfd
    std::vector<bool> announced(n);                 // finished() called or passed over
    for (;;) {
        bool polling_exit = false;
        p.clear();
        which.clear();
        for (std::size_t i = 0; i < n; ++i) {
            detail::child_process& c = cs[i];
            if (c.pid > 0 && !c.exited && c.pidfd < 0) {
                reap(c, false);
                polling_exit = !c.exited;
            }
            for (int k = 0; k < 2; ++k) {
                if (c.fd[k] < 0) continue;
                // Once the command has exited, what it printed is read and the pipe closed.
                if (c.exited) {
                    (void)read_some(i, k);
                    detail::close_fd(c.fd[k]);
                    continue;
                }
                p.push_back({c.fd[k], POLLIN, 0});
                which.emplace_back(i, k);
            }
            if (!c.exited && c.pidfd >= 0) {
                p.push_back({c.pidfd, POLLIN, 0});
                which.emplace_back(i, 2);
            }
        }
        if (finished)
            for (std::size_t i = 0; i < n; ++i) {
                detail::child_process& c = cs[i];
                if (announced[i] || !c.exited || c.fd[0] >= 0 || c.fd[1] >= 0) continue;
                announced[i] = true;
                if (!c.over && !c.killed && r[i].status == 0) finished(i, r[i]);
            }
        if (p.empty() && !polling_exit) break;
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
        if (left <= 0) {
            for (auto& c : cs) {
                if (c.pid <= 0 || c.exited) continue;
                kill_group(c);
                reap(c, true);
                r[&c - cs.data()].status = -1;
                r[&c - cs.data()].err += "(killed after " + std::to_string(timeout_s) + " s)";
            }
            break;
        }
        const int wait_ms = static_cast<int>(polling_exit ? std::min<long long>(left, 50) : left);
        if (poll(p.data(), p.size(), wait_ms) < 0 && errno != EINTR) break;
        for (std::size_t x = 0; x < p.size(); ++x) {
            if (p[x].revents == 0) continue;
            const auto [i, k] = which[x];
            detail::child_process& c = cs[i];
            if (k == 2) reap(c, false);
            else if (c.fd[k] >= 0 && !read_some(i, k)) detail::close_fd(c.fd[k]);
        }
    }
    for (std::size_t i = 0; i < n; ++i) detail::finish_child(cs[i], r[i]);
    return r;
}

/// Runs one command (see run_commands).
[[nodiscard]] inline command_output run_command(const std::vector<std::string_view>& argv, int timeout_s = 60) {
    return std::move(run_commands({argv}, timeout_s).front());
}

/// The value of `key` in `scontrol show config`'s output (its last "Key = value" line), or "".
[[nodiscard]] inline std::string config_value(std::string_view config_text, std::string_view key) {
    std::string value;
    for (const auto& l : config::split_lines(config_text)) {
        const std::size_t eq = l.text.find('=');
        if (eq != std::string_view::npos && config::trim(l.text.substr(0, eq)) == key)
            value = std::string(config::trim(l.text.substr(eq + 1)));
    }
    return value;
}

/// The time of slurmctld's last priority recalculation: the first 8 bytes (a big-endian
/// 64-bit time) of StateSaveLocation/priority_last_decay_ran, when readable. The file is
/// opened without blocking and read only when it is a regular file (a FIFO or a device there
/// would hold the read).
[[nodiscard]] inline std::optional<std::int64_t> last_decay_ran(std::string_view config_text) {
    const std::string state = config_value(config_text, "StateSaveLocation");
    if (state.empty()) return std::nullopt;
    const int fd = open((state + "/priority_last_decay_ran").c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    struct stat st {};
    unsigned char b[8];
    const bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && read(fd, b, 8) == 8;
    close(fd);
    if (!ok) return std::nullopt;
    std::uint64_t v = 0;
    for (const unsigned char c : b) v = (v << 8) | c;
    if (v == 0 || v > static_cast<std::uint64_t>(config::max_epoch)) return std::nullopt;
    return static_cast<std::int64_t>(v);
}

/// When the file `scontrol show config` names as SLURM_CONF last changed (its modification
/// time), when it is a regular file readable here.
[[nodiscard]] inline std::optional<std::int64_t> slurm_conf_changed(std::string_view config_text) {
    const std::string path = config_value(config_text, "SLURM_CONF");
    struct stat st {};
    if (path.empty() || stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
    if (st.st_mtime <= 0 || st.st_mtime > config::max_epoch) return std::nullopt;
    return static_cast<std::int64_t>(st.st_mtime);
}

/// Runs the bundle's commands on this host's cluster, all at once, within `timeout_s`
/// seconds together. `err` gets the failing command, its status and its standard error.
/// `with_sacctmgr`: also sacctmgr's QOS (for the UsageFactor only it prints), skipped with a
/// note in `notes` when sacctmgr fails (slurmdbd down). `with_sprio`: also what sprio prints
/// (sprio_listing_file), skipped with a note when sprio fails; `sprio_done`, when given, is
/// called with its output as soon as sprio has exited with status 0 (the other commands may
/// still run), for the caller to start reading it.
[[nodiscard]] inline std::optional<cluster_inputs>
capture_live(std::string& err, int timeout_s = 60, bool with_sacctmgr = false, std::string* notes = nullptr,
             bool with_sprio = false, const std::function<void(const std::string&)>& sprio_done = {}) {
    cluster_inputs ci;
    std::vector<std::vector<std::string_view>> commands;
    std::vector<std::string> names; // each command's file name
    for (const bundle_file& f : bundle_files()) {
        commands.push_back(f.command);
        names.emplace_back(f.name);
    }
    const std::size_t required = commands.size();
    static const std::vector<std::string_view> sacctmgr_qos = {"sacctmgr", "-P", "show", "qos"};
    if (with_sacctmgr) {
        commands.push_back(sacctmgr_qos);
        names.emplace_back("sacctmgr_show_qos.txt");
    }
    if (with_sprio) {
        commands.push_back(sprio_listing_file().command);
        names.emplace_back(sprio_listing_file().name);
    }
    const std::size_t sprio_at = with_sprio ? commands.size() - 1 : commands.size();
    auto outputs = run_commands(commands, timeout_s, [&](std::size_t i, const command_output& out) {
        if (i == sprio_at && sprio_done) sprio_done(out.out);
    });
    ci.captured = static_cast<std::int64_t>(std::time(nullptr));
    for (std::size_t i = 0; i < commands.size(); ++i) {
        command_output& r = outputs[i];
        const bool optional = i >= required;
        const std::string& name = names[i];
        std::optional<input_error> nul;
        if (r.status == 0) nul = config::nul_byte_error(r.out, "`" + command_text(commands[i]) + "` output");
        if (r.status != 0 || nul) {
            std::string why = nul ? nul->to_string()
                                  : "`" + command_text(commands[i]) + "` " +
                                        (r.status < 0 ? std::string("failed") : "exited with status " + std::to_string(r.status));
            if (!nul && !r.err.empty()) why += ": " + std::string(config::trim(r.err));
            if (optional) {
                if (notes != nullptr)
                    *notes += why + (name == sprio_listing_file().name
                                         ? " (no job is taken as set by an administrator: sprio's rows are the one "
                                           "output that shows it)\n"
                                         : " (QOS UsageFactor taken as 1)\n");
                continue;
            }
            err = why;
            return std::nullopt;
        }
        std::vector<std::string_view> ran = commands[i];
        ran.front() = r.path;
        ci.commands.emplace_back(name, command_text(ran));
        config::conf_input in{std::move(r.out), "live:" + name};
        if (name == "scontrol_show_config.txt") {
            ci.calc_time = last_decay_ran(in.text);
            ci.conf_changed = slurm_conf_changed(in.text);
            ci.conf.insert(ci.conf.begin(), std::move(in));
        } else if (name.starts_with("scontrol_show_") && name != "scontrol_show_assoc_mgr.txt") {
            ci.conf.push_back(std::move(in));
        } else if (name == "sacctmgr_show_qos.txt") {
            ci.qos = std::move(in);
        } else if (name == sprio_listing_file().name) {
            ci.sprio = std::move(in);
        } else if (name == "squeue.txt") {
            ci.jobs = jobs_source(std::move(in));
        } else {
            ci.assoc.push_back(std::move(in));
        }
    }
    return ci;
}

} // namespace mfprio::cli
