// Tests for mfprio/core/engine.hpp: the weighted sum, its order of addition, and the four
// ways of asking (score, priority, explain, batch) agreeing with each other.
#include <mfprio/core/engine.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include <doctest/doctest.h>

using namespace mfprio::literals;

namespace {

struct ejob {
    double a = 0.0;
    double b = 0.0;
    double c = 0.0;
};
struct ectx {
    double scale = 1.0; // multiplies every factor (checks the context reaches the factors)
};

struct alpha {
    static constexpr std::string_view name = "alpha";
    double operator()(const ejob& j, const ectx& c) const noexcept { return j.a * c.scale; }
};
struct beta {
    static constexpr std::string_view name = "beta";
    double operator()(const ejob& j, const ectx& c) const noexcept { return j.b * c.scale; }
};
struct gamma_ {
    static constexpr std::string_view name = "gamma";
    double operator()(const ejob& j, const ectx& c) const noexcept { return j.c * c.scale; }
};
/// A constant, to make the order of addition observable.
struct constant {
    static constexpr std::string_view name = "constant";
    double v = 0.0;
    double operator()(const ejob&, const ectx&) const noexcept { return v; }
};
struct nan_factor {
    static constexpr std::string_view name = "nan";
    double operator()(const ejob&, const ectx&) const noexcept { return std::numeric_limits<double>::quiet_NaN(); }
};

using one = mfprio::fixed_weight<1u>;

} // namespace

TEST_CASE("core: the engine adds its terms left to right, starting from 0.0") {
    // 1e16 is exact in binary and the doubles around it are 2 apart, so 1e16 + 1 is a tie that
    // rounds to even: 1e16. Hence:
    //   ((0 + 1e16) + 1) + -1e16 = 1e16 + -1e16 = 0
    //   ((0 + 1e16) + -1e16) + 1 = 0 + 1       = 1
    const auto big_one_neg = mfprio::make_engine(mfprio::raw_result{},
        mfprio::term<constant, one>{constant{1e16}, {}}, mfprio::term<constant, one>{constant{1.0}, {}},
        mfprio::term<constant, one>{constant{-1e16}, {}});
    const auto big_neg_one = mfprio::make_engine(mfprio::raw_result{},
        mfprio::term<constant, one>{constant{1e16}, {}}, mfprio::term<constant, one>{constant{-1e16}, {}},
        mfprio::term<constant, one>{constant{1.0}, {}});
    const ejob j{};
    const ectx c{};
    CHECK(big_one_neg.score(j, c) == 0.0);
    CHECK(big_neg_one.score(j, c) == 1.0);
    CHECK(big_one_neg.explain(j, c).score == 0.0);
    CHECK(big_neg_one.explain(j, c).score == 1.0);
    CHECK(big_one_neg.priority(j, c) == 0.0);
    CHECK(big_neg_one.priority(j, c) == 1.0);
}

TEST_CASE("core: score, priority, explain and batch agree") {
    // weights: alpha 1000 (fixed), beta 4 (runtime), gamma 0 (fixed: skipped)
    const auto e = mfprio::make_engine(mfprio::slurm_result{}, mfprio::make_term(alpha{}, 1000_w),
                                       mfprio::make_term(beta{}, std::uint32_t{4}), mfprio::make_term(gamma_{}, 0_w));
    const ectx c{};
    // Sums (all exact in binary):
    //   {0.5, 0.25, 9}: 0.5*1000 + 0.25*4 + 0 = 500 + 1 = 501        -> 501 computed
    //   {0, 0, 9}:      0                                             -> 1 floored
    //   {1, 1000, 0}:   1000 + 4000 = 5000                            -> 5000 computed
    //   {0.001953125, 0.5, 0}: 1.953125 + 2 = 3.953125 (0.001953125 = 2^-9) -> 3 computed
    const std::array<ejob, 4> jobs{{{0.5, 0.25, 9.0}, {0.0, 0.0, 9.0}, {1.0, 1000.0, 0.0}, {0.001953125, 0.5, 0.0}}};
    const std::array<double, 4> sums{501.0, 0.0, 5000.0, 3.953125};
    const std::array<mfprio::priority_value, 4> prios{{{501u, mfprio::priority_status::computed},
                                                       {1u, mfprio::priority_status::floored},
                                                       {5000u, mfprio::priority_status::computed},
                                                       {3u, mfprio::priority_status::computed}}};
    std::array<mfprio::priority_value, 4> batch{};
    std::array<double, 4> batch_scores{};
    e.batch(std::span<const ejob>(jobs), c, std::span<mfprio::priority_value>(batch));
    e.batch_scores(std::span<const ejob>(jobs), c, std::span<double>(batch_scores));
    for (std::size_t k = 0; k < jobs.size(); ++k) {
        CAPTURE(k);
        CHECK(e.score(jobs[k], c) == sums[k]);
        CHECK(e.priority(jobs[k], c) == prios[k]);
        const auto x = e.explain(jobs[k], c);
        CHECK(x.score == sums[k]);
        CHECK(x.priority == prios[k]);
        CHECK(batch[k] == prios[k]);
        CHECK(batch_scores[k] == sums[k]);
    }
}

TEST_CASE("core: explain reports names, factors, weights, contributions, score and priority") {
    const auto e = mfprio::make_engine(mfprio::slurm_result{}, mfprio::make_term(alpha{}, 1000_w),
                                       mfprio::make_term(beta{}, std::uint32_t{4}), mfprio::make_term(gamma_{}, 0_w));
    const auto x = e.explain(ejob{0.5, 0.25, 9.0}, ectx{});
    static_assert(std::tuple_size_v<decltype(x.terms)> == 3);
    CHECK(x.terms[0].name == "alpha");
    CHECK(x.terms[1].name == "beta");
    CHECK(x.terms[2].name == "gamma");
    CHECK(x.terms[0].factor == 0.5);
    CHECK(x.terms[0].weight == 1000.0);
    CHECK(x.terms[0].contribution == 500.0);
    CHECK(x.terms[1].factor == 0.25);
    CHECK(x.terms[1].weight == 4.0);
    CHECK(x.terms[1].contribution == 1.0);
    // gamma has weight 0: its factor is not evaluated and reads 0, its contribution +0.0
    CHECK(x.terms[2].factor == 0.0);
    CHECK(x.terms[2].weight == 0.0);
    CHECK(x.terms[2].contribution == 0.0);
    CHECK(x.score == 501.0);
    CHECK(x.priority.value == 501u);
    CHECK(x.priority.status == mfprio::priority_status::computed);

    // The context reaches the factors: scale 2 doubles every factor: 1000 + 2 = 1002.
    const auto y = e.explain(ejob{0.5, 0.25, 9.0}, ectx{2.0});
    CHECK(y.terms[0].factor == 1.0);
    CHECK(y.terms[1].contribution == 2.0);
    CHECK(y.score == 1002.0);
    CHECK(e.names[0] == "alpha");
    CHECK(e.names[1] == "beta");
    CHECK(e.names[2] == "gamma");
}

TEST_CASE("core: a zero-weighted NaN factor inside an engine leaves the sum intact") {
    const auto e = mfprio::make_engine(mfprio::raw_result{}, mfprio::make_term(alpha{}, 2_w),
                                       mfprio::make_term(nan_factor{}, 0_w),
                                       mfprio::make_term(nan_factor{}, std::uint32_t{0}));
    const ejob j{0.25, 0, 0};
    CHECK(e.score(j, ectx{}) == 0.5); // 0.25 * 2
    const auto x = e.explain(j, ectx{});
    CHECK(x.terms[1].factor == 0.0);
    CHECK(x.terms[2].contribution == 0.0);
    CHECK(x.score == 0.5);
    // ... and a non-zero weight on it does poison the sum, so the check above means something.
    const auto bad = mfprio::make_engine(mfprio::raw_result{}, mfprio::make_term(alpha{}, 2_w),
                                         mfprio::make_term(nan_factor{}, 1_w));
    CHECK(std::isnan(bad.score(j, ectx{})));
}

TEST_CASE("core: term_of<F>() and index_of<F>() find the first term of a factor type") {
    auto e = mfprio::make_engine(mfprio::raw_result{}, mfprio::make_term(alpha{}, std::uint32_t{1}),
                                 mfprio::make_term(beta{}, std::uint32_t{10}),
                                 mfprio::make_term(alpha{}, std::uint32_t{100}));
    static_assert(decltype(e)::index_of<alpha>() == 0);
    static_assert(decltype(e)::index_of<beta>() == 1);
    static_assert(decltype(e)::term_count == 3);
    CHECK(e.term_of<alpha>().weight.get() == 1u);  // the first alpha, not the third term
    CHECK(e.term_of<beta>().weight.get() == 10u);
    CHECK(e.get<2>().weight.get() == 100u);
    const ejob j{1.0, 1.0, 0.0};
    CHECK(e.score(j, ectx{}) == 111.0); // 1 + 10 + 100
    e.term_of<beta>().weight.value = 20; // a reconfiguration through the mutable accessor
    CHECK(e.score(j, ectx{}) == 121.0);
    e.get<0>().weight.value = 0;
    CHECK(e.score(j, ectx{}) == 120.0);
    const auto& ce = e;
    CHECK(ce.term_of<alpha>().weight.get() == 0u);
}

TEST_CASE("core: an engine with no terms sums to 0") {
    const mfprio::engine<mfprio::raw_result> raw{};
    CHECK(raw.score(ejob{}, ectx{}) == 0.0);
    CHECK(raw.priority(ejob{}, ectx{}) == 0.0);
    const mfprio::engine<mfprio::slurm_result> slurm{};
    // 0 < 1: floored to 1 (reference slurm.md 1: "if P < 1: P = 1")
    CHECK(slurm.priority(ejob{}, ectx{}) == mfprio::priority_value{1u, mfprio::priority_status::floored});
    CHECK(slurm.explain(ejob{}, ectx{}).terms.empty());
}

TEST_CASE("core: engine constructed from terms alone uses a default result policy") {
    using E = mfprio::engine<mfprio::raw_result, mfprio::term<alpha, mfprio::fixed_weight<3u>>>;
    const E e{mfprio::term<alpha, mfprio::fixed_weight<3u>>{}};
    CHECK(e.score(ejob{2.0, 0, 0}, ectx{}) == 6.0);
    static_assert(std::is_same_v<E::output_type, double>);
    static_assert(std::is_same_v<E::result_type, mfprio::raw_result>);
}

namespace {
/// alpha with a block hook that counts the blocks it is given (through a pointer: the hook
/// is const).
struct hooked_alpha {
    static constexpr std::string_view name = "hooked";
    int* blocks = nullptr;
    double operator()(const ejob& j, const ectx& c) const noexcept { return j.a * c.scale; }
    template <std::size_t N>
    void block(std::span<const ejob, N> jobs, const ectx& c, std::span<double, N> out) const noexcept {
        ++*blocks;
        for (std::size_t i = 0; i < N; ++i) out[i] = jobs[i].a * c.scale;
    }
};
} // namespace

TEST_CASE("core: batch takes whole blocks through block hooks and the rest job by job") {
    static_assert(mfprio::block_factor_policy<hooked_alpha, ejob, ectx>);
    static_assert(!mfprio::block_factor_policy<alpha, ejob, ectx>);
    int blocks = 0;
    const auto e = mfprio::make_engine(mfprio::slurm_result{}, mfprio::make_term(hooked_alpha{&blocks}, 1000_w),
                                       mfprio::make_term(beta{}, std::uint32_t{4}),
                                       mfprio::make_term(gamma_{}, std::uint32_t{0}),
                                       mfprio::make_term(constant{-0.5}, 1_w));
    // 3 whole blocks and 4 more; factors k/64 (exact), so each sum is exact:
    // k/64 x 1000 + (100 - k) x 4 + 0 - 0.5.
    constexpr std::size_t n = 3 * mfprio::batch_block_size<ejob> + 4;
    std::vector<ejob> jobs(n);
    for (std::size_t k = 0; k < n; ++k)
        jobs[k] = {static_cast<double>(k) / 64.0, 100.0 - static_cast<double>(k), std::numeric_limits<double>::quiet_NaN()};
    const ectx c{};
    std::vector<mfprio::priority_value> out(n);
    std::vector<double> sums(n);
    e.batch(std::span<const ejob>(jobs), c, std::span<mfprio::priority_value>(out));
    CHECK(blocks == 3);
    e.batch_scores(std::span<const ejob>(jobs), c, std::span<double>(sums));
    CHECK(blocks == 6);
    for (std::size_t k = 0; k < n; ++k) {
        CAPTURE(k);
        const double want = static_cast<double>(k) / 64.0 * 1000.0 + (100.0 - static_cast<double>(k)) * 4.0 - 0.5;
        CHECK(sums[k] == want);
        CHECK(sums[k] == e.score(jobs[k], c));
        CHECK(out[k] == e.priority(jobs[k], c)); // gamma's NaN never reaches a sum: weight 0
    }
    // Fewer jobs than a block: no block at all.
    e.batch(std::span<const ejob>(jobs).first(5), c, std::span<mfprio::priority_value>(out));
    CHECK(blocks == 6);
}

namespace {
/// beta with a block hook that prepares once per batch (counting its preparations) and
/// scales by what it prepared.
struct prepared_beta {
    static constexpr std::string_view name = "prepared";
    int* prepared = nullptr;
    double operator()(const ejob& j, const ectx& c) const noexcept { return j.b * c.scale; }
    double prepare(const ectx& c) const noexcept {
        ++*prepared;
        return c.scale;
    }
    template <std::size_t N>
    void block(double scale, std::span<const ejob, N> jobs, const ectx&, std::span<double, N> out) const noexcept {
        for (std::size_t i = 0; i < N; ++i) out[i] = jobs[i].b * scale;
    }
};
} // namespace

TEST_CASE("core: batch prepares a prepared block hook once per call") {
    static_assert(mfprio::prepared_block_factor_policy<prepared_beta, ejob, ectx>);
    int prepared = 0;
    const auto e = mfprio::make_engine(mfprio::raw_result{}, mfprio::make_term(alpha{}, 2_w),
                                       mfprio::make_term(prepared_beta{&prepared}, std::uint32_t{3}));
    std::vector<ejob> jobs(5 * mfprio::batch_block_size<ejob> + 1);
    for (std::size_t k = 0; k < jobs.size(); ++k) jobs[k] = {static_cast<double>(k), static_cast<double>(k) / 8, 0};
    std::vector<double> out(jobs.size());
    const ectx c{2.0};
    e.batch(std::span<const ejob>(jobs), c, std::span<double>(out));
    CHECK(prepared == 1);
    for (std::size_t k = 0; k < jobs.size(); ++k) {
        CAPTURE(k);
        CHECK(out[k] == e.score(jobs[k], c)); // k x 2 x 2 + k/8 x 2 x 3
    }
}

namespace {
/// hooked_alpha that says, through its context, when it is idle (the context's scale 0
/// makes every factor +-0.0).
struct idle_alpha : hooked_alpha {
    static constexpr std::string_view name = "idle_alpha";
    bool idle(const ectx& c) const noexcept { return c.scale == 0.0; }
};
} // namespace

TEST_CASE("core: batch skips a term whose factor is idle in the context, unless its weight is not finite") {
    static_assert(mfprio::idle_aware_factor<idle_alpha, ectx>);
    static_assert(!mfprio::idle_aware_factor<alpha, ectx>);
    int blocks = 0;
    constexpr std::size_t n = 2 * mfprio::batch_block_size<ejob> + 3;
    std::vector<ejob> jobs(n);
    for (std::size_t k = 0; k < n; ++k)
        jobs[k] = {k % 2 == 0 ? -static_cast<double>(k) : static_cast<double>(k), 1.0, static_cast<double>(k)};
    std::vector<double> out(n);

    // Scale 1: not idle, evaluated block by block (k + -+k x -3).
    const auto e = mfprio::make_engine(mfprio::raw_result{}, mfprio::make_term(gamma_{}, 1_w),
                                       mfprio::make_term(idle_alpha{{&blocks}}, -3.0));
    e.batch(std::span<const ejob>(jobs), ectx{1.0}, std::span<double>(out));
    CHECK(blocks == 2);
    for (std::size_t k = 0; k < n; ++k) CHECK(out[k] == e.score(jobs[k], ectx{1.0}));
    CHECK(out[3] == 3.0 - 9.0);

    // Scale 0: idle, its hook is not called, and every sum is what score gives (gamma's is
    // 0 too: each sum is +0.0, never the -0.0 a negative weight times +0.0 would be).
    e.batch(std::span<const ejob>(jobs), ectx{0.0}, std::span<double>(out));
    CHECK(blocks == 2);
    for (std::size_t k = 0; k < n; ++k) {
        CHECK(out[k] == e.score(jobs[k], ectx{0.0}));
        CHECK_FALSE(std::signbit(out[k]));
    }

    // An infinite weight times +-0.0 is NaN: the idle term is evaluated and the NaN kept.
    const auto inf_weight = mfprio::make_engine(mfprio::raw_result{}, mfprio::make_term(gamma_{}, 1_w),
                                                mfprio::make_term(idle_alpha{{&blocks}}, std::numeric_limits<double>::infinity()));
    inf_weight.batch(std::span<const ejob>(jobs), ectx{0.0}, std::span<double>(out));
    CHECK(blocks == 4);
    for (std::size_t k = 0; k < n; ++k) CHECK(std::isnan(out[k]));
}

namespace {
/// A factor its type declares idle everywhere (`always_idle`), with a block hook that counts
/// its blocks: its value is -0.0 (a negative weight times it is +0.0, a positive one -0.0).
struct never_alpha {
    static constexpr std::string_view name = "never";
    static constexpr bool always_idle = true;
    int* blocks = nullptr;
    double operator()(const ejob&, const ectx&) const noexcept { return -0.0; }
    template <std::size_t N>
    void block(std::span<const ejob, N>, const ectx&, std::span<double, N> out) const noexcept {
        ++*blocks;
        for (std::size_t i = 0; i < N; ++i) out[i] = -0.0;
    }
};
} // namespace

TEST_CASE("core: batch leaves out an always-idle term of finite weight at compile time") {
    static_assert(mfprio::always_idle_factor<never_alpha>);
    static_assert(!mfprio::always_idle_factor<idle_alpha>);
    int blocks = 0;
    constexpr std::size_t n = 3 * mfprio::batch_block_size<ejob> + 5;
    std::vector<ejob> jobs(n);
    for (std::size_t k = 0; k < n; ++k) jobs[k] = {0.0, static_cast<double>(k) - 40.0, 0.0};
    std::vector<double> out(n);
    // Integer weights, runtime or compile-time: left out, its hook never called, every sum
    // what score gives (beta's term is +-0.0 for job 40: the sum stays +0.0).
    const auto e = mfprio::make_engine(mfprio::raw_result{}, mfprio::make_term(never_alpha{&blocks}, std::int64_t{7}),
                                       mfprio::make_term(beta{}, std::int64_t{-2}),
                                       mfprio::make_term(never_alpha{&blocks}, 3_w));
    e.batch(std::span<const ejob>(jobs), ectx{}, std::span<double>(out));
    CHECK(blocks == 0);
    for (std::size_t k = 0; k < n; ++k) {
        CAPTURE(k);
        CHECK(out[k] == e.score(jobs[k], ectx{}));
        CHECK(std::signbit(out[k]) == std::signbit(e.score(jobs[k], ectx{})));
    }
    CHECK_FALSE(std::signbit(out[40]));
    // A double weight may be infinite: the term stays in (inf x -0.0 is NaN, in every sum).
    const auto inf_weight = mfprio::make_engine(mfprio::raw_result{}, mfprio::make_term(beta{}, 1_w),
                                                mfprio::make_term(never_alpha{&blocks}, std::numeric_limits<double>::infinity()));
    inf_weight.batch(std::span<const ejob>(jobs), ectx{}, std::span<double>(out));
    CHECK(blocks == 3);
    for (std::size_t k = 0; k < n; ++k) CHECK(std::isnan(out[k]));
}

TEST_CASE("core: a batch plan is prepared once and reused by every later batch") {
    int prepared = 0;
    int unused = 0;
    const auto e = mfprio::make_engine(mfprio::raw_result{}, mfprio::make_term(alpha{}, 2_w),
                                       mfprio::make_term(prepared_beta{&prepared}, std::uint32_t{3}),
                                       mfprio::make_term(prepared_beta{&unused}, std::uint32_t{0}));
    std::vector<ejob> jobs(7 * mfprio::batch_block_size<ejob> + 5);
    for (std::size_t k = 0; k < jobs.size(); ++k) jobs[k] = {static_cast<double>(k), static_cast<double>(k) / 8, 0};
    const ectx c{2.0};
    const auto plan = e.prepare_batch<ejob>(c);
    CHECK(prepared == 1);
    CHECK(unused == 0); // a term with weight 0 is off: it prepares nothing
    // The jobs in uneven chunks (whole blocks, a block and a bit, less than a block), all
    // with the one plan: nothing more is prepared, and every job gets what `score` gives.
    std::vector<double> out(jobs.size());
    const std::span<const ejob> all(jobs);
    constexpr std::size_t b = mfprio::batch_block_size<ejob>;
    const std::size_t cuts[] = {0, 2 * b, 3 * b + 7, 3 * b + 9, jobs.size()};
    for (std::size_t i = 0; i + 1 < std::size(cuts); ++i)
        e.batch(plan, all.subspan(cuts[i], cuts[i + 1] - cuts[i]), c,
                std::span<double>(out).subspan(cuts[i], cuts[i + 1] - cuts[i]));
    CHECK(prepared == 1);
    CHECK(unused == 0);
    for (std::size_t k = 0; k < jobs.size(); ++k) {
        CAPTURE(k);
        CHECK(out[k] == e.score(jobs[k], c)); // k x 2 x 2 + k/8 x 2 x 3
    }
    // A batch without a plan prepares its own, as before.
    e.batch(all, c, std::span<double>(out));
    CHECK(prepared == 2);
    CHECK(unused == 0);
}
