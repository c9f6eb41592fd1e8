// The passes on several threads (classic, linear, depth-oblivious and Fair Tree, ties as
// Slurm's code breaks them or merged, with `threads` > 1): every column must be bit-identical
// to the one-thread pass, which the other fairshare_* suites check against the reference. The trees are large enough to be cut in
// parts (at least 8,192 associations a part) and hold every case the passes branch on:
// FairShare=parent on users and on accounts (under the root and deeper), zero shares, zero
// usage, users beside sub-accounts, a deep chain of accounts, users directly under the root.

#include <doctest/doctest.h>

#include <mfprio/core/parallel.hpp>
#include <mfprio/fairshare/classic.hpp>
#include <mfprio/fairshare/compute.hpp>
#include <mfprio/fairshare/depth_oblivious.hpp>
#include <mfprio/fairshare/fair_tree.hpp>
#include <mfprio/fairshare/linear.hpp>

#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "fairshare_fixture.hpp"

using namespace mfprio::fairshare;

namespace {

std::string name(const char* prefix, std::uint32_t i) { return prefix + std::to_string(i); }

/// Accounts with sub-accounts and users (some users beside sub-accounts), a chain of
/// `chain` nested accounts with users at every level, and two users under the root. About 1
/// in 12 shares is FairShare=parent, 1 in 10 is 0, 1 in 8 usages is 0.
tree big_tree(std::uint32_t seed, std::uint32_t users_per_account, std::uint32_t chain_depth = 24) {
    std::mt19937 rng(seed);
    const auto pick = [&](std::uint32_t k) { return static_cast<std::uint32_t>(rng() % k); };
    const auto shares = [&]() -> std::uint32_t {
        const std::uint32_t r = pick(120);
        if (r < 10) return use_parent;
        if (r < 22) return 0;
        return 1 + pick(100);
    };
    const auto usage = [&]() -> long double { return pick(8) == 0 ? 0.0L : static_cast<long double>(pick(1000000)); };
    tree_builder b;
    std::uint32_t user = 0;
    for (std::uint32_t i = 0; i < 6; ++i) {
        const auto a = b.add_account(0, name("a", i), i == 0 ? use_parent : shares());
        for (std::uint32_t k = 0; k < 40; ++k) b.add_user(a, name("u", user++), shares(), usage());
        for (std::uint32_t j = 0; j < 4; ++j) {
            const auto s = b.add_account(a, name("s", i * 10 + j), shares());
            for (std::uint32_t k = 0; k < users_per_account; ++k) b.add_user(s, name("u", user++), shares(), usage());
        }
    }
    std::uint32_t chain = 0;
    for (std::uint32_t d = 0; d < chain_depth; ++d) {
        chain = b.add_account(chain, name("d", d), d % 5 == 3 ? use_parent : 1 + pick(10));
        for (std::uint32_t k = 0; k < 30; ++k) b.add_user(chain, name("u", user++), shares(), usage());
    }
    b.add_user(0, "rootuser", 1, 1000.0L);
    b.add_user(0, "rootparent", use_parent, 500.0L);
    tree t = b.build();
    t.aggregate_usage();
    return t;
}

bool same(long double x, long double y) { return x == y || (std::isnan(x) && std::isnan(y)); }
bool same(double x, double y) { return x == y || (std::isnan(x) && std::isnan(y)); }

/// The first association whose columns differ between `a` and `b`, or the tree's size.
std::size_t first_difference(const columns& a, const columns& b) {
    if (a.level_fs.size() != b.level_fs.size()) return 0;
    for (std::size_t i = 0; i < a.fs_factor.size(); ++i)
        if (!same(a.shares_norm[i], b.shares_norm[i]) || !same(a.usage_efctv[i], b.usage_efctv[i]) ||
            !same(a.fs_factor[i], b.fs_factor[i]) || !same(a.level_fs_of(i), b.level_fs_of(i)))
            return i;
    return a.fs_factor.size();
}

} // namespace

TEST_CASE("fairshare: classic, linear, depth-oblivious and Fair Tree on several threads give the one-thread columns") {
    for (const std::uint32_t seed : {1u, 2u, 3u}) {
        // Seed 3's chain is 70 accounts deep: deeper than the passes' one-sweep ways take
        // (63), so both the one-thread and the several-thread passes take their general ways.
        const tree t = big_tree(seed, 1200, seed == 3 ? 70 : 24);
        // Big enough to be cut: otherwise this would compare the one-thread pass with itself.
        REQUIRE(mfprio::detail::parts_for(t.size(), 2, 8192) == 2);
        REQUIRE(mfprio::detail::parts_for(t.child_begin[t.size()], 3, 8192) == 3);
        // The depth-oblivious pass's cuts of the children lists fall inside lists: a list's
        // users set partly by one thread, partly by the next.
        for (const unsigned parts : {2u, 3u})
            for (unsigned part = 1; part < parts; ++part)
                CHECK(fairshare_test::inside_a_list(t, mfprio::detail::part_begin(t.child_begin[t.size()], parts, part)));
        for (const algorithm algo : {algorithm::classic, algorithm::linear, algorithm::depth_oblivious,
                                     algorithm::fair_tree, algorithm::fair_tree_merge})
            for (const std::uint16_t damping : {std::uint16_t{1}, std::uint16_t{3}}) {
                // Linear and Fair Tree have no damping.
                if (algo != algorithm::classic && algo != algorithm::depth_oblivious && damping != 1) continue;
                CAPTURE(seed);
                CAPTURE(name_of(algo));
                CAPTURE(damping);
                columns one, many;
                compute(t, one, {algo, damping, 1});
                // A used columns object too: stale values must not survive.
                many.resize(t.size());
                for (auto& x : many.fs_factor) x = -7.0;
                for (const unsigned threads : {2u, 3u}) {
                    CAPTURE(threads);
                    compute(t, many, {algo, damping, threads});
                    CHECK(first_difference(one, many) == t.size());
                    CHECK(many.has_level_fs == one.has_level_fs);
                }
                // The pass is not trivial: over 500 users have a factor strictly
                // between 0 and 1 (the linear curve gives many heavy users 0).
                std::size_t inside = 0;
                for (std::uint32_t a = 0; a < t.size(); ++a)
                    inside += t.is_user(a) && one.fs_factor[a] > 0.0 && one.fs_factor[a] < 1.0;
                CHECK(inside > 500);
            }
    }
}

TEST_CASE("fairshare: Fair Tree on several threads with a workspace reused across trees and tie modes") {
    // The sorts of the sibling groups run in slices of the workspace's key buffers; a
    // workspace that served another tree (or the other tie mode) must not leak into a pass.
    const tree small = big_tree(5, 300);
    const tree t = big_tree(4, 1200);
    REQUIRE(mfprio::detail::parts_for(t.size(), 2, 8192) == 2);
    fair_tree_workspace ws;
    for (const bool merge : {false, true}) {
        CAPTURE(merge);
        columns one, many;
        fair_tree(t, one, merge);
        fair_tree(small, many, ws, !merge, 2);
        fair_tree(t, many, ws, merge, 2);
        CHECK(first_difference(one, many) == t.size());
        // Tied LFs are many in this tree (zero usage: +inf; zero shares: 0): the tie rules
        // are exercised, not only distinct values.
        std::size_t tied = 0;
        for (std::uint32_t a = 1; a < t.size(); ++a) tied += t.is_user(a) && one.level_fs[a] == 0.0L;
        CHECK(tied > 100);
    }
}

TEST_CASE("fairshare: a small tree stays on the calling thread and gives the same columns") {
    const tree t = big_tree(9, 10);
    REQUIRE(mfprio::detail::parts_for(t.size(), 2, 8192) == 1);
    for (const algorithm algo : {algorithm::classic, algorithm::depth_oblivious, algorithm::fair_tree}) {
        columns one, two;
        compute(t, one, {algo, 1, 1});
        compute(t, two, {algo, 1, 2});
        CHECK(first_difference(one, two) == t.size());
    }
}

TEST_CASE("parallel_rounds: every first round before the step between, the step before every second round") {
    for (const unsigned parts : {1u, 2u, 5u}) {
        INFO("parts = " << parts);
        std::atomic<unsigned> firsts{0}, seconds{0};
        std::atomic<bool> between_done{false};
        std::vector<int> first_seen(parts, 0), second_seen(parts, 0);
        bool between_saw_all = false;
        std::atomic<unsigned> early{0}; // second rounds that ran before the step between
        mfprio::detail::parallel_rounds(
            parts,
            [&](unsigned part) noexcept {
                ++first_seen[part];
                firsts.fetch_add(1);
            },
            [&]() noexcept {
                between_saw_all = firsts.load() == parts;
                between_done.store(true);
            },
            [&](unsigned part) noexcept {
                if (!between_done.load()) early.fetch_add(1);
                ++second_seen[part];
                seconds.fetch_add(1);
            });
        CHECK(between_saw_all);
        CHECK(early.load() == 0);
        CHECK(seconds.load() == parts);
        for (unsigned p = 0; p < parts; ++p) {
            CHECK(first_seen[p] == 1);
            CHECK(second_seen[p] == 1);
        }
    }
}
