#pragma once
/// \file
/// Queue order: the record a prioritized queue holds for each job (`queue_entry`), the order
/// of each system as a small policy type (`slurm_order`, `flux_order`, `maui_order`), and
/// `sort_entries`, which sorts a million entries in one of those orders quickly.
///
/// An order policy has:
/// - `name`;
/// - `keys(e)`: the entry as unsigned integers, most significant first, where a smaller
///   key tuple means "schedule earlier" (a descending field is stored complemented);
/// - `primary_keys`: how many leading keys come from the pass (tier, priority); the others
///   are the tie-break, fixed for a job (submit time, job id);
/// - `before(a, b)`: the same order as a comparator (the keys compared lexicographically,
///   then the entry's `index`, so that the order is total even if an id repeats);
/// - `uses_tier`: whether the queue needs each job's partition PriorityTier;
/// - `zero_is_held`: whether a priority of 0 means "held, not queued" (Slurm, Flux).
///
/// Speed. `sort_entries` does not sort the 32-byte entries with a comparator. It packs each
/// entry's keys, range-compressed (each key minus its minimum over the entries, in as many
/// bits as its spread needs), into the high bits of one 64-bit word whose low bits hold the
/// entry's position; radix-sorts those words on the key bits only (one split of the whole
/// array on its top bits, then each bucket sorted in cache with 11-bit digits, digits that
/// are the same in every word skipped); then gathers the entries. If the tie-break keys are
/// already in order in the input (the caller's table is in submission order, the usual
/// case), they are left out of the word: the position is then the tie-break. If the keys do
/// not fit, the word keeps their leading bits and the runs whose words tie are finished with
/// the comparator. When the packed keys take at most 18 bits and there are at least as many
/// entries as possible keys per thread (a pass over a table in submission order, whose
/// priorities span some 10^5 values), a counting sort replaces all that: count the entries
/// per key, then move each entry straight to its place (no words, no split, no gather).
///
/// What the parts cost relative to one another, on 1,000,000 entries: sorting the entries
/// with std::sort and `slurm_order::before` takes about twice what std::sort of plain
/// uint64 does, and `sort_entries` about as much as the latter with random submit times and
/// less with a table in submission order. Of `sort_entries`, the gather (one random read of
/// a 32-byte entry per entry, TLB-bound, which 2 MiB pages help and software prefetching
/// does not) is the largest part, then the split and buckets, then the packing. With
/// `threads` > 1 every step but the tie fix-up is shared among the threads. The counting
/// sort takes less than the words' radix sort where it applies, more so with the moves'
/// places prefetched for writing (bench/queue_bench's `pass/sort` shows the current
/// figures). A pass (`pass_builder`) can also count the entries while it writes them
/// (`key_counts`, keys modulo a power of two chosen from the last pass's ranges), and the
/// counting sort then only moves them (the `sort_entries` overload that takes the counts).

#include <algorithm>
#include <array>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <mfprio/core/assert.hpp>
#include <mfprio/core/parallel.hpp>
#include <mfprio/core/prefetch.hpp>

namespace mfprio::queue {

/// Whether a queued job waits or runs. Running (and suspended) jobs are in a queue only when
/// priorities of running jobs are computed too (Slurm's PriorityFlags=CALCULATE_RUNNING).
enum class entry_state : std::uint8_t {
    pending, ///< waiting to start
    running, ///< running or suspended
};

/// One job of a prioritized queue: 32 bytes, two to a cache line.
struct queue_entry {
    std::int64_t priority = 0;    ///< the system's integer priority (Slurm and Flux uint32, Maui int64)
    std::int64_t submit_time = 0; ///< epoch seconds
    std::uint64_t job_id = 0;     ///< the job's id (64 bits: Flux ids are 64-bit FLUIDs)
    std::uint32_t index = 0;      ///< position of the job in the table the queue was built from
    std::uint16_t tier = 0;       ///< partition PriorityTier (Slurm, 16-bit there); 0 for other systems
    entry_state state = entry_state::pending;
    std::uint8_t reserved = 0;    ///< zero
    friend constexpr bool operator==(const queue_entry&, const queue_entry&) = default;
};

#if (defined(__GNUC__) || defined(__clang__)) && !defined(_MSC_VER)
static_assert(sizeof(queue_entry) == 32, "queue_entry is 32 bytes (see its layout)");
#endif

/// Order-preserving maps onto unsigned 64-bit keys (smaller key = scheduled earlier).
namespace keys {
/// Smaller value first.
[[nodiscard]] constexpr std::uint64_t ascending(std::int64_t v) noexcept {
    return static_cast<std::uint64_t>(v) ^ (std::uint64_t{1} << 63);
}
[[nodiscard]] constexpr std::uint64_t ascending(std::uint64_t v) noexcept { return v; }
/// Larger value first.
[[nodiscard]] constexpr std::uint64_t descending(std::int64_t v) noexcept { return ~ascending(v); }
[[nodiscard]] constexpr std::uint64_t descending(std::uint64_t v) noexcept { return ~v; }
} // namespace keys

/// Slurm's scheduling order (`sort_job_queue2`, reference slurm.md 1.2): higher partition
/// PriorityTier first, then higher priority, then earlier submit time, then lower job id.
/// Slurm queues one record per (partition, QOS) of a multi-partition job; this queue holds
/// one entry per job, with the job's own partition (see `slurm::build_queue` for the
/// per-entry records). Priority 0 means held: such jobs are not queued.
struct slurm_order {
    static constexpr std::string_view name = "slurm";
    static constexpr bool uses_tier = true;
    static constexpr bool zero_is_held = true;
    static constexpr std::size_t key_count = 4;
    static constexpr std::size_t primary_keys = 2;

    [[nodiscard]] static constexpr std::array<std::uint64_t, key_count> keys(const queue_entry& e) noexcept {
        return {keys::descending(std::uint64_t{e.tier}), keys::descending(e.priority), keys::ascending(e.submit_time),
                keys::ascending(e.job_id)};
    }
    [[nodiscard]] static constexpr bool before(const queue_entry& a, const queue_entry& b) noexcept {
        if (a.tier != b.tier) return a.tier > b.tier;
        if (a.priority != b.priority) return a.priority > b.priority;
        if (a.submit_time != b.submit_time) return a.submit_time < b.submit_time;
        if (a.job_id != b.job_id) return a.job_id < b.job_id;
        return a.index < b.index;
    }
};

/// Flux's order (flux-core `job_priority_comparator`, reference flux_maui.md A1): higher
/// priority first, then lower job id. Flux ids (FLUIDs) grow with submission time, so equal
/// priorities run first come, first served; with `flux::job`, give ids in submission order.
/// Priority 0 is flux-core's "priority-hold": such jobs are not queued.
struct flux_order {
    static constexpr std::string_view name = "flux";
    static constexpr bool uses_tier = false;
    static constexpr bool zero_is_held = true;
    static constexpr std::size_t key_count = 2;
    static constexpr std::size_t primary_keys = 1;

    [[nodiscard]] static constexpr std::array<std::uint64_t, key_count> keys(const queue_entry& e) noexcept {
        return {keys::descending(e.priority), keys::ascending(e.job_id)};
    }
    [[nodiscard]] static constexpr bool before(const queue_entry& a, const queue_entry& b) noexcept {
        if (a.priority != b.priority) return a.priority > b.priority;
        if (a.job_id != b.job_id) return a.job_id < b.job_id;
        return a.index < b.index;
    }
};

/// Maui's start order (reference flux_maui.md B4.5) with mfprio's tie-break: higher
/// priority first; Maui itself sorts with an unstable qsort and breaks no ties, so mfprio
/// then puts the earlier submit time first, then the lower job id (as `maui::start_order`).
/// Maui priorities may be 0 or negative (ENABLENEGJOBPRIORITY): every job is queued.
struct maui_order {
    static constexpr std::string_view name = "maui";
    static constexpr bool uses_tier = false;
    static constexpr bool zero_is_held = false;
    static constexpr std::size_t key_count = 3;
    static constexpr std::size_t primary_keys = 1;

    [[nodiscard]] static constexpr std::array<std::uint64_t, key_count> keys(const queue_entry& e) noexcept {
        return {keys::descending(e.priority), keys::ascending(e.submit_time), keys::ascending(e.job_id)};
    }
    [[nodiscard]] static constexpr bool before(const queue_entry& a, const queue_entry& b) noexcept {
        if (a.priority != b.priority) return a.priority > b.priority;
        if (a.submit_time != b.submit_time) return a.submit_time < b.submit_time;
        if (a.job_id != b.job_id) return a.job_id < b.job_id;
        return a.index < b.index;
    }
};

/// What an order policy provides (see the file comment).
template <class O>
concept order_policy = requires(const queue_entry& e) {
    { O::name } -> std::convertible_to<std::string_view>;
    { O::uses_tier } -> std::convertible_to<bool>;
    { O::zero_is_held } -> std::convertible_to<bool>;
    { O::keys(e) } noexcept -> std::same_as<std::array<std::uint64_t, O::key_count>>;
    { O::before(e, e) } noexcept -> std::same_as<bool>;
} && (O::key_count >= 1) && (O::primary_keys >= 1) && (O::primary_keys <= O::key_count);

/// Buffers `sort_entries` reuses from one call to the next (no allocation once they are as
/// large as the queue).
struct sort_workspace {
    std::vector<std::uint64_t> words;
    std::vector<std::uint64_t> scratch;
    std::vector<std::vector<std::uint32_t>> counts; ///< digit counts, one table per thread
    std::vector<std::uint32_t> bucket_counts;       ///< the first split's counts, per thread
};

/// How the last `sort_entries` call went (for tests and benchmarks).
struct sort_report {
    bool tie_break_in_input_order = false; ///< the tie-break keys were left out of the words
    bool truncated = false;                ///< the keys did not fit: tied runs were finished by comparison
    unsigned key_bits = 0;                 ///< bits of the packed keys in a word
    bool radix_sorted = false;             ///< the words were not already in order
    bool counting_sorted = false;          ///< few distinct keys: counting sort, no words
    bool counted_in_pass = false;          ///< the counting sort took the counts of the pass (`key_counts`)
    std::size_t runs_sorted = 0;           ///< tied runs that needed the comparator
    unsigned threads = 1;                  ///< threads used
};

namespace detail {

/// The widest packed keys `sort_entries` counting-sorts: 2^18 counters of 4 bytes (1 MiB)
/// per thread, which stay in the L2 cache of the development machine (1.25 MiB).
inline constexpr unsigned counting_max_bits = 18;

/// The most residue bits a pass counts its keys in (`key_counts`): each key gets a bit more
/// than its range took in the last pass, so the table is up to 4 times the keys' span, but a
/// pass touches only the counters of the keys it meets.
inline constexpr unsigned pass_counting_max_bits = 20;

using mfprio::detail::parallel_for;
using mfprio::detail::part_begin;
using mfprio::detail::parts_for;

/// The moving half of a stable counting sort of `in` into `out`: `segs` segments (segment t
/// is [bounds[t], bounds[t + 1])), each with `span` counters at `counts + t * span`, which
/// hold its entries' counts per counter and become their next places; `slot(d)` is the
/// counter of key d in [0, keys), `key_of(e)` an entry's counter. Entries of key d go after
/// those of smaller keys, and after those of the same key in earlier segments: input order.
template <class Slot, class KeyOf, class Alloc>
void counting_move(std::span<const queue_entry> in, const std::size_t* bounds, unsigned segs, std::uint32_t* counts,
                   unsigned key_bits, std::size_t span, const Slot& slot, const KeyOf& key_of,
                   std::vector<queue_entry, Alloc>& out) {
    const std::size_t keys = std::size_t{1} << key_bits;
    std::uint32_t sum = 0;
    for (std::size_t d = 0; d < keys; ++d) {
        const std::size_t at = slot(d);
        for (unsigned t = 0; t < segs; ++t) {
            std::uint32_t& c = counts[t * span + at];
            const std::uint32_t k = c;
            c = sum;
            sum += k;
        }
    }
    MFPRIO_ASSERT(sum == bounds[segs] - bounds[0]);
    out.resize(in.size()); // only entries beyond the old size are initialized
    queue_entry* const o = out.data();
    parallel_for(segs, [&](unsigned t) noexcept {
        std::uint32_t* const next = counts + t * span;
        const std::size_t b = bounds[t], e = bounds[t + 1];
        // Each move writes a random place of the output: the place of the entry 32 moves
        // ahead is prefetched for writing, so that many such misses are under way at once
        // (queue_bench's pass/sort shows the difference). Each
        // entry's counter is computed once, when it is prefetched, and kept in a ring.
        constexpr std::size_t ahead = 32;
        std::array<std::size_t, ahead> ring{};
        const std::size_t lead = std::min(ahead, e - b);
        for (std::size_t j = 0; j < lead; ++j) {
            ring[j] = key_of(in[b + j]);
            mfprio::detail::prefetch_for_write(o + next[ring[j]]);
        }
        for (std::size_t i = b; i < e; ++i) {
            const std::size_t r = (i - b) % ahead;
            const std::size_t k = ring[r];
            if (i + ahead < e) {
                ring[r] = key_of(in[i + ahead]);
                mfprio::detail::prefetch_for_write(o + next[ring[r]]);
            }
            o[next[k]++] = in[i];
        }
    });
}

/// Sorts `w[0, n)` stably by bits [low, high) of each word, the bits above `high` being the
/// same in every word: an LSD radix sort with digits of at most 11 bits, skipping digits that
/// are the same in every word. `tmp` has room for n words; `counts` is reused. The result is
/// in `w`.
inline void lsd_radix_sort(std::uint64_t* w, std::uint64_t* tmp, std::size_t n, unsigned low, unsigned high,
                           std::vector<std::uint32_t>& counts) {
    if (n < 2 || high <= low) return;
    if (n <= 48) { // insertion sort, stable
        for (std::size_t i = 1; i < n; ++i) {
            const std::uint64_t v = w[i];
            std::size_t j = i;
            while (j > 0 && (w[j - 1] >> low) > (v >> low)) {
                w[j] = w[j - 1];
                --j;
            }
            w[j] = v;
        }
        return;
    }
    constexpr unsigned max_digit = 11;
    const unsigned bits = high - low;
    const unsigned passes = (bits + max_digit - 1) / max_digit;
    const unsigned digit = (bits + passes - 1) / passes;
    const std::size_t radix = std::size_t{1} << digit;
    const std::uint64_t mask = radix - 1;
    counts.assign(passes * radix, 0);
    std::uint32_t* const c = counts.data();
    for (std::size_t i = 0; i < n; ++i)
        for (unsigned p = 0; p < passes; ++p) ++c[p * radix + ((w[i] >> (low + p * digit)) & mask)];
    std::uint64_t* src = w;
    std::uint64_t* dst = tmp;
    for (unsigned p = 0; p < passes; ++p) {
        std::uint32_t* const cp = c + p * radix;
        if (std::find(cp, cp + radix, static_cast<std::uint32_t>(n)) != cp + radix) continue; // constant digit
        std::uint32_t sum = 0;
        for (std::size_t d = 0; d < radix; ++d) {
            const std::uint32_t k = cp[d];
            cp[d] = sum;
            sum += k;
        }
        const unsigned shift = low + p * digit;
        for (std::size_t i = 0; i < n; ++i) {
            const std::uint64_t v = src[i];
            dst[cp[(v >> shift) & mask]++] = v;
        }
        std::swap(src, dst);
    }
    if (src != w) std::copy(src, src + n, w);
}

/// Sorts `a` stably by bits [low, high) of each word (the bits above `high` being 0). A large
/// array is first split on its top bits into buckets of about 16,384 words (one pass over
/// memory), each then sorted while it is in cache: on the development machine a scatter
/// over the whole array costs several times a scatter inside the L2 cache. With several
/// threads each splits its share of the words, then sorts a share of the buckets.
inline void radix_sort(std::vector<std::uint64_t>& a, sort_workspace& ws, unsigned low, unsigned high,
                       unsigned threads) {
    const std::size_t n = a.size();
    if (n < 2 || high <= low) return;
    if (ws.scratch.size() < n) ws.scratch.resize(n);
    const unsigned parts = parts_for(n, threads, 65536);
    if (ws.counts.size() < parts) ws.counts.resize(parts);
    const unsigned span_bits = high - low;
    const unsigned size_bits = static_cast<unsigned>(std::bit_width(n));
    const unsigned top = size_bits > 14 ? std::min({size_bits - 14, 8u, span_bits}) : 0u;
    if (top == 0) {
        lsd_radix_sort(a.data(), ws.scratch.data(), n, low, high, ws.counts[0]);
        return;
    }
    // Split on bits [high - top, high) into scratch, stably: part t's words of bucket d go
    // after those of the parts before it.
    const unsigned shift = high - top;
    const std::size_t buckets = std::size_t{1} << top;
    ws.bucket_counts.assign(parts * buckets, 0);
    std::uint32_t* const bc = ws.bucket_counts.data();
    std::uint64_t* const src = a.data();
    std::uint64_t* const dst = ws.scratch.data();
    parallel_for(parts, [&](unsigned t) noexcept {
        std::uint32_t* const c = bc + t * buckets;
        for (std::size_t i = part_begin(n, parts, t), e = part_begin(n, parts, t + 1); i < e; ++i)
            ++c[static_cast<std::size_t>(src[i] >> shift)];
    });
    std::vector<std::uint32_t> start(buckets + 1, 0);
    {
        std::uint32_t sum = 0;
        for (std::size_t d = 0; d < buckets; ++d) {
            start[d] = sum;
            for (unsigned t = 0; t < parts; ++t) {
                const std::uint32_t k = bc[t * buckets + d];
                bc[t * buckets + d] = sum;
                sum += k;
            }
        }
        start[buckets] = sum;
    }
    parallel_for(parts, [&](unsigned t) noexcept {
        std::uint32_t* const next = bc + t * buckets;
        for (std::size_t i = part_begin(n, parts, t), e = part_begin(n, parts, t + 1); i < e; ++i) {
            const std::uint64_t v = src[i];
            dst[next[static_cast<std::size_t>(v >> shift)]++] = v;
        }
    });
    // Each bucket in cache, its result copied back into `a`; part t takes the buckets
    // holding the t-th share of the words.
    parallel_for(parts, [&](unsigned t) noexcept {
        const std::size_t lo_word = part_begin(n, parts, t), hi_word = part_begin(n, parts, t + 1);
        for (std::size_t d = 0; d < buckets; ++d) {
            const std::size_t b = start[d], m = start[d + 1] - start[d];
            if (m == 0 || b < lo_word || b >= hi_word) continue; // a bucket belongs to the part of its first word
            lsd_radix_sort(dst + b, src + b, m, low, shift, ws.counts[t]);
            std::copy(dst + b, dst + b + m, src + b);
        }
    });
}

/// The keys of `a` and `b` from `from` to `to` compared: -1, 0 or 1.
template <std::size_t N>
[[nodiscard]] constexpr int compare_keys(const std::array<std::uint64_t, N>& a, const std::array<std::uint64_t, N>& b,
                                         std::size_t from, std::size_t to) noexcept {
    for (std::size_t k = from; k < to; ++k)
        if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
    return 0;
}

} // namespace detail

/// What `sort_entries` needs to know about the entries before packing them: the range of
/// each key and whether the tie-break keys increase strictly in input order. A pass fills it
/// while it writes the entries (`add` each, in order), which saves `sort_entries` one read
/// of them; summaries of consecutive pieces `merge`.
template <order_policy O>
struct key_summary {
    std::array<std::uint64_t, O::key_count> lo = filled(~std::uint64_t{0});
    std::array<std::uint64_t, O::key_count> hi{};
    std::array<std::uint64_t, O::key_count> first{};
    std::array<std::uint64_t, O::key_count> last{};
    std::size_t count = 0;
    bool tie_break_in_order = O::primary_keys < O::key_count;

    /// The next entry.
    constexpr void add(const queue_entry& e) noexcept {
        const auto k = O::keys(e);
        widen(k);
        if (count == 0) first = k;
        else if (tie_break_in_order && detail::compare_keys(last, k, O::primary_keys, O::key_count) >= 0)
            tie_break_in_order = false;
        last = k;
        ++count;
    }

    /// The next `m` entries, `e[0]` to `e[m - 1]`, as `add` for each in turn, in one loop
    /// that keeps the ranges and the previous entry's keys in registers and decides the
    /// tie-break order without branches (a pass calls it on each chunk of entries it has just
    /// written, still in cache: keeping a copy of the last keys in the summary, entry by
    /// entry, stalls on store forwarding).
    constexpr void add_run(const queue_entry* e, std::size_t m) noexcept {
        if (m == 0) return;
        auto l = lo;
        auto h = hi;
        std::size_t i = 0;
        std::array<std::uint64_t, O::key_count> prev = last;
        if (count == 0) {
            first = O::keys(e[0]);
            prev = first;
            for (std::size_t f = 0; f < O::key_count; ++f) l[f] = h[f] = prev[f];
            i = 1;
        }
        bool in_order = true;
        for (; i < m; ++i) {
            const auto k = O::keys(e[i]);
            for (std::size_t f = 0; f < O::key_count; ++f) {
                l[f] = k[f] < l[f] ? k[f] : l[f];
                h[f] = k[f] > h[f] ? k[f] : h[f];
            }
            const bool step = tie_break_less(prev, k);
            in_order = in_order & step;
            prev = k;
        }
        lo = l;
        hi = h;
        last = prev;
        count += m;
        tie_break_in_order = tie_break_in_order && in_order;
    }

    /// An entry already added changed (its primary keys only, e.g. a raised priority).
    constexpr void changed(const queue_entry& e) noexcept { widen(O::keys(e)); }

    /// The summary of the entries that follow.
    constexpr void merge(const key_summary& next) noexcept {
        if (next.count == 0) return;
        if (count == 0) {
            *this = next;
            return;
        }
        for (std::size_t f = 0; f < O::key_count; ++f) {
            lo[f] = next.lo[f] < lo[f] ? next.lo[f] : lo[f];
            hi[f] = next.hi[f] > hi[f] ? next.hi[f] : hi[f];
        }
        tie_break_in_order = tie_break_in_order && next.tie_break_in_order &&
                             detail::compare_keys(last, next.first, O::primary_keys, O::key_count) < 0;
        last = next.last;
        count += next.count;
    }

private:
    /// Whether `a`'s tie-break keys come strictly before `b`'s (false if there are none).
    static constexpr bool tie_break_less(const std::array<std::uint64_t, O::key_count>& a,
                                         const std::array<std::uint64_t, O::key_count>& b) noexcept {
        bool less = false;
        for (std::size_t f = O::key_count; f-- > O::primary_keys;) {
            const std::uint64_t x = a[f], y = b[f];
            const bool lt = x < y, eq = x == y;
            less = lt | (eq & less);
        }
        return less;
    }
    constexpr void widen(const std::array<std::uint64_t, O::key_count>& k) noexcept {
        for (std::size_t f = 0; f < O::key_count; ++f) {
            lo[f] = k[f] < lo[f] ? k[f] : lo[f];
            hi[f] = k[f] > hi[f] ? k[f] : hi[f];
        }
    }
    static constexpr std::array<std::uint64_t, O::key_count> filled(std::uint64_t v) noexcept {
        std::array<std::uint64_t, O::key_count> a{};
        a.fill(v);
        return a;
    }
};

/// Entries counted per key while a pass writes them (`pass_builder`), so that `sort_entries`
/// can skip its own counting pass over them. A pass does not know the keys' ranges until it
/// ends, so each primary key f is counted modulo 2^bits[f]: a range narrower than that maps
/// one to one onto the residues, whatever its position (the pass takes the widths of its
/// previous pass, plus one bit, as `bits`). The counts of each segment of the entries (a
/// pass's part) are kept apart, so that the sort stays stable. `sort_entries` uses them only
/// if every range fits and the tie-break keys are in input order; otherwise it counts (or
/// sorts) as usual.
template <order_policy O>
struct key_counts {
    std::array<unsigned, O::primary_keys> bits{}; ///< residue bits of each primary key
    unsigned total_bits = 0;                      ///< their sum: 2^total_bits counters a segment
    std::vector<std::size_t> segment_begin;       ///< segment s is [segment_begin[s], segment_begin[s + 1])
    std::vector<std::uint32_t> counts;            ///< segment s's count of residue r at (s << total_bits) + r

    /// Sets the bits and sizes the counts of `segments` segments (their bounds are set later).
    /// With `zero` false the caller zeroes each segment (`zero_segment`) before counting it.
    void reset(const std::array<unsigned, O::primary_keys>& b, unsigned segments, bool zero = true) {
        bits = b;
        total_bits = 0;
        for (const unsigned w : b) total_bits += w;
        MFPRIO_ASSERT(total_bits <= 32);
        const std::size_t size = static_cast<std::size_t>(segments) << total_bits;
        if (zero) counts.assign(size, 0);
        else counts.resize(size);
        segment_begin.clear();
    }
    /// Zeroes segment `s`'s counters (a pass's thread its own).
    void zero_segment(unsigned s) noexcept {
        std::uint32_t* const c = counts.data() + (static_cast<std::size_t>(s) << total_bits);
        std::fill(c, c + (std::size_t{1} << total_bits), std::uint32_t{0});
    }
    /// The number of segments (0 before their bounds are set).
    [[nodiscard]] std::size_t segments() const noexcept { return segment_begin.empty() ? 0 : segment_begin.size() - 1; }
    /// The counter of an entry: its primary keys' residues, concatenated.
    [[nodiscard]] std::size_t residue(const queue_entry& e) const noexcept {
        const auto k = O::keys(e);
        std::uint64_t r = 0;
        for (std::size_t f = 0; f < O::primary_keys; ++f)
            r = (r << bits[f]) | (k[f] & ((std::uint64_t{1} << bits[f]) - 1));
        return static_cast<std::size_t>(r);
    }
    /// Counts the entries of segment `s` (`e[0]` to `e[m - 1]`).
    void add(unsigned s, const queue_entry* e, std::size_t m) noexcept {
        std::uint32_t* const c = counts.data() + (static_cast<std::size_t>(s) << total_bits);
        for (std::size_t i = 0; i < m; ++i) ++c[residue(e[i])];
    }
};

namespace detail {

/// Writes each entry's word (`packed(entry)` above the position's `pos_bits`) into `wp`, on
/// `parts` threads; true when the words came out in increasing order.
template <class Packed>
bool pack_words(std::span<const queue_entry> in, std::uint64_t* wp, unsigned pos_bits, unsigned parts,
                const Packed& packed) noexcept {
    const std::size_t n = in.size();
    std::array<bool, 64> part_sorted{};
    parallel_for(parts, [&](unsigned t) noexcept {
        bool sorted = true;
        const std::size_t b = part_begin(n, parts, t), e = part_begin(n, parts, t + 1);
        for (std::size_t i = b; i < e; ++i) {
            wp[i] = (packed(in[i]) << pos_bits) | static_cast<std::uint64_t>(i);
            if (i > b && wp[i] < wp[i - 1]) sorted = false;
        }
        part_sorted[t] = sorted;
    });
    bool sorted = true;
    for (unsigned t = 0; t < parts; ++t) {
        const std::size_t b = part_begin(n, parts, t);
        sorted = sorted && part_sorted[t] && (t == 0 || wp[b - 1] < wp[b]);
    }
    return sorted;
}

/// The entries from `first` (n of them, in the order of the words `wp`) whose words tie on the
/// key bits kept above `pos_bits`, sorted with `cmp` run by run (usually in order already);
/// returns how many runs needed it.
template <class It, class Cmp>
std::size_t sort_tied_runs(It first_entry, const std::uint64_t* wp, std::size_t n, unsigned pos_bits, const Cmp& cmp) {
    std::size_t runs = 0;
    std::size_t i = 0;
    while (i < n) {
        std::size_t j = i + 1;
        const std::uint64_t top = wp[i] >> pos_bits;
        while (j < n && (wp[j] >> pos_bits) == top) ++j;
        const auto first = first_entry + static_cast<std::ptrdiff_t>(i), last = first_entry + static_cast<std::ptrdiff_t>(j);
        if (j - i > 1 && !std::is_sorted(first, last, cmp)) {
            std::sort(first, last, cmp);
            ++runs;
        }
        i = j;
    }
    return runs;
}

} // namespace detail

/// Sorts `in` in order `O` into `out` (overwriting it; `out` must not alias `in`). The result
/// is exactly `std::sort(..., O::before)`; `ws` keeps the buffers between calls. Entries must
/// be in the order of the caller's table (their `index` increasing), as a pass builds them:
/// the position in `in` is the last tie-break, as `index` is for `before`. `summary` must
/// have seen exactly the entries of `in`, in order (keys may only have widened since).
/// With `threads` > 1, large inputs are packed, split and gathered on that many threads.
template <order_policy O, class Alloc>
sort_report sort_entries(std::span<const queue_entry> in, const key_summary<O>& summary,
                         std::vector<queue_entry, Alloc>& out, sort_workspace& ws, unsigned threads = 1) {
    sort_report report{};
    const std::size_t n = in.size();
    MFPRIO_ASSERT(n <= std::size_t{0xffffffffu});
    MFPRIO_ASSERT(summary.count == n);
    const auto cmp = [](const queue_entry& a, const queue_entry& b) noexcept { return O::before(a, b); };
    if (n < 32) {
        out.assign(in.begin(), in.end());
        std::sort(out.begin(), out.end(), cmp);
        return report;
    }
    constexpr std::size_t nk = O::key_count;
    constexpr std::size_t np = O::primary_keys;
    const auto& lo = summary.lo;
    const auto& hi = summary.hi;
    const bool tie_sorted = summary.tie_break_in_order;
    report.tie_break_in_input_order = tie_sorted;
    const std::size_t used = tie_sorted ? np : nk;
    const unsigned parts = detail::parts_for(n, threads, 65536);
    report.threads = parts;

    // 1. The packed words: the position in the low bits, as many leading key bits as fit
    //    above it. Each key is stored minus its minimum, in the bits its spread needs.
    const unsigned pos_bits = static_cast<unsigned>(std::bit_width(n - 1));
    const unsigned room = 64 - pos_bits;
    std::array<unsigned, nk> width{};
    unsigned total = 0;
    for (std::size_t f = 0; f < used; ++f) {
        width[f] = static_cast<unsigned>(std::bit_width(hi[f] - lo[f]));
        total += width[f];
    }
    const bool truncated = total > room;
    const unsigned key_bits = truncated ? room : total;
    report.truncated = truncated;
    report.key_bits = key_bits;
    // Where each key goes when they all fit: above the keys after it.
    std::array<unsigned, nk> shift{};
    for (std::size_t f = used, at = 0; f-- > 0;) {
        shift[f] = static_cast<unsigned>(at);
        at += width[f];
    }
    // The entry's packed keys (the word without the position).
    const auto packed = [&](const queue_entry& entry) noexcept {
        const auto k = O::keys(entry);
        if (!truncated) { // no branch per key (a key of width 0 adds 0)
            std::uint64_t acc = 0;
            for (std::size_t f = 0; f < used; ++f) acc |= (k[f] - lo[f]) << shift[f];
            return acc;
        }
        std::uint64_t acc = 0;
        unsigned left = key_bits; // bits still to fill
        for (std::size_t f = 0; f < used && left > 0; ++f) {
            const unsigned w = width[f];
            if (w == 0) continue;
            const std::uint64_t v = k[f] - lo[f];
            if (w <= left) {
                acc = (acc << w) | v; // w <= left <= 63 here
                left -= w;
            } else {
                acc = (acc << left) | (v >> (w - left));
                left = 0;
            }
        }
        return acc;
    };

    // 1'. Few distinct packed keys (the usual case when the tie-break is the table order: a
    //     site's priorities span some 10^5 values): a counting sort moves each entry straight
    //     to its place, with no words, no split and no gather. Each part counts its entries
    //     per key (a table that stays in the L2 cache), then moves them.
    const std::size_t keys_span = std::size_t{1} << key_bits;
    if (!truncated && key_bits <= detail::counting_max_bits && keys_span * parts <= n) {
        report.counting_sorted = true;
        ws.bucket_counts.assign(keys_span * parts, 0);
        std::uint32_t* const counts = ws.bucket_counts.data();
        std::array<std::size_t, 65> bounds{};
        for (unsigned t = 0; t <= parts; ++t) bounds[t] = detail::part_begin(n, parts, t);
        detail::parallel_for(parts, [&](unsigned t) noexcept {
            std::uint32_t* const c = counts + t * keys_span;
            for (std::size_t i = bounds[t]; i < bounds[t + 1]; ++i) ++c[static_cast<std::size_t>(packed(in[i]))];
        });
        detail::counting_move(in, bounds.data(), parts, counts, key_bits, keys_span,
                              [](std::size_t d) noexcept { return d; },
                              [&](const queue_entry& e) noexcept { return static_cast<std::size_t>(packed(e)); }, out);
        MFPRIO_ASSERT(std::is_sorted(out.begin(), out.end(), cmp));
        return report;
    }

    auto& words = ws.words;
    words.resize(n);
    std::uint64_t* const wp = words.data();
    const bool sorted = detail::pack_words(in, wp, pos_bits, parts, packed);

    // 2. Radix sort on the key bits only: the words start in position order and every pass
    //    is stable, so equal keys stay in position order.
    if (!sorted) {
        detail::radix_sort(words, ws, pos_bits, pos_bits + key_bits, parts);
        report.radix_sorted = true;
    }

    // 3. The entries, in the words' order.
    const std::uint64_t pos_mask = (std::uint64_t{1} << pos_bits) - 1;
    out.resize(n); // only entries beyond the old size are initialized: a reused buffer is just overwritten
    queue_entry* const o = out.data();
    detail::parallel_for(parts, [&](unsigned t) noexcept {
        const std::size_t b = detail::part_begin(n, parts, t), e = detail::part_begin(n, parts, t + 1);
        for (std::size_t i = b; i < e; ++i) o[i] = in[static_cast<std::size_t>(wp[i] & pos_mask)];
    });

    // 4. When the keys did not fit, runs whose words tie on the kept bits are finished with
    //    the comparator (usually already in order).
    if (truncated) report.runs_sorted = detail::sort_tied_runs(out.begin(), wp, n, pos_bits, cmp);
    MFPRIO_ASSERT(std::is_sorted(out.begin(), out.end(), cmp));
    return report;
}

/// `sort_entries` with the counts a pass took while it wrote the entries (`key_counts`):
/// when they can be used (the tie-break keys in input order, every primary key's range
/// narrower than 2^bits, the segments covering `in`), the counting sort moves the entries
/// without counting them again, one thread per segment. Otherwise exactly the overload
/// above. The counts are used up (they become the moves' next places).
template <order_policy O, class Alloc>
sort_report sort_entries(std::span<const queue_entry> in, const key_summary<O>& summary, key_counts<O>& counted,
                         std::vector<queue_entry, Alloc>& out, sort_workspace& ws, unsigned threads = 1) {
    constexpr std::size_t np = O::primary_keys;
    const std::size_t n = in.size();
    const std::size_t segs = counted.segments();
    bool usable = n >= 32 && summary.count == n && summary.tie_break_in_order && segs > 0 && segs <= 64 &&
                  counted.segment_begin.front() == 0 && counted.segment_begin.back() == n &&
                  counted.counts.size() == (segs << counted.total_bits);
    std::array<unsigned, np> width{};
    unsigned key_bits = 0;
    for (std::size_t f = 0; f < np; ++f) {
        width[f] = static_cast<unsigned>(std::bit_width(summary.hi[f] - summary.lo[f]));
        usable = usable && width[f] <= counted.bits[f];
        key_bits += width[f];
    }
    if (!usable) return sort_entries<O>(in, summary, out, ws, threads);
    sort_report report{};
    report.tie_break_in_input_order = true;
    report.key_bits = key_bits;
    report.counting_sorted = true;
    report.counted_in_pass = true;
    report.threads = static_cast<unsigned>(segs);
    // Key d (the keys range-compressed and concatenated, as the words would hold them) is
    // counted at the residues of its keys: key f is lo[f] plus its field of d.
    std::array<unsigned, np> shift{};
    for (std::size_t f = np, at = 0; f-- > 0;) {
        shift[f] = static_cast<unsigned>(at);
        at += width[f];
    }
    const auto slot = [&](std::size_t d) noexcept {
        std::uint64_t r = 0;
        for (std::size_t f = 0; f < np; ++f) {
            const std::uint64_t field = (static_cast<std::uint64_t>(d) >> shift[f]) & ((std::uint64_t{1} << width[f]) - 1);
            r = (r << counted.bits[f]) | ((summary.lo[f] + field) & ((std::uint64_t{1} << counted.bits[f]) - 1));
        }
        return static_cast<std::size_t>(r);
    };
    detail::counting_move(in, counted.segment_begin.data(), static_cast<unsigned>(segs), counted.counts.data(),
                          key_bits, std::size_t{1} << counted.total_bits, slot,
                          [&](const queue_entry& e) noexcept { return counted.residue(e); }, out);
    MFPRIO_ASSERT(std::is_sorted(out.begin(), out.end(), [](const queue_entry& a, const queue_entry& b) noexcept {
        return O::before(a, b);
    }));
    return report;
}

/// `sort_entries` computing the summary itself (one more read of the entries).
template <order_policy O, class Alloc>
sort_report sort_entries(std::span<const queue_entry> in, std::vector<queue_entry, Alloc>& out, sort_workspace& ws,
                         unsigned threads = 1) {
    key_summary<O> summary{};
    for (const queue_entry& e : in) summary.add(e);
    return sort_entries<O>(in, summary, out, ws, threads);
}

} // namespace mfprio::queue
