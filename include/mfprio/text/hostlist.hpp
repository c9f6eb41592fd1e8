#pragma once
/// \file
/// Slurm hostlist expressions, as in slurm.conf `NodeName=` and partition `Nodes=`:
/// `n[001-100,200]`, `gpu01,gpu02`, `a[1-2]b[3-4]`, `rack[1-2]-n[01-04]`.
///
/// Rules:
/// - Hosts are separated by ',' (or white space) outside brackets; empty entries are
///   skipped.
/// - A bracket group holds comma-separated numbers or `lo-hi` ranges (lo <= hi).
/// - Several bracket groups in one host expand as a cartesian product, leftmost group
///   varying slowest: `a[1-2]b[3-4]` = a1b3, a1b4, a2b3, a2b4.
/// - Zero padding follows the width of the range start: `n[001-100]` gives n001..n100,
///   `n[8-10]` gives n8, n9, n10.
/// - `ALL` is not special here (partition `Nodes=ALL` is handled by the slurm.conf reader).
/// Errors: unbalanced or nested brackets, empty groups or ranges, non-numeric bounds,
/// reversed ranges (`[5-1]`), more hosts than `max_hosts` (default 1,000,000) and more than
/// `hostlist_max_bytes` of names.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <mfprio/core/expected.hpp>
#include <mfprio/text/text.hpp>

namespace mfprio::text {

/// Default limit on the number of hosts one hostlist may expand to.
inline constexpr std::size_t hostlist_max_hosts = 1'000'000;
/// Limit on the characters of all the names one hostlist expands to (64 MiB): long names
/// with several bracket groups would otherwise take gigabytes within the host limit.
inline constexpr std::size_t hostlist_max_bytes = std::size_t{64} << 20;

namespace hostlist_impl {

/// One numeric value of a bracket group with its printed width.
struct host_number {
    std::uint64_t value = 0;
    std::size_t width = 0;
};

/// A range bound: 1 to 18 decimal digits.
[[nodiscard]] inline bool parse_host_number(std::string_view s, std::uint64_t& out) noexcept {
    if (s.empty() || s.size() > 18) return false;
    out = 0;
    for (const char c : s) {
        if (!is_digit(c)) return false;
        out = out * 10 + static_cast<std::uint64_t>(c - '0');
    }
    return true;
}

/// Parses the inside of one bracket group into its numbers, in order. `offset` is the
/// 0-based position of the group's first character in the whole list (for columns).
[[nodiscard]] inline expected<std::vector<host_number>> parse_host_group(
    std::string_view group, std::size_t offset, std::size_t max_hosts) {
    std::vector<host_number> out;
    std::size_t pos = 0;
    for (const std::string_view part : split(group, ',')) {
        const std::size_t column = offset + pos + 1;
        pos += part.size() + 1;
        if (part.empty())
            return make_error({}, 0, column, {}, "empty range in hostlist bracket group");
        const std::size_t dash = part.find('-');
        const std::string_view lo_s = part.substr(0, dash);
        const std::string_view hi_s =
            (dash == std::string_view::npos) ? lo_s : part.substr(dash + 1);
        std::uint64_t lo = 0;
        std::uint64_t hi = 0;
        if (!parse_host_number(lo_s, lo) || !parse_host_number(hi_s, hi))
            return make_error({}, 0, column, {},
                              "non-numeric range " + quote(part) + " in hostlist");
        if (lo > hi)
            return make_error({}, 0, column, {},
                              "reversed range " + quote(part) + " in hostlist");
        if (hi - lo >= max_hosts || out.size() + (hi - lo + 1) > max_hosts)
            return make_error({}, 0, column, {},
                              "hostlist expands to more than " + std::to_string(max_hosts) +
                                  " hosts", error_kind::limit);
        for (std::uint64_t v = lo; v <= hi; ++v) out.push_back({v, lo_s.size()});
    }
    return out;
}

/// `value` printed in decimal, left-padded with zeros to `width`.
[[nodiscard]] inline std::string padded(std::uint64_t value, std::size_t width) {
    std::string digits = std::to_string(value);
    if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
    return digits;
}

/// Expands one host expression (no top-level separators) and appends its hosts to `out`.
[[nodiscard]] inline expected<bool> expand_one_host(std::string_view item, std::size_t offset,
                                                    std::size_t max_hosts,
                                                    std::vector<std::string>& out, std::size_t& out_bytes) {
    // Split into literal text and bracket groups.
    std::vector<std::string> prefixes{std::string{}};
    std::size_t i = 0;
    while (i < item.size()) {
        const std::size_t open = item.find_first_of("[]", i);
        const std::string_view literal =
            item.substr(i, (open == std::string_view::npos ? item.size() : open) - i);
        for (auto& p : prefixes) p.append(literal);
        if (open == std::string_view::npos) break;
        if (item[open] == ']')
            return make_error({}, 0, offset + open + 1, {}, "unbalanced ']' in hostlist");
        const std::size_t close = item.find_first_of("[]", open + 1);
        if (close == std::string_view::npos || item[close] == '[')
            return make_error({}, 0, offset + open + 1, {},
                              close == std::string_view::npos
                                  ? std::string("unbalanced '[' in hostlist")
                                  : std::string("nested '[' in hostlist"));
        const std::string_view group = item.substr(open + 1, close - open - 1);
        if (group.empty())
            return make_error({}, 0, offset + open + 1, {}, "empty '[]' in hostlist");
        auto numbers = parse_host_group(group, offset + open + 1, max_hosts);
        if (!numbers) return numbers.error();
        if (prefixes.size() * numbers->size() + out.size() > max_hosts)
            return make_error({}, 0, offset + open + 1, {},
                              "hostlist expands to more than " + std::to_string(max_hosts) +
                                  " hosts", error_kind::limit);
        // Characters of the names so far: the longest prefix and number, for every product.
        std::size_t longest = 0;
        for (const auto& p : prefixes) longest = std::max(longest, p.size());
        // (a number prints in at most 20 digits; the rest of the item may follow)
        if (prefixes.size() * numbers->size() * (longest + 20 + item.size()) > hostlist_max_bytes - out_bytes)
            return make_error({}, 0, offset + open + 1, {},
                              "hostlist expands to more than " + std::to_string(hostlist_max_bytes >> 20) +
                                  " MiB of host names", error_kind::limit);
        std::vector<std::string> next;
        next.reserve(prefixes.size() * numbers->size());
        for (const auto& p : prefixes)
            for (const auto& n : *numbers) next.push_back(p + padded(n.value, n.width));
        prefixes = std::move(next);
        i = close + 1;
    }
    if (out.size() + prefixes.size() > max_hosts) // a name without brackets counts too
        return make_error({}, 0, offset + 1, {},
                          "hostlist expands to more than " + std::to_string(max_hosts) + " hosts", error_kind::limit);
    for (auto& p : prefixes) {
        out_bytes += p.size();
        out.push_back(std::move(p));
    }
    return true;
}

} // namespace hostlist_impl

/// Expands a Slurm hostlist expression into host names, in order (see the file comment).
/// Errors carry a message and the 1-based column inside `list`; callers add file, line
/// and key.
[[nodiscard]] inline expected<std::vector<std::string>> expand_hostlist(
    std::string_view list, std::size_t max_hosts = hostlist_max_hosts) {
    std::vector<std::string> out;
    std::size_t out_bytes = 0; // characters of the names in `out`
    std::size_t i = 0;
    while (i < list.size()) {
        // Find the end of this host: a ',' or white space outside brackets.
        std::size_t end = i;
        int depth = 0;
        while (end < list.size()) {
            const char c = list[end];
            if (c == '[') ++depth;
            else if (c == ']') --depth;
            else if (depth == 0 && (c == ',' || is_space(c))) break;
            ++end;
        }
        if (end > i) {
            auto r = hostlist_impl::expand_one_host(list.substr(i, end - i), i, max_hosts, out, out_bytes);
            if (!r) return r.error();
        }
        i = end + 1;
    }
    return out;
}

} // namespace mfprio::text
