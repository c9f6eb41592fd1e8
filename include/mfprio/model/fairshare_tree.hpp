#pragma once
/// \file
/// The fair-share association tree (`fairshare::tree`) of an association table
/// (`sshare -a -P -l` output, see assoc_table.hpp), ready for a fair-share pass.
///
/// What is read, per row:
/// - RawShares: a number, or `parent` (FairShare=parent). The root's cell is ignored (sshare
///   prints it blank; the tree's root has no shares). If the file has no RawShares column
///   every association gets 1, sacctmgr's default FairShare. A blank or out-of-range cell on
///   any other row is an error: sshare prints every non-root association's shares (a number
///   or `parent`), so a blank one means the table was cut or edited by hand, and guessing a
///   value would silently change everybody's normalized shares.
/// - RawUsage (a number; a blank cell or a missing column means 0): a user row's usage. An
///   account row's RawUsage is not read: accounts get the sum of their users' usage up the
///   direct-parent chain, as Slurm re-aggregates it (reference slurm.md 0), so the root
///   holds the cluster total.
/// - Partition (sshare -m): a per-partition user association keeps its partition.
/// - The computed columns (NormShares, NormUsage, EffectvUsage, FairShare, LevelFS) are not
///   read: the fair-share pass recomputes them. In particular, when RawUsage is present the
///   input's FairShare column is ignored; a model that needs factors without usage can
///   still read it from the association table.
///
/// The tree is in lineage order, which can differ from the file's order (e.g. for
/// per-partition rows); `tree_index_of_row` and `row_of_tree_index` map between the two.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <mfprio/core/expected.hpp>
#include <mfprio/core/job.hpp>
#include <mfprio/read/assoc_table.hpp>
#include <mfprio/read/common.hpp>
#include <mfprio/fairshare/tree.hpp>

namespace mfprio::config {

/// A fair-share tree built from an association table, with the row <-> tree mapping.
struct fairshare_tree {
    fairshare::tree tree;                          ///< the associations in lineage order
    std::vector<std::uint32_t> tree_index_of_row;  ///< tree index of assoc_table row r
    std::vector<std::size_t> row_of_tree_index;    ///< assoc_table row of tree index a
};

/// Builds the fair-share tree of `assoc` (see the file comment). `file` names the table's
/// file in errors (the association table keeps lines, not the file name).
[[nodiscard]] inline expected<fairshare_tree> fairshare_tree_from(const assoc_table& assoc,
                                                                  std::string_view file = "<string>") {
    const bool has_shares = assoc.has_column("RawShares");
    fairshare::tree_builder b;
    std::vector<std::uint32_t> builder_index(assoc.rows.size(), 0);
    for (std::size_t r = 0; r < assoc.rows.size(); ++r) {
        const assoc_row& row = assoc.rows[r];
        if (r == 0) { // the reader guarantees row 0 is the root (read or synthesized)
            MFPRIO_ASSERT(row.parent < 0);
            builder_index[r] = 0;
            continue;
        }
        MFPRIO_ASSERT(row.parent >= 0 && static_cast<std::size_t>(row.parent) < r);
        std::uint32_t shares = 1;
        if (has_shares) {
            shares = row.raw_shares;
            if (shares == no_val32 || shares > fs_use_parent) {
                std::string message(row.is_user() ? "user " : "account ");
                message += text::quote(row.is_user() ? row.user : row.account);
                if (row.is_user()) {
                    message += " of account ";
                    message += text::quote(row.account);
                }
                if (shares == no_val32) {
                    message += " has blank RawShares; only the root may (give a number or 'parent')";
                } else {
                    message += " has RawShares ";
                    message += std::to_string(shares);
                    message += ", more than the largest share 2147483646";
                }
                return make_error(file, row.line, 0, "RawShares", std::move(message));
            }
        }
        const std::uint32_t parent = builder_index[static_cast<std::size_t>(row.parent)];
        if (row.is_user())
            builder_index[r] = b.add_user(parent, row.user, shares,
                                          static_cast<long double>(row.raw_usage.value_or(0.0)), row.partition);
        else
            builder_index[r] = b.add_account(parent, row.account, shares);
    }
    fairshare_tree out;
    out.tree = b.build(); // lineage order, fs parents, level shares, usage aggregated
    out.tree_index_of_row.resize(assoc.rows.size());
    out.row_of_tree_index.resize(assoc.rows.size());
    for (std::size_t r = 0; r < assoc.rows.size(); ++r) {
        const std::uint32_t a = b.position(builder_index[r]);
        out.tree_index_of_row[r] = a;
        out.row_of_tree_index[a] = r;
    }
    return out;
}

/// Parses `sshare -a -P -l` style text and builds its fair-share tree.
[[nodiscard]] inline expected<fairshare_tree> parse_fairshare_tree(std::string_view text,
                                                                   std::string_view file_name = "<string>") {
    auto assoc = parse_assoc_table(text, file_name);
    if (!assoc) return assoc.error();
    return fairshare_tree_from(*assoc, file_name);
}

/// Reads an association table file and builds its fair-share tree.
[[nodiscard]] inline expected<fairshare_tree> read_fairshare_tree(const std::string& path) {
    auto text = read_text_file(path);
    if (!text) return text.error();
    return parse_fairshare_tree(*text, path);
}

} // namespace mfprio::config
