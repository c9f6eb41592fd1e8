#pragma once
/// \file
/// What squeue prints, read as mfprio's jobs: `squeue -h -O` with `squeue_format` (or the
/// form without array tasks), one line per job record, into the jobs table scontrol's jobs
/// are read into too. (`squeue --json` needs a JSON library and is read by mfprio/inputs/.)

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
#include <mfprio/read/scontrol.hpp>

namespace mfprio::config {

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

} // namespace mfprio::config
