// mfprio's man page and bash completion (examples/mfprio/docs.hpp) against the option lists
// the parsers check: every option a command's parser takes is in its section of the man page
// and in its completion, and an option that takes a value completes a file name after it.
// (tests/docs.sh checks the installed forms: groff's warnings, bash completing.)

#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include "docs.hpp"

namespace {
namespace cli = mfprio::cli;

/// What roff shows as `text` (docs.hpp's escaping of '-').
std::string escaped(std::string_view text) {
    std::string out;
    for (const char ch : text) {
        if (ch == '-') out += "\\-";
        else out += ch;
    }
    return out;
}

/// The part of `text` from `from` to the next `to` (or the end).
std::string_view section(std::string_view text, std::string_view from, std::string_view to) {
    const std::size_t a = text.find(from);
    REQUIRE(a != std::string_view::npos);
    const std::size_t b = text.find(to, a + from.size());
    return text.substr(a, b == std::string_view::npos ? std::string_view::npos : b - a);
}

/// Whether `list` (words separated by spaces) has `word`.
bool has_word(std::string_view list, std::string_view word) {
    const std::string padded = " " + std::string(list) + " ";
    return padded.find(" " + std::string(word) + " ") != std::string::npos;
}
} // namespace

TEST_CASE("docs: every option of every command is in the man page and the bash completion") {
    const std::string man = cli::render_man();
    const std::string bash = cli::render_bash_completion();
    std::size_t options = 0;
    for (const cli::command& c : cli::commands) {
        CAPTURE(c.name);
        CHECK(man.find(".B " + std::string(c.name) + "\n") != std::string::npos);
        const auto man_section = section(man, ".SS mfprio " + std::string(c.name) + "\n", ".SS ");
        const auto case_arm = section(bash, "    " + std::string(c.name) + ")\n", ";;");
        const auto opts = section(case_arm, "opts='", "'\n");
        const auto values = section(case_arm, "values='", "'\n");
        // Every name the parser takes (cli_help.cpp checks that it takes each).
        REQUIRE(c.spellings.size() == c.options.size());
        for (const cli::option_spelling& s : c.spellings) {
            CAPTURE(s.name);
            CHECK(man_section.find(escaped(s.name)) != std::string_view::npos);
            CHECK(has_word(opts.substr(6), s.name));
            CHECK(has_word(values.substr(8), s.name) == s.takes_value);
            ++options;
        }
    }
    CHECK(options > 100);
}

TEST_CASE("docs: an option's listed values are the ones its parser takes, and the completion offers them") {
    const std::string bash = cli::render_bash_completion();
    std::size_t lists = 0;
    for (const cli::command& c : cli::commands) {
        CAPTURE(c.name);
        for (const cli::option_spelling& s : c.spellings) {
            if (s.values.empty()) continue;
            CAPTURE(s.name);
            ++lists;
            CHECK(bash.find("        " + std::string(s.name) + ") COMPREPLY=($(compgen -W '" + std::string(s.values) + "'") !=
                  std::string::npos);
            // The parser's complaint about this option's value, if it makes one.
            const auto refuses = [&](std::string_view value) {
                const std::vector<std::string_view> args{c.name, s.name, value};
                const auto o = cli::run_main(args);
                return o.err.find(std::string(s.name) + " takes") != std::string::npos ||
                       o.err.find("unknown algorithm") != std::string::npos;
            };
            std::string_view words = s.values;
            while (!words.empty()) {
                const std::size_t sp = words.find(' ');
                const std::string_view w = words.substr(0, sp);
                CAPTURE(w);
                CHECK_FALSE(refuses(w));
                words = sp == std::string_view::npos ? std::string_view{} : words.substr(sp + 1);
            }
            CHECK(refuses("no-such-value"));
        }
    }
    CHECK(lists >= 8);
}

TEST_CASE("docs: the man page names the version and the exit statuses, and guards roff's control lines") {
    const std::string man = cli::render_man();
    CHECK(man.starts_with(".TH MFPRIO 1 \"\" \"mfprio " + std::string(MFPRIO_PROJECT_VERSION) + "\" \"User Commands\"\n"));
    CHECK(man.find(".SH EXIT STATUS\n0 success, 1 lint warnings or \\-\\-verify differences") != std::string::npos);
    // A help line starting with '.' or ' would be a roff request: guarded with \&.
    CHECK(cli::detail::roff_text(".x\n'y\\z") == "\\&.x\n\\&'y\\ez");
}
