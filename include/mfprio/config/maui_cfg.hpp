#pragma once
/// \file
/// maui.cfg: the weights, caps, options and credentials of Maui's job prioritization
/// (reference B1-B5; seed 002).
///
/// File syntax:
/// - A line is `NAME VALUE...`, the pieces separated by spaces or tabs. `#` starts a comment
///   that runs to the end of the line; blank lines are skipped; a CR before the LF is
///   dropped. Errors give the 1-based line and column (in bytes) of the piece at fault.
/// - Parameter names are matched case-insensitively; values of keywords (TRUE, DEDICATEDPS,
///   QUEUEPOLICY...) too. Parameters mfprio does not use are ignored with the rest of their
///   line (maui.cfg has hundreds: RMCFG, ADMIN1, SERVERHOST...), and so is any parameter
///   written with an index other than the `*CFG` ones (`QUEUETIMEWEIGHT[batch] 5`: a
///   per-partition weight, which Maui 3.3 never reads, B1).
/// - A parameter mfprio uses needs exactly one value (two for none of them): no value, or
///   text after the value, is an error. So is `NAME=VALUE` for a used NAME (Maui separates
///   name and value by white space; the line would otherwise be silently ignored).
/// - The same parameter given twice: the last one wins, as in Maui (both are checked).
/// - Any malformed value of a used parameter is an error naming the file, line, column of
///   the value, the parameter as written and what is wrong. On an error nothing but the
///   error is returned.
///
/// Weights and caps:
/// - Every `weight_key` of `maui::components` and `maui::subcomponents` takes a signed
///   64-bit integer (Maui's weights are `long`; negatives are legal: `WALLTIMEWEIGHT -1`).
///   Aliases: `SERVWEIGHT` (SERVICEWEIGHT), `TARGWEIGHT` (TARGETWEIGHT), the old fair-share
///   names `UFSWEIGHT` `GFSWEIGHT` `AFSWEIGHT` `QFSWEIGHT` `CFSWEIGHT` (FSUSERWEIGHT ...
///   FSCLASSWEIGHT) and the seed's usage names `USAGECONSUMEDWEIGHT`
///   `USAGEREMAININGWEIGHT` `USAGEPERCENTWEIGHT` `USAGEEXECUTIONTIMEWEIGHT`
///   (CONSUMEDWEIGHT ...).
/// - Every `cap_key` takes a number (a cap <= 0 means no cap); aliases `SERVCAP`, `TARGCAP`.
///
/// Options:
/// - `XFMINWCLIMIT`: a Maui time (see `parse_maui_time`); a negative value (`-1`) means no
///   minimum and is stored as 0.
/// - `FSPOLICY`: NONE, DEDICATEDPS, DEDICATEDPES or UTILIZEDPS; TRUE/ON/YES mean
///   DEDICATEDPS and FALSE/OFF/NO mean NONE. A trailing `%` (`DEDICATEDPS%`) turns on
///   `options::fs_percent_based`; without it the flag is off.
/// - `FSINTERVAL`: a Maui time greater than 0. `FSDEPTH`: an integer from 1 to 24 (Maui
///   3.3's limit). `FSDECAY`: a number greater than 0 and at most 1.
/// - `JOBPRIOACCRUALPOLICY`: ALWAYS, QUEUEPOLICY or FULLPOLICY.
/// - `REJECTNEGPRIOJOBS`, `ENABLENEGJOBPRIORITY`: booleans (TRUE/FALSE, ON/OFF, YES/NO, 1/0).
/// - `PREEMPTPRIOMARGIN`: a signed integer.
///
/// Credentials: `USERCFG[name]`, `GROUPCFG[name]`, `ACCOUNTCFG[name]`, `QOSCFG[name]` and
/// `CLASSCFG[name]` followed by `ATTR=VALUE` pieces.
/// - The name between the brackets is non-empty and kept as written (Maui's credential
///   names are case-sensitive); `DEFAULT` is kept like any other name. Nothing may follow
///   the `]` in the same piece.
/// - Attribute names are case-insensitive. PRIORITY (signed integer) and FSTARGET (see
///   `parse_fs_target`) apply to every kind; QTWEIGHT and XFWEIGHT (signed integers),
///   QTTARGET (a Maui time) and XFTARGET (a number >= 0) to QOSCFG only; CLASSWEIGHT (signed
///   integer) to GROUPCFG only. A known attribute on another kind is an error. Other
///   attributes (MAXJOB, QLIST, QDEF, FLAGS, PLIST...) are ignored, but every piece must be
///   `ATTR=VALUE` with a non-empty value, and a line needs at least one.
/// - Several lines for the same name merge (a later attribute overrides an earlier one);
///   the credential keeps its place (order of first appearance) and the line it first
///   appeared on.

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <mfprio/core/expected.hpp>
#include <mfprio/config/text.hpp>
#include <mfprio/maui/model.hpp>

namespace mfprio::config {

/// One credential of maui.cfg: its name, what its `*CFG[name]` lines set, and where it
/// first appeared.
struct maui_named_credential {
    std::string name;      ///< the name between the brackets, as written
    maui::credential cred; ///< PRIORITY, FSTARGET and the QOS/group attributes
    std::size_t line = 0;  ///< line of its first `*CFG[name]` line
};

/// What mfprio uses of a maui.cfg file, with Maui 3.3's code defaults (reference B4.6).
struct maui_cfg {
    std::string file;        ///< the file name given to the reader
    maui::weights weights{}; ///< component and subcomponent weights and caps
    maui::options opts{};    ///< XFMINWCLIMIT, FSPOLICY, JOBPRIOACCRUALPOLICY, ...
    maui::fs_config fs{};    ///< FSINTERVAL, FSDEPTH, FSDECAY
    /// The credentials of each kind (indexed by `maui::index(cred_kind)`), in order of first
    /// appearance in the file.
    std::array<std::vector<maui_named_credential>, maui::cred_kind_count> creds;

    /// Index in `creds[index(k)]` of the credential `name` of kind `k` (exact,
    /// case-sensitive comparison, as Maui compares credential names), or nullopt.
    [[nodiscard]] std::optional<std::size_t> find(maui::cred_kind k,
                                                  std::string_view name) const noexcept {
        const auto& list = creds[maui::index(k)];
        for (std::size_t i = 0; i < list.size(); ++i)
            if (list[i].name == name) return i;
        return std::nullopt;
    }
};

/// A Maui time `[[[DD:]HH:]MM:]SS` in seconds: "90" is 90, "2:00:00" is 7200,
/// "1:00:00:00" is 86400. Each field is one or more decimal digits; fields are not limited
/// to their clock range ("0:90:00" is 5400), as Maui adds them up. nullopt for anything
/// else (signs, empty fields, more than four fields, INFINITY) or a total above 2^63-1.
[[nodiscard]] inline std::optional<std::int64_t> parse_maui_time(std::string_view s) noexcept {
    constexpr std::int64_t unit[] = {1, 60, 3600, 86400}; // seconds, minutes, hours, days
    constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max();
    std::size_t fields = 1;
    for (const char c : s)
        if (c == ':') ++fields;
    if (s.empty() || fields > 4) return std::nullopt;
    std::int64_t total = 0;
    std::size_t field = fields; // counts down: the last field is seconds
    std::size_t start = 0;
    while (field > 0) {
        --field;
        std::size_t end = s.find(':', start);
        if (end == std::string_view::npos) end = s.size();
        const auto n = parse_unsigned<std::uint64_t>(s.substr(start, end - start));
        if (!n) return std::nullopt;
        const std::int64_t mult = unit[field];
        if (*n > static_cast<std::uint64_t>(max / mult)) return std::nullopt;
        const std::int64_t add = static_cast<std::int64_t>(*n) * mult;
        if (add > max - total) return std::nullopt;
        total += add;
        start = end + 1;
    }
    return total;
}

/// An FSTARGET value: a number of percent, optionally followed by one suffix that sets the
/// mode (reference B2): none = target, `+` floor, `-` ceiling, `^` absolute cap, `%`
/// relative cap. "25+" is {25, floor}. A value of 0 parses (the model then treats it as
/// "not set"). nullopt if malformed or negative.
[[nodiscard]] inline std::optional<maui::fs_target> parse_fs_target(std::string_view s) noexcept {
    maui::fs_target t;
    t.mode = maui::fs_target_mode::target;
    if (!s.empty()) {
        switch (s.back()) {
        case '+': t.mode = maui::fs_target_mode::floor; break;
        case '-': t.mode = maui::fs_target_mode::ceiling; break;
        case '^': t.mode = maui::fs_target_mode::cap_absolute; break;
        case '%': t.mode = maui::fs_target_mode::cap_relative; break;
        default: break;
        }
        if (t.mode != maui::fs_target_mode::target) s.remove_suffix(1);
    }
    const auto v = parse_double(s);
    if (!v || *v < 0) return std::nullopt;
    t.value = *v == 0 ? 0.0 : *v; // no negative zero
    return t;
}

namespace detail {

/// One white-space separated piece of a maui.cfg line and its 1-based column.
struct maui_token {
    std::string_view text;
    std::size_t column = 0;
};

/// The pieces of one line, the comment (from '#') removed.
[[nodiscard]] inline std::vector<maui_token> maui_tokens(std::string_view line) {
    if (const std::size_t hash = line.find('#'); hash != std::string_view::npos)
        line = line.substr(0, hash);
    std::vector<maui_token> out;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && is_space(line[i])) ++i;
        if (i >= line.size()) break;
        const std::size_t start = i;
        while (i < line.size() && !is_space(line[i])) ++i;
        out.push_back({line.substr(start, i - start), start + 1});
    }
    return out;
}

/// Old or short names of weights and caps, with the canonical name each stands for.
inline constexpr std::pair<std::string_view, std::string_view> maui_aliases[] = {
    {"SERVWEIGHT", "SERVICEWEIGHT"},
    {"TARGWEIGHT", "TARGETWEIGHT"},
    {"SERVCAP", "SERVICECAP"},
    {"TARGCAP", "TARGETCAP"},
    {"UFSWEIGHT", "FSUSERWEIGHT"},
    {"GFSWEIGHT", "FSGROUPWEIGHT"},
    {"AFSWEIGHT", "FSACCOUNTWEIGHT"},
    {"QFSWEIGHT", "FSQOSWEIGHT"},
    {"CFSWEIGHT", "FSCLASSWEIGHT"},
    {"USAGECONSUMEDWEIGHT", "CONSUMEDWEIGHT"},
    {"USAGEREMAININGWEIGHT", "REMAININGWEIGHT"},
    {"USAGEPERCENTWEIGHT", "PERCENTWEIGHT"},
    {"USAGEEXECUTIONTIMEWEIGHT", "EXECUTIONTIMEWEIGHT"},
};

/// Where a weight or cap parameter goes.
struct maui_weight_slot {
    bool is_cap = false;       ///< a cap (double) rather than a weight (integer)
    bool is_component = false; ///< a component rather than a subcomponent
    std::size_t index = 0;     ///< index in the matching array of `maui::weights`
};

/// The weight or cap parameter `name` (case-insensitive, aliases resolved), if it is one.
[[nodiscard]] constexpr std::optional<maui_weight_slot> maui_weight_key(std::string_view name) noexcept {
    for (const auto& [alias, canonical] : maui_aliases)
        if (iequals(name, alias)) {
            name = canonical;
            break;
        }
    for (std::size_t i = 0; i < maui::component_count; ++i) {
        if (iequals(name, maui::components[i].weight_key)) return maui_weight_slot{false, true, i};
        if (iequals(name, maui::components[i].cap_key)) return maui_weight_slot{true, true, i};
    }
    for (std::size_t i = 0; i < maui::subcomponent_count; ++i) {
        if (iequals(name, maui::subcomponents[i].weight_key)) return maui_weight_slot{false, false, i};
        if (iequals(name, maui::subcomponents[i].cap_key)) return maui_weight_slot{true, false, i};
    }
    return std::nullopt;
}

/// The options mfprio reads besides weights and caps.
inline constexpr std::string_view maui_option_keys[] = {
    "XFMINWCLIMIT",      "FSPOLICY",          "FSINTERVAL",           "FSDEPTH",
    "FSDECAY",           "JOBPRIOACCRUALPOLICY", "REJECTNEGPRIOJOBS", "ENABLENEGJOBPRIORITY",
    "PREEMPTPRIOMARGIN"};

/// True if `name` is a parameter mfprio reads (a weight, cap or option; not a `*CFG`).
[[nodiscard]] constexpr bool is_maui_scalar_key(std::string_view name) noexcept {
    if (maui_weight_key(name)) return true;
    for (const auto k : maui_option_keys)
        if (iequals(name, k)) return true;
    return false;
}

/// The credential kind whose `*CFG` key is `name` (case-insensitive), if any.
[[nodiscard]] constexpr std::optional<maui::cred_kind> maui_cfg_kind(std::string_view name) noexcept {
    for (std::size_t i = 0; i < maui::cred_kind_count; ++i)
        if (iequals(name, maui::cred_cfg_keys[i])) return static_cast<maui::cred_kind>(i);
    return std::nullopt;
}

/// A maui.cfg boolean: TRUE/FALSE, ON/OFF, YES/NO, 1/0 (any case).
[[nodiscard]] constexpr std::optional<bool> maui_bool(std::string_view v) noexcept {
    if (iequals(v, "TRUE") || iequals(v, "ON") || iequals(v, "YES") || v == "1") return true;
    if (iequals(v, "FALSE") || iequals(v, "OFF") || iequals(v, "NO") || v == "0") return false;
    return std::nullopt;
}

/// Reads maui.cfg text into a `maui_cfg`, line by line.
class maui_reader {
public:
    explicit maui_reader(std::string_view file) : file_(file) { cfg_.file = std::string(file); }

    [[nodiscard]] expected<maui_cfg> run(std::string_view text) {
        for (const text_line& line : split_lines(text)) {
            const auto tokens = maui_tokens(line.text);
            if (tokens.empty()) continue;
            if (auto r = parse_line(tokens, line.number); !r) return r.error();
        }
        return std::move(cfg_);
    }

private:
    std::string_view file_;
    maui_cfg cfg_;

    [[nodiscard]] input_error at(std::size_t line, std::size_t column, std::string_view key,
                                 std::string message) const {
        return make_error(file_, line, column, key, std::move(message));
    }

    [[nodiscard]] expected<bool> parse_line(const std::vector<maui_token>& tokens,
                                            std::size_t line) {
        const maui_token& name = tokens.front();
        const std::size_t bracket = name.text.find('[');
        const std::string_view base = name.text.substr(0, bracket);
        if (const auto kind = maui_cfg_kind(base)) return cred_line(*kind, tokens, line);
        if (bracket != std::string_view::npos) return true; // indexed parameter: not read
        if (const std::size_t eq = name.text.find('='); eq != std::string_view::npos) {
            const std::string_view before = name.text.substr(0, eq);
            if (is_maui_scalar_key(before) || maui_cfg_kind(before))
                return at(line, name.column, before,
                          "Maui parameters are written NAME VALUE (a space, not '='), got " +
                              quote(name.text));
            return true;
        }
        if (!is_maui_scalar_key(name.text)) return true; // not used by mfprio
        if (tokens.size() < 2)
            return at(line, name.column, name.text, std::string(name.text) + " needs a value");
        if (tokens.size() > 2)
            return at(line, tokens[2].column, name.text,
                      "unexpected text " + quote(tokens[2].text) + " after the value");
        return scalar(name.text, tokens[1], line);
    }

    [[nodiscard]] expected<bool> scalar(std::string_view key, const maui_token& value,
                                        std::size_t line) {
        const std::string_view v = value.text;
        auto bad = [&](std::string message) { return at(line, value.column, key, std::move(message)); };
        auto time_value = [&]() -> expected<std::int64_t> {
            const auto t = parse_maui_time(v);
            if (!t) return bad("expected a Maui time [[[DD:]HH:]MM:]SS, got " + quote(v));
            return *t;
        };
        auto bool_value = [&](bool& out) -> expected<bool> {
            const auto b = maui_bool(v);
            if (!b) return bad("expected TRUE or FALSE (or ON/OFF, YES/NO, 1/0), got " + quote(v));
            out = *b;
            return true;
        };

        if (const auto slot = maui_weight_key(key)) {
            maui::weights& w = cfg_.weights;
            if (slot->is_cap) {
                const auto d = parse_double(v);
                if (!d) return bad("expected a number, got " + quote(v));
                if (slot->is_component) w.component_cap[slot->index] = *d;
                else w.sub_cap[slot->index] = *d;
            } else {
                const auto n = parse_signed<std::int64_t>(v);
                if (!n) return bad("expected a signed integer, got " + quote(v));
                if (slot->is_component) w.component_weight[slot->index] = *n;
                else w.sub_weight[slot->index] = *n;
            }
            return true;
        }
        if (iequals(key, "XFMINWCLIMIT")) {
            const bool negative = !v.empty() && v.front() == '-'; // no minimum
            const auto t = parse_maui_time(negative ? v.substr(1) : v);
            if (!t) return bad("expected a Maui time [[[DD:]HH:]MM:]SS or -1, got " + quote(v));
            cfg_.opts.xf_min_wclimit = negative ? 0.0 : static_cast<double>(*t);
        } else if (iequals(key, "FSPOLICY")) {
            std::string_view word = v;
            const bool percent = !word.empty() && word.back() == '%';
            if (percent) word.remove_suffix(1);
            static constexpr std::pair<std::string_view, maui::fs_metric> names[] = {
                {"NONE", maui::fs_metric::none},
                {"DEDICATEDPS", maui::fs_metric::dedicated_ps},
                {"DEDICATEDPES", maui::fs_metric::dedicated_pes},
                {"UTILIZEDPS", maui::fs_metric::utilized_ps},
                {"TRUE", maui::fs_metric::dedicated_ps},
                {"ON", maui::fs_metric::dedicated_ps},
                {"YES", maui::fs_metric::dedicated_ps},
                {"FALSE", maui::fs_metric::none},
                {"OFF", maui::fs_metric::none},
                {"NO", maui::fs_metric::none}};
            for (const auto& [n, metric] : names)
                if (iequals(word, n)) {
                    cfg_.opts.fs_policy = metric;
                    cfg_.opts.fs_percent_based = percent;
                    return true;
                }
            return bad("expected NONE, DEDICATEDPS, DEDICATEDPES or UTILIZEDPS (optionally "
                       "followed by '%'), or TRUE/FALSE, got " + quote(v));
        } else if (iequals(key, "FSINTERVAL")) {
            auto t = time_value();
            if (!t) return t.error();
            if (*t <= 0) return bad("FSINTERVAL must be greater than 0, got " + quote(v));
            cfg_.fs.interval = *t;
        } else if (iequals(key, "FSDEPTH")) {
            const auto n = parse_signed<std::int64_t>(v);
            if (!n) return bad("expected an integer from 1 to 24, got " + quote(v));
            if (*n < 1) return bad("FSDEPTH must be at least 1, got " + quote(v));
            if (static_cast<std::uint64_t>(*n) > maui::max_fs_depth)
                return bad("FSDEPTH " + std::string(v) + " is above Maui's limit of " +
                           std::to_string(maui::max_fs_depth) + " fair-share windows");
            cfg_.fs.depth = static_cast<std::size_t>(*n);
        } else if (iequals(key, "FSDECAY")) {
            const auto d = parse_double(v);
            if (!d) return bad("expected a number greater than 0 and at most 1, got " + quote(v));
            if (!(*d > 0 && *d <= 1))
                return bad("FSDECAY must be greater than 0 and at most 1, got " + quote(v));
            cfg_.fs.decay = *d;
        } else if (iequals(key, "JOBPRIOACCRUALPOLICY")) {
            if (iequals(v, "ALWAYS")) cfg_.opts.accrual = maui::accrual_policy::always;
            else if (iequals(v, "QUEUEPOLICY")) cfg_.opts.accrual = maui::accrual_policy::queuepolicy;
            else if (iequals(v, "FULLPOLICY")) cfg_.opts.accrual = maui::accrual_policy::fullpolicy;
            else return bad("expected ALWAYS, QUEUEPOLICY or FULLPOLICY, got " + quote(v));
        } else if (iequals(key, "REJECTNEGPRIOJOBS")) {
            return bool_value(cfg_.opts.reject_negative);
        } else if (iequals(key, "ENABLENEGJOBPRIORITY")) {
            return bool_value(cfg_.opts.enable_negative);
        } else if (iequals(key, "PREEMPTPRIOMARGIN")) {
            const auto n = parse_signed<std::int64_t>(v);
            if (!n) return bad("expected a signed integer, got " + quote(v));
            cfg_.opts.preempt_prio_margin = *n;
        }
        return true;
    }

    [[nodiscard]] expected<bool> cred_line(maui::cred_kind kind,
                                           const std::vector<maui_token>& tokens,
                                           std::size_t line) {
        const maui_token& head = tokens.front();
        const std::string_view h = head.text;
        const std::string_view cfg_key = maui::cred_cfg_keys[maui::index(kind)];
        const std::size_t open = h.find('[');
        if (open == std::string_view::npos)
            return at(line, head.column, h,
                      "expected " + std::string(cfg_key) + "[name] (the credential name in brackets)");
        const std::size_t close = h.find(']', open);
        if (close == std::string_view::npos)
            return at(line, head.column, h, "missing ']' after the name in " + quote(h));
        const std::string_view name = h.substr(open + 1, close - open - 1);
        if (name.empty())
            return at(line, head.column, h, "empty credential name in " + quote(h));
        if (close + 1 < h.size())
            return at(line, head.column + close + 1, h,
                      "unexpected text " + quote(h.substr(close + 1)) + " after ']'");
        if (tokens.size() < 2)
            return at(line, head.column, h, std::string(h) + " needs at least one ATTR=VALUE");

        // Check the whole line before changing anything.
        maui::credential cred;
        const auto found = cfg_.find(kind, name);
        if (found) cred = cfg_.creds[maui::index(kind)][*found].cred;
        for (std::size_t i = 1; i < tokens.size(); ++i)
            if (auto r = attribute(kind, h, tokens[i], line, cred); !r) return r;

        auto& list = cfg_.creds[maui::index(kind)];
        if (found) list[*found].cred = cred;
        else list.push_back({std::string(name), cred, line});
        return true;
    }

    [[nodiscard]] expected<bool> attribute(maui::cred_kind kind, std::string_view head,
                                           const maui_token& token, std::size_t line,
                                           maui::credential& cred) const {
        const std::string_view t = token.text;
        const std::size_t eq = t.find('=');
        if (eq == std::string_view::npos || eq == 0)
            return at(line, token.column, head, "expected ATTR=VALUE, got " + quote(t));
        const std::string_view attr = t.substr(0, eq);
        const std::string_view v = t.substr(eq + 1);
        const std::string key = std::string(head) + ' ' + std::string(attr);
        const std::size_t value_column = token.column + eq + 1;
        auto bad = [&](std::string message) { return at(line, value_column, key, std::move(message)); };
        if (v.empty()) return bad(std::string(attr) + " has an empty value");
        auto only = [&](maui::cred_kind k) -> std::optional<input_error> {
            if (kind == k) return std::nullopt;
            return at(line, token.column, key,
                      std::string(attr) + " applies to " +
                          std::string(maui::cred_cfg_keys[maui::index(k)]) + " only");
        };
        auto integer = [&](std::int64_t& out) -> expected<bool> {
            const auto n = parse_signed<std::int64_t>(v);
            if (!n) return bad("expected a signed integer, got " + quote(v));
            out = *n;
            return true;
        };

        if (iequals(attr, "PRIORITY")) return integer(cred.priority);
        if (iequals(attr, "FSTARGET")) {
            const auto target = parse_fs_target(v);
            if (!target)
                return bad("expected a percentage >= 0 with an optional suffix +, -, ^ or % "
                           "(25, 25+, 25-, 25^, 25%), got " + quote(v));
            cred.target = *target;
            return true;
        }
        if (iequals(attr, "QTWEIGHT") || iequals(attr, "XFWEIGHT")) {
            if (auto e = only(maui::cred_kind::qos)) return *e;
            return integer(iequals(attr, "QTWEIGHT") ? cred.qt_weight : cred.xf_weight);
        }
        if (iequals(attr, "QTTARGET")) {
            if (auto e = only(maui::cred_kind::qos)) return *e;
            const auto s = parse_maui_time(v);
            if (!s) return bad("expected a Maui time [[[DD:]HH:]MM:]SS, got " + quote(v));
            cred.qt_target = static_cast<double>(*s);
            return true;
        }
        if (iequals(attr, "XFTARGET")) {
            if (auto e = only(maui::cred_kind::qos)) return *e;
            const auto d = parse_double(v);
            if (!d || *d < 0) return bad("expected a number >= 0, got " + quote(v));
            cred.xf_target = *d;
            return true;
        }
        if (iequals(attr, "CLASSWEIGHT")) {
            if (auto e = only(maui::cred_kind::group)) return *e;
            return integer(cred.class_weight);
        }
        return true; // MAXJOB, QLIST, QDEF, FLAGS, PLIST...: not used by mfprio
    }
};

} // namespace detail

/// Parses maui.cfg text (see the file comment for the rules). `file_name` names the text
/// in errors and in `maui_cfg::file`.
[[nodiscard]] inline expected<maui_cfg> parse_maui_cfg(std::string_view text,
                                                       std::string_view file_name = "<string>") {
    detail::maui_reader reader(file_name);
    return reader.run(text);
}

/// Reads and parses the maui.cfg file at `path`; "cannot open file" if it cannot be read.
[[nodiscard]] inline expected<maui_cfg> read_maui_cfg(const std::string& path) {
    auto text = read_text_file(path);
    if (!text) return text.error();
    return parse_maui_cfg(*text, path);
}

} // namespace mfprio::config
