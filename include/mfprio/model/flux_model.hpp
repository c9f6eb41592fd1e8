#pragma once
/// \file
/// A Flux model ready to prioritize (`mfprio queue`): a jobs table with its Flux columns, the
/// association table (flux-accounting's fair-share per user and bank), the queue and bank
/// tables, and optionally Slurm's files so that Slurm's factors can join the engine.
///
/// Two ways in:
/// - With slurm.conf (`conf`): the jobs table is Slurm's (`jobs_table.hpp`: Partition, QOS...
///   resolved against slurm.conf, the QOS and the association table), and its Urgency,
///   Queue and Bank columns are added (`flux_tables.hpp`). Bank defaults to the Account.
/// - Without it: the jobs table needs `JobID|User|SubmitTime`; optional `Bank` (or
///   `Account`), `Queue`, `Urgency`, `EligibleTime`, `State`, `NumNodes`, `NumCPUs`. A job
///   without a bank takes its user's default bank (`flux_inputs::default_banks`). The
///   association of a job is the association table's row for (bank, user); with an
///   association table, a job whose (bank, user) has none is an error (flux-accounting
///   rejects such jobs when it holds data, reference A2.1). Without one, fair-share is 0.
/// Fair-share: the association table's FairShare column, or, with `algorithm` set,
/// computed from RawShares and RawUsage by that algorithm (`flux`: flux-accounting's
/// weighted tree). Queues and banks missing from their tables are "unknown" (factor 0). Jobs
/// get their place in submission order (SubmitTime, then JobID) for FCFS.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <mfprio/core/expected.hpp>
#include <mfprio/read/assoc_table.hpp>
#include <mfprio/model/fairshare_tree.hpp>
#include <mfprio/read/flux_tables.hpp>
#include <mfprio/read/jobs_table.hpp>
#include <mfprio/model/slurm_fairshare.hpp>
#include <mfprio/model/slurm_model.hpp>
#include <mfprio/text/table.hpp>
#include <mfprio/fairshare/compute.hpp>
#include <mfprio/flux/context.hpp>
#include <mfprio/flux/job.hpp>
#include <mfprio/slurm/cluster.hpp>

namespace mfprio::config {

/// Everything a Flux pass needs, owned.
struct flux_model {
    std::optional<slurm_model> slurm;     ///< with slurm.conf: Slurm's model of the same jobs
    slurm::cluster own_cluster;           ///< without: associations only
    std::vector<flux::job> jobs;          ///< the jobs, in table order
    std::vector<std::string> user_names;  ///< by job user id
    std::vector<std::size_t> job_lines;   ///< jobs table line of each job
    std::vector<flux_queue_row> queues;   ///< as read (empty without a table)
    std::vector<flux_bank_row> banks;     ///< as read (empty without a table)
    std::vector<std::int64_t> queue_priority; ///< by queue index
    std::vector<double> bank_priority;        ///< by bank index

    flux_model() = default;
    flux_model(flux_model&&) noexcept = default;
    flux_model& operator=(flux_model&&) noexcept = default;

    /// The cluster whose associations hold the fair-share column.
    [[nodiscard]] const slurm::cluster& cluster() const noexcept { return slurm ? slurm->cluster : own_cluster; }
    /// The context of a pass at `now` (views into this model).
    [[nodiscard]] flux::context context(std::int64_t now) const {
        flux::context c;
        static_cast<slurm::context&>(c) = slurm ? slurm->context(now) : own_cluster.view(now);
        c.queue_priority = queue_priority;
        c.bank_priority = bank_priority;
        return c;
    }
};

/// Inputs of `build_flux_model`, all parsed already (optional ones may be null).
struct flux_inputs {
    const table* jobs = nullptr;              ///< the jobs table (required)
    const assoc_table* assoc = nullptr;       ///< association table
    const std::vector<flux_queue_row>* queues = nullptr; ///< queue table
    const std::vector<flux_bank_row>* banks = nullptr;   ///< bank table
    const slurm_conf* conf = nullptr;         ///< slurm.conf (with `qos` and `assoc`: Slurm's jobs table)
    const qos_table* qos = nullptr;           ///< QOS table (with `conf`)
    std::optional<fairshare::algorithm> algorithm; ///< compute fair-share from RawShares/RawUsage
    /// Each user's default bank (flux-accounting's `default_bank`): the bank of the user's
    /// jobs that name none (no Bank or Account cell), as the plugin puts the default bank in
    /// the jobspec of a job submitted without one.
    const std::unordered_map<std::string, std::string>* default_banks = nullptr;
    std::string assoc_file = "<string>"; ///< names for errors
    std::string conf_file = "<string>";
};

namespace detail {
/// Fair-share into `cl` from the association table (computed or from FairShare).
inline std::optional<input_error> flux_fairshare(slurm::cluster& cl, const assoc_table& assoc,
                                                 const std::optional<fairshare::algorithm>& algo,
                                                 const std::string& file) {
    if (!algo) return std::nullopt;
    if (!assoc.has_column("RawUsage") || !assoc.has_column("RawShares"))
        return make_error(file, 0, 0, "RawUsage",
                          "computing fair-share needs the RawShares and RawUsage columns");
    fairshare::options o;
    o.algo = *algo;
    auto done = apply_computed_fairshare(cl, assoc, o, file);
    if (!done) return done.error();
    return std::nullopt;
}
} // namespace detail

namespace detail {

/// The jobs of a Flux model without slurm.conf: read from the jobs table's own columns (JobID,
/// User, SubmitTime; EligibleTime, State, NumNodes, NumCPUs when there), each user's
/// association in the association table when one is given (its fair-share computed with
/// `in.algorithm`). `cols` holds each row's bank. The error of the first bad row, or none.
[[nodiscard]] inline std::optional<input_error> flux_own_jobs(flux_model& m, const flux_inputs& in,
                                                              const std::vector<flux_columns>& cols) {
    const table& t = *in.jobs;
    if (auto e = missing_column(t, {"JobID", "User", "SubmitTime"}, "the jobs table")) return e;
    if (in.assoc != nullptr) {
        for (const auto& r : in.assoc->rows)
            (void)m.own_cluster.add_association(r.account, r.user, r.fairshare.value_or(0.0));
        if (auto e = detail::flux_fairshare(m.own_cluster, *in.assoc, in.algorithm, in.assoc_file)) return *e;
    } else if (in.algorithm) {
        return make_error(t.file, 0, 0, {}, "computing fair-share needs an association table");
    }
    const std::size_t c_id = *t.column("JobID"), c_user = *t.column("User"), c_submit = *t.column("SubmitTime");
    const auto c_eligible = t.column("EligibleTime"), c_state = t.column("State"),
               c_nodes = t.column("NumNodes"), c_cpus = t.column("NumCPUs");
    std::unordered_map<std::string, std::uint32_t> users;
    std::unordered_map<std::uint32_t, bool> seen;
    for (std::size_t r = 0; r < t.rows.size(); ++r) {
        const auto& row = t.rows[r];
        row_reader cells(t, row, "job");
        const auto id = parse_unsigned<std::uint32_t>(cells.cell(c_id));
        if (!id || *id == 0)
            return cells.fail(c_id, "JobID " + text::quote(cells.cell(c_id)) + " is not an integer from 1 to 4294967295");
        cells.who = "job " + std::to_string(*id);
        if (!seen.emplace(*id, true).second) return cells.fail(c_id, "JobID is listed twice");
        flux::job j;
        j.id = *id;
        const std::string user(cells.cell(c_user));
        if (user.empty()) return cells.fail(c_user, "empty User");
        auto [it, fresh] = users.try_emplace(user, static_cast<std::uint32_t>(m.user_names.size()));
        if (fresh) m.user_names.push_back(user);
        j.user = it->second;
        if (cells.cell(c_submit).empty())
            return cells.fail(c_submit, "SubmitTime '' is not " + std::string(job_time_expected));
        if (auto e = job_time_cell(cells, c_submit, j.submit_time, "SubmitTime")) return e;
        j.accrue_time = j.submit_time;
        if (auto e = job_time_cell(cells, c_eligible, j.accrue_time, "EligibleTime")) return e;
        if (const std::string_view state = cells.cell(c_state); !state.empty()) {
            const auto st = detail::parse_job_state(state);
            if (!st) return cells.fail(*c_state, "unknown State " + text::quote(state));
            j.state = *st;
        }
        if (auto e = cells.count(c_nodes, j.min_nodes, "NumNodes")) return e;
        if (auto e = cells.count(c_cpus, j.cpus, "NumCPUs")) return e;
        j.association = no_val32;
        if (in.assoc != nullptr) {
            const std::string& bank = cols[r].bank;
            const auto a = in.assoc->find_user(bank, user);
            if (!a)
                return make_error(t.file, row.line, 0, "Bank",
                                  cells.who + ": no association for user " + text::quote(user) + " in bank " +
                                      text::quote(bank) + " in the association table");
            j.association = static_cast<std::uint32_t>(*a);
        }
        m.jobs.push_back(j);
        m.job_lines.push_back(row.line);
    }
    return std::nullopt;
}

} // namespace detail

/// Builds the model (see the file comment).
[[nodiscard]] inline expected<flux_model> build_flux_model(const flux_inputs& in) {
    MFPRIO_ASSERT(in.jobs != nullptr);
    const table& t = *in.jobs;
    flux_model m;
    auto cols = flux_columns_from(t);
    if (!cols) return cols.error();
    if (in.default_banks != nullptr) {
        if (const auto c_user = t.column("User")) {
            for (std::size_t r = 0; r < cols->size(); ++r) {
                if (!(*cols)[r].bank.empty()) continue;
                const auto it = in.default_banks->find(std::string(trim(t.rows[r].cells[*c_user])));
                if (it != in.default_banks->end()) (*cols)[r].bank = it->second;
            }
        }
    }

    if (in.conf != nullptr) {
        if (in.qos == nullptr || in.assoc == nullptr)
            return make_error(t.file, 0, 0, {}, "with slurm.conf, the QOS and association tables are needed too");
        auto jt = jobs_table_from(t, *in.conf, *in.qos, *in.assoc);
        if (!jt) return jt.error();
        auto sm = build_slurm_model(*in.conf, *in.qos, *in.assoc, *jt, in.conf_file);
        if (!sm) return sm.error();
        m.slurm = std::move(*sm);
        if (auto e = detail::flux_fairshare(m.slurm->cluster, *in.assoc, in.algorithm, in.assoc_file)) return *e;
        m.user_names = m.slurm->user_names;
        m.job_lines = m.slurm->job_lines;
        for (const job& j : m.slurm->jobs) {
            flux::job f;
            static_cast<job&>(f) = j;
            m.jobs.push_back(f);
        }
    } else if (auto e = detail::flux_own_jobs(m, in, *cols)) {
        return *e;
    }

    if (!m.slurm) m.own_cluster.finalize();

    // Queues, banks, urgency.
    if (in.queues != nullptr) {
        m.queues = *in.queues;
        for (const auto& q : m.queues) m.queue_priority.push_back(q.priority);
    }
    if (in.banks != nullptr) {
        m.banks = *in.banks;
        for (const auto& b : m.banks) m.bank_priority.push_back(b.priority);
    }
    // Rows of the jobs table and jobs correspond one to one, in order, on both paths.
    MFPRIO_ASSERT(m.jobs.size() == cols->size());
    for (std::size_t r = 0; r < m.jobs.size(); ++r) {
        const auto& f = (*cols)[r];
        flux::job& j = m.jobs[r];
        j.urgency = f.urgency;
        if (!f.queue.empty()) {
            const auto q = find_named(m.queues, f.queue);
            j.queue = q ? static_cast<std::uint32_t>(*q) : static_cast<std::uint32_t>(m.queue_priority.size()); // unknown: past the table
        }
        if (!f.bank.empty()) {
            const auto b = find_named(m.banks, f.bank);
            j.bank = b ? static_cast<std::uint32_t>(*b) : static_cast<std::uint32_t>(m.bank_priority.size());
        }
    }
    // Submission order.
    std::vector<std::size_t> order(m.jobs.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        if (m.jobs[a].submit_time != m.jobs[b].submit_time) return m.jobs[a].submit_time < m.jobs[b].submit_time;
        return m.jobs[a].id < m.jobs[b].id;
    });
    for (std::size_t k = 0; k < order.size(); ++k) m.jobs[order[k]].submit_seq = k;
    return m;
}

} // namespace mfprio::config
