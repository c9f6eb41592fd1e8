// Tests for mfprio/testing.hpp with the Maui and Flux engines (examples/policy covers the
// Slurm side): the builders, the clock, the order checks and their messages.
#include <doctest/doctest.h>

#include <mfprio/flux/presets.hpp>
#include <mfprio/maui/priority.hpp>
#include <mfprio/testing.hpp>

#include <string>
#include <vector>

using namespace mfprio;
using namespace mfprio::testing;

TEST_CASE("testing kit: Maui jobs, the clock and order checks") {
    test_clock clock;
    const maui::job old_job = maui_job_builder{}.id(1).submitted_ago(clock, 3600).wclimit_seconds(3600).build();
    const maui::job new_job = maui_job_builder{}.id(2).submitted_ago(clock, 600).wclimit_seconds(3600).build();
    CHECK(old_job.submit_time == clock.now() - 3600);
    maui::context c;
    c.now = clock.now();
    // Default Maui configuration: priority = minutes queued (reference B4.6): 60 and 10.
    const auto e = maui::make_maui_engine(maui::weights{});
    CHECK(e.priority(old_job, c).value == 60);
    CHECK(check_before(e, old_job, new_job, c).ok);
    const auto wrong = check_before(e, new_job, old_job, c);
    CHECK_FALSE(wrong.ok);
    // The message names both jobs and shows their breakdowns.
    CHECK(wrong.message.find("job 2 should be ahead of job 1") != std::string::npos);
    CHECK(wrong.message.find("Serv") != std::string::npos);
    const std::vector<maui::job> jobs{new_job, old_job};
    CHECK(check_order(e, jobs, c, {1, 2}).ok);
    CHECK_FALSE(check_order(e, jobs, c, {2, 1}).ok);
    // Moving the clock moves both; the order stays.
    clock.advance(7200);
    c.now = clock.now();
    CHECK(e.priority(new_job, c).value == 130);
    MFPRIO_CHECK_BEFORE(e, old_job, new_job, c);
}

TEST_CASE("testing kit: Flux jobs with flux-accounting's preset") {
    const flux::job a = flux_job_builder{}.id(10).urgency(20).build();
    const flux::job b = flux_job_builder{}.id(11).urgency(16).build();
    const flux::job held = flux_job_builder{}.id(12).urgency(0).build();
    CHECK(a.urgency == 20);
    flux::context c;
    const auto e = flux::make_flux_accounting_engine();
    // Urgency 20 adds 1000 x 4 (reference A2.1); urgency 16 adds nothing and the sum 0 is a
    // priority-hold; urgency 0 holds.
    CHECK(e.priority(a, c).value == 4000);
    CHECK(check_before(e, a, b, c).ok);
    // Equal priorities are not "ahead": the check refuses ties.
    CHECK_FALSE(check_before(e, b, held, c).ok);
}
