#pragma once
/// \file
/// The snapshot site_factor/mfprio writes at each of slurmctld's priority recalculations
/// (`PrioritySiteFactorParameters=...,snapshot=DIR`: DIR/site_factor_snapshot), and what
/// mfprio's twin takes from it. The plugin's update runs in the recalculation after the usage
/// decay and before the pending jobs' priorities are computed, so the snapshot holds each
/// association's usage exactly as that recalculation finds it; no command prints it to more
/// than sshare's six decimals or assoc_mgr's two.
///
/// The text, one item a line (`#` starts a comment line):
///
///     pass=1800000000
///     assoc id=7 account=chem user=alice partition= shares_raw=10 level_shares=40
///           shares_norm=0x1.99999999999ap-4 usage_raw=0x... usage_norm=0x... usage_efctv=0x...
///           fs_parent=3 gpu_usage=0x0p+0
///
/// (one `assoc` line each, all on one line, in slurmctld's association list order). `pass` is
/// the time of the update (epoch seconds); then for every association: slurmctld's id,
/// account, user and partition (empty for none), its raw shares (2147483647 for
/// Fairshare=parent), the shares of its level, its normalized shares (double), raw,
/// normalized and effective usage (long double, as slurmctld holds them then: a user's
/// effective usage is NO_VAL, 4294967294, until a job needs it), its fair-share parent (the
/// association whose usage its own is measured against, 0 for the root) and its GPU usage
/// (usage_tres_raw of gres/gpu, GPU-seconds, long double; 0 without gres/gpu). Numbers are
/// C's hexadecimal floating point (`%a`, `%La`): exact, whatever the locale.
///
/// `snapshot_fairshare`: classic and depth-oblivious fair-share (PriorityFlags without
/// FAIR_TREE, or with DEPTH_OBLIVIOUS) as slurmctld computes it in that pass. At the start of
/// a pass slurmctld computes the accounts' usage and sets each user's effective usage to
/// NO_VAL; then, going through its job list (job id order), it computes a user's normalized and
/// effective usage at the first pending job that needs it (neither held nor given its priority
/// by an administrator), from the usage of that moment and, under DEPTH_OBLIVIOUS, from
/// the normalized usage its siblings hold then: computed earlier in the pass, or left from an
/// earlier one. The factor is 2^(-(UE / S) / FairShareDampeningFactor) of the job's
/// association, or of its parent for Fairshare=parent (`priority_p_calc_fs_factor`; 0 where
/// S <= 0 or UE is NO_VAL). Running jobs add their usage in the same walk; the twin takes the
/// usage at the pass for every user, which is slurmctld's unless a running job comes before a
/// user's first pending job in the list.

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <vector>

#include <mfprio/core/expected.hpp>
#include <mfprio/core/job.hpp>
#include <mfprio/read/assoc_table.hpp>
#include <mfprio/fairshare/classic.hpp>
#include <mfprio/fairshare/depth_oblivious.hpp>
#include <mfprio/text/text.hpp>

namespace mfprio::config {

/// One association of a snapshot.
struct snapshot_assoc {
    std::uint32_t id = 0;
    std::string account, user, partition;
    std::uint32_t shares_raw = 0;   ///< RawShares; `fs_use_parent` for Fairshare=parent
    std::uint32_t level_shares = 0; ///< the shares of its level (siblings and itself)
    double shares_norm = 0;
    long double usage_raw = 0, usage_norm = 0, usage_efctv = 0;
    std::uint32_t fs_parent = 0; ///< id of its fair-share parent; 0 for the root
    long double gpu_usage = 0;   ///< GPU-seconds (decayed)
    std::size_t line = 0;       ///< its line in the snapshot (0 when built in memory)

    /// Whole GPU-minutes, as `scontrol show assoc_mgr` prints them in GrpTRESMins.
    [[nodiscard]] std::uint64_t gpu_minutes() const noexcept {
        if (!(gpu_usage > 0)) return 0;
        if (gpu_usage >= 18446744073709551615.0L) return 18446744073709551615ULL / 60;
        return static_cast<std::uint64_t>(gpu_usage) / 60;
    }
};

/// A snapshot: the pass time and every association.
struct site_snapshot {
    std::int64_t pass = 0;
    std::vector<snapshot_assoc> assocs;

    [[nodiscard]] const snapshot_assoc* find_id(std::uint32_t id) const {
        for (const auto& a : assocs)
            if (a.id == id) return &a;
        return nullptr;
    }
};

/// Slurm's SLURMDB_FS_USE_PARENT: the raw shares of a Fairshare=parent association.
inline constexpr std::uint32_t snapshot_fs_use_parent = 0x7fffffff;

/// The file name of the snapshot in the plugin's snapshot=DIR.
inline constexpr std::string_view site_snapshot_file = "site_factor_snapshot";

namespace detail {
inline void snapshot_hex(std::string& out, long double v) {
    char buf[64];
    if (std::signbit(v)) {
        out += '-';
        v = -v;
    }
    out += "0x";
    const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::hex);
    out.append(buf, r.ptr);
}
inline void snapshot_hex(std::string& out, double v) { snapshot_hex(out, static_cast<long double>(v)); }

/// A hexadecimal floating point number as %a / %La print it ("0x1.8p+3", "-0xcp-1"), or a
/// decimal one. Read from a NUL-terminated copy: libstdc++ 12's from_chars for long double
/// reads its input as a C string, past the end of a view.
template <class T>
[[nodiscard]] std::optional<T> snapshot_number(std::string_view s) {
    bool negative = false;
    if (s.starts_with('-')) {
        negative = true;
        s.remove_prefix(1);
    }
    const bool hex = s.starts_with("0x") || s.starts_with("0X");
    if (hex) s.remove_prefix(2);
    if (s.empty() || s.front() == '-' || s.front() == '+' || s.size() > 64) return std::nullopt;
    const std::string copy(s);
    T v{};
    const char* end = copy.data() + copy.size();
    const auto r = hex ? std::from_chars(copy.data(), end, v, std::chars_format::hex) : std::from_chars(copy.data(), end, v);
    if (r.ec != std::errc() || r.ptr != end || !std::isfinite(v)) return std::nullopt;
    return negative ? -v : v;
}
} // namespace detail

/// The snapshot's text (see the file comment).
[[nodiscard]] inline std::string format_site_snapshot(const site_snapshot& s) {
    std::string out = "# site_factor/mfprio: slurmctld's usage at its priority recalculation\npass=";
    out += std::to_string(s.pass);
    out += '\n';
    for (const auto& a : s.assocs) {
        out += "assoc id=" + std::to_string(a.id) + " account=" + a.account + " user=" + a.user +
               " partition=" + a.partition + " shares_raw=" + std::to_string(a.shares_raw) +
               " level_shares=" + std::to_string(a.level_shares) + " shares_norm=";
        detail::snapshot_hex(out, a.shares_norm);
        out += " usage_raw=";
        detail::snapshot_hex(out, a.usage_raw);
        out += " usage_norm=";
        detail::snapshot_hex(out, a.usage_norm);
        out += " usage_efctv=";
        detail::snapshot_hex(out, a.usage_efctv);
        out += " fs_parent=" + std::to_string(a.fs_parent) + " gpu_usage=";
        detail::snapshot_hex(out, a.gpu_usage);
        out += '\n';
    }
    return out;
}

namespace detail {

/// The fair-share parents form a tree: following them from any association ends at one
/// without a parent. A loop (an association its own parent, or an ancestor of itself) is
/// the error, at the first association of it in the file; each association is walked once
/// (state 1: on the current path, 2: known to end at a root). `ids` maps each id to its
/// index; every parent is in it.
[[nodiscard]] inline std::optional<input_error> snapshot_parent_loop(
    const site_snapshot& s, const std::unordered_map<std::uint32_t, std::size_t>& ids, std::string_view file) {
    std::vector<std::uint8_t> state(s.assocs.size(), 0);
    std::vector<std::size_t> path;
    for (std::size_t start = 0; start < s.assocs.size(); ++start) {
        path.clear();
        std::size_t i = start;
        while (state[i] == 0) {
            state[i] = 1;
            path.push_back(i);
            if (s.assocs[i].fs_parent == 0) break;
            i = ids.at(s.assocs[i].fs_parent);
        }
        if (state[i] == 1 && s.assocs[i].fs_parent != 0) {
            const auto& a = s.assocs[*std::min_element(std::find(path.begin(), path.end(), i), path.end())];
            return text::make_error(file, a.line, 1, "fs_parent",
                                    a.fs_parent == a.id ? "association " + std::to_string(a.id) + " is its own parent"
                                                        : "association " + std::to_string(a.id) +
                                                              " is an ancestor of itself (its fair-share parents form a loop)");
        }
        for (const std::size_t k : path) state[k] = 2;
    }
    return std::nullopt;
}

} // namespace detail

/// Reads a snapshot; errors name `file`, the line and column, and what is wrong.
[[nodiscard]] inline expected<site_snapshot> parse_site_snapshot(std::string_view text, std::string_view file) {
    site_snapshot s;
    bool have_pass = false;
    std::optional<input_error> error;
    std::unordered_map<std::uint32_t, std::size_t> ids;
    const auto fail = [&](std::size_t line, std::size_t column, std::string_view key, std::string message) {
        error = text::make_error(file, line, column, key, std::move(message));
        return false;
    };
    text::for_each_line(text, [&](const text::text_line& l) {
        const std::string_view t = text::trim(l.text);
        if (t.empty() || t.front() == '#') return true;
        const std::size_t base = static_cast<std::size_t>(t.data() - l.text.data()) + 1;
        if (t.starts_with("pass=")) {
            const auto n = text::parse_unsigned<std::uint64_t>(t.substr(5));
            if (!n || *n > static_cast<std::uint64_t>(text::max_epoch))
                return fail(l.number, base + 5, "pass", "expected epoch seconds, got " + text::quote(t.substr(5)));
            if (have_pass) return fail(l.number, base, "pass", "a second pass line");
            s.pass = static_cast<std::int64_t>(*n);
            have_pass = true;
            return true;
        }
        if (!t.starts_with("assoc ")) return fail(l.number, base, {}, "expected pass=EPOCH or an assoc line, got " + text::quote(t));
        snapshot_assoc a;
        a.line = l.number;
        unsigned seen = 0;
        static constexpr std::string_view keys[] = {"id",          "account",   "user",       "partition",
                                                    "shares_norm", "usage_raw", "usage_norm", "usage_efctv",
                                                    "fs_parent",   "gpu_usage", "shares_raw", "level_shares"};
        std::size_t pos = 6;
        while (pos < t.size()) {
            while (pos < t.size() && (t[pos] == ' ' || t[pos] == '\t')) ++pos;
            if (pos >= t.size()) break;
            std::size_t end = t.find_first_of(" \t", pos);
            if (end == std::string_view::npos) end = t.size();
            const std::string_view item = t.substr(pos, end - pos);
            const std::size_t column = base + pos;
            const std::size_t eq = item.find('=');
            const std::string_view key = item.substr(0, eq);
            std::size_t k = 0;
            while (k < std::size(keys) && keys[k] != key) ++k;
            if (eq == std::string_view::npos || k == std::size(keys))
                return fail(l.number, column, {}, "expected KEY=VALUE with a key of an assoc line, got " + text::quote(item));
            if (seen & (1u << k)) return fail(l.number, column, key, "given twice");
            seen |= 1u << k;
            const std::string_view v = item.substr(eq + 1);
            const std::size_t vcol = column + eq + 1;
            bool ok = true;
            switch (k) {
            case 0:
            case 8:
            case 10:
            case 11: {
                const auto n = text::parse_unsigned<std::uint32_t>(v);
                ok = n.has_value();
                if (ok) (k == 0 ? a.id : k == 8 ? a.fs_parent : k == 10 ? a.shares_raw : a.level_shares) = *n;
                break;
            }
            case 1: a.account = std::string(v); break;
            case 2: a.user = std::string(v); break;
            case 3: a.partition = std::string(v); break;
            case 4: {
                const auto d = detail::snapshot_number<double>(v);
                ok = d.has_value();
                if (ok) a.shares_norm = *d;
                break;
            }
            default: {
                const auto d = detail::snapshot_number<long double>(v);
                ok = d.has_value() && *d >= 0;
                if (ok) (k == 5 ? a.usage_raw : k == 6 ? a.usage_norm : k == 7 ? a.usage_efctv : a.gpu_usage) = *d;
            }
            }
            if (!ok)
                return fail(l.number, vcol, key,
                            k == 0 || k == 8 ? "expected an association id, got " + text::quote(v)
                            : k >= 10        ? "expected a count from 0 to 4294967295, got " + text::quote(v)
                                             : "expected a finite number (C's %a), not negative, got " + text::quote(v));
            pos = end;
        }
        if (seen != (1u << std::size(keys)) - 1) {
            std::size_t k = 0;
            while (seen & (1u << k)) ++k;
            return fail(l.number, base, keys[k], "missing from the assoc line");
        }
        if (!ids.emplace(a.id, s.assocs.size()).second)
            return fail(l.number, base, "id", "association " + std::to_string(a.id) + " is listed twice");
        s.assocs.push_back(std::move(a));
        return true;
    });
    if (error) return *error;
    if (!have_pass) return text::make_error(file, 0, 0, "pass", "no pass=EPOCH line");
    for (const auto& a : s.assocs)
        if (a.fs_parent != 0 && !ids.contains(a.fs_parent))
            return text::make_error(file, a.line, 1, "fs_parent",
                                    "association " + std::to_string(a.fs_parent) + " is not in the snapshot");
    if (auto loop = detail::snapshot_parent_loop(s, ids, file)) return *loop;
    return s;
}

/// Slurm's fuzzy_equal(v, NO_VAL): within 1e-6 of 4294967294.
[[nodiscard]] inline bool snapshot_no_val(long double v) noexcept {
    const long double d = v - static_cast<long double>(no_val32);
    return d > -1e-6L && d < 1e-6L;
}

namespace detail {
/// The snapshot association of each row of `assoc` (by account, user and partition), or
/// nullptr.
[[nodiscard]] inline std::vector<const snapshot_assoc*> snapshot_rows(const site_snapshot& s, const assoc_table& assoc) {
    const auto key = [](std::string_view a, std::string_view u, std::string_view p) {
        return std::string(a) + '\x1f' + std::string(u) + '\x1f' + std::string(p);
    };
    std::unordered_map<std::string, const snapshot_assoc*> by_name;
    for (const auto& a : s.assocs) by_name.emplace(key(a.account, a.user, a.partition), &a);
    std::vector<const snapshot_assoc*> out(assoc.rows.size(), nullptr);
    for (std::size_t i = 0; i < assoc.rows.size(); ++i) {
        const auto& r = assoc.rows[i];
        const auto it = by_name.find(key(r.account, r.user, r.partition));
        if (it != by_name.end()) out[i] = it->second;
    }
    return out;
}
} // namespace detail

/// The fair-share factor of each row of `assoc` (by account, user and partition) as
/// slurmctld computes it in the snapshot's pass under classic or depth-oblivious fair-share
/// (see the file comment); `needed`: the association row of each job that needs its factor,
/// in job list order. NaN for an account row. An error names a user association of `assoc`
/// that the snapshot does not have (they come from different clusters or times).
[[nodiscard]] inline expected<std::vector<double>> snapshot_fairshare(const site_snapshot& s, const assoc_table& assoc,
                                                                      std::span<const std::size_t> needed,
                                                                      bool depth_oblivious, std::uint16_t damping,
                                                                      std::string_view file) {
    const std::size_t n = s.assocs.size();
    std::unordered_map<std::uint32_t, std::size_t> at;
    for (std::size_t i = 0; i < n; ++i) at.emplace(s.assocs[i].id, i);
    std::size_t root = n;
    for (std::size_t i = 0; i < n && root == n; ++i)
        if (s.assocs[i].fs_parent == 0 && s.assocs[i].user.empty()) root = i;
    if (root == n) return text::make_error(file, 0, 0, {}, "no root association (an account without a fair-share parent)");
    const auto parent = [&](std::size_t i) { return s.assocs[i].fs_parent != 0 ? at.at(s.assocs[i].fs_parent) : n; };
    // What slurmctld holds as the pass goes on: normalized and effective usage.
    std::vector<long double> un(n), ue(n);
    for (std::size_t i = 0; i < n; ++i) {
        un[i] = s.assocs[i].usage_norm;
        ue[i] = s.assocs[i].usage_efctv;
    }
    const long double root_raw = s.assocs[root].usage_raw;
    // DEPTH_OBLIVIOUS: each account's children whose normalized usage its users' effective
    // usage sums (all but those using their parent's), in snapshot order, the order of the
    // sum. Listed once: a walk of every association for every user is quadratic in the
    // associations.
    std::vector<std::vector<std::size_t>> counted(depth_oblivious ? n : 0);
    if (depth_oblivious)
        for (std::size_t k = 0; k < n; ++k)
            if (parent(k) != n && s.assocs[k].shares_raw != snapshot_fs_use_parent) counted[parent(k)].push_back(k);
    // priority_p_set_assoc_usage: the normalized usage, then the effective one.
    const auto compute = [&](std::size_t i) {
        const snapshot_assoc& a = s.assocs[i];
        un[i] = root_raw == 0.0L ? 0.0L : a.usage_raw / root_raw;
        if (un[i] > 1.0L) un[i] = 1.0L;
        const std::size_t p = parent(i);
        if (p == n || p == root) {
            ue[i] = un[i];
        } else if (a.shares_raw == snapshot_fs_use_parent) {
            ue[i] = ue[p];
        } else if (depth_oblivious) {
            long double siblings = 0.0L;
            for (const std::size_t k : counted[p]) siblings += un[k];
            ue[i] = fairshare::depth_oblivious_usage_efctv(un[i], a.shares_norm, ue[p], s.assocs[p].shares_norm, siblings);
        } else if (a.level_shares == 0) {
            ue[i] = ue[p];
        } else {
            ue[i] = un[i] + (ue[p] - un[i]) * (static_cast<long double>(a.shares_raw) /
                                               static_cast<long double>(a.level_shares));
        }
    };
    // The association a job's factor comes from (_get_fairshare_priority).
    const auto fs_of = [&](std::size_t i) {
        return s.assocs[i].shares_raw == snapshot_fs_use_parent && parent(i) != n ? parent(i) : i;
    };
    const auto rows = detail::snapshot_rows(s, assoc);
    for (std::size_t r = 0; r < rows.size(); ++r)
        if (assoc.rows[r].is_user() && rows[r] == nullptr)
            return text::make_error(file, 0, 0, {},
                                    "association (" + assoc.rows[r].account + ", " + assoc.rows[r].user +
                                        (assoc.rows[r].partition.empty() ? "" : ", " + assoc.rows[r].partition) +
                                        ") is not in the snapshot: it is of another cluster or time");
    const auto index_of = [&](std::size_t row) { return static_cast<std::size_t>(rows[row] - s.assocs.data()); };
    for (const std::size_t row : needed) {
        if (row >= rows.size() || rows[row] == nullptr) continue;
        const std::size_t f = fs_of(index_of(row));
        if (snapshot_no_val(ue[f])) compute(f);
    }
    std::vector<double> out(assoc.rows.size(), std::numeric_limits<double>::quiet_NaN());
    for (std::size_t r = 0; r < rows.size(); ++r) {
        if (!assoc.rows[r].is_user()) continue;
        const std::size_t f = fs_of(index_of(r));
        if (snapshot_no_val(ue[f])) compute(f); // no job needed it: as sshare would have it
        out[r] = snapshot_no_val(ue[f]) ? 0.0 : fairshare::detail::classic_factor(ue[f], s.assocs[f].shares_norm, damping);
    }
    return out;
}

/// Each row's GPU usage in whole minutes from the snapshot (by account, user and
/// partition); nullopt for a row the snapshot does not have.
[[nodiscard]] inline std::vector<std::optional<std::uint64_t>> snapshot_gpu_minutes(const site_snapshot& s,
                                                                                    const assoc_table& assoc) {
    const auto rows = detail::snapshot_rows(s, assoc);
    std::vector<std::optional<std::uint64_t>> out(assoc.rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i)
        if (rows[i] != nullptr) out[i] = rows[i]->gpu_minutes();
    return out;
}

} // namespace mfprio::config
