#pragma once
/// \file
/// The model of mfprio's Flux jobtap plugin (examples/flux_priority): what one of its passes
/// reads besides the policy, and how a job as flux-core's job manager hands it over becomes a
/// `flux::job`. The plugin builds it from the instance and flux-accounting's database at each
/// refresh; `mfprio queue --from/--live` builds the same from what the plugin reports
/// (`flux jobtap query mfprio_priority.so`) and what `flux jobs` prints, so that both compute
/// a job's priority from the same numbers.
///
/// A job becomes a `flux::job` as follows:
/// - age: `submit_time` and `accrue_time` are the submission time `t_submit`, rounded down to
///   a whole second; the pass's `now` is a whole second too (the refresh's);
/// - size: `min_nodes` is the node count the jobspec asks for (0 when it names no nodes) and
///   `cpus` its core count (slots x cores per slot; 0 when unknown: a whole-node request),
///   as flux-core's job-list counts them (`flux jobs`' nnodes and ncores); the instance's
///   totals are the nodes and cores of its resource set;
/// - `time_limit`: the jobspec's duration in minutes, rounded up (no_val32 when it has none),
///   for `jobsize.small_relative_to_time`;
/// - fair-share: flux-accounting's `fairshare` of the association (user id, bank), the bank
///   being the job's (attributes.system.bank) or else the user's default bank; a pair the
///   database does not hold has none (factor 0);
/// - queue and bank priorities: flux-accounting's queue_table and bank_table (a name the
///   tables do not hold: factor 0);
/// - urgency: as Flux holds it.
///
/// The policy is a policy file over `queue::jobtap_registry()`; `jobtap_engine` builds it.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <mfprio/core/expected.hpp>
#include <mfprio/core/job.hpp>
#include <mfprio/flux/context.hpp>
#include <mfprio/flux/job.hpp>
#include <mfprio/flux/presets.hpp>
#include <mfprio/queue/builtin.hpp>
#include <mfprio/queue/policy.hpp>
#include <mfprio/text/text.hpp>

namespace mfprio::config {

/// The keys of `flux jobtap query mfprio_priority.so`'s answer, written by the plugin and read
/// by `inputs::read_jobtap_state` (one object; flux-core adds "name" and "path"):
namespace jobtap_keys {
inline constexpr const char* policy = "policy";           ///< the policy as configured: a file or a preset's name
inline constexpr const char* policy_text = "policy_text"; ///< the text in force
inline constexpr const char* policy_loaded = "policy_loaded"; ///< when it was loaded (epoch seconds)
inline constexpr const char* policy_error = "policy_error";   ///< the last refused policy's error ("" if none)
inline constexpr const char* reloaded = "reloaded";       ///< this query loaded a changed policy
inline constexpr const char* period = "period";           ///< seconds between refreshes (0: none)
inline constexpr const char* database = "database";       ///< flux-accounting's database ("" if none)
inline constexpr const char* database_error = "database_error"; ///< why its last read failed ("" if it did not)
inline constexpr const char* generation = "generation";   ///< refreshes so far
inline constexpr const char* now = "now";                 ///< the refresh's time (epoch seconds)
inline constexpr const char* refreshed = "refreshed";     ///< the same, to the microsecond
inline constexpr const char* nodes = "nodes";             ///< the instance's nodes
inline constexpr const char* cores = "cores";             ///< the instance's cores
inline constexpr const char* queues = "queues";           ///< [[name, priority], ...]
inline constexpr const char* banks = "banks";             ///< [[name, priority], ...]
inline constexpr const char* associations = "associations"; ///< [[userid, bank, fairshare, default bank], ...]
inline constexpr const char* weights = "weights";         ///< [[factor, weight], ...]: priority_factor_weight_table
inline constexpr const char* jobs = "jobs";               ///< jobs of the last reprioritization
inline constexpr const char* seconds = "reprioritize_seconds"; ///< its wall time
inline constexpr const char* calls = "calls";             ///< priority computations so far
inline constexpr const char* call_seconds = "call_seconds"; ///< their time inside the plugin's callbacks
} // namespace jobtap_keys

/// One row of flux-accounting's association_table as the plugin reads it.
struct jobtap_association {
    std::uint32_t userid = 0;
    std::string bank;
    double fairshare = 0;
    std::string default_bank;
};

/// What a refresh of the plugin reads besides the policy and the jobs.
struct jobtap_inputs {
    std::int64_t now = 0;    ///< epoch seconds
    std::uint32_t nodes = 0; ///< the instance's nodes
    std::uint32_t cores = 0; ///< the instance's cores
    std::vector<std::pair<std::string, std::int64_t>> queues; ///< queue_table: name, priority
    std::vector<std::pair<std::string, double>> banks;        ///< bank_table: name, priority
    std::vector<jobtap_association> associations;             ///< association_table
    std::vector<std::pair<std::string, std::int64_t>> weights; ///< priority_factor_weight_table: factor, weight
};

/// The text of the policy configured as `policy=NAME`: a preset of `queue::jobtap_registry()`
/// is `preset = NAME`, anything else names a file.
[[nodiscard]] inline expected<std::string> jobtap_policy_text(const std::string& policy) {
    if (queue::jobtap_registry().find_preset(policy) != nullptr) return "preset = " + policy + "\n";
    return text::read_text_file(policy);
}

/// How errors name the policy configured as `policy=NAME`: the file, or `<preset NAME>`.
[[nodiscard]] inline std::string jobtap_policy_name(const std::string& policy) {
    return queue::jobtap_registry().find_preset(policy) != nullptr ? "<preset " + policy + ">" : policy;
}

/// The engine of policy `text` (`file` names it in errors) for the plugin's inputs `in`: a
/// policy starting from `preset = flux-accounting` takes the database's weights
/// (`in.weights`, as mf_priority.so stores them: `flux::truncate_weight`) for the terms the
/// text itself does not set, so that the preset gives what mf_priority.so gives on the same
/// database. A weight the database has for a factor the policy lacks is left out.
[[nodiscard]] inline expected<queue::flux_dynamic_engine> jobtap_engine(std::string_view text, std::string_view file,
                                                                        const jobtap_inputs& in) {
    const auto reg = queue::jobtap_registry();
    auto p = queue::parse_policy(text, reg, file);
    if (!p) return p.error();
    if (text::iequals(p->preset, "flux-accounting"))
        for (auto& t : p->terms) {
            if (!t.file.starts_with("<preset ")) continue; // set by the text
            for (const auto& [factor, weight] : in.weights)
                if (text::iequals(factor, t.factor)) t.weight = static_cast<double>(flux::truncate_weight(weight));
        }
    return queue::build_engine(*p, reg, flux::flux_result{});
}

/// A job as the job manager hands it to the plugin (or `flux jobs` prints it).
struct jobtap_job {
    std::uint32_t userid = 0;
    std::uint8_t urgency = flux::urgency_default;
    double t_submit = 0;        ///< epoch seconds
    std::string_view queue;     ///< "" : none
    std::string_view bank;      ///< "" : none (the user's default bank)
    std::int64_t nnodes = 0;    ///< <= 0: not known
    std::int64_t ncores = 0;    ///< <= 0: not known
    double duration = 0;        ///< seconds; <= 0: none
};

/// The plugin's inputs with the indexes a pass looks jobs up in (no allocation per job).
class jobtap_model {
public:
    jobtap_model() = default;
    explicit jobtap_model(jobtap_inputs in) : in_(std::move(in)) {
        for (const auto& [name, priority] : in_.queues) {
            queue_index_.try_emplace(name, static_cast<std::uint32_t>(queue_priority_.size()));
            queue_priority_.push_back(priority);
        }
        for (const auto& [name, priority] : in_.banks) {
            bank_index_.try_emplace(name, static_cast<std::uint32_t>(bank_priority_.size()));
            bank_priority_.push_back(priority);
        }
        for (std::size_t a = 0; a < in_.associations.size(); ++a) {
            const auto& r = in_.associations[a];
            user_associations_[r.userid].push_back(static_cast<std::uint32_t>(a));
            fairshare_.push_back(r.fairshare);
        }
    }
    jobtap_model(const jobtap_model&) = delete;
    jobtap_model& operator=(const jobtap_model&) = delete;
    jobtap_model(jobtap_model&&) = default;
    jobtap_model& operator=(jobtap_model&&) = default;

    [[nodiscard]] const jobtap_inputs& inputs() const noexcept { return in_; }

    /// The context of a pass (views into this model).
    [[nodiscard]] flux::context context() const noexcept {
        flux::context c;
        c.now = in_.now;
        c.node_count = in_.nodes;
        c.cluster_cpus = in_.cores;
        c.fairshare = fairshare_;
        c.queue_priority = queue_priority_;
        c.bank_priority = bank_priority_;
        return c;
    }

    /// The association of `userid` in `bank` ("" : the user's default bank), or
    /// `flux::no_index`.
    [[nodiscard]] std::uint32_t association(std::uint32_t userid, std::string_view bank) const noexcept {
        const auto u = user_associations_.find(userid);
        if (u == user_associations_.end()) return flux::no_index;
        if (bank.empty()) bank = in_.associations[u->second.front()].default_bank;
        for (const std::uint32_t a : u->second)
            if (in_.associations[a].bank == bank) return a;
        return flux::no_index;
    }

    /// `j` as the engine reads it (see the file comment).
    [[nodiscard]] flux::job job(const jobtap_job& j) const noexcept {
        flux::job f;
        f.user = j.userid;
        f.association = association(j.userid, j.bank);
        const double t = std::floor(j.t_submit);
        f.submit_time = f.accrue_time = t > 0 && t < 9.2e18 ? static_cast<std::int64_t>(t) : 0;
        f.min_nodes = count32(j.nnodes);
        f.cpus = count32(j.ncores);
        const double minutes = std::ceil(j.duration / 60.0);
        f.time_limit = j.duration > 0 && minutes < 4294967294.0 ? static_cast<std::uint32_t>(minutes) : no_val32;
        f.urgency = j.urgency;
        f.queue = index_of(queue_index_, j.queue);
        std::string_view bank = j.bank;
        if (bank.empty() && f.association != flux::no_index) bank = in_.associations[f.association].bank;
        f.bank = index_of(bank_index_, bank);
        return f;
    }

private:
    struct name_hash {
        using is_transparent = void;
        [[nodiscard]] std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
    };
    using name_index = std::unordered_map<std::string, std::uint32_t, name_hash, std::equal_to<>>;

    [[nodiscard]] static std::uint32_t count32(std::int64_t n) noexcept {
        return n <= 0 ? 0u : static_cast<std::uint32_t>(std::min<std::int64_t>(n, 0xffffffff));
    }
    [[nodiscard]] static std::uint32_t index_of(const name_index& idx, std::string_view name) noexcept {
        if (name.empty()) return flux::no_index;
        const auto it = idx.find(name);
        return it == idx.end() ? flux::no_index : it->second;
    }

    jobtap_inputs in_;
    std::vector<std::int64_t> queue_priority_;
    std::vector<double> bank_priority_;
    std::vector<double> fairshare_;
    name_index queue_index_, bank_index_;
    std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> user_associations_;
};

} // namespace mfprio::config
