#pragma once
// Shared by tests/fairshare_depth_oblivious.cpp and tests/fairshare_threads.cpp: where the
// several-thread passes cut the flattened children lists.

#include <cstddef>
#include <cstdint>

#include <mfprio/fairshare/tree.hpp>

namespace fairshare_test {

/// Whether position `at` of the flattened children lists lies strictly inside an fs parent's
/// list, between two users: a part of a several-thread pass that starts there takes the end
/// of one list and the part before it the start.
inline bool inside_a_list(const mfprio::fairshare::tree& t, std::size_t at) {
    if (at == 0 || at >= t.child_begin[t.size()]) return false;
    for (std::uint32_t p = 0; p < t.size(); ++p)
        if (t.child_begin[p] < at && at < t.child_begin[p + 1])
            return t.is_user(t.children[at - 1]) && t.is_user(t.children[at]);
    return false;
}

} // namespace fairshare_test
