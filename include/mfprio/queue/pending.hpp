#pragma once
/// \file
/// The pending jobs of a scheduler and the passes that prioritize them.
///
/// - `pass_builder<Order>` does one pass over a table of jobs: every job's priority with an
///   engine's `batch` (optionally on several threads), which jobs are queued, then the sorted
///   `snapshot`. Both `pending_jobs` and the asynchronous `reprioritizer` use it.
/// - `pending_jobs<J, Order>` is a pending-job set for the scheduler's own thread: insert,
///   update and remove jobs by id, then `reprioritize` with an engine and a context, which
///   returns the new snapshot. Optional INCR_ONLY (Slurm's PriorityFlags=INCR_ONLY on the
///   periodic path): a job's priority never decreases from one pass to the next, except
///   after an insert or update, which assign unconditionally as Slurm's `set_job_prio` does.
///
/// Which jobs a pass queues: pending jobs; running and suspended ones too under
/// `calculate_running` (Slurm's PriorityFlags=CALCULATE_RUNNING), flagged
/// `entry_state::running`. Held jobs are left out, as are jobs whose priority is 0 when the
/// order says 0 means held (Slurm, Flux). A job type without a `state` counts as pending.

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include <mfprio/core/assert.hpp>
#include <mfprio/core/huge_pages.hpp>
#include <mfprio/core/job.hpp>
#include <mfprio/queue/order.hpp>
#include <mfprio/queue/snapshot.hpp>

namespace mfprio::queue {

/// An engine output the queue can order: an arithmetic value, or a record with an arithmetic
/// `value` (`priority_value` of Slurm, Maui and Flux).
template <class T>
concept queue_priority = std::is_arithmetic_v<T> || requires(const T& p) {
    requires std::is_arithmetic_v<std::remove_cvref_t<decltype(p.value)>>;
};

/// An engine a pass can use: `e.batch(jobs, context, out)` as `mfprio::engine` has it.
template <class E, class J, class Ctx>
concept batch_engine = requires(const E& e, std::span<const J> jobs, const Ctx& c,
                                std::span<typename E::output_type> out) {
    requires queue_priority<typename E::output_type>;
    e.batch(jobs, c, out);
} && std::is_nothrow_default_constructible_v<typename E::output_type>;

/// A `batch_engine` that can prepare a batch once (`prepare_batch<J>(c)`, a plan) and take
/// that plan in every later `batch` call (`mfprio::engine`, `queue::dynamic_engine`): a pass
/// cut into chunks then prepares once, not once per chunk.
template <class E, class J, class Ctx>
concept planned_batch_engine = batch_engine<E, J, Ctx> &&
    requires(const E& e, std::span<const J> jobs, const Ctx& c, std::span<typename E::output_type> out) {
        e.batch(e.template prepare_batch<J>(c), jobs, c, out);
    };

/// The integer a queue orders by: the output's `value`, or the output itself. A floating
/// output is truncated toward zero (as Slurm truncates), NaN giving 0, and saturates at the
/// int64 range.
template <queue_priority T>
[[nodiscard]] constexpr std::int64_t queue_priority_of(const T& p) noexcept {
    using limits = std::numeric_limits<std::int64_t>;
    const auto convert = [](auto v) noexcept -> std::int64_t {
        using V = decltype(v);
        if constexpr (std::is_floating_point_v<V>) {
            if (!(v == v)) return 0;
            if (v >= static_cast<V>(9223372036854775808.0)) return limits::max(); // 2^63
            if (v < static_cast<V>(-9223372036854775808.0)) return limits::min();
            return static_cast<std::int64_t>(v);
        } else if constexpr (std::is_unsigned_v<V>) {
            return v > static_cast<std::uint64_t>(limits::max()) ? limits::max() : static_cast<std::int64_t>(v);
        } else {
            return static_cast<std::int64_t>(v);
        }
    };
    if constexpr (std::is_arithmetic_v<T>) return convert(p);
    else return convert(p.value);
}

/// How a pass treats the jobs.
struct pass_options {
    /// Slurm's PriorityFlags=INCR_ONLY: a job's new priority replaces the previous one only
    /// if it is greater (per job; a job that was not queued last time, or was inserted or
    /// updated since, takes its new priority as it is).
    bool incr_only = false;
    /// Slurm's PriorityFlags=CALCULATE_RUNNING: running and suspended jobs are prioritized
    /// and queued too, flagged `entry_state::running`. Otherwise only pending jobs are.
    bool calculate_running = false;
    /// Threads that compute priorities (1: the calling thread only). The table is split in
    /// equal parts; extra threads are started for the pass and joined before it returns.
    unsigned threads = 1;
};

/// What a pass decided about one job.
enum class job_class : std::uint8_t {
    pending, ///< queued, waiting
    running, ///< queued, running or suspended (CALCULATE_RUNNING)
    held,    ///< left out: held
    other,   ///< left out for its state
};

/// True for the classes that are queued.
[[nodiscard]] constexpr bool queued(job_class c) noexcept { return c == job_class::pending || c == job_class::running; }

namespace detail {

/// The class a job's state gives it (before its priority is known).
template <class J>
[[nodiscard]] constexpr job_class class_of(const J& j, bool calculate_running) noexcept {
    if constexpr (has_state<J>) {
        switch (job_traits<J>::state(j)) {
        case job_state::pending: return job_class::pending;
        case job_state::held: return job_class::held;
        case job_state::running:
        case job_state::suspended: return calculate_running ? job_class::running : job_class::other;
        default: return job_class::other;
        }
    } else {
        (void)j;
        (void)calculate_running;
        return job_class::pending;
    }
}

/// The PriorityTier of the job's partition when the context has partitions that carry one
/// (`slurm::context`), else 0. Slurm's PriorityTier is 16-bit: larger values saturate.
template <class J, class Ctx>
[[nodiscard]] constexpr std::uint16_t tier_of(const J& j, const Ctx& c) noexcept {
    if constexpr (has_partition<J> && requires { c.partition(std::uint32_t{})->priority_tier; }) {
        const auto* p = c.partition(static_cast<std::uint32_t>(job_traits<J>::partition(j)));
        if (p == nullptr) return 0;
        const auto t = p->priority_tier;
        return t > 0xffffu ? std::uint16_t{0xffffu} : static_cast<std::uint16_t>(t);
    } else {
        (void)j;
        (void)c;
        return 0;
    }
}

/// What `pending_jobs` keeps per table slot from one pass to the next, which `compute`
/// updates as it stages the entries (so that this costs no pass of its own): `priority[k]`
/// is the last pass's priority of the job in slot k and `known[k]` is 1 if that pass queued
/// it. Under `incr_only` a queued job's new priority below a known one is raised to it
/// first. A slot that is not queued (empty, held, or not queued for its state) is left
/// unknown.
struct slot_memory {
    std::int64_t* priority = nullptr;
    std::uint8_t* known = nullptr;
    bool incr_only = false;
};

/// The job's id, or `fallback` (its position) for a job type without one.
template <class J>
[[nodiscard]] constexpr std::uint64_t id_of(const J& j, std::size_t fallback) noexcept {
    if constexpr (has_id<J>) return static_cast<std::uint64_t>(job_traits<J>::id(j));
    else return static_cast<std::uint64_t>(fallback);
}

} // namespace detail

/// One pass over a table of jobs, in two steps so that the caller can adjust priorities in
/// between (INCR_ONLY): `compute` (every job's priority; the queued jobs' entries, in table
/// order), then `finish` (the sorted snapshot). Keeps its buffers, and the memory of
/// snapshots nobody reads any more, from one pass to the next. Not thread-safe: one pass at a
/// time.
///
/// `compute` builds each entry right after the engine's batch for its chunk of 1,024 jobs, while
/// the job records are still in cache, and, from the second pass on, counts the entries per
/// key for the sort (`key_counts`, sized from the previous pass's key ranges); `finish` then
/// only moves the entries into place when those counts fit (see `sort_entries`), and sorts as
/// usual otherwise. With `threads` > 1 every step (priorities, entries, counting, moves; or
/// packing, split, buckets, gather) is shared among that many threads. The staging buffer and
/// the snapshots are allocated in 2 MiB pages where the kernel allows (`huge_page_allocator`).
///
/// `memory` (for `pending_jobs`): each slot's last priority, kept and, under INCR_ONLY,
/// applied as the entries are staged.
template <order_policy Order>
class pass_builder {
public:
    pass_builder() : recycler_(std::make_shared<detail::snapshot_recycler>()) {}

    /// Every job's priority and class, and the entries of the queued jobs in table order.
    /// `live`, if not empty, says which slots hold a job (0: an empty slot, skipped and not
    /// counted).
    template <class J, class E, class Ctx>
        requires batch_engine<E, J, Ctx>
    void compute(std::span<const J> jobs, const E& engine, const Ctx& c, const pass_options& options,
                 std::span<const std::uint8_t> live = {}, const detail::slot_memory* memory = nullptr) {
        MFPRIO_ASSERT(live.empty() || live.size() == jobs.size());
        MFPRIO_ASSERT(jobs.size() <= std::size_t{0xffffffffu});
        const std::size_t n = jobs.size();
        staging_.resize(n);
        const unsigned parts = detail::parts_for(n, options.threads, 16384);
        parts_.assign(parts, part_result{});
        queue_entry* const staged = staging_.data();
        // Count the entries per key as they are written, for the sort, if the last pass's
        // keys (plus a bit each) would fit the counting sort (see `key_counts`).
        counted_ok_ = false;
        key_counts<Order>* counting = nullptr;
        if (have_width_) {
            std::array<unsigned, Order::primary_keys> bits{};
            unsigned total = 0;
            for (std::size_t f = 0; f < Order::primary_keys; ++f) {
                bits[f] = last_width_[f] + 1;
                total += bits[f];
            }
            // At most 8 bytes of counters a job (a quarter of what the pass stages).
            if (total <= detail::pass_counting_max_bits && (std::size_t{parts} << total) <= 2 * n) {
                counted_.reset(bits, parts, false); // each part zeroes its own counters
                counting = &counted_;
            }
        }
        if constexpr (planned_batch_engine<E, J, Ctx>) {
            // One plan for the whole pass, shared (read-only) by the parts' chunks.
            const auto plan = engine.template prepare_batch<J>(c);
            compute_parts<typename E::output_type>(
                jobs, parts, staged, options, live, memory, counting, c,
                [&](std::span<const J> chunk, std::span<typename E::output_type> out) noexcept {
                    engine.batch(plan, chunk, c, out);
                });
        } else {
            compute_parts<typename E::output_type>(
                jobs, parts, staged, options, live, memory, counting, c,
                [&](std::span<const J> chunk, std::span<typename E::output_type> out) noexcept {
                    engine.batch(chunk, c, out);
                });
        }
        // Close the gaps the parts left (jobs not queued), and join the summaries.
        std::size_t count = 0;
        summary_ = key_summary<Order>{};
        counts_ = part_result{};
        if (counting != nullptr) counted_.segment_begin.assign(1, 0);
        for (unsigned t = 0; t < parts; ++t) {
            const part_result& r = parts_[t];
            const std::size_t from = detail::part_begin(n, parts, t), m = r.summary.count;
            if (from != count && m > 0) std::copy(staged + from, staged + from + m, staged + count);
            count += m;
            if (counting != nullptr) counted_.segment_begin.push_back(count);
            summary_.merge(r.summary);
            counts_.pending += r.pending;
            counts_.running += r.running;
            counts_.held += r.held;
            counts_.other += r.other;
        }
        staged_ = count;
        counted_ok_ = counting != nullptr;
        threads_ = std::max(1u, options.threads);
        if constexpr (requires { { c.now } -> std::convertible_to<std::int64_t>; }) now_ = c.now;
        else now_ = 0;
    }

    /// The queued jobs' entries in table order (after `compute`); their `index` is the job's
    /// position in the table.
    [[nodiscard]] std::span<const queue_entry> staged() const noexcept { return {staging_.data(), staged_}; }

    /// Sets the priority of staged entry `i` (INCR_ONLY raising it back to its last value).
    void set_priority(std::size_t i, std::int64_t priority) noexcept {
        MFPRIO_ASSERT(i < staged_);
        staging_[i].priority = priority;
        summary_.changed(staging_[i]);
        counted_ok_ = false; // the counts saw the old priority
    }

    /// The snapshot of the entries `compute` staged, sorted in `Order`, with `info`'s
    /// generation and events (its counts, order name, `now` and time are filled here;
    /// `build_duration` counts from `started`).
    [[nodiscard]] std::shared_ptr<const snapshot> finish(snapshot_info info, std::chrono::steady_clock::time_point started) {
        std::unique_ptr<snapshot> s = recycler_->take();
        auto& entries = detail::snapshot_access::entries(*s);
        last_sort_ = counted_ok_ ? sort_entries<Order>(staged(), summary_, counted_, entries, workspace_, threads_)
                                 : sort_entries<Order>(staged(), summary_, entries, workspace_, threads_);
        counted_ok_ = false;
        // The next pass counts its keys if this one's ranges (plus a bit each) fit.
        have_width_ = summary_.count > 0 && summary_.tie_break_in_order;
        if (have_width_)
            for (std::size_t f = 0; f < Order::primary_keys; ++f)
                last_width_[f] = static_cast<unsigned>(std::bit_width(summary_.hi[f] - summary_.lo[f]));
        info.pending = counts_.pending;
        info.running = counts_.running;
        info.held = counts_.held;
        info.other = counts_.other;
        info.jobs = counts_.pending + counts_.running + counts_.held + counts_.other;
        info.now = now_;
        info.order = Order::name;
        info.built_at = std::chrono::steady_clock::now();
        info.build_duration = std::chrono::duration_cast<std::chrono::nanoseconds>(info.built_at - started);
        detail::snapshot_access::info(*s) = info;
        return detail::share(std::move(s), recycler_);
    }

    /// How the last `finish` sorted (for tests and benchmarks).
    [[nodiscard]] const sort_report& last_sort() const noexcept { return last_sort_; }

private:
    /// `compute`'s parts: each one's priorities, chunk by chunk through `batch(chunk, out)`,
    /// and its queued jobs' entries, from its first job's position on.
    template <class Out, class J, class Ctx, class Batch>
    void compute_parts(std::span<const J> jobs, unsigned parts, queue_entry* staged, const pass_options& options,
                       std::span<const std::uint8_t> live, const detail::slot_memory* memory,
                       key_counts<Order>* counting, const Ctx& c, const Batch& batch) {
        const std::size_t n = jobs.size();
        detail::parallel_for(parts, [&](unsigned t) noexcept {
            part_result r{}; // local: no cache line shared with the other threads' counters
            // The counts in registers: `r` is in memory (its summary's address is taken), and
            // an increment there each job is a chain of stores and loads (measured: the
            // hottest instruction of this loop).
            std::size_t pending = 0, running = 0, held = 0, other = 0;
            // What the loop reads, in locals: its 1-byte stores (`known`, the entry's last
            // bytes) may alias anything, so fields reached through references would be
            // loaded again after each of them.
            const J* const job_data = jobs.data();
            const std::uint8_t* const live_data = live.empty() ? nullptr : live.data();
            const bool calculate_running = options.calculate_running;
            std::int64_t* const prior = memory != nullptr ? memory->priority : nullptr;
            std::uint8_t* const known = memory != nullptr ? memory->known : nullptr;
            const bool incr_only = memory != nullptr && memory->incr_only;
            queue_entry* const stage = staged;
            if (counting != nullptr) counting->zero_segment(t);
            const std::size_t from = detail::part_begin(n, parts, t), to = detail::part_begin(n, parts, t + 1);
            std::size_t q = from; // the part's entries go from its first job's position on
            // Chunks of a fixed size: the engine's outputs stay on the stack.
            constexpr std::size_t chunk = 1024;
            Out out[chunk];
            for (std::size_t base = from; base < to; base += chunk) {
                const std::size_t m = std::min(chunk, to - base);
                batch(std::span<const J>(job_data + base, m), std::span<Out>(out, m));
                const std::size_t chunk_first = q;
                for (std::size_t i = 0; i < m; ++i) {
                    const std::size_t k = base + i;
                    if (live_data != nullptr && live_data[k] == 0) {
                        if (known != nullptr) known[k] = 0;
                        continue;
                    }
                    const J& j = job_data[k];
                    std::int64_t p = queue_priority_of(out[i]);
                    job_class cls = detail::class_of(j, calculate_running);
                    if (Order::zero_is_held && p == 0 && queued(cls)) cls = job_class::held;
                    switch (cls) {
                    case job_class::pending: ++pending; break;
                    case job_class::running: ++running; break;
                    case job_class::held: ++held; break;
                    default: ++other; break;
                    }
                    if (!queued(cls)) {
                        if (known != nullptr) known[k] = 0;
                        continue;
                    }
                    if (known != nullptr) {
                        if (incr_only && known[k] != 0 && p < prior[k]) p = prior[k];
                        prior[k] = p;
                        known[k] = 1;
                    }
                    // Written field by field in place (building an entry on the stack and
                    // copying it stalls on store forwarding); the chunk's entries are
                    // summarized after it.
                    queue_entry* const e = stage + q;
                    e->priority = p;
                    if constexpr (has_submit_time<J>)
                        e->submit_time = static_cast<std::int64_t>(job_traits<J>::submit_time(j));
                    else e->submit_time = 0;
                    e->job_id = detail::id_of(j, k);
                    e->index = static_cast<std::uint32_t>(k);
                    if constexpr (Order::uses_tier) e->tier = detail::tier_of(j, c);
                    else e->tier = 0;
                    e->state = cls == job_class::running ? entry_state::running : entry_state::pending;
                    e->reserved = 0;
                    ++q;
                }
                r.summary.add_run(stage + chunk_first, q - chunk_first);
                if (counting != nullptr) counting->add(t, stage + chunk_first, q - chunk_first);
            }
            r.pending = pending;
            r.running = running;
            r.held = held;
            r.other = other;
            parts_[t] = r;
        });
    }

    struct part_result {
        std::size_t pending = 0, running = 0, held = 0, other = 0;
        key_summary<Order> summary{};
    };

    // In 2 MiB pages where the kernel allows: `finish` reads it in random order (the gather).
    std::vector<queue_entry, huge_page_allocator<queue_entry>> staging_;
    std::size_t staged_ = 0;
    std::vector<part_result> parts_;
    part_result counts_{};
    key_summary<Order> summary_{};
    std::int64_t now_ = 0;
    unsigned threads_ = 1;
    sort_workspace workspace_;
    sort_report last_sort_{};
    key_counts<Order> counted_;                                 // this pass's counts per key, if taken
    bool counted_ok_ = false;                                   // counted_ matches the staged entries
    std::array<unsigned, Order::primary_keys> last_width_{};    // the last pass's primary key widths
    bool have_width_ = false;
    std::shared_ptr<detail::snapshot_recycler> recycler_;
};

/// Why a `pending_jobs` operation was refused.
enum class queue_errc : std::uint8_t {
    ok,           ///< done
    duplicate_id, ///< insert: a job with that id is already in the set
    unknown_id,   ///< update or remove: no job with that id is in the set
};

/// The outcome of an insert, update or remove: `ok()`, or the error and the job id.
struct [[nodiscard]] queue_status {
    queue_errc code = queue_errc::ok;
    std::uint64_t job_id = 0;

    [[nodiscard]] constexpr bool ok() const noexcept { return code == queue_errc::ok; }
    constexpr explicit operator bool() const noexcept { return ok(); }
    /// A sentence for a log.
    [[nodiscard]] std::string message() const {
        switch (code) {
        case queue_errc::ok: return "ok";
        case queue_errc::duplicate_id: return "job " + std::to_string(job_id) + " is already in the queue";
        case queue_errc::unknown_id: return "job " + std::to_string(job_id) + " is not in the queue";
        }
        return "unknown error";
    }
};

/// The pending jobs of a scheduler, for its own thread (not thread-safe): insert, update and
/// remove by id; `reprioritize` computes every priority with an engine and a context and
/// returns the sorted snapshot, which stays valid (immutable) whatever happens to the set
/// afterwards. An entry's `index` is the job's slot in this set when the snapshot was built
/// (slots move when removed slots are reclaimed): look jobs up by `job_id`.
///
/// Jobs keep their insertion order, so a scheduler that inserts in submission order gets the
/// cheaper sort (the tie-break is then the slot order, see `sort_entries`). Removing is O(1):
/// the slot is marked empty and reclaimed at a later pass once an eighth of the slots are
/// empty.
template <class J, order_policy Order = slurm_order>
    requires has_id<J>
class pending_jobs {
public:
    using job_type = J;
    using order_type = Order;

    pending_jobs() = default;
    explicit pending_jobs(Order) {}

    /// Adds a job. Refused if a job with the same id is in the set. Its first priority is
    /// assigned unconditionally (even under INCR_ONLY).
    queue_status insert(const J& job) {
        const std::uint64_t id = id_of(job);
        const auto [it, inserted] = slots_.try_emplace(id, static_cast<std::uint32_t>(jobs_.size()));
        if (!inserted) return {queue_errc::duplicate_id, id};
        jobs_.push_back(job);
        live_.push_back(1);
        previous_.push_back(0);
        has_previous_.push_back(0);
        ++size_;
        return {};
    }

    /// Replaces the record of the job with the same id (new state, partition, urgency...).
    /// Its next priority is assigned unconditionally, as Slurm does after a job update.
    queue_status update(const J& job) {
        const std::uint64_t id = id_of(job);
        const auto it = slots_.find(id);
        if (it == slots_.end()) return {queue_errc::unknown_id, id};
        jobs_[it->second] = job;
        has_previous_[it->second] = 0;
        return {};
    }

    /// Removes the job with id `id` (it started, ended or was cancelled).
    queue_status remove(std::uint64_t id) {
        const auto it = slots_.find(id);
        if (it == slots_.end()) return {queue_errc::unknown_id, id};
        live_[it->second] = 0;
        has_previous_[it->second] = 0;
        slots_.erase(it);
        --size_;
        return {};
    }

    [[nodiscard]] bool contains(std::uint64_t id) const { return slots_.find(id) != slots_.end(); }
    /// The job with id `id`, or nullptr (valid until the next insert, remove or reprioritize).
    [[nodiscard]] const J* find(std::uint64_t id) const {
        const auto it = slots_.find(id);
        return it == slots_.end() ? nullptr : &jobs_[it->second];
    }
    /// Jobs in the set.
    [[nodiscard]] std::size_t size() const noexcept { return size_; }
    [[nodiscard]] bool empty() const noexcept { return size_ == 0; }

    /// The priority the last pass gave the job (after INCR_ONLY), or nothing if no pass has
    /// queued it since it was inserted or updated (or it was held or not queued).
    [[nodiscard]] std::optional<std::int64_t> priority(std::uint64_t id) const {
        const auto it = slots_.find(id);
        if (it == slots_.end() || has_previous_[it->second] == 0) return std::nullopt;
        return previous_[it->second];
    }

    /// Copies the jobs, in insertion order, into `out` (e.g. for a reprioritizer's provider).
    void copy_jobs(std::vector<J>& out) const {
        out.clear();
        out.reserve(size_);
        for (std::size_t k = 0; k < jobs_.size(); ++k)
            if (live_[k] != 0) out.push_back(jobs_[k]);
    }

    /// Recomputes every priority with `engine` and `c` and returns the new snapshot
    /// (generation one more than the last; `events` recorded in it). Under
    /// `options.incr_only`, a job queued by the last pass (and not updated since) keeps its
    /// previous priority if the new one is not greater.
    template <class E, class Ctx>
        requires batch_engine<E, J, Ctx>
    std::shared_ptr<const snapshot> reprioritize(const E& engine, const Ctx& c, const pass_options& options = {},
                                                 std::uint32_t events = event_bit(queue_event::requested)) {
        const auto started = std::chrono::steady_clock::now();
        if (jobs_.size() - size_ > 0 && (jobs_.size() - size_) * 8 >= jobs_.size()) compact();
        // INCR_ONLY against the last pass, and this pass's priorities kept for the next one,
        // as `compute` stages each job (a job not queued now has none: if it is released
        // later, it takes its fresh priority, as Slurm recomputes a released job from
        // scratch).
        const detail::slot_memory memory{.priority = previous_.data(), .known = has_previous_.data(), .incr_only = options.incr_only};
        builder_.compute(std::span<const J>(jobs_), engine, c, options, std::span<const std::uint8_t>(live_), &memory);
        snapshot_info info{};
        info.generation = ++generation_;
        info.events = events;
        latest_ = builder_.finish(info, started);
        return latest_;
    }

    /// The snapshot of the last `reprioritize` (an empty one, generation 0, before the first).
    [[nodiscard]] std::shared_ptr<const snapshot> latest() const noexcept { return latest_; }
    [[nodiscard]] std::uint64_t generation() const noexcept { return generation_; }
    /// How the last pass sorted.
    [[nodiscard]] const sort_report& last_sort() const noexcept { return builder_.last_sort(); }

private:
    static std::uint64_t id_of(const J& j) noexcept { return static_cast<std::uint64_t>(job_traits<J>::id(j)); }

    /// Reclaims removed slots, keeping the order of the others.
    void compact() {
        std::size_t to = 0;
        for (std::size_t from = 0; from < jobs_.size(); ++from) {
            if (live_[from] == 0) continue;
            if (to != from) {
                jobs_[to] = std::move(jobs_[from]);
                previous_[to] = previous_[from];
                has_previous_[to] = has_previous_[from];
                slots_[id_of(jobs_[to])] = static_cast<std::uint32_t>(to);
            }
            live_[to] = 1;
            ++to;
        }
        jobs_.erase(jobs_.begin() + static_cast<std::ptrdiff_t>(to), jobs_.end());
        live_.resize(to);
        previous_.resize(to);
        has_previous_.resize(to);
    }

    std::vector<J> jobs_;
    std::vector<std::uint8_t> live_;
    std::vector<std::int64_t> previous_;
    std::vector<std::uint8_t> has_previous_;
    std::unordered_map<std::uint64_t, std::uint32_t> slots_;
    std::size_t size_ = 0;
    std::uint64_t generation_ = 0;
    pass_builder<Order> builder_;
    std::shared_ptr<const snapshot> latest_ = std::make_shared<const snapshot>();
};

} // namespace mfprio::queue
