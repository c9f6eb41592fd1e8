// Tests for mfprio/queue/reprioritizer.hpp and snapshot_channel, with threads (run under
// ThreadSanitizer by `setup.sh test`): start and stop, periodic and event-driven passes,
// coalesced events, readers that never see a half-built snapshot and never wait for a pass,
// errors reported while the previous snapshot stays published, INCR_ONLY across passes,
// CALCULATE_RUNNING. Assertions are made on the main thread only; other threads count what
// they see in atomics.
#include <mfprio/queue/reprioritizer.hpp>

#include <mfprio/core/engine.hpp>
#include <mfprio/core/job.hpp>
#include <mfprio/core/result.hpp>
#include <mfprio/core/term.hpp>
#include <mfprio/core/weight.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <set>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <doctest/doctest.h>

namespace mq = mfprio::queue;
using namespace std::chrono_literals;

namespace {

// priority = site_factor + the context's bonus, under Slurm's result policy. Each pass of the
// test provider sets the bonus to 1,000,000 x its call number, so every entry of a snapshot
// says which pass made it.
struct cctx {
    std::int64_t now = 1'700'000'000;
    double bonus = 0.0;
};
struct site_plus_bonus {
    static constexpr std::string_view name = "site+bonus";
    double operator()(const mfprio::job& j, const cctx& c) const noexcept {
        return static_cast<double>(j.site_factor) + c.bonus;
    }
};
using test_engine = mfprio::engine<mfprio::slurm_result, mfprio::term<site_plus_bonus, mfprio::fixed_weight<1u>>>;
constexpr std::int64_t per_pass = 1'000'000;

enum class mode : int { normal, throws, fails, no_context };

/// What the provider works from; the test thread steers it through atomics.
struct world {
    std::vector<mfprio::job> jobs;
    std::size_t pending = 0;                // jobs that are queued
    std::atomic<std::uint64_t> calls{0};    // provider calls
    std::atomic<int> how{0};                // a `mode`
    std::atomic<int> sleep_ms{0};           // the provider sleeps this long
    std::atomic<std::uint64_t> sleep_on{0}; // ... on this call only (0: every call)
    std::atomic<bool> in_provider{false};
    cctx ctx{}; // written by the provider only, on the reprioritizer's thread

    explicit world(std::size_t n) {
        for (std::size_t k = 0; k < n; ++k) {
            mfprio::job j{};
            j.id = static_cast<std::uint32_t>(k + 1);
            j.site_factor = static_cast<std::int32_t>((k * 7919) % 1000 + 1);
            j.submit_time = 1'600'000'000 + static_cast<std::int64_t>(k / 4);
            j.state = k % 50 == 0 ? mfprio::job_state::held : mfprio::job_state::pending;
            if (j.state == mfprio::job_state::pending) ++pending;
            jobs.push_back(j);
        }
    }
};

struct provider {
    world* w;
    mq::pass_input<mfprio::job, cctx> operator()() const {
        const std::uint64_t call = w->calls.fetch_add(1) + 1;
        const int ms = w->sleep_ms.load();
        const std::uint64_t on = w->sleep_on.load();
        if (ms > 0 && (on == 0 || on == call)) {
            w->in_provider.store(true);
            std::this_thread::sleep_for(std::chrono::milliseconds(ms));
            w->in_provider.store(false);
        }
        switch (static_cast<mode>(w->how.load())) {
        case mode::throws: throw std::runtime_error("database unavailable");
        case mode::fails: return mq::pass_input<mfprio::job, cctx>::failure("no job table yet");
        case mode::no_context: {
            mq::pass_input<mfprio::job, cctx> in{};
            in.jobs = w->jobs;
            return in;
        }
        case mode::normal: break;
        }
        w->ctx.bonus = static_cast<double>(call) * static_cast<double>(per_pass);
        mq::pass_input<mfprio::job, cctx> in{};
        in.jobs = w->jobs;
        in.context = &w->ctx;
        return in;
    }
};

mq::reprioritizer_options quiet() {
    mq::reprioritizer_options o{};
    o.period = std::chrono::hours(1);
    o.pass_on_start = false;
    return o;
}

/// Polls `pred` until it holds or `timeout` elapses.
template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds timeout = 20s) {
    const auto end = std::chrono::steady_clock::now() + timeout;
    while (!pred()) {
        if (std::chrono::steady_clock::now() > end) return false;
        std::this_thread::sleep_for(1ms);
    }
    return true;
}

/// Whether `s` is one whole pass's work: every pending job once, in Slurm's order, each with
/// the priority of the same pass (the one numbered `call`, found from the first entry).
bool consistent(const mq::snapshot& s, const world& w, std::uint64_t* call = nullptr) {
    if (s.generation() == 0) return s.empty();
    if (s.size() != w.pending || s.info().pending != w.pending) return false;
    const std::int64_t c = s[0].priority / per_pass;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const mq::queue_entry& e = s[i];
        if (e.job_id == 0 || e.job_id > w.jobs.size()) return false;
        const mfprio::job& j = w.jobs[e.job_id - 1];
        if (e.priority != c * per_pass + j.site_factor) return false;
        if (e.submit_time != j.submit_time || e.index != e.job_id - 1) return false;
        if (i > 0 && !mq::slurm_order::before(s[i - 1], e)) return false;
    }
    if (call != nullptr) *call = static_cast<std::uint64_t>(c);
    return true;
}

const test_engine engine{};

} // namespace

TEST_CASE("reprioritizer: start and stop, twice; restart; destruction while running") {
    world w(100);
    mq::reprioritizer_options o = quiet();
    o.pass_on_start = true;
    mq::reprioritizer r(mq::slurm_order{}, engine, provider{&w}, o);
    CHECK_FALSE(r.running());
    CHECK(r.latest()->generation() == 0);
    CHECK(r.latest()->empty());
    CHECK(r.start());
    CHECK_FALSE(r.start()); // already running
    CHECK(r.running());
    REQUIRE(r.wait_for_pass(1, 20s));
    CHECK(r.generation() == 1);
    const auto s1 = r.latest();
    CHECK(mq::has_event(s1->info().events, mq::queue_event::started));
    CHECK(consistent(*s1, w));
    r.stop();
    r.stop(); // idempotent
    CHECK_FALSE(r.running());
    CHECK(r.latest() == s1); // still readable
    CHECK_FALSE(r.wait_for_pass(2, 10ms));
    CHECK(r.start()); // again: a first pass again
    REQUIRE(r.wait_for_pass(2, 20s));
    CHECK(r.generation() == 2);
    CHECK(mq::has_event(r.latest()->info().events, mq::queue_event::started));
    r.stop();
    CHECK(r.passes() == 2);
    CHECK(r.failures() == 0);

    // Destroyed without stop, while running (and while a pass may be under way).
    world w2(100);
    {
        mq::reprioritizer r2(mq::slurm_order{}, engine, provider{&w2}, o);
        CHECK(r2.start());
        r2.notify(mq::queue_event::job_submitted);
    }
    CHECK(w2.calls.load() <= 2);
}

TEST_CASE("reprioritizer: a pass when the period elapses") {
    world w(100);
    mq::reprioritizer_options o = quiet();
    o.period = 30ms;
    mq::reprioritizer r(mq::slurm_order{}, engine, provider{&w}, o);
    r.start();
    REQUIRE(r.wait_for_pass(2, 20s));
    const auto s = r.latest();
    CHECK(mq::has_event(s->info().events, mq::queue_event::period));
    CHECK_FALSE(mq::has_event(s->info().events, mq::queue_event::started));
    CHECK(consistent(*s, w));
    CHECK(s->info().build_duration.count() > 0);
    CHECK(r.stats().last_pass.count() > 0);
}

TEST_CASE("reprioritizer: notify wakes the thread long before the period") {
    world w(100);
    mq::reprioritizer r(mq::slurm_order{}, engine, provider{&w}, quiet());
    r.notify(mq::queue_event::resources_changed); // before start: the first pass takes it
    r.start();
    REQUIRE(r.wait_for_pass(1, 20s));
    CHECK(r.latest()->info().events == mq::event_bit(mq::queue_event::resources_changed));
    std::this_thread::sleep_for(30ms);
    CHECK(r.passes() == 1); // nothing happens without an event (the period is an hour)
    const auto t0 = std::chrono::steady_clock::now();
    r.notify(mq::queue_event::job_submitted);
    REQUIRE(r.wait_for_pass(2, 20s));
    CHECK(std::chrono::steady_clock::now() - t0 < 10s);
    const auto s = r.latest();
    CHECK(s->generation() == 2);
    CHECK(s->info().events == mq::event_bit(mq::queue_event::job_submitted));
    r.notify(mq::queue_event::job_ended);
    REQUIRE(r.wait_for_pass(3, 20s));
    CHECK(r.latest()->info().events == mq::event_bit(mq::queue_event::job_ended));
    CHECK(consistent(*r.latest(), w));
}

TEST_CASE("reprioritizer: events that arrive during a pass make one more pass") {
    world w(100);
    w.sleep_ms = 200;
    w.sleep_on = 1;
    mq::reprioritizer_options o = quiet();
    o.pass_on_start = true;
    mq::reprioritizer r(mq::slurm_order{}, engine, provider{&w}, o);
    r.start();
    REQUIRE(eventually([&] { return w.in_provider.load(); }));
    for (int i = 0; i < 10; ++i) {
        r.notify(mq::queue_event::job_submitted);
        r.notify(mq::queue_event::job_ended);
        r.notify(mq::queue_event::resources_changed);
    }
    REQUIRE(r.wait_for_pass(2, 20s));
    std::this_thread::sleep_for(100ms);
    CHECK(r.passes() == 2);
    const std::uint32_t ev = r.latest()->info().events;
    CHECK(mq::has_event(ev, mq::queue_event::job_submitted));
    CHECK(mq::has_event(ev, mq::queue_event::job_ended));
    CHECK(mq::has_event(ev, mq::queue_event::resources_changed));
}

TEST_CASE("reprioritizer: min_interval spaces passes run for events") {
    world w(50);
    mq::reprioritizer_options o = quiet();
    o.min_interval = 150ms;
    mq::reprioritizer r(mq::slurm_order{}, engine, provider{&w}, o);
    r.start();
    r.notify(mq::queue_event::job_submitted);
    REQUIRE(r.wait_for_pass(1, 20s));
    const auto t1 = r.latest()->info().built_at;
    r.notify(mq::queue_event::job_submitted);
    REQUIRE(r.wait_for_pass(2, 20s));
    CHECK(r.latest()->info().built_at - t1 >= 100ms); // the pass started 150 ms after the first's start
}

TEST_CASE("reprioritizer: concurrent readers only ever see whole, sorted snapshots") {
    world w(2000);
    mq::reprioritizer_options o = quiet();
    o.period = 1ms;
    o.pass_on_start = true;
    mq::reprioritizer r(mq::slurm_order{}, engine, provider{&w}, o);
    constexpr std::uint64_t passes = 25;

    std::atomic<bool> done{false};
    std::atomic<std::uint64_t> reads{0}, bad{0}, backwards{0}, wrong_pass{0}, distinct{0};
    std::atomic<int> started{0};
    const auto reader = [&] {
        std::uint64_t last = 0, seen = 0;
        started.fetch_add(1);
        do { // at least one read each, however late this thread gets a core
            const std::shared_ptr<const mq::snapshot> s = r.latest();
            reads.fetch_add(1);
            std::uint64_t call = 0;
            if (!consistent(*s, w, &call)) bad.fetch_add(1);
            if (s->generation() < last) backwards.fetch_add(1);
            if (s->generation() > 0 && call != s->generation()) wrong_pass.fetch_add(1); // no failed pass here
            if (s->generation() != last) ++seen;
            last = s->generation();
        } while (!done.load());
        distinct.fetch_add(seen);
    };
    std::thread a(reader), b(reader);
    while (started.load() < 2) std::this_thread::yield(); // the readers run before the passes do
    r.start();
    // The scheduler's events on top of the period.
    const bool reached = eventually([&] {
        r.notify(mq::queue_event::job_submitted);
        return r.passes() >= passes;
    });
    done.store(true);
    a.join();
    b.join();
    r.stop();
    CHECK(reached);
    CHECK(reads.load() > 0);
    CHECK(bad.load() == 0);
    CHECK(backwards.load() == 0);
    CHECK(wrong_pass.load() == 0);
    CHECK(distinct.load() >= 2);
    CHECK(r.failures() == 0);
    CHECK(consistent(*r.latest(), w));
}

TEST_CASE("reprioritizer: latest() does not wait for a pass under way") {
    world w(500);
    mq::reprioritizer r(mq::slurm_order{}, engine, provider{&w}, quiet());
    r.start();
    r.notify(mq::queue_event::job_submitted);
    REQUIRE(r.wait_for_pass(1, 20s));
    w.sleep_ms = 500; // the next pass spends half a second in its provider
    r.notify(mq::queue_event::job_submitted);
    REQUIRE(eventually([&] { return w.in_provider.load(); }));
    std::size_t calls = 0, old = 0;
    auto slowest = std::chrono::steady_clock::duration::zero();
    while (w.in_provider.load()) {
        const auto t0 = std::chrono::steady_clock::now();
        const auto s = r.latest();
        slowest = std::max(slowest, std::chrono::steady_clock::now() - t0);
        ++calls;
        if (s->generation() == 1) ++old;
    }
    REQUIRE(r.wait_for_pass(2, 20s));
    CHECK(calls > 100);
    CHECK(old + 1 >= calls); // the old snapshot all along (the last call may see the new one)
    CHECK(slowest < 250ms);  // a reader waiting for the pass would have taken about 500 ms
    CHECK(r.generation() == 2);
}

TEST_CASE("reprioritizer: a failed pass is reported, the previous snapshot stays, the thread goes on") {
    world w(100);
    mq::reprioritizer r(mq::slurm_order{}, engine, provider{&w}, quiet());
    CHECK_FALSE(r.last_error().has_value());
    r.start();
    r.notify(mq::queue_event::requested);
    REQUIRE(r.wait_for_pass(1, 20s));
    const auto good = r.latest();
    CHECK(good->generation() == 1);

    w.how = static_cast<int>(mode::throws);
    r.notify(mq::queue_event::requested);
    REQUIRE(r.wait_for_pass(2, 20s));
    CHECK(r.failures() == 1);
    auto err = r.last_error();
    REQUIRE(err.has_value());
    CHECK(err->message == "database unavailable");
    CHECK(err->pass == 2);
    CHECK(r.latest() == good);

    w.how = static_cast<int>(mode::fails);
    r.notify(mq::queue_event::requested);
    REQUIRE(r.wait_for_pass(3, 20s));
    CHECK(r.failures() == 2);
    err = r.last_error();
    REQUIRE(err.has_value());
    CHECK(err->message == "provider: no job table yet");
    CHECK(err->pass == 3);

    w.how = static_cast<int>(mode::no_context);
    r.notify(mq::queue_event::requested);
    REQUIRE(r.wait_for_pass(4, 20s));
    CHECK(r.failures() == 3);
    CHECK(r.last_error()->message == "provider: no context");
    CHECK(r.latest() == good);
    CHECK(r.running());

    w.how = static_cast<int>(mode::normal);
    r.notify(mq::queue_event::requested);
    REQUIRE(r.wait_for_pass(5, 20s));
    CHECK(r.failures() == 3);
    CHECK(r.generation() == 2);
    const auto stats = r.stats();
    CHECK(stats.passes == 5);
    CHECK(stats.failures == 3);
    CHECK(stats.generation == 2);
    CHECK(r.last_error()->pass == 4); // kept until the next failure
    std::uint64_t call = 0;
    CHECK(consistent(*r.latest(), w, &call));
    CHECK(call == 5);
}

TEST_CASE("reprioritizer: INCR_ONLY across passes, with reset ids, new jobs and ids out of order") {
    // Jobs 30, 20, 10 (ids decreasing in table order), then job 5 appears.
    struct incr_provider {
        std::shared_ptr<std::atomic<int>> pass = std::make_shared<std::atomic<int>>(0);
        std::vector<mfprio::job> jobs{};
        std::vector<std::uint64_t> reset{};
        cctx ctx{};
        mq::pass_input<mfprio::job, cctx> operator()() {
            const int p = pass->fetch_add(1) + 1;
            const auto make = [](std::uint32_t id, std::int32_t site) {
                mfprio::job j{};
                j.id = id;
                j.site_factor = site;
                j.submit_time = 100;
                return j;
            };
            jobs = {make(30, 300), make(20, 200), make(10, 100)};
            reset.clear();
            ctx.bonus = 0;
            if (p == 1) ctx.bonus = 1000;          // 1300, 1200, 1100
            if (p == 3) reset = {20};              // 20 takes its fresh 200
            if (p == 4) jobs.push_back(make(5, 7)); // new: fresh 7
            mq::pass_input<mfprio::job, cctx> in{};
            in.jobs = jobs;
            in.context = &ctx;
            in.reset_ids = reset;
            return in;
        }
    };
    mq::reprioritizer_options o = quiet();
    o.pass.incr_only = true;
    incr_provider prov{};
    mq::reprioritizer r(mq::slurm_order{}, engine, prov, o);
    r.start();
    const auto priority = [&](std::uint64_t id) {
        const auto* e = r.latest()->find(id);
        return e == nullptr ? std::int64_t{-1} : e->priority;
    };
    r.notify(mq::queue_event::requested);
    REQUIRE(r.wait_for_pass(1, 20s));
    CHECK(priority(30) == 1300);
    r.notify(mq::queue_event::requested);
    REQUIRE(r.wait_for_pass(2, 20s)); // bonus gone: all keep their previous priority
    CHECK(priority(30) == 1300);
    CHECK(priority(20) == 1200);
    CHECK(priority(10) == 1100);
    r.notify(mq::queue_event::requested);
    REQUIRE(r.wait_for_pass(3, 20s)); // 20 is reset
    CHECK(priority(20) == 200);
    CHECK(priority(10) == 1100);
    r.notify(mq::queue_event::requested);
    REQUIRE(r.wait_for_pass(4, 20s)); // 20 stays at 200 (its previous); 5 is new
    CHECK(priority(20) == 200);
    CHECK(priority(5) == 7);
    CHECK(priority(30) == 1300);
    std::vector<std::uint64_t> order;
    for (const auto& e : *r.latest()) order.push_back(e.job_id);
    CHECK(order == std::vector<std::uint64_t>{30, 10, 20, 5});
}

TEST_CASE("reprioritizer: CALCULATE_RUNNING queues running jobs too, flagged; keep_alive holds the data") {
    const auto prov = [] {
        auto jobs = std::make_shared<std::vector<mfprio::job>>();
        for (std::uint32_t id = 1; id <= 6; ++id) {
            mfprio::job j{};
            j.id = id;
            j.site_factor = static_cast<std::int32_t>(id * 10);
            j.state = id % 2 == 0 ? mfprio::job_state::running : mfprio::job_state::pending;
            if (id == 5) j.state = mfprio::job_state::suspended;
            jobs->push_back(j);
        }
        auto ctx = std::make_shared<cctx>();
        mq::pass_input<mfprio::job, cctx> in{};
        in.jobs = *jobs;
        in.context = ctx.get();
        in.keep_alive = std::make_shared<std::pair<decltype(jobs), decltype(ctx)>>(jobs, ctx);
        return in;
    };
    mq::reprioritizer_options o = quiet();
    o.pass.calculate_running = true;
    mq::reprioritizer r(mq::slurm_order{}, engine, prov, o);
    r.start();
    r.notify(mq::queue_event::requested);
    REQUIRE(r.wait_for_pass(1, 20s));
    const auto s = r.latest();
    REQUIRE(s->size() == 6);
    CHECK(s->info().running == 4);
    CHECK(s->info().pending == 2);
    CHECK((*s)[0].job_id == 6);
    CHECK((*s)[0].state == mq::entry_state::running);
    CHECK(s->find(1)->state == mq::entry_state::pending);
    CHECK(s->find(5)->state == mq::entry_state::running);

    mq::reprioritizer plain(mq::slurm_order{}, engine, prov, quiet());
    plain.start();
    plain.notify(mq::queue_event::requested);
    REQUIRE(plain.wait_for_pass(1, 20s));
    CHECK(plain.latest()->size() == 2);
    CHECK(plain.latest()->info().other == 4);
}

TEST_CASE("snapshot_channel: readers on several threads while one thread publishes") {
    mq::snapshot_channel channel;
    mq::pass_builder<mq::flux_order> builder;
    world w(300);
    std::atomic<bool> done{false};
    std::atomic<std::uint64_t> bad{0}, reads{0};
    std::atomic<int> started{0};
    const auto reader = [&] {
        std::uint64_t last = 0;
        started.fetch_add(1);
        // At least one read each, even when the publisher finishes before this thread gets
        // a core (seen on a loaded two-core CI machine: 0 reads in all).
        do {
            const auto s = channel.latest();
            reads.fetch_add(1);
            if (s == nullptr || s->generation() < last) bad.fetch_add(1);
            if (s != nullptr) {
                last = s->generation();
                // Every entry of generation g carries g's bonus.
                for (const auto& e : *s)
                    if (e.priority / per_pass != static_cast<std::int64_t>(s->generation())) bad.fetch_add(1);
                if (s->generation() > 0 && s->size() != w.pending) bad.fetch_add(1);
            }
        } while (!done.load());
    };
    std::thread a(reader), b(reader), c(reader);
    // Publish only once every reader runs, so that reads and publications overlap.
    while (started.load() < 3) std::this_thread::yield();
    for (std::uint64_t g = 1; g <= 200; ++g) {
        cctx ctx{};
        ctx.bonus = static_cast<double>(g) * static_cast<double>(per_pass);
        builder.compute(std::span<const mfprio::job>(w.jobs), engine, ctx, {});
        mq::snapshot_info info{};
        info.generation = g;
        channel.publish(builder.finish(info, std::chrono::steady_clock::now()));
        CHECK(channel.generation() == g);
    }
    done.store(true);
    a.join();
    b.join();
    c.join();
    CHECK(bad.load() == 0);
    CHECK(reads.load() > 0);
    CHECK(channel.latest()->generation() == 200);
}
