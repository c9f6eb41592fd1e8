// slurm_side_by_side: mfprio against Slurm's own priority/multifactor code, on the same jobs
// and associations, in one process.
//
// The Slurm side is the plugin's source from the tree the build names (-Dslurm_source),
// compiled into this program and linked with that tree's libslurmfull (slurm_side.c); the
// mfprio side is the library, at -O2 and at -O3 (mfprio_side.cpp). Compared, each over the
// whole workload:
//   per-job call   Slurm's decay_apply_weighted_factors on every pending job (what the decay
//                  thread calls for each job) against mfprio's one-job call, `priority`;
//   batch -O2/-O3  the same Slurm loop against mfprio's batch, built at -O2 and at -O3;
//   Fair Tree      Slurm's Fair Tree walk of every association (fair_tree_decay's middle
//                  step) against mfprio's fair_tree, on one thread and on two;
//   classic        PriorityFlags=NO_FAIR_TREE: Slurm's walk of the accounts and every user's
//                  effective usage and factor, against mfprio's classic pass, on one thread
//                  and on two (Slurm's passes run on one).
// The jobs are bench/slurm_workload.hpp's (Slurm's seven weighted terms, three weighted TRES,
// site and nice); the associations are fairshare_trees.hpp's reference tree (10 accounts x 10
// sub-accounts x 999 users: 100,011), and each job's association is one of its users, so the
// jobs' fair-share factor is the Fair Tree pass's. Before anything is timed every result is
// compared: each job's priority, and each association's shares, effective usage, LevelFS and
// factor, bit for bit; one difference and the program prints it and stops (exit 1), timing
// nothing. Then rounds: in each, every comparison runs both sides, in alternating order from
// one round to the next, each side three times back to back keeping the fastest; the ratio
// is Slurm's time over mfprio's in that round. The table gives each ratio's median over the
// rounds with its smallest and largest, and the median times.
//
// Options: --jobs N (100,000), --users N (users per sub-account, 999), --rounds N (5).
// MFPRIO_BENCH_SMALL=1 (the test suite's smoke run): 2,000 jobs, 9 users, 2 rounds.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <unistd.h>
#include <vector>

#include <mfprio/core/result.hpp>
#include <mfprio/fairshare/columns.hpp>
#include <mfprio/fairshare/fair_tree.hpp>

#include "../fairshare_trees.hpp"
#include "../slurm_workload.hpp"
#include "mfprio_side.hpp"
#include "slurm_side.h"

namespace {

namespace fs = mfprio::fairshare;
using mfprio_bench::slurm_workload;

[[noreturn]] void stop(const std::string& what) {
    std::fprintf(stderr, "slurm_side_by_side: %s\n", what.c_str());
    std::exit(1);
}

struct run_options {
    std::size_t jobs = 100'000;
    std::size_t users = 999;
    int rounds = 5;
};

std::size_t count_arg(const char* name, const char* value) {
    char* end = nullptr;
    const unsigned long long v = value != nullptr ? std::strtoull(value, &end, 10) : 0;
    if (value == nullptr || *value == '\0' || *end != '\0' || v == 0 || v > 100'000'000ULL)
        stop(std::string(name) + " wants a positive whole number, got '" + (value != nullptr ? value : "") + "'");
    return static_cast<std::size_t>(v);
}

run_options parse(int argc, char** argv) {
    run_options o;
    if (mfprio_bench::small_run()) o = {2'000, 9, 2};
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
        if (a == "--jobs") o.jobs = count_arg("--jobs", v), ++i;
        else if (a == "--users") o.users = count_arg("--users", v), ++i;
        else if (a == "--rounds") o.rounds = static_cast<int>(std::min<std::size_t>(count_arg("--rounds", v), 1000)), ++i;
        else if (a == "-h" || a == "--help") {
            std::printf("usage: slurm_side_by_side [--jobs N] [--users N] [--rounds N]\n"
                        "  mfprio against Slurm's priority/multifactor code on the same jobs and associations;\n"
                        "  --users is the users per sub-account of the 10 x 10 reference tree.\n");
            std::exit(0);
        } else stop("unknown option '" + std::string(a) + "' (see --help)");
    }
    return o;
}

/// A slurm.conf for slurm_conf_init, in a directory of its own, removed at exit.
std::string write_conf() {
    char dir[] = "/tmp/mfprio-sbs-XXXXXX";
    if (mkdtemp(dir) == nullptr) stop("cannot create a directory under /tmp");
    static std::string path, where;
    where = dir;
    path = where + "/slurm.conf";
    std::FILE* f = std::fopen(path.c_str(), "w");
    if (f == nullptr) stop("cannot write " + path);
    std::fputs("ClusterName=sbs\nSlurmctldHost=localhost\nPriorityType=priority/multifactor\n"
               "NodeName=localhost CPUs=1\nPartitionName=bench Nodes=localhost Default=YES\n",
               f);
    std::fclose(f);
    std::atexit([] {
        std::remove(path.c_str());
        rmdir(where.c_str());
    });
    return path;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }
/// x87 extended precision: 10 significant bytes, the rest padding.
bool same_bits(long double a, long double b) { return std::memcmp(&a, &b, 10) == 0; }

std::string show(long double v) {
    char s[64];
    std::snprintf(s, sizeof s, "%.21Lg", v);
    return s;
}

/// The associations as Slurm's records want them (names kept alive by the tree).
std::vector<sbs_assoc> slurm_assocs(const fs::tree& t, const std::vector<std::uint32_t>& priority,
                                    const std::vector<double>& priority_norm) {
    std::vector<sbs_assoc> a(t.size());
    for (std::uint32_t i = 0; i < t.size(); ++i)
        a[i] = {.parent = i == 0 ? 0 : t.parent[i],
                .shares = t.shares_raw[i],
                .account = i == 0 ? "root" : t.account[i].c_str(),
                .user = t.is_user(i) ? t.user_name[i].c_str() : nullptr,
                .usage_raw = t.usage_raw[i],
                .priority = priority[i],
                .priority_norm = priority_norm[i]};
    return a;
}

/// Every association's results, Slurm's against mfprio's; stops at the first difference.
void check_assocs(const char* pass, const fs::tree& t, const fs::columns& c, bool fair_tree) {
    for (std::uint32_t i = 1; i < t.size(); ++i) {
        const char* what = nullptr;
        std::string slurm, mine;
        if (!same_bits(sbs_assoc_shares_norm(i), c.shares_norm[i])) {
            what = "shares_norm", slurm = show(sbs_assoc_shares_norm(i)), mine = show(c.shares_norm[i]);
        } else if (!same_bits(sbs_assoc_usage_efctv(i), c.usage_efctv[i])) {
            what = "usage_efctv", slurm = show(sbs_assoc_usage_efctv(i)), mine = show(c.usage_efctv[i]);
        } else if (fair_tree && !same_bits(sbs_assoc_level_fs(i), c.level_fs[i])) {
            what = "level_fs", slurm = show(sbs_assoc_level_fs(i)), mine = show(c.level_fs[i]);
        } else if ((fair_tree ? t.is_user(i) : true) && !same_bits(sbs_assoc_fs_factor(i), c.fs_factor[i])) {
            what = "fs_factor", slurm = show(sbs_assoc_fs_factor(i)), mine = show(c.fs_factor[i]);
        }
        if (what != nullptr)
            stop(std::string(pass) + ": association " + std::to_string(i) + " (" + t.account[i] +
                 (t.is_user(i) ? "/" + t.user_name[i] : std::string()) + "): " + what + " is " + slurm +
                 " in Slurm and " + mine + " in mfprio; nothing is timed");
    }
}

void check_jobs(const char* variant, std::span<const mfprio::priority_value> mine) {
    std::size_t computed = 0;
    for (std::size_t k = 0; k < mine.size(); ++k) {
        if (mine[k].value != sbs_job_priority(k))
            stop(std::string("jobs, ") + variant + ": job " + std::to_string(k + 1) + " has priority " +
                 std::to_string(sbs_job_priority(k)) + " in Slurm and " + std::to_string(mine[k].value) +
                 " in mfprio; nothing is timed");
        if (mine[k].status == mfprio::priority_status::computed) ++computed;
    }
    // A comparison of jobs that all floor to 1 would prove nothing.
    if (computed * 2 < mine.size()) stop(std::string("jobs, ") + variant + ": fewer than half are computed sums");
}

double seconds(const std::function<void()>& f) {
    const auto start = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// The fastest of three back-to-back runs.
double best_of_three(const std::function<void()>& f) {
    double best = seconds(f);
    for (int i = 0; i < 2; ++i) best = std::min(best, seconds(f));
    return best;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 != 0 ? v[m] : (v[m - 1] + v[m]) / 2;
}

struct comparison {
    const char* name;
    const char* unit;  ///< "job" or "assoc"
    std::size_t items; ///< per pass
    std::function<void()> slurm, mine;
    std::vector<double> slurm_s, mine_s, ratio;
};

void run_rounds(std::vector<comparison>& cs, int rounds) {
    for (int r = 0; r < rounds; ++r)
        for (auto& c : cs) {
            double s = 0, m = 0;
            if (r % 2 == 0) s = best_of_three(c.slurm), m = best_of_three(c.mine);
            else m = best_of_three(c.mine), s = best_of_three(c.slurm);
            c.slurm_s.push_back(s);
            c.mine_s.push_back(m);
            c.ratio.push_back(s / m);
        }
}

void print_row(const comparison& c) {
    const double n = static_cast<double>(c.items);
    const auto [lo, hi] = std::minmax_element(c.ratio.begin(), c.ratio.end());
    std::printf("  %-16s %10.1f ns/%-5s %9.2f ns/%-5s %8.1fx  (%.1f-%.1f)\n", c.name, median(c.slurm_s) / n * 1e9,
                c.unit, median(c.mine_s) / n * 1e9, c.unit, median(c.ratio), *lo, *hi);
}

} // namespace

int main(int argc, char** argv) {
    const run_options opt = parse(argc, argv);

    // The associations: the reference tree; the jobs' associations are its first users.
    const fs::tree t = mfprio_bench::make_tree({mfprio_bench::shape::ref, opt.users});
    std::vector<std::uint32_t> users;
    for (std::uint32_t i = 0; i < t.size(); ++i)
        if (t.is_user(i)) users.push_back(i);
    slurm_workload w(opt.jobs);
    const std::size_t used = std::min<std::size_t>(users.size(), slurm_workload::association_count);
    for (auto& j : w.jobs) j.association = static_cast<std::uint32_t>(j.association % used);
    std::vector<std::uint32_t> priority(t.size(), 0);
    std::vector<double> priority_norm(t.size(), 0.0);
    for (std::size_t a = 0; a < used; ++a) {
        priority[users[a]] = w.assoc_priority[a];
        priority_norm[users[a]] = w.assoc_priority_norm[a];
    }

    char err[256] = "";
    const sbs_weights weights{.age = mfprio_bench::bench_weights.age,
                              .assoc = mfprio_bench::bench_weights.assoc,
                              .fairshare = mfprio_bench::bench_weights.fairshare,
                              .job_size = mfprio_bench::bench_weights.job_size,
                              .partition = mfprio_bench::bench_weights.partition,
                              .qos = mfprio_bench::bench_weights.qos,
                              .max_age = mfprio_bench::bench_max_age,
                              .tres = mfprio_bench::bench_tres_weights};
    if (sbs_init(write_conf().c_str(), &weights, err, sizeof err) != 0) stop(err);
    // Slurm's TRES positions are mfprio's TRES ids (cpu 0, mem 1, node 3, gres/gpu 8).
    static constexpr const char* tres_names[] = {"cpu", "mem", "energy", "node", "billing",
                                                 "fs/disk", "vmem", "pages", "gres/gpu"};
    if (sbs_tres_count() != static_cast<int>(slurm_workload::tres_slots)) stop("Slurm has an unexpected TRES count");
    for (int i = 0; i < sbs_tres_count(); ++i)
        if (std::strcmp(sbs_tres_name(i), tres_names[i]) != 0)
            stop(std::string("Slurm's TRES position ") + std::to_string(i) + " is " + sbs_tres_name(i));

    const std::vector<sbs_assoc> assocs = slurm_assocs(t, priority, priority_norm);
    if (sbs_load_assocs(assocs.data(), assocs.size(), err, sizeof err) != 0) stop(err);

    // Fair Tree, checked; its factors are the jobs' fair-share.
    fs::columns ft, classic;
    fs::fair_tree_workspace ws;
    sbs_set_fair_tree(1);
    sbs_fair_tree_pass();
    sbs::o2::fair_tree(t, ft, ws, 1);
    check_assocs("Fair Tree", t, ft, true);
    sbs::o2::fair_tree(t, ft, ws, 2);
    check_assocs("Fair Tree, 2 threads", t, ft, true);
    for (std::size_t a = 0; a < used; ++a) w.fairshare[a] = ft.fs_factor[users[a]];

    // The jobs as slurmctld holds them, each priority checked against every mfprio variant.
    std::vector<sbs_partition> parts(w.partitions.size());
    for (std::size_t p = 0; p < parts.size(); ++p)
        parts[p] = {.priority_job_factor = w.partitions[p].priority_job_factor,
                    .max_time = w.partitions[p].max_time,
                    .norm_priority = w.partitions[p].norm_priority,
                    .tres_totals = &w.partition_tres[p * slurm_workload::tres_slots]};
    std::vector<sbs_qos> qos(w.qos.size());
    for (std::size_t q = 0; q < qos.size(); ++q) qos[q] = {.priority = w.qos[q].priority, .norm_priority = w.qos[q].norm_priority};
    std::vector<double> job_tres(opt.jobs * slurm_workload::tres_slots, 0.0);
    std::vector<sbs_job> jobs(opt.jobs);
    for (std::size_t k = 0; k < opt.jobs; ++k) {
        const mfprio::job& j = w.jobs[k];
        double* row = &job_tres[k * slurm_workload::tres_slots];
        for (std::size_t id = 0; id < slurm_workload::tres_slots; ++id) {
            const std::uint32_t col = w.request_columns == slurm_workload::tres_slots
                                          ? static_cast<std::uint32_t>(id)
                                          : slurm_workload::compact_columns[id];
            if (col != slurm_workload::none) row[id] = w.tres_pool[std::size_t{j.tres_row} * w.request_columns + col];
        }
        jobs[k] = {.id = j.id,
                   .association = users[j.association],
                   .partition = j.partition,
                   .qos = j.qos,
                   .accrue_time = j.accrue_time,
                   .min_nodes = j.min_nodes,
                   .cpus = j.cpus,
                   .time_limit = j.time_limit,
                   .nice = j.nice,
                   .site_factor = j.site_factor,
                   .tres = row};
    }
    if (sbs_load_jobs(jobs.data(), jobs.size(), parts.data(), parts.size(), qos.data(), qos.size(), w.ctx.node_count,
                      w.ctx.cluster_cpus, err, sizeof err) != 0)
        stop(err);
    sbs_apply_weighted_factors(slurm_workload::now);
    std::vector<mfprio::priority_value> out(opt.jobs);
    sbs::o2::one_job(w, out);
    check_jobs("one-job call", out);
    sbs::o2::batch(w, out);
    check_jobs("batch -O2", out);
    sbs::o3::batch(w, out);
    check_jobs("batch -O3", out);

    // Classic, checked.
    sbs_set_fair_tree(0);
    sbs_classic_pass();
    sbs::o2::classic(t, classic, 1);
    check_assocs("classic", t, classic, false);
    sbs::o2::classic(t, classic, 2);
    check_assocs("classic, 2 threads", t, classic, false);

    std::printf("slurm_side_by_side: Slurm %s's priority/multifactor against mfprio, %zu jobs, %zu associations\n"
                "every priority and every association's result identical to the bit; %d rounds\n\n",
                sbs_slurm_version(), opt.jobs, t.size(), opt.rounds);

    // Timed: the jobs and Fair Tree under PriorityFlags=FAIR_TREE, then classic.
    sbs_set_fair_tree(1);
    sbs_fair_tree_pass();
    const auto jobs_slurm = [] { sbs_apply_weighted_factors(slurm_workload::now); };
    std::vector<comparison> fair_tree_mode = {
        {"per-job call", "job", opt.jobs, jobs_slurm, [&] { sbs::o2::one_job(w, out); }, {}, {}, {}},
        {"batch -O2", "job", opt.jobs, jobs_slurm, [&] { sbs::o2::batch(w, out); }, {}, {}, {}},
        {"batch -O3", "job", opt.jobs, jobs_slurm, [&] { sbs::o3::batch(w, out); }, {}, {}, {}},
        {"Fair Tree", "assoc", t.size(), [] { sbs_fair_tree_pass(); }, [&] { sbs::o2::fair_tree(t, ft, ws, 1); }, {}, {}, {}},
        {"  2 threads", "assoc", t.size(), [] { sbs_fair_tree_pass(); }, [&] { sbs::o2::fair_tree(t, ft, ws, 2); }, {}, {}, {}},
    };
    run_rounds(fair_tree_mode, opt.rounds);
    sbs_set_fair_tree(0);
    std::vector<comparison> classic_mode = {
        {"classic", "assoc", t.size(), [] { sbs_classic_pass(); }, [&] { sbs::o2::classic(t, classic, 1); }, {}, {}, {}},
        {"  2 threads", "assoc", t.size(), [] { sbs_classic_pass(); }, [&] { sbs::o2::classic(t, classic, 2); }, {}, {}, {}},
    };
    run_rounds(classic_mode, opt.rounds);

    std::printf("  %-16s %16s %17s %9s  %s\n", "", "Slurm", "mfprio", "ratio", "(min-max)");
    for (const auto& c : fair_tree_mode) print_row(c);
    for (const auto& c : classic_mode) print_row(c);
    std::printf("\nratio: Slurm's time over mfprio's in the same round, median over the rounds; times: medians\n");
    return 0;
}
