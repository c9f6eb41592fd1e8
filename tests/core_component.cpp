// Tests for mfprio/core/component.hpp: caps of both styles, the capped weighted sum of a
// component, per-job weight adjustment and the breakdown. The cap rules are reference
// flux_maui.md B1 ("caps in Maui are one-sided: x = min(x, cap) when cap > 0 ... Moab later
// made them symmetric: x = clamp(x, -cap, +cap)"; "caps <= 0 mean no cap").
#include <doctest/doctest.h>

#include <mfprio/core/component.hpp>
#include <mfprio/core/engine.hpp>

#include <cmath>
#include <limits>
#include <string_view>

using namespace mfprio;

namespace {
struct rec {
    double a = 0, b = 0;
    bool boost = false;
};
struct ctx {};
struct fa {
    static constexpr std::string_view name = "A";
    constexpr double operator()(const rec& r, const ctx&) const noexcept { return r.a; }
};
struct fb {
    static constexpr std::string_view name = "B";
    constexpr double operator()(const rec& r, const ctx&) const noexcept { return r.b; }
    // Like a QOS's QTWEIGHT: some jobs get 100 more weight.
    constexpr double adjust_weight(double w, const rec& r, const ctx&) const noexcept {
        return r.boost ? w + 100 : w;
    }
    constexpr bool adjusts_weight(const ctx&) const noexcept { return true; }
};
} // namespace

TEST_CASE("core: cap styles") {
    constexpr cap none{};
    CHECK(none(1e300) == 1e300);
    CHECK(none(-1e300) == -1e300);
    constexpr cap zero{0.0};
    CHECK(zero(5.0) == 5.0); // a cap <= 0 is no cap
    constexpr cap negative{-3.0, cap_style::symmetric};
    CHECK(negative(-5.0) == -5.0);

    constexpr cap maui{10.0, cap_style::upper};
    static_assert(maui(25.0) == 10.0);
    CHECK(maui(10.0) == 10.0);
    CHECK(maui(-25.0) == -25.0); // Maui: no lower bound

    constexpr cap moab{10.0, cap_style::symmetric};
    static_assert(moab(25.0) == 10.0);
    CHECK(moab(-25.0) == -10.0); // Moab: both sides
    CHECK(moab(-3.5) == -3.5);
}

TEST_CASE("core: a component is cap(sum of weight x capped subfactor)") {
    // Subcap 5 on A, weight 3; B weight -2: 3 x min(5, 7) + (-2) x 4 = 15 - 8 = 7.
    constexpr auto comp = make_component<"Comp">(cap{}, make_subterm(fa{}, -(-3_w), cap{5.0}),
                                                 make_subterm(fb{}, std::int64_t{-2}));
    constexpr rec r{7.0, 4.0, false};
    static_assert(comp(r, ctx{}) == 7.0);
    static_assert(decltype(comp)::name == "Comp");
    static_assert(factor_policy<decltype(comp), rec, ctx>);

    // The component cap applies to the sum: min(6, 7) = 6.
    auto capped = comp;
    capped.limit = cap{6.0};
    CHECK(capped(r, ctx{}) == 6.0);
    CHECK(capped.sum(r, ctx{}) == 7.0);

    // A negative sum below a symmetric cap: A 0, B 10 -> -20, clamped to -6 (Moab) but not
    // bounded by an upper cap (Maui).
    constexpr rec neg{0.0, 10.0, false};
    CHECK(capped(neg, ctx{}) == -20.0);
    capped.limit = cap{6.0, cap_style::symmetric};
    CHECK(capped(neg, ctx{}) == -6.0);
}

TEST_CASE("core: per-job weight adjustment and zero weights") {
    auto comp = make_component<"Comp">(cap{}, make_subterm(fa{}, std::int64_t{0}),
                                       make_subterm(fb{}, std::int64_t{1}));
    // A's weight is 0: it adds nothing, even when its factor is infinite (0 x inf would be NaN).
    const rec r{std::numeric_limits<double>::infinity(), 2.0, false};
    CHECK(comp(r, ctx{}) == 2.0);
    // B's weight 1 becomes 101 for boosted jobs: 101 x 2.
    rec boosted = r;
    boosted.boost = true;
    CHECK(comp(boosted, ctx{}) == 202.0);
    // B's configured weight 0 adjusted to 100 still counts (the adjustment decides).
    comp.get<1>().weight.value = 0;
    CHECK(comp(boosted, ctx{}) == 200.0);
    CHECK(comp(r, ctx{}) == 0.0);
}

TEST_CASE("core: component breakdown matches its value") {
    auto comp = make_component<"Comp">(cap{9.0}, make_subterm(fa{}, std::int64_t{2}, cap{3.0}),
                                       make_subterm(fb{}, std::int64_t{0}));
    const rec r{4.0, 1.5, true};
    const auto e = comp.explain(r, ctx{});
    CHECK(e.subterms[0].name == "A");
    CHECK(e.subterms[0].factor == 4.0);
    CHECK(e.subterms[0].capped == 3.0);
    CHECK(e.subterms[0].weight == 2.0);
    CHECK(e.subterms[0].contribution == 6.0);
    CHECK(e.subterms[1].name == "B");
    CHECK(e.subterms[1].factor == 1.5);
    CHECK(e.subterms[1].weight == 100.0); // 0 + 100 for a boosted job
    CHECK(e.subterms[1].contribution == 150.0);
    CHECK(e.sum == 156.0);
    CHECK(e.value == 9.0);
    CHECK(comp(r, ctx{}) == e.value);
}

TEST_CASE("core: components as engine terms give CW x cap_C(CF)") {
    // Two components weighted 10 and -1: 10 x min(9, 2 x 3) + (-1) x 1.5 = 60 - 1.5.
    const auto c1 = make_component<"One">(cap{9.0}, make_subterm(fa{}, std::int64_t{2}));
    const auto c2 = make_component<"Two">(cap{}, make_subterm(fb{}, std::int64_t{1}));
    const auto e = make_engine(raw_result{}, make_term(c1, std::int64_t{10}), make_term(c2, std::int64_t{-1}));
    const rec r{3.0, 1.5, false};
    CHECK(e.score(r, ctx{}) == 58.5);
    const auto x = e.explain(r, ctx{});
    CHECK(x.terms[0].name == "One");
    CHECK(x.terms[0].factor == 6.0);
    CHECK(x.terms[1].contribution == -1.5);
}
