#pragma once
// What Flux prints, read as it is (simdjson; opt-in as squeue_json.hpp):
// - `flux jobs -A -a --json`: 64-bit job ids, user ids, Flux's states, fractional submit times;
// - `flux account list-factors --json`, `list-queues --json`, `list-banks --json`,
//   `list-users --json`: flux-accounting's tables, where a value of 2147483647 is printed as
//   the string "unlimited" (weights included);
// - a Flux bundle: a directory of those outputs with `meta` and `manifest` (tests/live/flux.sh
//   writes them), chained to the bundle captured before it by `previous=`.
// Errors name the file, line and column of the value at fault.

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <simdjson.h>

#include <mfprio/replay/flux_plugin.hpp>
#include <mfprio/core/assert.hpp>
#include <mfprio/core/expected.hpp>
#include <mfprio/inputs/bundle.hpp>
#include <mfprio/inputs/flux_jobtap.hpp>
#include <mfprio/inputs/squeue_json.hpp>
#include <mfprio/text/text.hpp>

namespace mfprio::inputs {

namespace detail {

/// A JSON value's text as a Flux reader wants it: a string unescaped, a number's token, true
/// as "1" and false as "0", null as empty. Lists and objects are refused (the caller asks
/// for them itself).
[[nodiscard]] inline std::optional<std::string> json_scalar(simdjson::ondemand::value v) {
    using simdjson::ondemand::json_type;
    json_type t;
    if (v.type().get(t)) return std::nullopt;
    switch (t) {
    case json_type::string: {
        std::string_view s;
        if (v.get_string().get(s)) return std::nullopt;
        return std::string(s);
    }
    case json_type::number: {
        // The token as written: a reader parses it as the number it wants, and says which
        // value it refuses (an id of 2^64 is no job id, not "not valid JSON").
        simdjson::ondemand::number n;
        std::string_view raw = v.raw_json_token();
        while (!raw.empty() && text::is_space(raw.back())) raw.remove_suffix(1);
        const std::string_view digits = raw.starts_with('-') ? raw.substr(1) : raw;
        const bool integer = !digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos;
        if (v.get_number().get(n) && !integer) return std::nullopt; // (an integer past 64 bits is still one)
        return std::string(raw);
    }
    case json_type::boolean: {
        bool b = false;
        if (v.get_bool().get(b)) return std::nullopt;
        return std::string(b ? "1" : "0");
    }
    case json_type::null: {
        bool null = false;
        if (v.is_null().get(null) || !null) return std::nullopt;
        return std::string();
    }
    default:
        return std::nullopt;
    }
}

/// The JSON type a reader takes for a key: Flux prints each field with one type, and a value
/// of another type is refused rather than read as something else (`{}` is no urgency, `true`
/// no job id).
enum class json_kind {
    string,
    number,
    number_or_string, ///< flux-accounting's limits: a number, or "unlimited"
    number_or_boolean, ///< a flag: 0/1 or false/true
};

/// A key a reader takes, with its type.
struct json_key {
    std::string_view name;
    json_kind kind;
};

/// "a string", "an object"...: the JSON type of `t`, for messages.
[[nodiscard]] inline std::string_view json_type_name(simdjson::ondemand::json_type t) {
    using simdjson::ondemand::json_type;
    switch (t) {
    case json_type::array: return "a list";
    case json_type::object: return "an object";
    case json_type::number: return "a number";
    case json_type::string: return "a string";
    case json_type::boolean: return "a boolean";
    case json_type::null: return "null";
    }
    return "a value";
}

/// Whether a value of JSON type `t` is one of `kind`.
[[nodiscard]] inline bool json_kind_takes(json_kind kind, simdjson::ondemand::json_type t) {
    using simdjson::ondemand::json_type;
    switch (kind) {
    case json_kind::string: return t == json_type::string;
    case json_kind::number: return t == json_type::number;
    case json_kind::number_or_string: return t == json_type::number || t == json_type::string;
    case json_kind::number_or_boolean: return t == json_type::number || t == json_type::boolean;
    }
    return false;
}

/// "a number", "a number or a string"...: what `kind` takes, for messages.
[[nodiscard]] inline std::string_view json_kind_name(json_kind kind) {
    switch (kind) {
    case json_kind::string: return "a string";
    case json_kind::number: return "a number";
    case json_kind::number_or_string: return "a number or \"unlimited\"";
    case json_kind::number_or_boolean: return "a number or a boolean";
    }
    return "a value";
}

/// A JSON document read as a list of flat objects (the entries of the list at `list_key` of
/// the root object, or the root list when `list_key` is empty). For each entry `begin(line)`
/// is called, then `field(key, text)` for each field whose key is one of `keys` (a string
/// unescaped, a number's token, a boolean as "1" or "0"), which returns an error sentence or
/// an empty string. A field of another type than its key's is refused at its value; fields
/// of other keys are not read (whatever their type).
class json_rows {
public:
    using begin_fn = std::function<void(std::size_t line, std::size_t column)>;
    using field_fn = std::function<std::string(std::string_view key, const std::string& value)>;

    [[nodiscard]] static std::optional<input_error> read(std::string_view text, std::string_view file, std::string_view what,
                                                         std::string_view list_key, std::span<const json_key> keys,
                                                         const begin_fn& begin, const field_fn& field) {
        const std::string_view body = config::detail::without_bom(text);
        const std::size_t bom = text.size() - body.size();
        const simdjson::padded_string copy(body);
        simdjson::ondemand::parser parser;
        simdjson::ondemand::document doc;
        line_counter lc{body};
        bool iterating = false;
        const auto fail = [&](std::string why, const char* at = nullptr) -> input_error {
            const char* loc = at;
            if (iterating && (loc != nullptr || !doc.current_location().get(loc)) && loc >= copy.data() &&
                loc <= copy.data() + body.size())
                lc.advance(static_cast<std::size_t>(loc - copy.data()));
            auto e = text::make_error(file, lc.line, lc.column() + (lc.line == 1 ? bom : 0), {}, std::move(why));
            return e;
        };
        const auto invalid = [&](simdjson::error_code e) {
            if (const auto off = json_failure_offset(body, e)) {
                lc.advance(*off);
                iterating = false; // the position is found; not simdjson's
            }
            return fail(std::string("not valid JSON: ") + simdjson::error_message(e));
        };
        if (auto e = parser.iterate(copy).get(doc)) return invalid(e);
        iterating = true;
        simdjson::ondemand::array list;
        if (list_key.empty()) {
            if (auto e = doc.get_array().get(list))
                return e == simdjson::INCORRECT_TYPE ? fail("not " + std::string(what) + ": the document is not a list") : invalid(e);
            if (auto r = rows(list, doc, lc, copy.data(), keys, fail, invalid, begin, field)) return r;
        } else {
            simdjson::ondemand::object root;
            if (auto e = doc.get_object().get(root))
                return e == simdjson::INCORRECT_TYPE ? fail("not " + std::string(what) + ": the document is not an object") : invalid(e);
            bool found = false;
            for (auto f : root) {
                std::string_view key;
                if (auto e = f.unescaped_key().get(key)) return invalid(e);
                if (key != list_key) {
                    simdjson::ondemand::value skip;
                    if (auto e = f.value().get(skip)) return invalid(e);
                    continue;
                }
                found = true;
                if (auto e = f.value().get_array().get(list))
                    return e == simdjson::INCORRECT_TYPE ? fail("\"" + std::string(list_key) + "\" is not a list") : invalid(e);
                if (auto r = rows(list, doc, lc, copy.data(), keys, fail, invalid, begin, field)) return r;
            }
            if (!found) return text::make_error(file, 1, 1, {}, "no \"" + std::string(list_key) + "\" list: not " + std::string(what));
        }
        if (const char* after = nullptr; !doc.current_location().get(after))
            return fail("more after the JSON document");
        return std::nullopt;
    }

private:
    template <class Fail, class Invalid>
    [[nodiscard]] static std::optional<input_error> rows(simdjson::ondemand::array& list, simdjson::ondemand::document& doc,
                                                         line_counter& lc, const char* base, std::span<const json_key> keys,
                                                         const Fail& fail, const Invalid& invalid, const begin_fn& begin,
                                                         const field_fn& field) {
        for (auto item : list) {
            simdjson::ondemand::object o;
            if (auto e = item.get_object().get(o))
                return e == simdjson::INCORRECT_TYPE ? fail("an entry of the list is not an object") : invalid(e);
            // The entry's '{' (simdjson stands after it, at the first key).
            const char* loc = nullptr;
            if (!doc.current_location().get(loc)) {
                auto at = static_cast<std::size_t>(loc - base);
                while (at > 0 && base[at] != '{') --at;
                lc.advance(at);
            }
            begin(lc.line, lc.column());
            for (auto f : o) {
                std::string_view key;
                if (auto e = f.unescaped_key().get(key)) return invalid(e);
                const std::string k(key);
                simdjson::ondemand::value v;
                if (auto e = f.value().get(v)) return invalid(e);
                const char* at = nullptr;
                if (doc.current_location().get(at)) at = nullptr;
                simdjson::ondemand::json_type t;
                if (auto e = v.type().get(t)) return invalid(e);
                const auto known = std::find_if(keys.begin(), keys.end(), [&](const json_key& x) { return x.name == key; });
                if (known == keys.end()) continue; // not read (simdjson skips it)
                if (!json_kind_takes(known->kind, t))
                    return fail("\"" + k + "\": " + std::string(json_type_name(t)) + ", not " +
                                    std::string(json_kind_name(known->kind)),
                                at);
                const auto s = json_scalar(v);
                if (!s) return fail("\"" + k + "\": not valid JSON", at);
                if (auto why = field(k, *s); !why.empty()) return fail("\"" + k + "\": " + why, at);
            }
        }
        return std::nullopt;
    }
};

/// A flux-accounting integer: a number, or "unlimited" for 2147483647.
[[nodiscard]] inline std::optional<std::int64_t> flux_integer(std::string_view v) {
    if (v == "unlimited") return std::int64_t{2147483647};
    return text::parse_signed<std::int64_t>(v);
}

[[nodiscard]] inline std::optional<double> flux_real(std::string_view v) {
    if (v == "unlimited") return 2147483647.0;
    return text::parse_double(v);
}

/// A queue's priority as `flux account list-queues` prints it, within the queue table's range.
[[nodiscard]] inline std::optional<std::int64_t> flux_queue_priority(std::string_view v) {
    const auto p = flux_integer(v);
    return p && config::flux_queue_priority_ok(*p) ? p : std::nullopt;
}
/// A bank's priority as `flux account list-banks` prints it, within the bank table's range.
[[nodiscard]] inline std::optional<double> flux_bank_priority(std::string_view v) {
    const auto p = flux_real(v);
    return p && config::flux_bank_priority_ok(*p) ? p : std::nullopt;
}

/// A list of flat objects read into rows: `field(row, key, value)` sets what it knows of the
/// row and returns why a value is refused, or an empty string.
template <class Row, class Field>
[[nodiscard]] expected<std::vector<Row>> flux_rows(std::string_view text, std::string_view file, std::string_view what,
                                                   std::span<const json_key> keys, Field field) {
    std::vector<Row> out;
    auto e = json_rows::read(
        text, file, what, {}, keys, [&](std::size_t, std::size_t) { out.emplace_back(); },
        [&](std::string_view k, const std::string& v) { return field(out.back(), k, v); });
    if (e) return *e;
    return out;
}

/// Reads `v` with `parse` into `out`; the sentence for a refused value otherwise.
template <class T, class Parse>
[[nodiscard]] std::string parse_into(T& out, const std::string& v, Parse parse, std::string_view what) {
    const auto x = parse(v);
    if (!x) return "'" + v + "' is not " + std::string(what);
    out = static_cast<T>(*x);
    return {};
}

} // namespace detail

namespace detail {

/// The error of a job without an id or listed twice (Flux lists each job once: a second
/// entry would be computed and printed twice), or nullopt.
[[nodiscard]] inline std::optional<input_error> duplicate_job(std::span<const config::flux_job_row> jobs, std::string_view file) {
    std::unordered_map<std::uint64_t, std::size_t> first; // id -> line
    first.reserve(jobs.size());
    for (const auto& j : jobs) {
        if (j.id == 0) return text::make_error(std::string(file), j.line, j.column, "id", "a job without an id", error_kind::shape);
        const auto [it, fresh] = first.emplace(j.id, j.line);
        if (!fresh)
            return text::make_error(std::string(file), j.line, j.column, "id",
                                    "job " + std::to_string(j.id) + " is listed twice (first on line " +
                                        std::to_string(it->second) + ")",
                                    error_kind::shape);
    }
    return std::nullopt;
}

} // namespace detail

/// `flux account list-factors --json`: the weights, one entry per factor. A factor flux-
/// accounting does not have, one named twice, or an entry without its name or weight is
/// refused (a weight left out would silently keep its default).
[[nodiscard]] inline expected<flux::flux_accounting_weights> flux_factors_from(std::string_view text, std::string_view file) {
    static constexpr detail::json_key keys[] = {{"factor", detail::json_kind::string}, {"weight", detail::json_kind::number_or_string}};
    static constexpr std::string_view names[] = {"fairshare", "queue", "bank", "urgency"};
    struct entry {
        std::size_t line = 0, column = 0;
        std::optional<std::string> factor;
        std::optional<std::int64_t> weight;
    };
    std::vector<entry> entries;
    auto e = detail::json_rows::read(
        text, file, "`flux account list-factors --json` output", {}, keys,
        [&](std::size_t line, std::size_t column) { entries.push_back({line, column, {}, {}}); },
        [&](std::string_view k, const std::string& v) -> std::string {
            if (k == "factor") {
                if (std::find(std::begin(names), std::end(names), v) == std::end(names))
                    return "'" + v + "' is not a factor of flux-accounting (fairshare, queue, bank, urgency)" +
                           text::did_you_mean(v, names);
                entries.back().factor = v;
            } else {
                entries.back().weight = detail::flux_integer(v);
                if (!entries.back().weight) return "'" + v + "' is not an integer weight";
            }
            return {};
        });
    if (e) return *e;
    flux::flux_accounting_weights w;
    std::vector<std::string> seen;
    for (const auto& x : entries) {
        if (!x.factor || !x.weight)
            return text::make_error(std::string(file), x.line, x.column, {}, !x.factor ? "an entry without \"factor\"" : "an entry without \"weight\"",
                                    error_kind::shape);
        if (std::find(seen.begin(), seen.end(), *x.factor) != seen.end())
            return text::make_error(std::string(file), x.line, x.column, "factor", "'" + *x.factor + "' is listed twice", error_kind::shape);
        seen.push_back(*x.factor);
        (*x.factor == "fairshare" ? w.fairshare : *x.factor == "queue" ? w.queue : *x.factor == "bank" ? w.bank : w.urgency) = *x.weight;
    }
    return w;
}

/// `flux account list-queues --json`.
[[nodiscard]] inline expected<std::vector<config::flux_queue_row>> flux_queues_from(std::string_view text, std::string_view file) {
    static constexpr detail::json_key queue_keys[] = {{"queue", detail::json_kind::string},
                                                      {"priority", detail::json_kind::number_or_string},
                                                     {"active", detail::json_kind::number_or_boolean}};
    return detail::flux_rows<config::flux_queue_row>(
        text, file, "`flux account list-queues --json` output", queue_keys,
        [](config::flux_queue_row& q, std::string_view k, const std::string& v) -> std::string {
            if (k == "queue") q.name = v;
            else if (k == "priority") return detail::parse_into(q.priority, v, detail::flux_queue_priority, config::flux_queue_priority_expected());
            return {};
        });
}

/// `flux account list-banks --json`.
[[nodiscard]] inline expected<std::vector<config::flux_bank_row>> flux_banks_from(std::string_view text, std::string_view file) {
    static constexpr detail::json_key bank_keys[] = {{"bank", detail::json_kind::string},
                                                     {"parent_bank", detail::json_kind::string},
                                                     {"shares", detail::json_kind::number},
                                                     {"priority", detail::json_kind::number_or_string}};
    return detail::flux_rows<config::flux_bank_row>(
        text, file, "`flux account list-banks --json` output", bank_keys,
        [](config::flux_bank_row& b, std::string_view k, const std::string& v) -> std::string {
            if (k == "bank") b.name = v;
            else if (k == "parent_bank") b.parent = v;
            else if (k == "shares") return detail::parse_into(b.shares, v, text::parse_unsigned<std::uint32_t>, "a number of shares");
            else if (k == "priority") return detail::parse_into(b.priority, v, detail::flux_bank_priority, config::flux_bank_priority_expected());
            else if (k == "active") b.active = v != "0";
            return {};
        });
}

/// `flux account list-users --json`: the associations, their stored fair-share included.
[[nodiscard]] inline expected<std::vector<config::flux_user_row>> flux_users_from(std::string_view text, std::string_view file) {
    static constexpr detail::json_key user_keys[] = {
        {"username", detail::json_kind::string}, {"bank", detail::json_kind::string},
        {"default_bank", detail::json_kind::string}, {"userid", detail::json_kind::number},
        {"active", detail::json_kind::number_or_boolean}, {"shares", detail::json_kind::number},
        {"fairshare", detail::json_kind::number}, {"job_usage", detail::json_kind::number}};
    return detail::flux_rows<config::flux_user_row>(
        text, file, "`flux account list-users --json` output", user_keys,
        [](config::flux_user_row& u, std::string_view k, const std::string& v) -> std::string {
            if (k == "username") u.username = v;
            else if (k == "bank") u.bank = v;
            else if (k == "default_bank") u.default_bank = v;
            else if (k == "userid") return detail::parse_into(u.userid, v, text::parse_unsigned<std::uint32_t>, "a user id");
            else if (k == "active") u.active = v != "0";
            else if (k == "shares") return detail::parse_into(u.shares, v, text::parse_unsigned<std::uint32_t>, "a number of shares");
            else if (k == "fairshare") {
                const auto f = text::parse_double(v);
                if (!f || *f < 0 || *f > 1) return "'" + v + "' is not a fair-share from 0 to 1";
                u.fairshare = *f;
            } else if (k == "job_usage") {
                const auto x = text::parse_double(v);
                if (!x || *x < 0) return "'" + v + "' is not a usage";
                u.job_usage = *x;
            }
            return {};
        });
}

namespace detail {
/// A job's `nnodes`, `ncores` (whole numbers, 0 or more) or `duration` (seconds, 0 or more) as
/// `flux jobs` prints it, into `j`; "'VALUE' is not ..." when it is not one.
[[nodiscard]] inline std::string flux_job_size(config::flux_job_row& j, std::string_view key, const std::string& v) {
    if (key == "duration") {
        const auto d = text::parse_double(v);
        if (!d || !(*d >= 0) || *d > 1e15) return "'" + v + "' is not a duration in seconds";
        j.duration = *d;
        return {};
    }
    const auto n = text::parse_signed<std::int64_t>(v);
    if (!n || *n < -1 || *n > 0xffffffffLL) return "'" + v + "' is not a count of " + std::string(key == "nnodes" ? "nodes" : "cores");
    (key == "nnodes" ? j.nnodes : j.ncores) = *n < 0 ? 0 : *n; // -1: not known
    return {};
}
} // namespace detail

/// `flux jobs -A -a --json`: every job; user names are filled in from `users` by user id.
[[nodiscard]] inline expected<std::vector<config::flux_job_row>> flux_jobs_from(std::string_view text, std::string_view file,
                                                                               std::span<const config::flux_user_row> users = {}) {
    static constexpr detail::json_key job_keys[] = {
        {"id", detail::json_kind::number},       {"userid", detail::json_kind::number},
        {"urgency", detail::json_kind::number},  {"priority", detail::json_kind::number},
        {"t_submit", detail::json_kind::number}, {"state", detail::json_kind::string},
        {"queue", detail::json_kind::string},    {"bank", detail::json_kind::string},
        {"username", detail::json_kind::string}, {"nnodes", detail::json_kind::number},
        {"ncores", detail::json_kind::number},   {"duration", detail::json_kind::number}};
    std::vector<config::flux_job_row> out;
    auto e = detail::json_rows::read(
        text, file, "`flux jobs --json` output", "jobs", job_keys,
        [&](std::size_t line, std::size_t column) {
            out.emplace_back();
            out.back().line = line;
            out.back().column = column;
        },
        [&](std::string_view k, const std::string& v) -> std::string {
            auto& j = out.back();
            if (k == "id") {
                const auto id = text::parse_unsigned<std::uint64_t>(v);
                if (!id || *id == 0) return "'" + v + "' is not a job id";
                j.id = *id;
            } else if (k == "userid") {
                const auto id = text::parse_unsigned<std::uint32_t>(v);
                if (!id) return "'" + v + "' is not a user id";
                j.userid = *id;
            } else if (k == "urgency") {
                const auto u = text::parse_unsigned<std::uint32_t>(v);
                if (!u || *u > 31) return "'" + v + "' is not an urgency from 0 to 31";
                j.urgency = static_cast<std::uint8_t>(*u);
            } else if (k == "priority") {
                const auto p = text::parse_signed<std::int64_t>(v);
                if (!p || *p < 0) return "'" + v + "' is not a priority";
                j.priority = *p;
            } else if (k == "t_submit") {
                const auto t = text::parse_double(v);
                if (!t || *t < 0 || *t > static_cast<double>(text::max_epoch))
                    return "'" + v + "' is not a time in epoch seconds from 1970 to 9999";
                j.t_submit = *t;
            } else if (k == "state") {
                static constexpr std::string_view states[] = {"NEW", "DEPEND", "PRIORITY", "SCHED", "RUN", "CLEANUP", "INACTIVE"};
                if (std::find(std::begin(states), std::end(states), v) == std::end(states))
                    return "'" + v + "' is not a Flux job state (DEPEND, PRIORITY, SCHED, RUN, CLEANUP, INACTIVE)";
                j.state = v;
            } else if (k == "queue") {
                j.queue = v;
            } else if (k == "bank") {
                j.bank = v;
            } else if (k == "username") {
                j.username = v;
            } else if (k == "nnodes" || k == "ncores" || k == "duration") {
                return detail::flux_job_size(j, k, v);
            }
            return {};
        });
    if (e) return *e;
    if (auto dup = detail::duplicate_job(out, file)) return *dup;
    for (auto& j : out) {
        for (const auto& u : users)
            if (u.userid == j.userid) {
                j.username = u.username;
                break;
            }
    }
    return out;
}

/// A Flux job id as Flux prints it: decimal, or FLUID f58 ("ƒ" or "f", then base 58 with
/// the digits 1-9, A-Z and a-z without 0, O, I and l).
[[nodiscard]] inline std::optional<std::uint64_t> parse_flux_jobid(std::string_view s) {
    if (s.starts_with("\xc6\x92")) s.remove_prefix(2);
    else if (s.starts_with("f")) s.remove_prefix(1);
    else return text::parse_unsigned<std::uint64_t>(s);
    static constexpr std::string_view digits = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
    if (s.empty()) return std::nullopt;
    std::uint64_t v = 0;
    for (const char c : s) {
        const std::size_t d = digits.find(c);
        if (d == std::string_view::npos) return std::nullopt;
        if (v > (UINT64_MAX - d) / 58) return std::nullopt;
        v = v * 58 + d;
    }
    return v;
}

/// `flux jobs -A -a -o FORMAT` with its header line, the fields separated by single spaces as
/// FORMAT gives them (an empty queue or bank is an empty field): JOBID ({id}, {id.f58} or
/// {id.dec}), UID or USER, URG, PRI, STATE or S ({state_single}), QUEUE, BANK, T_SUBMIT
/// (epoch seconds), NNODES and NCORES (counts; empty or -1 while not known) and DURATION
/// (seconds); other columns are skipped. JOBID, UID (or USER known to `users`), URG
/// and STATE (or S) are needed. An empty PRI is a job without a priority yet.
[[nodiscard]] inline expected<std::vector<config::flux_job_row>> flux_jobs_text_from(std::string_view text, std::string_view file,
                                                                                    std::span<const config::flux_user_row> users = {}) {
    const std::string_view body = config::detail::without_bom(text);
    enum col { c_id, c_uid, c_user, c_urg, c_pri, c_state, c_s, c_queue, c_bank, c_submit, c_nnodes, c_ncores, c_duration, c_other };
    static constexpr std::pair<std::string_view, col> names[] = {
        {"JOBID", c_id}, {"UID", c_uid}, {"USER", c_user}, {"URG", c_urg}, {"PRI", c_pri}, {"STATE", c_state},
        {"S", c_s}, {"QUEUE", c_queue}, {"BANK", c_bank}, {"T_SUBMIT", c_submit}, {"NNODES", c_nnodes},
        {"NCORES", c_ncores}, {"DURATION", c_duration}};
    std::vector<col> cols;
    std::vector<std::string> header;
    std::vector<config::flux_job_row> out;
    const auto split = [](std::string_view l) {
        std::vector<std::string_view> f;
        std::size_t start = 0;
        while (true) {
            const std::size_t sp = l.find(' ', start);
            f.push_back(l.substr(start, sp == std::string_view::npos ? std::string_view::npos : sp - start));
            if (sp == std::string_view::npos) break;
            start = sp + 1;
        }
        return f;
    };
    for (const auto& l : text::split_lines(body)) {
        std::string_view line = l.text;
        while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
        if (line.empty()) continue;
        const auto f = split(line);
        if (cols.empty()) {
            for (const auto h : f) {
                header.emplace_back(h);
                col c = c_other;
                for (const auto& [n, k] : names)
                    if (h == n) c = k;
                cols.push_back(c);
            }
            const auto has = [&](col c) { return std::find(cols.begin(), cols.end(), c) != cols.end(); };
            if (!has(c_id) || (!has(c_uid) && !has(c_user)) || !has(c_urg) || (!has(c_state) && !has(c_s)))
                return text::make_error(file, l.number, 1, {},
                                        "not `flux jobs -o` output with a header: JOBID, UID (or USER), URG and STATE "
                                        "(or S) are needed", error_kind::shape);
            continue;
        }
        if (f.size() != cols.size())
            return text::make_error(file, l.number, 1, {},
                                    "has " + std::to_string(f.size()) + " fields, the header " + std::to_string(cols.size()) +
                                        " (fields are separated by single spaces)", error_kind::shape);
        config::flux_job_row j;
        j.line = l.number;
        std::size_t column = 1;
        for (std::size_t i = 0; i < f.size(); ++i, column += f[i - 1].size() + 1) {
            const std::string_view v = f[i];
            const auto bad = [&](std::string why) {
                return text::make_error(file, l.number, column, header[i], "'" + std::string(v) + "' " + why);
            };
            switch (cols[i]) {
            case c_id: {
                const auto id = parse_flux_jobid(v);
                if (!id || *id == 0) return bad("is not a Flux job id (decimal or f58)");
                j.id = *id;
                break;
            }
            case c_uid: {
                const auto id = text::parse_unsigned<std::uint32_t>(v);
                if (!id) return bad("is not a user id");
                j.userid = *id;
                break;
            }
            case c_user: {
                j.username = std::string(v);
                if (std::find(cols.begin(), cols.end(), c_uid) != cols.end()) break;
                const auto u = std::find_if(users.begin(), users.end(), [&](const auto& r) { return r.username == v; });
                if (u != users.end()) j.userid = u->userid;
                else if (const auto id = text::parse_unsigned<std::uint32_t>(v)) j.userid = *id; // no name: flux prints the id
                else return bad("is a user the users input does not hold (give UID)");
                break;
            }
            case c_urg: {
                const auto u = text::parse_unsigned<std::uint32_t>(v);
                if (!u || *u > 31) return bad("is not an urgency from 0 to 31");
                j.urgency = static_cast<std::uint8_t>(*u);
                break;
            }
            case c_pri: {
                if (v.empty()) break; // none yet (a job the plugin holds in PRIORITY)
                const auto p = text::parse_signed<std::int64_t>(v);
                if (!p || *p < 0) return bad("is not a priority");
                j.priority = *p;
                break;
            }
            case c_state: {
                static constexpr std::string_view states[] = {"NEW", "DEPEND", "PRIORITY", "SCHED", "RUN", "CLEANUP", "INACTIVE"};
                if (std::find(std::begin(states), std::end(states), v) == std::end(states)) return bad("is not a Flux job state");
                j.state = std::string(v);
                break;
            }
            case c_s: {
                static constexpr std::pair<std::string_view, std::string_view> single[] = {
                    {"N", "NEW"}, {"D", "DEPEND"}, {"P", "PRIORITY"}, {"S", "SCHED"}, {"R", "RUN"}, {"C", "CLEANUP"}, {"I", "INACTIVE"}};
                const auto s = std::find_if(std::begin(single), std::end(single), [&](const auto& p) { return p.first == v; });
                if (s == std::end(single)) return bad("is not a Flux job state letter (N, D, P, S, R, C, I)");
                j.state = std::string(s->second);
                break;
            }
            case c_queue: j.queue = std::string(v); break;
            case c_bank: j.bank = std::string(v); break;
            case c_submit: {
                const auto t = text::parse_double(v);
                if (!t || *t < 0 || *t > static_cast<double>(text::max_epoch))
                    return bad("is not a time in epoch seconds from 1970 to 9999 (use {t_submit}, not {t_submit!d})");
                j.t_submit = *t;
                break;
            }
            case c_nnodes:
            case c_ncores:
            case c_duration: {
                if (v.empty()) break; // not known yet
                const std::string_view key = cols[i] == c_nnodes ? "nnodes" : cols[i] == c_ncores ? "ncores" : "duration";
                if (auto why = detail::flux_job_size(j, key, std::string(v)); !why.empty()) return bad(why.substr(why.find(' ') + 1));
                break;
            }
            case c_other: break;
            }
        }
        if (j.username.empty())
            for (const auto& u : users)
                if (u.userid == j.userid) {
                    j.username = u.username;
                    break;
                }
        out.push_back(std::move(j));
    }
    if (cols.empty()) return text::make_error(file, 0, 0, {}, "empty: no header line", error_kind::shape);
    if (auto dup = detail::duplicate_job(out, file)) return *dup;
    return out;
}

/// Any jobs input Flux prints: `flux jobs --json`, or its `-o` text form with a header.
[[nodiscard]] inline expected<std::vector<config::flux_job_row>> read_flux_jobs(std::string_view text, std::string_view file,
                                                                               std::span<const config::flux_user_row> users = {}) {
    const std::string_view body = text::trim(config::detail::without_bom(text));
    if (body.starts_with("{") || body.starts_with("[")) return flux_jobs_from(text, file, users);
    return flux_jobs_text_from(text, file, users);
}

/// `flux jobtap query mf_priority.so`: the user-bank pairs the plugin holds, with their cached
/// queue factors and fair-share ("mf_priority_map": users, each with its "banks").
[[nodiscard]] inline expected<std::vector<config::flux_cached_pair>> flux_plugin_state_from(std::string_view text,
                                                                                           std::string_view file) {
    const std::string_view body = config::detail::without_bom(text);
    const std::size_t bom = text.size() - body.size();
    const simdjson::padded_string copy(body);
    simdjson::ondemand::parser parser;
    simdjson::ondemand::document doc;
    detail::line_counter lc{body};
    bool iterating = false;
    const auto fail = [&](std::string why, const char* at = nullptr) -> input_error {
        const char* loc = at;
        if (iterating && (loc != nullptr || !doc.current_location().get(loc)) && loc >= copy.data() &&
            loc <= copy.data() + body.size())
            lc.advance(static_cast<std::size_t>(loc - copy.data()));
        return text::make_error(file, lc.line, lc.column() + (lc.line == 1 ? bom : 0), {}, std::move(why));
    };
    const auto invalid = [&](simdjson::error_code e) {
        if (const auto off = detail::json_failure_offset(body, e)) {
            lc.advance(*off);
            iterating = false; // the position is found; not simdjson's
        }
        return fail(std::string("not valid JSON: ") + simdjson::error_message(e));
    };
    std::vector<config::flux_cached_pair> out;
    if (auto e = parser.iterate(copy).get(doc)) return invalid(e);
    iterating = true;
    simdjson::ondemand::object root;
    if (auto e = doc.get_object().get(root))
        return e == simdjson::INCORRECT_TYPE ? fail("not `flux jobtap query mf_priority.so` output: the document is not an object")
                                             : invalid(e);
    bool found = false;
    for (auto f : root) {
        std::string_view key;
        if (auto e = f.unescaped_key().get(key)) return invalid(e);
        simdjson::ondemand::value v;
        if (auto e = f.value().get(v)) return invalid(e);
        if (key != "mf_priority_map") continue;
        found = true;
        simdjson::ondemand::array users;
        if (auto e = v.get_array().get(users)) return e == simdjson::INCORRECT_TYPE ? fail("\"mf_priority_map\" is not a list") : invalid(e);
        for (auto u : users) {
            simdjson::ondemand::object uo;
            if (auto e = u.get_object().get(uo)) return e == simdjson::INCORRECT_TYPE ? fail("a user entry is not an object") : invalid(e);
            std::optional<std::uint32_t> uid;
            const std::size_t first = out.size();
            for (auto uf : uo) {
                std::string_view uk;
                if (auto e = uf.unescaped_key().get(uk)) return invalid(e);
                simdjson::ondemand::value uv;
                if (auto e = uf.value().get(uv)) return invalid(e);
                if (uk == "userid") {
                    const char* at = nullptr;
                    if (doc.current_location().get(at)) at = nullptr;
                    std::uint64_t id = 0;
                    if (uv.get_uint64().get(id) || id > UINT32_MAX) return fail("\"userid\": not a user id", at);
                    uid = static_cast<std::uint32_t>(id);
                } else if (uk == "banks") {
                    simdjson::ondemand::array banks;
                    if (auto e = uv.get_array().get(banks)) return e == simdjson::INCORRECT_TYPE ? fail("\"banks\" is not a list") : invalid(e);
                    for (auto b : banks) {
                        simdjson::ondemand::object bo;
                        if (auto e = b.get_object().get(bo)) return e == simdjson::INCORRECT_TYPE ? fail("a bank entry is not an object") : invalid(e);
                        config::flux_cached_pair p;
                        for (auto bf : bo) {
                            std::string_view bk;
                            if (auto e = bf.unescaped_key().get(bk)) return invalid(e);
                            simdjson::ondemand::value bv;
                            if (auto e = bf.value().get(bv)) return invalid(e);
                            const char* at = nullptr;
                            if (doc.current_location().get(at)) at = nullptr;
                            if (bk == "bank_name") {
                                std::string_view name;
                                if (bv.get_string().get(name)) return fail("\"bank_name\": not a string", at);
                                p.bank = std::string(name);
                            } else if (bk == "queue_factor") {
                                std::int64_t q = 0;
                                if (bv.get_int64().get(q)) return fail("\"queue_factor\": not an integer", at);
                                p.queue_factor = q;
                            } else if (bk == "fairshare") {
                                double fs = 0;
                                if (bv.get_double().get(fs) || fs < 0 || fs > 1) return fail("\"fairshare\": not a fair-share from 0 to 1", at);
                                p.fairshare = fs;
                            }
                        }
                        out.push_back(std::move(p));
                    }
                }
            }
            if (!uid) return fail("a user entry without \"userid\"");
            for (std::size_t k = first; k < out.size(); ++k) out[k].userid = *uid;
        }
    }
    if (const char* after = nullptr; !doc.current_location().get(after)) return fail("more after the JSON document");
    if (!found) return text::make_error(file, 1, 1, {}, "no \"mf_priority_map\": not `flux jobtap query mf_priority.so` output");
    return out;
}

/// One job's eventlog as a bundle's eventlogs.json holds it: the events the plugin acts on.
struct flux_eventlog {
    std::uint64_t id = 0;
    std::uint8_t submit_urgency = flux::urgency_default;
    std::vector<config::flux_job_event> events;
    std::vector<double> computed; ///< "memo" events: each time the plugin computed the job
    std::vector<double> computed_fairshare; ///< and the fair-share it used then
    std::optional<std::string> submit_bank, submit_queue; ///< "submitted": the jobspec as submitted
    std::size_t line = 0;
};

namespace detail {

/// What an eventlog's event says, as read from its object.
struct flux_event_fields {
    std::optional<double> time;
    std::string name;
    std::optional<std::uint64_t> urgency;
    std::optional<std::string> queue, bank;
    bool memo = false; ///< a memo with the plugin's fair-share
    double memo_fs = 0;
};

/// Reads one line of eventlogs.json (see read_flux_eventlogs); errors at the line's byte.
class flux_eventlog_line {
public:
    flux_eventlog_line(std::string_view line, std::size_t number, std::size_t bom, const std::string& file)
        : line_(line), number_(number), bom_(bom), file_(file), copy_(line) {}

    [[nodiscard]] expected<flux_eventlog> read(simdjson::ondemand::parser& parser) {
        if (auto e = parser.iterate(copy_).get(doc_)) return invalid(e);
        iterating_ = true;
        simdjson::ondemand::object root;
        if (auto e = doc_.get_object().get(root))
            return e == simdjson::INCORRECT_TYPE ? fail("not an eventlog line: {\"id\": ID, \"eventlog\": [...]}", copy_.data()) : invalid(e);
        flux_eventlog log;
        log.line = number_;
        bool have_id = false, have_log = false;
        for (auto f : root) {
            std::string_view key;
            if (auto e = f.unescaped_key().get(key)) return invalid(e);
            simdjson::ondemand::value v;
            if (auto e = f.value().get(v)) return invalid(e);
            const char* vat = here();
            if (key == "id") {
                if (v.get_uint64().get(log.id) || log.id == 0)
                    return fail("\"id\": not a Flux job id (a positive integer below 2^64)", vat);
                have_id = true;
            } else if (key == "submitted") {
                if (auto e = read_submitted(v, log, vat)) return *e;
            } else if (key == "eventlog") {
                simdjson::ondemand::array events;
                if (auto e = v.get_array().get(events)) return e == simdjson::INCORRECT_TYPE ? fail("\"eventlog\" is not a list", vat) : invalid(e);
                have_log = true;
                for (auto ev : events)
                    if (auto e = read_event(ev, log)) return *e;
            }
        }
        if (const char* after = nullptr; !doc_.current_location().get(after)) return fail("more after the JSON object on this line");
        if (!have_id || !have_log) return at_offset(0, "an eventlog line needs \"id\" and \"eventlog\"");
        std::stable_sort(log.events.begin(), log.events.end(), [](const auto& a, const auto& b) { return a.time < b.time; });
        return log;
    }

    [[nodiscard]] input_error at_offset(std::size_t off, std::string why) const {
        return text::make_error(file_, number_, off + 1 + bom_, {}, std::move(why));
    }

private:
    std::string_view line_;
    std::size_t number_, bom_;
    const std::string& file_;
    simdjson::padded_string copy_;
    simdjson::ondemand::document doc_;
    bool iterating_ = false;

    [[nodiscard]] input_error fail(std::string why, const char* at = nullptr) {
        const char* loc = at;
        if (iterating_ && (loc != nullptr || !doc_.current_location().get(loc)) && loc >= copy_.data() &&
            loc <= copy_.data() + line_.size())
            return at_offset(static_cast<std::size_t>(loc - copy_.data()), std::move(why));
        return at_offset(line_.size(), std::move(why));
    }
    [[nodiscard]] input_error invalid(simdjson::error_code e) {
        if (const auto off = json_failure_offset(line_, e)) {
            iterating_ = false;
            return at_offset(*off, std::string("not valid JSON: ") + simdjson::error_message(e));
        }
        return fail(std::string("not valid JSON: ") + simdjson::error_message(e));
    }
    [[nodiscard]] const char* here() {
        const char* at = nullptr;
        return doc_.current_location().get(at) ? nullptr : at;
    }

    /// "submitted": the bank and queue of the jobspec as submitted.
    [[nodiscard]] std::optional<input_error> read_submitted(simdjson::ondemand::value& v, flux_eventlog& log, const char* vat) {
        simdjson::ondemand::object so;
        if (auto e = v.get_object().get(so)) return e == simdjson::INCORRECT_TYPE ? fail("\"submitted\" is not an object", vat) : invalid(e);
        for (auto sf : so) {
            std::string_view sk;
            if (auto e = sf.unescaped_key().get(sk)) return invalid(e);
            simdjson::ondemand::value sv;
            if (auto e = sf.value().get(sv)) return invalid(e);
            const char* sat = here();
            if (sk != "bank" && sk != "queue") continue;
            std::string_view text;
            if (sv.get_string().get(text)) return fail("\"" + std::string(sk) + "\": not a string", sat);
            (sk == "bank" ? log.submit_bank : log.submit_queue) = std::string(text);
        }
        return std::nullopt;
    }

    /// An event's "context": what the plugin acts on in it.
    [[nodiscard]] std::optional<input_error> read_context(simdjson::ondemand::value& v, flux_event_fields& ev, const char* fat) {
        simdjson::ondemand::object co;
        if (auto e = v.get_object().get(co)) return e == simdjson::INCORRECT_TYPE ? fail("\"context\" is not an object", fat) : invalid(e);
        for (auto cf : co) {
            std::string_view ck;
            if (auto e = cf.unescaped_key().get(ck)) return invalid(e);
            simdjson::ondemand::value cv;
            if (auto e = cf.value().get(cv)) return invalid(e);
            const char* cat = here();
            if (ck == "urgency") {
                std::uint64_t u = 0;
                if (cv.get_uint64().get(u) || u > flux::urgency_expedite) return fail("\"urgency\": not an urgency from 0 to 31", cat);
                ev.urgency = u;
            } else if (ck == "attributes.system.queue" || ck == "attributes.system.bank") {
                std::string_view sv;
                if (cv.get_string().get(sv)) return fail("\"" + std::string(ck) + "\": not a string", cat);
                (ck == "attributes.system.queue" ? ev.queue : ev.bank) = std::string(sv);
            } else if (ck == "fairshare") {
                if (cv.get_double().get(ev.memo_fs) || !(ev.memo_fs >= 0) || ev.memo_fs > 1)
                    return fail("\"fairshare\": not a fair-share from 0 to 1", cat);
                ev.memo = true;
            }
        }
        return std::nullopt;
    }

    /// One event of the eventlog, added to `log` when the plugin acts on it.
    template <class Event>
    [[nodiscard]] std::optional<input_error> read_event(Event& event, flux_eventlog& log) {
        simdjson::ondemand::object eo;
        const char* eat = here();
        if (auto e = event.get_object().get(eo)) return e == simdjson::INCORRECT_TYPE ? fail("an event is not an object", eat) : invalid(e);
        flux_event_fields ev;
        for (auto ef : eo) {
            std::string_view ek;
            if (auto e = ef.unescaped_key().get(ek)) return invalid(e);
            simdjson::ondemand::value v;
            if (auto e = ef.value().get(v)) return invalid(e);
            const char* fat = here();
            if (ek == "timestamp") {
                double t = 0;
                if (v.get_double().get(t) || !(t >= 0) || t > static_cast<double>(text::max_epoch))
                    return fail("\"timestamp\": not a time in epoch seconds from 1970 to 9999", fat);
                ev.time = t;
            } else if (ek == "name") {
                std::string_view n;
                if (v.get_string().get(n)) return fail("\"name\": not a string", fat);
                ev.name = std::string(n);
            } else if (ek == "context") {
                if (auto e = read_context(v, ev, fat)) return e;
            }
        }
        if (!ev.time) return fail("an event without \"timestamp\"", eat);
        if (ev.name == "submit") {
            if (!ev.urgency) return fail("a submit event without its urgency", eat);
            log.submit_urgency = static_cast<std::uint8_t>(*ev.urgency);
        } else if (ev.name == "urgency") {
            if (!ev.urgency) return fail("an urgency event without its urgency", eat);
            log.events.push_back({.time = *ev.time,
                                  .what = config::flux_job_event::kind::urgency,
                                  .urgency = static_cast<std::uint8_t>(*ev.urgency),
                                  .value = {}});
        } else if (ev.name == "jobspec-update") {
            // flux-core hands the plugin one update; job_updated takes the bank first.
            if (ev.bank) log.events.push_back({.time = *ev.time, .what = config::flux_job_event::kind::bank, .urgency = 0, .value = *ev.bank});
            if (ev.queue) log.events.push_back({.time = *ev.time, .what = config::flux_job_event::kind::queue, .urgency = 0, .value = *ev.queue});
        } else if (ev.name == "memo" && ev.memo) {
            log.computed.push_back(*ev.time);
            log.computed_fairshare.push_back(ev.memo_fs);
        }
        return std::nullopt;
    }
};

} // namespace detail

/// A bundle's eventlogs.json: one line per pending job, `{"id": ID, "submitted": {"bank": B,
/// "queue": Q}, "eventlog": [EVENT, ...]}` ("submitted", optional: the bank and queue of the
/// jobspec as submitted), each event as `flux job eventlog --format=json` prints it
/// (`timestamp`, `name`, `context`). Read: "submit" (its urgency), "urgency", "jobspec-update" (a queue or bank) and
/// "memo" (the plugin's fair-share memo, posted at each computation); other events are
/// skipped. Blank lines are skipped; an id twice, a timestamp outside 1970-9999 or an event of
/// the wrong shape is refused at its line and column.
[[nodiscard]] inline expected<std::vector<flux_eventlog>> read_flux_eventlogs(std::string_view text, const std::string& file) {
    std::vector<flux_eventlog> out;
    simdjson::ondemand::parser parser;
    for (const auto& l : text::split_lines(config::detail::without_bom(text))) {
        if (text::trim(l.text).empty()) continue;
        const std::size_t bom = l.number == 1 ? text.size() - config::detail::without_bom(text).size() : 0;
        detail::flux_eventlog_line reader(l.text, l.number, bom, file);
        auto log = reader.read(parser);
        if (!log) return log.error();
        for (const auto& o : out)
            if (o.id == log->id)
                return reader.at_offset(0, "job " + std::to_string(log->id) + " twice (first on line " + std::to_string(o.line) + ")");
        out.push_back(std::move(*log));
    }
    return out;
}

/// When flux-accounting's plugin was loaded, from `flux dmesg` (a bundle's flux_dmesg.txt):
/// each load registers its services, and the job manager logs "jobtap plugin mf_priority
/// registered method job-manager.mf_priority.rec_update" with the time (ISO 8601, UTC).
/// Other lines are skipped; a matching line whose time cannot be read is refused there.
[[nodiscard]] inline expected<std::vector<double>> read_flux_plugin_loads(std::string_view text, const std::string& file) {
    static constexpr std::string_view marker = "jobtap plugin mf_priority registered method job-manager.mf_priority.rec_update";
    std::vector<double> out;
    for (const auto& l : text::split_lines(config::detail::without_bom(text))) {
        const std::string_view line = l.text;
        if (line.find(marker) == std::string_view::npos) continue;
        // 2026-11-28T14:29:46.022097Z
        const std::size_t end = line.find(' ');
        const std::string_view stamp = line.substr(0, end);
        const std::string buf(stamp);
        const auto number = [&](std::size_t at, std::size_t n) -> int {
            int v = 0;
            if (at + n > stamp.size()) return -1;
            const auto r = std::from_chars(stamp.data() + at, stamp.data() + at + n, v);
            return r.ec == std::errc{} && r.ptr == stamp.data() + at + n ? v : -1;
        };
        const int y = number(0, 4), mo = number(5, 2), d = number(8, 2), h = number(11, 2), mi = number(14, 2);
        const auto sec = stamp.size() > 18 ? text::parse_double(stamp.substr(17, stamp.size() - 18)) : std::nullopt;
        if (stamp.size() < 20 || stamp[4] != '-' || stamp[7] != '-' || stamp[10] != 'T' || stamp[13] != ':' || stamp[16] != ':' ||
            stamp.back() != 'Z' || y < 1970 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || !sec ||
            !(*sec >= 0 && *sec < 61))
            return text::make_error(file, l.number, 1, {}, "'" + buf + "' is not a time as flux dmesg prints it (YYYY-MM-DDTHH:MM:SS.ffffffZ)");
        const std::chrono::year_month_day date{std::chrono::year{y}, std::chrono::month{static_cast<unsigned>(mo)},
                                               std::chrono::day{static_cast<unsigned>(d)}};
        if (!date.ok()) return text::make_error(file, l.number, 1, {}, "'" + buf + "' is not a date");
        const std::chrono::sys_days days{date};
        out.push_back(static_cast<double>(days.time_since_epoch().count()) * 86400.0 + h * 3600.0 + mi * 60.0 + *sec);
    }
    return out;
}

/// The queue order `flux jobs -A -n -o '{id.f58} {id.dec} ...'` printed (a bundle's
/// flux_jobs.txt): the job id of each line, in order. The first field is the id in f58 (or
/// decimal); a second field, when there is one, is the same id in decimal. Blank lines are
/// skipped; any other line is refused at its field.
[[nodiscard]] inline expected<std::vector<std::uint64_t>> read_flux_order(std::string_view text, const std::string& file) {
    std::vector<std::uint64_t> out;
    for (const auto& l : text::split_lines(text)) {
        const std::string_view line = l.text;
        const std::size_t start = line.find_first_not_of(" \t");
        if (start == std::string_view::npos) continue;
        const std::size_t end = std::min(line.find_first_of(" \t", start), line.size());
        const auto id = parse_flux_jobid(line.substr(start, end - start));
        if (!id || *id == 0)
            return text::make_error(file, l.number, start + 1, "JOBID",
                                    text::quote(line.substr(start, end - start)) + " is not a Flux job id (f58 or decimal)",
                                    error_kind::shape);
        const std::size_t dec = line.find_first_not_of(" \t", end);
        if (dec != std::string_view::npos) {
            const std::size_t dec_end = std::min(line.find_first_of(" \t", dec), line.size());
            const auto same = text::parse_unsigned<std::uint64_t>(line.substr(dec, dec_end - dec));
            if (!same || *same != *id)
                return text::make_error(file, l.number, dec + 1, "JOBID",
                                        text::quote(line.substr(dec, dec_end - dec)) + " is not the job id " +
                                            std::to_string(*id) + " in decimal",
                                        error_kind::shape);
        }
        out.push_back(*id);
    }
    return out;
}

/// The files of a Flux bundle: what `mfprio queue --live --save` writes (and
/// tests/live/flux.sh) and `read_flux_bundle` reads, each what one command printed.
namespace flux_files {
inline constexpr std::string_view jobs_json = "flux_jobs.json";        ///< flux jobs -A -a --json
inline constexpr std::string_view jobs_table = "flux_jobs_table.txt";  ///< flux jobs -A -c 0 -o '{id.dec} {userid} ...'
inline constexpr std::string_view jobs_order = "flux_jobs.txt";        ///< flux jobs -A -n -o '{id.f58} ...': the queue's order
inline constexpr std::string_view plugin = "jobtap_mf_priority.json";  ///< flux jobtap query mf_priority.so
inline constexpr std::string_view jobtap_list = "jobtap_list.txt";     ///< flux jobtap list
inline constexpr std::string_view mfprio_plugin = "jobtap_mfprio_priority.json"; ///< flux jobtap query mfprio_priority.so
inline constexpr std::string_view factors = "list_factors.json";       ///< flux account list-factors --json
inline constexpr std::string_view queues = "list_queues.json";         ///< flux account list-queues --json
inline constexpr std::string_view banks = "list_banks.json";           ///< flux account list-banks --json
inline constexpr std::string_view users = "list_users.json";           ///< flux account list-users --json
inline constexpr std::string_view eventlogs = "eventlogs.json";        ///< the pending jobs' eventlogs, a line each
inline constexpr std::string_view dmesg = "flux_dmesg.txt";            ///< flux dmesg
} // namespace flux_files

/// A Flux bundle (tests/live/flux.sh writes them): the jobs, and, when the priority plugin was
/// loaded, the database it received and when. `previous` names the bundle captured before
/// (the plugin's history).
struct flux_bundle {
    std::string dir;
    std::vector<config::flux_job_row> jobs;
    std::optional<config::flux_update> update; ///< the database and its priority_update time
    bool plugin = false;                       ///< flux-accounting's plugin was loaded
    std::string previous;                      ///< the bundle before, a sibling directory
    std::size_t previous_line = 0, previous_column = 0; ///< where meta says previous=
    std::optional<std::vector<std::uint64_t>> expected_order; ///< flux_jobs.txt's order, else flux_jobs.json's
    std::vector<config::flux_cached_pair> held; ///< jobtap_mf_priority.json: the plugin's cache when captured
    std::optional<double> captured;             ///< meta's captured=: when the commands ran
    bool eventlogs = false;                     ///< eventlogs.json: the pending jobs' eventlogs
    std::optional<std::vector<double>> loads;   ///< flux_dmesg.txt: when the plugin was loaded
    /// Without priority_update=: the updates the eventlogs show (flux_passes_from_eventlogs),
    /// each taken to have sent the database the bundle holds; `update` is the last.
    std::optional<std::vector<double>> passes;
    /// jobtap_mfprio_priority.json: mfprio's own plugin was loaded, and what it reported.
    std::optional<jobtap_report> mfprio;
};

namespace detail {

/// Reads a Flux bundle's meta file (`file` in errors) into `b` (captured=, previous=) and
/// `update_time` (priority_update=); the error of its first bad line, or none.
[[nodiscard]] inline std::optional<input_error> read_flux_meta(const std::string& text, const std::string& file,
                                                               flux_bundle& b, std::optional<double>& update_time) {
    meta_key_lines meta_keys;
    for (const auto& l : text::split_lines(text)) {
        const std::size_t eq = l.text.find('=');
        if (text::trim(l.text).empty()) continue;
        if (eq == std::string_view::npos) return text::make_error(file, l.number, 1, {}, "not a key=value line");
        const std::string_view k = text::trim(l.text.substr(0, eq)), v = text::trim(l.text.substr(eq + 1));
        if (auto twice = meta_keys.repeated(k, l.number, file)) return *twice;
        if (k == "captured") {
            const auto t = text::parse_double(v);
            if (!t || *t < 0 || *t > static_cast<double>(text::max_epoch))
                return text::make_error(file, l.number, eq + 2, "captured",
                                        "'" + std::string(v) + "' is not a time in epoch seconds from 1970 to 9999");
            b.captured = *t;
        } else if (k == "priority_update") {
            update_time = text::parse_double(v);
            if (!update_time || *update_time < 0 || *update_time > static_cast<double>(text::max_epoch))
                return text::make_error(file, l.number, eq + 2, "priority_update",
                                        "'" + std::string(v) + "' is not a time in epoch seconds from 1970 to 9999");
        } else if (k == "previous") {
            if (v.empty() || v.find('/') != std::string_view::npos || v == "." || v == "..")
                return text::make_error(file, l.number, eq + 2, "previous", "'" + std::string(v) + "' is not a sibling bundle's name");
            b.previous = std::string(v);
            b.previous_line = l.number;
            b.previous_column = eq + 2;
        }
    }
    return std::nullopt;
}

} // namespace detail

/// Reads the Flux bundle in `dir` (its manifest checked as read_bundle does).
[[nodiscard]] inline expected<flux_bundle> read_flux_bundle(const std::string& dir) {
    namespace fs = std::filesystem;
    flux_bundle b;
    b.dir = dir;
    const auto path = [&](std::string_view n) { return (fs::path(dir) / n).string(); };
    auto files = read_manifest_files(dir);
    if (!files) return files.error();
    const auto text_of = [&](std::string_view n) -> const std::string* {
        for (const auto& [name, t] : *files)
            if (name == n) return &t;
        return nullptr;
    };
    const std::string* meta = text_of("meta");
    if (meta == nullptr) return text::file_error(path("meta"), {}, "not listed in the manifest", error_kind::shape);
    std::optional<double> update_time;
    if (auto e = detail::read_flux_meta(*meta, path("meta"), b, update_time)) return *e;
    std::vector<config::flux_user_row> users;
    if (const std::string* t = text_of(flux_files::users)) {
        b.plugin = true;
        auto u = flux_users_from(*t, path(flux_files::users));
        if (!u) return u.error();
        users = std::move(*u);
        config::flux_update up;
        up.db.users = users;
        const std::string* f = text_of(flux_files::factors);
        const std::string* q = text_of(flux_files::queues);
        const std::string* k = text_of(flux_files::banks);
        if (f == nullptr || q == nullptr || k == nullptr)
            return text::file_error(path("manifest"), {},
                                    "lists " + std::string(flux_files::users) + " without " + std::string(flux_files::factors) + ", " +
                                        std::string(flux_files::queues) + " and " + std::string(flux_files::banks),
                                    error_kind::shape);
        auto w = flux_factors_from(*f, path(flux_files::factors));
        if (!w) return w.error();
        auto qs = flux_queues_from(*q, path(flux_files::queues));
        if (!qs) return qs.error();
        auto bs = flux_banks_from(*k, path(flux_files::banks));
        if (!bs) return bs.error();
        up.db.weights = *w;
        up.db.queues = std::move(*qs);
        up.db.banks = std::move(*bs);
        up.time = update_time.value_or(0);
        b.update = std::move(up);
    }
    if (const std::string* t = text_of(flux_files::plugin)) {
        auto held = flux_plugin_state_from(*t, path(flux_files::plugin));
        if (!held) return held.error();
        b.held = std::move(*held);
    }
    // The jobs: `flux jobs --json`, else its -o table (what `queue --live` keeps).
    std::string_view jobs_file = flux_files::jobs_json;
    const std::string* jobs = text_of(jobs_file);
    if (jobs == nullptr) jobs = text_of(jobs_file = flux_files::jobs_table);
    if (jobs == nullptr)
        return text::file_error(path("manifest"), {},
                                "lists neither " + std::string(flux_files::jobs_json) + " nor " + std::string(flux_files::jobs_table),
                                error_kind::shape);
    auto j = read_flux_jobs(*jobs, path(jobs_file), users);
    if (!j) return j.error();
    b.jobs = std::move(*j);
    if (const std::string* t = text_of(flux_files::mfprio_plugin)) {
        auto r = read_jobtap_report(*t, path(flux_files::mfprio_plugin));
        if (!r) return r.error();
        b.mfprio = std::move(*r);
    }
    if (const std::string* t = text_of(flux_files::eventlogs)) {
        auto logs = read_flux_eventlogs(*t, path(flux_files::eventlogs));
        if (!logs) return logs.error();
        b.eventlogs = true;
        for (auto& log : *logs) {
            // An eventlog of a job flux jobs did not list (it arrived or ended between the two
            // commands) has nothing to attach to.
            for (auto& job : b.jobs)
                if (job.id == log.id) {
                    job.eventlog = true;
                    job.submit_urgency = log.submit_urgency;
                    job.events = std::move(log.events);
                    job.computed = std::move(log.computed);
                    job.computed_fairshare = std::move(log.computed_fairshare);
                    job.submit_bank = std::move(log.submit_bank);
                    job.submit_queue = std::move(log.submit_queue);
                    break;
                }
        }
    }
    if (const std::string* t = text_of(flux_files::dmesg)) {
        auto loads = read_flux_plugin_loads(*t, path(flux_files::dmesg));
        if (!loads) return loads.error();
        b.loads = std::move(*loads);
    }
    if (b.update && !update_time) {
        // No priority_update= (what `queue --live` captures): the passes the eventlogs show.
        if (!b.eventlogs)
            return text::file_error(path("meta"), "priority_update",
                                    "missing: when the plugin received the database (or eventlogs.json, which shows it)",
                                    error_kind::shape);
        b.passes = config::flux_passes_from_eventlogs(b.jobs);
        b.update->time = b.passes->empty() ? 0 : b.passes->back();
    }
    if (const std::string* t = text_of(flux_files::jobs_order)) {
        auto order = read_flux_order(*t, path(flux_files::jobs_order));
        if (!order) return order.error();
        b.expected_order = std::move(*order);
    } else {
        // The pending jobs in the order flux jobs listed them: job-list's order, which its
        // queue listing and its --json print alike.
        b.expected_order.emplace();
        for (const auto& j : b.jobs)
            if (j.pending()) b.expected_order->push_back(j.id);
    }
    return b;
}

/// A Flux bundle and the databases the plugin received up to it: its own and those of the
/// bundles its meta's `previous=` names, one after the other (siblings of `dir`).
struct flux_history {
    flux_bundle latest;
    std::vector<config::flux_update> updates;
    std::vector<config::flux_cached_pair> held; ///< the plugin's cache in the oldest bundle
    std::vector<double> loads;                  ///< when the plugin was loaded (every bundle's flux dmesg)
    std::vector<config::flux_observation> observations; ///< each bundle's jobtap query, at its capture time

    /// The plugin's history as the replay takes it.
    [[nodiscard]] config::flux_plugin_history plugin_history() const noexcept { return {loads, observations}; }
};

/// Reads the bundle in `dir` and the chain of bundles before it. A chain that loops, or a
/// previous bundle that cannot be read, is refused.
[[nodiscard]] inline expected<flux_history> read_flux_history(const std::string& dir) {
    namespace fs = std::filesystem;
    auto b = read_flux_bundle(dir);
    if (!b) return b.error();
    flux_history h;
    h.latest = std::move(*b);
    // Jobs the plugin held without data when they arrived (their eventlogs show no computation
    // at submission): the plugin had none before its first update.
    const std::vector<double> passes =
        h.latest.passes ? *h.latest.passes : config::flux_passes_from_eventlogs(h.latest.jobs);
    const bool held_without_data = std::any_of(h.latest.jobs.begin(), h.latest.jobs.end(),
                                               [&](const auto& j) { return config::detail::flux_held_at_submission(j, passes); });
    if (h.latest.update && h.latest.passes) {
        // The database as it is now, received before every submission and at every pass; but
        // where some jobs were held without data, received just before the first job the
        // plugin computed when it arrived (a memo then), if that came before the first pass.
        config::flux_update u = *h.latest.update;
        u.time = 0;
        if (held_without_data) {
            u.time = std::numeric_limits<double>::infinity();
            for (const auto& j : h.latest.jobs)
                if (config::detail::flux_computed_at_submission(j, passes))
                    u.time = std::min(u.time, j.t_submit - 0.001);
        }
        if (u.time == std::numeric_limits<double>::infinity() || (!h.latest.passes->empty() && u.time >= h.latest.passes->front()))
            u.time = -1; // none: the first pass brought the first data
        if (u.time >= 0) h.updates.push_back(u);
        for (const double t : *h.latest.passes) {
            u.time = t;
            h.updates.push_back(u);
        }
    } else if (h.latest.update) {
        h.updates.push_back(*h.latest.update);
    }
    h.held = h.latest.held;
    const auto note = [&h](const flux_bundle& x) {
        if (x.loads) h.loads.insert(h.loads.end(), x.loads->begin(), x.loads->end());
        if (x.captured && !x.held.empty()) h.observations.push_back({*x.captured, x.held});
    };
    note(h.latest);
    // A bundle's directory as an absolute path without "." or ".." or a trailing '/', so
    // that its siblings are found from `--from .` or `--from weights/.` as from `--from
    // weights` (symbolic links are kept: the siblings are those beside the name given).
    const auto located = [](const std::string& d) {
        std::error_code ec;
        fs::path p = fs::absolute(d, ec).lexically_normal();
        if (!p.has_filename()) p = p.parent_path();
        return p;
    };
    std::error_code ec;
    std::vector<fs::path> seen{fs::weakly_canonical(dir, ec)};
    std::string previous = h.latest.previous;
    std::size_t line = h.latest.previous_line, column = h.latest.previous_column;
    for (fs::path here = located(dir); !previous.empty();) {
        const fs::path p = here.parent_path() / previous;
        const std::string meta = (here / "meta").string();
        const fs::path canon = fs::weakly_canonical(p, ec);
        if (std::find(seen.begin(), seen.end(), canon) != seen.end())
            return text::make_error(meta, line, column, "previous", "the bundles' previous= lines form a loop", error_kind::reference);
        seen.push_back(canon);
        if (!fs::is_directory(p, ec))
            return text::make_error(meta, line, column, "previous",
                                    "'" + previous + "' names no bundle beside this one (" + p.string() + " is not a directory)",
                                    error_kind::reference);
        auto pb = read_flux_bundle(p.string());
        if (!pb) return pb.error();
        // (One without priority_update= whose eventlogs show no pass: no database sent yet.)
        if (pb->update && !(pb->passes && pb->passes->empty())) h.updates.push_back(std::move(*pb->update));
        note(*pb);
        h.held = std::move(pb->held);
        previous = std::move(pb->previous);
        line = pb->previous_line;
        column = pb->previous_column;
        here = p;
    }
    // flux dmesg's ring holds the same lines in successive bundles: each load once.
    std::sort(h.loads.begin(), h.loads.end());
    h.loads.erase(std::unique(h.loads.begin(), h.loads.end()), h.loads.end());
    if (h.latest.eventlogs && !h.latest.passes) {
        // An update's recorded time is when `flux account-priority-update` returned; the pass
        // it started ran about then, and the eventlogs say when: each update is moved to the
        // start of its pass, so that the jobspec-updates the pass posted come after it.
        const auto passes = config::flux_passes_from_eventlogs(h.latest.jobs);
        for (auto& u : h.updates)
            for (const double p : passes)
                if (std::abs(p - u.time) < 2.0) {
                    u.time = std::min(u.time, p);
                    break;
                }
    }
    // An update two bundles record (no update between them) was received once: the latest
    // bundle's database stands.
    for (std::size_t i = 1; i < h.updates.size();) {
        const bool seen = std::any_of(h.updates.begin(), h.updates.begin() + static_cast<std::ptrdiff_t>(i),
                                      [&](const auto& u) { return u.time == h.updates[i].time; });
        if (seen) h.updates.erase(h.updates.begin() + static_cast<std::ptrdiff_t>(i));
        else ++i;
    }
    if (h.latest.passes && !h.updates.empty() && !held_without_data) {
        // The plugin has data from its first update after it was loaded: the database the
        // bundle holds is taken as received just after the last load before the first job
        // listed (a load after that empties the tables until the next pass).
        double first = std::numeric_limits<double>::infinity();
        for (const auto& j : h.latest.jobs) first = std::min(first, j.t_submit);
        for (const double l : h.loads)
            if (l < first) h.updates.front().time = l;
    }
    return h;
}

/// What the replays of the priority plugin take of `h` (mfprio/replay/flux_plugin.hpp's
/// `flux_capture`): its latest bundle's jobs and capture time, every update and the plugin's
/// history. It views `h`, which must outlive it.
[[nodiscard]] inline config::flux_capture flux_capture_of(const flux_history& h) noexcept {
    return {.jobs = h.latest.jobs,
            .captured = h.latest.captured,
            .plugin = h.latest.plugin,
            .updates = h.updates,
            .held = h.held,
            .history = h.plugin_history()};
}

using config::flux_computed;
using config::flux_whatif_result;

/// What Flux holds now, or with `next_update` after the next priority-update
/// (`config::flux_priorities_now` over `flux_capture_of(h)`).
[[nodiscard]] inline flux_computed compute_flux_priorities(const flux_history& h, const config::flux_plugin_options& opt,
                                                           bool next_update = false) {
    return config::flux_priorities_now(flux_capture_of(h), opt, next_update);
}

/// What `flux account` edits would give (`config::flux_whatif` over `flux_capture_of(h)`).
[[nodiscard]] inline flux_whatif_result flux_whatif(const flux_history& h,
                                                    std::span<const std::pair<std::string, std::string>> changes,
                                                    const config::flux_plugin_options& opt, bool new_submissions) {
    return config::flux_whatif(flux_capture_of(h), changes, opt, new_submissions);
}

} // namespace mfprio::inputs
