#pragma once
/// \file
/// Billable TRES: how much usage a job is charged per second (Slurm's
/// `calc_job_billable_tres` / `assoc_mgr_tres_weighted`, reference §2.3), from a partition's
/// `TRESBillingWeights` and PriorityFlags `MAX_TRES` / `MAX_TRES_GRES`.
///
/// Inputs are plain values so this layer stays below config/: TRES are named canonically
/// as the slurm.conf reader names them ("cpu", "mem", "node", "energy", "gres/gpu",
/// "gres/gpu:a100", "license/foo", "bb/datawarp", ...), counts are Slurm's allocated TRES
/// counts (mem in MB), and weights are per base unit, already unit-converted
/// (`Mem=0.25G` is 0.25/1024 per MB).
///
/// - No weights configured for the partition: billable = the job's CPUs (its "cpu" count).
/// - Otherwise every TRES except `billing` contributes w·count (a TRES without a weight
///   contributes 0), and the mode decides how the contributions combine:
///   `sum` adds all; `max_tres` takes max(cpu, mem, node, gres/*) + Σ the others (licenses,
///   burst buffers, ...); `max_tres_gres` takes Σ gres/* + max(cpu, mem, node) + Σ others.
/// - Contributions are accumulated in the order the job lists its TRES; list them in
///   Slurm's TRES id order (cpu, mem, energy, node, billing, fs/disk, vmem, pages, then the
///   cluster's GRES, licenses and burst buffers) to get Slurm's double sums bit for bit.
/// - Usage is charged with the double result; the `billing` TRES count Slurm stores on the
///   job is that value truncated (`billing_tres_count`).

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mfprio::fairshare {

/// How weighted TRES combine into the billable value (PriorityFlags).
enum class billing_mode : std::uint8_t {
    sum,           ///< default: Σ w·count
    max_tres,      ///< MAX_TRES: max over node TRES (cpu, mem, node, gres/*) + Σ the others
    max_tres_gres, ///< MAX_TRES_GRES (25.05+): Σ gres/* + max(cpu, mem, node) + Σ the others
};

/// Where a TRES goes in MAX_TRES / MAX_TRES_GRES.
enum class tres_group : std::uint8_t {
    node,    ///< cpu, mem, node
    gres,    ///< gres/* (a node TRES under MAX_TRES, summed under MAX_TRES_GRES)
    global,  ///< everything else: license/*, bb/*, energy, fs/disk, vmem, pages, ...
    billing, ///< the `billing` TRES itself: never weighted
};

/// The group of a canonical TRES name.
[[nodiscard]] constexpr tres_group group_of(std::string_view name) noexcept {
    if (name == "cpu" || name == "mem" || name == "node") return tres_group::node;
    if (name == "billing") return tres_group::billing;
    if (name.substr(0, 5) == "gres/") return tres_group::gres;
    return tres_group::global;
}

/// One allocated TRES of a job: canonical name and Slurm's count (mem in MB).
struct tres_count {
    std::string_view name;
    std::uint64_t count = 0;
};

/// A partition's `TRESBillingWeights`: one weight per canonical TRES name, per base unit.
/// Empty means "not configured" (bill CPUs).
class billing_weights {
public:
    /// One weighted TRES.
    struct entry {
        std::string name;
        double weight = 0.0;
        tres_group group = tres_group::global;
    };

    billing_weights() = default;

    /// Sets the weight of TRES `name` (canonical); a repeated name takes the last weight,
    /// as Slurm's parser does.
    billing_weights& set(std::string_view name, double weight) {
        for (auto& e : entries_)
            if (e.name == name) {
                e.weight = weight;
                return *this;
            }
        entries_.push_back({.name = std::string(name), .weight = weight, .group = group_of(name)});
        return *this;
    }

    /// True when no TRESBillingWeights are configured.
    [[nodiscard]] bool empty() const noexcept { return entries_.empty(); }
    /// The weighted TRES in the order they were set.
    [[nodiscard]] std::span<const entry> entries() const noexcept { return entries_; }
    /// The weight of `name`, 0 when it has none.
    [[nodiscard]] double weight_of(std::string_view name) const noexcept {
        for (const auto& e : entries_)
            if (e.name == name) return e.weight;
        return 0.0;
    }

private:
    std::vector<entry> entries_;
};

/// The job's billable TRES (a double) under `weights` and `mode` (see the file comment).
/// With no weights it is the job's "cpu" count (Slurm's job total_cpus).
[[nodiscard]] inline double billable_tres(std::span<const tres_count> job, const billing_weights& weights,
                                          billing_mode mode = billing_mode::sum) noexcept {
    if (weights.empty()) {
        for (const auto& t : job)
            if (t.name == "cpu") return static_cast<double>(t.count);
        return 0.0;
    }
    double node_max = 0.0; // Slurm starts its max at 0
    double summed = 0.0;
    for (const auto& t : job) {
        const tres_group g = group_of(t.name);
        if (g == tres_group::billing) continue;
        const double v = static_cast<double>(t.count) * weights.weight_of(t.name);
        const bool in_max = (mode == billing_mode::max_tres && (g == tres_group::node || g == tres_group::gres)) ||
                            (mode == billing_mode::max_tres_gres && g == tres_group::node);
        if (in_max) {
            if (v > node_max) node_max = v;
        } else {
            summed += v;
        }
    }
    return node_max + summed;
}

/// The `billing` TRES count Slurm stores on the job: the billable value truncated toward
/// zero (tres.shtml: 4.5 is stored as 4). Negative values (negative weights) give 0.
[[nodiscard]] constexpr std::uint64_t billing_tres_count(double billable) noexcept {
    if (!(billable > 0.0)) return 0;
    if (billable >= 18446744073709551616.0) return UINT64_MAX;
    return static_cast<std::uint64_t>(billable);
}

} // namespace mfprio::fairshare
