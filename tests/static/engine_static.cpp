// Compile-only checks for the engine and the Slurm factor policies: this translation unit is
// built (tests/meson.build, target mfprio_static_checks) but never run. A failing check is a
// build error. Negative checks are `requires !requires {...}` style (mp-units' static/ tests).
#include <mfprio/core/engine.hpp>
#include <mfprio/core/factor.hpp>
#include <mfprio/core/job.hpp>
#include <mfprio/core/term.hpp>
#include <mfprio/core/weight.hpp>
#include <mfprio/slurm/age.hpp>
#include <mfprio/slurm/association.hpp>
#include <mfprio/slurm/context.hpp>
#include <mfprio/slurm/fairshare.hpp>
#include <mfprio/slurm/job_size.hpp>
#include <mfprio/slurm/multifactor.hpp>
#include <mfprio/slurm/nice.hpp>
#include <mfprio/slurm/partition.hpp>
#include <mfprio/slurm/qos.hpp>
#include <mfprio/slurm/site.hpp>
#include <mfprio/slurm/tres.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>

namespace {

namespace ms = mfprio::slurm;
using ms::context;

// ---------------------------------------------------------------------------------------
// A whole Slurm priority at compile time.
//
// Seed 000's example configuration: PriorityWeightAge=1000, PriorityWeightFairshare=10000,
// PriorityWeightJobSize=1000, PriorityWeightPartition=1000, PriorityWeightQOS=0,
// PriorityMaxAge=14-0 (= 14 * 86400 = 1209600 s). Assoc weight 0 (not in the example).
//
// Cluster: 8 nodes, 256 CPUs. Partitions' PriorityJobFactor {1, 3, 4}: max 4, so the
// normalized factors are {1/4, 3/4, 4/4} = {0.25, 0.75, 1.0} (reference slurm.md 1.1
// Partition: PriorityJobFactor / max(1, max PriorityJobFactor)).
// Association 1's fair-share factor is 0.5: seed 000's user 4, 2^(-.25/.25) = 2^-1.
//
// The job: partition 1, association 1, accruing for 7 days (604800 s), 2 nodes, 64 CPUs.
//   age       = 604800 / 1209600            = 0.5   x 1000  = 500
//   assoc     (weight 0)                                    = 0
//   fairshare = 0.5                                 x 10000 = 5000
//   job size  = (n/N + c/C)/2 = (2/8 + 64/256)/2 = 0.25 x 1000 = 250
//   partition = 0.75                                x 1000  = 750
//   qos       (weight 0)                                    = 0
//   tres, site, nice                                        = 0
//   sum = 500 + 0 + 5000 + 250 + 750 = 6500, every step exact in binary -> priority 6500
// ---------------------------------------------------------------------------------------
constexpr std::int64_t now = 1'700'000'000;
constexpr std::array<ms::partition_info, 3> partitions{{
    {.priority_job_factor = 1, .norm_priority = 0.25, .priority_tier = 1, .max_time = 60, .tres_totals = {}},
    {.priority_job_factor = 3, .norm_priority = 0.75, .priority_tier = 1, .max_time = 60, .tres_totals = {}},
    {.priority_job_factor = 4, .norm_priority = 1.0, .priority_tier = 1, .max_time = 60, .tres_totals = {}},
}};
constexpr std::array<double, 2> fairshare{1.0, 0.5};
constexpr context ctx{.now = now,
                      .node_count = 8,
                      .cluster_cpus = 256,
                      .partitions = partitions,
                      .qos = {},
                      .fairshare = fairshare,
                      .assoc_priority = {},
                      .assoc_priority_norm = {}};

constexpr ms::settings seed000_settings() {
    ms::settings s{};
    s.max_age = 1209600; // PriorityMaxAge=14-0
    return s;
}

constexpr mfprio::job make_job() {
    mfprio::job j{};
    j.id = 1;
    j.association = 1;
    j.partition = 1;
    j.accrue_time = now - 604800;
    j.min_nodes = 2;
    j.cpus = 64;
    return j;
}
constexpr mfprio::job job = make_job();

constexpr auto fixed_engine = ms::make_fixed_multifactor<1000, 0, 10000, 1000, 1000, 0>(seed000_settings());
static_assert(fixed_engine.score(job, ctx) == 6500.0);
static_assert(fixed_engine.priority(job, ctx).value == 6500);
static_assert(fixed_engine.priority(job, ctx).status == mfprio::priority_status::computed);

// The same with weights read at run time (here: constants passed as runtime weights).
constexpr auto runtime_engine = ms::make_multifactor(
    ms::weights{.age = 1000, .assoc = 0, .fairshare = 10000, .job_size = 1000, .partition = 1000, .qos = 0},
    seed000_settings());
static_assert(runtime_engine.priority(job, ctx).value == 6500);

// explain at compile time: one line per term, in Slurm's order of addition.
constexpr auto explained = fixed_engine.explain(job, ctx);
static_assert(explained.terms.size() == 9);
static_assert(explained.terms[0].name == "age" && explained.terms[0].factor == 0.5 &&
              explained.terms[0].contribution == 500.0);
static_assert(explained.terms[2].name == "fairshare" && explained.terms[2].contribution == 5000.0);
static_assert(explained.terms[3].name == "jobsize" && explained.terms[3].factor == 0.25);
static_assert(explained.terms[4].name == "partition" && explained.terms[4].contribution == 750.0);
static_assert(explained.terms[6].name == "tres" && explained.terms[7].name == "site" &&
              explained.terms[8].name == "nice");
static_assert(explained.score == 6500.0 && explained.priority.value == 6500);

// A nice of 100 lowers it by 100 (reference slurm.md 1.1 Nice: contribution -(nice)).
constexpr mfprio::job nice_job = [] {
    mfprio::job j = make_job();
    j.nice = 100;
    return j;
}();
static_assert(fixed_engine.priority(nice_job, ctx).value == 6400);

// batch at compile time: 40 copies of the job (a whole block through the factors' block
// hooks, then 8 one by one) give the job's priority, 6500, every one.
constexpr bool batch_agrees = [] {
    std::array<mfprio::job, 40> jobs{};
    jobs.fill(make_job());
    std::array<mfprio::priority_value, 40> out{};
    fixed_engine.batch(std::span<const mfprio::job>(jobs), ctx, std::span<mfprio::priority_value>(out));
    for (const auto& p : out)
        if (p.value != 6500 || p.status != mfprio::priority_status::computed) return false;
    return true;
}();
static_assert(batch_agrees);
static_assert(mfprio::block_factor_policy<ms::age_factor, mfprio::job, context>);
static_assert(mfprio::block_factor_policy<ms::job_size_factor, mfprio::job, context>);
static_assert(mfprio::block_factor_policy<ms::tres_factor, mfprio::job, context>);
static_assert(mfprio::prepared_block_factor_policy<ms::tres_factor, mfprio::job, context>);
static_assert(mfprio::prepared_block_factor_policy<ms::partition_factor, mfprio::job, context>);
static_assert(mfprio::prepared_block_factor_policy<ms::qos_factor, mfprio::job, context>);
static_assert(!mfprio::block_factor_policy<ms::fairshare_factor, mfprio::job, context>);
static_assert(!mfprio::prepared_block_factor_policy<ms::fairshare_factor, mfprio::job, context>);

// mfprio::job is one cache line (job.hpp's layout).
static_assert(sizeof(mfprio::job) == 64);

// ---------------------------------------------------------------------------------------
// The factor_policy concept: yes for mfprio::job, no for a job missing the fields.
// ---------------------------------------------------------------------------------------
static_assert(mfprio::factor_policy<ms::age_factor, mfprio::job, context>);
static_assert(mfprio::factor_policy<ms::association_factor, mfprio::job, context>);
static_assert(mfprio::factor_policy<ms::fairshare_factor, mfprio::job, context>);
static_assert(mfprio::factor_policy<ms::job_size_factor, mfprio::job, context>);
static_assert(mfprio::factor_policy<ms::partition_factor, mfprio::job, context>);
static_assert(mfprio::factor_policy<ms::qos_factor, mfprio::job, context>);
static_assert(mfprio::factor_policy<ms::tres_factor, mfprio::job, context>);
static_assert(mfprio::factor_policy<ms::site_factor, mfprio::job, context>);
static_assert(mfprio::factor_policy<ms::nice_factor, mfprio::job, context>);

/// Everything but accrue_time.
struct no_accrue_job {
    std::uint32_t association = 0, partition = 0, qos = 0, min_nodes = 1, cpus = 1, time_limit = 0;
    std::int32_t nice = 0, site_factor = 0;
};
/// Job size needs min_nodes, cpus, time_limit and partition: this one lacks time_limit.
struct no_time_limit_job {
    std::uint32_t partition = 0, min_nodes = 1, cpus = 1;
};
/// TRES needs a TRES row (or span) and a partition: this one has only the partition.
struct no_tres_job {
    std::uint32_t partition = 0;
};
struct empty_job {};

static_assert(!mfprio::factor_policy<ms::age_factor, no_accrue_job, context>);
static_assert(mfprio::factor_policy<ms::association_factor, no_accrue_job, context>);
static_assert(mfprio::factor_policy<ms::job_size_factor, no_accrue_job, context>);
static_assert(mfprio::factor_policy<ms::nice_factor, no_accrue_job, context>);
static_assert(!mfprio::factor_policy<ms::job_size_factor, no_time_limit_job, context>);
static_assert(!mfprio::factor_policy<ms::tres_factor, no_tres_job, context>);
static_assert(mfprio::factor_policy<ms::partition_factor, no_tres_job, context>);
static_assert(!mfprio::factor_policy<ms::age_factor, empty_job, context>);
static_assert(!mfprio::factor_policy<ms::association_factor, empty_job, context>);
static_assert(!mfprio::factor_policy<ms::fairshare_factor, empty_job, context>);
static_assert(!mfprio::factor_policy<ms::job_size_factor, empty_job, context>);
static_assert(!mfprio::factor_policy<ms::partition_factor, empty_job, context>);
static_assert(!mfprio::factor_policy<ms::qos_factor, empty_job, context>);
static_assert(!mfprio::factor_policy<ms::tres_factor, empty_job, context>);
static_assert(!mfprio::factor_policy<ms::site_factor, empty_job, context>);
static_assert(!mfprio::factor_policy<ms::nice_factor, empty_job, context>);
// The Slurm factors want a Slurm context.
static_assert(!mfprio::factor_policy<ms::age_factor, mfprio::job, int>);

// Negative checks written as requires-expressions: the call itself does not exist (the
// operator is constrained away rather than failing inside its body).
template <class J>
concept age_callable = requires(const J& j, const context& c) { ms::age_factor{}(j, c); };
template <class J>
concept job_size_callable = requires(const J& j, const context& c) { ms::job_size_factor{}(j, c); };
static_assert(age_callable<mfprio::job>);
static_assert(!age_callable<no_accrue_job>);
static_assert(!job_size_callable<no_time_limit_job>);

// A factor whose call operator may throw is not a factor policy (the hot path never throws).
struct throwing_factor {
    static constexpr std::string_view name = "throwing";
    double operator()(const mfprio::job&, const context&) const { return 0.0; }
};
struct float_factor {
    static constexpr std::string_view name = "float";
    float operator()(const mfprio::job&, const context&) const noexcept { return 0.0f; }
};
struct nameless_factor {
    double operator()(const mfprio::job&, const context&) const noexcept { return 0.0; }
};
static_assert(!mfprio::factor_policy<throwing_factor, mfprio::job, context>);
static_assert(!mfprio::factor_policy<float_factor, mfprio::job, context>);
static_assert(!mfprio::factor_policy<nameless_factor, mfprio::job, context>);

// index_of / term_of for a factor type the engine does not hold: index_of throws during
// constant evaluation, observed as a substitution failure through a template argument.
template <class E, class F>
concept engine_holds = requires { typename std::integral_constant<std::size_t, E::template index_of<F>()>; };
using fixed_engine_t = std::remove_const_t<decltype(fixed_engine)>;
static_assert(engine_holds<fixed_engine_t, ms::age_factor>);
static_assert(engine_holds<fixed_engine_t, ms::nice_factor>);
static_assert(!engine_holds<fixed_engine_t, throwing_factor>);
static_assert(fixed_engine_t::index_of<ms::age_factor>() == 0);
static_assert(fixed_engine_t::index_of<ms::tres_factor>() == 6);
static_assert(fixed_engine_t::index_of<ms::nice_factor>() == 8);
static_assert(ms::slurm_engine<fixed_engine_t>);
static_assert(!ms::slurm_engine<mfprio::engine<mfprio::slurm_result, mfprio::term<ms::age_factor, mfprio::fixed_weight<1u>>>>);

// ---------------------------------------------------------------------------------------
// Layout: a fixed weight takes no room.
//
// The language guarantees that fixed_weight is an empty class and that a term is at least as
// large as its factor (and, being a complete object type, at least 1 byte). [[no_unique_address]]
// only *permits* the weight (and an empty factor) to share storage; it does not require it,
// and MSVC (including clang-cl) ignores the attribute. On the Itanium C++ ABI (gcc 12 and
// clang 14 on Linux, checked) the empty members do overlap: a term with a fixed weight is
// exactly as large as its factor, and 1 byte for an empty factor.
// ---------------------------------------------------------------------------------------
template <auto N>
using fixed = mfprio::fixed_weight<N>;

static_assert(std::is_empty_v<fixed<1000u>>);
static_assert(std::is_empty_v<ms::fairshare_factor> && std::is_empty_v<ms::site_factor> &&
              std::is_empty_v<ms::nice_factor>);
static_assert(sizeof(mfprio::term<ms::age_factor, fixed<1000u>>) >= sizeof(ms::age_factor));
static_assert(sizeof(mfprio::term<ms::tres_factor, fixed<1u>>) >= sizeof(ms::tres_factor));
static_assert(sizeof(mfprio::term<ms::fairshare_factor, fixed<1u>>) >= 1);

#if (defined(__GNUC__) || defined(__clang__)) && !defined(_MSC_VER)
static_assert(sizeof(mfprio::term<ms::age_factor, fixed<1000u>>) == sizeof(ms::age_factor));
static_assert(sizeof(mfprio::term<ms::job_size_factor, fixed<1000u>>) == sizeof(ms::job_size_factor));
static_assert(sizeof(mfprio::term<ms::partition_factor, fixed<1000u>>) == sizeof(ms::partition_factor));
static_assert(sizeof(mfprio::term<ms::tres_factor, fixed<1u>>) == sizeof(ms::tres_factor));
static_assert(sizeof(mfprio::term<ms::fairshare_factor, fixed<10000u>>) == 1);
static_assert(sizeof(mfprio::term<ms::nice_factor, fixed<1u>>) == 1);
// A runtime weight does take room: an empty factor overlaps it, a non-empty one sits beside it.
static_assert(sizeof(mfprio::term<ms::fairshare_factor, mfprio::runtime_weight<std::uint32_t>>) ==
              sizeof(std::uint32_t));
static_assert(sizeof(mfprio::term<ms::age_factor, mfprio::runtime_weight<std::uint32_t>>) ==
              sizeof(ms::age_factor) + sizeof(std::uint32_t));
// The compile-time engine is smaller than the runtime one: it stores no weights.
static_assert(sizeof(fixed_engine_t) < sizeof(ms::multifactor_engine));
#endif

} // namespace
