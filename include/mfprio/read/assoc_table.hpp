#pragma once
/// \file
/// The association table: the output of `sshare -a -P -l` (header
/// `Account|User|RawShares|NormShares|RawUsage|NormUsage|EffectvUsage|FairShare|LevelFS|GrpTRESMins|TRESRunMins`),
/// or any subset of those columns that has Account and User, plus the optional columns
/// `Partition` (sshare -m) and `Priority` (association priority, u32).
///
/// Tree semantics (reference §0, §4.1):
/// - The Account cell is indented by one space per depth; the depth of a row is its
///   number of leading spaces. The first row is normally `root` (depth 0).
/// - A user row (User non-empty) sits one level below its account: under account `a` at
///   depth 1 (" a"), its users show Account "  a" (depth 2).
/// - The parent of an account row at depth d is the nearest preceding account row at
///   depth d-1. The parent of a user row at depth d is the nearest preceding account row at
///   depth d-1, which must carry the same account name.
/// - Without a root row, a root is synthesized (row 0, line 0, RawShares blank) and the
///   top-level accounts become its children; if those top-level rows are not indented,
///   every depth is shifted by one.
/// - Only the root may be at depth 0.
/// Values: RawShares is an integer, `parent` (-> `fs_use_parent`) or blank (->
/// `mfprio::no_val32`, as sshare prints root); the usage and share columns are
/// non-negative numbers or blank (nullopt); LevelFS may be `inf`.
/// The association priority is inherited from the nearest ancestor that has one
/// (reference §0: the accounting database does this), so a blank Priority cell under an
/// account with Priority=10 reads 10.

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <mfprio/core/expected.hpp>
#include <mfprio/core/job.hpp>
#include <mfprio/text/table.hpp>
#include <mfprio/read/common.hpp>

namespace mfprio::config {

/// RawShares sentinel for `FairShare=parent` (Slurm's SLURMDB_FS_USE_PARENT).
inline constexpr std::uint32_t fs_use_parent = 0x7FFFFFFFu;

/// RawShares as the association table reads it: `parent` (`fs_use_parent`) or an integer
/// from 0 to 4294967295 (2147483647 is `parent` in Slurm too).
[[nodiscard]] inline std::optional<std::uint32_t> parse_raw_shares(std::string_view text) {
    text = trim(text);
    if (iequals(text, "parent")) return fs_use_parent;
    return parse_unsigned<std::uint32_t>(text);
}

/// One association (account or user) with its place in the tree and sshare's columns.
struct assoc_row {
    std::string account;               ///< account name (without the indentation)
    std::string user;                  ///< user name; empty for account rows
    std::string partition;             ///< partition of a per-partition association, else empty
    std::uint32_t depth = 0;           ///< depth in the tree (root = 0)
    std::int32_t parent = -1;          ///< row index of the parent; -1 for root
    std::uint32_t raw_shares = no_val32; ///< RawShares; `fs_use_parent`; `no_val32` if blank
    std::optional<double> norm_shares;     ///< NormShares
    std::optional<double> raw_usage;       ///< RawUsage
    std::optional<double> norm_usage;      ///< NormUsage
    std::optional<double> effective_usage; ///< EffectvUsage
    std::optional<double> fairshare;       ///< FairShare
    std::optional<double> level_fs;        ///< LevelFS (may be +infinity)
    std::optional<std::uint32_t> priority; ///< association priority (inherited, see file comment)
    std::optional<double> printed_raw_usage; ///< RawUsage as sshare printed it, when a more precise one replaced `raw_usage`
    std::optional<std::string> grp_tres_mins; ///< GrpTRESMins as printed (not used in calculations)
    std::optional<std::string> tres_run_mins; ///< TRESRunMins as printed (not used in calculations)
    /// GPU usage in whole minutes (usage_tres_raw of gres/gpu), from `scontrol show
    /// assoc_mgr`'s GrpTRESMins; for site_factor/mfprio's twin.
    std::optional<std::uint64_t> gpu_minutes;
    std::size_t line = 0;              ///< 1-based line in the file; 0 for a synthesized root

    /// True for user associations (leaves).
    [[nodiscard]] bool is_user() const noexcept { return !user.empty(); }
};

/// All associations in sshare order (parents before children; row 0 is root).
struct assoc_table {
    std::vector<assoc_row> rows;        ///< the associations; rows[0] is root
    std::vector<std::string> columns;   ///< the column names the file had
    bool root_synthesized = false;      ///< true when the file had no root row
    /// Lookup index (account, user, partition) -> row, built by the reader; call
    /// `rebuild_index()` after changing `rows` by hand.
    std::unordered_map<std::string, std::size_t> index;

    /// Row of the user association (account, user, partition); `partition` empty means the
    /// association that is not partition-specific.
    [[nodiscard]] std::optional<std::size_t> find_user(std::string_view account,
                                                       std::string_view user,
                                                       std::string_view partition = {}) const {
        if (user.empty()) return std::nullopt;
        return lookup(account, user, partition);
    }
    /// Row of the account association `account`.
    [[nodiscard]] std::optional<std::size_t> find_account(std::string_view account) const {
        return lookup(account, {}, {});
    }
    /// Row of the association (account, user, partition): an account's when `user` is empty.
    [[nodiscard]] std::optional<std::size_t> find(std::string_view account, std::string_view user,
                                                  std::string_view partition) const {
        return user.empty() ? find_account(account) : find_user(account, user, partition);
    }
    /// True if the file had the column `name` (case-insensitive).
    [[nodiscard]] bool has_column(std::string_view name) const noexcept {
        for (const auto& c : columns)
            if (iequals(c, name)) return true;
        return false;
    }
    /// Rebuilds `index` from `rows`.
    void rebuild_index() {
        index.clear();
        for (std::size_t i = 0; i < rows.size(); ++i)
            index.emplace(key(rows[i].account, rows[i].user, rows[i].partition), i);
    }
    /// The index key of (account, user, partition).
    [[nodiscard]] static std::string key(std::string_view account, std::string_view user,
                                         std::string_view partition) {
        std::string k(account);
        k += '\x1f';
        k.append(user);
        k += '\x1f';
        k.append(partition);
        return k;
    }

private:
    [[nodiscard]] std::optional<std::size_t> lookup(std::string_view account,
                                                    std::string_view user,
                                                    std::string_view partition) const {
        const auto it = index.find(key(account, user, partition));
        if (it == index.end()) return std::nullopt;
        return it->second;
    }
};

namespace detail {

/// A number cell of the association table within [0, `hi`] (`hi` 2^64: below it);
/// `allow_inf` also accepts "inf".
[[nodiscard]] inline expected<std::optional<double>> assoc_number(const table& t,
                                                                  const table_row& row,
                                                                  std::size_t col, double hi,
                                                                  bool allow_inf) {
    const std::string_view cell = trim(row.cells[col]);
    if (cell.empty()) return std::optional<double>{};
    if (allow_inf && iequals(cell, "inf"))
        return std::optional<double>{std::numeric_limits<double>::infinity()};
    const auto v = parse_double(cell);
    if (!v || *v < 0.0 || *v > hi || (hi == two_pow_64 && *v == hi))
        return make_error(t.file, row.line, row.columns[col], t.header[col],
                          "value " + quote(cell) + " is not a number " +
                              (hi == std::numeric_limits<double>::max() ? std::string("of at least 0")
                                                                        : range_text(0.0, hi)) +
                              (allow_inf ? std::string(" or inf") : std::string()));
    return std::optional<double>{*v};
}

} // namespace detail

namespace detail {

/// The value columns of an association table (Account and User apart).
struct assoc_columns {
    std::optional<std::size_t> shares, prio, grp_tres, run_mins;
    struct number_column {
        std::optional<std::size_t> col;
        std::optional<double> assoc_row::*field;
        double hi;
        bool allow_inf;
    };
    std::array<number_column, 6> numbers;

    explicit assoc_columns(const table& t)
        : shares(t.column("RawShares")), prio(t.column("Priority")), grp_tres(t.column("GrpTRESMins")),
          run_mins(t.column("TRESRunMins")),
          // The ranges Slurm's values have: shares, normalised usage (set_assoc_usage_norm
          // caps it at 1) and the fair-share factor are fractions; sshare prints RawUsage as an
          // unsigned 64-bit integer; effective usage (above 1 under depth-oblivious) and LevelFS
          // are unbounded.
          numbers{{{t.column("NormShares"), &assoc_row::norm_shares, 1.0, false},
                   {t.column("RawUsage"), &assoc_row::raw_usage, two_pow_64, false},
                   {t.column("NormUsage"), &assoc_row::norm_usage, 1.0, false},
                   {t.column("EffectvUsage"), &assoc_row::effective_usage, std::numeric_limits<double>::max(), false},
                   {t.column("FairShare"), &assoc_row::fairshare, 1.0, false},
                   {t.column("LevelFS"), &assoc_row::level_fs, std::numeric_limits<double>::max(), true}}} {}
};

/// An association row's values: shares, the printed numbers, its priority, its TRES minutes.
[[nodiscard]] inline std::optional<input_error> read_assoc_values(const row_reader& r, const table& t, const table_row& row,
                                                                  const assoc_columns& c, assoc_row& a) {
    if (c.shares) {
        const std::string_view cell = r.cell(*c.shares);
        if (cell.empty()) {
            a.raw_shares = no_val32;
        } else if (cell.front() == '-') {
            return r.fail(*c.shares, "negative share " + text::quote(cell));
        } else {
            const auto v = parse_raw_shares(cell);
            if (!v) return r.fail(*c.shares, "share " + text::quote(cell) + " is not an integer, 'parent' or blank");
            a.raw_shares = *v;
        }
    }
    for (const auto& n : c.numbers) {
        if (!n.col) continue;
        auto v = assoc_number(t, row, *n.col, n.hi, n.allow_inf);
        if (!v) return v.error();
        a.*(n.field) = *v;
    }
    if (const std::string_view cell = r.cell(c.prio); !cell.empty()) {
        const auto v = parse_unsigned<std::uint32_t>(cell);
        if (!v) return r.fail(*c.prio, "priority " + text::quote(cell) + " is not an integer from 0 to 4294967295");
        a.priority = *v;
    }
    if (c.grp_tres) a.grp_tres_mins = std::string(r.cell(*c.grp_tres));
    if (c.run_mins) a.tres_run_mins = std::string(r.cell(*c.run_mins));
    return std::nullopt;
}

/// How an association is named in errors: the account, or account/user[/partition].
[[nodiscard]] inline std::string assoc_label(const assoc_row& a) {
    if (!a.is_user()) return a.account;
    return a.account + "/" + a.user + (a.partition.empty() ? std::string() : "/" + a.partition);
}

/// Adds a root account row at index 0, for a table whose first row is not the root account
/// (or that has no row).
inline void add_root(assoc_table& out) {
    assoc_row root;
    root.account = "root";
    out.rows.push_back(std::move(root));
    out.root_synthesized = true;
    out.index.emplace(assoc_table::key("root", {}, {}), 0);
}

} // namespace detail

/// Builds an `assoc_table` from an already parsed pipe table (see the file comment).
[[nodiscard]] inline expected<assoc_table> assoc_table_from(const table& t) {
    if (auto e = missing_column(t, {"Account", "User"}, "the association table")) return *e;
    const std::size_t acct_col = *t.column("Account"), user_col = *t.column("User");
    const auto part_col = t.column("Partition");
    const detail::assoc_columns values(t);

    assoc_table out;
    out.columns = t.header;
    std::vector<std::size_t> open; // open[d] = row index of the current account at depth d
    std::uint32_t offset = 0;

    for (std::size_t r = 0; r < t.rows.size(); ++r) {
        const table_row& row = t.rows[r];
        const row_reader cells(t, row);
        const std::string& acct_cell = row.cells[acct_col];
        std::size_t spaces = 0;
        while (spaces < acct_cell.size() && acct_cell[spaces] == ' ') ++spaces;

        assoc_row a;
        a.line = row.line;
        a.account = std::string(trim(acct_cell));
        a.user = std::string(cells.cell(user_col));
        if (part_col) a.partition = std::string(cells.cell(*part_col));
        if (a.account.empty()) return cells.fail(acct_col, "empty account name");
        if (!a.partition.empty() && !a.is_user())
            return cells.fail(*part_col, "account " + text::quote(a.account) + " has a partition; only user associations may");

        if (r == 0 && !(a.account == "root" && !a.is_user() && spaces == 0)) {
            detail::add_root(out);
            open.push_back(0);
            offset = (spaces == 0) ? 1 : 0;
        }
        if (spaces > 100000) return cells.fail(acct_col, "account indented too deeply");
        const auto depth = static_cast<std::uint32_t>(spaces) + offset;
        a.depth = depth;

        // Place the row in the tree.
        if (depth == 0) {
            if (!out.rows.empty())
                return cells.fail(acct_col, "only the root account may be at depth 0 (not indented); " +
                                                text::quote(a.account) + " is");
            a.parent = -1;
        } else if (!a.is_user()) {
            if (depth > open.size())
                return cells.fail(acct_col, "account " + text::quote(a.account) + " is at depth " + std::to_string(depth) +
                                                ", more than one level below the previous account");
            a.parent = static_cast<std::int32_t>(open[depth - 1]);
        } else {
            if (depth > open.size() || out.rows[open[depth - 1]].account != a.account)
                return cells.fail(acct_col, "user " + text::quote(a.user) + " of account " + text::quote(a.account) +
                                                " at depth " + std::to_string(depth) + " has no account row " +
                                                text::quote(a.account) + " at depth " + std::to_string(depth - 1) +
                                                " above it (user rows are indented one more than their account)");
            a.parent = static_cast<std::int32_t>(open[depth - 1]);
        }
        if (auto e = detail::read_assoc_values(cells, t, row, values, a)) return *e;

        const std::string k = assoc_table::key(a.account, a.user, a.partition);
        if (const auto it = out.index.find(k); it != out.index.end())
            return cells.fail(acct_col, std::string(a.is_user() ? "user association " : "account ") +
                                            text::quote(detail::assoc_label(a)) + " is listed twice (first on line " +
                                            std::to_string(out.rows[it->second].line) + ")");
        const std::size_t index = out.rows.size();
        out.index.emplace(k, index);
        if (!a.is_user()) {
            open.resize(depth);
            open.push_back(index);
        }
        out.rows.push_back(std::move(a));
    }
    if (out.rows.empty()) detail::add_root(out); // header only: just a root

    // Association priority: inherited from the nearest ancestor that has one.
    for (auto& a : out.rows)
        if (!a.priority && a.parent >= 0)
            a.priority = out.rows[static_cast<std::size_t>(a.parent)].priority;
    return out;
}

/// Parses `sshare -a -P -l` style output held in a string.
[[nodiscard]] inline expected<assoc_table> parse_assoc_table(
    std::string_view text, std::string_view file_name = "<string>") {
    auto t = parse_table(text, file_name);
    if (!t) return t.error();
    return assoc_table_from(*t);
}

/// Reads and parses an association table file; "cannot open file" if unreadable.
[[nodiscard]] inline expected<assoc_table> read_assoc_table(const std::string& path) {
    auto text = read_text_file(path);
    if (!text) return text.error();
    return parse_assoc_table(*text, path);
}

} // namespace mfprio::config
