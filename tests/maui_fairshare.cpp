// Tests for mfprio/maui/fairshare.hpp (reference flux_maui.md B2 "FS", B3; seed 002):
//   charge per iteration:  DEDICATEDPS = procs * s, DEDICATEDPES = PE * s, UTILIZEDPS = load * s,
//                          PE = TotalProcs * max(procs/TotProcs, mem/TotMem, disk/TotDisk, swap/TotSwap)
//                          to user, group, account, QOS, class (no_cred skipped) and the total, window 0
//   windows:               start = now - now mod FSINTERVAL; boundaries shift 0 -> 1 -> ...; FSDEPTH kept
//   effective usage:       U[0] + sum_{i=1}^{FSDEPTH-1} U[i] * FSDECAY^i (same for the total)
//   usage%:                effective(X) / effective(total) * 100; FS active iff FSPOLICY != NONE and total > 0
// Most numbers are chosen so that the expected values are exact in binary (decay 0.5, totals
// that are powers of two); where they are not (seed 002's 45%, 65%...), Approx is used.
#include <mfprio/maui/fairshare.hpp>

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include <doctest/doctest.h>

namespace {
using namespace mfprio::maui;

constexpr std::array<std::size_t, cred_kind_count> sizes_of(std::size_t n) { return {n, n, n, n, n}; }

job make_job(std::uint32_t user, std::uint32_t group, std::uint32_t account, std::uint32_t qos,
             std::uint32_t job_class, std::uint32_t procs = 1) {
    job j;
    j.user = user;
    j.group = group;
    j.account = account;
    j.qos = qos;
    j.job_class = job_class;
    j.procs = procs;
    return j;
}

/// Five credential tables of `n` entries each, and the spans `apply` takes.
struct tables {
    std::array<std::vector<credential>, cred_kind_count> t;
    explicit tables(std::size_t n) {
        for (auto& v : t) v.resize(n);
    }
    std::array<std::span<credential>, cred_kind_count> spans() {
        return {t[0], t[1], t[2], t[3], t[4]};
    }
    double fs(cred_kind k, std::size_t i) const { return t[index(k)][i].fs_usage; }
};
} // namespace

TEST_CASE("maui fairshare: seed 002's usages as percentages of the total") {
    // Seed 002's example: User A 45.0, Group B 65.0, Account C 35.0, QOS 25.0, Class E 20.0
    // ("Current Fairshare Usage"). With one window and a total of 200 units:
    //   A 90/200*100 = 45, B 130/200*100 = 65, C 70/200*100 = 35, QOS 50/200*100 = 25,
    //   E 40/200*100 = 20. Index 1 of each kind holds the rest (110, 70, 130, 150, 160).
    fs_ledger l({43200, 8, 1.0}, sizes_of(2));
    l.set_total(0, 200);
    l.set_usage(cred_kind::user, 0, 0, 90);
    l.set_usage(cred_kind::user, 1, 0, 110);
    l.set_usage(cred_kind::group, 0, 0, 130);
    l.set_usage(cred_kind::group, 1, 0, 70);
    l.set_usage(cred_kind::account, 0, 0, 70);
    l.set_usage(cred_kind::account, 1, 0, 130);
    l.set_usage(cred_kind::qos, 0, 0, 50);
    l.set_usage(cred_kind::qos, 1, 0, 150);
    l.set_usage(cred_kind::job_class, 0, 0, 40);
    l.set_usage(cred_kind::job_class, 1, 0, 160);
    tables t(2);
    CHECK(l.apply(t.spans()));
    CHECK(t.fs(cred_kind::user, 0) == doctest::Approx(45.0));
    CHECK(t.fs(cred_kind::group, 0) == doctest::Approx(65.0));
    CHECK(t.fs(cred_kind::account, 0) == doctest::Approx(35.0));
    CHECK(t.fs(cred_kind::qos, 0) == doctest::Approx(25.0));
    CHECK(t.fs(cred_kind::job_class, 0) == doctest::Approx(20.0));
    CHECK(t.fs(cred_kind::user, 1) == doctest::Approx(55.0));
    // apply and percent agree bit for bit (same operations in the same order).
    CHECK(t.fs(cred_kind::user, 0) == l.percent(cred_kind::user, 0));
    CHECK(t.fs(cred_kind::qos, 1) == l.percent(cred_kind::qos, 1));
}

TEST_CASE("maui fairshare: the same percentages built by charging jobs") {
    // Job 1: user A(0), group B(0), account C(0), QOS D(0), class E(0), 4 procs, 10 s -> 40.
    // Job 2: user 1, group B(0), account 1, QOS 1, class 1, 2 procs, 10 s -> 20.
    // Job 3: user 1, group 1, account 1, QOS 1, class 1, 2 procs, 10 s -> 20.
    // Total 80: A 40/80 = 50%, B 60/80 = 75%, C 50%, D 50%, E 50%; user 1 40/80 = 50%,
    // group 1 20/80 = 25%. All exact.
    fs_ledger l({100, 4, 1.0}, sizes_of(2));
    const resources cluster{16, 0, 0, 0};
    const job j1 = make_job(0, 0, 0, 0, 0, 4);
    const job j2 = make_job(1, 0, 1, 1, 1, 2);
    const job j3 = make_job(1, 1, 1, 1, 1, 2);
    for (const job* j : {&j1, &j2, &j3}) l.charge(*j, fs_charge(fs_metric::dedicated_ps, *j, cluster, 10));
    CHECK(l.total(0) == 80);
    CHECK(l.usage(cred_kind::user, 0, 0) == 40);
    CHECK(l.usage(cred_kind::user, 1, 0) == 40);
    CHECK(l.usage(cred_kind::group, 0, 0) == 60);
    CHECK(l.usage(cred_kind::group, 1, 0) == 20);
    tables t(2);
    CHECK(l.apply(t.spans()));
    CHECK(t.fs(cred_kind::user, 0) == 50.0);
    CHECK(t.fs(cred_kind::group, 0) == 75.0);
    CHECK(t.fs(cred_kind::group, 1) == 25.0);
    CHECK(t.fs(cred_kind::account, 0) == 50.0);
    CHECK(t.fs(cred_kind::qos, 0) == 50.0);
    CHECK(t.fs(cred_kind::job_class, 0) == 50.0);
}

TEST_CASE("maui fairshare: window starts") {
    // start = now - now mod FSINTERVAL, floor modulo for times before the epoch.
    CHECK(fs_window_start(43200 * 3 + 5, 43200) == 43200 * 3);
    CHECK(fs_window_start(43200 * 3, 43200) == 43200 * 3);
    CHECK(fs_window_start(43200 * 3 - 1, 43200) == 43200 * 2);
    CHECK(fs_window_start(-1, 100) == -100);
    CHECK(fs_window_start(-100, 100) == -100);
    CHECK(fs_window_start(7, 0) == 7); // interval < 1 counts as 1
}

TEST_CASE("maui fairshare: rotation across one boundary, several, and a jump >= depth") {
    // FSINTERVAL 100, FSDEPTH 4.
    fs_ledger l({100, 4, 1.0}, sizes_of(1));
    const job j = make_job(0, no_cred, no_cred, no_cred, no_cred);
    CHECK_FALSE(l.started());
    CHECK(l.advance(1050) == 0); // first call: window 0 = [1000, 1100), nothing rotates
    CHECK(l.started());
    CHECK(l.window_start() == 1000);
    l.charge(j, 10);
    CHECK(l.advance(1099) == 0); // same window
    CHECK(l.advance(950) == 0);  // the past: nothing
    CHECK(l.window_start() == 1000);
    CHECK(l.usage(cred_kind::user, 0, 0) == 10);

    // One boundary: 10 moves to window 1.
    CHECK(l.advance(1100) == 1);
    CHECK(l.window_start() == 1100);
    CHECK(l.usage(cred_kind::user, 0, 0) == 0);
    CHECK(l.usage(cred_kind::user, 0, 1) == 10);
    CHECK(l.total(1) == 10);
    l.charge(j, 5);

    // Two boundaries (1100 -> 1300): 5 from window 0 to 2, 10 from window 1 to 3.
    CHECK(l.advance(1350) == 2);
    CHECK(l.window_start() == 1300);
    CHECK(l.usage(cred_kind::user, 0, 0) == 0);
    CHECK(l.usage(cred_kind::user, 0, 1) == 0);
    CHECK(l.usage(cred_kind::user, 0, 2) == 5);
    CHECK(l.usage(cred_kind::user, 0, 3) == 10);
    CHECK(l.total(2) == 5);
    CHECK(l.total(3) == 10);
    l.charge(j, 1);

    // One more: window 3 (the 10) falls off the depth; 5 is now in 3, 1 in 1.
    CHECK(l.advance(1400) == 1);
    CHECK(l.usage(cred_kind::user, 0, 1) == 1);
    CHECK(l.usage(cred_kind::user, 0, 3) == 5);
    CHECK(l.usage(cred_kind::user, 0, 4) == 0); // past the depth: 0
    CHECK(l.effective_total() == 6);

    // A jump of 4 windows (= depth): everything is cleared.
    CHECK(l.advance(1800) == 4);
    CHECK(l.window_start() == 1800);
    for (std::size_t w = 0; w < 4; ++w) {
        CHECK(l.usage(cred_kind::user, 0, w) == 0);
        CHECK(l.total(w) == 0);
    }
    // A jump of many more windows clears too, and the count is the real number crossed.
    l.charge(j, 3);
    CHECK(l.advance(1800 + 100 * 1000) == 1000);
    CHECK(l.effective_total() == 0);
}

TEST_CASE("maui fairshare: decay 0.5 over 3 windows, worked by hand") {
    // FSDEPTH 3, FSDECAY 0.5: weights 1, 0.5, 0.25.
    //   user A: U = 8, 4, 16   -> 8 + (4*0.5 + 16*0.25) = 8 + 2 + 4 = 14
    //   user B: U = 8, 12, 16  -> 8 + (12*0.5 + 16*0.25) = 8 + 6 + 4 = 18
    //   total:  U = 16, 16, 32 -> 16 + (16*0.5 + 32*0.25) = 16 + 8 + 8 = 32
    //   A% = 14/32*100 = 43.75, B% = 18/32*100 = 56.25 (exact)
    fs_ledger l({100, 3, 0.5}, sizes_of(2));
    CHECK(l.weight(0) == 1.0);
    CHECK(l.weight(1) == 0.5);
    CHECK(l.weight(2) == 0.25);
    CHECK(l.weight(3) == 0.0); // past the depth
    const double a[3] = {8, 4, 16}, b[3] = {8, 12, 16}, tot[3] = {16, 16, 32};
    for (std::size_t w = 0; w < 3; ++w) {
        l.set_usage(cred_kind::user, 0, w, a[w]);
        l.set_usage(cred_kind::user, 1, w, b[w]);
        l.set_total(w, tot[w]);
    }
    CHECK(l.effective(cred_kind::user, 0) == 14.0);
    CHECK(l.effective(cred_kind::user, 1) == 18.0);
    CHECK(l.effective_total() == 32.0);
    tables t(2);
    CHECK(l.apply(t.spans()));
    CHECK(t.fs(cred_kind::user, 0) == 43.75);
    CHECK(t.fs(cred_kind::user, 1) == 56.25);

    // After one rotation the windows age: A = 0, 8, 4 (16 falls off) -> 0 + 4 + 1 = 5;
    // total = 0, 16, 16 -> 8 + 4 = 12.
    l.advance(0);
    l.advance(100);
    CHECK(l.effective(cred_kind::user, 0) == 5.0);
    CHECK(l.effective_total() == 12.0);
}

TEST_CASE("maui fairshare: FSDECAY 1 is the plain sum; depth clamps") {
    fs_ledger l({100, 3, 1.0}, sizes_of(1));
    l.set_usage(cred_kind::group, 0, 0, 1);
    l.set_usage(cred_kind::group, 0, 1, 2);
    l.set_usage(cred_kind::group, 0, 2, 4);
    CHECK(l.effective(cred_kind::group, 0) == 7.0);

    CHECK(fs_ledger({100, 0, 1.0}, sizes_of(1)).depth() == 1);  // the current window always exists
    CHECK(fs_ledger({100, 99, 1.0}, sizes_of(1)).depth() == 24); // MAX_MFSDEPTH
    CHECK(fs_ledger({0, 8, 1.0}, sizes_of(1)).interval() == 1);

    // Depth 1: only the current window counts, and any boundary clears it.
    fs_ledger one({100, 1, 0.5}, sizes_of(1));
    one.advance(0);
    one.charge(make_job(0, no_cred, no_cred, no_cred, no_cred), 9);
    CHECK(one.effective(cred_kind::user, 0) == 9);
    CHECK(one.advance(100) == 1);
    CHECK(one.effective(cred_kind::user, 0) == 0);
}

TEST_CASE("maui fairshare: percentages are of the delivered usage, not of the capacity") {
    // A 100-processor cluster; one 10-processor job runs 60 s alone: it is charged 600
    // proc-seconds of the 600 delivered, so its user has 100%, not 10% of the capacity.
    const resources cluster{100, 0, 0, 0};
    fs_ledger l({100, 8, 1.0}, sizes_of(1));
    const job j = make_job(0, 0, no_cred, no_cred, no_cred, 10);
    l.charge(j, fs_charge(fs_metric::dedicated_ps, j, cluster, 60));
    CHECK(l.effective_total() == 600);
    CHECK(l.percent(cred_kind::user, 0) == 100.0);
    CHECK(l.percent(cred_kind::group, 0) == 100.0);
    // The decayed total is the denominator too: total 600 in window 1 with decay 0.5 -> 300;
    // a second user charged 100 in the new window: effective total 100 + 300 = 400,
    // user 0: 300/400 = 75%, user 1: 100/400 = 25%.
    fs_ledger d({100, 8, 0.5}, sizes_of(2));
    d.advance(0);
    d.charge(j, 600);
    d.advance(100);
    d.charge(make_job(1, no_cred, no_cred, no_cred, no_cred), 100);
    CHECK(d.percent(cred_kind::user, 0) == 75.0);
    CHECK(d.percent(cred_kind::user, 1) == 25.0);
}

TEST_CASE("maui fairshare: each FSPOLICY metric") {
    // Doc example (seed 002): 25% of the processors and 50% of the memory of a 128-processor
    // system -> PE = max(25%, 50%) * 128 = 64.
    const resources cluster{128, 256000, 0, 0};
    job j = make_job(0, 0, 0, 0, 0, 32);
    j.mem_mb = 128000;
    CHECK(processor_equivalents(j, cluster) == 64.0);
    CHECK(fs_charge(fs_metric::dedicated_ps, j, cluster, 10) == 320.0);  // 32 procs * 10 s
    CHECK(fs_charge(fs_metric::dedicated_pes, j, cluster, 10) == 640.0); // 64 PE * 10 s
    CHECK(fs_charge(fs_metric::utilized_ps, j, cluster, 10, 2.5) == 25.0); // load 2.5 * 10 s
    CHECK(fs_charge(fs_metric::none, j, cluster, 10, 2.5) == 0.0);

    // Processors dominate: 64 of 128 procs, 10% of memory -> 128 * 0.5 = 64.
    job p = make_job(0, 0, 0, 0, 0, 64);
    p.mem_mb = 25600;
    CHECK(processor_equivalents(p, cluster) == 64.0);
    // Disk and swap count where configured: 1 proc, 3/4 of the disk -> 128 * 0.75 = 96;
    // 1/4 of the swap -> 128 * 0.25 = 32.
    const resources full{.procs = 128, .mem = 256000, .swap = 4096, .disk = 1024};
    job d = make_job(0, 0, 0, 0, 0, 1);
    d.disk_mb = 768;
    CHECK(processor_equivalents(d, full) == 96.0);
    job s = make_job(0, 0, 0, 0, 0, 1);
    s.swap_mb = 1024;
    CHECK(processor_equivalents(s, full) == 32.0);
    // A resource the cluster does not have (total 0) is skipped: the memory request of a
    // 2-proc job on a cluster without memory configured -> 128 * 2/128 = 2.
    job m = make_job(0, 0, 0, 0, 0, 2);
    m.mem_mb = 999999;
    CHECK(processor_equivalents(m, resources{128, 0, 0, 0}) == 2.0);
    // No processors configured: PE 0.
    CHECK(processor_equivalents(j, resources{0, 256000, 0, 0}) == 0.0);
}

TEST_CASE("maui fairshare: no_cred fields are skipped, the total is always charged") {
    fs_ledger l({100, 2, 1.0}, sizes_of(3));
    const job j = make_job(2, no_cred, 1, no_cred, no_cred);
    l.charge(j, 7);
    CHECK(l.usage(cred_kind::user, 2, 0) == 7);
    CHECK(l.usage(cred_kind::account, 1, 0) == 7);
    for (std::uint32_t i = 0; i < 3; ++i) {
        CHECK(l.usage(cred_kind::group, i, 0) == 0);
        CHECK(l.usage(cred_kind::qos, i, 0) == 0);
        CHECK(l.usage(cred_kind::job_class, i, 0) == 0);
    }
    CHECK(l.total(0) == 7);
    CHECK(l.usage(cred_kind::user, no_cred, 0) == 0);
    CHECK(l.effective(cred_kind::group, no_cred) == 0);

    // A kind with an empty table: jobs without that credential charge fine.
    fs_ledger e({100, 2, 1.0}, {2, 0, 0, 0, 0});
    e.charge(make_job(1, no_cred, no_cred, no_cred, no_cred), 4);
    CHECK(e.usage(cred_kind::user, 1, 0) == 4);
    CHECK(e.total(0) == 4);
    CHECK(e.percent(cred_kind::user, 1) == 100.0);
    CHECK(e.percent(cred_kind::user, 0) == 0.0);
}

TEST_CASE("maui fairshare: fs_active and apply with a zero total or policy NONE") {
    fs_ledger l({100, 4, 1.0}, sizes_of(2));
    options with_policy;
    with_policy.fs_policy = fs_metric::dedicated_ps;
    options no_policy; // FSPOLICY NONE, the code default
    CHECK(no_policy.fs_policy == fs_metric::none);

    // Zero total: inactive, every fs_usage written as 0 (stale values are overwritten).
    tables t(2);
    t.t[0][0].fs_usage = 33;
    CHECK_FALSE(l.apply(t.spans()));
    CHECK(t.fs(cred_kind::user, 0) == 0.0);
    CHECK_FALSE(fs_active(with_policy, l));
    CHECK_FALSE(fs_active(no_policy, l));

    // Positive total: active only with a policy.
    l.charge(make_job(0, 0, 0, 0, 0), 5);
    CHECK(l.apply(t.spans()));
    CHECK(t.fs(cred_kind::user, 0) == 100.0);
    CHECK(fs_active(with_policy, l));
    CHECK_FALSE(fs_active(no_policy, l));

    // Tables longer than the ledger's: the extra entries get 0.
    tables big(4);
    big.t[0][3].fs_usage = 12;
    CHECK(l.apply(big.spans()));
    CHECK(big.fs(cred_kind::user, 0) == 100.0);
    CHECK(big.fs(cred_kind::user, 3) == 0.0);
}

TEST_CASE("maui fairshare: loaded usage survives the first advance; clear") {
    // Files are loaded before the first advance; it only sets window 0's start.
    fs_ledger l({100, 3, 1.0}, sizes_of(1));
    l.set_usage(cred_kind::user, 0, 1, 5);
    l.set_total(1, 5);
    CHECK(l.advance(250) == 0);
    CHECK(l.window_start() == 200);
    CHECK(l.usage(cred_kind::user, 0, 1) == 5);
    l.clear();
    CHECK(l.effective_total() == 0);
    CHECK(l.window_start() == 200);
}
