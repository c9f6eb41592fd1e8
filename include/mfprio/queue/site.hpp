#pragma once
/// \file
/// A site's own priority term for Slurm, as a site_factor plugin computes it
/// (`PrioritySiteFactorPlugin`): the factors a pending Slurm job has, in a registry that policy
/// files name (`site_registry()`), and the result policy that turns their weighted sum into
/// the integer Slurm stores in `job_ptr->site_factor` (`site_result`).
///
/// | name | value | options |
/// |------|-------|---------|
/// | `queuetime` | minutes since the job became eligible (Maui's QUEUETIME): (now - max(submit, begin)) / 60, at least 0 | `cap` |
/// | `xfactor` | Maui's expansion factor (queued + limit) / max(min_limit, limit) in seconds; `form = wait`: queued / max(min_limit, limit) | `min_limit`, `form`, `default_limit`, `round`, `cap` |
/// | `partition` | the partition's PriorityJobFactor | `cap` |
/// | `qos` | the QOS's Priority | `cap` |
/// | `nice` | minus the job's nice value | `cap` |
/// | `cpus`, `nodes`, `mem`, `gpus` | what the job requests (memory in MB, gres/gpu) | `cap` |
/// | `gpu_fair_use` | GPU-hours fair use (queue/gpu_fair_use.hpp) over the job's GPUs and time limit and its association's GPU usage as slurmctld keeps it | `budget`, `default_limit` |
///
/// - `cap` (a number > 0): the value is at most `cap` before its weight, as Maui caps a
///   subcomponent. `round` (yes/no, default no): the value is rounded to the nearest integer
///   (halves away from zero) before the cap and the weight.
/// - `min_limit` and `default_limit` are Slurm times (`10` is ten minutes, `1:00:00`, `1-0`);
///   `min_limit` defaults to 0 (none), `default_limit` (the limit of a job without one, or
///   UNLIMITED) to a day.
/// - Preset `xfactor`: the expansion factor as a site factor, wait over the time limit with a
///   minimum limit of ten minutes, rounded, capped at 10, weighted 1000:
///   `xfactor = 1000`, `xfactor.form = wait`, `xfactor.min_limit = 10`, `xfactor.round = yes`,
///   `xfactor.cap = 10`.
/// - `budget`: GPU-hours, 0 to 1e15 (default 1000); `default_limit`: the limit of a job
///   without one (a Slurm time above 0, default a day). The usage is the association's
///   gres/gpu usage in whole minutes, decayed by PriorityDecayHalfLife (with a half-life of 30
///   days it fades over about that period); GPUs beyond 2^32-1 count as 2^32-1.
///
/// `site_result`: the sum rounded to the nearest integer (halves away from zero) and kept
/// within what `site_factor` holds once offset by NICE_OFFSET (2^31): -2147483648 to
/// 2147483647. A NaN sum is 0.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <mfprio/core/assert.hpp>
#include <mfprio/core/expected.hpp>
#include <mfprio/core/job.hpp>
#include <mfprio/queue/dynamic.hpp>
#include <mfprio/queue/gpu_fair_use.hpp>
#include <mfprio/queue/policy.hpp>
#include <mfprio/slurm/context.hpp>
#include <mfprio/text/slurm_time.hpp>
#include <mfprio/text/text.hpp>

namespace mfprio::queue {

/// What a site_factor plugin reads of a pending Slurm job (its C side fills this from
/// `job_record_t`; mfprio's offline twin from what scontrol and squeue print).
struct site_job {
    std::uint32_t id = 0;                  ///< JobId
    std::int64_t submit_time = 0;          ///< details->submit_time
    std::int64_t begin_time = 0;           ///< details->begin_time (0: none)
    std::uint32_t time_limit = no_val32;   ///< minutes; no_val32 none, infinite32 UNLIMITED
    std::uint32_t partition_priority = 0;  ///< the highest PriorityJobFactor of the job's partitions
    std::uint32_t qos_priority = 0;        ///< the QOS's Priority
    std::int32_t nice = 0;                 ///< nice value, not offset
    std::uint32_t cpus = 1;                ///< CPUs requested
    std::uint32_t nodes = 1;               ///< nodes requested
    std::uint64_t mem_mb = 0;              ///< memory requested in total, MB
    std::uint64_t gpus = 0;                ///< gres/gpu requested
    /// The GPU usage of the job's association as slurmctld keeps it (usage_tres_raw of
    /// gres/gpu: GPU-seconds, decayed by PriorityDecayHalfLife), in whole minutes, as
    /// `scontrol show assoc_mgr` prints it in GrpTRESMins.
    std::uint64_t owner_gpu_minutes = 0;
};

/// The pass: the time the plugin's update (or the job's submission) computes at.
struct site_context {
    std::int64_t now = 0;
};

/// The integer a site_factor plugin stores (see the file comment).
struct site_result {
    using output_type = std::int64_t;
    [[nodiscard]] static constexpr std::int64_t finish(double sum) noexcept {
        if (!(sum == sum)) return 0;
        const double r = sum < 0 ? -std::floor(-sum + 0.5) : std::floor(sum + 0.5);
        if (r <= -2147483648.0) return -2147483648LL;
        if (r >= 2147483647.0) return 2147483647LL;
        return static_cast<std::int64_t>(r);
    }
    template <class J, class F>
    constexpr std::int64_t operator()(const J&, F&& score) const noexcept {
        return finish(score());
    }
};

/// How a site factor's value is shaped before its weight: rounded (optionally), then capped.
struct site_shape {
    double cap = 0;     ///< > 0: the value is at most this
    bool round = false; ///< round to the nearest integer, halves away from zero
    [[nodiscard]] constexpr double operator()(double v) const noexcept {
        if (round) v = v < 0 ? -std::floor(-v + 0.5) : std::floor(v + 0.5);
        return cap > 0 && v > cap ? cap : v;
    }
};

namespace detail {
[[nodiscard]] inline std::int64_t site_queued_seconds(const site_job& j, const site_context& c) noexcept {
    const std::int64_t start = j.begin_time > j.submit_time ? j.begin_time : j.submit_time;
    return c.now > start ? c.now - start : 0;
}
} // namespace detail

/// What a site factor reads of a job, as bits (a factor type's `reads`, kept by the registry):
/// a site_factor plugin fills only those fields (each is another record of slurmctld's to
/// reach, often out of cache).
enum site_reads : std::uint32_t {
    site_reads_times = 1,        ///< submit_time, begin_time, time_limit
    site_reads_partition = 2,    ///< partition_priority
    site_reads_qos = 4,          ///< qos_priority
    site_reads_request = 8,      ///< nice, cpus, nodes
    site_reads_tres = 16,        ///< mem_mb, gpus
    site_reads_owner_gpu = 32,   ///< owner_gpu_minutes
    site_reads_all = 63,
};

/// The site factors other than `xfactor`, by name.
enum class site_value : std::uint8_t { queuetime, partition, qos, nice, cpus, nodes, mem, gpus };

namespace detail {
/// Each `site_value`'s name and what it reads of a job, in the enumeration's order.
struct site_value_info {
    std::string_view name;
    std::uint32_t reads;
};
inline constexpr site_value_info site_values[] = {
    {"queuetime", site_reads_times}, {"partition", site_reads_partition}, {"qos", site_reads_qos},
    {"nice", site_reads_request},    {"cpus", site_reads_request},        {"nodes", site_reads_request},
    {"mem", site_reads_tres},        {"gpus", site_reads_tres},
};
} // namespace detail

/// A site factor of kind `K`, shaped (see `site_shape`).
template <site_value K>
struct site_simple_factor {
    static constexpr std::string_view name = detail::site_values[static_cast<std::size_t>(K)].name;
    static constexpr std::uint32_t reads = detail::site_values[static_cast<std::size_t>(K)].reads;
    site_shape shape;
    [[nodiscard]] double operator()(const site_job& j, const site_context& c) const noexcept {
        double v = 0;
        switch (K) {
        case site_value::queuetime: v = static_cast<double>(detail::site_queued_seconds(j, c)) / 60.0; break;
        case site_value::partition: v = static_cast<double>(j.partition_priority); break;
        case site_value::qos: v = static_cast<double>(j.qos_priority); break;
        case site_value::nice: v = -static_cast<double>(j.nice); break;
        case site_value::cpus: v = static_cast<double>(j.cpus); break;
        case site_value::nodes: v = static_cast<double>(j.nodes); break;
        case site_value::mem: v = static_cast<double>(j.mem_mb); break;
        case site_value::gpus: v = static_cast<double>(j.gpus); break;
        }
        return shape(v);
    }
};

/// Maui's expansion factor over a Slurm job (see the file comment).
struct site_xfactor {
    static constexpr std::string_view name = "xfactor";
    static constexpr std::uint32_t reads = site_reads_times;
    std::int64_t min_limit = 0;         ///< seconds
    std::int64_t default_limit = 86400; ///< seconds, for a job without a limit
    bool wait_only = false;             ///< form = wait
    site_shape shape;
    [[nodiscard]] double operator()(const site_job& j, const site_context& c) const noexcept {
        const std::int64_t limit = j.time_limit == no_val32 || j.time_limit == infinite32
                                       ? default_limit
                                       : std::int64_t{j.time_limit} * 60;
        const double queued = static_cast<double>(detail::site_queued_seconds(j, c));
        const double denominator = static_cast<double>(limit > min_limit ? limit : min_limit);
        if (!(denominator > 0)) return 0.0;
        return shape((wait_only ? queued : queued + static_cast<double>(limit)) / denominator);
    }
};

/// GPU-hours fair use over a Slurm job (see the file comment).
struct site_gpu_fair_use {
    static constexpr std::string_view name = "gpu_fair_use";
    static constexpr std::uint32_t reads = site_reads_times | site_reads_tres | site_reads_owner_gpu;
    /// What `gpu_fair_use` reads of a job, taken from a `site_job`.
    struct request {
        std::uint32_t gpus = 0;
        double owner_gpu_hours = 0.0;
        std::uint32_t time_limit = no_val32;
    };
    gpu_fair_use policy;
    [[nodiscard]] double operator()(const site_job& j, const site_context& c) const noexcept {
        const request r{.gpus = j.gpus > 0xffffffffULL ? 0xffffffffU : static_cast<std::uint32_t>(j.gpus),
                        .owner_gpu_hours = static_cast<double>(j.owner_gpu_minutes) / 60.0,
                        .time_limit = j.time_limit};
        return policy(r, c);
    }
};

/// The preset `xfactor` (see the file comment).
inline constexpr std::string_view site_xfactor_preset =
    "xfactor = 1000\nxfactor.form = wait\nxfactor.min_limit = 10\nxfactor.round = yes\nxfactor.cap = 10\n";

namespace detail {
/// `cap` and `round` of a factor's options.
[[nodiscard]] inline expected<site_shape> site_shape_of(const factor_options& o) {
    site_shape s;
    if (const std::string* v = o.find("cap")) {
        const auto d = text::parse_double(text::trim(*v));
        if (!d || !(*d > 0)) return factor_options::error("cap", "expected a number greater than 0, got " + text::quote(*v));
        s.cap = *d;
    }
    auto r = o.boolean("round", false);
    if (!r) return r.error();
    s.round = *r;
    return s;
}
/// A Slurm time option in seconds.
[[nodiscard]] inline expected<std::int64_t> site_time_option(const factor_options& o, std::string_view key,
                                                             std::int64_t fallback) {
    const std::string* v = o.find(key);
    if (v == nullptr) return fallback;
    auto t = text::parse_slurm_time(text::trim(*v));
    if (!t) return factor_options::error(key, t.error().message);
    return static_cast<std::int64_t>(t->minutes()) * 60;
}
template <site_value K>
[[nodiscard]] bool site_add(registry<site_job, site_context>& reg) {
    return reg.template add_configured<site_simple_factor<K>>(
        site_simple_factor<K>::name, {"cap", "round"}, [](const factor_options& o) -> expected<site_simple_factor<K>> {
            auto s = site_shape_of(o);
            if (!s) return s.error();
            return site_simple_factor<K>{*s};
        });
}
/// `gpu_fair_use`'s options.
[[nodiscard]] inline expected<site_gpu_fair_use> site_gpu_fair_use_of(const factor_options& o) {
    site_gpu_fair_use f;
    if (const std::string* v = o.find("budget")) {
        const auto d = text::parse_double(text::trim(*v));
        if (!d || !(*d >= 0) || *d > 1e15)
            return factor_options::error("budget", "expected GPU-hours from 0 to 1e15, got " + text::quote(*v));
        f.policy.budget_gpu_hours = *d;
    }
    if (const std::string* v = o.find("default_limit")) {
        auto t = text::parse_slurm_time(text::trim(*v));
        if (!t) return factor_options::error("default_limit", t.error().message);
        if (t->minutes() == 0 || t->minutes() >= no_val32)
            return factor_options::error("default_limit", "expected a time limit above 0, got " + text::quote(*v));
        f.policy.default_limit_minutes = static_cast<std::uint32_t>(t->minutes());
    }
    return f;
}
} // namespace detail

/// The registry of site factors and the preset `xfactor` (see the file comment), to add a
/// site's own factors to (a factor type over `site_job` and `site_context`).
[[nodiscard]] inline registry<site_job, site_context> make_site_registry() {
    registry<site_job, site_context> r;
    bool ok = true;
    ok = detail::site_add<site_value::queuetime>(r) && ok;
    ok = r.add_configured<site_xfactor>(
             "xfactor", {"min_limit", "default_limit", "form", "round", "cap"},
             [](const factor_options& o) -> expected<site_xfactor> {
                 auto s = detail::site_shape_of(o);
                 if (!s) return s.error();
                 site_xfactor v;
                 v.shape = *s;
                 auto min = detail::site_time_option(o, "min_limit", 0);
                 if (!min) return min.error();
                 auto def = detail::site_time_option(o, "default_limit", 86400);
                 if (!def) return def.error();
                 v.min_limit = *min;
                 v.default_limit = *def;
                 if (const std::string* f = o.find("form")) {
                     const std::string_view t = text::trim(*f);
                     if (text::iequals(t, "wait")) v.wait_only = true;
                     else if (!text::iequals(t, "maui"))
                         return factor_options::error("form", "expected maui or wait, got " + text::quote(*f));
                 }
                 return v;
             }) && ok;
    ok = detail::site_add<site_value::partition>(r) && ok;
    ok = detail::site_add<site_value::qos>(r) && ok;
    ok = detail::site_add<site_value::nice>(r) && ok;
    ok = detail::site_add<site_value::cpus>(r) && ok;
    ok = detail::site_add<site_value::nodes>(r) && ok;
    ok = detail::site_add<site_value::mem>(r) && ok;
    ok = detail::site_add<site_value::gpus>(r) && ok;
    ok = r.add_preset("xfactor", std::string(site_xfactor_preset)) && ok;
    ok = r.add_configured<site_gpu_fair_use>("gpu_fair_use", {"budget", "default_limit"}, detail::site_gpu_fair_use_of) && ok;
    MFPRIO_ASSERT(ok);
    return r;
}

/// `make_site_registry()`, built once.
[[nodiscard]] inline const registry<site_job, site_context>& site_registry() {
    static const registry<site_job, site_context> reg = make_site_registry();
    return reg;
}

/// What a policy with these terms reads of a job (`site_reads`): the union of what each
/// term's factor in `reg` reads. A factor that does not declare it, or a name `reg` does not
/// know, reads everything.
[[nodiscard]] inline std::uint32_t site_policy_reads(std::span<const std::string_view> terms,
                                                     const registry<site_job, site_context>& reg = site_registry()) {
    std::uint32_t out = 0;
    for (const std::string_view t : terms) {
        const auto* f = reg.find(t);
        out |= f != nullptr ? static_cast<std::uint32_t>(f->reads & site_reads_all) : std::uint32_t{site_reads_all};
    }
    return out;
}

/// A site policy's engine.
using site_engine = dynamic_engine<site_job, site_context, site_result>;

/// Parses a site policy (the policy-file format, over `reg`: `site_registry()` or a site's
/// own, with its factors added).
[[nodiscard]] inline expected<site_engine> load_site_policy(std::string_view text, std::string_view file,
                                                            const registry<site_job, site_context>& reg = site_registry()) {
    return load_policy(text, reg, site_result{}, file);
}

/// What site_factor/mfprio reads of a Slurm job, from mfprio's own record of it and the
/// pass's context: `begin_time` as scontrol's EligibleTime, the highest PriorityJobFactor of
/// the job's partition and `partitions` (a job of several),
/// the QOS's Priority, the requested memory (TRES `mem`, id 1) and GPUs (TRES `gpu_tres`,
/// gres/gpu, when the cluster has it), and its association's GPU usage in whole minutes.
[[nodiscard]] inline site_job site_job_of(const job& j, const slurm::context& c, std::int64_t begin_time,
                                          std::optional<std::uint32_t> gpu_tres,
                                          std::span<const std::uint32_t> partitions = {},
                                          std::uint64_t owner_gpu_minutes = 0) {
    site_job s;
    s.owner_gpu_minutes = owner_gpu_minutes;
    s.id = j.id;
    s.submit_time = j.submit_time;
    s.begin_time = begin_time;
    s.time_limit = j.time_limit;
    if (const auto* p = c.partition(j.partition)) s.partition_priority = p->priority_job_factor;
    for (const std::uint32_t k : partitions)
        if (const auto* p = c.partition(k); p != nullptr && p->priority_job_factor > s.partition_priority)
            s.partition_priority = p->priority_job_factor;
    if (const auto* q = c.qos_at(j.qos)) s.qos_priority = q->priority;
    s.nice = j.nice;
    s.cpus = j.cpus;
    s.nodes = j.min_nodes;
    if (j.tres_row != no_tres_row) {
        s.mem_mb = static_cast<std::uint64_t>(c.tres_requests.count(j.tres_row, 1));
        if (gpu_tres) s.gpus = static_cast<std::uint64_t>(c.tres_requests.count(j.tres_row, *gpu_tres));
    }
    return s;
}

/// Reads a site policy file (errors name the path).
[[nodiscard]] inline expected<site_engine> load_site_policy_file(const std::string& path,
                                                                 const registry<site_job, site_context>& reg = site_registry()) {
    return load_policy_file(path, reg, site_result{});
}

} // namespace mfprio::queue
