#pragma once
/// \file
/// `slurm::cluster`: owning tables (partitions, QOS, associations, TRES, names) behind a
/// `slurm::context`. Fill it from code or from the config readers, call `finalize()`, then
/// take `view(now)` for each pass. Names are kept for reports; factors never read them.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <mfprio/core/assert.hpp>
#include <mfprio/core/job.hpp>
#include <mfprio/slurm/context.hpp>
#include <mfprio/slurm/tres.hpp>

namespace mfprio::slurm {

/// The tables a Slurm priority pass reads, with their names.
class cluster {
public:
    cluster() = default;

    /// TRES ids and names: Slurm's eight fixed TRES, then GRES, licenses and burst buffers
    /// in the order they are added.
    [[nodiscard]] const std::vector<std::string>& tres_names() const noexcept { return tres_names_; }
    [[nodiscard]] std::optional<std::uint32_t> find_tres(std::string_view name) const {
        for (std::size_t i = 0; i < tres_names_.size(); ++i)
            if (tres_names_[i] == name) return static_cast<std::uint32_t>(i);
        return std::nullopt;
    }
    /// The id of TRES `name`, adding it if it is new.
    std::uint32_t tres(std::string_view name) {
        if (auto id = find_tres(name)) return *id;
        tres_names_.emplace_back(name);
        finalized_ = false;
        return static_cast<std::uint32_t>(tres_names_.size() - 1);
    }

    /// Cluster totals for job size (every node, every node's CPUs).
    void set_totals(std::uint32_t node_count, std::uint32_t cpus) noexcept {
        node_count_ = node_count;
        cpus_ = cpus;
    }
    [[nodiscard]] std::uint32_t node_count() const noexcept { return node_count_; }
    [[nodiscard]] std::uint32_t cpus() const noexcept { return cpus_; }

    /// Adds a partition; `tres_totals` is indexed by TRES id (missing ids count as 0).
    std::uint32_t add_partition(std::string name, std::uint32_t priority_job_factor, std::uint32_t priority_tier,
                                std::uint32_t max_time, std::vector<double> tres_totals = {}) {
        partition_names_.push_back(std::move(name));
        partition_info p{};
        p.priority_job_factor = priority_job_factor;
        p.priority_tier = priority_tier;
        p.max_time = max_time;
        partitions_.push_back(p);
        partition_tres_.push_back(std::move(tres_totals));
        finalized_ = false;
        return static_cast<std::uint32_t>(partitions_.size() - 1);
    }
    /// Sets partition `p`'s count of TRES `id`.
    void set_partition_tres(std::uint32_t p, std::uint32_t id, double count) {
        MFPRIO_ASSERT(p < partition_tres_.size());
        auto& v = partition_tres_[p];
        if (v.size() <= id) v.resize(id + 1, 0.0);
        v[id] = count;
        finalized_ = false;
    }

    std::uint32_t add_qos(std::string name, std::uint32_t priority, double usage_factor = 1.0) {
        qos_names_.push_back(std::move(name));
        qos_.push_back(qos_info{.priority = priority, .norm_priority = 0.0, .usage_factor = usage_factor});
        finalized_ = false;
        return static_cast<std::uint32_t>(qos_.size() - 1);
    }

    /// Adds an association (user empty for account associations) with its fair-share factor
    /// and its Priority.
    std::uint32_t add_association(std::string account, std::string user, double fairshare, std::uint32_t priority = 0) {
        assoc_accounts_.push_back(std::move(account));
        assoc_users_.push_back(std::move(user));
        fairshare_.push_back(fairshare);
        assoc_priority_.push_back(priority);
        finalized_ = false;
        return static_cast<std::uint32_t>(fairshare_.size() - 1);
    }
    /// Replaces association `a`'s fair-share factor (after a fair-share pass).
    void set_fairshare(std::uint32_t a, double value) {
        MFPRIO_ASSERT(a < fairshare_.size());
        fairshare_[a] = value;
    }

    /// Computes the normalized priorities (Slurm's way: value over the maximum, partitions
    /// over max(1, max PriorityJobFactor)) and binds the views. Call after the last change.
    void finalize() {
        std::uint32_t part_max = 1;
        for (const auto& p : partitions_) part_max = std::max(part_max, p.priority_job_factor);
        for (std::size_t i = 0; i < partitions_.size(); ++i) {
            partitions_[i].norm_priority = normalize_priority(partitions_[i].priority_job_factor, part_max);
            partitions_[i].tres_totals = partition_tres_[i];
        }
        std::uint32_t qos_max = 0;
        for (const auto& q : qos_) qos_max = std::max(qos_max, q.priority);
        for (auto& q : qos_) q.norm_priority = normalize_priority(q.priority, qos_max);
        std::uint32_t assoc_max = 0;
        for (auto v : assoc_priority_) assoc_max = std::max(assoc_max, v);
        assoc_priority_norm_.resize(assoc_priority_.size());
        for (std::size_t i = 0; i < assoc_priority_.size(); ++i)
            assoc_priority_norm_[i] = normalize_priority(assoc_priority_[i], assoc_max);
        part_max_ = part_max;
        qos_max_ = qos_max;
        assoc_max_ = assoc_max;
        finalized_ = true;
    }

    /// The context of a pass that starts at `now`. The cluster must be finalized and must
    /// outlive the context.
    [[nodiscard]] context view(std::int64_t now) const noexcept {
        MFPRIO_ASSERT(finalized_);
        context c{};
        c.now = now;
        c.node_count = node_count_;
        c.cluster_cpus = cpus_;
        c.partitions = partitions_;
        c.qos = qos_;
        c.fairshare = fairshare_;
        c.assoc_priority = assoc_priority_;
        c.assoc_priority_norm = assoc_priority_norm_;
        return c;
    }

    [[nodiscard]] bool finalized() const noexcept { return finalized_; }
    [[nodiscard]] const std::vector<std::string>& partition_names() const noexcept { return partition_names_; }
    [[nodiscard]] const std::vector<partition_info>& partitions() const noexcept { return partitions_; }
    [[nodiscard]] const std::vector<std::string>& qos_names() const noexcept { return qos_names_; }
    [[nodiscard]] const std::vector<qos_info>& qos() const noexcept { return qos_; }
    [[nodiscard]] const std::vector<std::string>& assoc_accounts() const noexcept { return assoc_accounts_; }
    [[nodiscard]] const std::vector<std::string>& assoc_users() const noexcept { return assoc_users_; }
    [[nodiscard]] const std::vector<double>& fairshare() const noexcept { return fairshare_; }
    [[nodiscard]] const std::vector<std::uint32_t>& assoc_priority() const noexcept { return assoc_priority_; }
    [[nodiscard]] std::uint32_t partition_max_priority() const noexcept { return part_max_; }
    [[nodiscard]] std::uint32_t qos_max_priority() const noexcept { return qos_max_; }
    [[nodiscard]] std::uint32_t assoc_max_priority() const noexcept { return assoc_max_; }

    [[nodiscard]] std::optional<std::uint32_t> find_partition(std::string_view name) const {
        for (std::size_t i = 0; i < partition_names_.size(); ++i)
            if (partition_names_[i] == name) return static_cast<std::uint32_t>(i);
        return std::nullopt;
    }
    [[nodiscard]] std::optional<std::uint32_t> find_qos(std::string_view name) const {
        for (std::size_t i = 0; i < qos_names_.size(); ++i)
            if (qos_names_[i] == name) return static_cast<std::uint32_t>(i);
        return std::nullopt;
    }

private:
    std::vector<std::string> tres_names_{"cpu", "mem", "energy", "node", "billing", "fs/disk", "vmem", "pages"};
    std::uint32_t node_count_ = 0;
    std::uint32_t cpus_ = 0;
    std::vector<std::string> partition_names_;
    std::vector<partition_info> partitions_;
    std::vector<std::vector<double>> partition_tres_;
    std::vector<std::string> qos_names_;
    std::vector<qos_info> qos_;
    std::vector<std::string> assoc_accounts_;
    std::vector<std::string> assoc_users_;
    std::vector<double> fairshare_;
    std::vector<std::uint32_t> assoc_priority_;
    std::vector<double> assoc_priority_norm_;
    std::uint32_t part_max_ = 1, qos_max_ = 0, assoc_max_ = 0;
    bool finalized_ = false;
};

} // namespace mfprio::slurm
