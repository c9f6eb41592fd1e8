#pragma once
/// \file
/// Maui's fair-share window files, `<STATDIR>/FS.<epoch>` (reference B3): reading one file,
/// choosing the files of the FSDEPTH windows for a given time, writing one window back, and
/// moving windows in and out of a `maui::fs_ledger`.
///
/// What Maui 3.3 does (from its source, MFS.c and the server loop; facts only):
/// - When a window ends Maui writes its usage to `FS.<start of that window>`, and it rewrites
///   the current window's file at every checkpoint, so the newest file may be the current one.
///   At start-up it loads the files of the windows `current - d * FSINTERVAL` by their exact
///   epoch into slot d (a missing file leaves that window empty).
/// - The file: a header comment `# FS Data File (Duration: <FSINTERVAL> seconds)  Starting:
///   <date>`, then one line per credential with non-zero usage in the current window,
///   `%-10s %15s %12.3f`: object type, name, usage, in the order users, groups, accounts, QOS,
///   classes, then the scheduler's own record, which holds the total. The type is Maui's object
///   name (its MXO table). That table itself was not found; its enum (mxoAcct ... mxoUser) and
///   tools that copy the table spell them user, group, acct, qos, class, sched, so that is
///   what is assumed here (lower case, "acct" for accounts).
/// - Its loader cuts each line at the first '#', reads `type name value` (lines without three
///   fields are skipped), takes the type `TOTAL` as the total (checked in the source), looks
///   other types up in MXO (so `sched` is the total too) and ignores unknown ones.
///
/// This reader is stricter, so that a damaged file is reported instead of half-read:
/// - '#' starts a comment anywhere on a line; blank lines are skipped.
/// - A data line is `<label> <name> <value>`, white-space separated. Labels are
///   case-insensitive: for credentials `maui::cred_labels` (User, Group, Account, QOS, Class)
///   and Maui's own spellings (user, group, acct, qos, class); for the total `TOTAL` or `sched`,
///   as `TOTAL <value>` or `TOTAL <name> <value>` (the name is ignored).
/// - Errors (each naming the file, line, column and label): an unknown label; a missing name
///   or value; a value that is not a finite non-negative number; anything after the value; the
///   same label and name twice (names are case-sensitive, as Maui's); two total lines.
/// - Without a total line the window's total is the sum of its User entries (`has_total`
///   false). Maui always writes the total when the window had any usage; a file with no usage
///   has neither entries nor total, and the sum then gives 0 too.
///
/// The writer emits Maui's layout so Maui itself can load the file: the header comment, the
/// entries with Maui's type names (user, group, acct, qos, class), and the total as
/// `TOTAL ALL <value>` (three fields, because Maui's loader skips shorter lines; the name is
/// not used, and "ALL" is a name Maui reserves, so it cannot be a real credential's). Values are printed with std::to_chars' shortest
/// round-trip form, so format -> parse gives back the same doubles (Maui prints %12.3f).

#include <algorithm>
#include <array>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <utility>
#include <vector>

#include <mfprio/read/common.hpp>
#include <mfprio/core/expected.hpp>
#include <mfprio/maui/fairshare.hpp>
#include <mfprio/maui/model.hpp>

namespace mfprio::config {

/// One fair-share window as stored in an `FS.<epoch>` file.
struct maui_fs_window {
    std::int64_t start = 0; ///< the window's start, epoch seconds (the file's <epoch>)
    /// Entries by `cred_kind`: (name, usage) in file order.
    std::array<std::vector<std::pair<std::string, double>>, maui::cred_kind_count> usage{};
    double total = 0;       ///< the window's total usage (sum of the User entries if no total line)
    bool has_total = false; ///< whether the file had a total line
    std::string file;       ///< the file it came from ("" if none)
};

/// Maui's own object name of each credential kind, as its FS files spell them (`cred_kind`
/// order).
inline constexpr std::array<std::string_view, maui::cred_kind_count> maui_fs_type_names{"user", "group", "acct",
                                                                                        "qos", "class"};

namespace detail {

/// One white-space separated token of a line and its 1-based column.
struct fs_token {
    std::string_view text;
    std::size_t column = 0;
};

/// The label of a data line: a credential kind, the total, or unknown.
struct fs_label {
    bool known = false;
    bool is_total = false;
    maui::cred_kind kind = maui::cred_kind::user;
};

[[nodiscard]] inline fs_label classify_fs_label(std::string_view s) noexcept {
    if (iequals(s, "TOTAL") || iequals(s, "sched")) return {.known = true, .is_total = true, .kind = maui::cred_kind::user};
    for (std::size_t k = 0; k < maui::cred_kind_count; ++k)
        if (iequals(s, maui::cred_labels[k]) || iequals(s, maui_fs_type_names[k]))
            return {.known = true, .is_total = false, .kind = static_cast<maui::cred_kind>(k)};
    return {};
}

/// Appends `v` in the shortest form that reads back as the same double.
inline void append_double(std::string& out, double v) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
}

} // namespace detail

/// Parses the text of one `FS.<epoch>` file (rules in the file comment). `file_name` goes
/// into errors and `maui_fs_window::file`; `start` is the window's start (the file's epoch).
[[nodiscard]] inline expected<maui_fs_window> parse_fs_window(std::string_view text, std::string_view file_name,
                                                             std::int64_t start) {
    maui_fs_window w;
    w.start = start;
    w.file = std::string(file_name);
    std::array<std::unordered_map<std::string, std::size_t>, maui::cred_kind_count> seen; // name -> line
    std::size_t total_line = 0;
    std::vector<detail::fs_token> tokens;
    for (const auto& line : split_lines(text)) {
        std::string_view body = line.text;
        if (const auto hash = body.find('#'); hash != std::string_view::npos) body = body.substr(0, hash);
        tokens.clear();
        for (std::size_t i = 0; i < body.size();) {
            if (is_space(body[i])) {
                ++i;
                continue;
            }
            const std::size_t b = i;
            while (i < body.size() && !is_space(body[i])) ++i;
            tokens.push_back({body.substr(b, i - b), b + 1});
        }
        if (tokens.empty()) continue;
        const auto& label_tok = tokens[0];
        const std::string_view label = label_tok.text;
        const detail::fs_label lab = detail::classify_fs_label(label);
        if (!lab.known)
            return make_error(file_name, line.number, label_tok.column, label,
                              "unknown label " + text::quote(label) +
                                  " (expected User, Group, Account, QOS, Class or TOTAL)");
        if (lab.is_total) {
            if (tokens.size() < 2)
                return make_error(file_name, line.number, label_tok.column + label.size(), label,
                                  "missing value after " + text::quote(label));
            if (tokens.size() > 3)
                return make_error(file_name, line.number, tokens[3].column, label,
                                  "unexpected " + text::quote(tokens[3].text) + " after the value");
            const auto& value_tok = tokens.back();
            const auto v = parse_double(value_tok.text);
            if (!v || *v < 0)
                return make_error(file_name, line.number, value_tok.column, label,
                                  "total usage " + text::quote(value_tok.text) +
                                      " is not a non-negative number");
            if (total_line != 0)
                return make_error(file_name, line.number, label_tok.column, label,
                                  "a second total line (the first is on line " + std::to_string(total_line) + ")");
            total_line = line.number;
            w.total = *v;
            w.has_total = true;
            continue;
        }
        if (tokens.size() < 2)
            return make_error(file_name, line.number, label_tok.column + label.size(), label,
                              "missing name and value after " + text::quote(label));
        const auto& name_tok = tokens[1];
        if (tokens.size() < 3)
            return make_error(file_name, line.number, name_tok.column + name_tok.text.size(), label,
                              std::string(label) + " " + text::quote(name_tok.text) + ": missing value");
        if (tokens.size() > 3)
            return make_error(file_name, line.number, tokens[3].column, label,
                              "unexpected " + text::quote(tokens[3].text) + " after the value");
        const auto& value_tok = tokens[2];
        const auto v = parse_double(value_tok.text);
        if (!v || *v < 0)
            return make_error(file_name, line.number, value_tok.column, label,
                              std::string(label) + " " + text::quote(name_tok.text) + ": usage " +
                                  text::quote(value_tok.text) + " is not a non-negative number");
        const std::size_t k = maui::index(lab.kind);
        const auto [it, inserted] = seen[k].try_emplace(std::string(name_tok.text), line.number);
        if (!inserted)
            return make_error(file_name, line.number, name_tok.column, label,
                              std::string(label) + " " + text::quote(name_tok.text) +
                                  " is listed twice (first on line " + std::to_string(it->second) + ")");
        w.usage[k].emplace_back(std::string(name_tok.text), *v);
    }
    if (!w.has_total) {
        double sum = 0.0;
        for (const auto& e : w.usage[maui::index(maui::cred_kind::user)]) sum += e.second;
        w.total = sum;
    }
    return w;
}

/// Reads the `FS.<epoch>` files of directory `dir` for time `now` and returns exactly
/// `depth` windows (cfg.depth clamped to [1, max_fs_depth]): window i has start `s0 - i *
/// FSINTERVAL`, where `s0 = now - now mod FSINTERVAL` is the window containing `now`, and holds
/// the file with that epoch, or nothing (and `file` "") when there is none, as Maui loads them
/// by exact epoch. So index 0 is the current window (Maui rewrites its file at checkpoints)
/// and index i is ledger window i.
///
/// Only names `FS.` followed by decimal digits are considered; others (`FS-<partition>.<epoch>`,
/// the daily `stats.*` files...) are ignored. Files whose epoch is after `now` are ignored.
/// Of the others, an epoch that is not a multiple of FSINTERVAL is an error naming the file
/// (usually FSINTERVAL was changed: those files belong to other windows), and so is an
/// unreadable or malformed file among the kept ones. Older files past the depth are not read.
/// A directory that cannot be listed is an error naming it. An FSINTERVAL below 1 is an error.
[[nodiscard]] inline expected<std::vector<maui_fs_window>> read_fs_dir(const std::string& dir,
                                                                       const maui::fs_config& cfg,
                                                                       std::int64_t now) {
    namespace fs = std::filesystem;
    if (cfg.interval < 1)
        return make_error(dir, 0, 0, "FSINTERVAL",
                          "FSINTERVAL must be at least 1 second (got " + std::to_string(cfg.interval) + ")");
    const std::int64_t interval = cfg.interval;
    const std::size_t depth = std::clamp<std::size_t>(cfg.depth, 1, maui::max_fs_depth);
    const std::int64_t s0 = maui::fs_window_start(now, interval);

    std::vector<std::pair<std::int64_t, fs::path>> files;
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    if (ec) return make_error(dir, 0, 0, {}, "cannot list directory: " + ec.message());
    for (; it != fs::directory_iterator(); it.increment(ec)) {
        if (ec) break;
        const std::string name = it->path().filename().string();
        const auto epoch = name.size() > 3 && name.compare(0, 3, "FS.") == 0
                               ? parse_unsigned<std::uint64_t>(std::string_view(name).substr(3))
                               : std::nullopt;
        std::error_code type_ec;
        if (epoch && *epoch <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) &&
            !it->is_directory(type_ec))
            files.emplace_back(static_cast<std::int64_t>(*epoch), it->path());
    }
    if (ec) return make_error(dir, 0, 0, {}, "cannot list directory: " + ec.message());
    std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.first < b.first; });

    std::vector<maui_fs_window> out(depth);
    for (std::size_t i = 0; i < depth; ++i) out[i].start = s0 - static_cast<std::int64_t>(i) * interval;
    for (const auto& [epoch, path] : files) {
        if (epoch > now) continue; // in the future
        if (epoch % interval != 0)
            return make_error(path.string(), 0, 0, "FSINTERVAL",
                              "FS file epoch " + std::to_string(epoch) + " is not a window start (not a multiple of "
                              "FSINTERVAL " + std::to_string(interval) + ")");
        const std::int64_t back = (s0 - epoch) / interval; // 0 = the current window
        if (back < 0 || static_cast<std::uint64_t>(back) >= depth) continue;
        auto text = read_text_file(path.string(), max_input_bytes, file_source::regular);
        if (!text) return text.error();
        auto w = parse_fs_window(*text, path.string(), epoch);
        if (!w) return w.error();
        out[static_cast<std::size_t>(back)] = std::move(*w);
    }
    return out;
}

/// Writes one window in Maui's layout (file comment): a header comment, the entries of each
/// kind in `cred_kind` order and file order with Maui's type names, and `TOTAL ALL <total>`.
/// Values in shortest round-trip form; parse_fs_window reads back the same numbers.
[[nodiscard]] inline std::string format_fs_window(const maui_fs_window& w) {
    std::string out = "# FS Data File  Starting: " + std::to_string(w.start) + " (epoch)\n";
    for (std::size_t k = 0; k < maui::cred_kind_count; ++k) {
        for (const auto& [name, value] : w.usage[k]) {
            out += maui_fs_type_names[k];
            out += ' ';
            out += name;
            out += ' ';
            detail::append_double(out, value);
            out += '\n';
        }
    }
    out += "TOTAL ALL ";
    detail::append_double(out, w.total);
    out += '\n';
    return out;
}

/// Loads windows (e.g. from `read_fs_dir`) into `ledger`: window i into ledger window i (those
/// past the ledger's depth are skipped), each entry at the index `index_of(kind, name)` returns
/// (a `std::uint32_t`; `maui::no_cred` for a name the caller does not know), each total with
/// `set_total`. Returns how many entries were skipped (unknown names or indices past the
/// ledger's tables). Windows not in `windows` keep their contents.
template <class IndexOf>
std::size_t load_fs_windows(maui::fs_ledger& ledger, std::span<const maui_fs_window> windows, IndexOf&& index_of) {
    std::size_t skipped = 0;
    for (std::size_t w = 0; w < windows.size() && w < ledger.depth(); ++w) {
        for (std::size_t k = 0; k < maui::cred_kind_count; ++k) {
            const auto kind = static_cast<maui::cred_kind>(k);
            for (const auto& [name, value] : windows[w].usage[k]) {
                const std::uint32_t i = index_of(kind, std::string_view(name));
                if (i == maui::no_cred || i >= ledger.size(kind)) {
                    ++skipped;
                    continue;
                }
                ledger.set_usage(kind, i, w, value);
            }
        }
        ledger.set_total(w, windows[w].total);
    }
    return skipped;
}

/// Window `w` of `ledger` as a file's content, with start `ledger.window_start() - w *
/// FSINTERVAL`: the credentials with non-zero usage (as Maui writes them), named by
/// `name_of(kind, index)` (anything convertible to std::string), in index order, and the total.
template <class NameOf>
[[nodiscard]] maui_fs_window fs_window_of(const maui::fs_ledger& ledger, std::size_t w, NameOf&& name_of) {
    maui_fs_window out;
    out.start = ledger.window_start() - static_cast<std::int64_t>(w) * ledger.interval();
    for (std::size_t k = 0; k < maui::cred_kind_count; ++k) {
        const auto kind = static_cast<maui::cred_kind>(k);
        for (std::uint32_t i = 0; i < ledger.size(kind); ++i) {
            const double v = ledger.usage(kind, i, w);
            if (v != 0.0) out.usage[k].emplace_back(std::string(name_of(kind, i)), v);
        }
    }
    out.total = ledger.total(w);
    out.has_total = true;
    return out;
}

} // namespace mfprio::config
