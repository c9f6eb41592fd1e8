// Every fair-share algorithm against its plain evaluation (tests/fairshare_oracles.hpp: the
// real systems' formulas in their order and floating types, one association at a time) on
// large random trees of several shapes, every column compared bit for bit, on one thread and
// on several. A difference names the first association that differs and both values in %a.
#include <doctest/doctest.h>

#include <mfprio/fairshare/classic.hpp>
#include <mfprio/fairshare/depth_oblivious.hpp>
#include <mfprio/fairshare/fair_tree.hpp>
#include <mfprio/fairshare/flux_tree.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "fairshare_oracles.hpp"

namespace {

namespace fs = mfprio::fairshare;
using fairshare_test::same_bits;

/// A family of random trees: `top` accounts under the root, each with `subs` sub-accounts of
/// `users` users (or `users` users of its own when it has no sub-accounts), and under each
/// top account a chain of `depth` nested accounts with `chain_users` users at every level.
/// Shares: 1 in `parent_in` FairShare=parent, 1 in `zero_in` zero (0: never), else 1-100.
/// Usage: 1 in 10 zero, else a 30-bit integer scaled by 2^0..2^39 (twelve orders of
/// magnitude, so that usage ratios fall on both sides of 1), or all zero.
struct shape {
    const char* name;
    std::uint32_t top, subs, users, depth, chain_users;
    std::uint32_t parent_in, zero_in;
    bool no_usage;
};

std::string label(char prefix, std::uint32_t i) {
    std::string s(1, prefix);
    s += std::to_string(i);
    return s;
}

fs::tree make_tree(const shape& sh, std::uint32_t seed) {
    std::mt19937_64 rng(seed);
    const auto pick = [&](std::uint64_t k) { return static_cast<std::uint32_t>(rng() % k); };
    const auto shares = [&]() -> std::uint32_t {
        if (sh.parent_in != 0 && pick(sh.parent_in) == 0) return fs::use_parent;
        if (sh.zero_in != 0 && pick(sh.zero_in) == 0) return 0;
        return 1 + pick(100);
    };
    const auto usage = [&]() -> long double {
        if (sh.no_usage || pick(10) == 0) return 0.0L;
        return std::ldexp(static_cast<long double>(1 + pick(1u << 30)), static_cast<int>(pick(40)));
    };
    fs::tree_builder b;
    std::uint32_t serial = 0;
    // With shares 0 as often as 1 in 3, 1 account in 4 gives all its users 0 shares (a level
    // whose shares add up to 0).
    const auto users = [&](std::uint32_t account, std::uint32_t count) {
        const bool zero_level = sh.zero_in != 0 && sh.zero_in <= 3 && pick(4) == 0;
        for (std::uint32_t k = 0; k < count; ++k)
            b.add_user(account, label('u', serial++), zero_level ? 0 : shares(), usage());
    };
    for (std::uint32_t i = 0; i < sh.top; ++i) {
        const std::uint32_t a = b.add_account(0, label('a', serial++), shares());
        if (sh.subs == 0) users(a, sh.users);
        for (std::uint32_t j = 0; j < sh.subs; ++j) users(b.add_account(a, label('s', serial++), shares()), sh.users);
        std::uint32_t chain = a;
        for (std::uint32_t d = 0; d < sh.depth; ++d) {
            chain = b.add_account(chain, label('d', serial++), shares());
            users(chain, sh.chain_users);
        }
    }
    b.add_user(0, "rootuser", 1, usage());
    return b.build();
}

// About 100,000 associations each. "deep" goes past the 63 levels of the one-sweep paths, so
// the passes also take their general ways.
const shape shapes[] = {
    {"flat", 1, 0, 99998, 0, 0, 50, 20, false},
    {"wide", 10, 10, 999, 0, 0, 40, 30, false},
    {"deep", 4, 0, 0, 80, 310, 30, 30, false},
    {"shallow chains", 40, 0, 100, 40, 60, 25, 25, false},
    {"FairShare=parent chains", 100, 6, 160, 3, 20, 3, 40, false},
    {"zero shares", 20, 10, 499, 0, 0, 30, 3, false},
    {"zero usage", 10, 10, 999, 0, 0, 30, 20, true},
};

std::string hex(long double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%La", v);
    return buf;
}

std::string who(const fs::tree& t, std::uint32_t a) {
    std::string s = "association " + std::to_string(a) + " (account " + t.account[a];
    if (t.is_user(a)) s += ", user " + t.user_name[a];
    return s + ")";
}

/// The first association of `t` whose `got` column differs from `want` in any bit, described;
/// empty when every entry is the same.
template <class T>
std::string first_difference(const fs::tree& t, const char* column, const std::vector<T>& got, const std::vector<T>& want) {
    if (got.size() != want.size())
        return std::string(column) + ": " + std::to_string(got.size()) + " entries, want " + std::to_string(want.size());
    for (std::uint32_t a = 0; a < got.size(); ++a)
        if (!same_bits(got[a], want[a]))
            return std::string(column) + " of " + who(t, a) + ": " + hex(got[a]) + ", Slurm's formula gives " + hex(want[a]);
    return {};
}

/// Counts how often the formulas' branches were taken, so that a shape that misses one is seen.
struct coverage {
    std::size_t use_parent = 0, zero_level = 0, zero_usage = 0, users = 0;
};

coverage covered(const fs::tree& t) {
    coverage c;
    for (std::uint32_t a = 1; a < t.size(); ++a) {
        c.use_parent += t.is_use_parent(a);
        c.zero_level += !t.is_use_parent(a) && t.level_shares[a] == 0;
        c.zero_usage += t.usage_raw[a] == 0.0L;
        c.users += t.is_user(a);
    }
    return c;
}

} // namespace

TEST_CASE("fairshare: every algorithm equals its plain formula bit for bit on 100,000-association trees") {
    std::uint32_t seed = 7;
    for (const shape& sh : shapes) {
        const std::string name = sh.name;
        CAPTURE(name);
        const fs::tree t = make_tree(sh, seed++);
        REQUIRE(t.size() > 95000);
        REQUIRE(t.size() < 105000);
        const coverage cov = covered(t);
        CHECK(cov.use_parent > 0);
        CHECK(cov.users > 90000);
        if (sh.zero_in <= 3) CHECK(cov.zero_level > 0);
        if (sh.no_usage) CHECK(cov.zero_usage == t.size() - 1);
        if (sh.depth > 63) CHECK(t.depth[t.size() - 2] > 63);

        SUBCASE("classic and DEPTH_OBLIVIOUS, with and without damping, on 1, 2 and 3 threads") {
            for (const std::uint16_t damp : {std::uint16_t{1}, std::uint16_t{3}}) {
                CAPTURE(damp);
                const fs::columns want_classic = fairshare_test::slurm_classic(t, damp);
                std::size_t powers = 0;
                const fs::columns want_do = fairshare_test::slurm_depth_oblivious(t, damp, powers);
                if (!sh.no_usage) CHECK(powers > 100); // DEPTH_OBLIVIOUS's k != 1 branch taken
                for (const unsigned threads : {1u, 2u, 3u}) {
                    CAPTURE(threads);
                    fs::columns c;
                    fs::classic(t, c, damp, threads);
                    CHECK(first_difference(t, "classic NormShares", c.shares_norm, want_classic.shares_norm) == "");
                    CHECK(first_difference(t, "classic EffectvUsage", c.usage_efctv, want_classic.usage_efctv) == "");
                    CHECK(first_difference(t, "classic FairShare", c.fs_factor, want_classic.fs_factor) == "");
                    fs::depth_oblivious(t, c, damp, threads);
                    CHECK(first_difference(t, "depth-oblivious NormShares", c.shares_norm, want_do.shares_norm) == "");
                    CHECK(first_difference(t, "depth-oblivious EffectvUsage", c.usage_efctv, want_do.usage_efctv) == "");
                    CHECK(first_difference(t, "depth-oblivious FairShare", c.fs_factor, want_do.fs_factor) == "");
                }
            }
        }
        SUBCASE("Fair Tree, as Slurm's code and as documented") {
            for (const bool merge : {false, true}) {
                CAPTURE(merge);
                const fairshare_test::naive_fair_tree want(t, merge);
                fs::columns c;
                fs::fair_tree(t, c, merge);
                std::vector<double> s(c.shares_norm);
                std::vector<long double> u(c.usage_efctv);
                s[0] = want.s[0]; // the root's S and U are no formula's (0 and 1 by convention)
                u[0] = want.u[0];
                CHECK(first_difference(t, "Fair Tree NormShares", s, want.s) == "");
                CHECK(first_difference(t, "Fair Tree EffectvUsage", u, want.u) == "");
                CHECK(first_difference(t, "Fair Tree LevelFS", c.level_fs, want.lf) == "");
                CHECK(first_difference(t, "Fair Tree FairShare", c.fs_factor, want.out) == "");
            }
        }
        SUBCASE("flux-accounting's weighted tree") {
            const fairshare_test::naive_flux want(t);
            fs::columns c;
            fs::flux_tree(t, c);
            std::vector<double> w(t.size());
            for (std::uint32_t a = 0; a < t.size(); ++a) w[a] = static_cast<double>(c.level_fs[a]);
            w[0] = want.w[0];
            CHECK(first_difference(t, "flux weight", w, want.w) == "");
            CHECK(first_difference(t, "flux factor", c.fs_factor, want.out) == "");
        }
    }
}

TEST_CASE("fairshare: the plain classic formula divides the share ratio first, as Slurm groups it") {
    // UE = UN + (UE_parent - UN) * (S_child / (long double)S_siblings) (Slurm's
    // _set_usage_efctv). With UN = 1/3, UE_parent = 2/3 and 7 of 10 shares, multiplying first
    // rounds to another long double; the pass must give the grouped value.
    fs::tree_builder b;
    const auto acct = b.add_account(0, "acct", 1);
    const auto other = b.add_account(0, "other", 1);
    b.add_user(other, "o", 1, 1.0L);
    const auto u = b.add_user(acct, "u", 7, 1.0L);
    b.add_user(acct, "v", 3, 1.0L);
    const fs::tree t = b.build();
    fs::columns c;
    fs::classic(t, c);
    const long double un = 1.0L / 3.0L;
    const long double ue_parent = 2.0L / 3.0L;
    const long double grouped = un + (ue_parent - un) * (7 / 10.0L);
    const long double multiplied_first = un + (ue_parent - un) * 7.0L / 10.0L;
    REQUIRE(grouped != multiplied_first); // the case tells the two groupings apart
    CHECK(same_bits(c.usage_efctv[b.position(u)], grouped));
    CHECK(same_bits(fairshare_test::slurm_classic(t, 1).usage_efctv[b.position(u)], grouped));
}
