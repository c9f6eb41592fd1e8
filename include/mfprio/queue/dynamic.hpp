#pragma once
/// \file
/// The runtime-configured engine of seed 003's "Making It Generic": a list of (name, factor,
/// weight) terms read at run time, with the compile-time engine's API (`score`, `priority`,
/// `explain`, `batch`) and its arithmetic, so that both give the same bits for the same
/// factors, weights and order.
///
/// - `dynamic_factor<J, Ctx>`: a factor behind a virtual interface. `factor_adapter` wraps any
///   compile-time factor policy (and its block hook, when it has one).
/// - `factor_options`: the `name.option = value` settings of one factor in a policy file.
/// - `registry<J, Ctx>`: factor names (and aliases) to factories, plus named presets (policy
///   texts). A scheduler's own factors register here next to the library's.
/// - `dynamic_engine<J, Ctx, Result>`: the weighted sum over the terms, in order, from 0.0,
///   under a result policy fixed by the engine's type.
///
/// The per-job path (`score`, `priority`) makes one virtual call per term. `batch` makes one
/// virtual call per term per chunk of `chunk_size` jobs: each factor fills a column for the
/// chunk (through its block hook when it has one), then the column is weighted and added to
/// the chunk's sums, term after term. Every job's sum thus sees the same additions, in the same
/// order, as `score` gives it. Policy files are parsed by `queue/policy.hpp`; the built-in
/// registries are in `queue/builtin.hpp`.

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <mfprio/text/text.hpp>
#include <mfprio/core/assert.hpp>
#include <mfprio/core/engine.hpp>
#include <mfprio/core/expected.hpp>
#include <mfprio/core/factor.hpp>
#include <mfprio/core/result.hpp>

namespace mfprio::queue {

// ---------------------------------------------------------------- factors

/// A factor for jobs `J` in context `Ctx` chosen at run time. `evaluate` is the factor of one
/// job; `evaluate_block` fills `out[i]` with the factor of `jobs[i]` for a span of any length,
/// with exactly the bits `evaluate` gives (the default calls `evaluate` job by job; override it
/// to hoist per-pass work out of the loop). Implementations are immutable once built: the
/// engine calls them from `const` members, possibly from several threads.
template <class J, class Ctx>
class dynamic_factor {
public:
    virtual ~dynamic_factor() = default;

    /// The factor's own name (a compile-time factor's `F::name`). An engine's term may be named
    /// otherwise (an alias, or the policy file's spelling of it).
    [[nodiscard]] virtual std::string_view name() const noexcept = 0;

    /// The factor of one job.
    [[nodiscard]] virtual double evaluate(const J& j, const Ctx& c) const noexcept = 0;

    /// The factors of a span of jobs into `out` (at least as long), each exactly what
    /// `evaluate` returns.
    virtual void evaluate_block(std::span<const J> jobs, const Ctx& c, std::span<double> out) const noexcept {
        MFPRIO_ASSERT(out.size() >= jobs.size());
        for (std::size_t i = 0; i < jobs.size(); ++i) out[i] = evaluate(jobs[i], c);
    }

    /// True when the factor is +0.0 or -0.0 for every job in context `c`
    /// (`idle_aware_factor`): a batch then skips a term of finite weight. False by default.
    [[nodiscard]] virtual bool idle(const Ctx&) const noexcept { return false; }

    /// What the factor computes once per batch from the context (a prepared block hook's
    /// tables, say), or null when it has nothing to prepare. May throw `std::bad_alloc`.
    [[nodiscard]] virtual std::shared_ptr<const void> prepare(const Ctx&) const { return nullptr; }

    /// `evaluate_block` with the state `prepare` returned for this batch's context (null:
    /// as `evaluate_block(jobs, c, out)`). Same values, bit for bit.
    virtual void evaluate_prepared(const std::shared_ptr<const void>& state, std::span<const J> jobs, const Ctx& c,
                                   std::span<double> out) const noexcept {
        (void)state;
        evaluate_block(jobs, c, out);
    }

protected:
    dynamic_factor() = default;
    dynamic_factor(const dynamic_factor&) = default;
    dynamic_factor& operator=(const dynamic_factor&) = default;
};

/// A compile-time factor policy `F` as a `dynamic_factor`. `evaluate_block` uses `F`'s block
/// hook for the whole blocks of `block_size` jobs of the span (preparing once per call when
/// the hook is a prepared one) and the call operator for the rest, so the values are those
/// the compile-time engine computes, bit for bit.
template <class F, class J, class Ctx>
    requires factor_policy<F, J, Ctx>
class factor_adapter final : public dynamic_factor<J, Ctx> {
public:
    factor_adapter() requires std::default_initializable<F> = default;
    explicit factor_adapter(F f) : factor_(std::move(f)) {}

    [[nodiscard]] std::string_view name() const noexcept override { return F::name; }

    [[nodiscard]] double evaluate(const J& j, const Ctx& c) const noexcept override { return factor_(j, c); }

    void evaluate_block(std::span<const J> jobs, const Ctx& c, std::span<double> out) const noexcept override {
        evaluate_prepared(nullptr, jobs, c, out);
    }

    [[nodiscard]] bool idle(const Ctx& c) const noexcept override {
        if constexpr (idle_aware_factor<F, Ctx>) return factor_.idle(c);
        else return false;
    }

    /// With a prepared block hook: the hook's state, held for the batch.
    [[nodiscard]] std::shared_ptr<const void> prepare(const Ctx& c) const override {
        if constexpr (prepared_block_factor_policy<F, J, Ctx>) {
            using state_type = std::remove_cvref_t<decltype(factor_.prepare(c))>;
            return std::make_shared<const state_type>(factor_.prepare(c));
        } else {
            return nullptr;
        }
    }

    void evaluate_prepared(const std::shared_ptr<const void>& state, std::span<const J> jobs, const Ctx& c,
                           std::span<double> out) const noexcept override {
        MFPRIO_ASSERT(out.size() >= jobs.size());
        const std::size_t n = jobs.size();
        std::size_t done = 0;
        if constexpr (prepared_block_factor_policy<F, J, Ctx>) {
            using state_type = std::remove_cvref_t<decltype(factor_.prepare(c))>;
            if (n >= block_size) {
                const auto run = [&](const state_type& st) noexcept {
                    for (; done + block_size <= n; done += block_size)
                        factor_.block(st, std::span<const J, block_size>(jobs.data() + done, block_size), c,
                                      std::span<double, block_size>(out.data() + done, block_size));
                };
                if (state != nullptr) run(*static_cast<const state_type*>(state.get()));
                else run(factor_.prepare(c)); // no batch state: prepare for this call
            }
        } else if constexpr (block_factor_policy<F, J, Ctx>) {
            for (; done + block_size <= n; done += block_size)
                factor_.block(std::span<const J, block_size>(jobs.data() + done, block_size), c,
                              std::span<double, block_size>(out.data() + done, block_size));
        }
        for (; done < n; ++done) out[done] = factor_(jobs[done], c);
    }

    /// The wrapped factor policy.
    [[nodiscard]] const F& factor() const noexcept { return factor_; }

private:
    F factor_;
};

/// `f` as a heap-allocated `dynamic_factor<J, Ctx>`: `make_dynamic_factor<J, Ctx>(age_factor{3600})`.
template <class J, class Ctx, class F>
    requires factor_policy<F, J, Ctx>
[[nodiscard]] std::unique_ptr<dynamic_factor<J, Ctx>> make_dynamic_factor(F f) {
    return std::make_unique<factor_adapter<F, J, Ctx>>(std::move(f));
}

// ---------------------------------------------------------------- options

/// One `name.option = value` setting of a factor.
struct factor_option {
    std::string key;   ///< the option's name, without the factor's
    std::string value; ///< its value, trimmed
};

/// The options of one factor in a policy file, handed to its factory. Keys compare without
/// regard to ASCII case. The typed readers return the fallback when the option is absent, and
/// an `input_error` whose `key` is the option's name when its value is bad (the policy parser
/// adds the file, line and column).
class factor_options {
public:
    factor_options() = default;

    /// Sets `key` to `value`, replacing an earlier value of the same key.
    void set(std::string_view key, std::string_view value) {
        for (auto& o : options_)
            if (text::iequals(o.key, key)) {
                o.value = std::string(value);
                return;
            }
        options_.push_back({std::string(key), std::string(value)});
    }

    /// The value of `key`, or nullptr when it is not set.
    [[nodiscard]] const std::string* find(std::string_view key) const noexcept {
        for (const auto& o : options_)
            if (text::iequals(o.key, key)) return &o.value;
        return nullptr;
    }

    [[nodiscard]] bool contains(std::string_view key) const noexcept { return find(key) != nullptr; }
    [[nodiscard]] bool empty() const noexcept { return options_.empty(); }
    [[nodiscard]] std::size_t size() const noexcept { return options_.size(); }
    [[nodiscard]] std::span<const factor_option> entries() const noexcept { return options_; }

    /// A finite number (`3600`, `-0.5`, `1e3`).
    [[nodiscard]] expected<double> number(std::string_view key, double fallback) const {
        const std::string* v = find(key);
        if (v == nullptr) return fallback;
        if (const auto d = text::parse_double(*v)) return *d;
        return error(key, "expected a finite number, not " + text::quote(*v));
    }

    /// A whole number in [lo, hi].
    [[nodiscard]] expected<std::int64_t> integer(std::string_view key, std::int64_t fallback, std::int64_t lo,
                                                 std::int64_t hi) const {
        const std::string* v = find(key);
        if (v == nullptr) return fallback;
        const auto i = text::parse_signed<std::int64_t>(*v);
        if (!i || *i < lo || *i > hi)
            return error(key, "expected a whole number from " + std::to_string(lo) + " to " + std::to_string(hi) +
                                  ", not " + text::quote(*v));
        return *i;
    }

    /// A yes/no value: `yes`, `true`, `on`, `1` or `no`, `false`, `off`, `0` (any case).
    [[nodiscard]] expected<bool> boolean(std::string_view key, bool fallback) const {
        const std::string* v = find(key);
        if (v == nullptr) return fallback;
        for (const std::string_view t : {"yes", "true", "on", "1"})
            if (text::iequals(*v, t)) return true;
        for (const std::string_view f : {"no", "false", "off", "0"})
            if (text::iequals(*v, f)) return false;
        return error(key, "expected yes or no, not " + text::quote(*v));
    }

    /// An `input_error` about option `key` (for factories' own checks).
    [[nodiscard]] static input_error error(std::string_view key, std::string message) {
        return text::make_error({}, 0, 0, key, std::move(message));
    }

private:
    std::vector<factor_option> options_;
};

// ---------------------------------------------------------------- registry

/// True for a name a registry accepts for a factor, an alias or a preset: an ASCII letter,
/// then letters, digits, '_' or '-' (`age`, `wait_time`, `flux-accounting`).
[[nodiscard]] constexpr bool valid_name(std::string_view s) noexcept {
    if (s.empty()) return false;
    const auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
    if (!letter(s.front())) return false;
    for (const char c : s)
        if (!(letter(c) || text::is_digit(c) || c == '_' || c == '-')) return false;
    return true;
}

/// The key of a policy file that names a preset: no factor may be called so.
inline constexpr std::string_view preset_key = "preset";

/// Factor names to factories for jobs `J` in context `Ctx`, aliases of those names, and named
/// presets (policy texts, see `queue/policy.hpp`).
///
/// - Names are looked up without regard to ASCII case (policy files are written by people, and
///   Slurm's configuration keys are case-insensitive too); a term keeps the spelling the name
///   was registered with.
/// - Factors and aliases share one namespace; presets have their own. Every `add`, `alias`
///   and `add_preset` returns false, and changes nothing, when the name is taken (in any case),
///   is not a `valid_name`, is "preset", or (for an alias) names no factor.
/// - A factor declares the options it takes (`name.option = value` lines); the policy parser
///   rejects any other. Its factory gets the options set in the policy and may still reject a
///   value, returning an `input_error` whose `key` is the option's name.
/// - A factor may declare what it reads of a job, as bits whose meaning the job type's code
///   gives (`reads`: `F::reads` of a compile-time factor that has one); a caller filling jobs
///   field by field then fills only what a policy's factors read. Undeclared: every bit.
/// - Registries are built once and then only read: lookups are `const` and may run in
///   parallel.
template <class J, class Ctx>
class registry {
public:
    using factor_type = dynamic_factor<J, Ctx>;
    using factor_ptr = std::unique_ptr<factor_type>;
    /// Builds a factor from its options.
    using factory = std::function<expected<factor_ptr>(const factor_options&)>;

    /// What a factor that does not say reads of a job: everything.
    static constexpr std::uint64_t reads_everything = ~std::uint64_t{0};

    /// A registered factor.
    struct entry {
        std::string name;                 ///< its name as registered
        std::vector<std::string> options; ///< the options it takes
        factory make;
        std::uint64_t reads = reads_everything; ///< what it reads of a job (see the class comment)
    };

    /// A registered preset: a policy text.
    struct preset {
        std::string name;
        std::string text;
    };

    /// The factor a name stands for and the name's registered spelling (an alias's own).
    struct resolved {
        const entry* factor = nullptr;
        std::string_view name{};
        explicit operator bool() const noexcept { return factor != nullptr; }
    };

    /// Registers a factory taking the given options, whose factors read `reads` of a job.
    [[nodiscard]] bool add(std::string_view name, factory make, std::vector<std::string> options = {},
                           std::uint64_t reads = reads_everything) {
        if (!make || !name_free(name)) return false;
        entries_.push_back({.name = std::string(name), .options = std::move(options), .make = std::move(make), .reads = reads});
        return true;
    }

    /// Registers a copy of the compile-time factor `prototype` (default-constructed unless
    /// given), taking no options: `reg.add<slurm::fairshare_factor>("fairshare")`.
    template <class F>
        requires factor_policy<F, J, Ctx>
    [[nodiscard]] bool add(std::string_view name, F prototype = F{}) {
        return add(name, factory([p = std::move(prototype)](const factor_options&) -> expected<factor_ptr> {
            return factor_ptr(std::make_unique<factor_adapter<F, J, Ctx>>(p));
        }), {}, reads_of<F>());
    }

    /// Registers a compile-time factor `F` configured from its options by `make`, a callable
    /// `(const factor_options&) -> expected<F>`:
    /// `reg.add_configured<age_factor>("age", {"max_age"}, [](const factor_options& o) ...)`.
    template <class F, class Make>
        requires factor_policy<F, J, Ctx> && std::is_invocable_r_v<expected<F>, const Make&, const factor_options&>
    [[nodiscard]] bool add_configured(std::string_view name, std::vector<std::string> options, Make make) {
        return add(name, factory([m = std::move(make)](const factor_options& o) -> expected<factor_ptr> {
            expected<F> f = m(o);
            if (!f) return f.error();
            return factor_ptr(std::make_unique<factor_adapter<F, J, Ctx>>(std::move(*f)));
        }), std::move(options), reads_of<F>());
    }

    /// Makes `name` another name for the factor `target` (itself a factor or an alias).
    [[nodiscard]] bool alias(std::string_view name, std::string_view target) {
        const resolved t = resolve(target);
        if (!t || !name_free(name)) return false;
        aliases_.push_back({std::string(name), static_cast<std::size_t>(t.factor - entries_.data())});
        return true;
    }

    /// Registers a preset: a policy text that a policy file starting with `preset = name`
    /// begins from (it may not name a preset itself).
    [[nodiscard]] bool add_preset(std::string_view name, std::string text) {
        if (!valid_name(name) || find_preset(name) != nullptr) return false;
        presets_.push_back({std::string(name), std::move(text)});
        return true;
    }

    /// The factor `name` (or an alias of it) stands for; empty when there is none.
    [[nodiscard]] resolved resolve(std::string_view name) const noexcept {
        for (const auto& e : entries_)
            if (text::iequals(e.name, name)) return {&e, e.name};
        for (const auto& a : aliases_)
            if (text::iequals(a.name, name)) return {&entries_[a.target], a.name};
        return {};
    }

    /// The factor registered under `name` or an alias of it, or nullptr.
    [[nodiscard]] const entry* find(std::string_view name) const noexcept { return resolve(name).factor; }

    /// The preset `name`, or nullptr.
    [[nodiscard]] const preset* find_preset(std::string_view name) const noexcept {
        for (const auto& p : presets_)
            if (text::iequals(p.name, name)) return &p;
        return nullptr;
    }

    /// Whether `factor` takes option `key`.
    [[nodiscard]] static bool takes_option(const entry& factor, std::string_view key) noexcept {
        for (const auto& o : factor.options)
            if (text::iequals(o, key)) return true;
        return false;
    }

    /// Builds the factor `name` with `options`: an error when the name is unknown, an option is
    /// not one it takes, or its factory rejects them.
    [[nodiscard]] expected<factor_ptr> make(std::string_view name, const factor_options& options = {}) const {
        const resolved r = resolve(name);
        if (!r) return text::make_error({}, 0, 0, name, "unknown factor " + text::quote(name));
        for (const auto& o : options.entries())
            if (!takes_option(*r.factor, o.key))
                return text::make_error({}, 0, 0, o.key, unknown_option_message(*r.factor, o.key));
        expected<factor_ptr> f = r.factor->make(options);
        if (f && *f == nullptr)
            return text::make_error({}, 0, 0, name, "the factory of " + text::quote(r.factor->name) +
                                                         " built nothing");
        return f;
    }

    /// "unknown option 'x' of factor 'age' (it takes: max_age)".
    [[nodiscard]] static std::string unknown_option_message(const entry& factor, std::string_view key) {
        std::string m = "unknown option " + text::quote(key) + " of factor " +
                        text::quote(factor.name);
        if (factor.options.empty()) return m + " (it takes none)";
        m += " (it takes: ";
        for (std::size_t i = 0; i < factor.options.size(); ++i) m += (i ? ", " : "") + factor.options[i];
        return m + ")";
    }

    /// The registered factors, in order of registration.
    [[nodiscard]] std::span<const entry> factors() const noexcept { return entries_; }
    /// The registered presets, in order of registration.
    [[nodiscard]] std::span<const preset> presets() const noexcept { return presets_; }

    /// Every name a policy may use, factors then aliases, comma-separated (for messages).
    [[nodiscard]] std::string known_names() const {
        std::string out;
        for (const auto& e : entries_) out += (out.empty() ? "" : ", ") + e.name;
        for (const auto& a : aliases_) out += (out.empty() ? "" : ", ") + a.name;
        return out.empty() ? std::string("none") : out;
    }

    /// Every preset name, comma-separated (for messages).
    [[nodiscard]] std::string known_presets() const {
        std::string out;
        for (const auto& p : presets_) out += (out.empty() ? "" : ", ") + p.name;
        return out.empty() ? std::string("none") : out;
    }

private:
    /// `F::reads` where the factor type declares it, else `reads_everything`.
    template <class F>
    static constexpr std::uint64_t reads_of() noexcept {
        if constexpr (requires { F::reads; }) return static_cast<std::uint64_t>(F::reads);
        else return reads_everything;
    }

    struct alias_entry {
        std::string name;
        std::size_t target = 0;
    };

    [[nodiscard]] bool name_free(std::string_view name) const noexcept {
        return valid_name(name) && !text::iequals(name, preset_key) && !resolve(name);
    }

    std::vector<entry> entries_;
    std::vector<alias_entry> aliases_;
    std::vector<preset> presets_;
};

// ---------------------------------------------------------------- engine

/// One term of a dynamic engine: its name (a report's column heading), its factor and its
/// weight as the double the engine multiplies by.
template <class J, class Ctx>
struct dynamic_term {
    std::string name;
    std::shared_ptr<const dynamic_factor<J, Ctx>> factor;
    double weight = 0;
};

/// A job's breakdown by a dynamic engine: one line per term (names viewing the engine's
/// terms: valid while the engine lives unchanged), the sum and the priority.
template <class Output>
struct dynamic_explanation {
    std::vector<term_explanation> terms;
    double score = 0;  ///< the weighted sum, in the engine's order of addition
    Output priority{}; ///< the result policy's output
};

/// A weighted sum of terms chosen at run time, with result policy `Result` (fixed by the type:
/// a policy file chooses factors and weights, not the result). Terms are added in order,
/// starting from 0.0, as `factor x weight` then `sum + that`; a term whose weight is 0 is not
/// evaluated and adds nothing. That is `mfprio::engine`'s arithmetic: an engine of each kind
/// built from the same factors, weights (as doubles) and order gives the same bits from
/// `score`, `priority`, `explain` and `batch`.
template <class J, class Ctx, class Result>
    requires result_policy<Result, J>
class dynamic_engine {
public:
    using job_type = J;
    using context_type = Ctx;
    using result_type = Result;
    using output_type = typename Result::output_type;
    using factor_type = dynamic_factor<J, Ctx>;
    using term_type = dynamic_term<J, Ctx>;

    /// Jobs per chunk of `batch`: each term's factor is evaluated for this many jobs per
    /// virtual call (a whole number of blocks, so that block hooks see whole blocks).
    static constexpr std::size_t chunk_size = 8 * block_size;

    dynamic_engine() requires std::default_initializable<Result> = default;
    explicit dynamic_engine(Result result) : result_(std::move(result)) {}

    /// Appends a term (after every term already there).
    void add(std::string name, std::shared_ptr<const factor_type> factor, double weight) {
        MFPRIO_ASSERT(factor != nullptr);
        terms_.push_back({.name = std::move(name), .factor = std::move(factor), .weight = weight});
    }

    /// Appends a term of compile-time factor `f`, named `F::name`.
    template <class F>
        requires factor_policy<F, J, Ctx>
    void add(F f, double weight) {
        add(std::string(F::name), std::make_shared<const factor_adapter<F, J, Ctx>>(std::move(f)), weight);
    }

    /// The term called `name` (any ASCII case), or nullptr.
    [[nodiscard]] const term_type* find(std::string_view name) const noexcept {
        for (const auto& t : terms_)
            if (text::iequals(t.name, name)) return &t;
        return nullptr;
    }

    /// Sets the weight of the term called `name`; false when there is none.
    bool set_weight(std::string_view name, double weight) noexcept {
        for (auto& t : terms_)
            if (text::iequals(t.name, name)) {
                t.weight = weight;
                return true;
            }
        return false;
    }

    [[nodiscard]] std::span<const term_type> terms() const noexcept { return terms_; }
    [[nodiscard]] std::size_t size() const noexcept { return terms_.size(); }
    [[nodiscard]] bool empty() const noexcept { return terms_.empty(); }
    /// The terms' names, in order (views of the terms' names).
    [[nodiscard]] std::vector<std::string_view> names() const {
        std::vector<std::string_view> out;
        out.reserve(terms_.size());
        for (const auto& t : terms_) out.emplace_back(t.name);
        return out;
    }

    [[nodiscard]] const Result& result() const noexcept { return result_; }
    void set_result(Result r) { result_ = std::move(r); }

    /// The raw weighted sum for one job.
    [[nodiscard]] double score(const J& j, const Ctx& c) const noexcept {
        double sum = 0.0;
        for (const auto& t : terms_) {
            if (t.weight == 0) continue;
            const double contribution = t.factor->evaluate(j, c) * t.weight;
            sum = sum + contribution;
        }
        return sum;
    }

    /// The job's priority as the result policy makes it (the sum is computed only if the
    /// policy asks for it).
    [[nodiscard]] output_type priority(const J& j, const Ctx& c) const noexcept {
        return result_(j, [&]() noexcept { return score(j, c); });
    }

    /// Every term's raw factor (0 when its weight is 0), weight and contribution, the sum and
    /// the priority.
    [[nodiscard]] dynamic_explanation<output_type> explain(const J& j, const Ctx& c) const {
        dynamic_explanation<output_type> out;
        out.terms.resize(terms_.size());
        out.score = explain_into(j, c, out.terms);
        const double sum = out.score;
        out.priority = result_(j, [sum]() noexcept { return sum; });
        return out;
    }

    /// `explain` without allocating: the lines into `lines` (at least `size()` long); returns
    /// the sum.
    double explain_into(const J& j, const Ctx& c, std::span<term_explanation> lines) const noexcept {
        MFPRIO_ASSERT(lines.size() >= terms_.size());
        double sum = 0.0;
        for (std::size_t k = 0; k < terms_.size(); ++k) {
            const auto& t = terms_[k];
            term_explanation line{.name = t.name, .factor = 0.0, .weight = t.weight, .contribution = 0.0};
            if (t.weight != 0) {
                line.factor = t.factor->evaluate(j, c);
                line.contribution = line.factor * t.weight;
            }
            lines[k] = line;
            sum = sum + line.contribution;
        }
        return sum;
    }

    /// Priorities of a span of jobs into `out` (at least as long), each exactly what
    /// `priority` gives. Each term's factor prepares once for the batch (`prepare`: the
    /// only allocation, one state per prepared term; if it fails, the factor prepares per
    /// chunk instead). Then chunk by chunk of `chunk_size` jobs: every term with a non-zero
    /// weight fills a column with one `evaluate_block` call, which is weighted and added to
    /// the chunk's sums; then the result policy finishes each sum. A term whose factor is
    /// idle in `c` and whose weight is finite adds +-0.0 to every sum, which changes none:
    /// it is skipped for the whole batch, as `mfprio::engine` skips it.
    void batch(std::span<const J> jobs, const Ctx& c, std::span<output_type> out) const noexcept {
        batch(plan_for(c, jobs.size() > chunk_size), jobs, c, out);
    }

    /// What `batch` works out once for a context before it takes any job: which terms are
    /// idle, and each term's prepared state (see `batch`). A caller that cuts a pass into
    /// chunks (`queue::pass_builder`) makes one with `prepare_batch` and gives it to every
    /// chunk's `batch`. Valid for the context it was made from while the tables that context
    /// views are unchanged; read-only during a batch, so threads may share one.
    struct batch_plan {
        std::vector<unsigned char> idle;                 ///< by term (empty: none known idle)
        std::vector<std::shared_ptr<const void>> states; ///< by term (empty: prepare per chunk)
    };

    /// The plan of a batch in context `c` (its states prepared whatever the batch's size).
    /// A template only so that callers write `prepare_batch<J>(c)` for this engine as for
    /// `mfprio::engine` (`planned_batch_engine`); J is the engine's own job type.
    template <class JJ = J>
        requires std::same_as<JJ, J>
    [[nodiscard]] batch_plan prepare_batch(const Ctx& c) const noexcept {
        return plan_for(c, true);
    }

    /// `batch` with a plan made by `prepare_batch` from `c`.
    void batch(const batch_plan& plan, std::span<const J> jobs, const Ctx& c, std::span<output_type> out) const noexcept {
        MFPRIO_ASSERT(out.size() >= jobs.size());
        for_each_chunk(plan, jobs, c, [&](std::size_t base, std::size_t n, const double* sums) noexcept {
            for (std::size_t i = 0; i < n; ++i) {
                const double s = sums[i];
                out[base + i] = result_(jobs[base + i], [s]() noexcept { return s; });
            }
        });
    }

    /// Raw sums of a span of jobs into `out` (at least as long), each exactly what `score`
    /// gives.
    void batch_scores(std::span<const J> jobs, const Ctx& c, std::span<double> out) const noexcept {
        MFPRIO_ASSERT(out.size() >= jobs.size());
        for_each_chunk(plan_for(c, jobs.size() > chunk_size), jobs, c,
                       [&](std::size_t base, std::size_t n, const double* sums) noexcept {
                           std::copy(sums, sums + n, out.begin() + static_cast<std::ptrdiff_t>(base));
                       });
    }

private:
    /// Which terms are idle in `c` (none when there is no memory to say: skipping is only
    /// faster), and, when `with_states`, one state per term (null: nothing to prepare; no
    /// states at all when there is no memory: each chunk then prepares its own).
    [[nodiscard]] batch_plan plan_for(const Ctx& c, bool with_states) const noexcept {
        batch_plan p;
        try {
            p.idle.resize(terms_.size());
            for (std::size_t k = 0; k < terms_.size(); ++k) {
                const double w = terms_[k].weight;
                p.idle[k] = w != 0 && w - w == 0.0 && terms_[k].factor->idle(c) ? 1 : 0;
            }
        } catch (...) {
            p.idle.clear();
        }
        if (with_states) {
            try {
                p.states.resize(terms_.size());
                for (std::size_t k = 0; k < terms_.size(); ++k)
                    if (!skipped(p, k)) p.states[k] = terms_[k].factor->prepare(c);
            } catch (...) {
                p.states.clear();
            }
        }
        return p;
    }

    /// Whether term `k` adds nothing in a batch with plan `p` (weight 0, or idle).
    [[nodiscard]] bool skipped(const batch_plan& p, std::size_t k) const noexcept {
        return terms_[k].weight == 0 || (!p.idle.empty() && p.idle[k]);
    }

    /// Calls `fn(base, n, sums)` for each chunk of `jobs` (`n` jobs from `base`), `sums` being
    /// their weighted sums.
    template <class Fn>
    void for_each_chunk(const batch_plan& plan, std::span<const J> jobs, const Ctx& c, Fn&& fn) const noexcept {
        double sums[chunk_size];
        double column[chunk_size];
        const auto& states = plan.states;
        static const std::shared_ptr<const void> none;
        for (std::size_t base = 0; base < jobs.size(); base += chunk_size) {
            const std::size_t n = std::min(chunk_size, jobs.size() - base);
            std::fill(sums, sums + n, 0.0);
            for (std::size_t k = 0; k < terms_.size(); ++k) {
                const auto& t = terms_[k];
                if (skipped(plan, k)) continue;
                t.factor->evaluate_prepared(states.empty() ? none : states[k], jobs.subspan(base, n), c,
                                            std::span<double>(column, n));
                const double w = t.weight;
                for (std::size_t i = 0; i < n; ++i) {
                    const double contribution = column[i] * w;
                    sums[i] = sums[i] + contribution;
                }
            }
            fn(base, n, static_cast<const double*>(sums));
        }
    }

    Result result_{};
    std::vector<term_type> terms_;
};

} // namespace mfprio::queue
