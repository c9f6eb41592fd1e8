#pragma once
/// \file
/// Policy files: the text that picks a dynamic engine's factors, weights and options at run
/// time (seed 003's `load_weight_array`, with names).
///
/// Grammar, one setting per line:
///
/// ```
/// # a comment: '#' starts one anywhere on a line; blank lines are ignored
/// preset = flux-accounting    # optional, and then the first setting: start from a preset
/// fairshare = 100000          # name = weight: a term (or a new weight for a preset's term)
/// age = 1000
/// age.max_age = 7-0           # name.option = value: an option of a factor the policy uses
/// ```
///
/// - Names (factors, aliases, options, presets) compare without regard to ASCII case: a
///   letter, then letters, digits, '_' or '-'. Spaces around names, '=' and values are
///   ignored.
/// - A weight is a decimal number: an integer or not, negative or not (`1000`, `-5`, `0.5`,
///   `1e4`), of magnitude at most 2^53, so that every integer weight is exact: Slurm's uint32
///   and flux-accounting's int weights, Maui's signed ones and Slurm's fractional TRES weights
///   all fit. A weight of 0 keeps the term (reports show it) without evaluating its factor.
/// - Terms are added in the order of the file, after a preset's terms (in the preset's order).
///   A line naming a factor the preset has, under any of its names, sets that term's weight
///   in place; it keeps the preset's name for it.
/// - An option line may come before or after the weight line of its factor, but the policy
///   must use that factor. Options override a preset's.
/// - The result policy is not chosen here: it is the engine type's (`build_engine`'s
///   argument).
///
/// Errors carry the file, line, column and key: a line that is not a setting, a missing name
/// or value, an unknown factor, option or preset, a factor or option set twice in the file (a
/// name and its alias are the same factor), a weight that is not a number or is out of range,
/// `preset` after another setting, an option of a factor the policy does not use, a policy
/// with no factor, and whatever a factor's factory rejects (at the option's line). On error
/// nothing is built.

#include <charconv>
#include <cmath>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <mfprio/text/text.hpp>
#include <mfprio/core/expected.hpp>
#include <mfprio/queue/dynamic.hpp>

namespace mfprio::queue {

/// Largest magnitude of a weight in a policy file: 2^53, the last integer from which every
/// smaller one is exact in a double.
inline constexpr double max_policy_weight = 9007199254740992.0;

/// One `name.option = value` line.
struct policy_option {
    std::string key;   ///< the option's name as written
    std::string value; ///< its value, trimmed
    std::string written_key; ///< the whole key as written: `age.max_age`
    std::string file;
    std::size_t line = 0;
    std::size_t key_column = 0;   ///< column of the option's name (after the '.')
    std::size_t value_column = 0; ///< column of the value
};

/// One term of a parsed policy.
struct policy_term {
    std::string name;   ///< the term's name: the registered spelling of the name that introduced it
    std::string factor; ///< the factor's registered name (aliases resolved)
    double weight = 0;
    std::vector<policy_option> options;
    std::string file;       ///< where its weight was last set: the policy file, or "<preset NAME>"
    std::size_t line = 0;
    std::size_t column = 0; ///< column of the name on that line
};

/// A parsed policy: the terms in order of addition, their weights and options.
struct policy {
    std::string file;   ///< the file name given to the parser
    std::string preset; ///< the preset it starts from (its registered name), empty if none
    std::vector<policy_term> terms;

    /// The term whose factor is `factor` (a registered factor name, not an alias), or nullptr.
    [[nodiscard]] const policy_term* find(std::string_view factor) const noexcept {
        for (const auto& t : terms)
            if (text::iequals(t.factor, factor)) return &t;
        return nullptr;
    }
};

namespace detail {

/// What `parse_weight` found.
struct parsed_weight {
    enum class status : unsigned char { ok, not_a_number, out_of_range };
    status what = status::not_a_number;
    double value = 0;
};

/// A policy weight: `[+-]` then a decimal number (digits, optional fraction and exponent),
/// finite and at most `max_policy_weight` in magnitude.
[[nodiscard]] inline parsed_weight parse_weight(std::string_view s) noexcept {
    using st = parsed_weight::status;
    bool negative = false;
    if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
        negative = s.front() == '-';
        s.remove_prefix(1);
    }
    if (s.empty() || !(text::is_digit(s.front()) || s.front() == '.')) return {st::not_a_number, 0};
    double v = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, std::chars_format::general);
    if (ptr != s.data() + s.size()) return {st::not_a_number, 0};
    if (ec == std::errc::result_out_of_range) return {st::out_of_range, 0};
    if (ec != std::errc{}) return {st::not_a_number, 0};
    if (!(std::fabs(v) <= max_policy_weight)) return {st::out_of_range, 0};
    return {st::ok, negative ? -v : v};
}

/// A factor whose weight a policy text sets, and where.
struct policy_weight_line {
    std::string factor;  ///< registered factor name
    std::string spelled; ///< as written
    std::size_t line = 0;
};

/// An option a policy text sets, and its factor.
struct policy_option_line {
    std::string factor; ///< registered factor name
    policy_option option;
};

/// Gives each option of `options` to its factor's term in `p` (replacing an option of the
/// same key the preset set); the error of an option whose factor the policy does not use.
[[nodiscard]] inline std::optional<input_error> attach_policy_options(policy& p, const std::vector<policy_option_line>& options,
                                                                      std::string_view file) {
    using text::quote;
    for (const auto& o : options) {
        policy_term* term = nullptr;
        for (auto& t : p.terms)
            if (t.factor == o.factor) term = &t;
        if (term == nullptr)
            return text::make_error(file, o.option.line, o.option.key_column - (o.option.written_key.size() - o.option.key.size()), o.option.written_key,
                                      "option of factor " + quote(o.factor) +
                                          ", which this policy does not use (add a line '" + o.factor +
                                          " = weight')");
        bool replaced = false;
        for (auto& existing : term->options)
            if (text::iequals(existing.key, o.option.key)) {
                existing = o.option;
                replaced = true;
            }
        if (!replaced) term->options.push_back(o.option);
    }
    return std::nullopt;
}

/// Sets the weight of `factor`'s term in `p` (adding the term, named `name`, when the policy
/// has none), written in `file` at `line` and `column`.
inline void set_policy_weight(policy& p, std::string_view name, const std::string& factor, double weight,
                              std::string_view file, std::size_t line, std::size_t column) {
    policy_term* existing = nullptr;
    for (auto& t : p.terms)
        if (t.factor == factor) existing = &t;
    if (existing == nullptr) {
        p.terms.push_back({std::string(name), factor, 0.0, {}, {}, 0, 0});
        existing = &p.terms.back();
    }
    existing->weight = weight;
    existing->file = std::string(file);
    existing->line = line;
    existing->column = column;
}

template <class J, class Ctx>
[[nodiscard]] expected<policy> parse_policy_text(std::string_view text, const registry<J, Ctx>& reg,
                                                 std::string_view file, bool allow_preset) {
    using text::quote;
    policy p;
    p.file = std::string(file);

    std::vector<policy_weight_line> weights_set; // factors whose weight this text sets
    std::vector<policy_option_line> options_set;
    std::size_t first_setting = 0; // line of the first setting, 0 before it

    for (const auto& [raw, number] : text::split_lines(text)) {
        const auto fail = [&, number = number](std::size_t column, std::string_view key, std::string message) {
            return text::make_error(file, number, column, key, std::move(message));
        };
        const auto column_of = [&, raw = raw](std::string_view part) {
            return static_cast<std::size_t>(part.data() - raw.data()) + 1;
        };
        std::string_view line = raw;
        if (const std::size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
        const std::string_view whole = text::trim(line);
        if (whole.empty()) continue;
        const std::size_t eq = line.find('=');
        if (eq == std::string_view::npos)
            return fail(column_of(whole), {},
                        "expected 'name = weight', 'name.option = value' or 'preset = name', not " + quote(whole));
        const std::string_view key = text::trim(line.substr(0, eq));
        const std::string_view value = text::trim(line.substr(eq + 1));
        if (key.empty()) return fail(eq + 1, {}, "missing name before '='");
        if (value.empty()) return fail(eq + 2, key, "missing value after '='");

        if (text::iequals(key, preset_key)) {
            if (!allow_preset) return fail(column_of(key), key, "a preset cannot start from another preset");
            if (first_setting != 0)
                return fail(column_of(key), key,
                            "'preset' must be the first setting of the file (line " + std::to_string(first_setting) +
                                " comes before it)");
            const auto* pr = reg.find_preset(value);
            if (pr == nullptr)
                return fail(column_of(value), key,
                            "unknown preset " + quote(value) + " (known presets: " + reg.known_presets() + ")");
            auto base = parse_policy_text(pr->text, reg, "<preset " + pr->name + ">", false);
            if (!base) return base.error();
            p.preset = pr->name;
            p.terms = std::move(base->terms);
            first_setting = number;
            continue;
        }
        if (first_setting == 0) first_setting = number;

        if (const std::size_t dot = key.find('.'); dot != std::string_view::npos) {
            // name.option = value
            const std::string_view name = key.substr(0, dot);
            const std::string_view opt = key.substr(dot + 1);
            if (!valid_name(name))
                return fail(column_of(key), key,
                            "invalid factor name " + quote(name) +
                                " (a letter, then letters, digits, '_' or '-')");
            if (!valid_name(opt))
                return fail(column_of(opt), key,
                            "invalid option name " + quote(opt) + " (a letter, then letters, digits, '_' or '-')");
            const auto r = reg.resolve(name);
            if (!r)
                return fail(column_of(key), key,
                            "unknown factor " + quote(name) + " (known factors: " + reg.known_names() + ")");
            if (!registry<J, Ctx>::takes_option(*r.factor, opt))
                return fail(column_of(opt), key, registry<J, Ctx>::unknown_option_message(*r.factor, opt));
            for (const auto& o : options_set)
                if (o.factor == r.factor->name && text::iequals(o.option.key, opt))
                    return fail(column_of(key), key,
                                "option " + quote(opt) + " of factor " + quote(r.factor->name) +
                                    " is already set on line " + std::to_string(o.option.line));
            options_set.push_back({r.factor->name,
                                   policy_option{std::string(opt), std::string(value), std::string(key), std::string(file),
                                                 number, column_of(opt), column_of(value)}});
            continue;
        }

        // name = weight
        if (!valid_name(key))
            return fail(column_of(key), key,
                        "invalid factor name " + quote(key) + " (a letter, then letters, digits, '_' or '-')");
        const auto r = reg.resolve(key);
        if (!r)
            return fail(column_of(key), key,
                        "unknown factor " + quote(key) + " (known factors: " + reg.known_names() + ")");
        for (const auto& w : weights_set) {
            if (w.factor != r.factor->name) continue;
            if (text::iequals(w.spelled, key))
                return fail(column_of(key), key,
                            "factor " + quote(key) + " is already set on line " + std::to_string(w.line));
            return fail(column_of(key), key,
                        quote(key) + " and " + quote(w.spelled) + " are the same factor (" + quote(r.factor->name) +
                            "), already set on line " + std::to_string(w.line));
        }
        const parsed_weight w = parse_weight(value);
        if (w.what == parsed_weight::status::not_a_number)
            return fail(column_of(value), key, "the weight " + quote(value) + " is not a number");
        if (w.what == parsed_weight::status::out_of_range)
            return fail(column_of(value), key,
                        "the weight " + quote(value) + " is out of range (at most 2^53 = 9007199254740992 either way)");
        weights_set.push_back({.factor = r.factor->name, .spelled = std::string(key), .line = number});
        set_policy_weight(p, r.name, r.factor->name, w.value, file, number, column_of(key));
    }

    if (auto e = attach_policy_options(p, options_set, file)) return *e;
    if (p.terms.empty())
        return text::make_error(file, 0, 0, {},
                                  "the policy names no factor (write 'name = weight' lines, or 'preset = name')");
    return p;
}

} // namespace detail

/// Parses a policy text (see the file comment) against the factors and presets of `reg`.
/// `file` names the text in errors.
template <class J, class Ctx>
[[nodiscard]] expected<policy> parse_policy(std::string_view text, const registry<J, Ctx>& reg,
                                            std::string_view file = "<policy>") {
    return detail::parse_policy_text(text, reg, file, true);
}

/// Builds the engine of a parsed policy: each term's factor from its factory (with the term's
/// options), in order, with result policy `r`. A factory's error is reported at the line of
/// the option it names (its `key`), else at the term's weight line.
template <class J, class Ctx, class Result>
    requires result_policy<Result, J>
[[nodiscard]] expected<dynamic_engine<J, Ctx, Result>> build_engine(const policy& p, const registry<J, Ctx>& reg,
                                                                    Result r) {
    dynamic_engine<J, Ctx, Result> e(std::move(r));
    for (const auto& t : p.terms) {
        factor_options opts;
        for (const auto& o : t.options) opts.set(o.key, o.value);
        auto f = reg.make(t.factor, opts);
        if (!f) {
            input_error err = f.error();
            const policy_option* at = nullptr;
            for (const auto& o : t.options)
                if (text::iequals(o.key, err.key)) at = &o;
            if (at != nullptr) {
                err.file = at->file;
                err.line = at->line;
                err.column = at->value_column;
                err.key = at->written_key;
            } else {
                err.file = t.file;
                err.line = t.line;
                err.column = t.column;
                err.key = t.name;
            }
            return err;
        }
        e.add(t.name, std::shared_ptr<const dynamic_factor<J, Ctx>>(std::move(*f)), t.weight);
    }
    return e;
}

/// Parses a policy text and builds its engine: `load_policy(text, builtin_registry(),
/// flux::flux_result{}, "site.policy")`.
template <class J, class Ctx, class Result>
    requires result_policy<Result, J>
[[nodiscard]] expected<dynamic_engine<J, Ctx, Result>> load_policy(std::string_view text, const registry<J, Ctx>& reg,
                                                                   Result r, std::string_view file = "<policy>") {
    auto p = parse_policy(text, reg, file);
    if (!p) return p.error();
    return build_engine(*p, reg, std::move(r));
}

/// Reads the policy file at `path` and builds its engine (errors name the path).
template <class J, class Ctx, class Result>
    requires result_policy<Result, J>
[[nodiscard]] expected<dynamic_engine<J, Ctx, Result>> load_policy_file(const std::string& path,
                                                                        const registry<J, Ctx>& reg, Result r) {
    auto text = text::read_text_file(path);
    if (!text) return text.error();
    return load_policy(*text, reg, std::move(r), path);
}

/// The engine of preset `name` of `reg` alone (`--policy fcfs`).
template <class J, class Ctx, class Result>
    requires result_policy<Result, J>
[[nodiscard]] expected<dynamic_engine<J, Ctx, Result>> load_preset(std::string_view name, const registry<J, Ctx>& reg,
                                                                   Result r) {
    const auto* pr = reg.find_preset(name);
    if (pr == nullptr)
        return text::make_error({}, 0, 0, name,
                                  "unknown preset " + text::quote(name) + " (known presets: " +
                                      reg.known_presets() + ")");
    return load_policy(pr->text, reg, std::move(r), "<preset " + pr->name + ">");
}

} // namespace mfprio::queue
