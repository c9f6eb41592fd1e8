#pragma once
/// \file
/// The asynchronous reprioritizer of seed 003 ("Asynchronous Proposal"): a thread of its own
/// recomputes the priorities of all pending jobs on a period and on events (jobs submitted,
/// jobs ended, resources changed), and publishes each result as an immutable sorted
/// `snapshot`. The scheduler takes the latest snapshot whenever it starts a cycle, without
/// ever waiting for a pass.
///
/// The reprioritizer does not own the scheduler's data: for each pass it calls a provider,
/// a callable the scheduler supplies, which returns a `pass_input` (the jobs and the context
/// of the pass, and whatever keeps them alive until the pass ends). The provider runs on the
/// reprioritizer's thread; it is where the scheduler copies its tables under its own lock,
/// or hands over immutable ones.
///
/// Errors: when the provider throws or returns an error (or the pass cannot allocate), the
/// pass is counted as failed and its message kept (`last_error`), the previous snapshot
/// stays published, and the thread carries on with the next pass.
///
/// Blocking, by operation:
/// - `latest()`, `generation()`, `stats()`: wait-free (see `snapshot_channel`);
/// - `notify()`: takes a mutex that the worker holds only while it checks for work before
///   sleeping, never during a pass;
/// - `start()`, `stop()`, `wait_for_pass()`, `last_error()`: may wait (control, not the
///   scheduling cycle). `stop()` waits for the pass under way to end.
/// A reader that drops the last reference to an old snapshot hands its memory back to the
/// next pass with one atomic exchange (and frees it only if a spare is already waiting).
///
/// Speed (see `order.hpp` for the sort): a pass is one read of the jobs (the engine's batch
/// and each queued job's entry, chunk by chunk), a packing and a radix sort of 8-byte words,
/// and one gather of the entries. With `options.pass.threads` = 2 every step is shared
/// between two threads. A snapshot of a million jobs is 32 MB; in steady state a
/// reprioritizer holds the published one, one spare, and its staging buffer.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <concepts>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include <mfprio/core/assert.hpp>
#include <mfprio/queue/order.hpp>
#include <mfprio/queue/pending.hpp>
#include <mfprio/queue/snapshot.hpp>

namespace mfprio::queue {

/// What a provider hands to one pass.
template <class J, class Ctx>
struct pass_input {
    using job_type = J;
    using context_type = Ctx;

    /// The jobs to prioritize: pending ones (and running ones, for CALCULATE_RUNNING), in
    /// the scheduler's table order (submission order makes the sort cheaper).
    std::span<const J> jobs{};
    /// The evaluation context (`now`, cluster totals, tables). Not null unless `error` is set.
    const Ctx* context = nullptr;
    /// INCR_ONLY only: ids of jobs whose priority this pass assigns unconditionally (jobs
    /// released or updated since the last pass: Slurm's `set_job_prio` path).
    std::span<const std::uint64_t> reset_ids{};
    /// Anything that keeps `jobs`, `context` and `reset_ids` valid until the pass ends.
    std::shared_ptr<const void> keep_alive{};
    /// Not empty: the provider could not supply the data; the pass fails with this message.
    std::string error{};

    /// A failed input with `message`.
    [[nodiscard]] static pass_input failure(std::string message) {
        pass_input in{};
        in.error = std::move(message);
        if (in.error.empty()) in.error = "the provider failed";
        return in;
    }
};

/// A pass that failed.
struct pass_error {
    std::string message;    ///< what went wrong
    std::uint64_t pass = 0; ///< the number of the pass (1 for the first pass ever attempted)
    std::chrono::system_clock::time_point when{};
};

/// Counters, each read atomically (not all from the same instant).
struct reprioritizer_stats {
    std::uint64_t passes = 0;     ///< passes attempted (succeeded or failed)
    std::uint64_t failures = 0;   ///< passes that failed
    std::uint64_t generation = 0; ///< the generation of the latest published snapshot
    std::chrono::nanoseconds last_pass{}; ///< duration of the last successful pass
};

/// How often and how a reprioritizer works.
struct reprioritizer_options {
    /// A pass at least this often (Slurm's PriorityCalcPeriod, default 5 minutes); 0: only
    /// on events. Any pass restarts the period.
    std::chrono::milliseconds period = std::chrono::minutes(5);
    /// At least this long between the starts of two passes run for events, so that a burst
    /// of submissions does not make back-to-back passes (events are coalesced meanwhile).
    std::chrono::milliseconds min_interval{0};
    /// Run a pass as soon as the thread starts.
    bool pass_on_start = true;
    /// INCR_ONLY, CALCULATE_RUNNING and the threads a pass uses.
    pass_options pass{};
};

namespace detail {
template <class T>
struct is_pass_input : std::false_type {};
template <class J, class Ctx>
struct is_pass_input<pass_input<J, Ctx>> : std::true_type {};
} // namespace detail

/// A provider: called with no argument, returns a `pass_input`.
template <class P>
concept pass_provider = std::invocable<P&> && detail::is_pass_input<std::remove_cvref_t<std::invoke_result_t<P&>>>::value;

/// A thread that keeps a prioritized snapshot of the scheduler's pending jobs up to date, in
/// order `Order`, with engine `E`; `Provider` supplies each pass's jobs and context.
///
///     mfprio::queue::reprioritizer r(mfprio::queue::slurm_order{}, engine, provider, options);
///     r.start();
///     ...                      // scheduler thread:
///     r.notify(mfprio::queue::queue_event::job_submitted);
///     auto queue = r.latest(); // never waits; keep it for the whole cycle
template <order_policy Order, class E, pass_provider Provider>
class reprioritizer {
public:
    using input_type = std::remove_cvref_t<std::invoke_result_t<Provider&>>;
    using job_type = typename input_type::job_type;
    using context_type = typename input_type::context_type;
    static_assert(batch_engine<E, job_type, context_type>,
                  "mfprio: the engine cannot compute priorities of the provider's jobs in its context "
                  "(it needs batch(std::span<const J>, const Ctx&, std::span<output_type>))");

    /// A reprioritizer, not started.
    reprioritizer(Order, E engine, Provider provider, reprioritizer_options options = {})
        : engine_(std::move(engine)), provider_(std::move(provider)), options_(options) {}

    reprioritizer(const reprioritizer&) = delete;
    reprioritizer& operator=(const reprioritizer&) = delete;

    /// Stops the thread (see `stop`).
    ~reprioritizer() { stop(); }

    /// Starts the thread. False if it was already running. May be called again after `stop`.
    bool start() {
        const std::lock_guard<std::mutex> control(control_);
        if (worker_.joinable()) return false;
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            stop_ = false;
        }
        running_.store(true, std::memory_order_release);
        try {
            worker_ = std::thread([this] { run(); });
        } catch (...) {
            running_.store(false, std::memory_order_release);
            throw;
        }
        return true;
    }

    /// Stops the thread and waits for it: the pass under way, if any, ends first. Does
    /// nothing if the thread is not running. The latest snapshot stays readable. Not to be
    /// called from the provider (the thread cannot wait for itself).
    void stop() noexcept {
        const std::lock_guard<std::mutex> control(control_);
        if (!worker_.joinable()) return;
        MFPRIO_ASSERT(worker_.get_id() != std::this_thread::get_id());
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            stop_ = true;
        }
        wake_.notify_all();
        worker_.join();
        running_.store(false, std::memory_order_release);
        done_.notify_all(); // wake wait_for_pass callers
    }

    /// Whether the thread is running (between `start` and `stop`).
    [[nodiscard]] bool running() const noexcept { return running_.load(std::memory_order_acquire); }

    /// Asks for a pass because of `e`. Coalesced: events that arrive before the worker takes
    /// them make one pass. Works before `start` too (the first pass takes them). Takes a
    /// mutex the worker holds only while it checks for work, never during a pass.
    void notify(queue_event e) noexcept {
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            events_ |= event_bit(e);
        }
        wake_.notify_one();
    }

    /// The latest snapshot (never null; empty, generation 0, before the first pass). Wait-free.
    [[nodiscard]] std::shared_ptr<const snapshot> latest() const noexcept { return channel_.latest(); }
    /// The generation of the latest snapshot. Wait-free.
    [[nodiscard]] std::uint64_t generation() const noexcept { return channel_.generation(); }

    [[nodiscard]] reprioritizer_stats stats() const noexcept {
        return {passes_.load(std::memory_order_acquire), failures_.load(std::memory_order_acquire),
                channel_.generation(), std::chrono::nanoseconds(last_pass_ns_.load(std::memory_order_relaxed))};
    }
    [[nodiscard]] std::uint64_t passes() const noexcept { return passes_.load(std::memory_order_acquire); }
    [[nodiscard]] std::uint64_t failures() const noexcept { return failures_.load(std::memory_order_acquire); }

    /// The last failure, if any pass ever failed.
    [[nodiscard]] std::optional<pass_error> last_error() const {
        const std::lock_guard<std::mutex> lock(error_mutex_);
        return last_error_;
    }

    /// Waits until `count` passes have been attempted (`passes() >= count`), the thread
    /// stops, or `timeout` elapses. True if the count was reached.
    template <class Rep, class Period>
    bool wait_for_pass(std::uint64_t count, std::chrono::duration<Rep, Period> timeout) {
        std::unique_lock<std::mutex> lock(mutex_);
        done_.wait_for(lock, timeout, [&] { return passes_.load(std::memory_order_acquire) >= count || stop_; });
        return passes_.load(std::memory_order_acquire) >= count;
    }

    [[nodiscard]] const reprioritizer_options& options() const noexcept { return options_; }

private:
    using clock = std::chrono::steady_clock;

    void run() noexcept {
        auto last_start = clock::now();
        bool first = options_.pass_on_start;
        for (;;) {
            std::uint32_t events = 0;
            {
                std::unique_lock<std::mutex> lock(mutex_);
                for (;;) {
                    if (stop_) return;
                    const auto now = clock::now();
                    const bool periodic = options_.period.count() > 0;
                    const auto period_due = last_start + options_.period;
                    const auto event_due = last_start + options_.min_interval;
                    if (first) {
                        events = events_ | event_bit(queue_event::started);
                        break;
                    }
                    if (events_ != 0 && now >= event_due) {
                        events = events_;
                        break;
                    }
                    if (periodic && now >= period_due) {
                        events = events_ | event_bit(queue_event::period);
                        break;
                    }
                    auto wake_at = clock::time_point::max();
                    if (periodic) wake_at = period_due;
                    if (events_ != 0) wake_at = std::min(wake_at, event_due);
                    if (wake_at == clock::time_point::max()) wake_.wait(lock);
                    else wake_.wait_until(lock, wake_at);
                }
                events_ = 0;
                first = false;
            }
            last_start = clock::now();
            pass(events, last_start);
            {
                const std::lock_guard<std::mutex> lock(mutex_); // so that wait_for_pass cannot miss it
            }
            done_.notify_all();
        }
    }

    /// One pass: provider, priorities, INCR_ONLY, snapshot, publication. Never throws.
    void pass(std::uint32_t events, clock::time_point started) noexcept {
        const std::uint64_t number = passes_.load(std::memory_order_relaxed) + 1;
        try {
            input_type in = provider_();
            if (!in.error.empty()) {
                fail(number, "provider: " + in.error);
            } else if (in.context == nullptr) {
                fail(number, "provider: no context");
            } else {
                builder_.compute(in.jobs, engine_, *in.context, options_.pass);
                if (options_.pass.incr_only) apply_incr_only(in.reset_ids);
                snapshot_info info{};
                info.generation = channel_.generation() + 1;
                info.events = events;
                channel_.publish(builder_.finish(info, started));
                if (options_.pass.incr_only) {
                    previous_ids_.swap(next_ids_);
                    previous_priorities_.swap(next_priorities_);
                }
                last_pass_ns_.store(static_cast<std::int64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                                  clock::now() - started)
                                                                  .count()),
                                    std::memory_order_relaxed);
            }
        } catch (const std::exception& e) {
            fail(number, e.what());
        } catch (...) {
            fail(number, "unknown exception");
        }
        passes_.store(number, std::memory_order_release);
    }

    void fail(std::uint64_t number, std::string message) noexcept {
        try {
            const std::lock_guard<std::mutex> lock(error_mutex_);
            last_error_ = pass_error{.message = std::move(message), .pass = number, .when = std::chrono::system_clock::now()};
        } catch (...) {
            // Out of memory while reporting: the counter still says it failed.
        }
        failures_.fetch_add(1, std::memory_order_acq_rel);
    }

    /// INCR_ONLY: each queued job keeps the priority the last published pass gave it if the
    /// new one is not greater, unless it is in `reset` or was not queued then. Jobs are
    /// matched by id: a merge of this pass's ids (sorted, unless already increasing in
    /// table order) with the last pass's. Prepares next_ids_ / next_priorities_.
    void apply_incr_only(std::span<const std::uint64_t> reset) {
        const std::span<const queue_entry> staged = builder_.staged();
        by_id_.clear();
        by_id_.reserve(staged.size());
        bool increasing = true;
        for (std::size_t i = 0; i < staged.size(); ++i) {
            const std::uint64_t id = staged[i].job_id;
            if (!by_id_.empty() && by_id_.back().first >= id) increasing = false;
            by_id_.emplace_back(id, static_cast<std::uint32_t>(i));
        }
        if (!increasing) std::sort(by_id_.begin(), by_id_.end());
        reset_.assign(reset.begin(), reset.end());
        std::sort(reset_.begin(), reset_.end());
        next_ids_.clear();
        next_priorities_.clear();
        std::size_t j = 0, r = 0;
        for (const auto& [id, i] : by_id_) {
            while (j < previous_ids_.size() && previous_ids_[j] < id) ++j;
            while (r < reset_.size() && reset_[r] < id) ++r;
            const bool was_queued = j < previous_ids_.size() && previous_ids_[j] == id;
            const bool is_reset = r < reset_.size() && reset_[r] == id;
            std::int64_t p = staged[i].priority;
            if (was_queued && !is_reset && p < previous_priorities_[j]) {
                p = previous_priorities_[j];
                builder_.set_priority(i, p);
            }
            next_ids_.push_back(id);
            next_priorities_.push_back(p);
        }
    }

    // Fixed at construction.
    E engine_;
    Provider provider_;
    const reprioritizer_options options_;

    // The worker's own (no other thread touches them).
    pass_builder<Order> builder_;
    std::vector<std::pair<std::uint64_t, std::uint32_t>> by_id_;
    std::vector<std::uint64_t> reset_;
    std::vector<std::uint64_t> previous_ids_, next_ids_;
    std::vector<std::int64_t> previous_priorities_, next_priorities_;

    // Shared.
    snapshot_channel channel_;
    std::atomic<std::uint64_t> passes_{0};
    std::atomic<std::uint64_t> failures_{0};
    std::atomic<std::int64_t> last_pass_ns_{0};
    std::atomic<bool> running_{false};

    mutable std::mutex error_mutex_;
    std::optional<pass_error> last_error_;

    std::mutex mutex_; // guards events_ and stop_; the worker holds it only to check for work
    std::condition_variable wake_;
    std::condition_variable done_;
    std::uint32_t events_ = 0;
    bool stop_ = false;

    std::mutex control_; // serializes start and stop
    std::thread worker_;
};

} // namespace mfprio::queue
