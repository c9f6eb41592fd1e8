#pragma once
/// \file
/// One entry point for every fair-share algorithm: `compute(tree, columns, options)`, and the
/// names the command line uses for them.

#include <cstdint>
#include <optional>
#include <string_view>

#include <mfprio/core/constant_text.hpp>
#include <mfprio/fairshare/classic.hpp>
#include <mfprio/fairshare/columns.hpp>
#include <mfprio/fairshare/depth_oblivious.hpp>
#include <mfprio/fairshare/fair_tree.hpp>
#include <mfprio/fairshare/flux_tree.hpp>
#include <mfprio/fairshare/linear.hpp>
#include <mfprio/fairshare/tree.hpp>

namespace mfprio::fairshare {

/// Which algorithm, and its knobs.
struct options {
    algorithm algo = algorithm::fair_tree; ///< Slurm's default
    std::uint16_t damping = 1;             ///< FairShareDampeningFactor (classic family)
    /// Threads a classic, depth-oblivious, linear or Fair Tree pass may use (started for the
    /// pass and joined before it returns; the results are bit-identical to one thread's).
    /// flux-accounting's tree always runs on the calling thread.
    unsigned threads = 1;
};

/// Runs the chosen algorithm over `t`, filling `c` (resized to the tree).
inline void compute(const tree& t, columns& c, const options& o = {}) {
    switch (o.algo) {
    case algorithm::classic: classic(t, c, o.damping, o.threads); break;
    case algorithm::fair_tree: fair_tree(t, c, false, o.threads); break;
    case algorithm::fair_tree_merge: fair_tree(t, c, true, o.threads); break;
    case algorithm::depth_oblivious: depth_oblivious(t, c, o.damping, o.threads); break;
    case algorithm::flux: flux_tree(t, c); break;
    case algorithm::linear: linear(t, c, o.threads); break;
    }
}

/// The command-line name of an algorithm.
[[nodiscard]] constexpr std::string_view name_of(algorithm a) noexcept {
    switch (a) {
    case algorithm::classic: return "classic";
    case algorithm::fair_tree: return "fair-tree";
    case algorithm::fair_tree_merge: return "fair-tree-merge";
    case algorithm::depth_oblivious: return "depth-oblivious";
    case algorithm::flux: return "flux";
    case algorithm::linear: return "linear";
    }
    return "?";
}

/// Every algorithm, in the order the tool lists them.
inline constexpr algorithm algorithms[] = {algorithm::classic,         algorithm::fair_tree, algorithm::fair_tree_merge,
                                           algorithm::depth_oblivious, algorithm::flux,      algorithm::linear};

/// The algorithm named `s` (name_of), or nullopt.
[[nodiscard]] constexpr std::optional<algorithm> parse_algorithm(std::string_view s) noexcept {
    for (const algorithm a : algorithms)
        if (name_of(a) == s) return a;
    return std::nullopt;
}

/// Every algorithm's name, separated by `separator` ("classic fair-tree ..."), for the tool's
/// help, completion and messages.
[[nodiscard]] constexpr constant_text<128> algorithm_names(std::string_view separator) {
    constant_text<128> t;
    for (const algorithm a : algorithms) {
        if (t.size > 0) t.add(separator);
        t.add(name_of(a));
    }
    return t;
}

/// True for the algorithms whose sshare columns follow Fair Tree's rules (LevelFS shown,
/// FairShare for users only).
[[nodiscard]] constexpr bool is_fair_tree_family(algorithm a) noexcept {
    return a == algorithm::fair_tree || a == algorithm::fair_tree_merge || a == algorithm::flux;
}

} // namespace mfprio::fairshare
