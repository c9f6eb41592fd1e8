#pragma once
/// \file
/// What scontrol prints, read as mfprio's inputs: `scontrol show config`, `show partition`
/// and `show node` (one-line `-o` or multi-line) as slurm.conf text, `show job` (both forms)
/// as a jobs table, and the records of any of them (`show assoc_mgr` too) with the line and
/// column of each pair.
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
#include <mfprio/read/common.hpp>
#include <mfprio/text/table.hpp>
#include <mfprio/read/slurm_keys.hpp>

namespace mfprio::config {

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

} // namespace mfprio::config
