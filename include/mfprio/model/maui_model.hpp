#pragma once
/// \file
/// A Maui model ready to prioritize: maui.cfg, a jobs table, the cluster's resources and,
/// optionally, Maui's fair-share window files, resolved into the credential tables, job
/// records and context the engine reads.
///
/// Credentials: each kind's table holds the credentials of maui.cfg in file order (except
/// `DEFAULT`, which becomes the context's default of that kind), then the names first seen
/// in the fair-share files, then those first seen in the jobs table. A name only in the
/// jobs has no priority and no target of its own: the DEFAULT credential's apply, as in Maui.
///
/// UPROC and UJOB count the running jobs of the jobs table by user. Fair-share: the windows'
/// usage is loaded into a `maui::fs_ledger` (window 0 the current one) and each credential's
/// usage percentage written into its table; the FS component is active when FSPOLICY is not
/// NONE and the delivered total is positive.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <mfprio/core/expected.hpp>
#include <mfprio/read/maui_cfg.hpp>
#include <mfprio/read/maui_fs.hpp>
#include <mfprio/read/maui_jobs.hpp>
#include <mfprio/maui/context.hpp>
#include <mfprio/maui/fairshare.hpp>
#include <mfprio/maui/job.hpp>
#include <mfprio/maui/model.hpp>
#include <mfprio/maui/priority.hpp>

namespace mfprio::config {

/// Everything a Maui pass needs, owned. `context()` gives views into it.
struct maui_model {
    maui_cfg cfg;                                                        ///< maui.cfg as read
    std::int64_t now = 0;                                                ///< the pass's time
    std::array<std::vector<std::string>, maui::cred_kind_count> names;   ///< credential names by kind
    std::array<std::vector<maui::credential>, maui::cred_kind_count> creds; ///< credentials by kind (same order)
    std::array<maui::credential, maui::cred_kind_count> defaults{};      ///< the DEFAULT credentials
    std::vector<maui::job> jobs;                                         ///< jobs, credential indices resolved
    std::vector<std::size_t> job_lines;                                  ///< each job's line in the jobs table
    std::vector<std::uint32_t> user_active_procs, user_active_jobs;      ///< by user: running processors and jobs
    std::vector<maui::requirement> requirements;                         ///< requirement lists of the jobs with a Req
    maui::resources cluster{};                                           ///< configured resources
    bool fs_active = false;                                              ///< the FS component is computed
    std::size_t fs_windows = 0;                                          ///< windows loaded from files

    /// The evaluation context: views into this model (valid while it lives unchanged).
    [[nodiscard]] maui::context context() const noexcept {
        maui::context c;
        c.now = now;
        c.opts = cfg.opts;
        for (std::size_t k = 0; k < maui::cred_kind_count; ++k) c.creds[k] = creds[k];
        c.defaults = defaults;
        c.fs_active = fs_active;
        c.cluster = cluster;
        c.user_active_procs = user_active_procs;
        c.user_active_jobs = user_active_jobs;
        c.requirements = requirements;
        return c;
    }
    /// The engine configured by maui.cfg's weights, caps and options.
    [[nodiscard]] maui::maui_engine engine() const { return maui::make_maui_engine(cfg.weights, cfg.opts); }
    /// The name of credential `i` of kind `k`, or "" for `no_cred`.
    [[nodiscard]] std::string_view name(maui::cred_kind k, std::uint32_t i) const noexcept {
        const auto& table = names[maui::index(k)];
        return i < table.size() ? std::string_view(table[i]) : std::string_view{};
    }
};

namespace detail {
/// Name -> index per credential kind, growing the model's tables for new names.
struct maui_cred_index {
    maui_model& m;
    std::array<std::unordered_map<std::string, std::uint32_t>, maui::cred_kind_count> map{};
    std::uint32_t get(std::size_t k, const std::string& name) {
        const auto it = map[k].find(name);
        if (it != map[k].end()) return it->second;
        const auto i = static_cast<std::uint32_t>(m.names[k].size());
        m.names[k].push_back(name);
        m.creds[k].push_back(maui::credential{});
        map[k].emplace(name, i);
        return i;
    }
};
} // namespace detail

/// Builds the model (see the file comment). `windows` are the fair-share windows for `now`
/// (`read_fs_dir`), current first; none when empty. Errors: a user with more running
/// processors or jobs than 32 bits hold.
[[nodiscard]] inline expected<maui_model> build_maui_model(maui_cfg cfg, const maui_jobs_table& table,
                                                           const maui::resources& cluster, std::int64_t now,
                                                           const std::vector<maui_fs_window>& windows = {}) {
    maui_model m;
    m.cfg = std::move(cfg);
    m.now = now;
    m.cluster = cluster;
    detail::maui_cred_index idx{m};
    for (std::size_t k = 0; k < maui::cred_kind_count; ++k) {
        for (const auto& c : m.cfg.creds[k]) {
            if (c.name == "DEFAULT") {
                m.defaults[k] = c.cred;
                continue;
            }
            m.creds[k][idx.get(k, c.name)] = c.cred;
        }
    }
    if (!m.cfg.apply_group_class_weight) {
        m.defaults[maui::index(maui::cred_kind::group)].class_weight = 0;
        for (auto& g : m.creds[maui::index(maui::cred_kind::group)]) g.class_weight = 0;
    }
    for (const auto& w : windows)
        for (std::size_t k = 0; k < maui::cred_kind_count; ++k)
            for (const auto& [name, value] : w.usage[k]) (void)idx.get(k, name);

    m.jobs.reserve(table.jobs.size());
    for (const auto& row : table.jobs) {
        maui::job j = row.job;
        std::array<std::uint32_t*, maui::cred_kind_count> fields{&j.user, &j.group, &j.account, &j.qos, &j.job_class};
        for (std::size_t k = 0; k < maui::cred_kind_count; ++k)
            *fields[k] = row.creds[k].empty() ? maui::no_cred : idx.get(k, row.creds[k]);
        if (!row.reqs.empty()) {
            j.req = static_cast<std::uint32_t>(m.requirements.size() + 1);
            m.requirements.insert(m.requirements.end(), row.reqs.begin(), row.reqs.end());
        }
        m.jobs.push_back(j);
        m.job_lines.push_back(row.line);
    }

    // UPROC / UJOB from the running jobs.
    const std::size_t users = m.names[maui::index(maui::cred_kind::user)].size();
    std::vector<std::uint64_t> procs(users, 0), count(users, 0);
    for (std::size_t n = 0; n < m.jobs.size(); ++n) {
        const auto& j = m.jobs[n];
        if (j.state != job_state::running || j.user == maui::no_cred) continue;
        procs[j.user] += j.procs;
        count[j.user] += 1;
        if (procs[j.user] > 0xffffffffu)
            return make_error(table.file, table.jobs[n].line, 0, "Procs",
                              "user " + text::quote(m.names[0][j.user]) +
                                  " has more running processors than 4294967295");
    }
    m.user_active_procs.assign(procs.begin(), procs.end());
    m.user_active_jobs.assign(count.begin(), count.end());

    // Fair-share.
    std::array<std::size_t, maui::cred_kind_count> sizes{};
    for (std::size_t k = 0; k < maui::cred_kind_count; ++k) sizes[k] = m.creds[k].size();
    maui::fs_ledger ledger(m.cfg.fs, sizes);
    const std::size_t n_windows = std::min(windows.size(), ledger.depth());
    for (std::size_t w = 0; w < n_windows; ++w) {
        for (std::size_t k = 0; k < maui::cred_kind_count; ++k)
            for (const auto& [name, value] : windows[w].usage[k])
                ledger.set_usage(static_cast<maui::cred_kind>(k), idx.get(k, name), w, value);
        ledger.set_total(w, windows[w].total);
    }
    m.fs_windows = n_windows;
    std::array<std::span<maui::credential>, maui::cred_kind_count> spans{};
    for (std::size_t k = 0; k < maui::cred_kind_count; ++k) spans[k] = m.creds[k];
    const bool positive = ledger.apply(spans);
    m.fs_active = m.cfg.opts.fs_policy != maui::fs_metric::none && positive;
    return m;
}

} // namespace mfprio::config
