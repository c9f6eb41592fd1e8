#pragma once
/// \file
/// mfprio's own Flux jobtap plugin (examples/flux_priority) seen from outside: what
/// `flux jobtap query mfprio_priority.so` prints (the policy in force and the numbers of its
/// last refresh, `config::jobtap_keys`), read into a `jobtap_report`, and the priority the
/// plugin gives each pending job of `flux jobs`, computed from them (`jobtap_priorities`).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>

#include <mfprio/core/expected.hpp>
#include <mfprio/inputs/squeue_json.hpp>
#include <mfprio/model/flux_jobtap.hpp>
#include <mfprio/queue/builtin.hpp>
#include <mfprio/queue/policy.hpp>
#include <mfprio/read/scontrol.hpp>
#include <mfprio/replay/flux_plugin.hpp>
#include <mfprio/text/text.hpp>

namespace mfprio::inputs {

/// What the plugin reported.
struct jobtap_report {
    std::string policy;       ///< as configured: a file or a preset's name
    std::string policy_text;  ///< the policy in force
    std::string policy_error; ///< why the last changed policy was refused ("" if it was not)
    bool reloaded = false;    ///< the query loaded a changed policy (and refreshed)
    std::uint64_t generation = 0;
    double refreshed = 0;         ///< when the last refresh read its numbers (epoch seconds)
    config::jobtap_inputs inputs; ///< the last refresh's numbers
    std::uint64_t jobs = 0;       ///< jobs of the last reprioritization
    double seconds = 0;           ///< its wall time
    std::uint64_t calls = 0;      ///< priority computations so far
    double call_seconds = 0;      ///< their time inside the plugin
};

namespace detail {

/// Reads `jobtap_report` from the query's JSON; the reader's state for errors at the value.
class jobtap_report_reader {
public:
    jobtap_report_reader(std::string_view text, std::string_view file)
        : body_(config::detail::without_bom(text)), bom_(text.size() - body_.size()), copy_(body_), file_(file), lc_{body_} {}

    [[nodiscard]] expected<jobtap_report> read() {
        jobtap_report r;
        if (auto e = parser_.iterate(copy_).get(doc_)) return invalid(e);
        iterating_ = true;
        simdjson::ondemand::object root;
        if (auto e = doc_.get_object().get(root))
            return e == simdjson::INCORRECT_TYPE ? fail("not `flux jobtap query mfprio_priority.so` output: not an object")
                                                 : invalid(e);
        bool has_text = false, has_now = false;
        for (auto f : root) {
            std::string_view key;
            if (auto e = f.unescaped_key().get(key)) return invalid(e);
            simdjson::ondemand::value v;
            if (auto e = f.value().get(v)) return invalid(e);
            namespace k = config::jobtap_keys;
            std::optional<input_error> err;
            if (key == k::policy) err = string(v, key, r.policy);
            else if (key == k::policy_text) {
                has_text = true;
                err = string(v, key, r.policy_text);
            } else if (key == k::policy_error) err = string(v, key, r.policy_error);
            else if (key == k::reloaded) err = boolean(v, key, r.reloaded);
            else if (key == k::generation) err = whole(v, key, r.generation, UINT64_MAX);
            else if (key == k::now) {
                has_now = true;
                std::uint64_t t = 0;
                err = whole(v, key, t, static_cast<std::uint64_t>(text::max_epoch));
                r.inputs.now = static_cast<std::int64_t>(t);
            } else if (key == k::nodes || key == k::cores) {
                std::uint64_t n = 0;
                err = whole(v, key, n, UINT32_MAX);
                (key == k::nodes ? r.inputs.nodes : r.inputs.cores) = static_cast<std::uint32_t>(n);
            } else if (key == k::jobs) err = whole(v, key, r.jobs, UINT64_MAX);
            else if (key == k::calls) err = whole(v, key, r.calls, UINT64_MAX);
            else if (key == k::seconds) err = number(v, key, r.seconds);
            else if (key == k::refreshed) err = number(v, key, r.refreshed);
            else if (key == k::call_seconds) err = number(v, key, r.call_seconds);
            else if (key == k::queues || key == k::banks || key == k::associations || key == k::weights)
                err = table(v, key, r.inputs);
            if (err) return *err;
        }
        if (!has_text || !has_now)
            return text::make_error(file_, 1, 1, {},
                                    std::string("not `flux jobtap query mfprio_priority.so` output: \"") +
                                        (has_text ? config::jobtap_keys::now : config::jobtap_keys::policy_text) + "\" is missing",
                                    error_kind::shape);
        return r;
    }

private:
    [[nodiscard]] input_error fail(std::string why, const char* at = nullptr) {
        const char* loc = at;
        if (iterating_ && (loc != nullptr || !doc_.current_location().get(loc)) && loc >= copy_.data() &&
            loc <= copy_.data() + body_.size())
            lc_.advance(static_cast<std::size_t>(loc - copy_.data()));
        return text::make_error(file_, lc_.line, lc_.column() + (lc_.line == 1 ? bom_ : 0), {}, std::move(why));
    }
    [[nodiscard]] input_error invalid(simdjson::error_code e) {
        if (const auto off = json_failure_offset(body_, e)) {
            lc_.advance(*off);
            iterating_ = false;
        }
        return fail(std::string("not valid JSON: ") + simdjson::error_message(e));
    }
    [[nodiscard]] const char* here() {
        const char* at = nullptr;
        return doc_.current_location().get(at) ? nullptr : at;
    }
    [[nodiscard]] std::optional<input_error> string(simdjson::ondemand::value& v, std::string_view key, std::string& out) {
        const char* at = here();
        std::string_view s;
        if (auto e = v.get_string().get(s)) return e == simdjson::INCORRECT_TYPE ? fail("\"" + std::string(key) + "\" is not a string", at) : invalid(e);
        out = std::string(s);
        return std::nullopt;
    }
    [[nodiscard]] std::optional<input_error> boolean(simdjson::ondemand::value& v, std::string_view key, bool& out) {
        const char* at = here();
        if (auto e = v.get_bool().get(out)) return e == simdjson::INCORRECT_TYPE ? fail("\"" + std::string(key) + "\" is not true or false", at) : invalid(e);
        return std::nullopt;
    }
    [[nodiscard]] std::optional<input_error> whole(simdjson::ondemand::value& v, std::string_view key, std::uint64_t& out,
                                                   std::uint64_t max) {
        const char* at = here();
        if (v.get_uint64().get(out) || out > max)
            return fail("\"" + std::string(key) + "\" is not a whole number from 0 to " + std::to_string(max), at);
        return std::nullopt;
    }
    [[nodiscard]] std::optional<input_error> number(simdjson::ondemand::value& v, std::string_view key, double& out) {
        const char* at = here();
        if (v.get_double().get(out)) return fail("\"" + std::string(key) + "\" is not a number", at);
        return std::nullopt;
    }
    /// queues: [name, integer priority]; banks: [name, priority]; associations: [userid,
    /// bank, fairshare, default bank].
    [[nodiscard]] std::optional<input_error> table(simdjson::ondemand::value& v, std::string_view key, config::jobtap_inputs& in) {
        namespace k = config::jobtap_keys;
        const bool named_int = key == k::queues || key == k::weights;
        const std::string shape = key == k::queues    ? "[name, priority (an integer)]"
                                  : key == k::weights ? "[factor, weight (an integer)]"
                                  : key == k::banks   ? "[name, priority]"
                                                      : "[user id, bank, fair-share, default bank]";
        const auto bad = [&](const char* at) { return fail("each entry of \"" + std::string(key) + "\" is " + shape, at); };
        simdjson::ondemand::array rows;
        if (auto e = v.get_array().get(rows)) return e == simdjson::INCORRECT_TYPE ? bad(here()) : invalid(e);
        for (auto row : rows) {
            const char* at = here();
            simdjson::ondemand::array cells;
            if (row.get_array().get(cells)) return bad(at);
            std::string_view name, other;
            std::int64_t prio = 0;
            double real = 0;
            std::uint64_t uid = 0;
            std::size_t n = 0;
            for (auto c : cells) {
                const char* cat = here();
                bool ok = true;
                if (key == k::associations) {
                    if (n == 0) ok = !c.get_uint64().get(uid) && uid <= UINT32_MAX;
                    else if (n == 1) ok = !c.get_string().get(name);
                    else if (n == 2) ok = !c.get_double().get(real) && real >= 0 && real <= 1;
                    else if (n == 3) ok = !c.get_string().get(other);
                } else if (n == 0) {
                    ok = !c.get_string().get(name);
                } else if (n == 1) {
                    ok = named_int ? !c.get_int64().get(prio) : !c.get_double().get(real);
                }
                if (!ok) return bad(cat);
                ++n;
            }
            if (n != (key == k::associations ? 4u : 2u)) return bad(at);
            if (key == k::queues) in.queues.emplace_back(std::string(name), prio);
            else if (key == k::weights) in.weights.emplace_back(std::string(name), prio);
            else if (key == k::banks) in.banks.emplace_back(std::string(name), real);
            else in.associations.push_back({static_cast<std::uint32_t>(uid), std::string(name), real, std::string(other)});
        }
        return std::nullopt;
    }

    std::string_view body_;
    std::size_t bom_;
    simdjson::padded_string copy_;
    std::string file_;
    line_counter lc_;
    simdjson::ondemand::parser parser_;
    simdjson::ondemand::document doc_;
    bool iterating_ = false;
};

} // namespace detail

/// Reads `flux jobtap query mfprio_priority.so`'s output (`file` names it in errors: line and
/// column of the value that is wrong).
[[nodiscard]] inline expected<jobtap_report> read_jobtap_report(std::string_view text, std::string_view file) {
    return detail::jobtap_report_reader(text, file).read();
}

/// The policy of the plugin's report as an engine (`config::jobtap_engine` with the report's
/// numbers): `policy` when given (a file, or a preset), else the text in force the report
/// holds.
[[nodiscard]] inline expected<queue::flux_dynamic_engine> jobtap_engine(const jobtap_report& r,
                                                                        const std::string& policy = {}) {
    if (policy.empty())
        return config::jobtap_engine(r.policy_text, "<policy in force, flux jobtap query mfprio_priority.so>", r.inputs);
    auto text = config::jobtap_policy_text(policy);
    if (!text) return text.error();
    return config::jobtap_engine(*text, config::jobtap_policy_name(policy), r.inputs);
}

/// What the plugin knows of a job, from its row of `flux jobs`.
[[nodiscard]] inline config::jobtap_job jobtap_job_of(const config::flux_job_row& j) {
    return {j.userid, j.urgency, j.t_submit, j.queue, j.bank, j.nnodes, j.ncores, j.duration};
}

/// The priority the plugin gives each pending job of `jobs` (others: none), from the numbers of
/// `model` (the report's) and `engine`.
[[nodiscard]] inline std::vector<std::optional<std::int64_t>> jobtap_priorities(std::span<const config::flux_job_row> jobs,
                                                                                const config::jobtap_model& model,
                                                                                const queue::flux_dynamic_engine& engine) {
    std::vector<std::optional<std::int64_t>> out(jobs.size());
    const flux::context ctx = model.context();
    for (std::size_t k = 0; k < jobs.size(); ++k) {
        const auto& j = jobs[k];
        if (!j.pending()) continue;
        out[k] = engine.priority(model.job(jobtap_job_of(j)), ctx).value;
    }
    return out;
}

} // namespace mfprio::inputs
