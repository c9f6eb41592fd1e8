#pragma once
/// \file
/// The inputs of `mfprio diagnose` besides maui.cfg: the Maui jobs table and the nodes table.
///
/// Jobs table: pipe-separated with a header row (see `table.hpp`), one job per row; columns
/// are case-insensitive, in any order; unknown columns are ignored; an empty cell means
/// "not set".
/// | column | meaning |
/// |---|---|
/// | JobID (required) | u32 job id, > 0, unique |
/// | User (required) | user name |
/// | Group, Account, QOS, Class | credential names; empty: the job has none |
/// | SubmitTime (required) | epoch seconds or `YYYY-MM-DDTHH:MM:SS` (as in the Slurm jobs table) |
/// | EligibleTime | when the job became eligible or was released from a hold (Maui's SystemQueueTime); empty: SubmitTime |
/// | PolicyBlockedTime | last time an idle, active or system queue policy blocked it (QUEUEPOLICY); empty: never |
/// | BlockedTime | last time any other check failed (hold, dependency, FS cap...; FULLPOLICY); empty: never |
/// | State | Maui's own names (see `parse_maui_job_state`), or PENDING (default), HELD, RUNNING... as in the Slurm jobs table |
/// | StartTime | when a running job started; required for RUNNING jobs, refused for others |
/// | WCLimit | wallclock limit, a Maui time `[[[DD:]HH:]MM:]SS`, INFINITY or UNLIMITED (Maui's MAX_MTIME); empty: 0 |
/// | Procs, Nodes | u32, default 1 |
/// | Mem, Swap, Disk | MB requested in total, u32, default 0; units as Maui reads them (`parse_maui_mb`: 64G, 512K) |
/// | Req | the job's requirements, for a job with several (see `parse_maui_requirements`): `2x(procs=4,mem=1024);1x(procs=1)` |
/// | Bypass | u32 backfill bypass count, default 0 |
/// | SPViolation | violates a soft policy: TRUE/FALSE, YES/NO, ON/OFF, 1/0; default false |
/// | SystemPriority | `N` (0..1000) as `setspri N`; `+N` or `-N` (|N| <= 1e9) as `setspri -r` |
///
/// Without a Req cell a job is one requirement of one task with the Procs, Mem, Swap and Disk
/// columns as its amounts (for PE, MJobGetPE). With one, Procs, Nodes, Mem, Swap and Disk
/// are the requirements' sums (a cell that is also given must equal its sum).
///
/// Nodes table: `Name|Procs|Mem|Swap|Disk` with a header row; Name is required and unique;
/// the other columns are optional (a missing column or an empty cell counts 0); Mem, Swap and
/// Disk are MB with Maui's units (`parse_maui_mb`), as checknode prints them. The cluster's
/// resources are the column sums. From a slurm.conf, the NodeName lines give Procs (CPUs)
/// and Mem (RealMemory); swap and disk are not configured.

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
#include <mfprio/read/jobs_table.hpp>
#include <mfprio/read/maui_cfg.hpp>
#include <mfprio/read/slurm_conf.hpp>
#include <mfprio/text/table.hpp>
#include <mfprio/read/common.hpp>
#include <mfprio/maui/job.hpp>
#include <mfprio/maui/model.hpp>

namespace mfprio::config {

/// A job state of the Maui jobs table: Maui 3.3's own names (MJobState in MConst.c, any
/// case) mapped to what they mean for priority, or the Slurm names of the Slurm jobs table.
/// - Idle: pending, listed by `diagnose -p`. Suspended too: MQueueSelectAllJobs takes Idle
///   and Suspended jobs into the idle queue (MPolicy.c), and a suspended job is not active
///   (MJOBISACTIVE: Starting, Running), so it counts in no UPROC or UJOB.
/// - Starting, Running: running (MJOBISACTIVE): UPROC and UJOB count them.
/// - Hold, UserHold, SystemHold, BatchHold, Deferred, and the states a job has before it is
///   queued or after a failed submission (NotQueued, Staging, Staged, SubmitErr, NotRun,
///   Unknown): not idle, not active: held (not listed, not counted).
/// - Completed, Removed, Vacated (MJOBISCOMPLETE), Lost: finished.
[[nodiscard]] inline std::optional<job_state> parse_maui_job_state(std::string_view s) {
    struct entry {
        std::string_view name;
        job_state state;
    };
    static constexpr entry maui[] = {
        {"Idle", job_state::pending},      {"Suspended", job_state::pending},  {"Starting", job_state::running},
        {"Running", job_state::running},   {"Hold", job_state::held},          {"UserHold", job_state::held},
        {"SystemHold", job_state::held},   {"BatchHold", job_state::held},     {"Deferred", job_state::held},
        {"NotQueued", job_state::held},    {"Staging", job_state::held},       {"Staged", job_state::held},
        {"SubmitErr", job_state::held},    {"NotRun", job_state::held},        {"Unknown", job_state::held},
        {"Completed", job_state::finished}, {"Removed", job_state::finished}, {"Vacated", job_state::finished},
        {"Lost", job_state::finished},
    };
    const std::string_view t = trim(s);
    for (const auto& e : maui)
        if (iequals(e.name, t)) return e.state;
    return detail::parse_job_state(t);
}

/// A memory amount in MB as Maui reads one (MURSpecToL with MB the default unit): an integer
/// with an optional unit B, K, M, G or T (any case, a trailing B allowed: `64G`, `512kb`),
/// shifted to MB by powers of 1024 and rounded down as Maui's shifts round. nullopt for
/// anything else or more than `max`.
[[nodiscard]] inline std::optional<std::uint64_t> parse_maui_mb(std::string_view s, std::uint64_t max) {
    std::size_t digits = 0;
    while (digits < s.size() && is_digit(s[digits])) ++digits;
    const auto n = parse_unsigned<std::uint64_t>(s.substr(0, digits));
    if (!n) return std::nullopt;
    std::string_view unit = s.substr(digits);
    int shift = 0; // towards MB
    if (!unit.empty()) {
        static constexpr std::string_view units = "bkmgt";
        const std::size_t u = units.find(to_lower(unit.front()));
        if (u == std::string_view::npos) return std::nullopt;
        shift = 10 * (static_cast<int>(u) - 2);
        unit.remove_prefix(1);
        if (!unit.empty() && (u == 0 || !iequals(unit, "b"))) return std::nullopt;
    }
    if (shift <= 0) return *n >> -shift <= max ? std::optional<std::uint64_t>{*n >> -shift} : std::nullopt;
    if (*n > (max >> shift)) return std::nullopt;
    return *n << shift;
}

/// A Req cell: requirements separated by `;`, each `[Nx](key=value,...)` with N the task
/// count (default 1) and keys `procs` (per task, default 1), `mem`, `swap`, `disk` (MB per
/// task, default 0) and `nodes` (the requirement's node count, default 0), any case, each
/// an integer from 0 to 4294967295 (N at least 1). Spaces around the pieces are allowed.
/// On an error, `error` says what is wrong and `offset` where (0-based, in `text`).
struct requirement_parse {
    std::vector<maui::requirement> reqs;
    std::string error;
    std::size_t offset = 0;
};
[[nodiscard]] inline requirement_parse parse_maui_requirements(std::string_view text) {
    requirement_parse out;
    std::size_t pos = 0;
    const auto fail = [&](std::size_t at, std::string message) {
        out.error = std::move(message);
        out.offset = at;
        out.reqs.clear();
        return out;
    };
    const auto skip = [&] {
        while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t')) ++pos;
    };
    while (true) {
        skip();
        const std::size_t begin = pos;
        maui::requirement r;
        r.nodes = 0;
        std::size_t open = text.find('(', pos);
        if (open == std::string_view::npos)
            return fail(pos, "expected a requirement [Nx](key=value,...), got " + text::quote(text.substr(pos)));
        std::string_view count = trim(text.substr(pos, open - pos));
        if (!count.empty()) {
            if (count.back() != 'x' && count.back() != 'X')
                return fail(begin, "expected a task count Nx before '(', got " + text::quote(count));
            const auto n = parse_unsigned<std::uint32_t>(count.substr(0, count.size() - 1));
            if (!n || *n == 0)
                return fail(begin, "the task count " + text::quote(count) + " is not an integer from 1 to 4294967295");
            r.tasks = *n;
        }
        const std::size_t close = text.find(')', open);
        if (close == std::string_view::npos) return fail(open, "missing ')'");
        std::size_t item = open + 1;
        while (item <= close) {
            std::size_t end = text.find(',', item);
            if (end == std::string_view::npos || end > close) end = close;
            const std::string_view piece = trim(text.substr(item, end - item));
            if (!piece.empty() || end != close || item != open + 1) {
                const std::size_t eq = piece.find('=');
                if (eq == std::string_view::npos)
                    return fail(item, "expected key=value, got " + text::quote(piece));
                const std::string_view key = trim(piece.substr(0, eq));
                const std::string_view value = trim(piece.substr(eq + 1));
                const bool amount = iequals(key, "mem") || iequals(key, "swap") || iequals(key, "disk");
                const auto n = amount ? parse_maui_mb(value, 0xffffffffu) : parse_unsigned<std::uint64_t>(value);
                if (!n || *n > 0xffffffffu)
                    return fail(item, std::string(key) + " " + text::quote(value) +
                                          (amount ? " is not an amount of MB from 0 to 4294967295 (units K, M, G, T)"
                                                  : " is not an integer from 0 to 4294967295"));
                const auto v = static_cast<std::uint32_t>(*n);
                if (iequals(key, "procs")) r.procs = v;
                else if (iequals(key, "mem")) r.mem_mb = v;
                else if (iequals(key, "swap")) r.swap_mb = v;
                else if (iequals(key, "disk")) r.disk_mb = v;
                else if (iequals(key, "nodes")) r.nodes = v;
                else return fail(item, "unknown key " + text::quote(key) + " (procs, mem, swap, disk or nodes)");
            }
            item = end + 1;
        }
        r.last = false;
        out.reqs.push_back(r);
        pos = close + 1;
        skip();
        if (pos == text.size()) break;
        if (text[pos] != ';') return fail(pos, "expected ';' between requirements, got " + text::quote(text.substr(pos, 1)));
        ++pos;
    }
    out.reqs.back().last = true;
    return out;
}

/// The totals MJobGetStartPriority's RES loop adds up over a job's requirements: procs (tasks
/// x procs), nodes, mem, swap and disk (tasks x the amount), in that order, in 64 bits (a
/// reader refuses a total past 2^32 - 1).
[[nodiscard]] inline std::array<std::uint64_t, 5> requirement_totals(std::span<const maui::requirement> reqs) noexcept {
    std::array<std::uint64_t, 5> sum{};
    for (const auto& q : reqs) {
        sum[0] += std::uint64_t{q.tasks} * q.procs;
        sum[1] += q.nodes;
        sum[2] += std::uint64_t{q.tasks} * q.mem_mb;
        sum[3] += std::uint64_t{q.tasks} * q.swap_mb;
        sum[4] += std::uint64_t{q.tasks} * q.disk_mb;
    }
    return sum;
}

/// One job of the Maui jobs table: its credential names and the job record (credential
/// indices left unset, `no_cred`, until a model resolves the names).
struct maui_job_row {
    std::array<std::string, maui::cred_kind_count> creds; ///< names by `cred_kind` (empty: none)
    maui::job job{};       ///< everything else, as read
    std::vector<maui::requirement> reqs; ///< the Req cell's requirements (empty: none)
    std::size_t line = 0;  ///< 1-based line in the file
};

/// All jobs of a Maui jobs table, in file order.
struct maui_jobs_table {
    std::string file;
    std::vector<maui_job_row> jobs;
};

namespace detail {

/// The columns of a Maui jobs table (see the file comment).
struct maui_job_columns {
    std::size_t id = 0, submit = 0;
    std::array<std::optional<std::size_t>, maui::cred_kind_count> cred;
    std::optional<std::size_t> eligible, policy, blocked, state, start, wclimit, procs, nodes, mem, swap, disk, bypass,
        spv, sprio, req;

    [[nodiscard]] static expected<maui_job_columns> of(const table& t) {
        if (auto e = missing_column(t, {"JobID", "User", "SubmitTime"}, "the jobs table")) return *e;
        maui_job_columns c;
        c.id = *t.column("JobID"), c.submit = *t.column("SubmitTime");
        c.cred = {t.column("User"), t.column("Group"), t.column("Account"), t.column("QOS"), t.column("Class")};
        c.eligible = t.column("EligibleTime"), c.policy = t.column("PolicyBlockedTime");
        c.blocked = t.column("BlockedTime"), c.state = t.column("State"), c.start = t.column("StartTime");
        c.wclimit = t.column("WCLimit"), c.procs = t.column("Procs"), c.nodes = t.column("Nodes");
        c.mem = t.column("Mem"), c.swap = t.column("Swap"), c.disk = t.column("Disk");
        c.bypass = t.column("Bypass"), c.spv = t.column("SPViolation"), c.sprio = t.column("SystemPriority");
        c.req = t.column("Req");
        return c;
    }
};

/// The job's times and state: SubmitTime, EligibleTime, PolicyBlockedTime, BlockedTime,
/// StartTime (a running job's, and only a running job's), State.
[[nodiscard]] inline std::optional<input_error> read_maui_times(const row_reader& r, const maui_job_columns& c,
                                                                maui::job& job) {
    const auto time = [&](const std::optional<std::size_t>& col, std::int64_t& out, std::string_view what) {
        return job_time_cell(r, col, out, what);
    };
    if (r.cell(c.submit).empty()) return r.fail(c.submit, "empty SubmitTime");
    if (auto e = time(c.submit, job.submit_time, "SubmitTime")) return e;
    if (auto e = time(c.eligible, job.eligible_time, "EligibleTime")) return e;
    if (auto e = time(c.policy, job.policy_blocked_time, "PolicyBlockedTime")) return e;
    if (auto e = time(c.blocked, job.blocked_time, "BlockedTime")) return e;
    if (auto e = time(c.start, job.start_time, "StartTime")) return e;
    if (!r.cell(c.state).empty()) {
        const auto st = parse_maui_job_state(r.cell(c.state));
        if (!st) return r.fail(*c.state, "unknown State " + text::quote(r.cell(c.state)));
        job.state = *st;
    }
    if (job.state == job_state::running && job.start_time == 0)
        return r.fail(c.start ? *c.start : c.id, "a RUNNING job needs a StartTime");
    if (job.state != job_state::running && job.start_time != 0)
        return r.fail(*c.start, "StartTime is set but the job is not RUNNING");
    if (job.start_time != 0 && job.start_time < job.submit_time) return r.fail(*c.start, "StartTime is before SubmitTime");
    return std::nullopt;
}

/// The job's requirements (the Req cell, `row`'s cell `col`): each size column given must be
/// their total, and a column not given takes it.
[[nodiscard]] inline std::optional<input_error> read_maui_reqs(const row_reader& r, const table& t, const table_row& row,
                                                               const maui_job_columns& c, maui_job_row& out) {
    const std::string_view v = r.cell(c.req);
    if (v.empty()) return std::nullopt;
    auto parsed = parse_maui_requirements(v);
    const std::size_t at = row.columns[*c.req] + static_cast<std::size_t>(v.data() - row.cells[*c.req].data());
    if (!parsed.error.empty())
        return make_error(t.file, row.line, at + parsed.offset, t.header[*c.req], r.who + ": Req: " + parsed.error);
    const auto sum = requirement_totals(parsed.reqs);
    maui::job& job = out.job;
    const std::array<std::optional<std::size_t>, 5> cols{c.procs, c.nodes, c.mem, c.swap, c.disk};
    const std::array<const char*, 5> names{"Procs", "Nodes", "Mem", "Swap", "Disk"};
    const std::array<std::uint32_t*, 5> fields{&job.procs, &job.nodes, &job.mem_mb, &job.swap_mb, &job.disk_mb};
    for (std::size_t k = 0; k < 5; ++k) {
        if (sum[k] > 0xffffffffu)
            return r.fail(*c.req, std::string("Req: the requirements' ") + names[k] + " add up to " + std::to_string(sum[k]) +
                                      ", more than 4294967295");
        if (!r.cell(cols[k]).empty() && *fields[k] != sum[k])
            return r.fail(*cols[k], std::string(names[k]) + " " + std::to_string(*fields[k]) + " is not the Req total " +
                                        std::to_string(sum[k]));
        *fields[k] = static_cast<std::uint32_t>(sum[k]);
    }
    out.reqs = std::move(parsed.reqs);
    return std::nullopt;
}

/// The job's sizes: WCLimit, Procs, Nodes, Mem, Swap, Disk, Bypass.
[[nodiscard]] inline std::optional<input_error> read_maui_sizes(const row_reader& r, const maui_job_columns& c,
                                                                maui::job& job) {
    if (!r.cell(c.wclimit).empty()) {
        // INFINITY (as Maui prints limits of 100 days or more) and UNLIMITED (as PBS and
        // Slurm print none) are Maui's MAX_MTIME.
        const std::string_view wc = r.cell(c.wclimit);
        const auto w = iequals(wc, "INFINITY") || iequals(wc, "UNLIMITED") ? std::optional<std::int64_t>{maui_infinity}
                                                                         : parse_maui_time(wc);
        if (!w || *w < 0 || *w > 0xffffffffLL)
            return r.fail(*c.wclimit, "WCLimit " + text::quote(wc) +
                                          " is not a Maui time [[[DD:]HH:]MM:]SS up to 4294967295 seconds, "
                                          "INFINITY or UNLIMITED");
        job.wclimit = static_cast<std::uint32_t>(*w);
    }
    if (auto e = r.count(c.procs, job.procs, "Procs")) return e;
    if (auto e = r.count(c.nodes, job.nodes, "Nodes")) return e;
    const auto megabytes = [&](const std::optional<std::size_t>& col, std::uint32_t& out,
                               const char* what) -> std::optional<input_error> {
        const std::string_view v = r.cell(col);
        if (v.empty()) return std::nullopt;
        const auto n = parse_maui_mb(v, 0xffffffffu);
        if (!n)
            return r.fail(*col, std::string(what) + " " + text::quote(v) +
                                    " is not an amount of MB from 0 to 4294967295 (units K, M, G, T)");
        out = static_cast<std::uint32_t>(*n);
        return std::nullopt;
    };
    if (auto e = megabytes(c.mem, job.mem_mb, "Mem")) return e;
    if (auto e = megabytes(c.swap, job.swap_mb, "Swap")) return e;
    if (auto e = megabytes(c.disk, job.disk_mb, "Disk")) return e;
    return r.count(c.bypass, job.bypass, "Bypass");
}

/// SPViolation and SystemPriority (N absolute, +N or -N relative).
[[nodiscard]] inline std::optional<input_error> read_maui_system_priority(const row_reader& r, const maui_job_columns& c,
                                                                          maui::job& job) {
    if (!r.cell(c.spv).empty()) {
        const auto b = maui_bool(r.cell(c.spv));
        if (!b) return r.fail(*c.spv, "SPViolation " + text::quote(r.cell(c.spv)) + " is not TRUE or FALSE");
        job.spviolation = *b;
    }
    const std::string_view v = r.cell(c.sprio);
    if (v.empty()) return std::nullopt;
    const bool relative = v.front() == '+' || v.front() == '-';
    const auto n = parse_signed<std::int64_t>(v.front() == '+' ? v.substr(1) : v);
    if (!n || (v.front() == '+' && (v.size() < 2 || v[1] == '-' || v[1] == '+')))
        return r.fail(*c.sprio, "SystemPriority " + text::quote(v) + " is not N, +N or -N");
    if (relative) {
        if (*n < -1'000'000'000 || *n > 1'000'000'000)
            return r.fail(*c.sprio, "a relative SystemPriority must be within -1000000000..+1000000000");
        job.system_priority_mode = maui::system_priority_kind::relative;
    } else {
        if (*n < 0 || *n > 1000) return r.fail(*c.sprio, "an absolute SystemPriority (setspri) must be within 0..1000");
        job.system_priority_mode = maui::system_priority_kind::absolute;
    }
    job.system_priority = static_cast<std::int32_t>(*n);
    return std::nullopt;
}

} // namespace detail

/// Builds the Maui jobs table from a parsed pipe table (see the file comment).
[[nodiscard]] inline expected<maui_jobs_table> maui_jobs_from(const table& t) {
    const auto c = detail::maui_job_columns::of(t);
    if (!c) return c.error();
    maui_jobs_table out;
    out.file = t.file;
    std::unordered_set<std::uint32_t> seen;
    for (const table_row& row : t.rows) {
        maui_job_row j;
        j.line = row.line;
        row_reader r(t, row, "job");
        const auto id = parse_unsigned<std::uint32_t>(r.cell(c->id));
        if (!id || *id == 0)
            return r.fail(c->id, "JobID " + text::quote(r.cell(c->id)) + " is not an integer from 1 to 4294967295");
        j.job.id = *id;
        r.who = "job " + std::to_string(*id);
        if (!seen.insert(*id).second) return r.fail(c->id, "JobID is listed twice");
        for (std::size_t k = 0; k < maui::cred_kind_count; ++k) j.creds[k] = std::string(r.cell(c->cred[k]));
        if (j.creds[maui::index(maui::cred_kind::user)].empty()) return r.fail(*c->cred[0], "empty User");
        if (auto e = detail::read_maui_times(r, *c, j.job)) return *e;
        if (auto e = detail::read_maui_sizes(r, *c, j.job)) return *e;
        if (auto e = detail::read_maui_reqs(r, t, row, *c, j)) return *e;
        if (auto e = detail::read_maui_system_priority(r, *c, j.job)) return *e;
        out.jobs.push_back(std::move(j));
    }
    return out;
}

/// Parses a Maui jobs table from text.
[[nodiscard]] inline expected<maui_jobs_table> parse_maui_jobs(std::string_view text,
                                                               std::string_view file_name = "<string>") {
    auto t = parse_table(text, file_name);
    if (!t) return t.error();
    return maui_jobs_from(*t);
}

/// Reads a Maui jobs table file.
[[nodiscard]] inline expected<maui_jobs_table> read_maui_jobs(const std::string& path) {
    auto t = read_table(path);
    if (!t) return t.error();
    return maui_jobs_from(*t);
}

/// The cluster's resources from a nodes table (see the file comment).
[[nodiscard]] inline expected<maui::resources> maui_nodes_from(const table& t) {
    if (!t.column("Name")) return make_error(t.file, t.header_line, 0, "Name", "the nodes table has no Name column");
    const std::size_t c_name = *t.column("Name");
    const std::array<std::optional<std::size_t>, 4> cols{t.column("Procs"), t.column("Mem"), t.column("Swap"),
                                                         t.column("Disk")};
    const std::array<const char*, 4> names{"Procs", "Mem", "Swap", "Disk"};
    std::array<double, 4> sum{};
    std::unordered_set<std::string> seen;
    for (const table_row& row : t.rows) {
        const std::string name(trim(row.cells[c_name]));
        if (name.empty())
            return make_error(t.file, row.line, row.columns[c_name], "Name", "empty node name");
        if (!seen.insert(name).second)
            return make_error(t.file, row.line, row.columns[c_name], "Name",
                              "node " + text::quote(name) + " is listed twice");
        for (std::size_t k = 0; k < cols.size(); ++k) {
            if (!cols[k]) continue;
            const std::string_view v = trim(row.cells[*cols[k]]);
            if (v.empty()) continue;
            // Mem, Swap and Disk in MB with Maui's units; a node's amount below 2^53 MB
            // (exact as the double the sum is).
            constexpr std::uint64_t max = std::uint64_t{1} << 53;
            const auto n = k == 0 ? parse_unsigned<std::uint64_t>(v) : parse_maui_mb(v, max);
            if (!n || *n > max)
                return make_error(t.file, row.line, row.columns[*cols[k]], names[k],
                                  "node " + text::quote(name) + ": " + names[k] + " " + text::quote(v) +
                                      (k == 0 ? " is not an integer from 0 to 2^53"
                                              : " is not an amount of MB from 0 to 2^53 (units K, M, G, T)"));
            sum[k] += static_cast<double>(*n);
        }
    }
    return maui::resources{.procs = sum[0], .mem = sum[1], .swap = sum[2], .disk = sum[3]};
}

/// Parses a nodes table from text.
[[nodiscard]] inline expected<maui::resources> parse_maui_nodes(std::string_view text,
                                                                std::string_view file_name = "<string>") {
    auto t = parse_table(text, file_name);
    if (!t) return t.error();
    return maui_nodes_from(*t);
}

/// The cluster's resources from slurm.conf's NodeName lines: CPUs and RealMemory.
[[nodiscard]] inline maui::resources maui_nodes_from(const slurm_conf& conf) {
    maui::resources r;
    for (const auto& n : conf.nodes) {
        r.procs += static_cast<double>(n.cpus);
        r.mem += static_cast<double>(n.real_memory);
    }
    return r;
}

} // namespace mfprio::config
