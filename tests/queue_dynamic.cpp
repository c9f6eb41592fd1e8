// Tests for mfprio/queue/dynamic.hpp and queue/builtin.hpp: a factor registered from user code
// and named in a policy; the dynamic engine against the compile-time engine on the same factors,
// weights and order (the same bits from score, priority, explain and batch, for Slurm's, Flux's
// and Maui's factors); the registry's rules; the adapter's block path.
#include <mfprio/queue/builtin.hpp>
#include <mfprio/queue/dynamic.hpp>
#include <mfprio/queue/pending.hpp>
#include <mfprio/queue/policy.hpp>

#include <mfprio/core/engine.hpp>
#include <mfprio/core/result.hpp>
#include <mfprio/core/term.hpp>
#include <mfprio/core/weight.hpp>
#include <mfprio/flux/context.hpp>
#include <mfprio/flux/factors.hpp>
#include <mfprio/flux/job.hpp>
#include <mfprio/flux/presets.hpp>
#include <mfprio/flux/result.hpp>
#include <mfprio/maui/priority.hpp>
#include <mfprio/slurm/multifactor.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <doctest/doctest.h>

namespace q = mfprio::queue;
namespace flux = mfprio::flux;
namespace slurm = mfprio::slurm;

namespace {

bool same_bits(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

constexpr std::int64_t now = 1'700'000'000;

/// A Flux cluster with every table the factors read, and random jobs over it (some with
/// indices past the tables).
struct flux_world {
    std::vector<slurm::partition_info> partitions;
    std::vector<slurm::qos_info> qos;
    std::vector<double> fairshare;
    std::vector<std::uint32_t> assoc_priority;
    std::vector<double> assoc_norm;
    std::vector<std::int64_t> queue_priority{0, 5, 100, -3};
    std::vector<double> bank_priority{0.0, 3.5, -1.25};
    flux::context c{};
    std::vector<flux::job> jobs;

    explicit flux_world(std::uint64_t seed, std::size_t count = 600) {
        std::mt19937_64 rng(seed);
        auto pick = [&](std::uint64_t n) { return static_cast<std::uint32_t>(rng() % n); };
        partitions = {{1, 1.0 / 3.0, 1, 60, {}}, {3, 1.0, 2, 1440, {}}, {0, 0.0, 1, mfprio::infinite32, {}}};
        qos = {{0, 0.0, 1.0}, {700, 0.7, 1.0}, {1000, 1.0, 1.0}};
        for (int a = 0; a < 20; ++a) {
            fairshare.push_back(static_cast<double>(pick(1'000'001)) / 1e6);
            assoc_priority.push_back(pick(50));
            assoc_norm.push_back(static_cast<double>(assoc_priority.back()) / 49.0);
        }
        c.now = now;
        c.node_count = 100;
        c.cluster_cpus = 4800;
        c.partitions = partitions;
        c.qos = qos;
        c.fairshare = fairshare;
        c.assoc_priority = assoc_priority;
        c.assoc_priority_norm = assoc_norm;
        c.queue_priority = queue_priority;
        c.bank_priority = bank_priority;
        for (std::size_t i = 0; i < count; ++i) {
            flux::job j;
            j.id = static_cast<std::uint32_t>(i + 1);
            j.association = pick(23);
            j.submit_time = now - pick(900'000);
            j.accrue_time = pick(8) == 0 ? 0 : j.submit_time + pick(100);
            j.min_nodes = 1 + pick(120);
            j.cpus = pick(16) == 0 ? 0 : 1 + pick(6000);
            j.time_limit = pick(4) == 0 ? mfprio::no_val32 : pick(3000);
            j.nice = static_cast<std::int32_t>(pick(201)) - 100;
            j.site_factor = pick(3) == 0 ? static_cast<std::int32_t>(pick(1000)) : 0;
            j.partition = static_cast<std::uint16_t>(pick(4));
            j.qos = static_cast<std::uint16_t>(pick(4));
            j.queue = pick(6) == 0 ? flux::no_index : pick(5);
            j.bank = pick(6) == 0 ? flux::no_index : pick(4);
            j.submit_seq = i * 7 + pick(7);
            j.urgency = static_cast<std::uint8_t>(pick(32));
            jobs.push_back(j);
        }
    }
};

/// Checks that `d` (dynamic) and `e` (compile-time) agree bit for bit on every job of `jobs`,
/// one job at a time and in batches of several sizes.
template <class D, class E, class J, class Ctx>
void check_same(const D& d, const E& e, const std::vector<J>& jobs, const Ctx& c) {
    using out_t = typename E::output_type;
    static_assert(std::is_same_v<out_t, typename D::output_type>);
    REQUIRE(d.size() == E::term_count);
    for (std::size_t k = 0; k < E::term_count; ++k) CHECK(d.names()[k] == E::names[k]);
    for (const auto& j : jobs) {
        INFO("job ", j.id);
        CHECK(same_bits(d.score(j, c), e.score(j, c)));
        CHECK(d.priority(j, c) == e.priority(j, c));
        const auto xd = d.explain(j, c);
        const auto xe = e.explain(j, c);
        REQUIRE(xd.terms.size() == xe.terms.size());
        for (std::size_t k = 0; k < xe.terms.size(); ++k) {
            CHECK(xd.terms[k].name == xe.terms[k].name);
            CHECK(same_bits(xd.terms[k].factor, xe.terms[k].factor));
            CHECK(same_bits(xd.terms[k].weight, xe.terms[k].weight));
            CHECK(same_bits(xd.terms[k].contribution, xe.terms[k].contribution));
        }
        CHECK(same_bits(xd.score, xe.score));
        CHECK(xd.priority == xe.priority);
    }
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{31}, std::size_t{32}, std::size_t{33},
                                std::size_t{64}, std::size_t{255}, std::size_t{256}, std::size_t{257},
                                std::size_t{300}, jobs.size()}) {
        if (n > jobs.size()) continue;
        INFO("batch of ", n);
        const std::span<const J> some(jobs.data(), n);
        std::vector<out_t> od(n), oe(n);
        std::vector<double> sd(n), se(n);
        d.batch(some, c, std::span<out_t>(od));
        e.batch(some, c, std::span<out_t>(oe));
        d.batch_scores(some, c, std::span<double>(sd));
        e.batch_scores(some, c, std::span<double>(se));
        std::size_t priorities_differ = 0, scores_differ = 0;
        for (std::size_t i = 0; i < n; ++i) {
            priorities_differ += od[i] == oe[i] && od[i] == d.priority(jobs[i], c) ? 0 : 1;
            scores_differ += same_bits(sd[i], se[i]) && same_bits(sd[i], d.score(jobs[i], c)) ? 0 : 1;
        }
        CHECK(priorities_differ == 0);
        CHECK(scores_differ == 0);
    }
}

// ---- user factors (the library knows nothing of them)

/// A scheduler's own job type: a Flux job plus the GPU hours it asks for.
struct gpu_job : flux::job {
    double gpu_hours = 0;
};

/// GPU hours over a configurable cap, at most 1.
struct gpu_hours_factor {
    static constexpr std::string_view name = "gpu_hours";
    double cap = 100;
    double operator()(const gpu_job& j, const flux::context&) const noexcept { return std::min(j.gpu_hours / cap, 1.0); }
};

/// The number of CPUs a Flux job asks for (reads a field of `flux::job`).
struct cores_factor {
    static constexpr std::string_view name = "cores";
    template <class J>
    double operator()(const J& j, const flux::context&) const noexcept {
        return static_cast<double>(j.cpus);
    }
};

/// `cores_factor` saying what it reads of a job: bits a scheduler gives meaning to.
struct cores_factor_reads : cores_factor {
    static constexpr std::uint32_t reads = 4;
};

/// A factor written directly against the virtual interface, with no compile-time policy.
struct half_urgency final : q::dynamic_factor<flux::job, flux::context> {
    std::string_view name() const noexcept override { return "half_urgency"; }
    double evaluate(const flux::job& j, const flux::context&) const noexcept override { return j.urgency / 2.0; }
};

} // namespace

TEST_CASE("queue: a factor registered from user code, for the user's own job type, named in a policy file") {
    // The scheduler builds a registry for its job type from the library's factor sets and its
    // own factor, with an option read by its factory; the library is unchanged.
    q::registry<gpu_job, flux::context> reg;
    REQUIRE(q::add_slurm_factors(reg));
    REQUIRE(q::add_flux_factors(reg));
    REQUIRE(reg.add_configured<gpu_hours_factor>("gpu_hours", {"cap"},
                                                 [](const q::factor_options& o) -> mfprio::expected<gpu_hours_factor> {
                                                     auto cap = o.number("cap", 100);
                                                     if (!cap) return cap.error();
                                                     if (!(*cap > 0)) return q::factor_options::error("cap", "must be positive");
                                                     return gpu_hours_factor{*cap};
                                                 }));
    REQUIRE(reg.add_preset("flux-accounting", std::string(q::flux_accounting_preset)));

    const std::string_view text = "preset = flux-accounting\n"
                                  "gpu_hours = -5000   # heavy GPU jobs wait\n"
                                  "gpu_hours.cap = 50\n"
                                  "urgency = 1\n";
    auto e = q::load_policy(text, reg, flux::flux_result{}, "gpu.policy");
    REQUIRE_MESSAGE(e.has_value(), (e ? std::string() : e.error().to_string()));
    CHECK(e->names() == std::vector<std::string_view>{"fairshare", "queue", "bank", "urgency", "gpu_hours"});

    std::vector<double> fs{0.5};
    std::vector<std::int64_t> queues{0, 2};
    flux::context c{};
    c.fairshare = fs;
    c.queue_priority = queues;
    gpu_job j;
    j.association = 0;
    j.queue = 1;
    j.urgency = 20;
    j.gpu_hours = 25;
    // By hand: fair-share 0.5 x 100000 = 50000; queue 2 x 10000 = 20000; bank weight 0; urgency
    // (20 - 16) x 1 = 4; GPU hours 25 / 50 = 0.5 x -5000 = -2500. Sum 67504, rounded 67504.
    CHECK(e->score(j, c) == 67504.0);
    CHECK(e->priority(j, c) == flux::priority_value{67504, flux::priority_status::computed});
    const auto x = e->explain(j, c);
    REQUIRE(x.terms.size() == 5);
    CHECK(x.terms[4].name == "gpu_hours");
    CHECK(x.terms[4].factor == 0.5);
    CHECK(x.terms[4].weight == -5000.0);
    CHECK(x.terms[4].contribution == -2500.0);
    CHECK(x.terms[2].factor == 0.0); // bank: weight 0, not evaluated
    j.gpu_hours = 500;                // capped at 1: -5000
    CHECK(e->priority(j, c).value == 50000 + 20000 + 4 - 5000);

    // The factory's own check, reported at the option's line.
    auto bad = q::load_policy("gpu_hours = 1\ngpu_hours.cap = -3\n", reg, flux::flux_result{}, "gpu.policy");
    REQUIRE_FALSE(bad.has_value());
    CHECK(bad.error().file == "gpu.policy");
    CHECK(bad.error().line == 2);
    CHECK(bad.error().column == 17);
    CHECK(bad.error().key == "gpu_hours.cap");
    CHECK(bad.error().message == "must be positive");
}

TEST_CASE("queue: user factors added to the built-in registry, next to its aliases and presets") {
    auto reg = q::builtin_registry();
    REQUIRE(reg.add<cores_factor>("cores"));
    REQUIRE(reg.add("half_urgency", [](const q::factor_options&) -> mfprio::expected<q::flux_registry::factor_ptr> {
        return q::flux_registry::factor_ptr(std::make_unique<half_urgency>());
    }));
    auto e = q::load_policy("wait_time = 100\nwait_time.max_age = 60\ncores = 2\nhalf_urgency = 10\n", reg,
                            flux::flux_result{});
    REQUIRE_MESSAGE(e.has_value(), (e ? std::string() : e.error().to_string()));
    CHECK(e->names() == std::vector<std::string_view>{"wait_time", "cores", "half_urgency"});
    flux::context c{};
    c.now = now;
    flux::job j;
    j.accrue_time = now - 1800; // half of max_age = 60 minutes
    j.cpus = 8;
    j.urgency = 17;
    // 0.5 x 100 + 8 x 2 + 8.5 x 10 = 50 + 16 + 85 = 151.
    CHECK(e->score(j, c) == 151.0);
    CHECK(e->priority(j, c).value == 151);
    std::vector<flux::job> jobs(100, j);
    std::vector<flux::priority_value> out(jobs.size());
    e->batch(std::span<const flux::job>(jobs), c, std::span<flux::priority_value>(out));
    CHECK(std::all_of(out.begin(), out.end(), [](const flux::priority_value& p) { return p.value == 151; }));
}

TEST_CASE("queue: the dynamic engine equals the compile-time engine on Slurm's and Flux's factors") {
    const std::string_view text = "age = 1000\n"
                                  "age.max_age = 2-0\n"
                                  "assoc = 500\n"
                                  "assoc.normalize = no\n"
                                  "fairshare = 100000\n"
                                  "jobsize = 2000\n"
                                  "jobsize.favor_small = yes\n"
                                  "partition = 3000\n"
                                  "qos = 10000\n"
                                  "queue = 10000\n"
                                  "bank = -7\n"
                                  "urgency = 0.25\n"
                                  "fcfs = 0\n"
                                  "site = 1\n"
                                  "nice = 1\n";
    using rw = mfprio::runtime_weight<std::int64_t>;
    using mfprio::term;
    const auto terms = [](auto result) {
        return mfprio::make_engine(result, term<slurm::age_factor, rw>{{172800}, {1000}},
                                   term<slurm::association_factor, rw>{{false}, {500}},
                                   term<slurm::fairshare_factor, rw>{{}, {100000}},
                                   term<slurm::job_size_factor, rw>{{true, false}, {2000}},
                                   term<slurm::partition_factor, rw>{{}, {3000}}, term<slurm::qos_factor, rw>{{}, {10000}},
                                   term<flux::queue_factor, rw>{{}, {10000}}, term<flux::bank_factor, rw>{{}, {-7}},
                                   term<flux::urgency_factor, mfprio::runtime_weight<double>>{{}, {0.25}},
                                   term<flux::fcfs_factor, rw>{{}, {0}}, term<slurm::site_factor, rw>{{}, {1}},
                                   term<slurm::nice_factor, mfprio::fixed_weight<1u>>{});
    };
    const auto reg = q::builtin_registry();
    for (const std::uint64_t seed : {1u, 2u, 3u}) {
        const flux_world w(seed);
        SUBCASE("flux_result") {
            auto d = q::load_policy(text, reg, flux::flux_result{});
            REQUIRE(d.has_value());
            check_same(*d, terms(flux::flux_result{}), w.jobs, w.c);
        }
        SUBCASE("slurm_result") {
            auto d = q::load_policy(text, reg, mfprio::slurm_result{});
            REQUIRE(d.has_value());
            check_same(*d, terms(mfprio::slurm_result{}), w.jobs, w.c);
        }
        SUBCASE("raw_result") {
            auto d = q::load_policy(text, reg, mfprio::raw_result{});
            REQUIRE(d.has_value());
            check_same(*d, terms(mfprio::raw_result{}), w.jobs, w.c);
        }
    }
}

TEST_CASE("queue: the built-in presets equal Flux's compile-time presets") {
    const flux_world w(9);
    {
        auto d = q::builtin_preset("flux-accounting");
        REQUIRE(d.has_value());
        check_same(*d, flux::make_flux_accounting_engine(), w.jobs, w.c);
        auto unclamped = q::builtin_preset("flux-accounting", flux::flux_result{false});
        REQUIRE(unclamped.has_value());
        check_same(*unclamped, flux::make_flux_accounting_engine({}, flux::flux_result{false}), w.jobs, w.c);
    }
    {
        auto d = q::builtin_preset("fcfs");
        REQUIRE(d.has_value());
        check_same(*d, flux::make_fcfs_engine(), w.jobs, w.c);
    }
    {
        // flux-core's engine never adds its term (its result is the urgency); under flux_result
        // the urgency weighted 1 and rounded is the same priority for every urgency 0..31.
        auto d = q::builtin_preset("flux-core");
        REQUIRE(d.has_value());
        const auto e = flux::make_flux_core_engine();
        for (const auto& j : w.jobs) {
            CHECK(d->priority(j, w.c) == e.priority(j, w.c));
            CHECK(same_bits(d->score(j, w.c), e.score(j, w.c)));
        }
        flux::job j;
        for (std::uint8_t u = 0; u <= 31; ++u) {
            j.urgency = u;
            CHECK(d->priority(j, w.c) == e.priority(j, w.c));
        }
    }
}

TEST_CASE("queue: Slurm's registry equals Slurm's multifactor engine") {
    // Slurm's engine also adds the TRES term (weight 1; 0 without PriorityWeightTRES) after the
    // QOS term; adding +0.0 changes no sum, so the dynamic engine without it gives the same bits.
    slurm::weights wt{1000, 250, 100000, 2000, 3000, 10000};
    slurm::settings st;
    st.max_age = 86400;
    st.favor_small = true;
    st.flags.set(slurm::priority_flag::no_normal_part);
    const auto e = slurm::make_multifactor(wt, st);
    const std::string_view text = "age = 1000\nage.max_age = 1-0\nassoc = 250\nfairshare = 100000\n"
                                  "jobsize = 2000\njobsize.favor_small = yes\npartition = 3000\n"
                                  "partition.normalize = no\nqos = 10000\nsite = 1\nnice = 1\n";
    auto d = q::load_policy(text, q::slurm_registry(), mfprio::slurm_result{});
    REQUIRE_MESSAGE(d.has_value(), (d ? std::string() : d.error().to_string()));
    const flux_world w(5);
    std::vector<mfprio::job> jobs(w.jobs.begin(), w.jobs.end());
    const slurm::context& c = w.c;
    for (const auto& j : jobs) {
        INFO("job ", j.id);
        CHECK(same_bits(d->score(j, c), e.score(j, c)));
        CHECK(d->priority(j, c) == e.priority(j, c));
    }
    std::vector<mfprio::priority_value> od(jobs.size()), oe(jobs.size());
    d->batch(std::span<const mfprio::job>(jobs), c, std::span<mfprio::priority_value>(od));
    e.batch(std::span<const mfprio::job>(jobs), c, std::span<mfprio::priority_value>(oe));
    CHECK(od == oe);
}

namespace {

constexpr std::int64_t maui_now = 1'800'000'000;

struct maui_world {
    std::vector<mfprio::maui::credential> tables[mfprio::maui::cred_kind_count];
    std::vector<std::uint32_t> uprocs, ujobs;
    mfprio::maui::context c{};
    std::vector<mfprio::maui::job> jobs;

    explicit maui_world(std::uint64_t seed) {
        using namespace mfprio::maui;
        std::mt19937_64 rng(seed);
        auto pick = [&](std::uint64_t n) { return static_cast<std::uint32_t>(rng() % n); };
        for (auto& t : tables)
            for (int i = 0; i < 5; ++i) {
                credential cr;
                cr.priority = static_cast<std::int64_t>(pick(2001)) - 1000;
                cr.target = {static_cast<double>(pick(101)), pick(2) == 0 ? fs_target_mode::target : fs_target_mode::floor};
                cr.fs_usage = static_cast<double>(pick(10001)) / 100.0;
                cr.qt_weight = static_cast<std::int64_t>(pick(100));
                cr.xf_weight = static_cast<std::int64_t>(pick(100)) - 50;
                t.push_back(cr);
            }
        for (int i = 0; i < 5; ++i) {
            uprocs.push_back(pick(500));
            ujobs.push_back(pick(20));
        }
        c.now = maui_now;
        for (std::size_t k = 0; k < cred_kind_count; ++k) c.creds[k] = tables[k];
        c.fs_active = true;
        c.cluster = resources{1024, 4'096'000, 100'000, 0};
        c.user_active_procs = uprocs;
        c.user_active_jobs = ujobs;
        auto cred = [&] { return pick(10) == 0 ? no_cred : pick(6); };
        for (std::uint32_t i = 0; i < 300; ++i) {
            mfprio::maui::job j;
            j.id = i + 1;
            j.user = cred();
            j.group = cred();
            j.account = cred();
            j.qos = cred();
            j.job_class = cred();
            j.submit_time = maui_now - static_cast<std::int64_t>(pick(14 * 86400));
            j.wclimit = pick(3 * 86400);
            j.procs = 1 + pick(2048);
            j.nodes = 1 + pick(64);
            j.mem_mb = pick(200'000);
            j.bypass = pick(30);
            j.spviolation = pick(5) == 0;
            jobs.push_back(j);
        }
    }
};

} // namespace

TEST_CASE("queue: a Maui registry: the same machinery for Maui's jobs, context and components") {
    using namespace mfprio::maui;
    const auto reg = q::maui_registry();
    const maui_world w(3);
    SUBCASE("the preset is Maui 3.3's defaults") {
        auto d = q::load_preset("maui", reg, maui_result{});
        REQUIRE(d.has_value());
        CHECK(d->names() == std::vector<std::string_view>{"Serv", "Targ", "Cred", "Attr", "FS", "Res", "Usage"});
        const auto e = make_maui_engine(weights{});
        for (const auto& j : w.jobs) {
            CHECK(same_bits(d->score(j, w.c), e.score(j, w.c)));
            CHECK(d->priority(j, w.c) == e.priority(j, w.c));
        }
    }
    SUBCASE("random weights, caps and cap styles, written as policy text") {
        std::mt19937_64 rng(17);
        for (int round = 0; round < 8; ++round) {
            weights wt;
            for (auto& x : wt.component_weight) x = static_cast<std::int64_t>(rng() % 21) - 5;
            for (auto& x : wt.sub_weight) x = rng() % 3 == 0 ? 0 : static_cast<std::int64_t>(rng() % 201) - 100;
            for (auto& x : wt.component_cap) x = rng() % 2 == 0 ? 0.0 : static_cast<double>(rng() % 100000);
            for (auto& x : wt.sub_cap) x = rng() % 3 == 0 ? static_cast<double>(rng() % 1000) : 0.0;
            options o;
            o.caps = round % 2 == 0 ? cap_style::upper : cap_style::symmetric;
            o.enable_negative = round % 3 == 0;
            o.usage_in_start_priority = round % 4 == 0;
            o.res_user_terms = true; // a policy's res.uproc / res.ujob weights apply as written
            std::string text = "# generated\n";
            for (std::size_t k = 0; k < component_count; ++k) {
                const std::string name = mfprio::text::to_lower(components[k].name);
                const std::int64_t cw =
                    k == index(component_id::usage) && !o.usage_in_start_priority ? 0 : wt.component_weight[k];
                text += name + " = " + std::to_string(cw) + "\n";
                text += name + ".cap = " + std::to_string(static_cast<std::int64_t>(wt.component_cap[k])) + "\n";
                text += name + ".cap_style = " + (o.caps == cap_style::upper ? "upper" : "symmetric") + "\n";
                const std::size_t first = index(components[k].first);
                for (std::size_t s = first; s < first + components[k].count; ++s) {
                    const std::string sub = mfprio::text::to_lower(subcomponents[s].name);
                    text += name + "." + sub + " = " + std::to_string(wt.sub_weight[s]) + "\n";
                    text += name + "." + sub + "_cap = " + std::to_string(static_cast<std::int64_t>(wt.sub_cap[s])) + "\n";
                }
            }
            auto d = q::load_policy(text, reg, maui_result::from(o), "maui.policy");
            REQUIRE_MESSAGE(d.has_value(), (d ? std::string() : d.error().to_string()));
            const auto e = make_maui_engine(wt, o);
            maui_world ww(40 + static_cast<std::uint64_t>(round));
            ww.c.opts = o;
            INFO("round ", round);
            check_same(*d, e, ww.jobs, ww.c);
        }
    }
    SUBCASE("options are checked by the component factories") {
        auto bad = q::load_policy("serv = 1\nserv.cap_style = sideways\n", reg, maui_result{}, "m");
        REQUIRE_FALSE(bad.has_value());
        CHECK(bad.error().line == 2);
        CHECK(bad.error().key == "serv.cap_style");
        auto not_whole = q::load_policy("cred = 1\ncred.user = 1.5\n", reg, maui_result{}, "m");
        REQUIRE_FALSE(not_whole.has_value());
        CHECK(not_whole.error().key == "cred.user");
        CHECK(not_whole.error().column == 13);
        auto other = q::load_policy("cred = 1\ncred.queuetime = 1\n", reg, maui_result{}, "m");
        REQUIRE_FALSE(other.has_value());
        CHECK(other.error().message.find("unknown option 'queuetime' of factor 'Cred'") == 0);
    }
}

TEST_CASE("queue: the registry: names, aliases, presets, case") {
    q::registry<flux::job, flux::context> reg;
    CHECK(reg.add<flux::fcfs_factor>("fcfs"));
    CHECK_FALSE(reg.add<flux::fcfs_factor>("fcfs"));   // taken
    CHECK_FALSE(reg.add<flux::queue_factor>("FCFS"));  // taken, in any case
    CHECK_FALSE(reg.add<flux::queue_factor>("preset")); // the preset key
    CHECK_FALSE(reg.add<flux::queue_factor>("Preset"));
    CHECK_FALSE(reg.add<flux::queue_factor>(""));
    CHECK_FALSE(reg.add<flux::queue_factor>("1queue"));
    CHECK_FALSE(reg.add<flux::queue_factor>("queue.x"));
    CHECK_FALSE(reg.add<flux::queue_factor>("a queue"));
    CHECK_FALSE(reg.add("empty", q::flux_registry::factory{}));
    CHECK(reg.add<flux::queue_factor>("Queue-Prio_2"));
    CHECK(reg.alias("first_come", "fcfs"));
    CHECK(reg.alias("fc2", "FIRST_COME")); // an alias of an alias: the factor
    CHECK_FALSE(reg.alias("fcfs", "queue-prio_2")); // taken by a factor
    CHECK_FALSE(reg.alias("first_come", "fcfs"));   // taken by an alias
    CHECK_FALSE(reg.alias("nothing", "missing"));   // no such factor
    CHECK(reg.add_preset("p", "fcfs = 1\n"));
    CHECK_FALSE(reg.add_preset("P", "fcfs = 2\n"));
    CHECK_FALSE(reg.add_preset("bad name", "fcfs = 2\n"));
    CHECK(reg.add_preset("fcfs", "fcfs = 2\n")); // presets have their own names

    const auto r = reg.resolve("FC2");
    REQUIRE(r);
    CHECK(r.factor->name == "fcfs");
    CHECK(r.name == "fc2");
    CHECK(reg.find("queue-PRIO_2") != nullptr);
    CHECK(reg.find("missing") == nullptr);
    CHECK(reg.find_preset("P") != nullptr);
    CHECK(reg.known_names() == "fcfs, Queue-Prio_2, first_come, fc2");
    CHECK(reg.known_presets() == "p, fcfs");
    CHECK(reg.factors().size() == 2);

    auto made = reg.make("first_come");
    REQUIRE(made.has_value());
    CHECK((*made)->name() == "fcfs");
    q::factor_options opts;
    opts.set("x", "1");
    auto refused = reg.make("fcfs", opts);
    REQUIRE_FALSE(refused.has_value());
    CHECK(refused.error().key == "x");
    CHECK(refused.error().message == "unknown option 'x' of factor 'fcfs' (it takes none)");
    CHECK_FALSE(reg.make("nope").has_value());
}

TEST_CASE("queue: the registry keeps what a factor reads of a job") {
    q::registry<flux::job, flux::context> reg;
    using R = q::registry<flux::job, flux::context>;
    REQUIRE(reg.add<cores_factor_reads>("cores"));
    REQUIRE(reg.add_configured<cores_factor_reads>("cores2", {}, [](const q::factor_options&) -> mfprio::expected<cores_factor_reads> {
        return cores_factor_reads{};
    }));
    REQUIRE(reg.add<cores_factor>("plain"));
    REQUIRE(reg.add("made", R::factory([](const q::factor_options&) -> mfprio::expected<R::factor_ptr> {
        return R::factor_ptr(std::make_unique<q::factor_adapter<cores_factor, flux::job, flux::context>>());
    }), {}, 9));
    REQUIRE(reg.alias("cpus", "cores"));
    CHECK(reg.find("cores")->reads == 4);
    CHECK(reg.find("CPUS")->reads == 4); // an alias: its factor's
    CHECK(reg.find("cores2")->reads == 4);
    CHECK(reg.find("plain")->reads == R::reads_everything); // says nothing: reads everything
    CHECK(reg.find("made")->reads == 9);
}

TEST_CASE("queue: the built-in registry's names") {
    const auto reg = q::builtin_registry();
    for (const std::string_view name : {"age", "assoc", "fairshare", "jobsize", "partition", "qos", "site", "nice",
                                        "queue", "bank", "urgency", "flux_urgency", "fcfs"}) {
        INFO(name);
        const auto r = reg.resolve(name);
        REQUIRE(r);
        CHECK(r.factor->name == name);
        auto f = reg.make(name);
        REQUIRE(f.has_value());
    }
    CHECK(reg.resolve("wait_time").factor->name == "age");
    CHECK(reg.resolve("fair_share").factor->name == "fairshare");
    CHECK(reg.resolve("job_size").factor->name == "jobsize");
    CHECK(reg.resolve("user").factor->name == "urgency");
    CHECK(reg.find("tres") == nullptr);
    CHECK(reg.find_preset("fcfs") != nullptr);
    CHECK(reg.find_preset("flux-core") != nullptr);
    CHECK(reg.find_preset("flux-accounting") != nullptr);
    // The compile-time factors' names are the registered ones (so explain agrees).
    CHECK((*reg.make("fcfs"))->name() == flux::fcfs_factor::name);
    CHECK((*reg.make("flux_urgency"))->name() == flux::urgency_value::name);
    CHECK((*reg.make("jobsize"))->name() == slurm::job_size_factor::name);
}

TEST_CASE("queue: the adapter's block path gives the call operator's bits for any length") {
    const flux_world w(21, 200);
    const auto reg = q::builtin_registry();
    for (const std::string_view name : {"age", "jobsize", "partition", "qos", "fairshare", "queue"}) {
        auto f = reg.make(name);
        REQUIRE(f.has_value());
        for (const std::size_t n : {std::size_t{0}, std::size_t{5}, std::size_t{32}, std::size_t{77}, std::size_t{200}}) {
            std::vector<double> out(n, -1.0);
            (*f)->evaluate_block(std::span<const flux::job>(w.jobs.data(), n), w.c, std::span<double>(out));
            std::size_t differ = 0;
            for (std::size_t i = 0; i < n; ++i) differ += same_bits(out[i], (*f)->evaluate(w.jobs[i], w.c)) ? 0 : 1;
            INFO(name, " n ", n);
            CHECK(differ == 0);
        }
    }
}

namespace {
/// A constant, to make the order of addition observable.
struct constant {
    static constexpr std::string_view name = "constant";
    double v = 0;
    double operator()(const flux::job&, const flux::context&) const noexcept { return v; }
};
} // namespace

TEST_CASE("queue: the dynamic engine adds in order from 0.0 and skips zero weights") {
    // ((0 + 1e16) + 1) + -1e16 = 0, ((0 + 1e16) + -1e16) + 1 = 1 (1e16 + 1 rounds to 1e16).
    q::dynamic_engine<flux::job, flux::context, mfprio::raw_result> a, b;
    a.add(constant{1e16}, 1);
    a.add(constant{1}, 1);
    a.add(constant{-1e16}, 1);
    b.add(constant{1e16}, 1);
    b.add(constant{-1e16}, 1);
    b.add(constant{1}, 1);
    const flux::job j;
    const flux::context c{};
    CHECK(a.score(j, c) == 0.0);
    CHECK(b.score(j, c) == 1.0);
    std::vector<flux::job> jobs(40);
    std::vector<double> out(40);
    a.batch(std::span<const flux::job>(jobs), c, std::span<double>(out));
    CHECK(std::all_of(out.begin(), out.end(), [](double s) { return s == 0.0; }));
    b.batch(std::span<const flux::job>(jobs), c, std::span<double>(out));
    CHECK(std::all_of(out.begin(), out.end(), [](double s) { return s == 1.0; }));

    // A NaN factor with weight 0 is never evaluated: the sum stays finite.
    q::dynamic_engine<flux::job, flux::context, mfprio::raw_result> z;
    z.add(constant{std::numeric_limits<double>::quiet_NaN()}, 0);
    z.add(constant{2}, 3);
    CHECK(z.score(j, c) == 6.0);
    const auto x = z.explain(j, c);
    CHECK(x.terms[0].factor == 0.0);
    CHECK(x.terms[0].contribution == 0.0);
    CHECK(x.score == 6.0);
    z.batch(std::span<const flux::job>(jobs), c, std::span<double>(out));
    CHECK(std::all_of(out.begin(), out.end(), [](double s) { return s == 6.0; }));

    // set_weight and find.
    CHECK(z.set_weight("CONSTANT", 1)); // the first term of that name
    CHECK(z.find("constant")->weight == 1);
    CHECK_FALSE(z.set_weight("other", 1));
    CHECK(std::isnan(z.score(j, c)));
}

namespace {
/// A factor that is idle when its value is 0 (or a -0.0 here), and counts the jobs its
/// block path evaluates.
struct counted_constant {
    static constexpr std::string_view name = "counted";
    double v = 0;
    std::size_t* evaluated = nullptr;
    double operator()(const flux::job&, const flux::context&) const noexcept {
        ++*evaluated;
        return v;
    }
    bool idle(const flux::context&) const noexcept { return v == 0.0; }
};
} // namespace

TEST_CASE("queue: the dynamic engine skips an idle factor for the whole batch, as the compile-time engine does") {
    static_assert(mfprio::idle_aware_factor<counted_constant, flux::context>);
    std::size_t evaluated = 0;
    const flux::context c{};
    std::vector<flux::job> jobs(q::dynamic_engine<flux::job, flux::context, mfprio::raw_result>::chunk_size + 9);
    std::vector<double> out(jobs.size());
    const auto run = [&](double v, double weight) {
        q::dynamic_engine<flux::job, flux::context, mfprio::raw_result> e;
        e.add(constant{2}, 3);
        e.add(counted_constant{v, &evaluated}, weight);
        evaluated = 0;
        e.batch(std::span<const flux::job>(jobs), c, std::span<double>(out));
        return evaluated;
    };
    // Not idle: every job's factor is evaluated.
    CHECK(run(1.5, -2) == jobs.size());
    CHECK(std::all_of(out.begin(), out.end(), [](double s) { return s == 3.0; }));
    // Idle (-0.0 x -2 would add +0.0): none is, and the sums are 6, not -0.0 or anything else.
    CHECK(run(-0.0, -2) == 0);
    CHECK(std::all_of(out.begin(), out.end(), [](double s) { return s == 6.0 && !std::signbit(s); }));
    // Idle but an infinite weight: evaluated, and the NaN shows.
    CHECK(run(0.0, std::numeric_limits<double>::infinity()) == jobs.size());
    CHECK(std::all_of(out.begin(), out.end(), [](double s) { return std::isnan(s); }));
}

namespace {
/// A factor with a prepared block hook that counts its preparations: the job's urgency
/// times what it prepared (the constant `v`).
struct counted_prepared {
    static constexpr std::string_view name = "counted_prepared";
    double v = 0;
    int* prepared = nullptr;
    double operator()(const flux::job& j, const flux::context&) const noexcept { return j.urgency * v; }
    double prepare(const flux::context&) const noexcept {
        ++*prepared;
        return v;
    }
    template <std::size_t N>
    void block(double p, std::span<const flux::job, N> jobs, const flux::context&, std::span<double, N> out) const noexcept {
        for (std::size_t i = 0; i < N; ++i) out[i] = jobs[i].urgency * p;
    }
};
} // namespace

TEST_CASE("queue: the dynamic engine's batch plan is prepared once and reused by every later batch") {
    using engine = q::dynamic_engine<flux::job, flux::context, mfprio::raw_result>;
    static_assert(q::planned_batch_engine<engine, flux::job, flux::context>);
    int prepared = 0, unused = 0;
    engine e;
    e.add(constant{2}, 3);
    e.add(counted_prepared{0.25, &prepared}, 5);
    e.add(counted_prepared{1.0, &unused}, 0); // weight 0: off, prepares nothing
    const flux::context c{};
    std::vector<flux::job> jobs(3 * engine::chunk_size + 11);
    for (std::size_t k = 0; k < jobs.size(); ++k) jobs[k].urgency = static_cast<std::uint8_t>(k % 32);
    const auto plan = e.prepare_batch(c);
    CHECK(prepared == 1);
    CHECK(unused == 0);
    std::vector<double> out(jobs.size());
    const std::span<const flux::job> all(jobs);
    // Chunks smaller than, equal to and larger than the engine's own: one preparation only.
    const std::size_t cuts[] = {0, 5, 5 + engine::chunk_size, 2 * engine::chunk_size + 40, jobs.size()};
    for (std::size_t i = 0; i + 1 < std::size(cuts); ++i)
        e.batch(plan, all.subspan(cuts[i], cuts[i + 1] - cuts[i]), c,
                std::span<double>(out).subspan(cuts[i], cuts[i + 1] - cuts[i]));
    CHECK(prepared == 1);
    CHECK(unused == 0);
    for (std::size_t k = 0; k < jobs.size(); ++k) {
        CAPTURE(k);
        CHECK(out[k] == 6.0 + static_cast<double>(k % 32) * 0.25 * 5); // 2 x 3 + urgency x 0.25 x 5, exact
        CHECK(out[k] == e.priority(jobs[k], c));
    }
}
