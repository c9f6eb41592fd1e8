#pragma once
/// \file
/// What Slurm's `sshare` prints for an association tree and the columns of a fair-share
/// pass: the field table (names, default widths, case-insensitive prefix matching, `%width`),
/// the default column lists per algorithm (`-l`, `-m`), the row selection (`-a`, `-u`, `-A`,
/// `-U`), the Account indentation, and Slurm's print_fields renderers: `%f` in parsable mode,
/// `%*f` falling back to `%e` when too wide, blanks for unset values, `parent`, `inf`, `+` for
/// cut strings, `-p` (trailing `|`) and `-P`.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <mfprio/text/text.hpp>
#include <mfprio/core/job.hpp>
#include <mfprio/fairshare/columns.hpp>
#include <mfprio/fairshare/tree.hpp>
#include <mfprio/slurm/release.hpp>

namespace mfprio::report {

/// sshare's command-line choices.
struct sshare_options {
    bool long_list = false;   ///< -l
    int parsable = 0;         ///< 0, 1 (-p: trailing '|'), 2 (-P: none)
    bool all = false;         ///< -a
    bool no_header = false;   ///< -n (also -h)
    bool users_only = false;  ///< -U
    bool partitions = false;  ///< -m
    std::string format;       ///< -o: comma list of fields, `Field%width`
    std::vector<std::string> users;    ///< -u
    std::vector<std::string> accounts; ///< -A
    std::string caller;       ///< the user running sshare: without -a/-u only their user rows show
    bool fair_tree = true;    ///< FAIR_TREE set (default columns, FairShare and LevelFS rules)
    /// The Slurm release whose sshare to imitate (major*100+minor; 0: the newest), see
    /// slurm::release_change::sshare_fairshare_users_only.
    int slurm_version = 0;
    std::vector<std::string> tres_names; ///< TRES names for GrpTRESRaw/TRESRunMins (all zero here)
    std::string cluster;      ///< ClusterName for the Cluster column
    /// Values as a cluster's sshare printed them (see `sshare_reported`), or null.
    const struct sshare_reported* reported = nullptr;
};

/// Columns as a cluster's own sshare printed them, per tree index: printed again instead of
/// mfprio's where present. `all` replays every column (the cluster's computation); otherwise
/// only what mfprio does not compute is taken (an account's RawUsage, which Slurm keeps
/// itself rather than summing what sshare prints of its children, and the TRES columns).
struct sshare_reported {
    bool all = false;
    std::vector<std::optional<double>> norm_shares, raw_usage, norm_usage, effective_usage, fairshare, level_fs;
    std::vector<std::optional<std::string>> grp_tres_mins, tres_run_mins;
};

/// The outcome of rendering: text, or an error sentence for a bad field name.
struct sshare_output {
    std::string text;
    std::string error;
};

namespace detail {

/// RawUsage as sshare prints it: the usage truncated to an integer. Slurm's cast of a usage
/// past 2^64 has no defined value; here it stops at 18446744073709551615 (and NaN or a
/// negative usage prints 0).
[[nodiscard]] inline std::uint64_t raw_usage_u64(long double usage) noexcept {
    if (!(usage > 0)) return 0;
    if (usage >= 18446744073709551616.0L) return std::numeric_limits<std::uint64_t>::max();
    return static_cast<std::uint64_t>(usage);
}

enum class sshare_field : std::uint8_t {
    account, cluster, eused, fsfactor, tresmins, grptresraw, id, levelfs, norms, normu, partition, raws, rawu, runmins, user
};

struct sshare_field_def {
    int len;
    std::string_view name;
    sshare_field type;
};

/// sshare's field table, in its matching order (first case-insensitive prefix match wins).
inline constexpr sshare_field_def sshare_fields[] = {
    {-20, "Account", sshare_field::account},    {10, "Cluster", sshare_field::cluster},
    {13, "EffectvUsage", sshare_field::eused},  {10, "FairShare", sshare_field::fsfactor},
    {30, "GrpTRESMins", sshare_field::tresmins}, {30, "GrpTRESRaw", sshare_field::grptresraw},
    {6, "ID", sshare_field::id},                {10, "LevelFS", sshare_field::levelfs},
    {11, "NormShares", sshare_field::norms},    {11, "NormUsage", sshare_field::normu},
    {12, "Partition", sshare_field::partition}, {10, "RawShares", sshare_field::raws},
    {11, "RawUsage", sshare_field::rawu},       {30, "TRESRunMins", sshare_field::runmins},
    {10, "User", sshare_field::user},
};

inline bool iprefix(std::string_view name, std::string_view prefix) {
    if (prefix.size() > name.size()) return false;
    for (std::size_t i = 0; i < prefix.size(); ++i) {
        char a = name[i], b = prefix[i];
        if (a >= 'A' && a <= 'Z') a = static_cast<char>(a - 'A' + 'a');
        if (b >= 'A' && b <= 'Z') b = static_cast<char>(b - 'A' + 'a');
        if (a != b) return false;
    }
    return true;
}

/// `fmt` ("%*f", "%-*f") printed with width `w`.
inline std::string sprintf_str(const char* fmt, int w, double v) {
    char buf[512];
    std::snprintf(buf, sizeof buf, fmt, w, v);
    return buf;
}
/// `fmt` ("%*.*e", "%-*.*e") printed with width `w` and precision `p`; a negative precision
/// is C's "as if omitted" (6), which print_fields_double meets when a field is narrow.
inline std::string sprintf_str(const char* fmt, int w, int p, double v) {
    char buf[512];
    std::snprintf(buf, sizeof buf, fmt, w, p, v);
    return buf;
}

/// The printer of one line: Slurm's print_fields rules for the three output modes.
class sshare_line {
public:
    sshare_line(std::string& out, int parsable) : out_(out), parsable_(parsable) {}

    void str(const sshare_field_def& f, const std::string* value, bool last) {
        const int abs_len = std::abs(f.len);
        const std::string shown = value ? *value : (parsable_ ? std::string() : std::string(" "));
        if (parsable_ == 2 && last) out_ += shown;
        else if (parsable_) out_ += shown + '|';
        else {
            std::string s = shown;
            if (value && static_cast<int>(s.size()) > abs_len) {
                s.resize(static_cast<std::size_t>(abs_len));
                s[static_cast<std::size_t>(abs_len - 1)] = '+';
            }
            pad(s, f.len);
        }
    }
    void blank(const sshare_field_def& f, bool last) {
        if (parsable_ == 2 && last) return;
        if (parsable_) out_ += '|';
        else pad(" ", std::abs(f.len)); // "%*s " with " ": right-aligned blank
    }
    void u64(const sshare_field_def& f, std::uint64_t v, bool last) {
        const std::string s = std::to_string(v);
        if (parsable_ == 2 && last) out_ += s;
        else if (parsable_) out_ += s + '|';
        else pad(s, f.len, false); // "%*llu ": numbers are never cut
    }
    void dbl(const sshare_field_def& f, double v, bool last) {
        if (v == 18446744073709551614.0 /* NO_VAL64 */ || v == 18446744073709551615.0 /* INFINITE64 */ ||
            v == 4294967294.0 /* NO_VAL */ || v == 4294967295.0 /* INFINITE */) {
            blank(f, last);
            return;
        }
        if (parsable_) {
            out_ += sprintf_str("%*f", 0, v);
            if (!(parsable_ == 2 && last)) out_ += '|';
            return;
        }
        const int abs_len = std::abs(f.len);
        int width = abs_len;
        const std::string fixed = sprintf_str("%*f", abs_len, v);
        if (static_cast<int>(fixed.size()) > width) {
            const std::string e = sprintf_str("%*.*e", width, width, v);
            const int new_length = static_cast<int>(e.size());
            if (new_length > width) width -= new_length - width;
            out_ += sprintf_str(f.len == abs_len ? "%*.*e" : "%-*.*e", width, width, v);
            out_ += ' ';
        } else {
            out_ += sprintf_str(f.len == abs_len ? "%*f" : "%-*f", width, v);
            out_ += ' ';
        }
    }
    void header(const sshare_field_def& f, bool last) {
        if (parsable_ == 2 && last) out_ += f.name;
        else if (parsable_) out_ += std::string(f.name) + '|';
        else pad(std::string(f.name), f.len);
    }

private:
    /// "%*.*s " with a signed width: negative left-justifies; cut at |width| unless `cut` is
    /// false ("%*u" pads but never cuts).
    void pad(std::string s, int len, bool cut = true) {
        const auto w = static_cast<std::size_t>(std::abs(len));
        if (cut && s.size() > w) s.resize(w);
        const std::string fill(s.size() < w ? w - s.size() : 0, ' ');
        out_ += len < 0 ? s + fill : fill + s;
        out_ += ' ';
    }

    std::string& out_;
    int parsable_;
};

inline bool listed(const std::vector<std::string>& list, std::string_view v) {
    return std::find(list.begin(), list.end(), v) != list.end();
}

} // namespace detail

namespace detail {

/// The fields of sshare's `-o` (or its default list, from `o`) into `fields`; the message of
/// sshare's error, or none.
[[nodiscard]] inline std::optional<std::string> parse_sshare_format(const sshare_options& o,
                                                                    std::vector<sshare_field_def>& fields) {
    std::string list = o.format;
    if (list.empty()) {
        const char* part = o.partitions ? "P," : "";
        if (o.long_list)
            list = std::string("A,User,") + part + "RawShares,NormShares,RawUsage,NormUsage,Eff,Fairshare," +
                   (o.fair_tree ? "LevelFS," : "") + "GrpTRESMins,TRESRunMins";
        else
            list = std::string("A,User,") + part + "RawShares,NormShares,RawUsage,Eff,Fairshare";
    }
    std::size_t start = 0;
    while (start <= list.size()) {
        std::size_t end = list.find(',', start);
        if (end == std::string::npos) end = list.size();
        std::string item = list.substr(start, end - start);
        start = end + 1;
        if (item.empty()) continue;
        int newlen = 0;
        if (const auto pct = item.find('%'); pct != std::string::npos) {
            // sshare reads the width with atoi; mfprio bounds it as sprio's -o does (a width
            // of millions would print gigabytes).
            const std::string_view digits = std::string_view(item).substr(pct + 1);
            const auto n = digits.empty() ? std::optional<std::int64_t>(0) : text::parse_signed<std::int64_t>(digits);
            if (!n || *n < -4096 || *n > 4096) return "field width must be an integer from -4096 to 4096 in \"" + item + "\"";
            newlen = static_cast<int>(*n);
            item.resize(pct);
        }
        bool found = false;
        for (const auto& f : sshare_fields) {
            if (iprefix(f.name, item)) {
                auto g = f;
                if (newlen) g.len = newlen;
                fields.push_back(g);
                found = true;
                break;
            }
        }
        if (!found) return "Invalid field requested: \"" + item + "\"";
        if (end == list.size()) break;
    }

    return std::nullopt;
}

/// Prints the fields of one association's row of sshare.
struct sshare_row_printer {
    const fairshare::tree& t;
    const fairshare::columns& c;
    const sshare_options& o;
    sshare_line& line;
    std::string tres_zero; ///< every TRES at 0, as GrpTRESRaw and TRESRunMins print them

    /// Field `f` of association `a`, indented by `spaces` (Account); `last` ends the line.
    void field(const sshare_field_def& f, std::uint32_t a, int spaces, bool last) const {
        const sshare_reported* rep = o.reported;
        const bool user = t.is_user(a);
        // A reported value of association `a` in column `col`, if any.
        const auto reported = [&](const std::vector<std::optional<double>>& col, std::uint32_t x) -> const std::optional<double>* {
            return x < col.size() ? &col[x] : nullptr;
        };
        // Prints a reported number, or blank where the cluster printed none.
        const auto put_reported = [&](const sshare_field_def& g, const std::optional<double>& v, bool end) {
            if (v) line.dbl(g, *v, end);
            else line.str(g, nullptr, end);
        };
        switch (f.type) {
        case sshare_field::account: {
            const std::string name = std::string(static_cast<std::size_t>(spaces), ' ') + t.account[a];
            line.str(f, &name, last);
            break;
        }
        case sshare_field::cluster: line.str(f, o.cluster.empty() ? nullptr : &o.cluster, last); break;
        case sshare_field::eused:
            if (rep && rep->all && reported(rep->effective_usage, a)) put_reported(f, rep->effective_usage[a], last);
            else line.dbl(f, static_cast<double>(c.usage_efctv[a]), last);
            break;
        case sshare_field::fsfactor:
            if (rep && rep->all && reported(rep->fairshare, a)) {
                put_reported(f, rep->fairshare[a], last);
                break;
            }
            // Fair Tree, and from 25.11 classic too: users only. Classic before: every row,
            // 2^(-UE/S/d) from the row's own UE and S, which is what the classic pass
            // leaves in fs_factor (for a FairShare=parent row, its fs parent's UE and S,
            // which are its own).
            if (!user && (o.fair_tree || slurm::has(o.slurm_version, slurm::release_change::sshare_fairshare_users_only)))
                line.str(f, nullptr, last);
            else line.dbl(f, c.fs_factor[a], last);
            break;
        case sshare_field::tresmins: {
            const std::string empty;
            if (rep && a < rep->grp_tres_mins.size() && rep->grp_tres_mins[a]) line.str(f, &*rep->grp_tres_mins[a], last);
            else line.str(f, &empty, last);
            break;
        }
        case sshare_field::grptresraw: line.str(f, &tres_zero, last); break;
        case sshare_field::runmins:
            if (rep && a < rep->tres_run_mins.size() && rep->tres_run_mins[a]) line.str(f, &*rep->tres_run_mins[a], last);
            else line.str(f, &tres_zero, last);
            break;
        case sshare_field::id: line.u64(f, a + 1, last); break;
        case sshare_field::levelfs:
            if (rep && rep->all && reported(rep->level_fs, a)) put_reported(f, rep->level_fs[a], last);
            else if (t.is_use_parent(a) || std::isnan(c.level_fs_of(a))) line.str(f, nullptr, last);
            else line.dbl(f, static_cast<double>(c.level_fs_of(a)), last);
            break;
        case sshare_field::norms:
            if (rep && rep->all && reported(rep->norm_shares, a)) put_reported(f, rep->norm_shares[a], last);
            else line.dbl(f, c.shares_norm[a], last);
            break;
        case sshare_field::normu:
            if (rep && rep->all && reported(rep->norm_usage, a)) {
                if (rep->norm_usage[a]) line.dbl(f, *rep->norm_usage[a], last);
                else line.blank(f, last);
            } else if (a == 0) line.blank(f, last); // the root's usage_norm is never set (NO_VAL)
            else line.dbl(f, static_cast<double>(fairshare::usage_norm(t, a)), last);
            break;
        case sshare_field::partition: line.str(f, t.partition[a].empty() ? nullptr : &t.partition[a], last); break;
        case sshare_field::raws:
            if (t.is_use_parent(a)) {
                const std::string parent = "parent";
                line.str(f, &parent, last);
            } else if (t.shares_raw[a] == no_val32 || t.shares_raw[a] == infinite32) {
                line.blank(f, last);
            } else {
                line.u64(f, t.shares_raw[a], last);
            }
            break;
        case sshare_field::rawu:
            if (rep && (rep->all || !t.is_user(a)) && a < rep->raw_usage.size() && rep->raw_usage[a])
                line.u64(f, raw_usage_u64(*rep->raw_usage[a]), last);
            else
                line.u64(f, raw_usage_u64(t.usage_raw[a]), last);
            break;
        case sshare_field::user: line.str(f, user ? &t.user_name[a] : nullptr, last); break;
        }
    }
};

} // namespace detail

/// Renders sshare's output for tree `t` and the columns `c` of a fair-share pass.
[[nodiscard]] inline sshare_output render_sshare(const fairshare::tree& t, const fairshare::columns& c,
                                                 const sshare_options& o) {
    sshare_output res;
    std::vector<detail::sshare_field_def> fields;
    if (auto e = detail::parse_sshare_format(o, fields)) {
        res.error = std::move(*e);
        return res;
    }
    std::size_t width = 0;
    for (const auto& f : fields) width += static_cast<std::size_t>(std::abs(f.len)) + 1;
    if (width > text::max_format_line) {
        res.error = "the fields' widths add up to " + std::to_string(width) + " characters, more than " +
                    std::to_string(text::max_format_line) + " a line";
        return res;
    }

    detail::sshare_line line(res.text, o.parsable);
    if (!o.no_header) {
        for (std::size_t i = 0; i < fields.size(); ++i) line.header(fields[i], i + 1 == fields.size());
        res.text += '\n';
        if (!o.parsable) {
            for (const auto& f : fields) res.text += std::string(static_cast<std::size_t>(std::abs(f.len)), '-') + ' ';
            res.text += '\n';
        }
    }

    detail::sshare_row_printer row{t, c, o, line, {}};
    for (const auto& name : o.tres_names) row.tres_zero += (row.tres_zero.empty() ? "" : ",") + name + "=0";
    const bool show_all_users = o.all || (!o.users.empty() && o.users.front() == "-1");
    // Indentation as sshare builds it (slurmdb_tree_name_get): one space more than the
    // parent account's row when that row was printed, none otherwise; so `-A` lists indent
    // relative to the accounts shown.
    std::vector<int> spaces(t.size(), -1);
    for (std::uint32_t a = 0; a < t.size(); ++a) {
        const bool user = t.is_user(a);
        if (o.users_only && !user) continue;
        if (user && !show_all_users) {
            if (!o.users.empty()) {
                if (!detail::listed(o.users, t.user_name[a])) continue;
            } else if (t.user_name[a] != o.caller) {
                continue;
            }
        }
        if (!o.accounts.empty() && !detail::listed(o.accounts, t.account[a])) continue;
        {
            const std::uint32_t p = a == 0 ? 0 : t.parent[a];
            spaces[a] = (a != 0 && p < t.size() && spaces[p] >= 0) ? spaces[p] + 1 : 0;
        }
        for (std::size_t i = 0; i < fields.size(); ++i) {
            const auto& f = fields[i];
            row.field(f, a, spaces[a], i + 1 == fields.size());
        }
        res.text += '\n';
    }
    return res;
}

} // namespace mfprio::report
