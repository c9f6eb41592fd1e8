#pragma once
// What every fuzz target checks of a reader, whatever the input: it returns (no crash, no
// hang: libFuzzer's -timeout), and an error it reports names the file it was given, a line
// within the input (0 for the whole input) and a message. A broken contract aborts, which
// libFuzzer reports with the input.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include <mfprio/text/text.hpp>
#include <mfprio/core/expected.hpp>

namespace mfprio_fuzz {

inline std::string_view text_of(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

/// Lines of `t` as the readers count them (text::line_end_at), at least 1: the line after
/// the last line end counts, as an error at the end of the input names it.
inline std::size_t line_count(std::string_view t) {
    std::size_t n = 1;
    for (std::size_t i = 0; i < t.size(); ++i)
        if (mfprio::text::line_end_at(t, i) != 0) ++n;
    return n;
}

[[noreturn]] inline void broken(const char* what, const mfprio::input_error& e) {
    std::fprintf(stderr, "fuzz contract: %s: %s\n", what, e.to_string().c_str());
    std::abort();
}

/// A broken contract of a command: what, and the output or input that shows it.
[[noreturn]] inline void broken(const char* what, const std::string& shown) {
    std::fprintf(stderr, "fuzz contract: %s\n%s\n", what, shown.c_str());
    std::abort();
}

/// The contract of an error (or warning) `e` from reading, as `file`, an input of `lines`
/// lines (`line_count`, counted once per input).
inline void check(const mfprio::input_error& e, std::string_view file, std::size_t lines) {
    if (e.file != file) broken("the error names another file", e);
    if (e.message.empty()) broken("the error has no message", e);
    if (e.line > lines) broken("the error's line is past the input", e);
}
inline void check(const mfprio::input_error& e, std::string_view file, std::string_view text) {
    check(e, file, line_count(text));
}

} // namespace mfprio_fuzz
