// Tests for mfprio/fairshare/usage.hpp (reference slurm.md 2.2 periodic loop, 2.3 new usage,
// 2.4 resets, 0 "usage aggregation", quirk 9):
//   decay pass over Δ:  U *= D^Δ for every association and every QOS except NoDecay ones
//   new usage of a job: real = Δ·D^Δ·billable·uf  added to the association and every direct
//                       parent up to and including the root; job QOS likewise (NoDecay QOS:
//                       Δ·billable·uf, un-decayed); uf = QOS UsageFactor if >= 0, else 1
//   one pass with a job running throughout: U_new = U_old·D^Δ + billable·uf·Δ·D^Δ
// Most cases use the exact half-life mode with hl = Δ = 300 s, so D^Δ = 0.5 exactly and the
// expected values can be worked out by hand.
#include <mfprio/fairshare/usage.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include <doctest/doctest.h>

namespace {
using namespace mfprio::fairshare;

// root ─┬─ A ─┬─ u1            (users before sub-accounts in lineage order)
//       │     └─ B ── u2
//       └─ D ── u3
struct fixture {
    tree t;
    std::uint32_t A = 0, B = 0, D = 0, u1 = 0, u2 = 0, u3 = 0;

    explicit fixture(long double usage1 = 0, long double usage2 = 0, long double usage3 = 0) {
        tree_builder b;
        const auto a = b.add_account(0, "a", 40);
        const auto bb = b.add_account(a, "b", 30);
        const auto d = b.add_account(0, "d", 60);
        const auto x1 = b.add_user(a, "u1", 1, usage1);
        const auto x2 = b.add_user(bb, "u2", 1, usage2);
        const auto x3 = b.add_user(d, "u3", 1, usage3);
        t = b.build();
        A = b.position(a);
        B = b.position(bb);
        D = b.position(d);
        u1 = b.position(x1);
        u2 = b.position(x2);
        u3 = b.position(x3);
    }
};

const decay_rate half_per_300s(300, half_life_mode::exact); // D^300 = 0.5 exactly
} // namespace

TEST_CASE("fairshare: usage decay pass multiplies every association and QOS by D^Δ") {
    fixture f(1000, 200, 40); // aggregated: A = 1200, B = 200, D = 40, root = 1240
    usage_ledger led(f.t, half_per_300s);
    const auto q = led.add_qos(1.0, false, 80);
    led.decay_pass(300); // factor 0.5
    CHECK(led.usage(f.u1) == 500);
    CHECK(led.usage(f.u2) == 100);
    CHECK(led.usage(f.u3) == 20);
    CHECK(led.usage(f.A) == 600);
    CHECK(led.usage(f.B) == 100);
    CHECK(led.usage(f.D) == 20);
    CHECK(led.usage(0) == 620);
    CHECK(led.qos_usage(q) == 40);
}

TEST_CASE("fairshare: usage decay pass with Slurm's constant uses the reference factor") {
    // hl 604800: D^300 = 0.9996563088783914 (reference 2.1); usage is long double, the
    // factor a double, as Slurm's `usage_raw *= real_decay`.
    fixture f(1000);
    usage_ledger led(f.t); // default: 7 days, Slurm's D
    led.decay_pass(300);
    CHECK(led.usage(f.u1) == 1000.0L * static_cast<long double>(0.9996563088783914));
    led.decay_pass(0); // Δ = 0: factor 1, nothing changes
    CHECK(led.usage(f.u1) == 1000.0L * static_cast<long double>(0.9996563088783914));
}

TEST_CASE("fairshare: usage one pass with a running job, U_old·D^Δ + b·uf·Δ·D^Δ") {
    fixture f(1000);
    usage_ledger led(f.t, half_per_300s);
    led.decay_pass(300);
    led.charge(f.u1, 300, 4.0); // billable 4, uf 1
    // 1000·0.5 + 4·1·300·0.5 = 500 + 600 = 1100
    CHECK(led.usage(f.u1) == 1100);

    // Slurm's own constant, hl 100, Δ = 300: D^300 = 0.1241534237104493 (reference 2.1).
    // U_old = 1000, billable 4, uf 1: 1000·D^300 + 4·300·D^300 = 2200·D^300 = 273.1375321629885
    fixture g(1000);
    usage_ledger slurm(g.t, decay_rate(100));
    slurm.decay_pass(300);
    slurm.charge(g.u1, 300, 4.0);
    const double d300 = 0.1241534237104493;
    CHECK(slurm.usage(g.u1) == 1000.0L * d300 + static_cast<long double>(300 * d300 * 4.0));
    CHECK(static_cast<double>(slurm.usage(g.u1)) == doctest::Approx(273.1375321629885).epsilon(1e-15));
}

TEST_CASE("fairshare: usage charges the direct-parent chain up to the root only") {
    fixture f(0, 0, 7);
    usage_ledger led(f.t, half_per_300s);
    led.charge(f.u2, 300, 2.0); // 300·0.5·2 = 300 to u2, B, A, root
    CHECK(led.usage(f.u2) == 300);
    CHECK(led.usage(f.B) == 300);
    CHECK(led.usage(f.A) == 300);
    CHECK(led.usage(0) == 307); // root held u3's 7
    CHECK(led.usage(f.u1) == 0); // sibling of B, not on the chain
    CHECK(led.usage(f.D) == 7);
    CHECK(led.usage(f.u3) == 7);
    // A job without an association charges nothing on the tree.
    led.charge(none, 300, 2.0);
    CHECK(led.usage(0) == 307);
}

TEST_CASE("fairshare: usage QOS UsageFactor scales the charge, negative means 1") {
    fixture f;
    usage_ledger led(f.t, half_per_300s);
    const auto twice = led.add_qos(2.0);
    const auto zero = led.add_qos(0.0);
    const auto unset = led.add_qos(-1.0);
    led.charge(f.u1, 300, 4.0, job_qos{.job = twice}); // 300·0.5·4·2 = 1200
    CHECK(led.usage(f.u1) == 1200);
    CHECK(led.qos_usage(twice) == 1200);
    led.charge(f.u3, 300, 4.0, job_qos{.job = zero}); // ·0 = 0
    CHECK(led.usage(f.u3) == 0);
    CHECK(led.qos_usage(zero) == 0);
    led.charge(f.u2, 300, 4.0, job_qos{.job = unset}); // uf < 0 -> 1: 600
    CHECK(led.usage(f.u2) == 600);
    CHECK(led.qos_usage(unset) == 600);
    // The plain overload takes the factor directly.
    led.charge(f.u2, 300, 4.0, 0.5); // 300·0.5·4·0.5 = 300
    CHECK(led.usage(f.u2) == 900);
    led.charge(f.u2, 300, 4.0, -3.0); // negative: 1 -> 600
    CHECK(led.usage(f.u2) == 1500);
}

TEST_CASE("fairshare: usage NoDecay QOS is charged un-decayed and never decays") {
    fixture f;
    usage_ledger led(f.t, half_per_300s);
    const auto normal = led.add_qos(1.0, false, 100);
    const auto keep = led.add_qos(2.0, true, 100);
    led.decay_pass(300);
    CHECK(led.qos_usage(normal) == 50);
    CHECK(led.qos_usage(keep) == 100);
    // A job in the NoDecay QOS (uf 2) on a partition whose QOS is `normal`, Δ 300, billable 4:
    //   association: 300·0.5·4·2 = 1200
    //   job QOS (NoDecay): 300·4·2 = 2400, un-decayed
    //   partition QOS: decayed, with the job QOS's factor: 1200
    led.charge(f.u1, 300, 4.0, job_qos{.job = keep, .partition = normal});
    CHECK(led.usage(f.u1) == 1200);
    CHECK(led.qos_usage(keep) == 100 + 2400);
    CHECK(led.qos_usage(normal) == 50 + 1200);
    // A partition QOS equal to the job QOS is charged once.
    led.charge(f.u1, 300, 1.0, job_qos{.job = normal, .partition = normal}); // 150
    CHECK(led.qos_usage(normal) == 1250 + 150);
}

TEST_CASE("fairshare: usage half-life 0 never decays and charges Δ·billable") {
    fixture f(1000);
    usage_ledger led(f.t, decay_rate(0));
    led.decay_pass(86400);
    CHECK(led.usage(f.u1) == 1000);
    led.charge(f.u1, 300, 4.0); // 300·4 = 1200
    CHECK(led.usage(f.u1) == 2200);
    CHECK(led.usage(0) == 2200);
}

TEST_CASE("fairshare: usage reset clears associations and all QOS (quirk 9), exemption optional") {
    fixture f(1000, 10, 1);
    usage_ledger led(f.t, half_per_300s);
    const auto normal = led.add_qos(1.0, false, 5);
    const auto keep = led.add_qos(1.0, true, 7);
    led.reset_usage();
    for (std::uint32_t a = 0; a < f.t.size(); ++a) CHECK(led.usage(a) == 0);
    CHECK(led.qos_usage(normal) == 0);
    CHECK(led.qos_usage(keep) == 0); // Slurm's code resets NoDecay QOS too

    fixture g(1000);
    usage_ledger doc(g.t, half_per_300s, ledger_options{.reset_exempts_no_decay_qos = true});
    const auto n2 = doc.add_qos(1.0, false, 5);
    const auto k2 = doc.add_qos(1.0, true, 7);
    doc.reset_usage();
    CHECK(doc.usage(g.u1) == 0);
    CHECK(doc.qos_usage(n2) == 0);
    CHECK(doc.qos_usage(k2) == 7); // sacctmgr.1's documented behaviour
}

TEST_CASE("fairshare: usage periodic run, passes every calc period, the last one partial") {
    const std::int64_t t0 = 1'700'000'000;
    fixture f;
    usage_ledger led(f.t, half_per_300s);
    const std::array<ledger_job, 1> jobs{{{.assoc = f.u1, .start = t0, .end = 0, .billable = 1.0}}};
    // pass at t0: first pass, no decay; the job starts at t0 (Δ = 0)
    // pass at t0+300: 0·0.5 + 300·0.5·1 = 150
    // pass at t0+600: 150·0.5 + 150 = 225
    // pass at t0+900: 225·0.5 + 150 = 262.5
    led.run(t0, t0 + 900, 300, jobs);
    CHECK(led.usage(f.u1) == 262.5);
    CHECK(led.usage(0) == 262.5);
    CHECK(led.last_ran() == t0 + 900);

    // Partial last pass: to = t0 + 750 -> passes at +300, +600, +750 (Δ 150: 2^-0.5)
    // 225·2^-0.5 + 150·2^-0.5 = 375·2^-0.5 = 265.16504294495535
    fixture g;
    usage_ledger part(g.t, half_per_300s);
    const std::array<ledger_job, 1> j2{{{.assoc = g.u1, .start = t0, .end = 0, .billable = 1.0}}};
    part.run(t0, t0 + 750, 300, j2);
    CHECK(static_cast<double>(part.usage(g.u1)) == doctest::Approx(265.16504294495535).epsilon(1e-14));
    CHECK(part.last_ran() == t0 + 750);
}

TEST_CASE("fairshare: usage job end is charged when it ends, then decayed by the next pass") {
    const std::int64_t t0 = 1'700'000'000;
    fixture f;
    usage_ledger led(f.t, half_per_300s);
    const std::array<ledger_job, 1> jobs{{{.assoc = f.u2, .start = t0, .end = t0 + 450, .billable = 1.0}}};
    // +300: 150. Job ends at +450: Δ = 150, 150·2^-0.5 = 106.06601717798213 added at its end.
    // +600: (150 + 106.066...)·0.5 = 128.03300858899107; +900: ·0.5 = 64.01650429449553
    led.run(t0, t0 + 900, 300, jobs);
    const double expect = (150 + 150 * std::exp2(-0.5)) * 0.25;
    CHECK(static_cast<double>(led.usage(f.u2)) == doctest::Approx(expect).epsilon(1e-14));
    CHECK(static_cast<double>(led.usage(f.u2)) == doctest::Approx(64.01650429449553).epsilon(1e-14));
    CHECK(led.usage(f.B) == led.usage(f.u2));
}

TEST_CASE("fairshare: usage first pass, no decay; running jobs charged from start (Fair Tree) or not") {
    const std::int64_t t0 = 1'700'000'000;
    // The job started 600 s before the first pass.
    fixture f(1000);
    usage_ledger ft(f.t, half_per_300s);
    const std::array<ledger_job, 1> jobs{{{.assoc = f.u1, .start = t0 - 600, .end = 0, .billable = 2.0}}};
    ft.pass(t0, jobs);
    // no decay on the first pass; 600·2^-2·2 = 300 charged
    CHECK(ft.usage(f.u1) == 1300);

    fixture g(1000);
    usage_ledger classic(g.t, half_per_300s, ledger_options{.charge_on_first_pass = false});
    const std::array<ledger_job, 1> j2{{{.assoc = g.u1, .start = t0 - 600, .end = 0, .billable = 2.0}}};
    classic.pass(t0, j2);
    CHECK(classic.usage(g.u1) == 1000);
    // next pass: decay by 0.5, charge 300·0.5·2 = 300 -> 800
    classic.pass(t0 + 300, j2);
    CHECK(classic.usage(g.u1) == 800);
}

TEST_CASE("fairshare: usage reset NOW clears at the first pass, then never again") {
    const std::int64_t t0 = 1'700'000'000;
    fixture f(1000);
    usage_ledger led(f.t, half_per_300s);
    led.set_reset_period(reset_period::now);
    const std::array<ledger_job, 1> jobs{{{.assoc = f.u1, .start = t0, .end = 0, .billable = 1.0}}};
    led.pass(t0, jobs);
    CHECK(led.usage(f.u1) == 0);
    CHECK(led.usage(0) == 0);
    CHECK(led.resets().period == reset_period::none);
    CHECK(led.resets().last_reset == t0);
    led.pass(t0 + 300, jobs); // 150, no further reset
    led.pass(t0 + 600, jobs); // 225
    CHECK(led.usage(f.u1) == 225);
}
