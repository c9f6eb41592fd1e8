// Tests for mfprio/fairshare/decay.hpp (reference slurm.md 2.1, quirk 2):
//   D = 1 - 0.693/hl (hl = PriorityDecayHalfLife in seconds; hl 0 -> D = 1, no decay)
//   decay over Δ seconds = pow(D, Δ) in double, floored at DBL_MIN
//   exact mode: 2^(-Δ/hl)
// The table values are the reference's, printed as shortest round-trip decimals, so they are
// compared with == .
#include <mfprio/fairshare/decay.hpp>

#include <cfloat>
#include <cmath>

#include <doctest/doctest.h>

namespace {
using mfprio::fairshare::decay_rate;
using mfprio::fairshare::half_life_mode;
using mfprio::fairshare::slurm_decay_constant;
} // namespace

TEST_CASE("fairshare: decay table of reference 2.1 (D, D^300, D^hl), exact doubles") {
    struct row {
        long long hl;
        double d, d300, dhl;
    };
    // | hl (s) | D | D^300 | D^hl |  (reference slurm.md 2.1)
    const row rows[] = {
        {100, 0.99307, 0.1241534237104493, 0.49886867374639277},          // 1 - 0.693/100
        {3600, 0.9998075, 0.9438806422256244, 0.5000402369932148},        // 1 - 0.693/3600
        {86400, 0.9999919791666667, 0.9975966330719699, 0.5000722058782807},
        {604800, 0.9999988541666667, 0.9996563088783914, 0.5000733971527376},
        {1209600, 0.9999994270833333, 0.999828139720436, 0.5000734964252441},
    };
    for (const row& r : rows) {
        CAPTURE(r.hl);
        const decay_rate rate(r.hl);
        CHECK(rate.per_second() == r.d);
        CHECK(slurm_decay_constant(r.hl) == r.d);
        CHECK(rate.over(300) == r.d300);
        CHECK(rate.over(static_cast<double>(r.hl)) == r.dhl);
    }
}

TEST_CASE("fairshare: decay over one half-life is not 0.5 with Slurm's constant") {
    // Slurm's default hl = 7 days = 604800 s: D^604800 = 0.5000733971527376 (quirk 2).
    const decay_rate def{};
    CHECK(def.half_life() == 604800);
    CHECK(def.mode() == half_life_mode::slurm);
    CHECK(def.over(604800) == 0.5000733971527376);
    CHECK(def.over(604800) != 0.5);
}

TEST_CASE("fairshare: exact half-life mode gives 2^(-Δ/hl)") {
    const decay_rate exact(604800, half_life_mode::exact);
    CHECK(exact.over(604800) == 0.5);        // 2^-1
    CHECK(exact.over(2 * 604800) == 0.25);   // 2^-2
    CHECK(exact.over(0) == 1.0);             // 2^0
    CHECK(exact.per_second() == std::exp2(-1.0 / 604800));
    // run_decay over one half-life: Δ·2^-1 = 302400
    CHECK(exact.decayed_interval(604800) == 302400.0);
}

TEST_CASE("fairshare: half-life 0 means no decay") {
    const decay_rate none(0);
    CHECK_FALSE(none.decays());
    CHECK(none.per_second() == 1.0); // D = 1 when hl is 0
    CHECK(none.over(300) == 1.0);
    CHECK(none.over(1e9) == 1.0);
    CHECK(none.decayed_interval(300) == 300.0); // Δ·1^Δ
    CHECK(decay_rate(-5).over(300) == 1.0);     // hl <= 0 is no decay, as Slurm's (hl > 0) test
}

TEST_CASE("fairshare: decay is floored at DBL_MIN, the interval factor is not") {
    // hl 100: D = 0.99307; D^1e6 underflows to 0, so real_decay is DBL_MIN.
    const decay_rate fast(100);
    CHECK(fast.over(1e6) == DBL_MIN);
    CHECK(fast.decayed_interval(1e6) == 0.0); // Slurm's run_decay = Δ·pow(D, Δ) has no floor
}

TEST_CASE("fairshare: seed 004, one-day half-life computed every five minutes") {
    // Seed 004: "Usage accrual ... decays with a half life of one day and the effect of
    // this decay is calculated every five minutes". hl = 86400 s, PriorityCalcPeriod 300 s.
    const decay_rate day(86400);
    // Per pass: D^300 = 0.9975966330719699 (reference 2.1, hl 86400 row).
    CHECK(day.over(300) == 0.9975966330719699);
    // 288 passes make one day: (D^300)^288 = D^86400 = 0.5000722058782807 up to the
    // rounding of 288 multiplications (Slurm multiplies pass by pass too).
    double u = 1.0;
    for (int i = 0; i < 288; ++i) u *= day.over(300);
    CHECK(u == doctest::Approx(0.5000722058782807).epsilon(1e-13));
    // "decayed 50% each day": within 1.5e-4 of one half.
    CHECK(std::abs(u - 0.5) < 1.5e-4);
}
