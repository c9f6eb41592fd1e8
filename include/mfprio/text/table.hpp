#pragma once
/// \file
/// Pipe-separated tables with a header row: the output of `sacctmgr ... -P`, `sshare -P`
/// (or `-p`, with a trailing '|'), and mfprio's own jobs table.
///
/// Rules:
/// - The first line that is neither blank nor a comment is the header. Header names are
///   trimmed and matched case-insensitively; they must be non-empty and distinct.
/// - Blank lines and lines whose first non-blank character is '#' are skipped.
/// - Trailing '|' (sshare -p): when the header line ends with '|', every row must end with
///   one too, and that last empty cell is dropped; otherwise rows are taken as they are.
/// - Every row must have exactly as many cells as the header (error with the line).
/// - Cells are kept verbatim except for a trailing CR of the line: leading spaces matter
///   (sshare indents Account by depth), so callers trim what they need.

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <mfprio/core/assert.hpp>
#include <mfprio/core/expected.hpp>
#include <mfprio/text/text.hpp>

namespace mfprio::text {

/// One data row of a `table`: its cells, where each cell starts, and its line.
struct table_row {
    std::vector<std::string> cells;   ///< cell texts, verbatim
    std::vector<std::size_t> columns; ///< 1-based character column where each cell starts
    std::size_t line = 0;             ///< 1-based line number in the file
    /// Line of each cell when they differ (a record printed over several lines, as
    /// `scontrol show job` does); empty when every cell is on `line`.
    std::vector<std::size_t> lines;

    /// The line of cell `col`.
    [[nodiscard]] std::size_t line_of(std::size_t col) const noexcept {
        return col < lines.size() ? lines[col] : line;
    }
};

/// A parsed pipe-separated table (header plus rows).
struct table {
    std::string file;                 ///< file name given to the parser
    std::vector<std::string> header;  ///< column names, trimmed, as written
    std::size_t header_line = 0;      ///< 1-based line of the header
    bool trailing_pipe = false;       ///< true for `-p` style output (every line ends in '|')
    std::vector<table_row> rows;      ///< data rows in file order

    /// Index of the column named `name` (case-insensitive), if present.
    [[nodiscard]] std::optional<std::size_t> column(std::string_view name) const noexcept {
        for (std::size_t i = 0; i < header.size(); ++i)
            if (iequals(header[i], name)) return i;
        return std::nullopt;
    }
    /// Cell of row `row` in column `col` (both must be in range).
    [[nodiscard]] const std::string& cell(std::size_t row, std::size_t col) const {
        MFPRIO_ASSERT(row < rows.size() && col < rows[row].cells.size());
        return rows[row].cells[col];
    }
    /// Cell of row `row` in the column named `name`, or nullopt if there is no such column.
    [[nodiscard]] std::optional<std::string_view> cell(std::size_t row,
                                                       std::string_view name) const {
        const auto col = column(name);
        if (!col) return std::nullopt;
        return std::string_view(cell(row, *col));
    }
};

namespace table_impl {

/// Splits one line on '|', recording the 1-based column of each cell.
inline void split_cells(std::string_view line, std::vector<std::string>& cells,
                        std::vector<std::size_t>& columns) {
    std::size_t start = 0;
    for (;;) {
        const std::size_t pos = line.find('|', start);
        const std::size_t end = (pos == std::string_view::npos) ? line.size() : pos;
        cells.emplace_back(line.substr(start, end - start));
        columns.push_back(start + 1);
        if (pos == std::string_view::npos) return;
        start = pos + 1;
    }
}

[[nodiscard]] inline bool is_skipped_line(std::string_view line) {
    const std::string_view t = trim_left(line);
    return t.empty() || t.front() == '#';
}

} // namespace table_impl

/// Parses a pipe-separated table (see the file comment). `file_name` is used in errors.
[[nodiscard]] inline expected<table> parse_table(std::string_view text,
                                                 std::string_view file_name = "<string>") {
    table t;
    t.file = std::string(file_name);
    bool have_header = false;
    const auto lines = split_lines(text);
    t.rows.reserve(lines.size());
    for (const auto& [line, number] : lines) {
        if (table_impl::is_skipped_line(line)) continue;
        if (!have_header) {
            std::vector<std::string> cells;
            std::vector<std::size_t> columns;
            table_impl::split_cells(line, cells, columns);
            if (cells.size() > 1 && trim(cells.back()).empty()) {
                t.trailing_pipe = true;
                cells.pop_back();
                columns.pop_back();
            }
            for (std::size_t i = 0; i < cells.size(); ++i) {
                const std::string name(trim(cells[i]));
                if (name.empty())
                    return make_error(file_name, number, columns[i], {},
                                      "empty column name in the header row");
                for (const auto& previous : t.header)
                    if (iequals(previous, name))
                        return make_error(file_name, number, columns[i], name,
                                          "column " + text::quote(name) +
                                              " appears twice in the header row");
                t.header.push_back(name);
            }
            t.header_line = number;
            have_header = true;
            continue;
        }
        table_row row;
        row.line = number;
        row.cells.reserve(t.header.size() + 1); // one more: a caller may add a cell (squeue's array id)
        row.columns.reserve(t.header.size() + 1);
        std::string_view content = line;
        if (t.trailing_pipe) {
            const std::string_view r = trim_right(content);
            if (r.empty() || r.back() != '|')
                return make_error(file_name, number, 0, {},
                                  "row does not end with '|' although the header does");
            content = r.substr(0, r.size() - 1);
        }
        table_impl::split_cells(content, row.cells, row.columns);
        if (row.cells.size() != t.header.size())
            return make_error(file_name, number, 0, {},
                              "row has " + std::to_string(row.cells.size()) +
                                  " cells but the header has " +
                                  std::to_string(t.header.size()) + " columns",
                              error_kind::shape);
        t.rows.push_back(std::move(row));
    }
    if (!have_header) return make_error(file_name, 0, 0, {}, "empty table: no header row");
    return t;
}

/// The error of the first of `names` that `t` has no column for ("the jobs table has no X
/// column", at the header line), or none. `what` names the table ("the jobs table").
[[nodiscard]] inline std::optional<input_error> missing_column(const table& t, std::initializer_list<std::string_view> names,
                                                               std::string_view what) {
    for (const std::string_view name : names)
        if (!t.column(name))
            return make_error(t.file, t.header_line, 0, name, std::string(what) + " has no " + std::string(name) + " column");
    return std::nullopt;
}

/// One row of a table as a reader goes through it: its cells trimmed, and errors at a cell
/// that name the file, the cell's line and column, its column's header and the row's subject
/// (`who`, "job 12": the message follows it after ": "; empty, the message alone).
class row_reader {
public:
    row_reader(const table& t, const table_row& row, std::string subject = {})
        : who(std::move(subject)), t_(&t), row_(&row) {}

    std::string who; ///< what the row is, in errors

    /// Cell `col`, trimmed.
    [[nodiscard]] std::string_view cell(std::size_t col) const { return trim(row_->cells[col]); }
    /// Cell `col`, trimmed; empty when the table has no such column.
    [[nodiscard]] std::string_view cell(const std::optional<std::size_t>& col) const {
        return col ? cell(*col) : std::string_view{};
    }
    /// The error `message` at cell `col`.
    [[nodiscard]] input_error fail(std::size_t col, const std::string& message) const {
        return make_error(t_->file, row_->line_of(col), row_->columns[col], t_->header[col],
                          who.empty() ? message : who + ": " + message);
    }
    /// An unsigned 32-bit count from cell `col` into `out` (left as it is when the column is
    /// missing or the cell empty); the error names the cell `what`.
    [[nodiscard]] std::optional<input_error> count(const std::optional<std::size_t>& col, std::uint32_t& out,
                                                   std::string_view what) const {
        const std::string_view v = cell(col);
        if (v.empty()) return std::nullopt;
        const auto n = parse_unsigned<std::uint32_t>(v);
        if (!n) return fail(*col, std::string(what) + " " + quote(v) + " is not an integer from 0 to 4294967295");
        out = *n;
        return std::nullopt;
    }

private:
    const table* t_;
    const table_row* row_;
};

/// Reads and parses a pipe-separated table file; "cannot open file" if unreadable.
[[nodiscard]] inline expected<table> read_table(const std::string& path) {
    auto text = read_text_file(path);
    if (!text) return text.error();
    return parse_table(*text, path);
}

} // namespace mfprio::text
