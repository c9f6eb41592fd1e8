#pragma once
/// \file
/// flux-accounting's inputs besides associations: the queue and bank priority tables, and
/// the Flux columns of a jobs table.
///
/// Queue and bank tables: pipe-separated with a header row holding `Name` and `Priority`
/// (case-insensitive, any order, other columns ignored). Names are unique (case-sensitive,
/// as flux-accounting's). A queue's priority is an integer (flux-accounting's
/// `queue_table.priority` is an int: -2147483648 to 2147483647); a bank's is a number
/// (`bank_table.priority` is a double, e.g. 3.5; within +-1e300). An empty Priority cell
/// is 0. Tables and flux-accounting's JSON (mfprio/inputs/flux.hpp) read into the same rows,
/// `flux_queue_row` and `flux_bank_row`, with the same ranges.
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

/// A queue of flux-accounting's queue_table, from a queue table or `flux account
/// list-queues --json`.
struct flux_queue_row {
    std::string name;
    std::int64_t priority = 0; ///< queue_table.priority, an int (see `flux_queue_priority_ok`)
    std::size_t line = 0;      ///< where it was read (0: not from a file)
};

/// A bank of flux-accounting's bank_table, from a bank table (name and priority only) or
/// `flux account list-banks --json`.
struct flux_bank_row {
    std::string name;
    std::string parent; ///< empty for the root bank
    double priority = 0; ///< bank_table.priority, a double (see `flux_bank_priority_ok`)
    std::uint32_t shares = 1;
    bool active = true;
    std::size_t line = 0; ///< where it was read (0: not from a file)
};

/// The range of a queue's priority, as every reader checks it: flux-accounting 0.60 keeps it
/// in a C int (`Queue::priority` in src/plugins/accounting.hpp; queue_table's int(11)).
inline constexpr std::int64_t flux_queue_priority_min = std::numeric_limits<std::int32_t>::min();
inline constexpr std::int64_t flux_queue_priority_max = std::numeric_limits<std::int32_t>::max();
[[nodiscard]] constexpr bool flux_queue_priority_ok(std::int64_t p) noexcept {
    return p >= flux_queue_priority_min && p <= flux_queue_priority_max;
}
/// The range of a bank's priority, as every reader checks it: flux-accounting 0.60 keeps it
/// in a double (`Bank::priority` in src/plugins/accounting.hpp; bank_table's real); mfprio
/// takes a finite number within +-1e300, so that a product with a weight stays finite.
inline constexpr double flux_bank_priority_limit = 1e300;
[[nodiscard]] constexpr bool flux_bank_priority_ok(double p) noexcept {
    return p >= -flux_bank_priority_limit && p <= flux_bank_priority_limit; // false for NaN
}
/// What the readers say a queue's or a bank's priority must be.
[[nodiscard]] inline std::string flux_queue_priority_expected() {
    return "an integer from " + std::to_string(flux_queue_priority_min) + " to " + std::to_string(flux_queue_priority_max);
}
[[nodiscard]] inline std::string flux_bank_priority_expected() {
    return "a number " + range_text(-flux_bank_priority_limit, flux_bank_priority_limit);
}

/// The index of the row named `name` (exact, as flux-accounting compares), or nullopt.
template <class Row>
[[nodiscard]] std::optional<std::size_t> find_named(const std::vector<Row>& rows, std::string_view name) noexcept {
    for (std::size_t i = 0; i < rows.size(); ++i)
        if (rows[i].name == name) return i;
    return std::nullopt;
}

namespace detail {
/// The rows of a `Name|Priority` table; `priority(row, cell)` reads a Priority cell into the
/// row and says whether it is valid.
template <class Row, class Priority>
[[nodiscard]] expected<std::vector<Row>> flux_named_rows(const table& t, std::string_view expected_priority, Priority priority) {
    if (auto e = missing_column(t, {"Name", "Priority"}, "the table")) return *e;
    const std::size_t c_name = *t.column("Name"), c_prio = *t.column("Priority");
    std::vector<Row> out;
    std::unordered_set<std::string> seen;
    for (const auto& row : t.rows) {
        row_reader in(t, row);
        Row r;
        r.name = std::string(in.cell(c_name));
        r.line = row.line;
        if (r.name.empty()) return in.fail(c_name, "empty name");
        if (!seen.insert(r.name).second) return in.fail(c_name, text::quote(r.name) + " is listed twice");
        in.who = text::quote(r.name);
        const std::string_view v = in.cell(c_prio);
        if (!v.empty() && !priority(r, v))
            return in.fail(c_prio, "Priority " + text::quote(v) + " is not " + std::string(expected_priority));
        out.push_back(std::move(r));
    }
    return out;
}
} // namespace detail

/// The queues of a queue table (see the file comment).
[[nodiscard]] inline expected<std::vector<flux_queue_row>> flux_queues_from(const table& t) {
    return detail::flux_named_rows<flux_queue_row>(t, flux_queue_priority_expected(), [](flux_queue_row& r, std::string_view v) {
        const auto n = parse_signed<std::int64_t>(v);
        if (!n || !flux_queue_priority_ok(*n)) return false;
        r.priority = *n;
        return true;
    });
}
/// The banks of a bank table (see the file comment).
[[nodiscard]] inline expected<std::vector<flux_bank_row>> flux_banks_from(const table& t) {
    return detail::flux_named_rows<flux_bank_row>(t, flux_bank_priority_expected(), [](flux_bank_row& r, std::string_view v) {
        const auto d = parse_double(v);
        if (!d || !flux_bank_priority_ok(*d)) return false;
        r.priority = *d;
        return true;
    });
}

/// Reads a queue table.
[[nodiscard]] inline expected<std::vector<flux_queue_row>> read_queue_table(const std::string& path) {
    auto t = read_table(path);
    if (!t) return t.error();
    return flux_queues_from(*t);
}
/// Reads a bank table.
[[nodiscard]] inline expected<std::vector<flux_bank_row>> read_bank_table(const std::string& path) {
    auto t = read_table(path);
    if (!t) return t.error();
    return flux_banks_from(*t);
}
/// Parses a queue table from text.
[[nodiscard]] inline expected<std::vector<flux_queue_row>> parse_queue_table(std::string_view text,
                                                                             std::string_view file_name = "<string>") {
    auto t = parse_table(text, file_name);
    if (!t) return t.error();
    return flux_queues_from(*t);
}
/// Parses a bank table from text.
[[nodiscard]] inline expected<std::vector<flux_bank_row>> parse_bank_table(std::string_view text,
                                                                           std::string_view file_name = "<string>") {
    auto t = parse_table(text, file_name);
    if (!t) return t.error();
    return flux_banks_from(*t);
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
        row_reader in(t, row);
        if (c_id) in.who = "job " + std::string(in.cell(c_id));
        flux_columns f;
        if (const std::string_view v = in.cell(c_urgency); !v.empty()) {
            const auto u = parse_unsigned<std::uint32_t>(v);
            if (!u || *u > 31) return in.fail(*c_urgency, "Urgency " + text::quote(v) + " is not an integer from 0 to 31");
            f.urgency = static_cast<std::uint8_t>(*u);
        }
        f.queue = std::string(in.cell(c_queue));
        f.bank = std::string(in.cell(c_bank));
        if (f.bank.empty()) f.bank = std::string(in.cell(c_account));
        out.push_back(std::move(f));
    }
    return out;
}

} // namespace mfprio::config
