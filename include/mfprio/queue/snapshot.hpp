#pragma once
/// \file
/// The prioritized queue as a scheduler reads it: `snapshot`, an immutable sorted list of
/// queue entries with its generation number, when and why it was computed, and counts; and
/// `snapshot_channel`, through which one thread publishes snapshots and any number of
/// readers take the latest one without ever waiting.
///
/// A snapshot is complete before it is published and never changes afterwards: readers
/// share it through `std::shared_ptr<const snapshot>` and may keep it as long as they like.
///
/// Why not `std::atomic<std::shared_ptr>`: libstdc++ 12 implements it with a lock bit in the
/// control-block pointer; every `load` takes that bit with a compare-and-swap loop and spins
/// while another thread holds it (`is_lock_free()` is false). A reader could then spin behind
/// a preempted writer or another reader. `snapshot_channel` uses the Left-Right technique
/// instead (Ramalhete and Correia, 2013): two copies of the pointer, and readers announce
/// themselves on a counter, so a reader makes a fixed number of atomic operations and never
/// loops; only the publisher waits, for the readers that are copying the older pointer.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <mfprio/core/huge_pages.hpp>
#include <mfprio/queue/order.hpp>

namespace mfprio::queue {

/// What made a pass run: bits of `snapshot_info::events`. The first three are the events of
/// seed 003's "Asynchronous Proposal" (jobs submitted, jobs terminated, resources grown or
/// shrunk).
enum class queue_event : std::uint32_t {
    job_submitted = 1u << 0,     ///< one or more jobs were submitted
    job_ended = 1u << 1,         ///< one or more jobs ended
    resources_changed = 1u << 2, ///< the resources grew or shrank
    requested = 1u << 3,         ///< someone asked for a pass
    period = 1u << 4,            ///< the period elapsed
    started = 1u << 5,           ///< the first pass after a start
};

/// The bit of an event.
[[nodiscard]] constexpr std::uint32_t event_bit(queue_event e) noexcept { return static_cast<std::uint32_t>(e); }

/// Whether `events` has the bit of `e`.
[[nodiscard]] constexpr bool has_event(std::uint32_t events, queue_event e) noexcept {
    return (events & event_bit(e)) != 0;
}

/// Everything about a snapshot but its entries.
struct snapshot_info {
    std::uint64_t generation = 0; ///< 1 for the first snapshot built, then +1 each; 0 for the initial empty one
    std::int64_t now = 0;         ///< the context's `now` (epoch seconds) the priorities are for; 0 if it has none
    std::chrono::steady_clock::time_point built_at{}; ///< when the snapshot was complete
    std::chrono::nanoseconds build_duration{};        ///< how long its pass took
    std::uint32_t events = 0;  ///< `queue_event` bits that made its pass run
    std::size_t jobs = 0;      ///< jobs the pass looked at
    std::size_t pending = 0;   ///< entries of pending jobs
    std::size_t running = 0;   ///< entries of running or suspended jobs (CALCULATE_RUNNING)
    std::size_t held = 0;      ///< jobs left out because they are held (held state, or priority 0 where that holds)
    std::size_t other = 0;     ///< jobs left out for their state (finished, completing; running without CALCULATE_RUNNING)
    std::string_view order{};  ///< the order policy's name
};

class snapshot;

namespace detail {
/// The one door through which a pass fills a snapshot before publishing it.
struct snapshot_access {
    static std::vector<queue_entry, huge_page_allocator<queue_entry>>& entries(snapshot& s) noexcept;
    static snapshot_info& info(snapshot& s) noexcept;
};
} // namespace detail

/// A prioritized queue at one moment: the queued jobs in scheduling order. Immutable: it is
/// complete before anyone can see it and never changes afterwards.
class snapshot {
public:
    /// An empty snapshot, generation 0.
    snapshot() = default;

    /// The entries, first to schedule first.
    [[nodiscard]] std::span<const queue_entry> entries() const noexcept { return entries_; }
    [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }
    [[nodiscard]] bool empty() const noexcept { return entries_.empty(); }
    [[nodiscard]] const queue_entry& operator[](std::size_t i) const noexcept { return entries_[i]; }
    [[nodiscard]] auto begin() const noexcept { return entries_.cbegin(); }
    [[nodiscard]] auto end() const noexcept { return entries_.cend(); }

    [[nodiscard]] const snapshot_info& info() const noexcept { return info_; }
    [[nodiscard]] std::uint64_t generation() const noexcept { return info_.generation; }

    /// The entry of job `job_id`, or nullptr. A linear search: O(size).
    [[nodiscard]] const queue_entry* find(std::uint64_t job_id) const noexcept {
        const auto it = std::find_if(entries_.begin(), entries_.end(),
                                     [job_id](const queue_entry& e) { return e.job_id == job_id; });
        return it == entries_.end() ? nullptr : &*it;
    }

private:
    friend struct detail::snapshot_access;
    // In 2 MiB pages where the kernel allows: a pass's counting sort writes it in random order.
    std::vector<queue_entry, huge_page_allocator<queue_entry>> entries_;
    snapshot_info info_{};
};

namespace detail {

inline std::vector<queue_entry, huge_page_allocator<queue_entry>>& snapshot_access::entries(snapshot& s) noexcept {
    return s.entries_;
}
inline snapshot_info& snapshot_access::info(snapshot& s) noexcept { return s.info_; }

/// Gives the memory of a snapshot nobody reads any more to the pass that builds the next
/// one, so that a pass over a million jobs does not allocate (and fault in) 32 MB each time.
/// The thread that drops the last reference to a snapshot hands it over with one atomic
/// exchange; it frees memory only when an unclaimed snapshot is already waiting.
class snapshot_recycler {
public:
    snapshot_recycler() = default;
    snapshot_recycler(const snapshot_recycler&) = delete;
    snapshot_recycler& operator=(const snapshot_recycler&) = delete;
    ~snapshot_recycler() { delete spare_.load(std::memory_order_acquire); }

    /// A snapshot to fill: a returned one (its entries' memory kept), or a new one.
    [[nodiscard]] std::unique_ptr<snapshot> take() {
        if (snapshot* s = spare_.exchange(nullptr, std::memory_order_acq_rel)) return std::unique_ptr<snapshot>(s);
        return std::make_unique<snapshot>();
    }

    /// Takes back a snapshot that has no reader left.
    void give_back(snapshot* s) noexcept { delete spare_.exchange(s, std::memory_order_acq_rel); }

private:
    std::atomic<snapshot*> spare_{nullptr};
};

/// The deleter of published snapshots: returns them to their recycler.
struct recycling_deleter {
    std::shared_ptr<snapshot_recycler> home;
    void operator()(const snapshot* s) const noexcept {
        // The snapshot was created non-const (recycler::take); only readers saw it const.
        home->give_back(const_cast<snapshot*>(s));
    }
};

/// Shares a filled snapshot; it goes back to `home` when its last reader drops it.
[[nodiscard]] inline std::shared_ptr<const snapshot> share(std::unique_ptr<snapshot> s,
                                                           const std::shared_ptr<snapshot_recycler>& home) {
    return std::shared_ptr<const snapshot>(s.release(), recycling_deleter{home});
}

/// A hint to the CPU that we are spinning.
inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

} // namespace detail

/// One publisher, many readers. `latest()` is wait-free: a fixed number of atomic operations
/// and a shared_ptr copy, no loop, no lock, no allocation, whatever the publisher is doing.
/// `publish` is for one thread at a time (a mutex serializes publishers); it waits only for
/// readers that are in the middle of copying the older pointer, a few nanoseconds each
/// unless such a reader is preempted.
///
/// How (Left-Right): the two slots hold the pointer; `side_` says which slot readers copy.
/// A reader registers on the counter of the current version, reads `side_`, copies that
/// slot, and deregisters. The publisher writes the slot readers are not using, turns `side_`
/// to it, then waits for the readers registered before the turn (flipping the version so
/// that new readers register on the other counter), after which nobody reads the old slot
/// and it can be overwritten too.
class snapshot_channel {
public:
    /// A channel holding an empty snapshot (generation 0).
    snapshot_channel() : snapshot_channel(std::make_shared<const snapshot>()) {}

    /// A channel holding `initial` (not null).
    explicit snapshot_channel(std::shared_ptr<const snapshot> initial) {
        MFPRIO_ASSERT(initial != nullptr);
        generation_.store(initial->generation(), std::memory_order_relaxed);
        slots_[0] = initial;
        slots_[1] = std::move(initial);
    }

    snapshot_channel(const snapshot_channel&) = delete;
    snapshot_channel& operator=(const snapshot_channel&) = delete;

    /// The latest published snapshot (never null). Wait-free; never allocates.
    [[nodiscard]] std::shared_ptr<const snapshot> latest() const noexcept {
        const unsigned v = version_.load(std::memory_order_seq_cst);
        readers_[v].count.fetch_add(1, std::memory_order_seq_cst);
        const unsigned side = side_.load(std::memory_order_seq_cst);
        std::shared_ptr<const snapshot> out = slots_[side];
        readers_[v].count.fetch_sub(1, std::memory_order_release);
        return out;
    }

    /// The generation of the latest published snapshot: one atomic load.
    [[nodiscard]] std::uint64_t generation() const noexcept { return generation_.load(std::memory_order_acquire); }

    /// Makes `s` (not null) the latest snapshot. The one it replaces is released here, or by
    /// its last reader.
    void publish(std::shared_ptr<const snapshot> s) {
        MFPRIO_ASSERT(s != nullptr);
        const std::uint64_t g = s->generation();
        std::shared_ptr<const snapshot> old;
        {
            const std::lock_guard<std::mutex> lock(publisher_);
            const unsigned side = side_.load(std::memory_order_relaxed);
            const unsigned other = side ^ 1u;
            slots_[other] = s; // no reader copies this slot (see the class comment)
            side_.store(other, std::memory_order_seq_cst);
            // Wait for every reader that may still be copying slots_[side].
            const unsigned v = version_.load(std::memory_order_relaxed);
            wait_for_readers(readers_[v ^ 1u].count);
            version_.store(v ^ 1u, std::memory_order_seq_cst);
            wait_for_readers(readers_[v].count);
            old = std::exchange(slots_[side], std::move(s));
            generation_.store(g, std::memory_order_release);
        }
        // `old` is released here, outside the lock.
    }

private:
    static void wait_for_readers(const std::atomic<std::uint64_t>& count) noexcept {
        for (unsigned spins = 0; count.load(std::memory_order_seq_cst) != 0; ++spins) {
            if (spins < 128) detail::cpu_relax();
            else std::this_thread::yield();
        }
    }

    struct alignas(64) reader_count {
        std::atomic<std::uint64_t> count{0};
    };

    std::shared_ptr<const snapshot> slots_[2];
    alignas(64) std::atomic<unsigned> side_{0};      // read by every reader, written by the publisher
    std::atomic<unsigned> version_{0};              // ditto
    std::atomic<std::uint64_t> generation_{0};
    mutable reader_count readers_[2];               // written by every reader: lines of their own
    std::mutex publisher_;
};

} // namespace mfprio::queue
