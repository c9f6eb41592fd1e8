// Tests for mfprio/queue/order.hpp, snapshot.hpp and pending.hpp, single-threaded (apart
// from the passes that share their work among threads): each system's order with ties on
// every key (reference slurm.md 1.2 sort_job_queue2; flux_maui.md A1 and B4.5), the fast
// sort against std::sort, the pending-job set (insert, update, remove, errors), passes and
// their snapshots (contents, counts, generations, immutability), INCR_ONLY and
// CALCULATE_RUNNING.
#include <mfprio/queue/order.hpp>
#include <mfprio/queue/pending.hpp>
#include <mfprio/queue/snapshot.hpp>

#include <mfprio/core/engine.hpp>
#include <mfprio/core/huge_pages.hpp>
#include <mfprio/core/job.hpp>
#include <mfprio/core/result.hpp>
#include <mfprio/core/term.hpp>
#include <mfprio/core/weight.hpp>
#include <mfprio/maui/job.hpp>
#include <mfprio/maui/priority.hpp>
#include <mfprio/slurm/context.hpp>
#include <mfprio/slurm/multifactor.hpp>
#include <mfprio/slurm/order.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <string_view>
#include <vector>

#include <doctest/doctest.h>

namespace mq = mfprio::queue;
using mq::queue_entry;

static_assert(mq::order_policy<mq::slurm_order>);
static_assert(mq::order_policy<mq::flux_order>);
static_assert(mq::order_policy<mq::maui_order>);
static_assert(!mq::order_policy<int>);
static_assert(mq::queue_priority<mfprio::priority_value>);
static_assert(mq::queue_priority<mfprio::maui::priority_value>);
static_assert(mq::queue_priority<double>);
static_assert(!mq::queue_priority<queue_entry>);

namespace {

queue_entry entry(std::uint16_t tier, std::int64_t priority, std::int64_t submit, std::uint64_t id,
                  std::uint32_t index = 0) {
    queue_entry e{};
    e.tier = tier;
    e.priority = priority;
    e.submit_time = submit;
    e.job_id = id;
    e.index = index;
    return e;
}

/// `before` says the same as comparing `keys` (then the index).
template <class O>
bool keys_agree(const queue_entry& a, const queue_entry& b) {
    const auto ka = O::keys(a), kb = O::keys(b);
    const bool by_keys = ka != kb ? ka < kb : a.index < b.index;
    return by_keys == O::before(a, b);
}

} // namespace

TEST_CASE("queue: slurm_order: tier, then priority, then submit time, then job id") {
    using O = mq::slurm_order;
    // a higher tier wins over any priority
    CHECK(O::before(entry(2, 1, 500, 9), entry(1, 1000000, 1, 1)));
    CHECK_FALSE(O::before(entry(1, 1000000, 1, 1), entry(2, 1, 500, 9)));
    // same tier: higher priority first
    CHECK(O::before(entry(1, 2000, 500, 9), entry(1, 1000, 1, 1)));
    CHECK_FALSE(O::before(entry(1, 1000, 1, 1), entry(1, 2000, 500, 9)));
    // same tier and priority: earlier submit first, whatever the ids
    CHECK(O::before(entry(1, 1000, 100, 9), entry(1, 1000, 200, 1)));
    CHECK_FALSE(O::before(entry(1, 1000, 200, 1), entry(1, 1000, 100, 9)));
    // all equal but the id: lower id first
    CHECK(O::before(entry(1, 1000, 100, 1), entry(1, 1000, 100, 2)));
    CHECK_FALSE(O::before(entry(1, 1000, 100, 2), entry(1, 1000, 100, 1)));
    // all equal: the table index decides (the order is total), and it is irreflexive
    CHECK(O::before(entry(1, 1000, 100, 1, 3), entry(1, 1000, 100, 1, 4)));
    CHECK_FALSE(O::before(entry(1, 1000, 100, 1, 3), entry(1, 1000, 100, 1, 3)));
    CHECK(O::uses_tier);
    CHECK(O::zero_is_held);
}

TEST_CASE("queue: slurm_order agrees with slurm::schedules_before") {
    std::mt19937_64 rng(7);
    for (int i = 0; i < 2000; ++i) {
        const auto pick = [&](std::uint64_t m) { return rng() % m; };
        const queue_entry a = entry(static_cast<std::uint16_t>(pick(3)), static_cast<std::int64_t>(pick(4)),
                                    static_cast<std::int64_t>(pick(3)), pick(3) + 1);
        const queue_entry b = entry(static_cast<std::uint16_t>(pick(3)), static_cast<std::int64_t>(pick(4)),
                                    static_cast<std::int64_t>(pick(3)), pick(3) + 1);
        const auto slurm = [](const queue_entry& e) {
            mfprio::slurm::queue_entry s{};
            s.tier = e.tier;
            s.priority = static_cast<std::uint32_t>(e.priority);
            s.submit_time = e.submit_time;
            s.job_id = static_cast<std::uint32_t>(e.job_id);
            return s;
        };
        CHECK(mq::slurm_order::before(a, b) == mfprio::slurm::schedules_before(slurm(a), slurm(b)));
        CHECK(keys_agree<mq::slurm_order>(a, b));
    }
}

TEST_CASE("queue: flux_order: priority, then job id; the tier and submit time play no part") {
    using O = mq::flux_order;
    CHECK(O::before(entry(0, 20, 900, 9), entry(5, 10, 1, 1)));   // higher priority first
    CHECK_FALSE(O::before(entry(5, 10, 1, 1), entry(0, 20, 900, 9)));
    CHECK(O::before(entry(0, 10, 900, 1), entry(9, 10, 1, 2)));   // then lower id, whatever tier or submit
    CHECK_FALSE(O::before(entry(9, 10, 1, 2), entry(0, 10, 900, 1)));
    CHECK(O::before(entry(0, 10, 1, 1, 0), entry(0, 10, 1, 1, 1))); // then the index
    // Flux ids are 64-bit FLUIDs
    CHECK(O::before(entry(0, 10, 0, 0x100000000ull), entry(0, 10, 0, 0x100000001ull)));
    CHECK_FALSE(O::uses_tier);
    CHECK(O::zero_is_held);
    std::mt19937_64 rng(11);
    for (int i = 0; i < 1000; ++i) {
        const queue_entry a = entry(0, static_cast<std::int64_t>(rng() % 3), 0, rng() % 3);
        const queue_entry b = entry(0, static_cast<std::int64_t>(rng() % 3), 0, rng() % 3);
        CHECK(keys_agree<O>(a, b));
    }
}

TEST_CASE("queue: maui_order: priority (negative ones too), then mfprio's tie-break: submit time, job id") {
    using O = mq::maui_order;
    CHECK(O::before(entry(0, 5, 900, 9), entry(0, -5, 1, 1)));
    CHECK(O::before(entry(0, 0, 900, 9), entry(0, -1, 1, 1)));
    CHECK_FALSE(O::before(entry(0, -5, 1, 1), entry(0, 5, 900, 9)));
    CHECK(O::before(entry(0, 7, 100, 9), entry(0, 7, 200, 1)));    // Maui has no tie-break; ours: submit
    CHECK(O::before(entry(0, 7, 100, 1), entry(0, 7, 100, 2)));    // then id
    CHECK(O::before(entry(3, 7, 100, 1), entry(0, 7, 100, 1)) == false); // tier ignored: equal but index
    CHECK_FALSE(O::zero_is_held); // Maui priorities 0 and below are real priorities
    std::mt19937_64 rng(13);
    for (int i = 0; i < 1000; ++i) {
        const queue_entry a =
            entry(0, static_cast<std::int64_t>(rng() % 5) - 2, static_cast<std::int64_t>(rng() % 3), rng() % 3);
        const queue_entry b =
            entry(0, static_cast<std::int64_t>(rng() % 5) - 2, static_cast<std::int64_t>(rng() % 3), rng() % 3);
        CHECK(keys_agree<O>(a, b));
    }
}

TEST_CASE("queue: maui_order sorts as maui::start_order") {
    std::vector<mfprio::maui::job> jobs(200);
    std::vector<mfprio::maui::priority_value> prio(jobs.size());
    std::vector<queue_entry> entries;
    std::mt19937_64 rng(17);
    for (std::size_t k = 0; k < jobs.size(); ++k) {
        jobs[k].id = static_cast<std::uint32_t>(1000 - k);
        jobs[k].submit_time = static_cast<std::int64_t>(rng() % 4);
        prio[k].value = static_cast<std::int64_t>(rng() % 7) - 3;
        entries.push_back(entry(0, prio[k].value, jobs[k].submit_time, jobs[k].id, static_cast<std::uint32_t>(k)));
    }
    const auto order = mfprio::maui::start_order(std::span<const mfprio::maui::job>(jobs),
                                                 std::span<const mfprio::maui::priority_value>(prio));
    std::vector<queue_entry> sorted;
    mq::sort_workspace ws;
    mq::sort_entries<mq::maui_order>(entries, sorted, ws);
    REQUIRE(sorted.size() == order.size());
    for (std::size_t i = 0; i < order.size(); ++i) CHECK(sorted[i].index == order[i]);
}

namespace {

enum class shape { random, table_order, wide, all_equal, sorted, duplicate_ids, negative };

std::vector<queue_entry> make_entries(std::size_t n, shape s, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<queue_entry> v(n);
    for (std::size_t k = 0; k < n; ++k) {
        queue_entry& e = v[k];
        e.index = static_cast<std::uint32_t>(k);
        e.job_id = k + 1;
        e.tier = static_cast<std::uint16_t>(1 + rng() % 3);
        e.priority = static_cast<std::int64_t>(rng() % 50); // many ties
        e.submit_time = 1'700'000'000 + static_cast<std::int64_t>(rng() % 20);
        switch (s) {
        case shape::random: e.job_id = rng() % (4 * n) + 1; break;
        case shape::table_order: e.submit_time = 1'700'000'000 + static_cast<std::int64_t>(k / 3); break;
        case shape::wide: // keys over their whole range: the packed word must drop bits
            e.priority = static_cast<std::int64_t>(rng());
            e.submit_time = static_cast<std::int64_t>(rng() >> 1);
            e.job_id = rng();
            if (k % 7 == 0 && k > 0) e.priority = v[k - 1].priority; // some ties on the priority
            break;
        case shape::all_equal: e.tier = 1; e.priority = 5; e.submit_time = 9; break;
        case shape::sorted: e.tier = 1; e.priority = static_cast<std::int64_t>(n - k); break;
        case shape::duplicate_ids: e.job_id = rng() % 10; break;
        case shape::negative: e.priority = static_cast<std::int64_t>(rng() % 2001) - 1000; break;
        }
    }
    return v;
}

template <class O>
void check_sort(const std::vector<queue_entry>& in, unsigned threads, mq::sort_workspace& ws) {
    std::vector<queue_entry> want = in;
    std::stable_sort(want.begin(), want.end(), [](const queue_entry& a, const queue_entry& b) { return O::before(a, b); });
    std::vector<queue_entry> got(3); // prior contents are overwritten
    mq::sort_entries<O>(in, got, ws, threads);
    REQUIRE(got.size() == want.size());
    CHECK(got == want);
}

} // namespace

TEST_CASE("queue: sort_entries gives std::sort's order, for every order, size and shape") {
    mq::sort_workspace ws;
    const std::array<shape, 7> shapes{shape::random,    shape::table_order,   shape::wide,    shape::all_equal,
                                      shape::sorted,    shape::duplicate_ids, shape::negative};
    const std::array<std::size_t, 8> sizes{0, 1, 2, 31, 32, 33, 1000, 40000};
    std::uint64_t seed = 1;
    for (const shape s : shapes) {
        for (const std::size_t n : sizes) {
            CAPTURE(static_cast<int>(s));
            CAPTURE(n);
            const auto in = make_entries(n, s, seed++);
            check_sort<mq::slurm_order>(in, 1, ws);
            check_sort<mq::flux_order>(in, 1, ws);
            check_sort<mq::maui_order>(in, 1, ws);
        }
    }
}

TEST_CASE("queue: sort_entries reports how it sorted") {
    mq::sort_workspace ws;
    std::vector<queue_entry> out;
    // Table in submission order: the tie-break is left to the position.
    auto in = make_entries(1000, shape::table_order, 3);
    auto r = mq::sort_entries<mq::slurm_order>(in, out, ws);
    CHECK(r.tie_break_in_input_order);
    CHECK_FALSE(r.truncated);
    // Tier 2 bits, priority 6 bits: the packed keys need 8 bits, 256 possible keys for 1,000
    // entries: a counting sort, no words.
    CHECK(r.key_bits == 8);
    CHECK(r.counting_sorted);
    CHECK_FALSE(r.radix_sorted);
    // The same keys for 200 entries: more possible keys than entries, the words are sorted.
    in.resize(200);
    r = mq::sort_entries<mq::slurm_order>(in, out, ws);
    CHECK(r.key_bits == 8);
    CHECK_FALSE(r.counting_sorted);
    CHECK(r.radix_sorted);
    // Priorities over 2^20 values: keys too wide for the counting table.
    in = make_entries(1000, shape::table_order, 3);
    for (std::size_t k = 0; k < in.size(); ++k) in[k].priority = static_cast<std::int64_t>((k * 7919) % (1u << 20));
    in[0].priority = 0;
    in[1].priority = (1 << 20) - 1;
    r = mq::sort_entries<mq::slurm_order>(in, out, ws);
    CHECK(r.key_bits == 22);
    CHECK_FALSE(r.counting_sorted);
    CHECK(r.radix_sorted);
    CHECK(std::is_sorted(out.begin(), out.end(), [](const queue_entry& a, const queue_entry& b) {
        return mq::slurm_order::before(a, b);
    }));
    // Random ids: the tie-break goes into the word.
    in = make_entries(1000, shape::random, 4);
    r = mq::sort_entries<mq::slurm_order>(in, out, ws);
    CHECK_FALSE(r.tie_break_in_input_order);
    CHECK_FALSE(r.truncated);
    // Keys over their whole range: truncated, and tied runs finished by comparison.
    in = make_entries(1000, shape::wide, 5);
    r = mq::sort_entries<mq::maui_order>(in, out, ws);
    CHECK(r.truncated);
    CHECK(r.key_bits == 64 - 10);
    CHECK(r.runs_sorted > 0);
    // Already in order: no radix pass.
    in = make_entries(1000, shape::sorted, 6);
    r = mq::sort_entries<mq::slurm_order>(in, out, ws);
    CHECK_FALSE(r.radix_sorted);
}

TEST_CASE("huge_page_allocator: large blocks on 2 MiB boundaries, small ones as usual, both usable") {
    using alloc = mfprio::huge_page_allocator<queue_entry>;
    // 65,536 entries of 32 bytes: exactly 2 MiB, the first size that gets huge-page blocks.
    std::vector<queue_entry, alloc> big(65536);
    CHECK(reinterpret_cast<std::uintptr_t>(big.data()) % alloc::page == 0);
    std::vector<queue_entry, alloc> small(100);
    CHECK(reinterpret_cast<std::uintptr_t>(small.data()) % alignof(queue_entry) == 0);
    for (std::size_t k = 0; k < big.size(); ++k) big[k].index = static_cast<std::uint32_t>(k);
    for (std::size_t k = 0; k < small.size(); ++k) small[k].index = static_cast<std::uint32_t>(k);
    // Growing from a small block to a large one and back moves the contents.
    small.resize(70000);
    small.back().index = 7;
    CHECK(small[99].index == 99);
    small.resize(10);
    small.shrink_to_fit();
    CHECK(small[9].index == 9);
    CHECK(big[65535].index == 65535);
    // A size whose byte count overflows is refused, not wrapped.
    alloc a;
    CHECK_THROWS_AS((void)a.allocate(std::numeric_limits<std::size_t>::max() / 16), std::bad_array_new_length);
}

TEST_CASE("queue: sort_entries on two threads gives the same order") {
    mq::sort_workspace ws;
    for (const shape s : {shape::random, shape::table_order, shape::wide}) {
        const auto in = make_entries(140000, s, 99);
        check_sort<mq::slurm_order>(in, 2, ws);
        std::vector<queue_entry> out;
        const auto r = mq::sort_entries<mq::slurm_order>(in, out, ws, 2);
        CHECK(r.threads == 2);
        // Each thread counts and moves its half of the table.
        CHECK(r.counting_sorted == (s == shape::table_order));
    }
}

TEST_CASE("queue: key_summary of consecutive pieces merges into the summary of the whole") {
    const auto in = make_entries(300, shape::table_order, 8);
    for (const std::size_t cut : {std::size_t{0}, std::size_t{1}, std::size_t{150}, std::size_t{300}}) {
        mq::key_summary<mq::slurm_order> whole{}, a{}, b{};
        for (std::size_t k = 0; k < in.size(); ++k) {
            whole.add(in[k]);
            (k < cut ? a : b).add(in[k]);
        }
        a.merge(b);
        CHECK(a.lo == whole.lo);
        CHECK(a.hi == whole.hi);
        CHECK(a.count == whole.count);
        CHECK(a.tie_break_in_order == whole.tie_break_in_order);
        CHECK(a.tie_break_in_order);
    }
    // Out of order across the cut: the merge sees it.
    mq::key_summary<mq::slurm_order> a{}, b{};
    a.add(entry(1, 1, 200, 2));
    b.add(entry(1, 1, 100, 1));
    CHECK(a.tie_break_in_order);
    CHECK(b.tie_break_in_order);
    a.merge(b);
    CHECK_FALSE(a.tie_break_in_order);
}

TEST_CASE("queue: queue_priority_of reads each engine output as the integer the queue orders by") {
    CHECK(mq::queue_priority_of(mfprio::priority_value{4000000000u, mfprio::priority_status::computed}) == 4000000000);
    CHECK(mq::queue_priority_of(mfprio::maui::priority_value{-12, mfprio::maui::priority_status::computed}) == -12);
    CHECK(mq::queue_priority_of(12.9) == 12);   // truncated, as Slurm truncates
    CHECK(mq::queue_priority_of(-12.9) == -12);
    CHECK(mq::queue_priority_of(std::numeric_limits<double>::quiet_NaN()) == 0);
    CHECK(mq::queue_priority_of(1e300) == std::numeric_limits<std::int64_t>::max());
    CHECK(mq::queue_priority_of(-1e300) == std::numeric_limits<std::int64_t>::min());
    CHECK(mq::queue_priority_of(~std::uint64_t{0}) == std::numeric_limits<std::int64_t>::max());
}

TEST_CASE("queue: an empty snapshot is generation 0; find looks entries up by job id") {
    const mq::snapshot empty;
    CHECK(empty.empty());
    CHECK(empty.generation() == 0);
    CHECK(empty.find(1) == nullptr);
    const mq::snapshot_channel channel;
    CHECK(channel.latest() != nullptr);
    CHECK(channel.latest()->empty());
    CHECK(channel.generation() == 0);
}

namespace {

// A test engine: priority = site_factor + the context's bonus, under Slurm's result policy
// (held jobs 0, administrator priorities pass through, floor 1).
struct tctx {
    std::int64_t now = 1'700'000'000;
    double bonus = 0.0;
};
struct site_plus_bonus {
    static constexpr std::string_view name = "site+bonus";
    double operator()(const mfprio::job& j, const tctx& c) const noexcept {
        return static_cast<double>(j.site_factor) + c.bonus;
    }
};
using test_engine = mfprio::engine<mfprio::slurm_result, mfprio::term<site_plus_bonus, mfprio::fixed_weight<1u>>>;
const test_engine engine{};

// The same factor under the raw result: the priority may be 0 or negative.
using raw_engine = mfprio::engine<mfprio::raw_result, mfprio::term<site_plus_bonus, mfprio::fixed_weight<1u>>>;

mfprio::job job(std::uint32_t id, std::int32_t site, std::int64_t submit,
                mfprio::job_state state = mfprio::job_state::pending) {
    mfprio::job j{};
    j.id = id;
    j.site_factor = site;
    j.submit_time = submit;
    j.state = state;
    return j;
}

std::vector<std::uint64_t> ids(const mq::snapshot& s) {
    std::vector<std::uint64_t> out;
    for (const auto& e : s) out.push_back(e.job_id);
    return out;
}

} // namespace

TEST_CASE("queue: pending_jobs: insert, update, remove, and their errors") {
    mq::pending_jobs<mfprio::job, mq::slurm_order> q;
    CHECK(q.empty());
    CHECK(q.insert(job(1, 10, 100)).ok());
    CHECK(q.insert(job(2, 20, 100)).ok());
    CHECK(q.size() == 2);
    CHECK(q.contains(1));
    REQUIRE(q.find(2) != nullptr);
    CHECK(q.find(2)->site_factor == 20);

    const auto dup = q.insert(job(1, 99, 100));
    CHECK_FALSE(dup.ok());
    CHECK_FALSE(static_cast<bool>(dup));
    CHECK(dup.code == mq::queue_errc::duplicate_id);
    CHECK(dup.job_id == 1);
    CHECK(dup.message() == "job 1 is already in the queue");
    CHECK(q.find(1)->site_factor == 10); // unchanged
    CHECK(q.size() == 2);

    const auto unknown = q.remove(7);
    CHECK(unknown.code == mq::queue_errc::unknown_id);
    CHECK(unknown.job_id == 7);
    CHECK(unknown.message() == "job 7 is not in the queue");
    CHECK(q.update(job(8, 1, 1)).code == mq::queue_errc::unknown_id);

    CHECK(q.update(job(2, 25, 100)).ok());
    CHECK(q.find(2)->site_factor == 25);
    CHECK(q.remove(1).ok());
    CHECK_FALSE(q.contains(1));
    CHECK(q.remove(1).code == mq::queue_errc::unknown_id); // twice
    CHECK(q.size() == 1);
    CHECK(q.insert(job(1, 5, 100)).ok()); // an id can come back
    CHECK(q.size() == 2);
    CHECK(mq::queue_status{}.message() == "ok");
}

TEST_CASE("queue: pending_jobs: snapshots in order, generations, counts, and old snapshots unchanged") {
    mq::pending_jobs<mfprio::job, mq::slurm_order> q;
    CHECK(q.latest()->generation() == 0);
    CHECK(q.latest()->empty());
    // ids 1..6: priorities 300, 100, 300 (submitted earlier), 200, held, running
    REQUIRE(q.insert(job(1, 300, 100)).ok());
    REQUIRE(q.insert(job(2, 100, 100)).ok());
    REQUIRE(q.insert(job(3, 300, 50)).ok());
    REQUIRE(q.insert(job(4, 200, 100)).ok());
    REQUIRE(q.insert(job(5, 900, 100, mfprio::job_state::held)).ok());
    REQUIRE(q.insert(job(6, 900, 100, mfprio::job_state::running)).ok());
    REQUIRE(q.insert(job(7, 900, 100, mfprio::job_state::finished)).ok());

    const tctx c{};
    const auto s1 = q.reprioritize(engine, c);
    CHECK(s1->generation() == 1);
    CHECK(q.generation() == 1);
    CHECK(q.latest() == s1);
    CHECK(ids(*s1) == std::vector<std::uint64_t>{3, 1, 4, 2});
    CHECK((*s1)[0].priority == 300);
    CHECK((*s1)[0].submit_time == 50);
    CHECK((*s1)[0].state == mq::entry_state::pending);
    CHECK((*s1)[0].index == 2); // its slot
    CHECK(s1->info().pending == 4);
    CHECK(s1->info().running == 0);
    CHECK(s1->info().held == 1);
    CHECK(s1->info().other == 2); // running without CALCULATE_RUNNING, finished
    CHECK(s1->info().jobs == 7);
    CHECK(s1->info().now == c.now);
    CHECK(s1->info().order == "slurm");
    CHECK(mq::has_event(s1->info().events, mq::queue_event::requested));
    CHECK(s1->find(4) != nullptr);
    CHECK(s1->find(4)->priority == 200);
    CHECK(s1->find(5) == nullptr);
    CHECK(q.priority(3) == 300);
    CHECK_FALSE(q.priority(5).has_value()); // held: not queued
    const std::vector<queue_entry> first(s1->begin(), s1->end());

    // A bonus of 1000 and a changed job: generation 2; snapshot 1 is untouched.
    REQUIRE(q.update(job(2, 5000, 100)).ok());
    const auto s2 = q.reprioritize(engine, tctx{.now = c.now + 60, .bonus = 1000},
                                   {}, mq::event_bit(mq::queue_event::job_submitted));
    CHECK(s2->generation() == 2);
    CHECK(ids(*s2) == std::vector<std::uint64_t>{2, 3, 1, 4});
    CHECK((*s2)[0].priority == 6000);
    CHECK(s2->info().now == c.now + 60);
    CHECK(mq::has_event(s2->info().events, mq::queue_event::job_submitted));
    // Passes after it reuse the memory of snapshots nobody holds, never of one still held.
    const auto s3 = q.reprioritize(engine, c);
    const auto s4 = q.reprioritize(engine, c);
    CHECK(s4->generation() == 4);
    CHECK(std::vector<queue_entry>(s1->begin(), s1->end()) == first);
    CHECK(s1->generation() == 1);
    CHECK(ids(*s2) == std::vector<std::uint64_t>{2, 3, 1, 4});
    (void)s3;
}

TEST_CASE("queue: pending_jobs: CALCULATE_RUNNING queues running and suspended jobs, flagged") {
    mq::pending_jobs<mfprio::job, mq::slurm_order> q;
    REQUIRE(q.insert(job(1, 100, 100)).ok());
    REQUIRE(q.insert(job(2, 500, 100, mfprio::job_state::running)).ok());
    REQUIRE(q.insert(job(3, 300, 100, mfprio::job_state::suspended)).ok());
    REQUIRE(q.insert(job(4, 900, 100, mfprio::job_state::completing)).ok());
    mq::pass_options o{};
    o.calculate_running = true;
    const auto s = q.reprioritize(engine, tctx{}, o);
    CHECK(ids(*s) == std::vector<std::uint64_t>{2, 3, 1});
    CHECK(s->find(2)->state == mq::entry_state::running);
    CHECK(s->find(3)->state == mq::entry_state::running);
    CHECK(s->find(1)->state == mq::entry_state::pending);
    CHECK(s->info().pending == 1);
    CHECK(s->info().running == 2);
    CHECK(s->info().other == 1);
    // Without the flag: only the pending job.
    const auto t = q.reprioritize(engine, tctx{});
    CHECK(ids(*t) == std::vector<std::uint64_t>{1});
    CHECK(t->info().other == 3);
}

TEST_CASE("queue: pending_jobs: INCR_ONLY keeps the higher previous priority; inserts, updates and releases assign") {
    mq::pending_jobs<mfprio::job, mq::slurm_order> q;
    REQUIRE(q.insert(job(1, 100, 100)).ok());
    REQUIRE(q.insert(job(2, 200, 100)).ok());
    REQUIRE(q.insert(job(3, 300, 100)).ok());
    mq::pass_options incr{};
    incr.incr_only = true;
    auto s = q.reprioritize(engine, tctx{.now = 0, .bonus = 1000}, incr);
    CHECK(ids(*s) == std::vector<std::uint64_t>{3, 2, 1});
    CHECK(q.priority(1) == 1100);

    // The bonus drops: every job keeps its previous, higher priority.
    s = q.reprioritize(engine, tctx{.now = 0, .bonus = 0}, incr);
    CHECK(s->find(1)->priority == 1100);
    CHECK(s->find(2)->priority == 1200);
    CHECK(s->find(3)->priority == 1300);
    CHECK(q.priority(2) == 1200);
    // A new job takes its fresh priority; an updated one too (Slurm's set_job_prio).
    REQUIRE(q.insert(job(4, 50, 100)).ok());
    REQUIRE(q.update(job(2, 10, 100)).ok());
    s = q.reprioritize(engine, tctx{.now = 0, .bonus = 0}, incr);
    CHECK(s->find(4)->priority == 50);
    CHECK(s->find(2)->priority == 10);
    CHECK(s->find(1)->priority == 1100);
    CHECK(ids(*s) == std::vector<std::uint64_t>{3, 1, 4, 2});
    // A higher priority replaces the previous one.
    s = q.reprioritize(engine, tctx{.now = 0, .bonus = 2000}, incr);
    CHECK(s->find(1)->priority == 2100);
    // Held, then released: the job starts again from its fresh priority.
    REQUIRE(q.update(job(3, 300, 100, mfprio::job_state::held)).ok());
    s = q.reprioritize(engine, tctx{}, incr);
    CHECK(s->find(3) == nullptr);
    CHECK(s->find(1)->priority == 2100);
    REQUIRE(q.update(job(3, 300, 100)).ok());
    s = q.reprioritize(engine, tctx{}, incr);
    CHECK(s->find(3)->priority == 300);
    // Without INCR_ONLY the fresh priorities apply.
    s = q.reprioritize(engine, tctx{});
    CHECK(s->find(1)->priority == 100);
    CHECK(s->find(2)->priority == 10);
}

TEST_CASE("queue: a priority of 0 holds the job in Slurm's and Flux's orders, not in Maui's") {
    const auto fill = [](auto& q) {
        REQUIRE(q.insert(job(1, 0, 100)).ok());
        REQUIRE(q.insert(job(2, -5, 100)).ok());
        REQUIRE(q.insert(job(3, 7, 100)).ok());
    };
    mq::pending_jobs<mfprio::job, mq::slurm_order> slurm;
    mq::pending_jobs<mfprio::job, mq::flux_order> flux;
    mq::pending_jobs<mfprio::job, mq::maui_order> maui;
    fill(slurm);
    fill(flux);
    fill(maui);
    const raw_engine raw{};
    const auto a = slurm.reprioritize(raw, tctx{});
    CHECK(ids(*a) == std::vector<std::uint64_t>{3, 2}); // raw -5 is a priority; 0 holds
    CHECK(a->info().held == 1);
    const auto b = flux.reprioritize(raw, tctx{});
    CHECK(ids(*b) == std::vector<std::uint64_t>{3, 2});
    CHECK(b->info().order == "flux");
    const auto c = maui.reprioritize(raw, tctx{});
    CHECK(ids(*c) == std::vector<std::uint64_t>{3, 1, 2});
    CHECK(c->info().held == 0);
}

TEST_CASE("queue: pending_jobs: removed slots are reclaimed, order and lookups intact") {
    mq::pending_jobs<mfprio::job, mq::slurm_order> q;
    for (std::uint32_t id = 1; id <= 100; ++id) REQUIRE(q.insert(job(id, static_cast<std::int32_t>(id % 10), id)).ok());
    for (std::uint32_t id = 1; id <= 100; id += 3) REQUIRE(q.remove(id).ok()); // a third
    CHECK(q.size() == 66);
    const auto s = q.reprioritize(engine, tctx{});
    CHECK(s->size() == 66);
    CHECK(s->info().jobs == 66);
    CHECK(q.last_sort().tie_break_in_input_order); // insertion order kept
    for (const auto& e : *s) {
        REQUIRE(q.find(e.job_id) != nullptr);
        CHECK(q.find(e.job_id)->id == e.job_id);
        CHECK(e.index < 66); // slots were reclaimed
    }
    std::vector<mfprio::job> copy;
    q.copy_jobs(copy);
    CHECK(copy.size() == 66);
    CHECK(copy.front().id == 2);
    CHECK(std::is_sorted(copy.begin(), copy.end(), [](const auto& x, const auto& y) { return x.id < y.id; }));
    CHECK(q.remove(1).code == mq::queue_errc::unknown_id);
    CHECK(q.remove(2).ok());
    CHECK(q.insert(job(2, 1, 2)).ok());
}

TEST_CASE("queue: Slurm's multifactor engine through pending_jobs gives slurm::build_queue's order") {
    namespace ms = mfprio::slurm;
    constexpr std::int64_t now = 1'700'000'000;
    const std::array<ms::partition_info, 2> parts{{
        {.priority_job_factor = 1, .norm_priority = 0.5, .priority_tier = 1, .max_time = 60, .tres_totals = {}},
        {.priority_job_factor = 2, .norm_priority = 1.0, .priority_tier = 2, .max_time = 60, .tres_totals = {}},
    }};
    ms::context c{};
    c.now = now;
    c.node_count = 8;
    c.cluster_cpus = 256;
    c.partitions = parts;
    const auto e = ms::make_multifactor(ms::weights{1000, 0, 0, 0, 1000, 0});
    std::vector<mfprio::job> jobs;
    std::mt19937_64 rng(5);
    for (std::uint32_t k = 0; k < 300; ++k) {
        mfprio::job j{};
        j.id = 1000 - k; // ids against submission order
        j.partition = static_cast<std::uint16_t>(rng() % 2);
        j.submit_time = now - static_cast<std::int64_t>(rng() % 4);
        j.accrue_time = (rng() % 3 == 0) ? 0 : now - static_cast<std::int64_t>(rng() % 4) * 151200;
        j.state = rng() % 10 == 0 ? mfprio::job_state::held : mfprio::job_state::pending;
        jobs.push_back(j);
    }
    std::vector<ms::queue_entry> want;
    ms::build_queue(e, std::span<const mfprio::job>(jobs), c, want);
    mq::pending_jobs<mfprio::job, mq::slurm_order> q;
    for (const auto& j : jobs) REQUIRE(q.insert(j).ok());
    const auto s = q.reprioritize(e, c);
    REQUIRE(s->size() == want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        CAPTURE(i);
        CHECK((*s)[i].job_id == want[i].job_id);
        CHECK((*s)[i].priority == want[i].priority);
        CHECK((*s)[i].tier == want[i].tier);
        CHECK((*s)[i].index == want[i].job_index);
    }
}

TEST_CASE("queue: a pass on several threads builds the same snapshot") {
    std::vector<mfprio::job> jobs;
    std::mt19937_64 rng(21);
    std::size_t held = 0;
    for (std::uint32_t k = 0; k < 40000; ++k) {
        auto state = mfprio::job_state::pending;
        if (k % 97 == 0) state = mfprio::job_state::held;
        if (k % 89 == 0) state = mfprio::job_state::running;
        if (state == mfprio::job_state::held) ++held;
        jobs.push_back(job(k + 1, static_cast<std::int32_t>(rng() % 5000), static_cast<std::int64_t>(k / 10), state));
    }
    mq::pass_builder<mq::slurm_order> one, two;
    mq::pass_options o1{}, o2{};
    o2.threads = 2;
    const std::span<const mfprio::job> span(jobs);
    one.compute(span, engine, tctx{}, o1);
    two.compute(span, engine, tctx{}, o2);
    const auto t0 = std::chrono::steady_clock::now();
    const auto a = one.finish({}, t0);
    const auto b = two.finish({}, t0);
    CHECK(a->size() == b->size());
    CHECK(std::equal(a->begin(), a->end(), b->begin(), b->end()));
    CHECK(a->info().held == b->info().held);
    CHECK(a->info().other == b->info().other);
    CHECK(a->info().held == held);
    CHECK(one.last_sort().tie_break_in_input_order);
    CHECK(two.last_sort().tie_break_in_input_order);
}

namespace {
/// site_plus_bonus with a prepared block hook that counts its preparations.
struct counted_site_plus_bonus : site_plus_bonus {
    static constexpr std::string_view name = "counted";
    int* prepared = nullptr;
    double prepare(const tctx& c) const noexcept {
        ++*prepared;
        return c.bonus;
    }
    template <std::size_t N>
    void block(double bonus, std::span<const mfprio::job, N> jobs, const tctx&, std::span<double, N> out) const noexcept {
        for (std::size_t i = 0; i < N; ++i) out[i] = static_cast<double>(jobs[i].site_factor) + bonus;
    }
};
} // namespace

TEST_CASE("queue: a pass prepares the engine once for all its chunks of jobs") {
    static_assert(mfprio::prepared_block_factor_policy<counted_site_plus_bonus, mfprio::job, tctx>);
    int prepared = 0;
    const auto counted = mfprio::make_engine(mfprio::slurm_result{},
                                             mfprio::make_term(counted_site_plus_bonus{{}, &prepared}, mfprio::fixed_weight<1u>{}));
    static_assert(mq::planned_batch_engine<decltype(counted), mfprio::job, tctx>);
    // 40,000 jobs: 40 chunks of 1,024 for the pass, each of which prepared again before.
    std::vector<mfprio::job> jobs;
    std::mt19937_64 rng(5);
    for (std::uint32_t k = 0; k < 40000; ++k)
        jobs.push_back(job(k + 1, static_cast<std::int32_t>(rng() % 5000), static_cast<std::int64_t>(k / 10)));
    const std::span<const mfprio::job> span(jobs);
    const tctx c{.bonus = 7.0};
    const auto t0 = std::chrono::steady_clock::now();
    for (const unsigned threads : {1u, 2u}) {
        CAPTURE(threads);
        prepared = 0;
        mq::pass_builder<mq::slurm_order> counted_pass, plain_pass;
        mq::pass_options o{};
        o.threads = threads;
        counted_pass.compute(span, counted, c, o);
        CHECK(prepared == 1);
        // The same snapshot as the engine without a hook.
        plain_pass.compute(span, engine, c, o);
        const auto a = counted_pass.finish({}, t0);
        const auto b = plain_pass.finish({}, t0);
        CHECK(a->size() == jobs.size());
        CHECK(std::equal(a->begin(), a->end(), b->begin(), b->end()));
    }
}

namespace {
/// The entries of a snapshot as std::stable_sort orders a pass's queued jobs (the reference).
std::vector<queue_entry> reference_order(const mq::snapshot& s) {
    std::vector<queue_entry> want(s.begin(), s.end());
    std::sort(want.begin(), want.end(), [](const queue_entry& a, const queue_entry& b) { return a.index < b.index; });
    std::stable_sort(want.begin(), want.end(),
                     [](const queue_entry& a, const queue_entry& b) { return mq::slurm_order::before(a, b); });
    return want;
}
} // namespace

TEST_CASE("queue: a pass counts its keys for the next sort when the last pass's ranges fit, and sorts the same") {
    // 40,000 jobs in submission order, site factors (the priority) over a range of 3,000 that
    // moves between passes across multiples of 2^12 and 2^13 (residues that wrap around),
    // some held and some running; one thread and two.
    std::vector<mfprio::job> jobs;
    std::mt19937_64 rng(33);
    for (std::uint32_t k = 0; k < 40000; ++k) {
        auto state = mfprio::job_state::pending;
        if (k % 101 == 0) state = mfprio::job_state::held;
        if (k % 83 == 0) state = mfprio::job_state::running;
        jobs.push_back(job(k + 1, static_cast<std::int32_t>(rng() % 3000), static_cast<std::int64_t>(k / 7), state));
    }
    const std::span<const mfprio::job> span(jobs);
    for (const unsigned threads : {1u, 2u}) {
        CAPTURE(threads);
        mq::pass_builder<mq::slurm_order> b;
        mq::pass_options o{};
        o.threads = threads;
        const auto t0 = std::chrono::steady_clock::now();
        // First pass: nothing known of the ranges yet, so nothing counted.
        b.compute(span, engine, tctx{.bonus = 1000.0}, o);
        auto s = b.finish({}, t0);
        CHECK_FALSE(b.last_sort().counted_in_pass);
        CHECK(b.last_sort().counting_sorted);
        CHECK(std::equal(s->begin(), s->end(), reference_order(*s).begin()));
        // Later passes: the range moves (1000 + [0, 3000) to 7000 + ...: 4095/4096 and 8191/8192
        // lie inside), its width stays: the pass's counts are used.
        for (const double bonus : {3500.0, 7000.0, 6000.0}) {
            CAPTURE(bonus);
            b.compute(span, engine, tctx{.bonus = bonus}, o);
            s = b.finish({}, t0);
            CHECK(b.last_sort().counted_in_pass);
            CHECK(b.last_sort().threads == threads);
            CHECK(b.last_sort().key_bits == 12); // one tier (0 bits), priorities over 3,000 values
            const auto want = reference_order(*s);
            REQUIRE(s->size() == want.size());
            CHECK(std::equal(s->begin(), s->end(), want.begin()));
        }
        // A pass whose range outgrows the counted bits (one job far above the others): the
        // counts are left aside and the sort counts for itself, in the same order.
        std::vector<mfprio::job> wider = jobs;
        wider[5].site_factor = 60000;
        b.compute(std::span<const mfprio::job>(wider), engine, tctx{.bonus = 1000.0}, o);
        s = b.finish({}, t0);
        CHECK_FALSE(b.last_sort().counted_in_pass);
        CHECK(std::equal(s->begin(), s->end(), reference_order(*s).begin()));
        // A priority changed after the pass counted (INCR_ONLY in the reprioritizer): the
        // counts no longer match and are not used.
        b.compute(std::span<const mfprio::job>(wider), engine, tctx{.bonus = 1000.0}, o);
        b.set_priority(10, 50000);
        s = b.finish({}, t0);
        CHECK_FALSE(b.last_sort().counted_in_pass);
        CHECK(std::equal(s->begin(), s->end(), reference_order(*s).begin()));
        CHECK((*s)[0].priority == 60000 + 1000);
        CHECK(s->entries()[1].priority == 50000);
    }
}

TEST_CASE("queue: sort_entries with key_counts falls back to its own sort when they do not describe the entries") {
    const auto in = make_entries(1000, shape::table_order, 12); // 8 key bits: tier 2, priority 6
    mq::key_summary<mq::slurm_order> summary{};
    summary.add_run(in.data(), in.size());
    const auto want = [&] {
        std::vector<queue_entry> w = in;
        std::stable_sort(w.begin(), w.end(), [](const queue_entry& a, const queue_entry& b) { return mq::slurm_order::before(a, b); });
        return w;
    }();
    mq::sort_workspace ws;
    std::vector<queue_entry> out;
    const auto counted = [&](std::array<unsigned, 2> bits, std::vector<std::size_t> bounds) {
        mq::key_counts<mq::slurm_order> k;
        k.reset(bits, static_cast<unsigned>(bounds.size() - 1));
        k.segment_begin = bounds;
        for (std::size_t t = 0; t + 1 < bounds.size(); ++t)
            k.add(static_cast<unsigned>(t), in.data() + bounds[t], bounds[t + 1] - bounds[t]);
        return k;
    };
    // Counts that fit: used, two segments.
    auto k = counted({3, 7}, {0, 400, 1000});
    auto r = mq::sort_entries<mq::slurm_order>(in, summary, k, out, ws);
    CHECK(r.counted_in_pass);
    CHECK(r.threads == 2);
    CHECK(out == want);
    // Too few bits for the priority's range (6 bits needed): not used.
    k = counted({3, 5}, {0, 1000});
    r = mq::sort_entries<mq::slurm_order>(in, summary, k, out, ws);
    CHECK_FALSE(r.counted_in_pass);
    CHECK(r.counting_sorted);
    CHECK(out == want);
    // Segments that do not cover the entries: not used.
    k = counted({3, 7}, {0, 900});
    r = mq::sort_entries<mq::slurm_order>(in, summary, k, out, ws);
    CHECK_FALSE(r.counted_in_pass);
    CHECK(out == want);
}
