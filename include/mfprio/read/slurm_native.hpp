#pragma once
/// \file
/// What a Slurm cluster prints, read as mfprio's inputs: `scontrol show config`,
/// `scontrol show partition` and `scontrol show node` (one-line `-o` or multi-line), as
/// configuration; `scontrol show job` (both forms) as jobs; `scontrol show assoc_mgr` and
/// `sacctmgr show assoc -P` merged into the association table read from `sshare -a -l -P`.
/// (`squeue --json` needs a JSON library and is read by the command-line tool.)
///
/// Every reader keeps the line and column of what it reads, so errors point into the file
/// the cluster printed. The kind of a text is told from its content (`detect_kind`).
///
/// scontrol's records: a record starts with a line that is not indented (`JobId=...`,
/// `PartitionName=...`, `NodeName=...`); indented lines continue it; `-o` puts a record on
/// one line. A record is a list of `Key=Value` words; a word without '=' (a value with spaces,
/// such as a node's `OS=Linux 6.1.0 #1 SMP`) belongs to the value before it.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <mfprio/core/expected.hpp>
#include <mfprio/read/assoc_table.hpp>
#include <mfprio/read/qos_table.hpp>
#include <mfprio/read/slurm_conf.hpp>
#include <mfprio/text/table.hpp>
#include <mfprio/read/common.hpp>

namespace mfprio::config {

/// What a Slurm input text is, as `detect_kind` tells it from its first lines.
enum class input_kind {
    slurm_conf,      ///< slurm.conf syntax
    scontrol_config, ///< `scontrol show config`
    scontrol_records, ///< `scontrol show partition` / `show node` (NodeName=, PartitionName=)
    scontrol_jobs,   ///< `scontrol show job`
    json,            ///< a JSON document (`squeue --json`)
    assoc_mgr,       ///< `scontrol show assoc_mgr`
    squeue_text,     ///< `squeue -h -O` with `squeue_format` (no header)
    pipe_table,      ///< a '|' separated table with a header (sshare -P, sacctmgr -P, mfprio's tables)
};

namespace detail {

/// The text without a leading UTF-8 byte order mark.
[[nodiscard]] inline std::string_view without_bom(std::string_view text) noexcept {
    if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
    return text;
}

/// The first line of `text` that is not blank, trimmed.
[[nodiscard]] inline std::string_view first_content_line(std::string_view text) noexcept {
    std::string_view first;
    for_each_line(text, [&](const text_line& l) {
        first = trim(l.text);
        return first.empty();
    });
    return first;
}

} // namespace detail

/// The fields of `squeue -a -r -h -t all -O "<squeue_format>"`, the squeue output mfprio
/// reads as jobs: one line per job, and with `-r` one per array task, '|' after every field
/// but the last, no padding (`:0`), no header. (`squeue -o` has no letters for the eligible
/// and accrue times.) `JobID` is the job record's own id: a pending array's tasks that have
/// not been split off share their array's record (and its line in sprio), a task split off
/// (by an update, `scontrol update jobid=15_2 nice=30`) has a record and an id of its own;
/// without `-r` squeue folds both into one line (`15_[1-3]`). `JobArrayID` tells the tasks
/// apart; the lines of one record are read as one job.
inline constexpr std::string_view squeue_format =
    "JobID:0|,JobArrayID:0|,UserName:0|,Account:0|,Partition:0|,QOS:0|,SubmitTime:0|,EligibleTime:0|,"
    "AccrueTime:0|,NumNodes:0|,NumCPUs:0|,TimeLimit:0|,Nice:0|,tres-alloc:0|,State:0|,PriorityLong:0";

/// The same fields without `JobArrayID`, for squeue without `-r` (one line per job record,
/// an array's tasks folded into one line); read too.
inline constexpr std::string_view squeue_format_without_tasks =
    "JobID:0|,UserName:0|,Account:0|,Partition:0|,QOS:0|,SubmitTime:0|,EligibleTime:0|,AccrueTime:0|,"
    "NumNodes:0|,NumCPUs:0|,TimeLimit:0|,Nice:0|,tres-alloc:0|,State:0|,PriorityLong:0";

/// True for a line of `squeue_format` output (16 fields) or of the form without JobArrayID
/// (15), the first a job id.
[[nodiscard]] constexpr bool is_squeue_text_line(std::string_view line) noexcept {
    std::size_t bars = 0;
    for (const char c : line) bars += c == '|' ? 1 : 0;
    if (bars != 14 && bars != 15) return false;
    const std::string_view id = line.substr(0, line.find('|'));
    if (id.empty() || !is_digit(id.front())) return false;
    for (const char c : id)
        if (!is_digit(c) && c != '_' && c != '[' && c != ']' && c != '-' && c != ',' && c != '%' && c != '+')
            return false;
    return true;
}

/// Tells what kind of Slurm input `text` is (see `input_kind`).
[[nodiscard]] inline input_kind detect_kind(std::string_view text) noexcept {
    const std::string_view first = detail::first_content_line(text);
    if (first.starts_with("{") || first.starts_with("[")) return input_kind::json;
    if (first.starts_with("Configuration data as of")) return input_kind::scontrol_config;
    if (first.starts_with("Current Association Manager state")) return input_kind::assoc_mgr;
    if (first.starts_with("JobId=")) return input_kind::scontrol_jobs;
    // scontrol prints keys slurm.conf never holds: a node's CPUTot or State, a partition's
    // TotalCPUs.
    if (is_squeue_text_line(first)) return input_kind::squeue_text;
    if ((first.starts_with("NodeName=") || first.starts_with("PartitionName=")) &&
        (first.find(" CPUTot=") != std::string_view::npos || first.find(" TotalCPUs=") != std::string_view::npos ||
         first.find(' ') == std::string_view::npos))
        return input_kind::scontrol_records;
    if (first.find('|') != std::string_view::npos && first.find('=') == std::string_view::npos)
        return input_kind::pipe_table;
    return input_kind::slurm_conf;
}

/// One `Key=Value` word of an scontrol record and where it was.
struct scontrol_pair {
    std::string_view key;
    std::string value;
    std::size_t line = 0;         ///< 1-based line
    std::size_t key_column = 0;   ///< 1-based column of the key
    std::size_t value_column = 0; ///< 1-based column of the value
    std::size_t offset = 0;       ///< byte offset of the key in the text
};

/// One scontrol record: its pairs in printed order (those asked for, see
/// `for_each_scontrol_record`).
struct scontrol_record {
    std::vector<scontrol_pair> pairs;
    std::size_t line = 0;         ///< line of its first word
    std::size_t last_line = 0;    ///< line of its last word
    std::string_view first_key;   ///< the key of its first word (empty: the word has none)

    /// The pair named `key` (exact case, as scontrol prints it), if present.
    [[nodiscard]] const scontrol_pair* find(std::string_view key) const noexcept {
        for (const auto& p : pairs)
            if (p.key == key) return &p;
        return nullptr;
    }
};

namespace detail {

/// True when `word` starts a new pair: a key of letters, digits and `_:/()-.` then '='.
[[nodiscard]] inline std::size_t key_length(std::string_view word) noexcept {
    if (word.empty() || !((word[0] >= 'A' && word[0] <= 'Z') || (word[0] >= 'a' && word[0] <= 'z')))
        return 0;
    for (std::size_t i = 1; i < word.size(); ++i) {
        const char c = word[i];
        if (c == '=') return i;
        const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || is_digit(c) || c == '_' ||
                        c == ':' || c == '/' || c == '(' || c == ')' || c == '-' || c == '.';
        if (!ok) return 0;
    }
    return 0;
}

} // namespace detail

/// Reads scontrol output record by record (see the file comment), calling `f(record)` for
/// each, and keeps of each record only the pairs whose key `keep(key)` accepts (a word
/// without a key that opens a record has the empty key). A word without '=' continues the
/// value before it on its line (`JobName=my job`); on a later line, it continues nothing.
/// Memory: one record's kept pairs, whatever the text holds besides. `text` must outlive the
/// record's keys; `f` returns false to stop.
template <class Keep, class F>
void for_each_scontrol_record(std::string_view text, Keep&& keep, F&& f) {
    // split_lines leaves a byte order mark out of line 1; columns here count from the start
    // of the line as printed, so line 1's are offset by it.
    const std::size_t bom = text.size() - detail::without_bom(text).size();
    scontrol_record rec;
    bool open = false;
    const auto close = [&] {
        if (!open) return true;
        open = false;
        return static_cast<bool>(f(static_cast<const scontrol_record&>(rec)));
    };
    bool go = true;
    for_each_line(text, [&](const text_line& tl) {
        const std::string_view line = tl.text;
        const std::size_t offset = tl.number == 1 ? bom : 0;
        if (trim(line).empty()) {
            go = close();
            return go;
        }
        const bool indented = is_space(line.front());
        if (!indented || !open) {
            if (!close()) return go = false;
            rec.pairs.clear();
            rec.line = tl.number;
            rec.first_key = {};
            open = true;
        }
        rec.last_line = tl.number;
        bool continues = false; // the word before on this line is a kept pair's value
        bool seen_word = false;
        std::size_t i = 0;
        while (i < line.size()) {
            while (i < line.size() && is_space(line[i])) ++i;
            if (i >= line.size()) break;
            std::size_t end = i;
            while (end < line.size() && !is_space(line[end])) ++end;
            const std::string_view word = line.substr(i, end - i);
            const std::size_t k = detail::key_length(word);
            const bool first = rec.line == tl.number && !seen_word; // the record's first word
            seen_word = true;
            if (first) rec.first_key = word.substr(0, k);
            if (k != 0 || first) {
                continues = keep(word.substr(0, k));
                if (continues) {
                    scontrol_pair p;
                    p.key = word.substr(0, k);
                    p.value = std::string(word.substr(k == 0 ? 0 : k + 1));
                    p.line = tl.number;
                    p.key_column = offset + i + 1;
                    p.value_column = offset + i + (k == 0 ? 0 : k + 1) + 1;
                    p.offset = static_cast<std::size_t>(word.data() - text.data());
                    rec.pairs.push_back(std::move(p));
                }
            } else if (continues) {
                // A value with spaces: the word continues the value before it.
                scontrol_pair& p = rec.pairs.back();
                p.value += ' ';
                p.value.append(word);
            }
            i = end;
        }
        return true;
    });
    if (go) close();
}

/// Every record of scontrol output with all its pairs (see `for_each_scontrol_record`).
/// `text` must outlive the result.
[[nodiscard]] inline std::vector<scontrol_record> scontrol_records(std::string_view text) {
    std::vector<scontrol_record> out;
    for_each_scontrol_record(text, [](std::string_view) { return true; }, [&](const scontrol_record& r) {
        out.push_back(r);
        return true;
    });
    return out;
}

/// True for scontrol's words for "no value": `(null)`, `N/A`, `None`, `Unknown`, empty.
[[nodiscard]] inline bool scontrol_unset(std::string_view v) noexcept {
    v = trim(v);
    return v.empty() || v == "(null)" || iequals(v, "N/A") || iequals(v, "None") || iequals(v, "Unknown");
}

namespace detail {

/// The NodeName and PartitionName options mfprio reads (see slurm_conf.hpp).
inline constexpr std::string_view record_keys[] = {
    key_name(slurm_conf_setting::node_name), key_name(slurm_conf_setting::partition_name), "CPUTot", "Boards",
    "Sockets", "CoresPerSocket", "ThreadsPerCore", "RealMemory", "Gres", "Nodes",
    key_name(slurm_conf_setting::job_factor), key_name(slurm_conf_setting::tier), "MaxTime", "Default",
    "TRESBillingWeights"};

/// Replaces `text[from, to)` by spaces (newlines kept, so lines and columns stay).
inline void blank(std::string& text, std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to && i < text.size(); ++i)
        if (text[i] != '\n' && text[i] != '\r') text[i] = ' ';
}

/// True when `key` is one of `keys`.
[[nodiscard]] inline bool one_of(std::string_view key, std::span<const std::string_view> keys) noexcept {
    return std::find(keys.begin(), keys.end(), key) != keys.end();
}

} // namespace detail

/// `scontrol show config` as slurm.conf text: the lines of the keys mfprio uses are kept
/// where they are (slurm.conf allows blanks around '='), every other line is blanked, so
/// errors keep the printed line and column. A key printed empty or as `(null)` is left out
/// (unset: the default applies, e.g. PriorityFlags).
/// `version`, when given, receives SLURM_VERSION.
[[nodiscard]] inline std::string config_as_slurm_conf(std::string_view text, std::string* version = nullptr) {
    std::string out(text);
    for_each_line(text, [&](const text_line& l) {
        const std::string_view line = l.text;
        const auto start = static_cast<std::size_t>(line.data() - text.data());
        const std::size_t eq = line.find('=');
        const std::string_view key = eq == std::string_view::npos ? std::string_view{} : trim(line.substr(0, eq));
        const std::string_view value = eq == std::string_view::npos ? std::string_view{} : trim(line.substr(eq + 1));
        if (version != nullptr && key == "SLURM_VERSION") *version = std::string(value);
        const slurm_conf_key* k = find_slurm_conf_key(key);
        const bool used = k != nullptr && k->read && !k->record;
        if (!used || value.empty() || value == "(null)" || line.starts_with(" ") || line.starts_with("\t"))
            detail::blank(out, start, start + line.size());
        return true;
    });
    if (out.starts_with("\xEF\xBB\xBF")) detail::blank(out, 0, 3);
    return out;
}

/// `scontrol show partition -o` / `show node -o` output as slurm.conf text: each record's
/// pairs that mfprio reads stay where they are, the rest is blanked, so that errors keep the
/// printed line and column. (The multi-line form goes through `records_one_line` first.)
/// Values printed as `(null)`, `N/A` or `NONE` are left out.
[[nodiscard]] inline std::string records_as_slurm_conf(std::string_view text) {
    std::string out(text.size(), ' ');
    for (std::size_t i = 0; i < text.size(); ++i)
        if (text[i] == '\n' || text[i] == '\r') out[i] = text[i];
    const auto keep = [](std::string_view k) { return detail::one_of(k, detail::record_keys); };
    for_each_scontrol_record(text, keep, [&](const scontrol_record& rec) {
        for (const scontrol_pair& p : rec.pairs) {
            if (p.key.empty() || scontrol_unset(p.value) || iequals(p.value, "NONE")) continue;
            // A pair of a continuation line cannot stay on its own line (slurm.conf would
            // read it as a new top-level key): the multi-line form goes through
            // `records_one_line` first.
            const std::size_t len = p.key.size() + 1 + p.value.size();
            for (std::size_t k = 0; k < len && p.offset + k < text.size(); ++k) out[p.offset + k] = text[p.offset + k];
        }
        return true;
    });
    return out;
}

/// True when `text` holds scontrol records in the multi-line form (some record spans lines).
[[nodiscard]] inline bool records_multi_line(std::string_view text) {
    bool multi = false;
    for_each_scontrol_record(text, [](std::string_view) { return false; }, [&](const scontrol_record& rec) {
        multi = rec.last_line != rec.line;
        return !multi;
    });
    return multi;
}

/// Turns multi-line scontrol records into one line each (`-o` form) of the pairs mfprio
/// reads, for the slurm.conf reader. Errors then name the record's first line.
[[nodiscard]] inline std::string records_one_line(std::string_view text) {
    std::string out;
    std::size_t at_line = 1; // the line `out` is on: each record starts on its first line
    const auto keep = [](std::string_view k) { return detail::one_of(k, detail::record_keys); };
    for_each_scontrol_record(text, keep, [&](const scontrol_record& rec) {
        for (; at_line < rec.line; ++at_line) out += '\n';
        bool first = true;
        for (const scontrol_pair& p : rec.pairs) {
            if (!first) out += ' ';
            first = false;
            out.append(p.key);
            out += '=';
            out += p.value;
        }
        return true;
    });
    out += '\n';
    return out;
}

/// The columns of the jobs table (jobs_table.hpp) that the native job readers fill.
inline constexpr std::string_view native_job_columns[] = {
    "JobID", "User", "Account", "Partition", "QOS", "SubmitTime", "EligibleTime", "AccrueTime",
    "NumNodes", "NumCPUs", "TimeLimit", "Nice", "TRES", "State", "CurrentPriority", "ArrayJobID"};

/// Index of each column of `native_job_columns`.
enum native_job_column : std::size_t {
    nj_id, nj_user, nj_account, nj_partition, nj_qos, nj_submit, nj_eligible, nj_accrue, nj_nodes,
    nj_cpus, nj_time_limit, nj_nice, nj_tres, nj_state, nj_priority, nj_array, nj_count
};

/// An empty jobs table with the native columns, for `file`.
[[nodiscard]] inline table native_jobs_table(std::string_view file) {
    table t;
    t.file = std::string(file);
    for (const std::string_view c : native_job_columns) t.header.emplace_back(c);
    return t;
}

namespace detail {

/// The lower bound of scontrol's `min-max` counts (`NumNodes=4-4`, `NumCPUs=2-4`).
[[nodiscard]] inline std::string_view range_min(std::string_view v) noexcept {
    return v.substr(0, v.find('-'));
}

/// The name of `name(uid)` (scontrol's UserId).
[[nodiscard]] inline std::string_view without_id(std::string_view v) noexcept {
    return v.substr(0, v.find('('));
}

} // namespace detail

/// `scontrol show job` output (multi-line or `-o`) as a jobs table: the job id
/// (JobId: an array task or het component has its own), the user (UserId without the uid),
/// Account, Partition, QOS, SubmitTime, EligibleTime, AccrueTime (age runs from it), the
/// least NumNodes and NumCPUs, TimeLimit, Nice, the requested TRES (ReqTRES, or TRES as
/// 22.05 prints it for a pending job), JobState (a pending job with Priority 0 is held,
/// as slurmctld marks held jobs), and Priority as slurmctld's current priority. Cells keep
/// their line and column.
[[nodiscard]] inline expected<table> scontrol_jobs_table(std::string_view text, std::string_view file) {
    table t = native_jobs_table(file);
    static constexpr std::string_view job_keys[] = {
        "JobId",   "UserId",     "Account",  "Partition", "QOS",     "SubmitTime", "EligibleTime", "AccrueTime",
        "NumNodes", "NumCPUs",   "TimeLimit", "Nice",     "ReqTRES", "TRES",       "JobState",     "Priority",
        "ArrayJobId"};
    std::optional<input_error> error;
    const auto keep = [](std::string_view k) { return detail::one_of(k, job_keys); };
    for_each_scontrol_record(text, keep, [&](const scontrol_record& rec) {
        table_row row;
        row.line = rec.line;
        row.cells.assign(nj_count, std::string());
        row.columns.assign(nj_count, 1);
        row.lines.assign(nj_count, rec.line);
        const auto set = [&](std::size_t col, const scontrol_pair* p, std::string_view value) {
            row.cells[col] = std::string(value);
            if (p != nullptr) {
                row.columns[col] = p->value_column;
                row.lines[col] = p->line;
            }
        };
        const auto take = [&](std::size_t col, std::string_view key) {
            if (const scontrol_pair* p = rec.find(key)) set(col, p, p->value);
            return rec.find(key);
        };
        const scontrol_pair* id = rec.find("JobId");
        if (id == nullptr) {
            error = make_error(file, rec.line, 1, "JobId", "a record of `scontrol show job` without JobId");
            return false;
        }
        set(nj_id, id, id->value);
        if (const scontrol_pair* u = rec.find("UserId")) set(nj_user, u, detail::without_id(u->value));
        take(nj_account, "Account");
        take(nj_partition, "Partition");
        take(nj_qos, "QOS");
        take(nj_submit, "SubmitTime");
        take(nj_eligible, "EligibleTime");
        if (!take(nj_accrue, "AccrueTime")) set(nj_accrue, nullptr, row.cells[nj_eligible]);
        if (const scontrol_pair* p = rec.find("NumNodes")) set(nj_nodes, p, detail::range_min(p->value));
        if (const scontrol_pair* p = rec.find("NumCPUs")) set(nj_cpus, p, detail::range_min(p->value));
        take(nj_time_limit, "TimeLimit");
        take(nj_nice, "Nice");
        if (!take(nj_tres, "ReqTRES")) take(nj_tres, "TRES");
        const scontrol_pair* state = take(nj_state, "JobState");
        const scontrol_pair* prio = take(nj_priority, "Priority");
        take(nj_array, "ArrayJobId");
        if (state != nullptr && prio != nullptr && state->value == "PENDING" && prio->value == "0")
            set(nj_state, state, "HELD");
        // scontrol's words for "none" in the cells the jobs table reads as empty.
        for (const std::size_t col : {nj_account, nj_partition, nj_qos, nj_tres})
            if (scontrol_unset(row.cells[col])) row.cells[col].clear();
        t.rows.push_back(std::move(row));
        return true;
    });
    if (error) return *error;
    return t;
}

/// `squeue -h -O` output with `squeue_format` (or `squeue_format_without_tasks`) as a jobs
/// table: the fields are the native job columns, in order, `JobArrayID` aside; a pending job
/// with priority 0 is held. The lines of one job record (the tasks of an array that share it,
/// as `-r` prints them) must agree but for `JobArrayID` and are one job. Every line must have
/// the same number of fields as the first.
[[nodiscard]] inline expected<table> squeue_text_table(std::string_view text, std::string_view file) {
    text = detail::without_bom(text);
    const std::string_view first = detail::first_content_line(text);
    std::size_t bars = 0;
    for (const char c : first) bars += c == '|' ? 1 : 0;
    const bool tasks = bars == 15;
    std::string with_header;
    for (std::size_t i = 0; i < nj_array; ++i) { // squeue prints no ArrayJobID of its own
        if (!with_header.empty()) with_header += '|';
        with_header.append(native_job_columns[i]);
        if (i == nj_id && tasks) with_header += "|JobArrayID";
    }
    with_header += '\n';
    with_header.append(text);
    auto t = parse_table(with_header, file);
    if (!t) {
        input_error e = t.error();
        if (e.line > 0) --e.line;
        if (e.kind == error_kind::shape) {
            std::size_t cells = 1; // the fields of the line at fault
            for_each_line(text, [&](const text_line& l) {
                if (l.number == e.line) cells += static_cast<std::size_t>(std::count(l.text.begin(), l.text.end(), '|'));
                return l.number < e.line;
            });
            e.message = "row has " + std::to_string(cells) + " cells: squeue -h -O \"" +
                        std::string(tasks ? squeue_format : squeue_format_without_tasks) + "\" prints " +
                        (tasks ? "16" : "15");
        }
        return e;
    }
    t->header_line = 0;
    if (tasks) {
        // One job per record: later lines of a record already read are its other tasks.
        std::vector<table_row> rows;
        std::unordered_map<std::string, std::size_t> seen;
        rows.reserve(t->rows.size());
        for (table_row& row : t->rows) {
            // Only an array task (`15_2`) shares its record with other lines.
            const bool task = row.cells[1].find('_') != std::string::npos;
            const auto [it, fresh] = task ? seen.try_emplace(std::string(trim(row.cells[0])), rows.size())
                                          : std::pair{seen.end(), true};
            if (!fresh) {
                const table_row& kept = rows[it->second];
                for (std::size_t c = 2; c < row.cells.size(); ++c)
                    if (trim(row.cells[c]) != trim(kept.cells[c - 1])) // (the kept line has no JobArrayID)
                        return make_error(file, row.line - 1, row.columns[c], t->header[c],
                                          "job " + it->first + ": a line of the same job record as line " +
                                              std::to_string(kept.line - 1) + " with another " + t->header[c]);
                continue;
            }
            // JobArrayID (`15_2`, `15_[1-3]`) names the array's job id before its '_'.
            const std::string_view task_id = trim(row.cells[1]);
            std::string array(task ? task_id.substr(0, task_id.find('_')) : std::string_view{});
            row.cells.emplace_back(std::move(array));
            row.columns.push_back(row.columns[1]);
            if (!row.lines.empty()) row.lines.push_back(row.lines[1]);
            row.cells.erase(row.cells.begin() + 1);
            row.columns.erase(row.columns.begin() + 1);
            if (!row.lines.empty()) row.lines.erase(row.lines.begin() + 1);
            rows.push_back(std::move(row));
        }
        t->rows = std::move(rows);
        t->header.erase(t->header.begin() + 1);
    } else {
        for (table_row& row : t->rows) {
            row.cells.emplace_back();
            row.columns.push_back(1);
            if (!row.lines.empty()) row.lines.push_back(row.line);
        }
    }
    t->header.emplace_back(native_job_columns[nj_array]);
    for (table_row& row : t->rows) {
        --row.line;
        if (trim(row.cells[nj_state]) == "PENDING" && trim(row.cells[nj_priority]) == "0") row.cells[nj_state] = "HELD";
        for (const std::size_t col : {nj_account, nj_partition, nj_qos, nj_tres})
            if (scontrol_unset(row.cells[col])) row.cells[col].clear();
    }
    return t;
}

/// One configuration input: its text and name (for errors and Include paths).
struct conf_input {
    std::string text;
    std::string name;
};

namespace detail {

/// A `scontrol show config` output that lacks the priority settings it always prints
/// (PriorityType, and under priority/multifactor its PriorityWeight lines): cut short, or
/// not the whole output. An error naming it, rather than priorities computed from defaults.
[[nodiscard]] inline std::optional<input_error> incomplete_config(const conf_input& in) {
    std::optional<std::string> type;
    bool weight_seen = false;
    std::size_t last = 0;
    for_each_line(in.text, [&](const text_line& l) {
        last = l.number;
        const std::size_t eq = l.text.find('=');
        if (eq == std::string_view::npos) return true;
        const std::string_view k = trim(l.text.substr(0, eq));
        if (k == key_name(slurm_conf_setting::type)) type = std::string(trim(l.text.substr(eq + 1)));
        const slurm_conf_key* key = find_slurm_conf_key(k);
        weight_seen = weight_seen || (key != nullptr && key->printed);
        return true;
    });
    if (!type)
        return make_error(in.name, last, 1, std::string(key_name(slurm_conf_setting::type)),
                          "no PriorityType: not a whole `scontrol show config` output (cut short?)");
    if (*type == "priority/multifactor" && !weight_seen)
        return make_error(in.name, last, 1, std::string(key_name(slurm_conf_setting::weight_age)),
                          "no PriorityWeight settings: not a whole `scontrol show config` output (cut short?)");
    return std::nullopt;
}

} // namespace detail

/// Reads slurm.conf, `scontrol show config`, `scontrol show partition` and `scontrol show
/// node` texts (any mix, in order; later keys win, nodes and partitions add up) into one
/// configuration. `version` receives SLURM_VERSION when a `show config` text has it.
[[nodiscard]] inline expected<slurm_conf> read_slurm_conf_inputs(std::span<const conf_input> inputs,
                                                                 std::string* version = nullptr) {
    detail::conf_reader reader;
    // Nodes before partitions: a partition's Nodes must name nodes already read.
    std::vector<std::pair<const conf_input*, std::string>> texts;
    std::vector<std::pair<const conf_input*, std::string>> partitions;
    for (const conf_input& in : inputs) {
        // Nothing to read is no configuration: Slurm's defaults would give every job the same
        // priority without a word.
        if (detail::first_content_line(in.text).empty())
            return input_error{in.name, 0, 0, {}, "empty: no configuration in it (an empty file, or an output cut before its first line)"};
        switch (detect_kind(in.text)) {
        case input_kind::scontrol_config:
            if (auto e = detail::incomplete_config(in)) return *e;
            texts.emplace_back(&in, config_as_slurm_conf(in.text, version));
            break;
        case input_kind::scontrol_records: {
            std::string t = records_as_slurm_conf(records_multi_line(in.text) ? records_one_line(in.text) : in.text);
            if (detail::first_content_line(in.text).starts_with("PartitionName=")) {
                reader.printed_partitions(in.name);
                partitions.emplace_back(&in, std::move(t));
            }
            else
                texts.emplace_back(&in, std::move(t));
            break;
        }
        case input_kind::slurm_conf:
            texts.emplace_back(&in, in.text);
            break;
        default:
            return input_error{in.name, 0, 0, {},
                               "not a slurm.conf, `scontrol show config`, `scontrol show partition` or "
                               "`scontrol show node` output"};
        }
    }
    texts.insert(texts.end(), std::make_move_iterator(partitions.begin()), std::make_move_iterator(partitions.end()));
    for (const auto& [in, text] : texts) {
        const auto dir = std::filesystem::path(in->name).parent_path();
        if (auto r = reader.add(detail::without_bom(text), in->name, dir); !r) return r.error();
    }
    return reader.done();
}

/// True for the header of `sacctmgr show assoc -P` (Cluster, Account, User and Share or
/// Priority, no RawShares), as opposed to sshare's.
[[nodiscard]] inline bool is_sacctmgr_assoc(const table& t) noexcept {
    return t.column("Account") && t.column("User") && !t.column("RawShares") &&
           (t.column("Share") || t.column("Priority") || t.column("Cluster"));
}

namespace detail {

/// The GPU usage in `scontrol show assoc_mgr`'s GrpTRESMins (`cpu=N(12),...,gres/gpu=N(34)`:
/// each TRES's limit and, in parentheses, its usage in whole minutes); none when it has no
/// gres/gpu item (the last one counts).
[[nodiscard]] inline expected<std::optional<std::uint64_t>> gpu_minutes_used(const scontrol_pair& mins,
                                                                             const std::string& file) {
    std::optional<std::uint64_t> out;
    std::size_t at = 0;
    for (const std::string_view item : split(mins.value, ',')) {
        const std::size_t item_at = at;
        at += item.size() + 1;
        if (!item.starts_with("gres/gpu=")) continue;
        const std::size_t open = item.find('(');
        const auto used = open != std::string_view::npos && item.ends_with(')')
                              ? parse_unsigned<std::uint64_t>(item.substr(open + 1, item.size() - open - 2))
                              : std::nullopt;
        if (!used)
            return make_error(file, mins.line, mins.value_column + item_at, "GrpTRESMins",
                              "expected gres/gpu=LIMIT(MINUTES), got " + text::quote(item));
        out = *used;
    }
    return out;
}

} // namespace detail

/// The association table from several texts, merged by (account, user, partition):
/// - one `sshare -a -l -P` / `-p` output (or any association table, see assoc_table.hpp):
///   the tree, shares and sshare's columns;
/// - `scontrol show assoc_mgr` (`flags=assoc`): RawUsage with its two decimals instead of
///   sshare's integer (`UsageRaw/Norm/Efctv=`), and the GPU usage in minutes (GrpTRESMins'
///   `gres/gpu=LIMIT(USED)`);
/// - `sacctmgr show assoc -P`: the association priority (`Priority`, which sacctmgr prints
///   with what the account gave its users).
/// An association in assoc_mgr or sacctmgr that the sshare output does not have is an error
/// naming it: the texts come from different clusters or different times.
[[nodiscard]] inline expected<assoc_table> read_assoc_inputs(std::span<const conf_input> inputs) {
    const conf_input* tree = nullptr;
    std::vector<std::pair<const conf_input*, table>> sacctmgr;
    std::vector<const conf_input*> assoc_mgr;
    for (const conf_input& in : inputs) {
        const input_kind k = detect_kind(in.text);
        if (k == input_kind::assoc_mgr) {
            assoc_mgr.push_back(&in);
            continue;
        }
        if (k != input_kind::pipe_table)
            return input_error{in.name, 0, 0, {},
                               "not an `sshare -a -l -P`, `scontrol show assoc_mgr` or `sacctmgr show assoc -P` output"};
        auto t = parse_table(detail::without_bom(in.text), in.name);
        if (!t) return t.error();
        if (is_sacctmgr_assoc(*t)) {
            sacctmgr.emplace_back(&in, std::move(*t));
        } else {
            if (tree != nullptr)
                return input_error{in.name, t->header_line, 1, {},
                                   "a second association tree (the first is " + tree->name +
                                       "): give one sshare output, with assoc_mgr and sacctmgr outputs beside it"};
            tree = &in;
        }
    }
    if (tree == nullptr)
        return input_error{inputs.empty() ? std::string() : inputs.front().name, 0, 0, {},
                           "no association tree: give `sshare -a -l -P` output (assoc_mgr and sacctmgr "
                           "outputs only add to it)"};
    auto out = parse_assoc_table(detail::without_bom(tree->text), tree->name);
    if (!out) return out.error();
    const auto find = [&](std::string_view account, std::string_view user, std::string_view partition) {
        return user.empty() ? out->find_account(account) : out->find_user(account, user, partition);
    };
    for (const auto& [in, t] : sacctmgr) {
        const auto c_account = *t.column("Account"), c_user = *t.column("User");
        const auto c_part = t.column("Partition"), c_prio = t.column("Priority");
        if (!c_prio) continue;
        for (const table_row& row : t.rows) {
            const std::string_view account = trim(row.cells[c_account]), user = trim(row.cells[c_user]);
            const std::string_view part = c_part ? trim(row.cells[*c_part]) : std::string_view{};
            const auto r = find(account, user, part);
            if (!r)
                return make_error(in->name, row.line, row.columns[c_account], "Account",
                                  "association (" + std::string(account) + ", " + std::string(user) +
                                      ") is not in " + tree->name);
            const std::string_view cell = trim(row.cells[*c_prio]);
            if (cell.empty()) continue;
            const auto v = parse_unsigned<std::uint32_t>(cell);
            if (!v)
                return make_error(in->name, row.line, row.columns[*c_prio], "Priority",
                                  "priority " + text::quote(cell) + " is not an integer from 0 to 4294967295");
            out->rows[*r].priority = *v;
        }
        if (!out->has_column("Priority")) out->columns.emplace_back("Priority");
    }
    static constexpr std::string_view assoc_keys[] = {"ClusterName", "Account", "UserName", "Partition", "Priority",
                                                      "UsageRaw/Norm/Efctv", "GrpTRESMins"};
    const auto keep = [](std::string_view k) { return detail::one_of(k, assoc_keys); };
    std::optional<input_error> error;
    const auto fail = [&](input_error e) {
        error = std::move(e);
        return false;
    };
    for (const conf_input* in : assoc_mgr) {
        for_each_scontrol_record(in->text, keep, [&](const scontrol_record& rec) {
            const scontrol_pair* account = rec.find("Account");
            if (account == nullptr || rec.find("ClusterName") == nullptr) return true; // headings, QOS records
            const scontrol_pair* user = rec.find("UserName");
            const scontrol_pair* part = rec.find("Partition");
            const std::string_view uname = user ? detail::without_id(user->value) : std::string_view{};
            const auto r = find(account->value, uname, part ? std::string_view(part->value) : std::string_view{});
            if (!r)
                return fail(make_error(in->name, rec.line, account->key_column, "Account",
                                       "association (" + account->value + ", " + std::string(uname) + ") is not in " +
                                           tree->name));
            // The association's priority as slurmctld uses it (inherited from the account
            // where the association has none), the value sacctmgr prints too.
            if (const scontrol_pair* prio = rec.find("Priority")) {
                const auto v = parse_unsigned<std::uint32_t>(prio->value);
                if (!v)
                    return fail(make_error(in->name, prio->line, prio->value_column, "Priority",
                                           "priority " + text::quote(prio->value) + " is not an integer from 0 to 4294967295"));
                if (!out->rows[*r].priority) out->rows[*r].priority = *v; // sacctmgr's, where given, first
                if (!out->has_column("Priority")) out->columns.emplace_back("Priority");
            }
            if (const scontrol_pair* mins = rec.find("GrpTRESMins")) {
                auto used = detail::gpu_minutes_used(*mins, in->name);
                if (!used) return fail(used.error());
                if (*used) out->rows[*r].gpu_minutes = **used;
            }
            const scontrol_pair* usage = rec.find("UsageRaw/Norm/Efctv");
            if (usage == nullptr) return true;
            const std::string_view raw = std::string_view(usage->value).substr(0, usage->value.find('/'));
            const auto v = parse_double(raw);
            if (!v || *v < 0 || *v >= two_pow_64) // held as sshare's RawUsage is printed
                return fail(make_error(in->name, usage->line, usage->value_column, "UsageRaw",
                                       "raw usage " + text::quote(raw) + " is not a number " +
                                           range_text(0.0, two_pow_64)));
            if (!out->rows[*r].printed_raw_usage) out->rows[*r].printed_raw_usage = out->rows[*r].raw_usage;
            out->rows[*r].raw_usage = *v;
            return true;
        });
        if (error) return *error;
        if (!out->has_column("RawUsage")) out->columns.emplace_back("RawUsage");
    }
    return out;
}

/// True when some association has running jobs' TRES minutes in its TRESRunMins column (a
/// count other than 0): its usage grows between two of slurmctld's recalculations.
[[nodiscard]] inline bool usage_accruing(const assoc_table& a) {
    for (const auto& r : a.rows) {
        if (!r.tres_run_mins) continue;
        for (const std::string_view item : split(*r.tres_run_mins, ',')) {
            const std::size_t eq = item.find('=');
            if (eq != std::string_view::npos && trim(item.substr(eq + 1)) != "0") return true;
        }
    }
    return false;
}

/// The QOS of `scontrol show assoc_mgr` output (`flags=qos`): each `QOS=name(id)` record's
/// name and `Priority`, as slurmctld holds them (sacctmgr asks slurmdbd for the same). The
/// UsageFactor is not printed there: 1 for each, `usage_factors` false. No QOS record is an
/// error naming the input.
[[nodiscard]] inline expected<qos_table> read_assoc_mgr_qos(const conf_input& in) {
    qos_table out;
    std::unordered_map<std::string, std::size_t> seen;
    std::optional<input_error> error;
    const auto fail = [&](const scontrol_pair& at, std::string key, std::string message) {
        error = make_error(in.name, at.line, at.value_column, std::move(key), std::move(message));
        return false;
    };
    const auto keep = [](std::string_view k) { return k == "QOS" || k == "Priority"; };
    for_each_scontrol_record(in.text, keep, [&](const scontrol_record& rec) {
        if (rec.first_key != "QOS" || rec.pairs.empty()) return true;
        const scontrol_pair& name = rec.pairs.front();
        qos_def q;
        q.name = std::string(detail::without_id(name.value));
        if (q.name.empty()) return fail(name, "QOS", "a QOS record without a name");
        if (const scontrol_pair* prio = rec.find("Priority")) {
            const std::string_view value = trim(prio->value);
            const auto v = parse_unsigned<std::uint32_t>(value);
            if (!v) return fail(*prio, "Priority", "QOS priority " + text::quote(value) + " is not an integer from 0 to 4294967295");
            q.priority = *v;
        }
        std::string key = q.name;
        for (char& c : key) c = to_lower(c);
        if (!seen.try_emplace(key, out.qos.size()).second)
            return fail(name, "QOS", "QOS " + text::quote(q.name) + " is listed twice");
        if (out.qos.size() >= max_qos) return fail(name, "QOS", "more than " + std::to_string(max_qos) + " QOS");
        out.qos.push_back(std::move(q));
        return true;
    });
    if (error) return *error;
    if (out.qos.empty())
        return input_error{in.name, 0, 0, "QOS", "no QOS record (`scontrol show assoc_mgr flags=qos` prints them)"};
    return out;
}

} // namespace mfprio::config
