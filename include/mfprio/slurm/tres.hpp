#pragma once
/// \file
/// Slurm's TRES factors (`PriorityWeightTRES`, `NO_NORMAL_TRES`).

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>

#include <mfprio/core/assert.hpp>
#include <mfprio/core/factor.hpp>
#include <mfprio/core/job.hpp>
#include <mfprio/core/simd.hpp>
#include <mfprio/slurm/context.hpp>

namespace mfprio::slurm {

/// Slurm's fixed TRES ids (the first eight rows of its tres table); GRES, licenses and
/// burst buffers get ids from 8 on, in the order a cluster defines them.
namespace tres_id {
inline constexpr std::uint32_t cpu = 0, mem = 1, energy = 2, node = 3, billing = 4, fs_disk = 5,
                               vmem = 6, pages = 7, first_dynamic = 8;
} // namespace tres_id

namespace detail {
/// Slurm's normalized TRES factor: v / t, or +0.0 when the count or the total is 0, computed
/// without a data-dependent branch (a mask selects the divisor and the result).
[[nodiscard]] constexpr double tres_ratio(double v, double t) noexcept {
    if (!std::is_constant_evaluated()) return simd::ratio_or_zero(v, t);
    const std::uint64_t keep = -static_cast<std::uint64_t>((v != 0.0) & (t != 0.0));
    const double d = std::bit_cast<double>((std::bit_cast<std::uint64_t>(t) & keep) |
                                           (std::bit_cast<std::uint64_t>(1.0) & ~keep));
    return std::bit_cast<double>(std::bit_cast<std::uint64_t>(v / d) & keep);
}

/// One job's requested TRES counts, read by TRES id: `stride` counts, TRES `id` in column
/// `columns[id]` (when `columns` is not null), else in column `id`.
struct tres_counts {
    const double* counts = nullptr;
    std::uint32_t stride = 0;
    const std::uint32_t* columns = nullptr;
    std::uint32_t mapped = 0; ///< TRES ids `columns` covers

    [[nodiscard]] constexpr double of(std::uint32_t id) const noexcept {
        const std::uint32_t k = columns == nullptr ? id : (id < mapped ? columns[id] : tres_table::no_column);
        return k < stride ? counts[k] : 0.0;
    }
};

/// The requested TRES counts of job `j`: its row of the context's TRES request table, or the
/// span a scheduler's own job type carries (`job_traits<J>::tres`, indexed by TRES id).
template <class J>
[[nodiscard]] constexpr tres_counts counts_of(const J& j, const context& c) noexcept {
    if constexpr (has_tres_row<J>) {
        const tres_table& t = c.tres_requests;
        const double* row = t.row(static_cast<std::uint32_t>(job_traits<J>::tres_row(j)));
        if (row == nullptr) return {};
        return {.counts = row,
                .stride = t.stride,
                .columns = t.columns.empty() ? nullptr : t.columns.data(),
                .mapped = static_cast<std::uint32_t>(t.columns.size())};
    } else {
        const auto span = job_traits<J>::tres(j);
        return {.counts = span.data(), .stride = static_cast<std::uint32_t>(span.size()), .columns = nullptr, .mapped = 0};
    }
}
} // namespace detail

/// One weighted TRES: its id and its (double, possibly negative) weight.
struct tres_weight_entry {
    std::uint32_t id = 0;
    double weight = 0.0;
};

/// True for a job whose requested TRES the TRES factor can read: a row of the context's TRES
/// request table (`tres_row`, as `mfprio::job`), or a span of counts by TRES id (`tres`).
template <class J>
concept has_tres_counts = has_tres_row<J> || has_tres<J>;

/// The weighted sum of the job's TRES factors: for each weighted TRES i, the job's requested
/// count over the partition's count of that TRES (not clamped to 1), or the raw count under
/// NO_NORMAL_TRES, times its weight. A TRES the partition has none of contributes 0. The
/// weights are part of this policy, so its term takes a weight of 1. Sums run in TRES id
/// order, as Slurm's do. The job's counts are its row of the context's TRES request table.
struct tres_factor {
    static constexpr std::string_view name = "tres";
    static constexpr std::size_t max_weighted = 32; ///< most TRES a PriorityWeightTRES can weight

    std::array<tres_weight_entry, max_weighted> entries{}; ///< sorted by id
    std::uint32_t count = 0;
    bool normalize = true; ///< false = PriorityFlags NO_NORMAL_TRES

    /// Adds a weighted TRES, keeping the entries in id order. Returns false when full.
    constexpr bool add(std::uint32_t id, double weight) noexcept {
        if (count == max_weighted) return false;
        std::uint32_t k = count;
        while (k > 0 && entries[k - 1].id > id) {
            entries[k] = entries[k - 1];
            --k;
        }
        entries[k] = {id, weight};
        ++count;
        return true;
    }

    /// The unweighted factor of TRES `id` for the job's count `v` in partition `p`.
    [[nodiscard]] constexpr double factor_of(std::uint32_t id, double v, const partition_info* p) const noexcept {
        if (!normalize) return v;
        const double t = p != nullptr && id < p->tres_totals.size() ? p->tres_totals[id] : 0.0;
        return detail::tres_ratio(v, t);
    }

    /// Calls `fn(entry, factor, weighted)` for each weighted TRES, for partition index `part`.
    template <class J, class Fn>
        requires has_tres_counts<J>
    constexpr void each(const J& j, std::uint32_t part, const context& c, Fn&& fn) const noexcept {
        const detail::tres_counts counts = detail::counts_of(j, c);
        const partition_info* p = c.partition(part);
        const std::span<const double> totals = p != nullptr ? p->tres_totals : std::span<const double>{};
        for (std::uint32_t k = 0; k < count; ++k) {
            const auto& e = entries[k];
            const double v = counts.of(e.id);
            const double t = e.id < totals.size() ? totals[e.id] : 0.0;
            const double f = normalize ? detail::tres_ratio(v, t) : v;
            const double weighted = f * e.weight;
            fn(e, f, weighted);
        }
    }

    /// The weighted TRES sum for partition index `part` (multi-partition jobs).
    template <class J>
        requires has_tres_counts<J>
    [[nodiscard]] constexpr double for_partition(const J& j, std::uint32_t part, const context& c) const noexcept {
        double sum = 0.0;
        each(j, part, c, [&](const tres_weight_entry&, double, double weighted) noexcept { sum += weighted; });
        return sum;
    }

    template <class J>
        requires has_tres_counts<J> && has_partition<J>
    [[nodiscard]] constexpr double operator()(const J& j, const context& c) const noexcept {
        if (count == 0) return 0.0;
        return for_partition(j, static_cast<std::uint32_t>(job_traits<J>::partition(j)), c);
    }

    /// Most partition x weighted TRES pairs `prepare` lays out.
    static constexpr std::size_t dense_limit = 512;

    /// The partitions' totals of the weighted TRES laid out for `block`: for partition p and
    /// weighted TRES k, at p x stride + k, the divisor (the total, or 1 where it is 0) and a
    /// mask (all ones where the total is not 0); the row after the last partition is an
    /// unknown partition's (totals 0). `stride` is 4 for up to four weighted TRES (a
    /// partition's divisors are then one aligned four-lane load; lanes past `count` hold 1 and
    /// a clear mask), `count` otherwise. Usable for normalized TRES when the partitions fit
    /// and no total is NaN. With them, what every block would otherwise look up again: the
    /// request table's number of rows and each weighted TRES's column.
    struct dense_totals {
        bool usable = false;
        bool avx = false; ///< the block takes the AVX path (`simd::avx_enabled`)
        std::uint32_t stride = 0;
        std::size_t rows = 0; ///< rows of the context's request table
        /// Weighted TRES k's column of the request table; 0 for a TRES without one, whose
        /// `has_column` is clear (its count then reads as 0).
        std::uint32_t column[max_weighted]{};
        alignas(32) std::uint64_t has_column[max_weighted]{}; ///< all ones where TRES k has a column
        alignas(32) double weight[4]{}; ///< the first four weights, 0 past `count` (the lanes)
        alignas(32) double divisor[dense_limit];
        alignas(32) std::uint64_t nonzero[dense_limit];
    };

    /// Lays out the partitions' totals, once per batch (see `dense_totals`).
    [[nodiscard]] constexpr dense_totals prepare(const context& c) const noexcept {
        dense_totals d{};
        const std::size_t parts = c.partitions.size();
        d.stride = count <= 4 ? 4u : count;
        d.rows = c.tres_requests.rows();
        for (std::uint32_t k = 0; k < count; ++k) {
            const std::uint32_t col = c.tres_requests.column_of(entries[k].id);
            d.column[k] = col != tres_table::no_column ? col : 0u;
            d.has_column[k] = detail::mask_if(col != tres_table::no_column);
            if (k < 4) d.weight[k] = entries[k].weight;
        }
        if (!normalize || count == 0 || (parts + 1) * d.stride > dense_limit) return d;
        bool nan = false;
        for (std::size_t p = 0; p <= parts; ++p) {
            const std::span<const double> totals = p < parts ? c.partitions[p].tres_totals : std::span<const double>{};
            for (std::uint32_t k = 0; k < d.stride; ++k) {
                const std::uint32_t id = k < count ? entries[k].id : 0u;
                const double t = k < count && id < totals.size() ? totals[id] : 0.0;
                nan = nan || t != t;
                d.divisor[p * d.stride + k] = t != 0.0 ? t : 1.0;
                d.nonzero[p * d.stride + k] = detail::mask_if(t != 0.0);
            }
        }
        d.usable = !nan;
        if (!std::is_constant_evaluated()) d.avx = simd::avx_enabled();
        return d;
    }

    /// The factor of each job of a block into `out`, exactly as the call operator.
    ///
    /// With the totals laid out (`prepare`) and jobs with a row of the request table: for
    /// each weighted TRES in id order, the jobs' counts v are gathered, divided by the laid-out
    /// divisors and masked, weighted and added to each job's sum: two jobs at a time, or with
    /// AVX and up to four weighted TRES one job at a time with its TRES in the lanes.
    /// v / t is Slurm's factor where t is not 0; where v is 0 it is +0.0 or
    /// -0.0 instead of Slurm's +0.0, which adds nothing to a sum that starts at +0.0 (no sum
    /// is ever -0.0). Otherwise `block_general`.
    template <class J, std::size_t N>
        requires has_tres_counts<J> && has_partition<J> && (N != std::dynamic_extent)
    constexpr void block(const dense_totals& d, std::span<const J, N> jobs, const context& c,
                         std::span<double, N> out) const noexcept {
        if constexpr (has_tres_row<J>) {
            if (d.usable) {
                if (d.avx && d.stride == 4 && d.rows != 0) {
                    block_dense_lanes(jobs, c.tres_requests, c.partitions.size(), out, d);
                    return;
                }
                block_dense(jobs, c, out, d);
                return;
            }
        }
        block_general(jobs, c, out);
    }

    /// `block` preparing for this block alone.
    template <class J, std::size_t N>
        requires has_tres_counts<J> && has_partition<J> && (N != std::dynamic_extent)
    constexpr void block(std::span<const J, N> jobs, const context& c, std::span<double, N> out) const noexcept {
        block(prepare(c), jobs, c, out);
    }

    /// `block` with the partitions' divisors and masks laid out (partition p, weighted TRES k
    /// at p x stride + k; the unknown partition last).
    template <class J, std::size_t N>
    constexpr void block_dense(std::span<const J, N> jobs, const context& c, std::span<double, N> out,
                               const dense_totals& d) const noexcept {
        const double* const divisor = d.divisor;
        const std::uint64_t* const nonzero = d.nonzero;
        const tres_table& table = c.tres_requests;
        const std::size_t rows = d.rows;
        const std::size_t parts = c.partitions.size();
        if constexpr (N % 2 == 0) {
            if (!std::is_constant_evaluated() && rows != 0) {
                block_dense_pairs(jobs, table, parts, out, d);
                return;
            }
        }
        for (std::size_t i = 0; i < N; ++i) {
            const auto r = static_cast<std::size_t>(job_traits<J>::tres_row(jobs[i]));
            const auto p = static_cast<std::size_t>(job_traits<J>::partition(jobs[i]));
            const std::size_t q = (p < parts ? p : parts) * d.stride; // the job's partition's divisors
            double sum = 0.0;
            for (std::uint32_t k = 0; k < count; ++k) {
                const double v = r < rows && d.has_column[k] != 0 ? table.counts[r * table.stride + d.column[k]] : 0.0;
                const double f = nonzero[q + k] != 0 ? v / divisor[q + k] : 0.0;
                sum = sum + f * entries[k].weight;
            }
            out[i] = sum;
        }
    }

    /// `block_dense` two jobs at a time: per pair of jobs, for each weighted TRES in
    /// id order, the two counts (0 for a job without a row, or a TRES without a column) over
    /// the two laid-out divisors, masked where the total is 0, times the weight, added to the
    /// two sums: `block_dense`'s operations in the same order in each lane, so the same bits.
    /// Up to 4 weighted TRES, their number is a template argument (the loop over them
    /// unrolled, their columns, masks and weights in registers).
    template <class J, std::size_t N>
    void block_dense_pairs(std::span<const J, N> jobs, const tres_table& table, std::size_t parts,
                           std::span<double, N> out, const dense_totals& d) const noexcept {
        switch (count) {
        case 1: return dense_pairs<1>(jobs, table, parts, out, d);
        case 2: return dense_pairs<2>(jobs, table, parts, out, d);
        case 3: return dense_pairs<3>(jobs, table, parts, out, d);
        case 4: return dense_pairs<4>(jobs, table, parts, out, d);
        default: return dense_pairs<0>(jobs, table, parts, out, d);
        }
    }
    /// `block_dense_pairs` for `K` weighted TRES (0: `count`, read at run time).
    template <std::uint32_t K, class J, std::size_t N>
    void dense_pairs(std::span<const J, N> jobs, const tres_table& table, std::size_t parts,
                     std::span<double, N> out, const dense_totals& d) const noexcept {
        const std::uint32_t weighted = K != 0 ? K : count;
        const std::size_t rows = d.rows;
        const std::size_t stride = table.stride;
        const std::uint32_t stride_d = d.stride;
        const double* const counts = table.counts.data();
        const double* const divisor = d.divisor;
        const std::uint64_t* const nonzero = d.nonzero;
        using simd::f64x2;
        std::uint32_t column[K != 0 ? K : max_weighted]; // in locals, as `dense_lanes`'s
        f64x2 has_column[K != 0 ? K : max_weighted];
        f64x2 weight[K != 0 ? K : max_weighted];
        for (std::uint32_t k = 0; k < weighted; ++k) {
            column[k] = d.column[k];
            has_column[k] = simd::u64x2::load(d.has_column + k, d.has_column + k).as_double();
            weight[k] = f64x2::all(entries[k].weight);
        }
        for (std::size_t i = 0; i < N; i += 2) {
            const auto r0 = static_cast<std::size_t>(job_traits<J>::tres_row(jobs[i]));
            const auto r1 = static_cast<std::size_t>(job_traits<J>::tres_row(jobs[i + 1]));
            const auto p0 = static_cast<std::size_t>(job_traits<J>::partition(jobs[i]));
            const auto p1 = static_cast<std::size_t>(job_traits<J>::partition(jobs[i + 1]));
            const double* const row0 = counts + (r0 < rows ? r0 * stride : 0);
            const double* const row1 = counts + (r1 < rows ? r1 * stride : 0);
            const f64x2 has_row = f64x2::mask(r0 < rows, r1 < rows);
            const std::size_t q0 = (p0 < parts ? p0 : parts) * stride_d;
            const std::size_t q1 = (p1 < parts ? p1 : parts) * stride_d;
            f64x2 sum;
            for (std::uint32_t k = 0; k < weighted; ++k) {
                const f64x2 v = simd::keep(has_row & has_column[k], f64x2::load(row0 + column[k], row1 + column[k]));
                const f64x2 d = f64x2::load(divisor + q0 + k, divisor + q1 + k);
                const f64x2 keep = simd::u64x2::load(nonzero + q0 + k, nonzero + q1 + k).as_double();
                sum = sum + simd::keep(keep, v / d) * weight[k];
            }
            sum.store(out.data() + i);
        }
    }
    /// `block_dense` with up to four weighted TRES (`stride` 4), job by job, the TRES in the
    /// lanes (taken when the processor has AVX: `simd::avx_enabled`): the job's counts, over
    /// its partition's four divisors, masked, times the weights, then the lanes added in id
    /// order. The same operations as `block_dense`'s for each TRES, so the same bits; a job
    /// without a row of the table gets 0 (every count 0). Lanes past `count` hold a count
    /// over 1, masked, times weight 0, and are not added.
    template <class J, std::size_t N>
    void block_dense_lanes(std::span<const J, N> jobs, const tres_table& table, std::size_t parts,
                           std::span<double, N> out, const dense_totals& d) const noexcept {
        switch (count) {
        case 1: return dense_lanes<1>(jobs, table, parts, out, d);
        case 2: return dense_lanes<2>(jobs, table, parts, out, d);
        case 3: return dense_lanes<3>(jobs, table, parts, out, d);
        default: return dense_lanes<4>(jobs, table, parts, out, d);
        }
    }
    /// `block_dense_lanes` for `K` weighted TRES.
    template <std::uint32_t K, class J, std::size_t N>
    MFPRIO_TARGET_AVX void dense_lanes(std::span<const J, N> jobs, const tres_table& table, std::size_t parts,
                                       std::span<double, N> out, const dense_totals& d) const noexcept {
        using simd::f64x4;
        const std::size_t rows = d.rows;
        const std::size_t stride = table.stride;
        const double* const counts = table.counts.data();
        // Lanes past K read column 0, masked. In locals: read through `d`, gcc loads the
        // columns again for every job.
        const std::uint32_t column[4] = {d.column[0], d.column[1], d.column[2], d.column[3]};
        const f64x4 has_column = f64x4::load_bits(d.has_column);
        const f64x4 weights = f64x4::load(d.weight);
        for (std::size_t i = 0; i < N; ++i) {
            const auto r = static_cast<std::size_t>(job_traits<J>::tres_row(jobs[i]));
            const auto p = static_cast<std::size_t>(job_traits<J>::partition(jobs[i]));
            if (r >= rows) [[unlikely]] {
                out[i] = 0.0;
                continue;
            }
            const double* const row = counts + r * stride;
            const std::size_t q = (p < parts ? p : parts) * 4;
            const f64x4 v = has_column & f64x4::load(row + column[0], row + column[1], row + column[2], row + column[3]);
            const f64x4 f = f64x4::load_bits(d.nonzero + q) & (v / f64x4::load(d.divisor + q));
            out[i] = (f * weights).template sum_lanes<K>();
        }
    }
    /// `block` for any job and table: for each weighted TRES in id order, the job's count v
    /// and its partition's total t are gathered job by job; then (v, t) becomes (0, 1) where
    /// either is 0, so that v / t gives Slurm's 0 there; then each job's sum gets v / t times
    /// the weight.
    template <class J, std::size_t N>
    constexpr void block_general(std::span<const J, N> jobs, const context& c, std::span<double, N> out) const noexcept {
        if (count == 0) {
            for (std::size_t i = 0; i < N; ++i) out[i] = 0.0;
            return;
        }
        // Per job: its counts and how many, its partition's totals and how many.
        const double* rows[N];
        std::uint32_t row_size[N];
        const double* totals[N];
        std::uint32_t totals_size[N];
        for (std::size_t i = 0; i < N; ++i) {
            const J& j = jobs[i];
            if constexpr (has_tres_row<J>) {
                rows[i] = c.tres_requests.row(static_cast<std::uint32_t>(job_traits<J>::tres_row(j)));
                row_size[i] = rows[i] != nullptr ? c.tres_requests.stride : 0u;
            } else {
                const auto span = job_traits<J>::tres(j);
                rows[i] = span.data();
                row_size[i] = static_cast<std::uint32_t>(span.size());
            }
            const partition_info* p = c.partition(static_cast<std::uint32_t>(job_traits<J>::partition(j)));
            totals[i] = p != nullptr ? p->tres_totals.data() : nullptr;
            totals_size[i] = p != nullptr ? static_cast<std::uint32_t>(p->tres_totals.size()) : 0u;
        }
        // Whether every weighted TRES has a count column and a total for every job.
        std::uint32_t max_id = 0, max_column = 0;
        std::uint32_t columns[max_weighted];
        for (std::uint32_t k = 0; k < count; ++k) {
            columns[k] = entries[k].id;
            if constexpr (has_tres_row<J>) columns[k] = c.tres_requests.column_of(entries[k].id);
            max_id = entries[k].id > max_id ? entries[k].id : max_id;
            if (columns[k] != tres_table::no_column && columns[k] > max_column) max_column = columns[k];
        }
        bool in_range = true;
        for (std::size_t i = 0; i < N; ++i) in_range = in_range & (max_column < row_size[i]) & (max_id < totals_size[i]);

        double sum[N];
        for (std::size_t i = 0; i < N; ++i) sum[i] = 0.0;
        for (std::uint32_t k = 0; k < count; ++k) {
            const std::uint32_t id = entries[k].id;
            const std::uint32_t column = columns[k];
            const double w = entries[k].weight;
            double v[N];
            double t[N];
            if (in_range && column != tres_table::no_column) {
                for (std::size_t i = 0; i < N; ++i) {
                    v[i] = rows[i][column];
                    t[i] = totals[i][id];
                }
            } else {
                for (std::size_t i = 0; i < N; ++i) {
                    v[i] = column < row_size[i] ? rows[i][column] : 0.0;
                    t[i] = id < totals_size[i] ? totals[i][id] : 0.0;
                }
            }
            if (normalize) {
                for (std::size_t i = 0; i < N; ++i) {
                    const bool both = (v[i] != 0.0) & (t[i] != 0.0);
                    t[i] = both ? t[i] : 1.0;
                    v[i] = both ? v[i] : 0.0;
                }
                for (std::size_t i = 0; i < N; ++i) v[i] = v[i] / t[i];
            }
            for (std::size_t i = 0; i < N; ++i) {
                const double weighted = v[i] * w;
                sum[i] = sum[i] + weighted;
            }
        }
        for (std::size_t i = 0; i < N; ++i) out[i] = sum[i];
    }
};

} // namespace mfprio::slurm
