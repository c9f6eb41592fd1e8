// The tool's manners: `mfprio --help` lists every command, `mfprio help CMD` and `mfprio CMD
// --help` print the same text naming every option CMD accepts (each listed option is taken
// by its parser, and the parsers refuse any other), `--version`, and unknown commands and
// options exit 2 with the usage line and a "did you mean".
#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include "cli_main.hpp"

namespace {
namespace cli = mfprio::cli;

cli::outcome run(std::vector<std::string_view> args) { return cli::run_main(args); }

/// Whether `text` has `word` with no letter, digit or '-' on either side.
bool mentions(std::string_view text, std::string_view word) {
    const auto part = [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
    };
    for (std::size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
        const bool before = at == 0 || !part(text[at - 1]);
        const bool after = at + word.size() == text.size() || !part(text[at + word.size()]);
        if (before && after) return true;
    }
    return false;
}
} // namespace

TEST_CASE("cli help: mfprio --help lists every command with one line") {
    for (const std::string_view flag : {"--help", "-h", "help"}) {
        const auto o = run({flag});
        CHECK(o.status == 0);
        CHECK(o.out.rfind("usage: mfprio [COMMAND] [OPTIONS]", 0) == 0);
        for (const auto& c : cli::commands) {
            CAPTURE(c.name);
            CHECK(o.out.find("  " + std::string(c.name) + std::string(9 - c.name.size(), ' ') + std::string(c.summary) +
                             "\n") != std::string::npos);
        }
    }
}

TEST_CASE("cli help: each command's --help names every option it accepts, with an example") {
    for (const auto& c : cli::commands) {
        CAPTURE(c.name);
        const auto help = run({"help", c.name});
        const auto dash = run({c.name, "--help"});
        CHECK(help.status == 0);
        CHECK(dash.status == 0);
        CHECK(help.out == dash.out);
        CHECK(help.out.rfind("usage: mfprio " + std::string(c.name), 0) == 0);
        CHECK(help.out.find("Example") != std::string::npos);
        for (const std::string_view opt : c.options) {
            CAPTURE(opt);
            CHECK(mentions(help.out, opt));
            // The parser takes it: whatever else goes wrong, it is not an unknown option.
            const auto o = run({c.name, opt, "x"});
            CHECK(o.err.find("unknown option '" + std::string(opt) + "'") == std::string::npos);
        }
    }
}

TEST_CASE("cli help: an unknown option exits 2 with the usage line and a did-you-mean") {
    const auto o = run({"sprio", "--nwo", "1"});
    CHECK(o.status == cli::exit_usage);
    CHECK(o.out == "");
    CHECK(o.err == "mfprio sprio: unknown option '--nwo' (did you mean --now?)\n"
                   "usage: mfprio sprio --conf FILE... --qos FILE --assoc FILE... --jobs FILE [options]\n"
                   "Try 'mfprio sprio --help'.\n");
    const auto far = run({"diagnose", "--completely-different"});
    CHECK(far.status == cli::exit_usage);
    CHECK(far.err.rfind("mfprio diagnose: unknown option '--completely-different'\nusage: mfprio diagnose", 0) == 0);
    // Options of another command are unknown here: sshare reads no jobs.
    CHECK(run({"sshare", "--jobs", "j"}).err.find("unknown option '--jobs'") != std::string::npos);
    CHECK(run({"demo", "--fast"}).status == cli::exit_usage);
    CHECK(run({"lint", "--maui"}).err.find("did you mean --maui-cfg?") != std::string::npos);
}

TEST_CASE("cli help: an unknown command exits 2 with the usage line and a did-you-mean") {
    const auto o = run({"sprioo"});
    CHECK(o.status == cli::exit_usage);
    CHECK(o.err == "mfprio: unknown command 'sprioo' (did you mean sprio?)\n" + std::string(cli::main_usage) +
                       "\nTry 'mfprio --help'.\n");
    CHECK(run({"help", "diagnos"}).err.find("did you mean diagnose?") != std::string::npos);
    CHECK(run({"xyzzy"}).err.rfind("mfprio: unknown command 'xyzzy'\n", 0) == 0);
}

TEST_CASE("cli help: no command prints what the tool does, on stderr, and exits 2") {
    const auto o = run({});
    CHECK(o.status == cli::exit_usage);
    CHECK(o.out.empty());
    CHECK(o.err.rfind(std::string(cli::main_usage) + "\n", 0) == 0);
    CHECK(o.err.find("\n  demo     ") != std::string::npos);
    // The demo runs only when asked for.
    CHECK(o.err.find("$ mfprio sprio") == std::string::npos);
    CHECK(run({"demo"}).out.find("$ mfprio sprio -l\n") != std::string::npos);
}

TEST_CASE("cli help: --version") {
    for (const std::string_view flag : {"--version", "-V"}) {
        const auto o = run({flag});
        CHECK(o.status == 0);
        CHECK(o.out == "mfprio " + std::to_string(MFPRIO_VERSION_MAJOR) + "." + std::to_string(MFPRIO_VERSION_MINOR) +
                           "." + std::to_string(MFPRIO_VERSION_PATCH) + "\n");
        // meson.build's project version (meson.build refuses to configure when version.hpp
        // differs from it).
        CHECK(o.out == "mfprio " MFPRIO_PROJECT_VERSION "\n");
    }
}

TEST_CASE("cli help: an empty argument is refused, not taken as an option left out") {
    // `--nodes ""` (an unset shell variable) must not fall back to the default cluster.
    const auto o = run({"diagnose", "--maui-cfg", "maui.cfg", "--jobs", "jobs.txt", "--nodes", ""});
    CHECK(o.status == cli::exit_usage);
    CHECK(o.out.empty());
    CHECK(o.err == "mfprio diagnose: an empty argument after --nodes; options take non-empty values\n"
                   "Try 'mfprio diagnose --help'.\n");
    for (const std::string_view cmd : {"sprio", "sshare", "usage", "whatif", "diagnose", "queue", "lint", "demo"}) {
        CAPTURE(cmd);
        CHECK(run({cmd, "--jobs", ""}).status == cli::exit_usage);
        CHECK(run({cmd, ""}).err.find("an empty argument;") != std::string::npos);
    }
}
