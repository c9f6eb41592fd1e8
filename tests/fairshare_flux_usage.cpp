// Tests for mfprio/fairshare/flux_usage.hpp (reference flux_maui.md A2.6;
// flux-accounting doc/components/job-usage-calculation.rst for the worked example):
//   job usage = (nnodes·node_w + ncores·core_w + ngpus·gpu_w)·elapsed, rounded to 5 decimals
//   N = reset_period / half_life bins (4 weeks / 1 week = 4), bin 0 = current period
//   rotation: every bin one period older, ·D once (D = 0.5), oldest falls off, bin 0 = 0
//   historical usage = Σ bins
//   documented (pre-PR #816) model: historical = current + Σ_k past[k]·D^(k+1)
#include <mfprio/fairshare/flux_usage.hpp>

#include <array>
#include <cstdint>
#include <initializer_list>

#include <doctest/doctest.h>

namespace {
using namespace mfprio::fairshare;

constexpr std::int64_t week = 604800;

void set_bins(flux_usage_bins& b, std::size_t a, std::initializer_list<double> v) {
    auto s = b.bins(a);
    REQUIRE(v.size() == s.size());
    std::size_t i = 0;
    for (double x : v) s[i++] = x;
}
} // namespace

TEST_CASE("fairshare: flux job usage is node-seconds by default, rounded to 5 decimals") {
    // The doc's five jobs of user 1002: 2, 2, 2, 1, 1 nodes, 2000 s each:
    // (2·2000) + (2·2000) + (2·2000) + (1·2000) + (1·2000) = 16000
    const double nodes[] = {2, 2, 2, 1, 1};
    double current = 0;
    for (double n : nodes) current += flux_job_usage(n, 36, 0, 2000.0);
    CHECK(current == 16000.0); // cores weigh 0 by default
    // weights node 1, core 0.5, gpu 10: (1 + 4·0.5 + 2·10)·100.123456789 = 23·100.123456789
    // = 2302.839506147 -> 2302.83951
    CHECK(flux_job_usage(1, 4, 2, 100.123456789, {.node = 1.0, .core = 0.5, .gpu = 10.0}) == 2302.83951);
    // 1999.999999 node-seconds round to 2000.00000
    CHECK(flux_job_usage(1, 0, 0, 1999.999999) == 2000.0);
}

TEST_CASE("fairshare: flux rounding is Python's round()") {
    CHECK(round_decimals(2.675, 2) == 2.67);  // 2.675 is 2.67499999... in binary (Python docs)
    CHECK(round_decimals(0.125, 2) == 0.12);  // an exact tie goes to even
    CHECK(round_decimals(0.375, 2) == 0.38);  // an exact tie goes to even
    CHECK(round_decimals(1.000004, 5) == 1.0);
    CHECK(round_decimals(1.000006, 5) == 1.00001);
    CHECK(round_decimals(-3.141592653, 5) == -3.14159);
}

TEST_CASE("fairshare: flux bin count is reset period / half-life") {
    CHECK(flux_usage_config{}.bin_count() == 4); // 4 weeks / 1 week
    CHECK(flux_usage_config{.half_life = week, .reset_period = 5 * week}.bin_count() == 5);
    CHECK(flux_usage_config{.half_life = 2 * week, .reset_period = 3 * week}.bin_count() == 1); // 3/2 -> 1
    CHECK(flux_usage_config{.half_life = 2 * week, .reset_period = week}.bin_count() == 1);      // at least one
}

TEST_CASE("fairshare: flux bins rotate: shift, multiply by D once, oldest falls off") {
    flux_usage_bins b(2);
    REQUIRE(b.bin_count() == 4);
    set_bins(b, 0, {128, 64, 64, 16});
    CHECK(b.historical(0) == 272); // 128 + 64 + 64 + 16
    b.rotate();
    // [128, 64, 64, 16] -> [0, 128·0.5, 64·0.5, 64·0.5] = [0, 64, 32, 32]; 16·0.5 falls off
    CHECK(b.bins(0)[0] == 0);
    CHECK(b.bins(0)[1] == 64);
    CHECK(b.bins(0)[2] == 32);
    CHECK(b.bins(0)[3] == 32);
    b.add(0, 16000); // this period's jobs
    CHECK(b.historical(0) == 16128); // 16000 + 64 + 32 + 32
    CHECK(b.historical(1) == 0);

    // D applies once per rotation, so a period's usage has D^k after k rotations:
    // 100 -> 50 -> 25 -> 12.5 -> gone
    flux_usage_bins c(1);
    c.add(0, 100);
    c.rotate();
    CHECK(c.historical(0) == 50);
    c.rotate();
    CHECK(c.historical(0) == 25);
    c.rotate();
    CHECK(c.historical(0) == 12.5);
    c.rotate();
    CHECK(c.historical(0) == 0);
}

TEST_CASE("fairshare: flux doc example, U_current 16000 and past bins [128, 64, 64, 16] give 16089") {
    // job-usage-calculation.rst: the past bins decay with D^(i+1), the old cumulative model:
    //   [128·0.5, 64·0.25, 64·0.125, 16·0.0625] = [64, 16, 8, 1], sum 89
    //   U = 16000 + 89 = 16089
    const std::array<double, 4> past{128, 64, 64, 16};
    CHECK(flux_historical_cumulative(16000, past) == 16089);
    CHECK(flux_historical_cumulative(16000, past, 0.5) == 16089);

    // The same in the bins, cumulative mode: the doc's four past bins plus the current one
    // need five bins (reset period 5 weeks); bin i counts D^i.
    flux_usage_bins b(1, {.half_life = week, .reset_period = 5 * week, .mode = flux_decay::cumulative});
    set_bins(b, 0, {16000, 128, 64, 64, 16});
    CHECK(b.historical(0) == 16089);
    // cumulative bins stay raw when they rotate: [0, 16000, 128, 64, 64]
    b.rotate();
    CHECK(b.bins(0)[1] == 16000);
    CHECK(b.bins(0)[4] == 64);
    // 16000·0.5 + 128·0.25 + 64·0.125 + 64·0.0625 = 8000 + 32 + 8 + 4 = 8044
    CHECK(b.historical(0) == 8044);

    // The current model on the same numbers: the past bins were already decayed once per
    // rotation when stored, so they are summed as they are: 16000 + 128 + 64 + 64 + 16.
    flux_usage_bins now(1, {.half_life = week, .reset_period = 5 * week});
    set_bins(now, 0, {16000, 128, 64, 64, 16});
    CHECK(now.historical(0) == 16272);
}

TEST_CASE("fairshare: flux both decay modes agree on the same history") {
    // 100 in some period, then two rotations: per rotation 100·0.5·0.5 = 25 stored;
    // cumulative 100 stored raw in bin 2, weighted 0.5^2 = 0.25 -> 25.
    flux_usage_bins a(1);
    flux_usage_bins c(1, {.mode = flux_decay::cumulative});
    a.add(0, 100);
    c.add(0, 100);
    a.rotate();
    a.rotate();
    c.rotate();
    c.rotate();
    CHECK(a.bins(0)[2] == 25);
    CHECK(c.bins(0)[2] == 100);
    CHECK(a.historical(0) == 25);
    CHECK(c.historical(0) == 25);
}

TEST_CASE("fairshare: flux rotation is due when a half-life period has passed") {
    flux_usage_bins b(1);
    const double end = 1'700'000'000;
    b.set_period_end(end);
    b.add(0, 10);
    CHECK_FALSE(b.rotate_if_due(end + week - 1)); // end < now - hl is false
    CHECK_FALSE(b.rotate_if_due(end + week));     // strict
    CHECK(b.rotate_if_due(end + week + 1));
    CHECK(b.period_end() == end + week);          // advanced by one half-life
    CHECK(b.bins(0)[1] == 5);
    // one rotation per call even when several periods have passed (flux's check_end_hl)
    CHECK(b.rotate_if_due(end + 10 * week));
    CHECK(b.period_end() == end + 2 * week);
    CHECK(b.bins(0)[2] == 2.5);
    b.clear(0);
    CHECK(b.historical(0) == 0);
}

TEST_CASE("fairshare: flux usage written to the tree, banks sum sub-banks or users") {
    // root ─┬─ a ─┬─ x        a has a sub-bank, so flux ignores x in a's sum
    //       │     └─ b ─┬─ y
    //       │           └─ z
    //       └─ c ── w
    tree_builder tb;
    const auto a = tb.add_account(0, "a", 1);
    const auto bb = tb.add_account(a, "b", 1);
    const auto c = tb.add_account(0, "c", 1);
    const auto x = tb.add_user(a, "x", 1);
    const auto y = tb.add_user(bb, "y", 1);
    const auto z = tb.add_user(bb, "z", 1);
    const auto w = tb.add_user(c, "w", 1);
    tree t = tb.build();
    flux_usage_bins bins(t.size());
    bins.add(tb.position(x), 1000);
    set_bins(bins, tb.position(y), {10, 20, 0, 0}); // 30
    bins.add(tb.position(z), 5);
    bins.add(tb.position(w), 7);
    bins.write_to(t);
    CHECK(t.usage_raw[tb.position(x)] == 1000);
    CHECK(t.usage_raw[tb.position(y)] == 30);
    CHECK(t.usage_raw[tb.position(bb)] == 35); // y + z
    CHECK(t.usage_raw[tb.position(a)] == 35);  // b only, x ignored
    CHECK(t.usage_raw[tb.position(c)] == 7);
    CHECK(t.usage_raw[0] == 42);               // a + c
}
