#pragma once
/// \file
/// sprio's twin: the rows sprio prints for a Slurm model at slurmctld's last recalculation
/// (or any time), each job's stored priority placed in time, and the GPU usage the site
/// plugin reads. What `mfprio sprio`, `whatif` and `--verify` compute before they print.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include <mfprio/model/slurm_cluster.hpp>
#include <mfprio/model/slurm_model.hpp>
#include <mfprio/read/slurm_native.hpp>
#include <mfprio/read/sprio_listing.hpp>
#include <mfprio/replay/slurm_stored.hpp>
#include <mfprio/report/sprio.hpp>
#include <mfprio/report/sprio_verify.hpp>

namespace mfprio::report {

/// The time sprio's factors stand for (slurmctld's last recalculation for a cluster's own
/// outputs, else the current time, unless --now says), and when sprio asked (the capture's
/// time where known).
struct sprio_times {
    std::int64_t calc = 0;
    std::int64_t listed = 0;
    bool from_cluster = false; ///< calc is the cluster's own recalculation time
};

/// Places each job's stored priority in time (replay/slurm_stored.hpp) when the factors stand
/// for the cluster's own last recalculation; nothing otherwise (files, or --now). `listing`:
/// what sprio printed, the one evidence of a priority set by an administrator.
[[nodiscard]] inline config::stored_priorities place_stored(config::slurm_model& model, bool fairshare_taken,
                                                            const sprio_times& t, const config::sprio_listing* listing) {
    if (!t.from_cluster) return {};
    const double slack = fairshare_taken ? static_cast<double>(model.weights.fairshare) * 5e-7 : 0.0;
    return config::place_stored_priorities(model, t.calc, t.listed, slack, listing);
}

/// sprio's rows as mfprio computes them for `model` (of a Slurm release `slurm_version`) at `t` (its recalculation's time, listed when
/// sprio asked). A job in several partitions shows in each row a TRES its partition has none
/// of as the job record's partition weighted it, weighted again (22.05 to 26.05 alike)
/// (sprio_rows' `record_partitions`): the record's partition is the first the job
/// lists (where submission puts it), or, where sprio's own rows (`listing`) show the job, the
/// one of its partitions that gives them (the scheduler moves it from one to the next).
[[nodiscard]] inline std::vector<sprio_row> sprio_rows_of(const config::slurm_model& model, std::string_view slurm_version,
                                                          const sprio_times& t, const config::sprio_listing* listing = nullptr) {
    const auto e = model.engine();
    const auto c = model.context(t.calc);
    const auto release = config::slurm_version_number(slurm_version);
    std::vector<std::uint32_t> records(model.jobs.size(), no_record_partition);
    for (std::size_t k = 0; k < model.jobs.size() && k < model.lists.size(); ++k)
        if (model.lists[k].partitions.size() > 1) records[k] = model.lists[k].partitions.front();
    const auto rows_of = [&](std::size_t first, std::size_t n) {
        const auto begins = first < model.begin_times.size()
                                ? std::span<const std::int64_t>(model.begin_times).subspan(first, std::min(n, model.begin_times.size() - first))
                                : std::span<const std::int64_t>{};
        return sprio_rows(e, model.cluster, std::span<const job>(model.jobs).subspan(first, n),
                          std::span<const slurm::job_lists>(model.lists).subspan(first, n), c, model.settings.flags,
                          model.user_names, begins, t.listed, std::span<const std::uint32_t>(records).subspan(first, n),
                          release);
    };
    const auto placed = [&](std::vector<sprio_row> r) {
        set_list_places(r, model.jobs, model.list_places);
        return r;
    };
    auto rows = rows_of(0, model.jobs.size());
    if (listing == nullptr) return placed(std::move(rows));
    // Where sprio's rows of a job in several partitions differ, the partition of its record
    // that gives them, if one does.
    bool changed = false;
    for (std::size_t k = 0; k < model.jobs.size() && k < model.lists.size(); ++k) {
        const auto& parts = model.lists[k].partitions;
        if (parts.size() < 2) continue;
        config::sprio_listing own;
        own.whole_fields = listing->whole_fields;
        own.widths = listing->widths;
        for (const auto* r : listing->rows_of(model.jobs[k].id)) own.rows.push_back(*r);
        if (own.rows.empty()) continue;
        own.index();
        const sprio_weights w{model.weights, model.tres_weight_text};
        if (compare_sprio(rows_of(k, 1), w, own).empty()) continue;
        for (const std::uint32_t x : parts) {
            if (x == records[k]) continue;
            const std::uint32_t was = records[k];
            records[k] = x;
            if (compare_sprio(rows_of(k, 1), w, own).empty()) {
                changed = true;
                break;
            }
            records[k] = was;
        }
    }
    return placed(changed ? rows_of(0, model.jobs.size()) : std::move(rows));
}

/// Each association's GPU usage in whole minutes as `scontrol show assoc_mgr` printed it
/// (nullopt where the inputs have none).
[[nodiscard]] inline std::vector<std::optional<std::uint64_t>> gpu_minutes_of(const config::assoc_table& assoc) {
    std::vector<std::optional<std::uint64_t>> out(assoc.rows.size());
    for (std::size_t i = 0; i < assoc.rows.size(); ++i) out[i] = assoc.rows[i].gpu_minutes;
    return out;
}

} // namespace mfprio::report
