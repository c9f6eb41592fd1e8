#pragma once
/// \file
/// What sprio itself printed, read back: the evidence that tells a priority an administrator
/// set from a priority mfprio fails to reproduce, and what `--verify` compares mfprio's
/// factors with, job by job and factor by factor.
///
/// Two forms are read, told apart by the header line:
/// - the listing mfprio asks sprio for (`sprio -o sprio_listing_format`): fields separated by
///   '|', each printed whole (a field of width 0 is neither padded nor cut);
/// - sprio's own spaced columns (`sprio`, `sprio -l`): fields separated by blanks, right- or
///   left-justified, a TRES text cut at its width (20 in `-l`), an empty TRES printed as blanks.
///
/// Columns are found by their header names (JOBID, PARTITION, PRIORITY, SITE, AGE, ASSOC,
/// FAIRSHARE, JOBSIZE, the second PARTITION, QOS, NICE, TRES; USER, ACCOUNT and QOSNAME are
/// passed over), so the listing of any release and of any subset of these columns reads.
///
/// Slurm marks no job as having its priority set by an administrator (`scontrol update
/// jobid=N priority=P`; slurmctld's `direct_set_prio`) in any output but sprio's rows
/// (priority_multifactor.c, `_filter_job`): a single-partition job's row carries the set
/// priority and no factor; a multi-partition job's rows carry the factors slurmctld cleared,
/// SITE and NICE both -2147483648 (0 minus NICE_OFFSET).

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <mfprio/read/common.hpp>
#include <mfprio/core/expected.hpp>
#include <mfprio/slurm/sprio_fields.hpp>

namespace mfprio::config {

/// A factor column of a sprio listing.
enum class sprio_column : std::uint8_t { priority, site, age, assoc, fairshare, job_size, partition, qos, nice, tres };
inline constexpr std::size_t sprio_column_count = 10;

/// Each column's letter (slurm::sprio_fields), in sprio_column's order: the weighted ones.
inline constexpr std::string_view sprio_column_letters = "YSABFJPQNT";
static_assert(sprio_column_letters.size() == sprio_column_count);

/// Each column's header, as sprio prints it (the factor's PARTITION, not the name's).
inline constexpr std::array<std::string_view, sprio_column_count> sprio_column_names = [] {
    std::array<std::string_view, sprio_column_count> names{};
    for (std::size_t c = 0; c < sprio_column_count; ++c) names[c] = slurm::sprio_field(sprio_column_letters[c])->header;
    return names;
}();

/// The format mfprio asks sprio for: the job, its partition entry and every weighted factor,
/// each field whole ("%i|%r|%Y|%S|...").
inline constexpr auto sprio_listing_format_text = [] {
    constant_text<64> t;
    t.add("%i|%r");
    for (const char c : sprio_column_letters) {
        t.add("|%");
        t.add(std::string_view(&c, 1));
    }
    return t;
}();
inline constexpr std::string_view sprio_listing_format = sprio_listing_format_text.view();

/// What slurmctld holds in SITE and NICE of a multi-partition job whose priority an
/// administrator set (0 - NICE_OFFSET), as sprio prints it.
inline constexpr std::string_view sprio_cleared_value = "-2147483648";

/// One row of a sprio listing: a job's partition entry and its columns as printed.
struct sprio_listing_row {
    std::uint32_t job_id = 0;
    std::string partition;
    std::array<std::optional<std::string>, sprio_column_count> cells; ///< nullopt: the listing has no such column
    std::size_t line = 0;

    [[nodiscard]] const std::optional<std::string>& operator[](sprio_column c) const noexcept {
        return cells[static_cast<std::size_t>(c)];
    }
    /// True when the row is how sprio shows a priority set by an administrator: `stored` as
    /// PRIORITY and every factor 0 (an empty TRES); with `cleared_rows` (a job in several
    /// partitions before Slurm 23.02, slurm::release_change::sprio_rows_per_partition), SITE
    /// and NICE cleared.
    [[nodiscard]] bool shows_direct(std::uint32_t stored, bool cleared_rows) const {
        const auto& site = (*this)[sprio_column::site];
        const auto& nice = (*this)[sprio_column::nice];
        // (sprio -l cuts SITE at 10 characters: "-214748364".)
        if (cleared_rows)
            return site && nice && *nice == sprio_cleared_value && site->size() >= 10 &&
                   sprio_cleared_value.starts_with(*site);
        const auto& prio = (*this)[sprio_column::priority];
        if (!prio || *prio != std::to_string(stored)) return false;
        for (std::size_t c = 1; c < sprio_column_count; ++c) {
            const auto& v = cells[c];
            if (!v) continue;
            if (c == static_cast<std::size_t>(sprio_column::tres) ? !v->empty() : *v != "0") return false;
        }
        return true;
    }
};

/// A sprio listing: its rows in the order printed, and its form.
struct sprio_listing {
    std::vector<sprio_listing_row> rows;
    bool whole_fields = true; ///< '|'-separated (each field whole); false: spaced columns (TRES may be cut)
    /// Spaced columns: each column's width where the header shows it (a right-justified
    /// column after another: from the end of the one before to the end of its name), the
    /// most sprio prints of a value there; 0 where unknown or whole.
    std::array<std::size_t, sprio_column_count> widths{};
    std::string name;         ///< the file it came from
    std::vector<std::uint32_t> by_id; ///< indices of `rows` by job id, printed order within a job

    /// Builds `by_id` (parse_sprio_listing does; call it again after changing `rows`).
    void index() {
        by_id.resize(rows.size());
        for (std::uint32_t i = 0; i < by_id.size(); ++i) by_id[i] = i;
        std::stable_sort(by_id.begin(), by_id.end(),
                         [&](std::uint32_t a, std::uint32_t b) { return rows[a].job_id < rows[b].job_id; });
    }
    /// The rows of job `id`, in the order printed.
    [[nodiscard]] std::vector<const sprio_listing_row*> rows_of(std::uint32_t id) const {
        std::vector<const sprio_listing_row*> out;
        auto it = std::lower_bound(by_id.begin(), by_id.end(), id,
                                   [&](std::uint32_t i, std::uint32_t v) { return rows[i].job_id < v; });
        for (; it != by_id.end() && rows[*it].job_id == id; ++it) out.push_back(&rows[*it]);
        return out;
    }
};

/// Reads a sprio listing (either form, see the file comment). Errors name the line and
/// column: no header, no JOBID or PRIORITY column, a row with more fields than the header,
/// a job id or a number that is not one.
[[nodiscard]] inline expected<sprio_listing> parse_sprio_listing(std::string_view text, std::string_view name) {
    sprio_listing out;
    out.name = std::string(name);
    const auto lines = split_lines(text);
    std::size_t first = 0;
    while (first < lines.size() && trim(lines[first].text).empty()) ++first;
    if (first == lines.size())
        return make_error(name, 0, 0, {}, "empty: no sprio header line (JOBID PARTITION PRIORITY ...)");
    const std::string_view header = lines[first].text;
    out.whole_fields = header.find('|') != std::string_view::npos;
    // The fields of a line with the column (1-based) each starts at.
    const auto fields = [&](std::string_view l) {
        std::vector<std::pair<std::string_view, std::size_t>> f;
        if (out.whole_fields) {
            std::size_t start = 0;
            for (const auto piece : split(l, '|')) {
                f.emplace_back(trim(piece), start + 1);
                start += piece.size() + 1;
            }
            return f;
        }
        std::size_t i = 0;
        while (i < l.size()) {
            while (i < l.size() && is_space(l[i])) ++i;
            if (i >= l.size()) break;
            const std::size_t s = i;
            while (i < l.size() && !is_space(l[i])) ++i;
            f.emplace_back(l.substr(s, i - s), s + 1);
        }
        return f;
    };
    // Header: which field is which column.
    constexpr std::size_t none = static_cast<std::size_t>(-1);
    std::size_t id_col = none, part_col = none;
    std::array<std::size_t, sprio_column_count> col;
    col.fill(none);
    const auto head = fields(header);
    for (std::size_t k = 0; k < head.size(); ++k) {
        const std::string_view h = head[k].first;
        if (h == "JOBID") id_col = k;
        else if (h == "PARTITION" && part_col == none) part_col = k;
        else
            for (std::size_t c = 0; c < sprio_column_count; ++c)
                if (h == sprio_column_names[c] && col[c] == none) col[c] = k;
    }
    if (!out.whole_fields)
        for (std::size_t c = 0; c < sprio_column_count; ++c)
            if (col[c] != none && col[c] > 0) {
                const auto end = [&](std::size_t k) { return head[k].second + head[k].first.size(); };
                out.widths[c] = end(col[c]) - end(col[c] - 1) - 1;
            }
    if (id_col == none || col[static_cast<std::size_t>(sprio_column::priority)] == none)
        return make_error(name, lines[first].number, 1, {},
                          "not a sprio header: JOBID and PRIORITY columns are required (sprio without -h)");
    const std::size_t tres_col = col[static_cast<std::size_t>(sprio_column::tres)];
    out.rows.reserve(lines.size() - first - 1);
    for (std::size_t n = first + 1; n < lines.size(); ++n) {
        const auto& l = lines[n];
        if (trim(l.text).empty()) continue;
        const auto f = fields(l.text);
        // Spaced columns: an empty TRES (the last column) is blanks, one field fewer.
        const bool tres_blank = !out.whole_fields && tres_col == head.size() - 1 && f.size() + 1 == head.size();
        if (f.size() != head.size() && !tres_blank)
            return make_error(name, l.number, f.size() > head.size() ? f[head.size()].second : l.text.size() + 1, {},
                              "a row of " + std::to_string(f.size()) + " fields under a header of " +
                                  std::to_string(head.size()));
        sprio_listing_row r;
        r.line = l.number;
        const auto id = parse_unsigned<std::uint32_t>(f[id_col].first);
        if (!id || *id == 0)
            return make_error(name, l.number, f[id_col].second, "JOBID", text::quote(f[id_col].first) + " is not a job id");
        r.job_id = *id;
        if (part_col != none && part_col < f.size()) r.partition = std::string(f[part_col].first);
        for (std::size_t c = 0; c < sprio_column_count; ++c) {
            if (col[c] == none) continue;
            if (col[c] >= f.size()) {
                r.cells[c] = std::string();
                continue;
            }
            const std::string_view v = f[col[c]].first;
            if (c != static_cast<std::size_t>(sprio_column::tres) && !parse_signed<std::int64_t>(v))
                return make_error(name, l.number, f[col[c]].second, std::string(sprio_column_names[c]),
                                  text::quote(v) + " is not an integer (sprio prints weighted factors as integers)");
            r.cells[c] = std::string(v);
        }
        out.rows.push_back(std::move(r));
    }
    out.index();
    return out;
}

} // namespace mfprio::config
