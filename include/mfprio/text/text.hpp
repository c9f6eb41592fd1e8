#pragma once
/// \file
/// The text layer under every reader (`mfprio::text`): what ends a line and the lines of a
/// text, trimming, ASCII case-insensitive comparison, splitting, whole-string number parsing
/// (std::from_chars, no locale, no exceptions), "did you mean", the one file loader, and
/// building an `input_error`. `read/common.hpp` brings these names into `mfprio::config`.

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include <mfprio/core/expected.hpp>

#if __has_include(<sys/stat.h>) && __has_include(<unistd.h>) && __has_include(<fcntl.h>)
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#define MFPRIO_POSIX_FILES 1
#endif

namespace mfprio::text {

/// True for the ASCII white-space characters (space, tab, CR, LF, VT, FF).
[[nodiscard]] constexpr bool is_space(char c) noexcept {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/// The line end that starts at `text[i]`: its length (2 for "\r\n", 1 for "\n" or a lone
/// "\r", as old Mac files end lines), or 0 when none starts there (the "\n" of a "\r\n"
/// belongs to the end that starts at its "\r"). The one rule of what ends a line: every
/// reader's lines and every line number mfprio prints follow it.
[[nodiscard]] constexpr std::size_t line_end_at(std::string_view text, std::size_t i) noexcept {
    if (text[i] == '\r') return i + 1 < text.size() && text[i + 1] == '\n' ? 2 : 1;
    if (text[i] == '\n') return i > 0 && text[i - 1] == '\r' ? 0 : 1;
    return 0;
}

/// True for '0'..'9'.
[[nodiscard]] constexpr bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

/// ASCII lower-case of one character (other bytes unchanged).
[[nodiscard]] constexpr char to_lower(char c) noexcept {
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

/// ASCII lower-case copy of a string.
[[nodiscard]] inline std::string to_lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = to_lower(c);
    return out;
}

/// `s` without leading white space.
[[nodiscard]] constexpr std::string_view trim_left(std::string_view s) noexcept {
    std::size_t i = 0;
    while (i < s.size() && is_space(s[i])) ++i;
    return s.substr(i);
}

/// `s` without trailing white space.
[[nodiscard]] constexpr std::string_view trim_right(std::string_view s) noexcept {
    std::size_t n = s.size();
    while (n > 0 && is_space(s[n - 1])) --n;
    return s.substr(0, n);
}

/// `s` without leading and trailing white space.
[[nodiscard]] constexpr std::string_view trim(std::string_view s) noexcept {
    return trim_right(trim_left(s));
}

/// ASCII case-insensitive equality.
[[nodiscard]] constexpr bool iequals(std::string_view a, std::string_view b) noexcept {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (to_lower(a[i]) != to_lower(b[i])) return false;
    return true;
}

/// Levenshtein distance, ASCII case-insensitive (for "did you mean"), or `at_most` + 1 when
/// it is larger than `at_most`. Only the band of the table within `at_most` of its diagonal is
/// computed (a cell further out is above `at_most` anyway), and the work stops once a whole
/// row exceeds `at_most`: with a small bound, a few cells a letter, and nothing at all when
/// the lengths differ by more than the bound.
[[nodiscard]] inline std::size_t edit_distance(std::string_view a, std::string_view b,
                                               std::size_t at_most = std::size_t(-1) - 1) {
    const std::size_t gap = a.size() > b.size() ? a.size() - b.size() : b.size() - a.size();
    const std::size_t over = at_most + 1; // "more than at_most", held without growing
    if (gap > at_most) return over;
    const auto step = [over](std::size_t x) { return x < over ? x + 1 : over; };
    const std::size_t band = std::min(at_most, std::max(a.size(), b.size()));
    // Row i of the table over b; cells outside the band hold `over`.
    std::size_t small[64];
    std::vector<std::size_t> large;
    std::size_t* row = small;
    if (b.size() + 1 > std::size(small)) {
        large.resize(b.size() + 1);
        row = large.data();
    }
    std::fill(row, row + b.size() + 1, over);
    for (std::size_t j = 0; j <= std::min(b.size(), band); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        const std::size_t lo = i > band ? i - band : 1;
        const std::size_t hi = std::min(b.size(), i + band);
        std::size_t diag = row[lo - 1]; // row i - 1's
        row[lo - 1] = lo == 1 ? std::min(i, over) : over;
        std::size_t smallest = row[lo - 1];
        for (std::size_t j = lo; j <= hi; ++j) {
            const std::size_t up = row[j];
            const bool same = to_lower(a[i - 1]) == to_lower(b[j - 1]);
            row[j] = std::min({step(up), step(row[j - 1]), same ? diag : step(diag)});
            smallest = std::min(smallest, row[j]);
            diag = up;
        }
        // The distance is at least the smallest entry of any row.
        if (smallest >= over) return over;
    }
    return std::min(row[b.size()], over);
}

/// Which names `did_you_mean` suggests and how many it shows.
struct suggestion_rule {
    std::size_t edits = 2;            ///< names within this many edits (case-insensitive)...
    std::size_t letters_per_edit = 4; ///< ...or within one edit per this many letters of the word, if more (0: none)
    bool prefixes = true;             ///< also a longer name the word (3 letters or more) starts
    std::size_t shown = 2;            ///< how many, nearest first (ties in the order of `names`)
};

/// " (did you mean A, B or C?)": the names close to `word` by `rule`, or "" when none is.
/// `names` is any range of things a `std::string_view` can be made from.
template <class Names>
[[nodiscard]] std::string did_you_mean(std::string_view word, const Names& names, suggestion_rule rule = {}) {
    const std::size_t limit = std::max(rule.edits, rule.letters_per_edit == 0 ? 0 : word.size() / rule.letters_per_edit);
    std::vector<std::pair<std::size_t, std::string_view>> near;
    for (const auto& n : names) {
        const std::string_view name(n);
        const std::size_t d = edit_distance(word, name, limit);
        if (d <= limit || (rule.prefixes && word.size() >= 3 && name.size() > word.size() && name.starts_with(word)))
            near.emplace_back(d, name);
    }
    std::stable_sort(near.begin(), near.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    const std::size_t shown = std::min(near.size(), rule.shown);
    if (shown == 0) return {};
    std::string out = " (did you mean ";
    for (std::size_t i = 0; i < shown; ++i) {
        if (i != 0) out += i + 1 == shown ? " or " : ", ";
        out.append(near[i].second);
    }
    return out + "?)";
}

/// ASCII case-insensitive prefix test.
[[nodiscard]] constexpr bool istarts_with(std::string_view s, std::string_view prefix) noexcept {
    return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
}

/// ASCII case-insensitive substring test (like Slurm's xstrcasestr() != NULL).
[[nodiscard]] constexpr bool icontains(std::string_view haystack, std::string_view needle) noexcept {
    if (needle.empty()) return true;
    if (needle.size() > haystack.size()) return false;
    for (std::size_t i = 0; i + needle.size() <= haystack.size(); ++i)
        if (iequals(haystack.substr(i, needle.size()), needle)) return true;
    return false;
}

/// Splits `s` on every `sep`; n separators give n+1 pieces (empty pieces kept).
[[nodiscard]] inline std::vector<std::string_view> split(std::string_view s, char sep) {
    std::vector<std::string_view> out;
    std::size_t start = 0;
    for (;;) {
        const std::size_t pos = s.find(sep, start);
        if (pos == std::string_view::npos) {
            out.push_back(s.substr(start));
            return out;
        }
        out.push_back(s.substr(start, pos - start));
        start = pos + 1;
    }
}

/// Parses a whole string of decimal digits (no sign, no spaces) as an unsigned integer
/// of type T; nullopt if anything else is there or the value does not fit.
template <class T>
    requires std::is_unsigned_v<T>
[[nodiscard]] std::optional<T> parse_unsigned(std::string_view s) noexcept {
    if (s.empty() || !is_digit(s.front())) return std::nullopt;
    T value{};
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec != std::errc{} || ptr != s.data() + s.size()) return std::nullopt;
    return value;
}

/// Parses a whole string `[-+]digits` as a signed integer of type T; nullopt if anything
/// else is there or the value does not fit.
template <class T>
    requires std::is_signed_v<T> && std::is_integral_v<T>
[[nodiscard]] std::optional<T> parse_signed(std::string_view s) noexcept {
    if (!s.empty() && s.front() == '+') s.remove_prefix(1);
    if (s.empty()) return std::nullopt;
    const std::size_t first_digit = (s.front() == '-') ? 1 : 0;
    if (first_digit >= s.size() || !is_digit(s[first_digit])) return std::nullopt;
    T value{};
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec != std::errc{} || ptr != s.data() + s.size()) return std::nullopt;
    return value;
}

/// Parses a whole string as a finite double (`1`, `-0.25`, `1e3`; no leading '+', no
/// spaces, no inf/nan); nullopt otherwise.
[[nodiscard]] inline std::optional<double> parse_double(std::string_view s) noexcept {
    if (s.empty()) return std::nullopt;
    // from_chars would accept "inf"/"nan": require a digit or '.' after an optional '-'.
    const std::size_t i = (s.front() == '-') ? 1 : 0;
    if (i >= s.size() || !(is_digit(s[i]) || s[i] == '.')) return std::nullopt;
    double value = 0.0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec != std::errc{} || ptr != s.data() + s.size() || !std::isfinite(value))
        return std::nullopt;
    return value;
}

/// The widest line a `-o` format of sprio or sshare may ask for (the sum of its fields'
/// widths and text): each width is bounded (4096) and so is the line, or thousands of wide
/// fields over tens of thousands of rows would print gigabytes.
inline constexpr std::size_t max_format_line = 2048;

/// The last second the readers take as a time, 9999-12-31T23:59:59 UTC: times (and Maui
/// durations) are bounded to 1970..9999 so that no time arithmetic downstream can overflow.
inline constexpr std::int64_t max_epoch = 253402300799;

/// 2^64 as a double: every count Slurm keeps as an unsigned 64-bit integer (TRES counts,
/// the RawUsage sshare prints) is below it.
inline constexpr double two_pow_64 = 18446744073709551616.0;

/// The range a number cell may hold, for messages: "from 0 to 1", "from 0 to below 2^64".
[[nodiscard]] inline std::string range_text(double lo, double hi) {
    auto num = [](double v) {
        if (v == two_pow_64) return std::string("below 2^64");
        char buf[32];
        std::snprintf(buf, sizeof buf, "%g", v);
        return std::string(buf);
    };
    return "from " + num(lo) + " to " + num(hi);
}

/// Parses the longest leading finite double of `s` (like strtod without the locale);
/// returns the value and the number of characters used, or nullopt if `s` does not start
/// with a number.
[[nodiscard]] inline std::optional<std::pair<double, std::size_t>> parse_double_prefix(
    std::string_view s) noexcept {
    if (s.empty()) return std::nullopt;
    const std::size_t i = (s.front() == '-') ? 1 : 0;
    if (i >= s.size() || !(is_digit(s[i]) || s[i] == '.')) return std::nullopt;
    double value = 0.0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec != std::errc{} || !std::isfinite(value)) return std::nullopt;
    return std::pair<double, std::size_t>{value, static_cast<std::size_t>(ptr - s.data())};
}

/// An `input_error` of a whole file (no line or column): `make_error(file, 0, 0, ...)`.
[[nodiscard]] inline input_error file_error(std::string_view file, std::string_view key, std::string message,
                                            error_kind kind = error_kind::syntax);

/// Builds an `input_error` (the readers' one way of reporting bad input).
[[nodiscard]] inline input_error make_error(std::string_view file, std::size_t line,
                                            std::size_t column, std::string_view key,
                                            std::string message, error_kind kind = error_kind::syntax) {
    input_error e;
    e.kind = kind;
    e.file = std::string(file);
    e.line = line;
    e.column = column;
    e.key = std::string(key);
    e.message = std::move(message);
    return e;
}

inline input_error file_error(std::string_view file, std::string_view key, std::string message, error_kind kind) {
    return make_error(file, 0, 0, key, std::move(message), kind);
}

/// The largest input the readers take: 1 GiB. Larger files (or endless ones such as
/// /dev/zero) are refused rather than read into memory.
inline constexpr std::size_t max_input_bytes = std::size_t{1} << 30;

/// The error of a text that holds a NUL byte, at the first one's line and column (as
/// split_lines counts them: a line ends at \n, \r\n or \r); none for a text without.
[[nodiscard]] inline std::optional<input_error> nul_byte_error(std::string_view text, const std::string& name) {
    const std::size_t nul = text.find('\0');
    if (nul == std::string_view::npos) return std::nullopt;
    std::size_t line = 1, start = 0;
    for (std::size_t i = 0; i < nul; ++i)
        if (const std::size_t end = line_end_at(text, i); end != 0) {
            ++line;
            start = i + end;
        }
    const std::size_t bom = (line == 1 && text.starts_with("\xEF\xBB\xBF")) ? 3 : 0;
    return make_error(name, line, nul - start - bom + 1, {}, "a NUL byte: not a text file", error_kind::io);
}

/// The error of an input past `limit` bytes.
[[nodiscard]] inline input_error too_large_error(const std::string& path, std::size_t limit = max_input_bytes) {
    return make_error(path, 0, 0, {}, "larger than " + std::to_string(limit) + " bytes, the most mfprio reads from one input", error_kind::limit);
}

/// Why the open file `f` is not an input mfprio reads, or nullptr: a directory, or a device
/// other than a terminal (a block device, /dev/zero, /dev/urandom...). Regular files, pipes,
/// sockets and terminals are read. POSIX only; elsewhere every file is tried.
[[nodiscard]] inline const char* unreadable_kind([[maybe_unused]] std::FILE* f) {
#ifdef MFPRIO_POSIX_FILES
    struct stat st {};
    const int fd = fileno(f);
    if (fd < 0 || fstat(fd, &st) != 0) return nullptr; // reading will tell
    if (S_ISDIR(st.st_mode)) return "cannot read file: a directory";
    if (S_ISBLK(st.st_mode) || (S_ISCHR(st.st_mode) && isatty(fd) == 0)) return "cannot read file: a device, not a text file";
#endif
    return nullptr;
}

/// Which kinds of file `read_text_file` takes.
enum class file_source {
    /// Whatever a user names: a regular file, a pipe (`--jobs -`, `<(command)`), a socket or
    /// a terminal.
    any,
    /// Only a regular file: what mfprio reads inside a directory (a bundle, a Maui capture, a
    /// snapshot directory), where a FIFO would block the reader until someone writes to it.
    /// The file is opened without waiting for a writer, and anything else is refused.
    regular,
};

#ifdef MFPRIO_POSIX_FILES
/// Why a file of mode `mode` is not read as a regular file, or nullptr when it is one.
[[nodiscard]] inline const char* not_regular_reason(mode_t mode) noexcept {
    if (S_ISREG(mode)) return nullptr;
    return S_ISFIFO(mode)   ? "cannot read file: a FIFO, not a regular file"
           : S_ISSOCK(mode) ? "cannot read file: a socket, not a regular file"
           : S_ISDIR(mode)  ? "cannot read file: a directory"
                            : "cannot read file: a device, not a regular file";
}
#endif

/// Opens `path` for reading; with `file_source::regular`, without blocking on a FIFO and
/// refusing what is not a regular file (`why` says what it is). nullptr when it cannot be
/// opened (`why` stays nullptr) or is refused.
[[nodiscard]] inline std::FILE* open_input_file([[maybe_unused]] const std::string& path, file_source source,
                                           const char*& why) {
    why = nullptr;
#ifdef MFPRIO_POSIX_FILES
    if (source == file_source::regular) {
        const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) return nullptr;
        struct stat st {};
        if (fstat(fd, &st) != 0) st.st_mode = 0;
        if ((why = not_regular_reason(st.st_mode)) != nullptr) {
            ::close(fd);
            return nullptr;
        }
        ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
        std::FILE* f = ::fdopen(fd, "rb");
        if (f == nullptr) ::close(fd);
        return f;
    }
#endif
    return std::fopen(path.c_str(), "rb");
}

/// The error of a file that exists at `path` but is not a regular file (a FIFO, a socket, a
/// device, a directory), found without opening it; nullopt for a regular file or none.
[[nodiscard]] inline std::optional<input_error> not_regular_file_error([[maybe_unused]] const std::string& path) {
#ifdef MFPRIO_POSIX_FILES
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0)
        if (const char* why = not_regular_reason(st.st_mode)) return make_error(path, 0, 0, {}, why, error_kind::io);
#endif
    return std::nullopt;
}

/// The whole content of the file at `path` ("-": standard input), at most `limit` bytes,
/// or an `input_error` naming it ("cannot open file", "cannot read file", a directory or a
/// device, too large, a NUL byte: no input mfprio reads is binary, and a NUL would end a name
/// where C code sees it). A regular file larger than `limit` is refused before it is read.
/// `source` says whether a pipe or terminal is read too (`any`) or only a regular file.
[[nodiscard]] inline expected<std::string> read_text_file(const std::string& path,
                                                          std::size_t limit = max_input_bytes,
                                                          file_source source = file_source::any) {
    const bool stdin_path = path == "-" && source == file_source::any;
    const char* refused = nullptr;
    std::FILE* f = stdin_path ? stdin : open_input_file(path, source, refused);
    if (refused != nullptr) return make_error(path, 0, 0, {}, refused, error_kind::io);
    if (f == nullptr) return make_error(path, 0, 0, {}, "cannot open file", error_kind::cannot_open);
    const auto too_large = [&] { return too_large_error(path, limit); };
    std::string out;
    if (const char* why = unreadable_kind(f)) {
        if (!stdin_path) std::fclose(f);
        return make_error(path, 0, 0, {}, why, error_kind::io);
    }
#ifdef MFPRIO_POSIX_FILES
    if (struct stat st {}; fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode)) {
        if (static_cast<std::uintmax_t>(st.st_size) > limit) {
            if (!stdin_path) std::fclose(f);
            return too_large();
        }
        // 64 bytes more: room for a JSON parser's padding without a second allocation.
        out.reserve(static_cast<std::size_t>(st.st_size) + 64);
    }
#endif
    char buffer[65536];
    bool over = false;
    for (;;) {
        const std::size_t n = std::fread(buffer, 1, sizeof buffer, f);
        if (out.size() + n > limit) {
            over = true;
            break;
        }
        out.append(buffer, n);
        if (n < sizeof buffer) break;
    }
    const bool failed = std::ferror(f) != 0;
    const int error = errno;
    if (!stdin_path) std::fclose(f);
    if (over) return too_large();
    if (failed) return make_error(path, 0, 0, {}, error == EISDIR ? "cannot read file: a directory" : "cannot read file", error_kind::io);
    if (auto e = nul_byte_error(out, path)) return *e;
    return out;
}

/// One line of a text: its content (without the end of line, without a trailing CR) and
/// its 1-based number.
struct text_line {
    std::string_view text;
    std::size_t number = 0;
};

/// Calls `f(text_line)` for each line of a text, in order, until `f` returns false. A line
/// ends at "\r\n", "\n" or a lone "\r" (old Mac files), none of which belongs to the line; a
/// final line without an end counts; an empty text has no lines. A UTF-8 byte order mark at
/// the start of the text is not part of the first line (columns count from after it, as
/// editors show them).
template <class F>
void for_each_line(std::string_view text, F&& f) {
    std::size_t start = text.starts_with("\xEF\xBB\xBF") ? 3 : 0;
    std::size_t number = 1;
    std::size_t lf = 0; // the next \n at or after `start` (text.size(): none), once found
    bool lf_found = false;
    while (start < text.size()) {
        // memchr for the next \n (kept while it lies ahead: a text of lone \r is scanned
        // once), then for a \r before it: find_first_of tests the set at each byte, several
        // times slower on outputs of megabytes.
        if (!lf_found || lf < start) {
            lf_found = true;
            const void* const p = std::memchr(text.data() + start, '\n', text.size() - start);
            lf = p != nullptr ? static_cast<std::size_t>(static_cast<const char*>(p) - text.data()) : text.size();
        }
        std::size_t end = lf;
        if (const void* const cr = std::memchr(text.data() + start, '\r', lf - start); cr != nullptr)
            end = static_cast<std::size_t>(static_cast<const char*>(cr) - text.data());
        std::size_t next = text.size();
        if (end < text.size()) next = end + line_end_at(text, end);
        if (!f(text_line{text.substr(start, end - start), number})) return;
        ++number;
        start = next;
    }
}

/// The lines of a text, as `for_each_line` splits them.
[[nodiscard]] inline std::vector<text_line> split_lines(std::string_view text) {
    std::vector<text_line> out;
    for_each_line(text, [&](const text_line& l) {
        out.push_back(l);
        return true;
    });
    return out;
}

/// "'text'" for messages, shortened when very long.
[[nodiscard]] inline std::string quote(std::string_view s) {
    constexpr std::size_t max_len = 60;
    std::string out = "'";
    if (s.size() > max_len) {
        out.append(s.substr(0, max_len));
        out += "...";
    } else {
        out.append(s);
    }
    out += '\'';
    return out;
}

} // namespace mfprio::text
