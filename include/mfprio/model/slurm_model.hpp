#pragma once
/// \file
/// From Slurm's own files to a ready-to-run model: the cluster tables (partitions with their
/// TRES totals, QOS, associations with their fair-share factor and priority), the engine
/// settings (weights, PriorityMaxAge, PriorityFavorSmall, PriorityFlags, PriorityWeightTRES
/// resolved to TRES ids) and the jobs as `mfprio::job` records with their TRES request table
/// and their partition and QOS lists.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <mfprio/core/expected.hpp>
#include <mfprio/core/job.hpp>
#include <mfprio/read/assoc_table.hpp>
#include <mfprio/read/jobs_table.hpp>
#include <mfprio/read/qos_table.hpp>
#include <mfprio/read/slurm_conf.hpp>
#include <mfprio/slurm/cluster.hpp>
#include <mfprio/slurm/multifactor.hpp>

namespace mfprio::config {

/// A Slurm cluster as mfprio runs it: tables, settings and jobs. The jobs' TRES requests are
/// rows of `tres_pool` (one per job, `tres_row`); their partition and QOS lists (`lists`,
/// one per job) point into `list_pool`. Both are owned here, so the model moves but does
/// not copy.
struct slurm_model {
    slurm::cluster cluster;
    slurm::weights weights;
    slurm::settings settings;
    std::string tres_weight_text;          ///< PriorityWeightTRES as written (sprio -w)
    std::vector<job> jobs;
    std::vector<slurm::job_lists> lists;   ///< partition and QOS lists of each job (empty: single)
    std::vector<std::string> user_names;   ///< by job user id
    std::vector<std::size_t> job_lines;    ///< the jobs table line of each job
    /// When sprio starts listing each job (Slurm's begin time, or the submit time under
    /// ACCRUE_ALWAYS); 0 = never. Age runs from the job's own accrue time.
    std::vector<std::int64_t> begin_times;
    /// The priority slurmctld held for each job, where the input had it (squeue, scontrol).
    std::vector<std::optional<std::uint32_t>> current_priorities;
    /// Each job's place in slurmctld's job list (config::job_list_places): the order sprio
    /// lists jobs in before its sort keys.
    std::vector<std::uint32_t> list_places;
    std::uint32_t fairshare_dampening = 1; ///< FairShareDampeningFactor
    std::size_t user_associations = 0;     ///< number of user associations (Fair Tree's N)

    slurm_model() = default;
    slurm_model(slurm_model&&) noexcept = default;
    slurm_model& operator=(slurm_model&&) noexcept = default;
    slurm_model(const slurm_model&) = delete;
    slurm_model& operator=(const slurm_model&) = delete;

    /// Slurm's engine with these weights and settings.
    [[nodiscard]] slurm::multifactor_engine engine() const { return slurm::make_multifactor(weights, settings); }
    /// The context of a pass at `now`: the cluster's tables and the jobs' TRES requests.
    [[nodiscard]] slurm::context context(std::int64_t now) const {
        slurm::context c = cluster.view(now);
        c.tres_requests = tres_requests();
        return c;
    }
    /// The jobs' TRES request table: one row per job, one column per TRES some job asks for.
    [[nodiscard]] slurm::tres_table tres_requests() const noexcept {
        return {.counts = tres_pool, .stride = static_cast<std::uint32_t>(tres_ids.size()), .columns = tres_columns};
    }

    /// Storage behind `tres_requests()`: the rows (tres_ids.size() counts each), the TRES id
    /// of each column (ascending), the column of each TRES id; and behind `lists`. Not to be
    /// resized once the jobs are built.
    std::vector<double> tres_pool;
    std::vector<std::uint32_t> tres_ids;
    std::vector<std::uint32_t> tres_columns;
    std::vector<std::uint32_t> list_pool;
};

namespace detail {
/// A TRES name as Slurm's priority code names it: "cpu", "mem", "gres/gpu", ...
inline std::string tres_key(std::string_view name) {
    std::string s(name);
    const auto slash = s.find('/');
    for (std::size_t i = 0; i < (slash == std::string::npos ? s.size() : slash); ++i)
        s[i] = static_cast<char>(s[i] >= 'A' && s[i] <= 'Z' ? s[i] - 'A' + 'a' : s[i]);
    return s;
}
} // namespace detail

namespace detail {

/// The cluster of a model, before `finalize`: TRES ids (Slurm's fixed eight, then GRES found on
/// nodes, then weighted or requested ones), totals, partitions (TRES totals summed over their
/// nodes), QOS and associations; counts the user associations into `m`.
inline void add_cluster(slurm_model& m, const slurm_conf& conf, const qos_table& qos, const assoc_table& assoc,
                        const jobs_table& jobs) {
    auto& cl = m.cluster;
    for (const auto& n : conf.nodes)
        for (const auto& g : n.gres) cl.tres("gres/" + g.first);
    for (const auto& tw : conf.weight_tres) cl.tres(detail::tres_key(tw.name));
    for (const auto& j : jobs.jobs)
        for (const auto& t : j.tres) cl.tres(detail::tres_key(t.first));

    std::uint32_t total_cpus = 0;
    for (const auto& n : conf.nodes) total_cpus += n.cpus;
    cl.set_totals(static_cast<std::uint32_t>(conf.nodes.size()), total_cpus);
    const std::size_t ntres = cl.tres_names().size();
    for (const auto& p : conf.partitions) {
        std::vector<double> totals(ntres, 0.0);
        for (auto ni : p.nodes) {
            const auto& n = conf.nodes[ni];
            totals[slurm::tres_id::cpu] += n.cpus;
            totals[slurm::tres_id::mem] += static_cast<double>(n.real_memory);
            totals[slurm::tres_id::node] += 1;
            for (const auto& g : n.gres) totals[*cl.find_tres("gres/" + g.first)] += static_cast<double>(g.second);
        }
        cl.add_partition(p.name, p.priority_job_factor, p.priority_tier, p.max_time, std::move(totals));
    }
    for (const auto& q : qos.qos) cl.add_qos(q.name, q.priority, q.usage_factor);
    for (const auto& a : assoc.rows) {
        m.user_associations += a.user.empty() ? 0 : 1;
        cl.add_association(a.account, a.user, a.user.empty() ? 0.0 : a.fairshare.value_or(0.0), a.priority.value_or(0));
    }
}

} // namespace detail

/// Builds the model. `conf_file` names slurm.conf in error messages. Errors: more weighted
/// TRES than a tres_factor holds.
[[nodiscard]] inline expected<slurm_model> build_slurm_model(const slurm_conf& conf, const qos_table& qos,
                                                             const assoc_table& assoc, const jobs_table& jobs,
                                                             std::string_view conf_file = "slurm.conf") {
    slurm_model m;
    auto& cl = m.cluster;

    detail::add_cluster(m, conf, qos, assoc, jobs);
    const std::size_t ntres = cl.tres_names().size();
    cl.finalize();
    const auto ctx = cl.view(0);

    // Settings.
    m.weights = {conf.weight_age, conf.weight_assoc, conf.weight_fairshare, conf.weight_job_size,
                 conf.weight_partition, conf.weight_qos};
    m.settings.max_age = static_cast<std::uint32_t>(conf.max_age);
    m.settings.favor_small = conf.favor_small;
    m.settings.flags = conf.flags;
    m.tres_weight_text = conf.weight_tres_text;
    m.fairshare_dampening = conf.fairshare_dampening;
    for (const auto& tw : conf.weight_tres) {
        if (!m.settings.tres.add(*cl.find_tres(detail::tres_key(tw.name)), tw.weight))
            return text::file_error(std::string(conf_file), std::string(key_name(slurm_conf_setting::weight_tres)),
                                    "more than " + std::to_string(slurm::tres_factor::max_weighted) + " weighted TRES");
    }

    // Jobs: TRES requests (one row each, a column per TRES some job asks for, in id order),
    // partition lists by tier, QOS lists by priority. Indices must fit the job record.
    if (cl.partitions().size() > 65536 || cl.qos().size() > 65536)
        return text::file_error(std::string(conf_file),
                                std::string(cl.partitions().size() > 65536 ? key_name(slurm_conf_setting::partition_name) : "QOS"),
                                "more than 65536 partitions or QOS: mfprio::job keeps 16-bit indices");
    const bool accrue_always = conf.flags.has(slurm::priority_flag::accrue_always);
    std::size_t list_total = 0;
    m.tres_columns.assign(ntres, slurm::tres_table::no_column);
    for (const auto& j : jobs.jobs) {
        if (j.partitions.size() > 1) list_total += j.partitions.size();
        if (j.qos.size() > 1) list_total += j.qos.size();
        for (const auto& t : j.tres) m.tres_columns[*cl.find_tres(detail::tres_key(t.first))] = 0;
    }
    for (std::uint32_t id = 0; id < ntres; ++id) {
        if (m.tres_columns[id] == slurm::tres_table::no_column) continue;
        m.tres_columns[id] = static_cast<std::uint32_t>(m.tres_ids.size());
        m.tres_ids.push_back(id);
    }
    const std::size_t stride = m.tres_ids.size();
    m.tres_pool.assign(jobs.jobs.size() * stride, 0.0);
    m.list_pool.reserve(list_total); // never reallocates below: spans stay valid
    std::unordered_map<std::string, std::uint32_t> users;
    m.jobs.reserve(jobs.jobs.size());
    m.lists.reserve(jobs.jobs.size());
    for (std::size_t k = 0; k < jobs.jobs.size(); ++k) {
        const auto& r = jobs.jobs[k];
        job j{};
        slurm::job_lists l{};
        j.id = r.job_id;
        auto [it, fresh] = users.try_emplace(r.user, static_cast<std::uint32_t>(m.user_names.size()));
        if (fresh) m.user_names.push_back(r.user);
        j.user = it->second;
        j.association = r.association;
        j.state = r.state;
        j.submit_time = r.submit_time;
        j.accrue_time = r.accrue_time ? *r.accrue_time : (accrue_always ? r.submit_time : r.eligible_time);
        m.begin_times.push_back(accrue_always ? r.submit_time : r.eligible_time);
        j.min_nodes = r.num_nodes;
        j.cpus = r.num_cpus;
        j.time_limit = r.time_limit;
        j.nice = r.nice;
        j.site_factor = r.site_factor;
        j.admin_priority = r.admin_priority;
        if (stride != 0) {
            double* counts = m.tres_pool.data() + k * stride;
            for (const auto& t : r.tres) counts[m.tres_columns[*cl.find_tres(detail::tres_key(t.first))]] = t.second;
            j.tres_row = static_cast<std::uint32_t>(k);
        }
        if (r.partitions.size() > 1) {
            const std::size_t at = m.list_pool.size();
            m.list_pool.insert(m.list_pool.end(), r.partitions.begin(), r.partitions.end());
            std::span<std::uint32_t> s(m.list_pool.data() + at, r.partitions.size());
            slurm::sort_by_tier(s, ctx);
            l.partitions = s;
        }
        j.partition = static_cast<std::uint16_t>(
            r.partitions.empty() ? 0 : (l.partitions.empty() ? r.partitions.front() : l.partitions.front()));
        if (r.qos.size() > 1) {
            const std::size_t at = m.list_pool.size();
            m.list_pool.insert(m.list_pool.end(), r.qos.begin(), r.qos.end());
            std::span<std::uint32_t> s(m.list_pool.data() + at, r.qos.size());
            slurm::sort_by_qos_priority(s, ctx);
            l.qos = s;
        }
        j.qos = static_cast<std::uint16_t>(r.qos.empty() ? 0 : (l.qos.empty() ? r.qos.front() : l.qos.front()));
        m.jobs.push_back(j);
        m.lists.push_back(l);
        m.job_lines.push_back(r.line);
        m.current_priorities.push_back(r.current_priority);
    }
    m.list_places = job_list_places(jobs);
    return m;
}

/// A cluster's inputs, read and resolved: what a model is built from.
struct parsed_cluster {
    slurm_conf conf;
    qos_table qos;
    assoc_table assoc;
    std::shared_ptr<const jobs_table> jobs; ///< shared by copies (what-if changes no job)
    std::string slurm_version; ///< as the inputs print it ("22.05.8"), empty if unknown
    std::string conf_name;     ///< the first configuration input's name, for errors
    std::string assoc_name;    ///< the first association input's name, for errors
};

} // namespace mfprio::config
