#pragma once
/// \file
/// The fixed-seed association trees of the fair-share benchmarks (fairshare_bench and
/// slurm_side_by_side): shares 1-100 and usage uniform at random for every association, built
/// with `tree_builder`; accounts' usage is the sum of their users'.
///   ref   10 accounts x 10 sub-accounts x `size` users (999: 100,011 associations);
///   flat  one account holding every user;
///   deep  chains of 16 nested accounts under the root, 4 users on every account of a chain;
///   wide  many accounts under the root, 4 users each.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>

#include <mfprio/fairshare/tree.hpp>

namespace mfprio_bench {

namespace fs = mfprio::fairshare;

inline constexpr std::uint32_t tree_seed = 20240917u;

enum class shape : std::uint8_t { ref, flat, deep, wide };

inline const char* name_of(shape s) {
    switch (s) {
    case shape::ref: return "ref";
    case shape::flat: return "flat";
    case shape::deep: return "deep";
    case shape::wide: return "wide";
    }
    return "?";
}

struct tree_spec {
    shape kind;
    std::size_t size; ///< nominal association count (ref: users per sub-account)
};

/// `prefix` followed by `k` ("u12"). (gcc 12's -Wrestrict misfires on literal + string.)
inline std::string label(const char* prefix, std::size_t k) {
    std::string s(prefix);
    s += std::to_string(k);
    return s;
}

/// Random shares and usage for the builder, from one fixed-seed stream.
struct tree_maker {
    std::mt19937_64 rng{tree_seed};
    fs::tree_builder b;

    std::uint32_t shares() { return static_cast<std::uint32_t>(std::uniform_int_distribution<int>(1, 100)(rng)); }
    long double usage() { return std::uniform_real_distribution<double>(0.0, 1e9)(rng); }
    std::uint32_t account(std::uint32_t parent, const std::string& name) { return b.add_account(parent, name, shares()); }
    void users(std::uint32_t acct, std::size_t count, std::size_t& serial) {
        for (std::size_t k = 0; k < count; ++k) {
            const std::uint32_t s = shares();
            b.add_user(acct, label("u", serial++), s, usage());
        }
    }
};

/// Builds one tree. Account usage is random too, and overwritten by the aggregation.
inline fs::tree make_tree(const tree_spec& spec) {
    tree_maker m;
    std::size_t serial = 0;
    switch (spec.kind) {
    case shape::ref:
        for (std::size_t i = 0; i < 10; ++i) {
            const std::uint32_t a = m.account(0, label("a", i));
            for (std::size_t j = 0; j < 10; ++j) {
                const std::uint32_t s = m.account(a, label("a", i) + label("s", j));
                m.users(s, spec.size, serial);
            }
        }
        break;
    case shape::flat: {
        const std::uint32_t a = m.account(0, "a0");
        m.users(a, spec.size > 2 ? spec.size - 2 : 1, serial);
        break;
    }
    case shape::deep: {
        constexpr std::size_t depth = 16, per_account = 4;
        const std::size_t chains = std::max<std::size_t>(1, (spec.size - 1) / (depth * (1 + per_account)));
        for (std::size_t c = 0; c < chains; ++c) {
            std::uint32_t parent = 0;
            for (std::size_t d = 0; d < depth; ++d) {
                parent = m.account(parent, label("c", c) + label("d", d));
                m.users(parent, per_account, serial);
            }
        }
        break;
    }
    case shape::wide: {
        constexpr std::size_t per_account = 4;
        const std::size_t accounts = std::max<std::size_t>(1, (spec.size - 1) / (1 + per_account));
        for (std::size_t a = 0; a < accounts; ++a) m.users(m.account(0, label("a", a)), per_account, serial);
        break;
    }
    }
    return m.b.build();
}

} // namespace mfprio_bench
