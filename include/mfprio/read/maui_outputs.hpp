#pragma once
/// \file
/// Maui's own outputs and files as inputs, told apart by content (`detect_maui_input`):
///
/// - `checkjob` (plain or `-v`, one job or many one after another): each job's state,
///   credentials, wallclock limit, times in the queue, requirements, bypass count, system
///   priority, and the PE and StartPriority Maui printed (`parse_maui_checkjob`).
/// - `showq`: the jobs of each section in Maui's order; IDLE JOBS is the order its last
///   iteration sorted the idle queue in, which `diagnose -p` follows (`parse_maui_showq`).
/// - `showstats -v`: the scheduler's current time and iteration (`parse_maui_showstats`).
/// - The simulator's resource trace (version 230): the cluster's configured processors,
///   memory, swap and disk (`parse_maui_resource_trace`).
/// - The simulator's workload trace (version 230): the jobs it describes, as submitted
///   (`parse_maui_workload_trace`).
///
/// checkjob prints times as dates without a year and durations, so the reader takes the
/// scheduler's time (`showstats -v`) and turns the durations into times: an idle job was
/// submitted `Total` before it and has been eligible for `Eligible` (Maui's EffQueueDuration,
/// from which MJobGetStartPriority takes the queue time); a running job started `WallTime`
/// before it and was submitted `Total` before its start. checkjob prints a per-task amount
/// of 10 GB or more rounded down to whole units (MULToRSpec: 10500 MB is "10G"); a workload
/// trace or a jobs table carries the exact amount. Soft policy violations are not printed:
/// jobs read from checkjob have none.
///
/// Every reader names the file, line and column of what it cannot read, and returns nothing
/// else then.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include <mfprio/core/expected.hpp>
#include <mfprio/core/job.hpp>
#include <mfprio/read/common.hpp>
#include <mfprio/read/maui_cfg.hpp>
#include <mfprio/read/maui_jobs.hpp>
#include <mfprio/maui/job.hpp>
#include <mfprio/maui/model.hpp>

namespace mfprio::config {

/// What a Maui input file is, from its first lines.
enum class maui_input_kind : std::uint8_t {
    table,          ///< a pipe-separated table (mfprio's jobs or nodes table)
    checkjob,       ///< `checkjob` output: starts "checking job"
    showq,          ///< `showq` output: starts "ACTIVE JOBS"
    showstats,      ///< `showstats -v` output: starts "current scheduler time:"
    resource_trace, ///< simulator resource trace: COMPUTENODE records
    workload_trace, ///< simulator workload trace: 43 or 44 fields a record
    unknown,
};

namespace detail {
/// The whitespace-separated words of a line with their 1-based columns.
struct maui_word {
    std::string_view text;
    std::size_t column = 0;
};
[[nodiscard]] inline std::vector<maui_word> maui_words(std::string_view line) {
    std::vector<maui_word> out;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
        const std::size_t start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
        if (i > start) out.push_back({line.substr(start, i - start), start + 1});
    }
    return out;
}
/// The trace line without its comment (`#` to the end, as MTraceLoadWorkload cuts it).
[[nodiscard]] inline std::string_view maui_trace_data(std::string_view line) {
    const std::size_t hash = line.find('#');
    return trim(hash == std::string_view::npos ? line : line.substr(0, hash));
}
} // namespace detail

/// Tells a Maui input by content (see `maui_input_kind`): the first line that is not blank
/// (and, for traces, not a comment or a VERSION line) decides.
[[nodiscard]] inline maui_input_kind detect_maui_input(std::string_view text) {
    maui_input_kind kind = maui_input_kind::unknown;
    text::for_each_line(text, [&](const text::text_line& l) {
        const std::string_view t = trim(l.text);
        if (t.empty()) return true;
        if (t.starts_with("checking job ")) kind = maui_input_kind::checkjob;
        else if (t.starts_with("ACTIVE JOBS")) kind = maui_input_kind::showq;
        else if (t.starts_with("current scheduler time:")) kind = maui_input_kind::showstats;
        else if (t.find('|') != std::string_view::npos) kind = maui_input_kind::table;
        else {
            const std::string_view data = detail::maui_trace_data(t);
            if (data.empty() || data.starts_with("VERSION")) return true;
            const auto words = detail::maui_words(data);
            if (words.front().text == "COMPUTENODE") kind = maui_input_kind::resource_trace;
            else if (words.size() == 43 || words.size() == 44) kind = maui_input_kind::workload_trace;
        }
        return false;
    });
    return kind;
}

/// `showstats -v`: the scheduler's time and iteration.
struct maui_showstats {
    std::int64_t now = 0;        ///< "current scheduler time: ... (EPOCH)"
    std::int64_t iteration = -1; ///< "statistics for iteration N"
};

/// Reads `showstats -v` output. An error when the current time line is missing or has no
/// epoch in parentheses.
[[nodiscard]] inline expected<maui_showstats> parse_maui_showstats(std::string_view text, std::string_view file) {
    maui_showstats out;
    std::optional<input_error> error;
    bool found = false;
    text::for_each_line(text, [&](const text::text_line& l) {
        const std::string_view t = trim(l.text);
        if (t.starts_with("current scheduler time:")) {
            const std::size_t open = t.rfind('('), close = t.rfind(')');
            const auto n = open != std::string_view::npos && close == t.size() - 1
                               ? parse_unsigned<std::uint64_t>(t.substr(open + 1, close - open - 1))
                               : std::nullopt;
            if (!n || *n > static_cast<std::uint64_t>(max_epoch)) {
                error = make_error(file, l.number, 1, "current scheduler time",
                                   "expected the scheduler's time as '(EPOCH)' at the end of the line");
                return false;
            }
            out.now = static_cast<std::int64_t>(*n);
            found = true;
        } else if (t.starts_with("statistics for iteration")) {
            const auto w = detail::maui_words(t);
            if (w.size() >= 4)
                if (const auto n = parse_unsigned<std::uint32_t>(w[3].text)) out.iteration = *n;
        }
        return true;
    });
    if (error) return *error;
    if (!found)
        return make_error(file, 1, 1, "current scheduler time",
                          "no 'current scheduler time:' line: not the output of showstats -v");
    return out;
}

/// One job row of `showq`.
struct maui_showq_job {
    std::string id, user, state;
    std::uint32_t procs = 0;
    enum class section : std::uint8_t { active, idle, blocked } where = section::active;
    std::size_t line = 0;
};

/// Reads `showq` output: the job rows under ACTIVE JOBS, IDLE JOBS and BLOCKED JOBS, in the
/// order printed. A row is `JOBNAME USERNAME STATE PROC ...`; summary lines are skipped.
[[nodiscard]] inline expected<std::vector<maui_showq_job>> parse_maui_showq(std::string_view text,
                                                                           std::string_view file) {
    std::vector<maui_showq_job> out;
    std::optional<maui_showq_job::section> where;
    std::optional<input_error> error;
    text::for_each_line(text, [&](const text::text_line& l) {
        const std::string_view t = trim(l.text);
        if (t.starts_with("ACTIVE JOBS")) where = maui_showq_job::section::active;
        else if (t.starts_with("IDLE JOBS")) where = maui_showq_job::section::idle;
        else if (t.starts_with("BLOCKED JOBS")) where = maui_showq_job::section::blocked;
        else if (!t.empty() && !t.starts_with("JOBNAME") && !t.starts_with("Total Jobs:")) {
            const auto w = detail::maui_words(t);
            // A job row: JOBNAME USERNAME STATE PROC and two more. The summary lines ("1 Active
            // Job  8 of 8 Processors Active (100.00%)", "2 of 2 Nodes Active", "3 Idle Jobs")
            // have "Active" or "of" second, or fewer words.
            if (w.size() < 6 || w[1].text == "Active" || w[1].text == "of") return true;
            if (!where) {
                error = make_error(file, l.number, 1, "showq", "a job row before any ACTIVE, IDLE or BLOCKED JOBS line");
                return false;
            }
            const auto procs = parse_unsigned<std::uint32_t>(w[3].text);
            if (!procs) {
                error = make_error(file, l.number, w[3].column, "PROC",
                                   "expected a processor count, got " + text::quote(w[3].text));
                return false;
            }
            out.push_back({std::string(w[0].text), std::string(w[1].text), std::string(w[2].text), *procs, *where,
                           l.number});
        }
        return true;
    });
    if (error) return *error;
    if (!where) return make_error(file, 1, 1, "showq", "no ACTIVE, IDLE or BLOCKED JOBS line: not the output of showq");
    return out;
}

/// What checkjob printed about a job besides what the job record holds.
struct maui_checkjob_printed {
    std::int64_t start_priority = 0; ///< "StartPriority:"
    double pe = 0;                   ///< "PE:"
    std::size_t line = 0;            ///< the line of "PE: ... StartPriority:"
};

/// The jobs of a checkjob file: the jobs table (rows as from a jobs table, `line` the
/// "checking job" line) and, by row, the values Maui printed.
struct maui_checkjob_jobs {
    maui_jobs_table table;
    std::vector<maui_checkjob_printed> printed;
};

namespace detail {

/// A checkjob job block being read.
struct maui_checkjob_pending {
    maui_job_row row;
    maui_checkjob_printed printed;
    std::int64_t total = -1, eligible = -1, walltime = -1;
    bool has_wclimit = false, has_priority = false;
};

/// `parse_maui_checkjob`'s state while it reads the lines: the job block being read, and a
/// member function for each kind of line.
struct maui_checkjob_reader {
    using pending = maui_checkjob_pending;
    std::string_view file;
    std::int64_t now = 0;
    maui_checkjob_jobs out;
    std::optional<input_error> error;
    std::optional<pending> job;
    std::unordered_set<std::uint32_t> seen;
    std::size_t last_line = 0;

    bool fail(std::size_t line, std::size_t column, std::string_view key, std::string message) {
        error = make_error(file, line, column, key, std::move(message));
        return false;
    }

    /// The value after `key` in `t` (up to two spaces or the end), with its column.
    [[nodiscard]] static std::optional<std::pair<std::string_view, std::size_t>> after(std::string_view t,
                                                                                     std::string_view key) {
        const std::size_t k = t.find(key);
        if (k == std::string_view::npos) return std::nullopt;
        std::size_t b = k + key.size();
        while (b < t.size() && t[b] == ' ') ++b;
        std::size_t e = t.find("  ", b);
        if (e == std::string_view::npos) e = t.size();
        std::string_view v = t.substr(b, e - b);
        while (!v.empty() && (v.back() == ')' || v.back() == ' ')) v.remove_suffix(1);
        return std::pair{v, b + 1};
    }

    /// A Maui duration into `dst` (a negative one: not yet queued, 0).
    bool duration(std::string_view v, std::size_t line, std::size_t column, std::string_view key, std::int64_t& dst) {
        if (v == "INFINITY")
            return fail(line, column, key,
                        std::string(key) + " is INFINITY: Maui printed no number (a submission time far from the "
                                           "scheduler's clock)");
        const bool negative = v.starts_with('-');
        const auto t = parse_maui_time(negative ? v.substr(1) : v);
        if (!t) return fail(line, column, key, "expected a Maui duration [[DD:]HH:]MM:SS, got " + text::quote(v));
        dst = negative ? 0 : *t;
        return true;
    }

    /// Finishes the job being read: its times from the durations, its totals from its
    /// requirements.
    bool finish() {
        if (!job) return true;
        pending& p = *job;
        maui::job& j = p.row.job;
        const std::string who = "job " + std::to_string(j.id);
        const std::size_t at = p.row.line;
        if (!p.has_wclimit) return fail(at, 1, "WallTime", who + ": no 'WallTime: ... of LIMIT' line");
        if (p.total < 0) return fail(at, 1, "Time Queued", who + ": no '(Time Queued  Total: ...)' line");
        if (!p.has_priority) return fail(at, 1, "StartPriority", who + ": no 'PE: ... StartPriority: ...' line");
        if (p.row.reqs.empty()) return fail(at, 1, "Req", who + ": no 'Req[0]' line");
        if (j.state == job_state::running) {
            if (p.walltime < 0) return fail(at, 1, "WallTime", who + ": a running job needs its WallTime");
            j.start_time = now - p.walltime;
            j.submit_time = j.start_time - p.total;
        } else {
            j.submit_time = now - p.total;
            if (p.eligible > 0) j.eligible_time = now - p.eligible;
        }
        if (j.submit_time < 0) return fail(at, 1, "Time Queued", who + ": queued longer than the scheduler's time");
        const auto sum = requirement_totals(p.row.reqs);
        const std::array<std::uint32_t*, 5> fields{&j.procs, &j.nodes, &j.mem_mb, &j.swap_mb, &j.disk_mb};
        for (std::size_t k = 0; k < 5; ++k) {
            if (sum[k] > 0xffffffffu) return fail(at, 1, "Req", who + ": the requirements add up past 4294967295");
            *fields[k] = static_cast<std::uint32_t>(sum[k]);
        }
        p.row.reqs.back().last = true;
        out.table.jobs.push_back(std::move(p.row));
        out.printed.push_back(p.printed);
        job.reset();
        return true;
    }

    /// "checking job ID": a new job block.
    bool start(std::size_t line, std::size_t indent, std::string_view t) {
        if (!finish()) return false;
        const auto w = maui_words(t);
        const auto id = w.size() >= 3 ? parse_unsigned<std::uint32_t>(w[2].text) : std::nullopt;
        if (!id || *id == 0)
            return fail(line, w.size() >= 3 ? indent + w[2].column : 1, "JobID",
                        "mfprio needs numeric job ids from 1 to 4294967295, got " + text::quote(w.size() >= 3 ? w[2].text : t));
        if (!seen.insert(*id).second) return fail(line, indent + w[2].column, "JobID", "job " + std::to_string(*id) + " is listed twice");
        job.emplace();
        job->row.line = line;
        job->row.job.id = *id;
        return true;
    }

    /// "Creds:  user:U  group:G  account:A  class:C  qos:Q".
    bool creds(std::size_t line, std::size_t indent, std::string_view t, const std::string& who) {
        static constexpr std::array<std::pair<std::string_view, maui::cred_kind>, 5> keys{{
            {"user:", maui::cred_kind::user},
            {"group:", maui::cred_kind::group},
            {"account:", maui::cred_kind::account},
            {"class:", maui::cred_kind::job_class},
            {"qos:", maui::cred_kind::qos},
        }};
        auto& creds = job->row.creds;
        for (const auto& w : maui_words(t.substr(6)))
            for (const auto& [key, kind] : keys)
                if (w.text.starts_with(key)) creds[maui::index(kind)] = std::string(w.text.substr(key.size()));
        if (creds[maui::index(maui::cred_kind::user)].empty()) return fail(line, indent + 1, "Creds", who + "no user among the credentials");
        return true;
    }

    /// "WallTime: USED of LIMIT".
    bool walltime(std::size_t line, std::size_t indent, std::string_view t, const std::string& who) {
        pending& p = *job;
        const std::size_t of = t.find(" of ");
        if (of == std::string_view::npos) return fail(line, indent + 1, "WallTime", who + "expected 'WallTime: USED of LIMIT'");
        std::string_view used = trim(t.substr(9, of - 9));
        std::string_view limit = t.substr(of + 4);
        limit = limit.substr(0, limit.find("  "));
        if (!duration(used, line, indent + 10, "WallTime", p.walltime)) return false;
        const auto wl = parse_maui_time(trim(limit));
        if (!wl || *wl > 0xffffffff) return fail(line, indent + of + 5, "WallTime", who + "expected a wallclock limit, got " + text::quote(limit));
        p.row.job.wclimit = static_cast<std::uint32_t>(*wl);
        p.has_wclimit = true;
        return true;
    }

    /// "Dedicated Resources Per Task: PROCS: N  MEM: M ..." of the last Req.
    bool dedicated(std::size_t line, std::size_t indent, std::string_view t, const std::string& who) {
        if (job->row.reqs.empty()) return fail(line, indent + 1, "Dedicated Resources", who + "before any Req line");
        maui::requirement& r = job->row.reqs.back();
        const auto w = maui_words(t.substr(29));
        for (std::size_t i = 0; i + 1 < w.size(); i += 2) {
            const std::string_view key = w[i].text, v = w[i + 1].text;
            const std::size_t column = indent + 29 + w[i + 1].column;
            const bool amount = key == "MEM:" || key == "SWAP:" || key == "DISK:";
            const auto n = amount ? parse_maui_mb(v, 0xffffffffu) : parse_unsigned<std::uint64_t>(v);
            if (!n || *n > 0xffffffffu) return fail(line, column, key.substr(0, key.size() - 1), who + "cannot read " + text::quote(v));
            const auto value = static_cast<std::uint32_t>(*n);
            if (key == "PROCS:") r.procs = value;
            else if (key == "MEM:") r.mem_mb = value;
            else if (key == "SWAP:") r.swap_mb = value;
            else if (key == "DISK:") r.disk_mb = value;
        }
        return true;
    }

    /// "PE:  X  StartPriority:  N", with "SystemPriority: N" after `setspri`.
    bool priorities(std::size_t line, std::size_t indent, std::string_view t, const std::string& who) {
        pending& p = *job;
        maui::job& j = p.row.job;
        const auto pe = after(t, "PE:");
        const auto sp = after(t, "StartPriority:");
        const auto pe_value = pe ? parse_double(pe->first) : std::nullopt;
        const auto sp_value = sp ? parse_signed<std::int64_t>(sp->first) : std::nullopt;
        if (!pe_value || !sp_value) return fail(line, indent + 1, "StartPriority", who + "expected 'PE:  X  StartPriority:  N'");
        p.printed = {*sp_value, *pe_value, line};
        p.has_priority = true;
        if (const auto sys = after(t, "SystemPriority:")) {
            const auto v = parse_signed<std::int64_t>(sys->first);
            if (!v) return fail(line, indent + sys->second, "SystemPriority", who + "cannot read " + text::quote(sys->first));
            // SystemPrio: N for `setspri N` (0..1000), 2e9 + N for `setspri -r N`.
            constexpr std::int64_t relative_base = 2'000'000'000;
            if (*v > 1'000'000'000) {
                j.system_priority_mode = maui::system_priority_kind::relative;
                j.system_priority = static_cast<std::int32_t>(*v - relative_base);
            } else if (*v > 0) {
                j.system_priority_mode = maui::system_priority_kind::absolute;
                j.system_priority = static_cast<std::int32_t>(*v);
            }
        }
        return true;
    }

    /// One line of the output; false (with `error`) where it is wrong.
    bool read(const text::text_line& l) {
        last_line = l.number;
        const std::string_view raw = l.text;
        const std::string_view t = trim(raw);
        const std::size_t indent = static_cast<std::size_t>(t.data() - raw.data());
        const std::size_t line = l.number;
        if (t.starts_with("checking job ")) return start(line, indent, t);
        if (t.empty()) return true;
        if (!job) return fail(line, indent + 1, "checkjob", "expected 'checking job ID' first");
        pending& p = *job;
        const std::string who = "job " + std::to_string(p.row.job.id) + ": ";
        if (t.starts_with("State:")) {
            const auto w = maui_words(t);
            const auto s = w.size() >= 2 ? parse_maui_job_state(w[1].text) : std::nullopt;
            if (!s) return fail(line, indent + (w.size() >= 2 ? w[1].column : 1), "State", who + "unknown state " + text::quote(t.substr(6)));
            p.row.job.state = *s;
        } else if (t.starts_with("Creds:")) {
            return creds(line, indent, t, who);
        } else if (t.starts_with("WallTime:")) {
            return walltime(line, indent, t, who);
        } else if (t.starts_with("(Time Queued")) {
            const auto total = after(t, "Total:");
            const auto eligible = after(t, "Eligible:");
            if (!total || !eligible) return fail(line, indent + 1, "Time Queued", who + "expected '(Time Queued  Total: T  Eligible: T)'");
            return duration(total->first, line, indent + total->second, "Total", p.total) &&
                   duration(eligible->first, line, indent + eligible->second, "Eligible", p.eligible);
        } else if (t.starts_with("Req[")) {
            const auto tc = after(t, "TaskCount:");
            const auto n = tc ? parse_unsigned<std::uint32_t>(tc->first) : std::nullopt;
            if (!n) return fail(line, indent + 1, "TaskCount", who + "expected 'Req[N]  TaskCount: N'");
            maui::requirement r;
            r.tasks = *n;
            r.nodes = 0;
            r.last = false;
            p.row.reqs.push_back(r);
        } else if (t.starts_with("Dedicated Resources Per Task:")) {
            return dedicated(line, indent, t, who);
        } else if (t.find("NodeCount:") != std::string_view::npos && !p.row.reqs.empty()) {
            const auto nc = after(t, "NodeCount:");
            const auto n = nc ? parse_unsigned<std::uint32_t>(nc->first) : std::nullopt;
            if (!n) return fail(line, indent + 1, "NodeCount", who + "expected 'NodeCount: N'");
            p.row.reqs.back().nodes = *n;
        } else if (t.starts_with("Bypass:")) {
            const auto b = after(t, "Bypass:");
            const auto n = b ? parse_unsigned<std::uint32_t>(b->first) : std::nullopt;
            if (!n) return fail(line, indent + 1, "Bypass", who + "expected 'Bypass: N'");
            p.row.job.bypass = *n;
        } else if (t.starts_with("PE:")) {
            return priorities(line, indent, t, who);
        }
        return true;
    }
};

} // namespace detail

/// Reads `checkjob` or `checkjob -v` output for one or more jobs (see the file comment),
/// at the scheduler's time `now`.
[[nodiscard]] inline expected<maui_checkjob_jobs> parse_maui_checkjob(std::string_view text, std::string_view file,
                                                                      std::int64_t now) {
    detail::maui_checkjob_reader r;
    r.file = file;
    r.now = now;
    r.out.table.file = std::string(file);
    text::for_each_line(text, [&](const text::text_line& l) { return r.read(l); });
    if (r.error) return *r.error;
    if (!r.finish()) return *r.error;
    if (r.out.table.jobs.empty())
        return make_error(file, r.last_line == 0 ? 1 : r.last_line, 1, "checkjob", "no 'checking job' block: not the output of checkjob");
    return std::move(r.out);
}

/// Reads a simulator resource trace (version 230: 21 fields a record, MTraceLoadComputeNode):
/// the cluster's configured resources are the sums of each node's swap (field 6), memory (7),
/// disk (8, MB with Maui's units) and processors (9). Blank lines, `#` comments and the
/// VERSION line are skipped.
[[nodiscard]] inline expected<maui::resources> parse_maui_resource_trace(std::string_view text, std::string_view file) {
    maui::resources r;
    std::optional<input_error> error;
    std::size_t nodes = 0;
    text::for_each_line(text, [&](const text::text_line& l) {
        const std::string_view data = detail::maui_trace_data(l.text);
        if (data.empty() || data.starts_with("VERSION")) return true;
        const auto w = detail::maui_words(data);
        const std::size_t base = static_cast<std::size_t>(data.data() - l.text.data());
        if (w.size() != 21) {
            error = make_error(file, l.number, base + 1, "resource trace",
                               "expected 21 fields (version 230), got " + std::to_string(w.size()));
            return false;
        }
        if (w[0].text != "COMPUTENODE") {
            error = make_error(file, l.number, base + 1, "resource type",
                               "expected COMPUTENODE, got " + text::quote(w[0].text));
            return false;
        }
        constexpr std::uint64_t max = std::uint64_t{1} << 53;
        const std::array<std::pair<std::size_t, double*>, 4> fields{
            {{5, &r.swap}, {6, &r.mem}, {7, &r.disk}, {8, &r.procs}}};
        static constexpr std::array<std::string_view, 4> names{"swap", "memory", "disk", "processors"};
        for (std::size_t k = 0; k < fields.size(); ++k) {
            const detail::maui_word& f = w[fields[k].first];
            const auto n = k == 3 ? parse_unsigned<std::uint64_t>(f.text) : parse_maui_mb(f.text, max);
            if (!n || *n > max) {
                error = make_error(file, l.number, base + f.column, names[k],
                                   "node " + text::quote(w[3].text) + ": cannot read " + text::quote(f.text) + " as " +
                                       std::string(names[k]));
                return false;
            }
            *fields[k].second += static_cast<double>(*n);
        }
        ++nodes;
        return true;
    });
    if (error) return *error;
    if (nodes == 0) return make_error(file, 1, 1, "resource trace", "no COMPUTENODE record");
    return r;
}

/// Reads a simulator workload trace (version 230: 44 fields a record, or 43 without the
/// resource manager; MTraceLoadWorkload) into a jobs table: each record an idle job with
/// its ID (numeric for mfprio), user (4), group (5), WCLimit (6, seconds, -1 unlimited; the
/// first of a list), class (8, `[name:count]`), submission time (9), system queue time (21,
/// the eligible time when > 0), QOS (24, the one requested; `[NONE]`, 0, -1 and DEFAULT
/// none), account (26; `[NONE]` and 0 none), bypass count (29), nodes (2) and tasks (3, the
/// first of a list), processors (32, 0 is 1), memory (33), disk (34) and swap (35) per task.
/// The simulator itself resets submission times and bypass counts and grants QOS by access
/// lists: checkjob says what it made of each job.
[[nodiscard]] inline expected<maui_jobs_table> parse_maui_workload_trace(std::string_view text, std::string_view file) {
    maui_jobs_table out;
    out.file = std::string(file);
    std::optional<input_error> error;
    std::unordered_set<std::uint32_t> seen;
    text::for_each_line(text, [&](const text::text_line& l) {
        const std::string_view data = detail::maui_trace_data(l.text);
        if (data.empty() || data.starts_with("VERSION")) return true;
        const auto w = detail::maui_words(data);
        const std::size_t base = static_cast<std::size_t>(data.data() - l.text.data());
        const auto fail = [&](std::size_t field, std::string key, std::string message) {
            error = make_error(file, l.number, base + w[field].column, key, std::move(message));
            return false;
        };
        if (w.size() != 43 && w.size() != 44) {
            error = make_error(file, l.number, base + 1, "workload trace",
                               "expected 44 fields (version 230), got " + std::to_string(w.size()));
            return false;
        }
        const auto none = [](std::string_view v) { return v == "[NONE]" || v == "NONE" || v == "0" || v == "-1"; };
        maui_job_row r;
        r.line = l.number;
        const auto id = parse_unsigned<std::uint32_t>(w[0].text);
        if (!id || *id == 0)
            return fail(0, "JobID", "mfprio needs numeric job ids from 1 to 4294967295, got " + text::quote(w[0].text));
        if (!seen.insert(*id).second) return fail(0, "JobID", "job " + std::to_string(*id) + " is listed twice");
        r.job.id = *id;
        const std::string who = "job " + std::to_string(*id) + ": ";
        const auto number = [&](std::size_t field, std::string_view key, std::int64_t low,
                                std::int64_t high) -> std::optional<std::int64_t> {
            std::string_view v = w[field].text;
            v = v.substr(0, v.find_first_of(",:"));
            const auto n = parse_signed<std::int64_t>(v);
            if (!n || *n < low || *n > high) {
                fail(field, std::string(key),
                     who + std::string(key) + " " + text::quote(w[field].text) + " is not an integer from " +
                         std::to_string(low) + " to " + std::to_string(high));
                return std::nullopt;
            }
            return *n;
        };
        const auto nodes = number(1, "nodes", 0, 0xffffffff);
        if (!nodes) return false;
        if (w[2].text.starts_with("PBS=")) return fail(2, "tasks", who + "a PBS= task request is not read");
        const auto tasks = number(2, "tasks", 0, 0xffffffff);
        if (!tasks) return false;
        r.creds[maui::index(maui::cred_kind::user)] = std::string(w[3].text);
        if (!none(w[4].text)) r.creds[maui::index(maui::cred_kind::group)] = std::string(w[4].text);
        const auto wclimit = number(5, "WCLimit", -1, 0xffffffff);
        if (!wclimit) return false;
        r.job.wclimit = static_cast<std::uint32_t>(*wclimit == -1 ? maui_infinity : *wclimit);
        {
            std::string_view c = w[7].text;
            if (c.starts_with('[')) c.remove_prefix(1);
            c = c.substr(0, c.find_first_of(":]"));
            if (!c.empty() && c != "NONE" && c != "DEFAULT") r.creds[maui::index(maui::cred_kind::job_class)] = std::string(c);
        }
        const auto submit = number(8, "submission time", 0, max_epoch);
        if (!submit) return false;
        r.job.submit_time = *submit;
        const auto sqt = number(20, "system queue time", 0, max_epoch);
        if (!sqt) return false;
        if (*sqt > *submit) r.job.eligible_time = *sqt;
        {
            const std::string_view q = w[23].text.substr(0, w[23].text.find(':'));
            if (!q.empty() && !none(q) && q != "DEFAULT") r.creds[maui::index(maui::cred_kind::qos)] = std::string(q);
        }
        if (!none(w[25].text)) r.creds[maui::index(maui::cred_kind::account)] = std::string(w[25].text);
        const auto bypass = number(28, "bypass", -1, 0xffffffff);
        if (!bypass) return false;
        r.job.bypass = static_cast<std::uint32_t>(std::max<std::int64_t>(0, *bypass));
        const auto dprocs = number(31, "processors per task", 0, 0xffffffff);
        if (!dprocs) return false;
        maui::requirement q;
        q.tasks = static_cast<std::uint32_t>(*tasks);
        q.procs = *dprocs == 0 ? 1 : static_cast<std::uint32_t>(*dprocs);
        q.nodes = static_cast<std::uint32_t>(*nodes);
        const std::array<std::pair<std::size_t, std::uint32_t*>, 3> amounts{
            {{32, &q.mem_mb}, {33, &q.disk_mb}, {34, &q.swap_mb}}};
        for (const auto& [field, dst] : amounts) {
            const auto n = parse_maui_mb(w[field].text, 0xffffffffu);
            if (!n) return fail(field, "amount", who + "cannot read " + text::quote(w[field].text) + " as MB");
            *dst = static_cast<std::uint32_t>(*n);
        }
        q.last = true;
        const auto sum = requirement_totals(std::span<const maui::requirement>(&q, 1));
        const std::array<std::uint32_t*, 5> fields{&r.job.procs, &r.job.nodes, &r.job.mem_mb, &r.job.swap_mb,
                                                   &r.job.disk_mb};
        for (std::size_t k = 0; k < 5; ++k) {
            if (sum[k] > 0xffffffffu) return fail(2, "tasks", who + "the request adds up past 4294967295");
            *fields[k] = static_cast<std::uint32_t>(sum[k]);
        }
        r.reqs.push_back(q);
        r.job.state = job_state::pending;
        out.jobs.push_back(std::move(r));
        return true;
    });
    if (error) return *error;
    if (out.jobs.empty()) return make_error(file, 1, 1, "workload trace", "no job record");
    return out;
}

} // namespace mfprio::config
