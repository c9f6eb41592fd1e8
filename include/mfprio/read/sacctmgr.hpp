#pragma once
/// \file
/// `sacctmgr show assoc -P` (or `-p`): told from sshare's table by its header, and read for
/// what sshare does not print, each association's `Priority` (with what the account gave its
/// users), into an association table read from sshare.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <mfprio/core/expected.hpp>
#include <mfprio/read/assoc_table.hpp>
#include <mfprio/read/common.hpp>

namespace mfprio::config {

/// True for the header of `sacctmgr show assoc -P` (Cluster, Account, User and Share or
/// Priority, no RawShares), as opposed to sshare's.
[[nodiscard]] inline bool is_sacctmgr_assoc(const table& t) noexcept {
    return t.column("Account") && t.column("User") && !t.column("RawShares") &&
           (t.column("Share") || t.column("Priority") || t.column("Cluster"));
}

/// Sets each association's priority from a `sacctmgr show assoc -P` table `t` (read from
/// `file`) in `out`, read from `tree` (sshare's output). An association `out` does not hold is
/// an error naming it: the texts come from different clusters or different times. A table
/// without a Priority column changes nothing; an empty cell leaves the association's.
[[nodiscard]] inline std::optional<input_error> add_sacctmgr_priorities(assoc_table& out, const table& t,
                                                                        const std::string& file, const std::string& tree) {
    const auto c_account = *t.column("Account"), c_user = *t.column("User");
    const auto c_part = t.column("Partition"), c_prio = t.column("Priority");
    if (!c_prio) return std::nullopt;
    for (const table_row& row : t.rows) {
        const std::string_view account = trim(row.cells[c_account]), user = trim(row.cells[c_user]);
        const std::string_view part = c_part ? trim(row.cells[*c_part]) : std::string_view{};
        const auto r = out.find(account, user, part);
        if (!r)
            return make_error(file, row.line, row.columns[c_account], "Account",
                              "association (" + std::string(account) + ", " + std::string(user) + ") is not in " + tree);
        const std::string_view cell = trim(row.cells[*c_prio]);
        if (cell.empty()) continue;
        const auto v = parse_unsigned<std::uint32_t>(cell);
        if (!v)
            return make_error(file, row.line, row.columns[*c_prio], "Priority",
                              "priority " + text::quote(cell) + " is not an integer from 0 to 4294967295");
        out.rows[*r].priority = *v;
    }
    if (!out.has_column("Priority")) out.columns.emplace_back("Priority");
    return std::nullopt;
}

} // namespace mfprio::config
