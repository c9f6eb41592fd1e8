#pragma once
/// \file
/// flux-accounting's inputs besides associations: the queue and bank priority tables, and
/// the Flux columns of a jobs table.
///
/// Queue and bank tables: pipe-separated with a header row holding `Name` and `Priority`
/// (case-insensitive, any order, other columns ignored). Names are unique (case-sensitive,
/// as flux-accounting's). A queue's priority is an integer (flux-accounting's
/// `queue_table.priority` is an int: |value| <= 2147483647); a bank's is a number
/// (`bank_table.priority` is a double, e.g. 3.5). An empty Priority cell is 0.
///
/// Flux columns of a jobs table (`flux_columns_from`), all optional:
/// | column | meaning |
/// |---|---|
/// | Urgency | 0..31 (RFC 30), default 16; 0 holds, 31 expedites |
/// | Queue | queue name; empty: none (factor 0); a name missing from the queue table is "unknown" (factor 0, as flux-accounting) |
/// | Bank | bank name; empty: the job's Account when the table has one |
/// Submission order (FCFS) is the order of (SubmitTime, JobID).

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <unordered_map>
#include <vector>

#include <mfprio/core/expected.hpp>
#include <mfprio/text/table.hpp>
#include <mfprio/read/common.hpp>

namespace mfprio::config {

/// A `Name|Priority` table (queues or banks).
struct priority_table {
    std::string file;
    std::vector<std::string> names;     ///< in file order
    std::vector<double> priorities;     ///< same order
    std::vector<std::size_t> lines;     ///< line of each entry

    /// Index of `name` (exact), or nullopt.
    [[nodiscard]] std::optional<std::size_t> find(std::string_view name) const noexcept {
        for (std::size_t i = 0; i < names.size(); ++i)
            if (names[i] == name) return i;
        return std::nullopt;
    }
};

/// Builds a queue (`integer_priority`) or bank table from a parsed pipe table.
[[nodiscard]] inline expected<priority_table> priority_table_from(const table& t, bool integer_priority) {
    for (const std::string_view required : {"Name", "Priority"})
        if (!t.column(required))
            return make_error(t.file, t.header_line, 0, required,
                              "the table has no " + std::string(required) + " column");
    const std::size_t c_name = *t.column("Name"), c_prio = *t.column("Priority");
    priority_table out;
    out.file = t.file;
    std::unordered_set<std::string> seen;
    for (const auto& row : t.rows) {
        const std::string name(trim(row.cells[c_name]));
        if (name.empty()) return make_error(t.file, row.line, row.columns[c_name], "Name", "empty name");
        if (!seen.insert(name).second)
            return make_error(t.file, row.line, row.columns[c_name], "Name",
                              text::quote(name) + " is listed twice");
        const std::string_view v = trim(row.cells[c_prio]);
        double p = 0;
        if (!v.empty()) {
            if (integer_priority) {
                const auto n = parse_signed<std::int64_t>(v);
                if (!n || *n < std::numeric_limits<std::int32_t>::min() || *n > std::numeric_limits<std::int32_t>::max())
                    return make_error(t.file, row.line, row.columns[c_prio], "Priority",
                                      text::quote(name) + ": Priority " + text::quote(v) +
                                          " is not an integer from -2147483648 to 2147483647");
                p = static_cast<double>(*n);
            } else {
                const auto d = parse_double(v);
                if (!d || !(*d == *d) || *d > 1e300 || *d < -1e300)
                    return make_error(t.file, row.line, row.columns[c_prio], "Priority",
                                      text::quote(name) + ": Priority " + text::quote(v) + " is not a number " + range_text(-1e300, 1e300));
                p = *d;
            }
        }
        out.names.push_back(name);
        out.priorities.push_back(p);
        out.lines.push_back(row.line);
    }
    return out;
}

/// Reads a queue table (integer priorities).
[[nodiscard]] inline expected<priority_table> read_queue_table(const std::string& path) {
    auto t = read_table(path);
    if (!t) return t.error();
    return priority_table_from(*t, true);
}
/// Reads a bank table (numeric priorities).
[[nodiscard]] inline expected<priority_table> read_bank_table(const std::string& path) {
    auto t = read_table(path);
    if (!t) return t.error();
    return priority_table_from(*t, false);
}
/// Parses a queue or bank table from text.
[[nodiscard]] inline expected<priority_table> parse_priority_table(std::string_view text, bool integer_priority,
                                                                   std::string_view file_name = "<string>") {
    auto t = parse_table(text, file_name);
    if (!t) return t.error();
    return priority_table_from(*t, integer_priority);
}

/// The Flux columns of one job (see the file comment).
struct flux_columns {
    std::uint8_t urgency = 16;
    std::string queue; ///< empty: none
    std::string bank;  ///< empty: none
};

/// Reads the Flux columns of every row of a jobs table (same row order as the table).
[[nodiscard]] inline expected<std::vector<flux_columns>> flux_columns_from(const table& t) {
    const auto c_urgency = t.column("Urgency"), c_queue = t.column("Queue"), c_bank = t.column("Bank"),
               c_account = t.column("Account"), c_id = t.column("JobID");
    std::vector<flux_columns> out;
    out.reserve(t.rows.size());
    for (const auto& row : t.rows) {
        flux_columns f;
        const std::string who = c_id ? "job " + std::string(trim(row.cells[*c_id])) + ": " : std::string();
        if (c_urgency) {
            const std::string_view v = trim(row.cells[*c_urgency]);
            if (!v.empty()) {
                const auto u = parse_unsigned<std::uint32_t>(v);
                if (!u || *u > 31)
                    return make_error(t.file, row.line, row.columns[*c_urgency], "Urgency",
                                      who + "Urgency " + text::quote(v) + " is not an integer from 0 to 31");
                f.urgency = static_cast<std::uint8_t>(*u);
            }
        }
        if (c_queue) f.queue = std::string(trim(row.cells[*c_queue]));
        if (c_bank) f.bank = std::string(trim(row.cells[*c_bank]));
        if (f.bank.empty() && c_account) f.bank = std::string(trim(row.cells[*c_account]));
        out.push_back(std::move(f));
    }
    return out;
}

} // namespace mfprio::config
