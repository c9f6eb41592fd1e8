#pragma once
// `squeue --json` as a jobs table (read/scontrol.hpp's columns), read with simdjson.
// An opt-in header: it needs simdjson (Debian: libsimdjson-dev; pkg-config simdjson), which
// the rest of the library does not use.

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <iterator>
#include <string>
#include <string_view>

#include <simdjson.h>

#include <mfprio/read/jobs_table.hpp>
#include <mfprio/read/slurm_native.hpp>
#include <mfprio/core/expected.hpp>
#include <mfprio/text/text.hpp>

namespace mfprio::inputs {

namespace detail {

/// What a field of a job must hold: a string (null for none: 22.05 prints null for an unset
/// account, QOS or TRES string), the job's state (a string, or in 23.11 and later a list of
/// strings), or a number (a JSON number, squeue's number object, or null: 22.05's nice).
enum class json_expect { text, state, number };

/// The text of a JSON value as the jobs table wants it, checked against what its field must
/// hold: a string as is; a number as its token (the jobs table checks its range); squeue's
/// number object ({"set", "infinite", "number"}, 23.11 and later) as its number, "UNLIMITED"
/// when infinite, empty when not set; the first string of a state list; empty for null.
/// Returns why the value is refused, or an empty string. Every token read is checked in full
/// (`1_0`, `nul` are not JSON).
[[nodiscard]] inline std::string json_cell(simdjson::ondemand::value v, json_expect expect, std::string& out) {
    using simdjson::ondemand::json_type;
    const auto invalid = [](simdjson::error_code e) { return std::string("not valid JSON: ") + simdjson::error_message(e); };
    const auto wrong = [expect] {
        return std::string(expect == json_expect::number ? "expected a number, a number object or null"
                           : expect == json_expect::state ? "expected a string or a list of strings"
                                                          : "expected a string or null");
    };
    out.clear();
    json_type type;
    if (auto e = v.type().get(type)) return invalid(e);
    switch (type) {
    case json_type::null: {
        bool null = false;
        if (v.is_null().get(null) != simdjson::SUCCESS) null = false;
        if (!null) return "not valid JSON: a token that is not null, true, false, a number or a string";
        return {};
    }
    case json_type::string: {
        if (expect == json_expect::number) return wrong();
        std::string_view sv;
        if (auto e = v.get_string().get(sv)) return invalid(e);
        out.assign(sv);
        return {};
    }
    case json_type::number: {
        if (expect != json_expect::number) return wrong();
        std::string_view raw = v.raw_json_token();
        simdjson::ondemand::number n;
        if (auto e = v.get_number().get(n)) return invalid(e);
        while (!raw.empty() && config::is_space(raw.back())) raw.remove_suffix(1);
        out.assign(raw); // the jobs table checks the number's range
        return {};
    }
    case json_type::object: {
        if (expect != json_expect::number) return wrong();
        simdjson::ondemand::object o;
        if (auto e = v.get_object().get(o)) return invalid(e);
        bool set = true, infinite = false, have_number = false;
        std::string number;
        for (auto field : o) {
            std::string_view key;
            if (auto e = field.unescaped_key().get(key)) return invalid(e);
            simdjson::ondemand::value fv;
            if (auto e = field.value().get(fv)) return invalid(e);
            if (key == "set" || key == "infinite") {
                if (fv.get_bool().get(key == "set" ? set : infinite) != simdjson::SUCCESS)
                    return "\"" + std::string(key) + "\" of a number object: expected true or false";
            } else if (key == "number") {
                json_type nt;
                if (auto e = fv.type().get(nt)) return invalid(e);
                if (nt != json_type::number) return "\"number\" of a number object: expected a number";
                if (auto why = json_cell(fv, json_expect::number, number); !why.empty()) return why;
                have_number = true;
            }
        }
        if (infinite) out = "UNLIMITED";
        else if (!set) out.clear();
        else if (!have_number) return "a number object without \"number\"";
        else out = std::move(number);
        return {};
    }
    case json_type::array: {
        if (expect != json_expect::state) return wrong();
        simdjson::ondemand::array a;
        if (auto e = v.get_array().get(a)) return invalid(e);
        for (auto item : a) {
            simdjson::ondemand::value iv;
            if (auto e = item.get(iv)) return invalid(e);
            std::string_view sv;
            if (iv.get_string().get(sv) != simdjson::SUCCESS) return wrong();
            if (out.empty()) out.assign(sv);
        }
        return {};
    }
    case json_type::boolean:
        return wrong();
    }
    return wrong();
}

/// The JSON key of each jobs table column (read/scontrol.hpp's order).
inline constexpr std::string_view json_job_keys[] = {
    "job_id", "user_name", "account", "partition", "qos", "submit_time", "eligible_time", "accrue_time",
    "node_count", "cpus", "time_limit", "nice", "tres_req_str", "job_state", "priority", "array_job_id"};
static_assert(std::size(json_job_keys) == config::nj_count);

/// The jobs table column of a job's JSON key, or nj_count for the keys not read (about 95
/// of squeue's 110). By length first: this runs for every key of every job.
[[nodiscard]] constexpr std::size_t json_job_column(std::string_view k) noexcept {
    using namespace config;
    const auto is = [k](std::size_t c) { return k == json_job_keys[c]; };
    switch (k.size()) {
    case 3: return is(nj_qos) ? nj_qos : nj_count;
    case 4: return is(nj_cpus) ? nj_cpus : is(nj_nice) ? nj_nice : nj_count;
    case 6: return is(nj_id) ? nj_id : nj_count;
    case 7: return is(nj_account) ? nj_account : nj_count;
    case 8: return is(nj_priority) ? nj_priority : nj_count;
    case 9: return is(nj_user) ? nj_user : is(nj_partition) ? nj_partition : is(nj_state) ? nj_state : nj_count;
    case 10: return is(nj_nodes) ? nj_nodes : is(nj_time_limit) ? nj_time_limit : nj_count;
    case 11: return is(nj_submit) ? nj_submit : is(nj_accrue) ? nj_accrue : nj_count;
    case 12: return is(nj_tres) ? nj_tres : is(nj_array) ? nj_array : nj_count;
    case 13: return is(nj_eligible) ? nj_eligible : nj_count;
    default: return nj_count;
    }
}
static_assert([] {
    for (std::size_t c = 0; c < config::nj_count; ++c)
        if (json_job_column(json_job_keys[c]) != c) return false;
    return true;
}(), "json_job_column finds every key of json_job_keys");

/// Line and column of byte `offset` of `text`, counting from the previous call's position
/// (lines end as config::line_end_at says).
struct line_counter {
    std::string_view text;
    std::size_t at = 0, line = 1, line_start = 0;
    void advance(std::size_t offset) {
        offset = std::min(offset, text.size());
        if (offset <= at) return;
        const std::string_view span = text.substr(at, offset - at);
        if (span.find('\r') == std::string_view::npos && (at == 0 || text[at - 1] != '\r')) {
            // No CR: each '\n' ends a line (counted at memchr's speed, for 300 MB inputs).
            const auto newlines = static_cast<std::size_t>(std::count(span.begin(), span.end(), '\n'));
            if (newlines != 0) {
                line += newlines;
                line_start = at + span.rfind('\n') + 1;
            }
        } else {
            for (std::size_t i = at; i < offset; ++i)
                if (const std::size_t end = config::line_end_at(text, i); end != 0) {
                    ++line;
                    line_start = i + end;
                }
        }
        at = offset;
    }
    [[nodiscard]] std::size_t column() const noexcept { return at >= line_start ? at - line_start + 1 : 1; }
};

/// Where in `body` a JSON document fails when simdjson says `e` without a position (its
/// first stage checks the whole text before anything is read): the first byte of an invalid
/// UTF-8 sequence, the first control character left unescaped in a string, the opening quote
/// of a string that never closes, the end of a document cut short. nullopt for other errors.
[[nodiscard]] inline std::optional<std::size_t> json_failure_offset(std::string_view body, simdjson::error_code e) {
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(body[i]); };
    switch (e) {
    case simdjson::UTF8_ERROR:
        for (std::size_t i = 0; i < body.size();) {
            const unsigned char c = byte(i);
            std::size_t more = 0;
            unsigned char lo = 0x80, hi = 0xBF; // the range of the byte after the first
            if (c < 0x80) more = 0;
            else if (c >= 0xC2 && c <= 0xDF) more = 1;
            else if (c == 0xE0) more = 2, lo = 0xA0;
            else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) more = 2;
            else if (c == 0xED) more = 2, hi = 0x9F;
            else if (c == 0xF0) more = 3, lo = 0x90;
            else if (c >= 0xF1 && c <= 0xF3) more = 3;
            else if (c == 0xF4) more = 3, hi = 0x8F;
            else return i;
            for (std::size_t k = 1; k <= more; ++k) {
                if (i + k >= body.size()) return i;
                const unsigned char n = byte(i + k);
                if (k == 1 ? (n < lo || n > hi) : (n < 0x80 || n > 0xBF)) return i;
            }
            i += more + 1;
        }
        return std::nullopt;
    case simdjson::UNESCAPED_CHARS:
    case simdjson::UNCLOSED_STRING: {
        std::optional<std::size_t> open;
        for (std::size_t i = 0; i < body.size(); ++i) {
            const char c = body[i];
            if (!open) {
                if (c == '"') open = i;
            } else if (c == '\\') {
                ++i;
            } else if (c == '"') {
                open.reset();
            } else if (byte(i) < 0x20 && e == simdjson::UNESCAPED_CHARS) {
                return i;
            }
        }
        return open;
    }
    case simdjson::INCOMPLETE_ARRAY_OR_OBJECT:
    case simdjson::EMPTY: {
        std::size_t end = body.size();
        while (end > 0 && text::is_space(body[end - 1])) --end;
        return end;
    }
    default: return std::nullopt;
    }
}

} // namespace detail

/// `squeue --json` as a jobs table (read/scontrol.hpp's columns). The layouts of
/// Slurm 22.05 (openapi v0.0.38) through 26.05 (data_parser v0.0.45): plain numbers or number objects, job_state a
/// string or a list, the nice value null for 0 and an unsigned wrap for negatives (22.05).
/// A pending job with priority 0 is held. Times are epoch seconds; 0 means unset. `version`
/// receives meta.Slurm.release (meta.slurm.release in later layouts) when present. The
/// text is parsed in place when `readable_after` bytes after it may be read (simdjson's
/// padding), copied otherwise.
[[nodiscard]] inline expected<config::table> squeue_json_table(std::string_view text, std::size_t readable_after,
                                                               std::string_view file, std::string* version = nullptr) {
    using namespace config;
    const std::string_view body = config::detail::without_bom(text);
    const std::size_t bom = text.size() - body.size();
    simdjson::padded_string copy;
    simdjson::padded_string_view view;
    if (readable_after >= simdjson::SIMDJSON_PADDING) {
        view = simdjson::padded_string_view(body.data(), body.size(), body.size() + readable_after);
    } else {
        copy = simdjson::padded_string(body);
        view = copy;
    }
    simdjson::ondemand::parser parser;
    simdjson::ondemand::document doc;
    detail::line_counter lc{body};
    bool iterating = false;
    // (Locations are in the text simdjson reads: `body` itself, or its padded copy.)
    const auto fail = [&](simdjson::error_code e, std::string what, const char* at = nullptr) -> input_error {
        const char* loc = at;
        if (const auto off = detail::json_failure_offset(body, e); off && what.empty()) lc.advance(*off);
        else if (iterating && (loc != nullptr || !doc.current_location().get(loc)) && loc >= view.data() &&
                 loc <= view.data() + body.size())
            lc.advance(static_cast<std::size_t>(loc - view.data()));
        if (what.empty()) what = std::string("not valid JSON: ") + simdjson::error_message(e);
        return config::make_error(file, lc.line, lc.column() + (lc.line == 1 ? bom : 0), "jobs", what);
    };
    if (auto e = parser.iterate(view).get(doc)) return fail(e, {});
    iterating = true;
    simdjson::ondemand::object root;
    if (auto e = doc.get_object().get(root))
        return fail(e, e == simdjson::INCORRECT_TYPE ? "not `squeue --json` output: the document is not an object" : "");
    table t = native_jobs_table(file);
    t.header_line = 1;
    bool have_jobs = false;
    std::string cell;
    for (auto field : root) {
        std::string_view key;
        if (auto e = field.unescaped_key().get(key)) return fail(e, {});
        simdjson::ondemand::value v;
        if (auto e = field.value().get(v)) return fail(e, {});
        if (key == "meta") {
            simdjson::ondemand::object meta;
            if (v.get_object().get(meta)) continue;
            for (auto m : meta) {
                std::string_view mk;
                if (auto e = m.unescaped_key().get(mk)) return fail(e, {});
                if (mk != "Slurm" && mk != "slurm") continue;
                simdjson::ondemand::object so;
                if (m.value().get_object().get(so)) continue;
                for (auto f : so) {
                    std::string_view fk;
                    if (auto e = f.unescaped_key().get(fk)) return fail(e, {});
                    std::string_view release;
                    if (fk == "release" && !f.value().get_string().get(release) && version != nullptr)
                        *version = std::string(release);
                }
            }
            continue;
        }
        if (key != "jobs") continue;
        have_jobs = true;
        simdjson::ondemand::array jobs;
        if (auto e = v.get_array().get(jobs)) return fail(e, "\"jobs\" is not a list (not `squeue --json` output)");
        for (auto item : jobs) {
            simdjson::ondemand::object job;
            if (auto e = item.get_object().get(job)) return fail(e, "an entry of \"jobs\" is not an object");
            const char* loc = nullptr;
            if (!doc.current_location().get(loc)) lc.advance(static_cast<std::size_t>(loc - view.data()));
            table_row row;
            row.line = lc.line;
            row.cells.assign(nj_count, std::string());
            row.columns.assign(nj_count, 1);
            std::string nice;
            for (auto jf : job) {
                // The key as written (squeue's keys have no escapes): no unescaping copy.
                simdjson::ondemand::raw_json_string rk;
                if (auto e = jf.key().get(rk)) return fail(e, {});
                const char* kp = rk.raw();
                const void* kq = std::memchr(kp, '"', 32);
                const std::size_t col =
                    kq == nullptr ? nj_count
                                  : detail::json_job_column(std::string_view(kp, static_cast<std::size_t>(static_cast<const char*>(kq) - kp)));
                if (col == nj_count) continue; // skipped unread by On Demand
                simdjson::ondemand::value jv;
                if (auto e = jf.value().get(jv)) return fail(e, {});
                const detail::json_expect expect = col == nj_state ? detail::json_expect::state
                                                   : col == nj_user || col == nj_account || col == nj_partition ||
                                                           col == nj_qos || col == nj_tres
                                                       ? detail::json_expect::text
                                                       : detail::json_expect::number;
                const char* value_at = nullptr; // the value's first byte: errors point at it
                if (doc.current_location().get(value_at)) value_at = nullptr;
                if (auto why = detail::json_cell(jv, expect, cell); !why.empty())
                    return fail(simdjson::INCORRECT_TYPE, "\"" + std::string(detail::json_job_keys[col]) + "\": " + why, value_at);
                row.cells[col] = cell;
            }
            // 0 (22.05) or an unset number object (later layouts): no such time.
            for (const std::size_t c : {nj_eligible, nj_accrue})
                if (row.cells[c] == "0" || row.cells[c].empty()) row.cells[c] = "Unknown";
            if (row.cells[nj_time_limit].empty()) row.cells[nj_time_limit] = "Partition_Limit";
            // 22.05 prints a negative nice as its unsigned 32-bit wrap.
            if (const auto n = parse_unsigned<std::uint64_t>(row.cells[nj_nice]); n && *n > 2147483647 && *n <= 4294967295)
                row.cells[nj_nice] = std::to_string(static_cast<std::int64_t>(*n) - 4294967296);
            if (row.cells[nj_state] == "PENDING" && row.cells[nj_priority] == "0") row.cells[nj_state] = "HELD";
            t.rows.push_back(std::move(row));
        }
    }
    // Past the root object: nothing but white space (simdjson 3.0's document has no at_end;
    // a location in bounds is a token after the document).
    if (const char* after = nullptr; !doc.current_location().get(after))
        return fail(simdjson::TRAILING_CONTENT, "more after the JSON document (one `squeue --json` output a file)");
    if (!have_jobs) return config::make_error(file, 1, 1, "jobs", "a JSON document without a \"jobs\" list (not `squeue --json` output)");
    return t;
}

} // namespace mfprio::inputs
