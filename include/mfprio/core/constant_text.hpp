#pragma once
/// \file
/// A short text built at compile time from tables (what a help line says of a table's rows),
/// so that the text is a constant like the rows it comes from and can stand where a
/// `std::string_view` constant is wanted.

#include <cstddef>
#include <string_view>

namespace mfprio {

/// At most `N` characters, appended at compile time (one more is a write past the array,
/// which a constant evaluation refuses: the build fails).
template <std::size_t N>
struct constant_text {
    char chars[N]{};
    std::size_t size = 0;
    std::size_t line = 0; ///< characters since the last newline

    constexpr void add(std::string_view s) {
        for (const char c : s) {
            chars[size++] = c;
            line = c == '\n' ? 0 : line + 1;
        }
    }
    /// `s` after `separator`, or on a new line (after the separator's trailing blanks are
    /// left out) when the line would pass `width` characters.
    constexpr void add_wrapped(std::string_view separator, std::string_view s, std::size_t width) {
        if (size > 0 && line + separator.size() + s.size() > width) {
            std::string_view sep = separator;
            while (!sep.empty() && sep.back() == ' ') sep.remove_suffix(1);
            add(sep);
            add("\n");
        } else if (size > 0) {
            add(separator);
        }
        add(s);
    }
    [[nodiscard]] constexpr std::string_view view() const noexcept { return {chars, size}; }
};

} // namespace mfprio
