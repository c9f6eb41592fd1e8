// Tests for mfprio/flux/factors.hpp: flux-accounting's queue, bank, urgency and fair-share
// factors, flux-core's urgency, seed 003's FCFS factor, and the factor-policy concept for each.
// Values from reference flux_maui.md A1, A2.1, A2.4.1 and seed 003, worked by hand.
#include <doctest/doctest.h>

#include "flux_fixture.hpp"

#include <mfprio/core/factor.hpp>
#include <mfprio/flux/context.hpp>
#include <mfprio/flux/factors.hpp>
#include <mfprio/flux/job.hpp>

#include <cstdint>
#include <type_traits>
#include <vector>

using namespace mfprio::flux;
using flux_test::make_job;
using flux_test::tables;

namespace {

/// A job type with none of the fields.
struct bare {};

} // namespace

// ------------------------------------------------------------------ concepts

// Every factor is a factor policy for flux::job in flux::context.
static_assert(mfprio::factor_policy<queue_factor, job, context>);
static_assert(mfprio::factor_policy<bank_factor, job, context>);
static_assert(mfprio::factor_policy<urgency_factor, job, context>);
static_assert(mfprio::factor_policy<urgency_value, job, context>);
static_assert(mfprio::factor_policy<fcfs_factor, job, context>);
static_assert(mfprio::factor_policy<fairshare_factor, job, context>);

// mfprio::job has no queue, bank, urgency or submission sequence: the Flux factors do not apply.
static_assert(!mfprio::factor_policy<queue_factor, mfprio::job, context>);
static_assert(!mfprio::factor_policy<bank_factor, mfprio::job, context>);
static_assert(!mfprio::factor_policy<urgency_factor, mfprio::job, context>);
static_assert(!mfprio::factor_policy<urgency_value, mfprio::job, context>);
static_assert(!mfprio::factor_policy<fcfs_factor, mfprio::job, context>);
// ...but it has an association, which is all the fair-share lookup reads.
static_assert(mfprio::factor_policy<fairshare_factor, mfprio::job, context>);
static_assert(!mfprio::factor_policy<fairshare_factor, bare, context>);

// The queue and bank tables are Flux's: Slurm's context alone does not do.
static_assert(!mfprio::factor_policy<queue_factor, job, mfprio::slurm::context>);
static_assert(!mfprio::factor_policy<bank_factor, job, mfprio::slurm::context>);

// flux-accounting's fair-share is Slurm's lookup, the same type.
static_assert(std::is_same_v<fairshare_factor, mfprio::slurm::fairshare_factor>);

// The factors evaluate at compile time.
static_assert(urgency_factor{}(make_job(0, 0, no_index, no_index, 20), context{}) == 4.0);
static_assert(fcfs_factor{}(make_job(0, 0, no_index, no_index, 16, 2), context{}) == 4294967293.0);
static_assert(queue_factor{}(make_job(0, 0, 0, no_index, 16), context{}) == 0.0); // empty table

TEST_CASE("flux factors: names") {
    CHECK(queue_factor::name == "queue");
    CHECK(bank_factor::name == "bank");
    CHECK(urgency_factor::name == "urgency");
    CHECK(urgency_value::name == "flux_urgency");
    CHECK(fcfs_factor::name == "fcfs");
    CHECK(fairshare_factor::name == "fairshare");
}

TEST_CASE("flux queue factor: the queue's priority, 0 for no queue or an unknown queue") {
    // Reference A2.1: the queue factor is queue_table.priority (an int); the lookup returns 0
    // when no queue was given and 0 when the queue is unknown to flux-accounting.
    tables t;
    t.queues = {0, 2, 500000, -3};
    const queue_factor f{};
    CHECK(f(make_job(0, 0, 0, no_index, 16), t.ctx()) == 0.0);
    CHECK(f(make_job(0, 0, 1, no_index, 16), t.ctx()) == 2.0);
    CHECK(f(make_job(0, 0, 2, no_index, 16), t.ctx()) == 500000.0);
    CHECK(f(make_job(0, 0, 3, no_index, 16), t.ctx()) == -3.0);      // returned as is
    CHECK(f(make_job(0, 0, no_index, no_index, 16), t.ctx()) == 0.0); // no queue given
    CHECK(f(make_job(0, 0, 4, no_index, 16), t.ctx()) == 0.0);        // past the table: unknown
    CHECK(f(make_job(0, 0, 1000, no_index, 16), t.ctx()) == 0.0);
}

TEST_CASE("flux bank factor: the bank's priority, 0.0 for an unknown bank") {
    // Reference A2.1: the bank factor is bank_table.priority, a double (t1054 uses 3.5), 0.0
    // when the bank is unknown.
    tables t;
    t.banks = {0.0, 3.5, -1.25};
    const bank_factor f{};
    CHECK(f(make_job(0, 0, no_index, 0, 16), t.ctx()) == 0.0);
    CHECK(f(make_job(0, 0, no_index, 1, 16), t.ctx()) == 3.5);
    CHECK(f(make_job(0, 0, no_index, 2, 16), t.ctx()) == -1.25);
    CHECK(f(make_job(0, 0, no_index, no_index, 16), t.ctx()) == 0.0);
    CHECK(f(make_job(0, 0, no_index, 3, 16), t.ctx()) == 0.0);
}

TEST_CASE("flux queue and bank factors come from the job, not from the association") {
    // Reference A2.4.1: the plugin keeps one queue factor per association, overwritten by the
    // latest job, so a reprioritization would give both jobs below queue 2's priority. mfprio
    // reads each job's own queue and bank: one association (0), two queues, two banks.
    tables t;
    t.queues = {1, 2};
    t.banks = {0.5, 3.5};
    const job first = make_job(0, 0, 0, 0, 16);
    const job second = make_job(0, 0, 1, 1, 16);
    const queue_factor q{};
    const bank_factor b{};
    CHECK(q(second, t.ctx()) == 2.0);
    CHECK(q(first, t.ctx()) == 1.0); // evaluated after the later job: still its own queue
    CHECK(b(second, t.ctx()) == 3.5);
    CHECK(b(first, t.ctx()) == 0.5);
    // A new queue table takes effect at once for pending jobs (the plugin only updates an
    // association's factor when a new job arrives).
    t.queues = {7, 2};
    CHECK(q(first, t.ctx()) == 7.0);
}

TEST_CASE("flux urgency factor: urgency - 16") {
    // Reference A2.1: the urgency term is W_urgency x (urgency - 16).
    const context c{};
    const urgency_factor f{};
    CHECK(f(make_job(0, 0, no_index, no_index, 16), c) == 0.0);   // default urgency adds nothing
    CHECK(f(make_job(0, 0, no_index, no_index, 20), c) == 4.0);
    CHECK(f(make_job(0, 0, no_index, no_index, 12), c) == -4.0);
    CHECK(f(make_job(0, 0, no_index, no_index, 1), c) == -15.0);
    CHECK(f(make_job(0, 0, no_index, no_index, 30), c) == 14.0);
    CHECK(f(make_job(0, 0, no_index, no_index, 0), c) == -16.0);   // never reaches a sum (HOLD)
    CHECK(f(make_job(0, 0, no_index, no_index, 31), c) == 15.0);   // never reaches a sum (EXPEDITE)
}

TEST_CASE("flux urgency value: flux-core's default priority is the urgency") {
    // Reference A1: .priority-default sets priority = urgency.
    const context c{};
    const urgency_value f{};
    CHECK(f(make_job(0, 0, no_index, no_index, 0), c) == 0.0);
    CHECK(f(make_job(0, 0, no_index, no_index, 16), c) == 16.0);
    CHECK(f(make_job(0, 0, no_index, no_index, 31), c) == 31.0);
}

TEST_CASE("flux FCFS factor: one below the last submitted, from 0xFFFFFFFF") {
    // Seed 003: the first job gets 0xFFFFFFFF = 4294967295 and each later one one less.
    const context c{};
    const fcfs_factor f{};
    CHECK(f(make_job(0, 0, no_index, no_index, 16, 0), c) == 4294967295.0);
    CHECK(f(make_job(0, 0, no_index, no_index, 16, 1), c) == 4294967294.0);
    CHECK(f(make_job(0, 0, no_index, no_index, 16, 2), c) == 4294967293.0);
    CHECK(f(make_job(0, 0, no_index, no_index, 16, 4294967294u), c) == 1.0);
    // After 2^32 - 1 submissions the value reaches 0 and stays there (0 = hold in flux-core).
    CHECK(f(make_job(0, 0, no_index, no_index, 16, 4294967295u), c) == 0.0);
    CHECK(f(make_job(0, 0, no_index, no_index, 16, std::uint64_t{1} << 40), c) == 0.0);
}

TEST_CASE("flux fair-share factor: the association's value from the context") {
    // flux-accounting's fair-share is per association, in (0, 1] (reference A2.5); it lives in
    // the context's fair-share column, as Slurm's does. 0 for an association past the column.
    tables t;
    t.fairshare = {0.5, 1.0, 0.25};
    const fairshare_factor f{};
    CHECK(f(make_job(0, 0, no_index, no_index, 16), t.ctx()) == 0.5);
    CHECK(f(make_job(0, 1, no_index, no_index, 16), t.ctx()) == 1.0);
    CHECK(f(make_job(0, 2, no_index, no_index, 16), t.ctx()) == 0.25);
    CHECK(f(make_job(0, 3, no_index, no_index, 16), t.ctx()) == 0.0);
}
