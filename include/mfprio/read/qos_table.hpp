#pragma once
/// \file
/// The QOS table: the output of `sacctmgr show qos format=Name,Priority,UsageFactor -P`
/// (any column order, other columns ignored).
///
/// - `Name` is required, non-empty and unique. QOS names are compared case-insensitively,
///   as Slurm does.
/// - `Priority` (QOS Priority, u32) defaults to 0 when the column or the cell is empty.
/// - `UsageFactor` (a number from 0 to `max_usage_factor`) defaults to 1.0 when the column or
///   cell is empty.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include <mfprio/core/expected.hpp>
#include <mfprio/text/table.hpp>
#include <mfprio/read/common.hpp>

namespace mfprio::config {

/// The most QOS a table may list (a job keeps 16-bit QOS indices).
inline constexpr std::size_t max_qos = 65536;

/// The largest UsageFactor read. Slurm takes any double; this bound, far above any site's
/// factor, keeps the usage a factor multiplies finite.
inline constexpr double max_usage_factor = 1e6;

/// A QOS UsageFactor as the QOS table reads it: a number from 0 to `max_usage_factor`.
[[nodiscard]] inline std::optional<double> parse_usage_factor(std::string_view text) {
    const auto v = parse_double(trim(text));
    if (!v || *v < 0.0 || *v > max_usage_factor) return std::nullopt;
    return v;
}

/// One QOS as the priority calculation needs it.
struct qos_def {
    std::string name;          ///< QOS Name
    std::uint32_t priority = 0; ///< QOS Priority (the QOS factor's numerator)
    double usage_factor = 1.0; ///< QOS UsageFactor (scales charged usage)
};

/// All QOS, in file order.
struct qos_table {
    std::vector<qos_def> qos; ///< the QOS, in file order

    /// Index of the QOS named `name` (case-insensitive), if any.
    [[nodiscard]] std::optional<std::size_t> find(std::string_view name) const noexcept {
        for (std::size_t i = 0; i < qos.size(); ++i)
            if (iequals(qos[i].name, name)) return i;
        return std::nullopt;
    }
    /// The largest QOS Priority (Slurm's g_qos_max_priority); 0 for an empty table.
    [[nodiscard]] std::uint32_t max_priority() const noexcept {
        std::uint32_t m = 0;
        for (const auto& q : qos) m = std::max(m, q.priority);
        return m;
    }
};

/// Builds a `qos_table` from an already parsed pipe table.
[[nodiscard]] inline expected<qos_table> qos_table_from(const table& t) {
    if (auto e = missing_column(t, {"Name"}, "the QOS table")) return *e;
    const std::size_t name_col = *t.column("Name");
    const auto prio_col = t.column("Priority");
    const auto uf_col = t.column("UsageFactor");
    qos_table out;
    std::unordered_set<std::string> seen; // lower-case names
    for (const auto& row : t.rows) {
        row_reader r(t, row);
        qos_def q;
        q.name = std::string(r.cell(name_col));
        if (q.name.empty()) return r.fail(name_col, "empty QOS name");
        if (out.qos.size() == max_qos)
            return r.fail(name_col, "more than " + std::to_string(max_qos) +
                                        " QOS, the most mfprio reads (jobs keep 16-bit QOS indices)");
        if (!seen.insert(to_lower(q.name)).second) // names compare without case
            return r.fail(name_col, "QOS " + text::quote(q.name) + " is listed twice");
        r.who = "QOS " + text::quote(q.name);
        if (auto e = r.count(prio_col, q.priority, "priority")) return *e;
        if (const std::string_view cell = r.cell(uf_col); !cell.empty()) {
            const auto v = parse_usage_factor(cell);
            if (!v)
                return r.fail(*uf_col, "usage factor " + text::quote(cell) + " is not a number " +
                                           range_text(0.0, max_usage_factor));
            q.usage_factor = *v;
        }
        out.qos.push_back(std::move(q));
    }
    return out;
}

/// Parses `sacctmgr show qos ... -P` output held in a string.
[[nodiscard]] inline expected<qos_table> parse_qos_table(std::string_view text,
                                                         std::string_view file_name = "<string>") {
    auto t = parse_table(text, file_name);
    if (!t) return t.error();
    return qos_table_from(*t);
}

/// Reads and parses a QOS table file; "cannot open file" if unreadable.
[[nodiscard]] inline expected<qos_table> read_qos_table(const std::string& path) {
    auto text = read_text_file(path);
    if (!text) return text.error();
    return parse_qos_table(*text, path);
}

} // namespace mfprio::config
