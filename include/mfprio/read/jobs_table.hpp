#pragma once
/// \file
/// The jobs table: one pending/running job per row, pipe-separated with a header, resolved
/// against slurm.conf (partitions), the QOS table and the association table.
///
/// Columns (case-insensitive, any order, unknown columns ignored):
/// | column | meaning |
/// |---|---|
/// | JobID (required) | job id, unique: `1234`, an array task `1234_5` or `1234_[6-9]` (the array's job id, 1234, stands for it), a het job component `1234+2` (1236: Slurm numbers components from the leader's id) |
/// | User, Account (required) | the association (account, user) |
/// | Partition (required) | comma list (multi-partition job), order kept; empty -> the default partition |
/// | QOS | comma list, order kept; empty or missing -> "normal" if the QOS table has it |
/// | SubmitTime (required) | epoch seconds or `YYYY-MM-DDTHH:MM:SS` |
/// | EligibleTime | same forms; empty or missing -> SubmitTime; `0`, `None`, `Unknown`, `N/A` -> 0 (not eligible: sprio does not list the job) |
/// | AccrueTime | when age starts (Slurm's accrue time; same forms, `Unknown` -> 0, no age); missing -> EligibleTime (SubmitTime under ACCRUE_ALWAYS) |
/// | NumNodes, NumCPUs | u32, default 1; a pending job's node count is the TRES' node= where given (what it asked for; NumNodes prints the scheduler's estimate) |
/// | TimeLimit | Slurm time string (a plain number is minutes); empty or `Partition_Limit` -> no_val32; UNLIMITED -> infinite32 |
/// | Nice, SiteFactor | signed, |value| <= 2147483645, default 0 |
/// | TRES | `cpu=4,mem=16G,node=1,gres/gpu=2`; default cpu=NumCPUs,node=NumNodes |
/// | State | PENDING, HELD, RUNNING, SUSPENDED, COMPLETING, or a finished state (COMPLETED, FAILED, CANCELLED, TIMEOUT...); any case; default pending |
/// | Priority | admin-set priority, u32; empty or 0 = not set |
/// | CurrentPriority | the priority slurmctld holds for the job (squeue's and scontrol's Priority), u32; compared by `--verify`, not used in the calculation |
/// | ArrayJobID | the job id of the array the job belongs to (scontrol's ArrayJobId), u32; empty or 0 = none; orders sprio's rows as slurmctld lists them (job_list_places) |
///
/// The headers squeue (`-o`/`-O` with `-p`... and `|` separators) and sacct (`-P`) print are
/// read too, when the table has no SubmitTime column but SUBMIT_TIME (squeue) or Submit
/// (sacct): JOBID; SUBMIT_TIME/Submit; ELIGIBLE_TIME/Eligible; ACCRUE_TIME; NODES/NNodes/
/// ReqNodes; CPUS/NCPUS/ReqCPUS/AllocCPUS; TIME_LIMIT/Timelimit; TRES_ALLOC/ReqTRES/AllocTRES;
/// ST; and in these tables PRIORITY/Priority is the job's current priority (CurrentPriority),
/// not an administrator's. sacct's job steps (`1234.batch`, `1234.0`) are skipped.
///
/// Times in `YYYY-MM-DDTHH:MM:SS` form are local time of the zone named by the TZ
/// environment variable (mktime, DST decided by the zone), and UTC when TZ is unset.
/// TRES counts: mem in MB (a plain number is MB; K/M/G/T/P are steps of 1024, so 16G is
/// 16384 MB and 512K is 0.5 MB); other TRES take K/M/G/T/P as multipliers of 1024. TRES names
/// are canonicalized like `tres_weight` names.
/// The association of a job: with a Partition column in the association table, the
/// association specific to the job's first listed partition is tried first, then the plain
/// (account, user) association.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <mfprio/core/expected.hpp>
#include <mfprio/core/job.hpp>
#include <mfprio/read/assoc_table.hpp>
#include <mfprio/read/qos_table.hpp>
#include <mfprio/read/slurm_conf.hpp>
#include <mfprio/read/common.hpp>
#include <mfprio/text/table.hpp>

namespace mfprio::config {

/// One job of the jobs table, with names resolved to indices.
struct job_row {
    std::uint32_t job_id = 0;            ///< JobID
    std::string user;                    ///< User
    std::string account;                 ///< Account
    std::vector<std::uint32_t> partitions; ///< indices into slurm_conf::partitions, table order
    std::vector<std::uint32_t> qos;      ///< indices into qos_table::qos, table order
    std::uint32_t association = 0;       ///< row index into assoc_table::rows
    std::int64_t submit_time = 0;        ///< epoch seconds
    std::int64_t eligible_time = 0;      ///< epoch seconds; 0 = not eligible
    std::optional<std::int64_t> accrue_time; ///< AccrueTime when given; 0 = not accruing
    std::uint32_t num_nodes = 1;         ///< NumNodes
    std::uint32_t num_cpus = 1;          ///< NumCPUs
    std::uint32_t time_limit = no_val32; ///< minutes; no_val32 = none, infinite32 = UNLIMITED
    std::int32_t nice = 0;               ///< Nice
    std::int32_t site_factor = 0;        ///< SiteFactor
    std::vector<std::pair<std::string, double>> tres; ///< requested TRES (mem in MB)
    job_state state = job_state::pending; ///< State
    std::uint32_t admin_priority = 0;    ///< Priority set by an administrator (0 = not set)
    std::optional<std::uint32_t> current_priority; ///< CurrentPriority: slurmctld's value
    std::uint32_t array_job_id = 0;      ///< ArrayJobID: the array's job id (0 = not in an array)
    std::string id_text;                 ///< JobID as written
    std::size_t line = 0;                ///< 1-based line in the file
};

/// All jobs, in file order.
struct jobs_table {
    std::vector<job_row> jobs; ///< the jobs, in file order
};

namespace detail {

/// Days since 1970-01-01 of a proleptic Gregorian date (the classic era/day-of-era
/// computation, valid for every year).
[[nodiscard]] constexpr std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) noexcept {
    y -= m <= 2 ? 1 : 0;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const auto yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

/// A TRES count with its unit suffix: mem in MB, other TRES as plain counts; below 2^64
/// after the unit (Slurm keeps TRES counts as 64-bit integers).
[[nodiscard]] inline std::optional<double> parse_tres_count(std::string_view name,
                                                            std::string_view value) {
    const auto number = parse_double_prefix(value);
    if (!number || number->first < 0.0) return std::nullopt;
    double v = number->first;
    const std::string_view unit = value.substr(number->second);
    if (unit.empty()) return v < two_pow_64 ? std::optional<double>{v} : std::nullopt;
    static constexpr std::string_view units = "kmgtp";
    const std::size_t u = units.find(to_lower(unit.front()));
    if (u == std::string_view::npos || !(unit.size() == 1 || iequals(unit.substr(1), "B")))
        return std::nullopt;
    const int base = (name == "mem") ? 2 : 0; // mem counts are MB
    const int steps = static_cast<int>(u) + 1 - base;
    for (int i = 0; i < steps; ++i) v *= 1024.0;
    for (int i = 0; i > steps; --i) v /= 1024.0;
    if (!(v < two_pow_64)) return std::nullopt; // Slurm's TRES counts are 64-bit
    return v;
}

/// The numeric job id of a JobID cell: `1234`; an array task `1234_5` or pending tasks
/// `1234_[6-9]` (the array's job id); a het job component `1234+2` (the leader's id plus the
/// offset, as Slurm numbers components). nullopt for anything else or 0.
[[nodiscard]] inline std::optional<std::uint32_t> parse_job_id(std::string_view s) {
    const std::size_t sep = s.find_first_of("_+");
    const auto base = parse_unsigned<std::uint32_t>(s.substr(0, sep));
    if (!base || *base == 0) return std::nullopt;
    if (sep == std::string_view::npos) return base;
    const std::string_view rest = s.substr(sep + 1);
    if (s[sep] == '+') {
        const auto offset = parse_unsigned<std::uint32_t>(rest);
        if (!offset || *offset > 0xFFFFFFFFu - *base) return std::nullopt;
        return *base + *offset;
    }
    if (parse_unsigned<std::uint32_t>(rest)) return base;
    // `[6-9]`, `[1,3,5-7]`, `[1-9%2]` (a throttle): digits and ,-% inside brackets.
    if (rest.size() < 3 || rest.front() != '[' || rest.back() != ']') return std::nullopt;
    for (const char c : rest.substr(1, rest.size() - 2))
        if (!is_digit(c) && c != ',' && c != '-' && c != '%') return std::nullopt;
    return base;
}

/// Job states accepted in the State column.
[[nodiscard]] inline std::optional<job_state> parse_job_state(std::string_view s) {
    // "CANCELLED by 1000" (sacct) -> first word.
    s = s.substr(0, std::min(s.size(), s.find(' ')));
    struct entry {
        std::string_view name;
        job_state state;
    };
    static constexpr entry states[] = {
        {"PENDING", job_state::pending},      {"PD", job_state::pending},
        {"REQUEUED", job_state::pending},     {"HELD", job_state::held},
        {"REQUEUE_HOLD", job_state::held},    {"SPECIAL_EXIT", job_state::held},
        {"RUNNING", job_state::running},      {"R", job_state::running},
        {"CONFIGURING", job_state::running},  {"RESIZING", job_state::running},
        {"SUSPENDED", job_state::suspended},  {"S", job_state::suspended},
        {"COMPLETING", job_state::completing}, {"CG", job_state::completing},
        {"COMPLETED", job_state::finished},   {"CD", job_state::finished},
        {"FAILED", job_state::finished},      {"F", job_state::finished},
        {"CANCELLED", job_state::finished},   {"CA", job_state::finished},
        {"TIMEOUT", job_state::finished},     {"TO", job_state::finished},
        {"NODE_FAIL", job_state::finished},   {"NF", job_state::finished},
        {"PREEMPTED", job_state::finished},   {"PR", job_state::finished},
        {"BOOT_FAIL", job_state::finished},   {"BF", job_state::finished},
        {"DEADLINE", job_state::finished},    {"DL", job_state::finished},
        {"OUT_OF_MEMORY", job_state::finished}, {"OOM", job_state::finished},
        {"REVOKED", job_state::finished},
    };
    for (const auto& e : states)
        if (iequals(e.name, s)) return e.state;
    return std::nullopt;
}

} // namespace detail

/// Parses a job time: epoch seconds, or `YYYY-MM-DDTHH:MM:SS` (also with a space for
/// the 'T') read as local time of the zone in the TZ environment variable (mktime, DST
/// decided by the zone) and as UTC when TZ is unset. nullopt for anything else, for dates
/// that do not exist and for times outside 1970..9999 (`max_epoch`).
[[nodiscard]] inline std::optional<std::int64_t> parse_job_time(std::string_view s) {
    if (const auto epoch = parse_unsigned<std::uint64_t>(s)) {
        if (*epoch > static_cast<std::uint64_t>(max_epoch)) return std::nullopt;
        return static_cast<std::int64_t>(*epoch);
    }
    if (s.size() != 19 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != ' ') ||
        s[13] != ':' || s[16] != ':')
        return std::nullopt;
    auto field = [&](std::size_t at, std::size_t n) { return parse_unsigned<unsigned>(s.substr(at, n)); };
    const auto year = field(0, 4), month = field(5, 2), day = field(8, 2);
    const auto hour = field(11, 2), minute = field(14, 2), second = field(17, 2);
    if (!year || !month || !day || !hour || !minute || !second) return std::nullopt;
    if (*year < 1970 || *month < 1 || *month > 12 || *day < 1 || *hour > 23 || *minute > 59 ||
        *second > 60)
        return std::nullopt;
    static constexpr unsigned month_days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const bool leap = (*year % 4 == 0 && *year % 100 != 0) || *year % 400 == 0;
    const unsigned max_day = month_days[*month - 1] + ((*month == 2 && leap) ? 1 : 0);
    if (*day > max_day) return std::nullopt;
    if (std::getenv("TZ") == nullptr) {
        return detail::days_from_civil(*year, *month, *day) * 86400 + std::int64_t{*hour} * 3600 +
               std::int64_t{*minute} * 60 + *second;
    }
    std::tm tm{};
    tm.tm_year = static_cast<int>(*year) - 1900;
    tm.tm_mon = static_cast<int>(*month) - 1;
    tm.tm_mday = static_cast<int>(*day);
    tm.tm_hour = static_cast<int>(*hour);
    tm.tm_min = static_cast<int>(*minute);
    tm.tm_sec = static_cast<int>(*second);
    tm.tm_isdst = -1;
    const std::time_t t = std::mktime(&tm);
    if (t == static_cast<std::time_t>(-1) || t < 0 || t > max_epoch) return std::nullopt;
    return static_cast<std::int64_t>(t);
}

/// What `parse_job_time` reads, as the readers' errors say it.
inline constexpr std::string_view job_time_expected = "epoch seconds or YYYY-MM-DDTHH:MM:SS from 1970 to 9999";

/// A job time (`parse_job_time`) from cell `col` of `r` into `out`, left as it is when the
/// column is missing or the cell empty; the error names the cell `what`.
[[nodiscard]] inline std::optional<input_error> job_time_cell(const row_reader& r, const std::optional<std::size_t>& col,
                                                              std::int64_t& out, std::string_view what) {
    const std::string_view v = r.cell(col);
    if (v.empty()) return std::nullopt;
    const auto t = parse_job_time(v);
    if (!t) return r.fail(*col, std::string(what) + " " + text::quote(v) + " is not " + std::string(job_time_expected));
    out = *t;
    return std::nullopt;
}

namespace detail {

/// A jobs-table column and the names squeue and sacct print for it (tried in order when the
/// column itself is absent).
struct printed_column {
    std::string_view name;
    std::string_view printed[4];
};
inline constexpr printed_column printed_job_columns[] = {
    {"JobID", {"JOBID", "JOB_ID"}},
    {"SubmitTime", {"SUBMIT_TIME", "Submit"}},
    {"EligibleTime", {"ELIGIBLE_TIME", "Eligible"}},
    {"AccrueTime", {"ACCRUE_TIME"}},
    {"NumNodes", {"NODES", "NNodes", "ReqNodes"}},
    {"NumCPUs", {"CPUS", "NCPUS", "ReqCPUS", "AllocCPUS"}},
    {"TimeLimit", {"TIME_LIMIT"}},
    {"TRES", {"TRES_ALLOC", "ReqTRES", "AllocTRES"}},
    {"State", {"ST"}},
};

} // namespace detail

namespace detail {

/// The columns of a jobs table, squeue's or sacct's own headers (`printed`) mapped to
/// mfprio's names (see the file comment).
struct job_columns {
    bool printed = false;
    std::size_t id = 0, user = 0, account = 0, part = 0, submit = 0;
    std::optional<std::size_t> qos, eligible, nodes, cpus, limit, nice, site, tres, state, prio, accrue, current, array;

    [[nodiscard]] static expected<job_columns> of(const table& t) {
        job_columns c;
        c.printed = !t.column("SubmitTime") && (t.column("SUBMIT_TIME") || t.column("Submit"));
        const auto column = [&](std::string_view name) -> std::optional<std::size_t> {
            if (auto col = t.column(name)) return col;
            if (!c.printed) return std::nullopt;
            if (name == "CurrentPriority") return t.column("Priority");
            for (const auto& p : printed_job_columns)
                if (p.name == name)
                    for (const std::string_view alt : p.printed)
                        if (!alt.empty())
                            if (auto col = t.column(alt)) return col;
            return std::nullopt;
        };
        for (const std::string_view required : {"JobID", "User", "Account", "Partition", "SubmitTime"})
            if (!column(required))
                return make_error(t.file, t.header_line, 0, required,
                                  "the jobs table has no " + std::string(required) + " column");
        c.id = *column("JobID"), c.user = *column("User"), c.account = *column("Account");
        c.part = *column("Partition"), c.submit = *column("SubmitTime");
        c.qos = column("QOS"), c.eligible = column("EligibleTime"), c.nodes = column("NumNodes");
        c.cpus = column("NumCPUs"), c.limit = column("TimeLimit"), c.nice = column("Nice");
        c.site = column("SiteFactor"), c.tres = column("TRES"), c.state = column("State");
        c.prio = c.printed ? std::nullopt : column("Priority");
        c.accrue = column("AccrueTime"), c.current = column("CurrentPriority"), c.array = column("ArrayJobID");
        return c;
    }
};

/// What a jobs table's names resolve against: slurm.conf's partitions by name (the first of
/// a name, as find_partition), the QOS by lower-case name, and a job's own lists as marks by
/// index, reset after each job.
struct job_names {
    const slurm_conf& conf;
    const qos_table& qos;
    std::unordered_map<std::string_view, std::size_t> partition_index;
    std::unordered_map<std::string, std::size_t> qos_index;
    std::vector<std::uint8_t> partition_listed, qos_listed;

    job_names(const slurm_conf& c, const qos_table& q)
        : conf(c), qos(q), partition_listed(c.partitions.size()), qos_listed(q.qos.size()) {
        for (std::size_t i = 0; i < conf.partitions.size(); ++i) partition_index.try_emplace(conf.partitions[i].name, i);
        for (std::size_t i = 0; i < qos.qos.size(); ++i) qos_index.try_emplace(to_lower(qos.qos[i].name), i);
    }

    /// The job's partitions from cell `col` (empty: slurm.conf's default partition).
    [[nodiscard]] std::optional<input_error> partitions(const row_reader& r, std::size_t col, job_row& j) {
        const std::string_view list = r.cell(col);
        if (list.empty()) {
            const auto d = conf.default_partition();
            if (!d) return r.fail(col, "no partition given and slurm.conf has no Default=YES partition");
            j.partitions.push_back(static_cast<std::uint32_t>(*d));
            return std::nullopt;
        }
        return listed(r, col, list, "partition", " (not in slurm.conf)", partition_listed, j.partitions,
                      [&](std::string_view name) {
                          const auto p = partition_index.find(name);
                          return p == partition_index.end() ? std::nullopt : std::optional<std::size_t>(p->second);
                      });
    }

    /// The job's QOS from cell `col` (none or empty: the QOS named normal).
    [[nodiscard]] std::optional<input_error> qos_list(const row_reader& r, const std::optional<std::size_t>& col,
                                                      std::size_t id_col, job_row& j) {
        const std::string_view list = r.cell(col);
        if (list.empty()) {
            const auto q = qos.find("normal");
            if (!q) return r.fail(col ? *col : id_col, "no QOS given and the QOS table has no 'normal' QOS");
            j.qos.push_back(static_cast<std::uint32_t>(*q));
            return std::nullopt;
        }
        return listed(r, *col, list, "QOS", " (not in the QOS table)", qos_listed, j.qos, [&](std::string_view name) {
            const auto q = qos_index.find(to_lower(name));
            return q == qos_index.end() ? std::nullopt : std::optional<std::size_t>(q->second);
        });
    }

private:
    /// A comma-separated list of names into `out`, each found by `find`; unknown names and
    /// names listed twice are errors ("unknown partition 'x' (not in slurm.conf)").
    template <class Find>
    [[nodiscard]] static std::optional<input_error> listed(const row_reader& r, std::size_t col, std::string_view list,
                                                           std::string_view what, std::string_view where,
                                                           std::vector<std::uint8_t>& marks,
                                                           std::vector<std::uint32_t>& out, Find find) {
        std::optional<input_error> error;
        for (const std::string_view raw : split(list, ',')) {
            const std::string_view name = trim(raw);
            const auto idx = find(name);
            if (!idx) {
                error = r.fail(col, "unknown " + std::string(what) + " " + text::quote(name) + std::string(where));
                break;
            }
            if (marks[*idx]) {
                error = r.fail(col, std::string(what) + " " + text::quote(name) + " is listed twice");
                break;
            }
            marks[*idx] = 1;
            out.push_back(static_cast<std::uint32_t>(*idx));
        }
        for (const auto k : out) marks[k] = 0;
        return error;
    }
};

/// A time cell that may say "no such time": empty gives `if_empty`; 0, None, Unknown and N/A
/// give 0.
[[nodiscard]] inline std::optional<input_error> job_time_or_unset(const row_reader& r, std::size_t col, const char* what,
                                                                  std::int64_t if_empty, std::int64_t& out) {
    const std::string_view v = r.cell(col);
    if (v.empty()) {
        out = if_empty;
    } else if (iequals(v, "None") || iequals(v, "Unknown") || iequals(v, "N/A")) {
        out = 0;
    } else {
        const auto t = parse_job_time(v);
        if (!t)
            return r.fail(col, std::string(what) + " " + text::quote(v) + " is not " + std::string(job_time_expected) +
                                   ", 0, None, Unknown or N/A");
        out = *t;
    }
    return std::nullopt;
}

/// The job's times: SubmitTime, EligibleTime (empty: the submit time), AccrueTime (empty: none).
[[nodiscard]] inline std::optional<input_error> read_job_times(const row_reader& r, const job_columns& c, job_row& j) {
    const auto submit = parse_job_time(r.cell(c.submit));
    if (!submit)
        return r.fail(c.submit, "SubmitTime " + text::quote(r.cell(c.submit)) + " is not " + std::string(job_time_expected));
    j.submit_time = *submit;
    j.eligible_time = j.submit_time;
    if (c.eligible)
        if (auto e = job_time_or_unset(r, *c.eligible, "EligibleTime", j.submit_time, j.eligible_time)) return e;
    if (c.accrue) {
        std::int64_t accrue = 0;
        if (auto e = job_time_or_unset(r, *c.accrue, "AccrueTime", 0, accrue)) return e;
        j.accrue_time = accrue;
    }
    return std::nullopt;
}

/// A signed offset (Nice, SiteFactor) from cell `col` into `out`, within Slurm's range.
[[nodiscard]] inline std::optional<input_error> job_offset(const row_reader& r, const std::optional<std::size_t>& col,
                                                           std::int32_t& out, const char* what) {
    const std::string_view v = r.cell(col);
    if (v.empty()) return std::nullopt;
    const auto n = parse_signed<std::int64_t>(v);
    if (!n || *n > 2147483645 || *n < -2147483645)
        return r.fail(*col, std::string(what) + " " + text::quote(v) + " is not an integer from -2147483645 to 2147483645");
    out = static_cast<std::int32_t>(*n);
    return std::nullopt;
}

/// The job's requested TRES from cell `col` (`name=count,...`); without it, its CPUs and nodes.
[[nodiscard]] inline std::optional<input_error> read_job_tres(const row_reader& r, const std::optional<std::size_t>& col,
                                                              job_row& j) {
    if (r.cell(col).empty()) {
        j.tres.emplace_back("cpu", static_cast<double>(j.num_cpus));
        j.tres.emplace_back("node", static_cast<double>(j.num_nodes));
        return std::nullopt;
    }
    for (const std::string_view raw : split(r.cell(col), ',')) {
        const std::string_view item = trim(raw);
        if (item.empty()) continue;
        const std::size_t eq = item.find('=');
        if (eq == std::string_view::npos) return r.fail(*col, "TRES " + text::quote(item) + " is not of the form name=count");
        auto name = canonical_tres_name(item.substr(0, eq));
        if (!name) return r.fail(*col, name.error().message);
        const auto v = parse_tres_count(*name, trim(item.substr(eq + 1)));
        if (!v)
            return r.fail(*col, "TRES " + text::quote(item) +
                                    ": count is not a number from 0 to below 2^64 (mem: MB) with an optional K, M, G, T or P");
        for (const auto& existing : j.tres)
            if (existing.first == *name) return r.fail(*col, "TRES " + text::quote(*name) + " is listed twice");
        j.tres.emplace_back(std::move(*name), *v);
    }
    return std::nullopt;
}

/// The job's sizes, limits, offsets, TRES, state and priorities.
[[nodiscard]] inline std::optional<input_error> read_job_numbers(const row_reader& r, const job_columns& c, job_row& j) {
    if (auto e = r.count(c.nodes, j.num_nodes, "NumNodes")) return e;
    if (auto e = r.count(c.cpus, j.num_cpus, "NumCPUs")) return e;
    if (c.limit) {
        const std::string_view v = r.cell(*c.limit);
        if (v.empty() || iequals(v, "Partition_Limit")) {
            j.time_limit = no_val32;
        } else {
            const auto d = parse_slurm_time(v);
            if (!d) return r.fail(*c.limit, d.error().message);
            j.time_limit = d->minutes();
        }
    }
    if (auto e = job_offset(r, c.nice, j.nice, "Nice")) return e;
    if (auto e = job_offset(r, c.site, j.site_factor, "SiteFactor")) return e;
    if (auto e = read_job_tres(r, c.tres, j)) return e;
    if (!r.cell(c.state).empty()) {
        const auto s = parse_job_state(r.cell(c.state));
        if (!s) return r.fail(*c.state, "unknown State " + text::quote(r.cell(c.state)));
        j.state = *s;
    }
    // A pending job's job-size factor reads the node count it asked for (slurmctld's
    // details->min_nodes: priority_multifactor.c's _get_priority_internal), which its
    // requested TRES carry (job_set_req_tres: node=min_nodes until the job has nodes),
    // while NumNodes (squeue, scontrol, squeue --json's node_count) prints the
    // scheduler's estimate for a pending job (job_mgr.c _pack_default_job_details: the
    // task count over the most CPUs a node has, at least min_nodes).
    if (j.state == job_state::pending || j.state == job_state::held)
        for (const auto& [name, count] : j.tres)
            if (name == "node" && count >= 1 && count <= 4294967295.0) j.num_nodes = static_cast<std::uint32_t>(count);
    if (auto e = r.count(c.prio, j.admin_priority, "Priority")) return e;
    if (!r.cell(c.current).empty()) {
        std::uint32_t current = 0;
        if (auto e = r.count(c.current, current, "CurrentPriority")) return e;
        j.current_priority = current;
    }
    return r.count(c.array, j.array_job_id, "ArrayJobID");
}

} // namespace detail

/// Builds the jobs table from an already parsed pipe table, resolving partitions, QOS and
/// associations (see the file comment).
[[nodiscard]] inline expected<jobs_table> jobs_table_from(const table& t, const slurm_conf& conf,
                                                          const qos_table& qos,
                                                          const assoc_table& assoc) {
    const auto c = detail::job_columns::of(t);
    if (!c) return c.error();
    const bool assoc_has_partition = assoc.has_column("Partition");
    detail::job_names names(conf, qos);
    jobs_table out;
    std::unordered_set<std::string> seen_ids;
    for (const table_row& row : t.rows) {
        if (c->printed && row.cells[c->id].find('.') != std::string::npos) continue; // a sacct job step
        job_row j;
        j.line = row.line;
        row_reader r(t, row, "job");
        // JobID first, so later errors can name the job.
        const auto id = detail::parse_job_id(r.cell(c->id));
        if (!id)
            return r.fail(c->id, "JobID " + text::quote(r.cell(c->id)) +
                                     " is not a job id (1 to 4294967295, 1234_5, 1234_[6-9] or 1234+0)");
        j.job_id = *id;
        j.id_text = std::string(r.cell(c->id));
        r.who = "job " + j.id_text;
        if (!seen_ids.insert(j.id_text).second) return r.fail(c->id, "JobID is listed twice");
        j.user = std::string(r.cell(c->user));
        if (j.user.empty()) return r.fail(c->user, "empty User");
        j.account = std::string(r.cell(c->account));
        if (j.account.empty()) return r.fail(c->account, "empty Account");
        if (auto e = names.partitions(r, c->part, j)) return *e;
        if (auto e = names.qos_list(r, c->qos, c->id, j)) return *e;
        std::optional<std::size_t> a;
        if (assoc_has_partition) a = assoc.find_user(j.account, j.user, conf.partitions[j.partitions.front()].name);
        if (!a) a = assoc.find_user(j.account, j.user);
        if (!a)
            return r.fail(c->account, "no association for user " + text::quote(j.user) + " in account " +
                                          text::quote(j.account) + " in the association table");
        j.association = static_cast<std::uint32_t>(*a);
        if (auto e = detail::read_job_times(r, *c, j)) return *e;
        if (auto e = detail::read_job_numbers(r, *c, j)) return *e;
        out.jobs.push_back(std::move(j));
    }
    return out;
}

/// Each job's place in slurmctld's job list, as a job id to order by: the jobs in the order
/// sprio lists them before its sort keys (it walks that list). slurmctld appends each job
/// record when it creates it (job_mgr.c _create_job_record), so the list is in job id order
/// but where an array task was split off the array's pending record (job_mgr.c
/// job_array_split): the record becomes the task, under a new job id, where it stood, and a
/// copy appended at the end carries the rest of the array under the array's id. So the
/// array's split-off tasks, in job id order, stand where the array stood before each split:
/// the first where the array was submitted, each next where the one before got its id; the
/// array's own record where the last got its id. A task split off and since purged from
/// slurmctld's memory is not in the table: the tasks after it then stand one split earlier.
[[nodiscard]] inline std::vector<std::uint32_t> job_list_places(const jobs_table& t) {
    std::vector<std::uint32_t> places(t.jobs.size());
    std::unordered_map<std::uint32_t, std::vector<std::size_t>> tasks; // an array's split tasks
    for (std::size_t k = 0; k < t.jobs.size(); ++k) {
        const job_row& j = t.jobs[k];
        places[k] = j.job_id;
        if (j.array_job_id != 0 && j.array_job_id != j.job_id) tasks[j.array_job_id].push_back(k);
    }
    if (tasks.empty()) return places;
    std::unordered_map<std::uint32_t, std::uint32_t> array_place; // array id -> its record's place
    for (auto& [array, ks] : tasks) {
        std::sort(ks.begin(), ks.end(), [&](std::size_t a, std::size_t b) { return t.jobs[a].job_id < t.jobs[b].job_id; });
        std::uint32_t before = array;
        for (const std::size_t k : ks) {
            places[k] = before;
            before = t.jobs[k].job_id;
        }
        array_place[array] = before;
    }
    for (std::size_t k = 0; k < t.jobs.size(); ++k) {
        const job_row& j = t.jobs[k];
        if (j.array_job_id == j.job_id)
            if (const auto it = array_place.find(j.job_id); it != array_place.end()) places[k] = it->second;
    }
    return places;
}

/// Parses a jobs table held in a string and resolves it against the other inputs.
[[nodiscard]] inline expected<jobs_table> parse_jobs_table(std::string_view text,
                                                           std::string_view file_name,
                                                           const slurm_conf& conf,
                                                           const qos_table& qos,
                                                           const assoc_table& assoc) {
    auto t = parse_table(text, file_name);
    if (!t) return t.error();
    return jobs_table_from(*t, conf, qos, assoc);
}

/// Reads a jobs table file and resolves it; "cannot open file" if unreadable.
[[nodiscard]] inline expected<jobs_table> read_jobs_table(const std::string& path,
                                                          const slurm_conf& conf,
                                                          const qos_table& qos,
                                                          const assoc_table& assoc) {
    auto text = read_text_file(path);
    if (!text) return text.error();
    return parse_jobs_table(*text, path, conf, qos, assoc);
}

} // namespace mfprio::config
