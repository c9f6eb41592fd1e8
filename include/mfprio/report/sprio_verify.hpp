#pragma once
/// \file
/// mfprio's sprio rows against what sprio itself printed (config/sprio_listing.hpp), job by
/// job and factor by factor: each column as sprio prints it, from the same formatting code
/// that renders mfprio's sprio.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <mfprio/read/sprio_listing.hpp>
#include <mfprio/report/sprio.hpp>

namespace mfprio::report {

/// A row of sprio and mfprio that differ, or a row only one of them lists.
struct sprio_difference {
    std::uint32_t job_id = 0;
    std::string partition;
    std::size_t line = 0;            ///< the row's line in the listing (0: sprio does not list it)
    std::vector<std::string> columns; ///< "AGE: sprio 4, mfprio 6", one a differing column
    bool only_sprio = false, only_mfprio = false;

    /// "job 7 (big): AGE: sprio 4, mfprio 6; PRIORITY: sprio 40387, mfprio 40389".
    [[nodiscard]] std::string to_string() const { return "job " + std::to_string(job_id) + " " + what(); }
    /// What differs, without the job: "(big): AGE: sprio 4, mfprio 6".
    [[nodiscard]] std::string what() const {
        std::string s = "(" + partition + "): ";
        if (only_sprio) return s + "listed by sprio, not by mfprio";
        if (only_mfprio) return s + "listed by mfprio, not by sprio";
        for (std::size_t k = 0; k < columns.size(); ++k) s += (k ? "; " : "") + columns[k];
        return s;
    }
};

/// Row `r`'s columns as sprio prints them (each field whole).
[[nodiscard]] inline std::array<std::string, config::sprio_column_count> sprio_cells(const sprio_row& r,
                                                                                    const sprio_weights& w) {
    std::array<std::string, config::sprio_column_count> out;
    for (std::size_t c = 0; c < out.size(); ++c) {
        sprio_field f;
        f.type = config::sprio_column_letters[c];
        detail::put_value(out[c], f, r, w, {});
    }
    return out;
}

namespace detail {

/// Calls `f(ours, theirs)` for each row of `rows` and of `listing` matched by job and
/// partition entry (in order within one, for a job listed once per QOS); one of the two is
/// null for a row only one side lists. In job id order.
template <class F>
void each_sprio_pair(std::span<const sprio_row> rows, const config::sprio_listing& listing, F&& f) {
    // Both sides sorted by (job, partition), stably (a job's rows per QOS stay in order), then
    // merged: one sort of pointers each, where a map of the pairs costs a node per row.
    const auto key = [](const auto* r) { return std::pair<std::uint32_t, std::string_view>(r->job_id, r->partition); };
    const auto by_key = [&](const auto* a, const auto* b) { return key(a) < key(b); };
    std::vector<const sprio_row*> ours;
    std::vector<const config::sprio_listing_row*> theirs;
    ours.reserve(rows.size());
    theirs.reserve(listing.rows.size());
    for (const auto& r : rows) ours.push_back(&r);
    for (const auto& r : listing.rows) theirs.push_back(&r);
    std::stable_sort(ours.begin(), ours.end(), by_key);
    std::stable_sort(theirs.begin(), theirs.end(), by_key);
    std::size_t i = 0, j = 0;
    while (i < ours.size() || j < theirs.size()) {
        const auto k = i == ours.size()     ? key(theirs[j])
                       : j == theirs.size() ? key(ours[i])
                                            : std::min(key(ours[i]), key(theirs[j]));
        std::size_t i_end = i, j_end = j;
        while (i_end < ours.size() && key(ours[i_end]) == k) ++i_end;
        while (j_end < theirs.size() && key(theirs[j_end]) == k) ++j_end;
        for (std::size_t n = 0; n < std::max(i_end - i, j_end - j); ++n)
            f(i + n < i_end ? ours[i + n] : nullptr, j + n < j_end ? theirs[j + n] : nullptr);
        i = i_end;
        j = j_end;
    }
}

} // namespace detail

/// The differences between `rows` (mfprio's) and `listing` (sprio's), rows matched by job
/// and partition entry (in order within one, for a job listed once per QOS). A column the
/// listing does not have is not compared; in spaced columns a value as wide as its column is
/// compared as far as sprio printed it (it cuts a value at the column's width: SITE's
/// -2147483648, a long TRES text). Ordered by job id.
[[nodiscard]] inline std::vector<sprio_difference> compare_sprio(std::span<const sprio_row> rows,
                                                                 const sprio_weights& w,
                                                                 const config::sprio_listing& listing) {
    std::vector<sprio_difference> out;
    detail::each_sprio_pair(rows, listing, [&](const sprio_row* ours, const config::sprio_listing_row* theirs) {
        sprio_difference d;
        d.job_id = ours ? ours->job_id : theirs->job_id;
        d.partition = ours ? ours->partition : theirs->partition;
        d.line = theirs ? theirs->line : 0;
        if (!ours || !theirs) {
            d.only_sprio = !ours;
            d.only_mfprio = !theirs;
            out.push_back(std::move(d));
            return;
        }
        const auto cells = sprio_cells(*ours, w);
        for (std::size_t c = 0; c < config::sprio_column_count; ++c) {
            const auto& v = theirs->cells[c];
            if (!v) continue;
            const std::string& mine = cells[c];
            bool same = *v == mine;
            if (!same && listing.widths[c] != 0)
                same = v->size() == listing.widths[c] && mine.size() > v->size() && mine.starts_with(*v);
            if (!same)
                d.columns.push_back(std::string(config::sprio_column_names[c]) + ": sprio " +
                                    (v->empty() ? "(empty)" : *v) + ", mfprio " + (mine.empty() ? "(empty)" : mine));
        }
        if (!d.columns.empty()) out.push_back(std::move(d));
    });
    return out;
}

/// A weight sprio's rows were computed with that is not the configured one: every integer
/// weight from `low` to `high` gives each of `rows` rows the value sprio printed for it in
/// that column, from the factor mfprio computes, and the configured weight does not.
struct shown_weight {
    config::sprio_column column{};
    std::string_view key;        ///< the weight's slurm.conf key
    std::uint32_t configured = 0;
    std::uint64_t low = 0, high = 0;
    std::size_t rows = 0;

    [[nodiscard]] bool unique() const noexcept { return low == high; }
    /// "PriorityWeightPartition=4000" or "PriorityWeightFairshare=49999..50001".
    [[nodiscard]] std::string value_text() const {
        return std::string(key) + "=" + std::to_string(low) + (unique() ? "" : ".." + std::to_string(high));
    }
};

/// The weights sprio's rows show where they are not the configured ones (see shown_weight),
/// for AGE, ASSOC, FAIRSHARE, JOBSIZE, PARTITION and QOS: what slurmctld holds after a
/// reconfigure until its next recalculation (it keeps each job's weighted factors), or what
/// an input that is not the cluster's gives. A column whose rows no single weight explains,
/// or whose configured weight is 0 (the factor is then unknown), is left out. Rows of a
/// priority set by an administrator carry no factor and are passed over, and so is the
/// PARTITION of a job in several partitions: slurmctld computes it for sprio with the weight
/// of the moment (priority_multifactor.c, `_filter_job`).
[[nodiscard]] inline std::vector<shown_weight> weights_shown(std::span<const sprio_row> rows, const sprio_weights& w,
                                                              const config::sprio_listing& listing) {
    struct column_of {
        config::sprio_column column;
        std::string_view key;
        std::uint32_t weight;
        double slurm::weighted_factors::*factor;
    };
    const column_of columns[] = {
        {config::sprio_column::age, config::key_name(config::slurm_conf_setting::weight_age), w.w.age, &slurm::weighted_factors::age},
        {config::sprio_column::assoc, config::key_name(config::slurm_conf_setting::weight_assoc), w.w.assoc, &slurm::weighted_factors::assoc},
        {config::sprio_column::fairshare, config::key_name(config::slurm_conf_setting::weight_fairshare), w.w.fairshare,
         &slurm::weighted_factors::fairshare},
        {config::sprio_column::job_size, config::key_name(config::slurm_conf_setting::weight_job_size), w.w.job_size,
         &slurm::weighted_factors::job_size},
        {config::sprio_column::partition, config::key_name(config::slurm_conf_setting::weight_partition), w.w.partition,
         &slurm::weighted_factors::part},
        {config::sprio_column::qos, config::key_name(config::slurm_conf_setting::weight_qos), w.w.qos, &slurm::weighted_factors::qos_term},
    };
    std::vector<std::uint32_t> several; // jobs listed in more than one partition
    for (std::size_t k = 0; k < rows.size(); ++k)
        for (std::size_t i = k + 1; i < rows.size() && rows[i].job_id == rows[k].job_id; ++i)
            if (rows[i].partition != rows[k].partition) several.push_back(rows[k].job_id);
    std::sort(several.begin(), several.end());
    std::vector<shown_weight> out;
    for (const auto& c : columns) {
        if (c.weight == 0) continue;
        double low = 0, high = 4294967295.0;
        std::size_t n = 0;
        bool consistent = true;
        detail::each_sprio_pair(rows, listing, [&](const sprio_row* ours, const config::sprio_listing_row* theirs) {
            if (!consistent || !ours || !theirs || ours->direct_priority != 0 || ours->nice == -2147483648LL) return;
            if (c.column == config::sprio_column::partition &&
                std::binary_search(several.begin(), several.end(), ours->job_id))
                return;
            const auto& cell = (*theirs)[c.column];
            if (!cell) return;
            const auto printed = text::parse_signed<std::int64_t>(*cell);
            if (!printed) return;
            const double f = ours->factors.*c.factor / static_cast<double>(c.weight);
            const auto p = static_cast<double>(*printed);
            if (!(f > 0)) {
                consistent = p == 0;
                return;
            }
            // sprio prints %.0f of factor x weight: the weights whose product rounds to p.
            low = std::max(low, std::ceil((p - 0.5) / f - 1e-9));
            high = std::min(high, std::floor((p + 0.5) / f + 1e-9));
            ++n;
        });
        if (!consistent || n == 0 || low > high) continue;
        const auto conf = static_cast<double>(c.weight);
        if (conf >= low && conf <= high) continue;
        out.push_back({.column = c.column,
                       .key = c.key,
                       .configured = c.weight,
                       .low = static_cast<std::uint64_t>(low),
                       .high = static_cast<std::uint64_t>(high),
                       .rows = n});
    }
    return out;
}

} // namespace mfprio::report
