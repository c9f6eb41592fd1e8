#pragma once
// The tool's commands in one table, `mfprio --help`, `--version`, and the usage error of an
// unknown command (with a "did you mean"); `run_main` (cli.hpp, cli_main.cpp) dispatches.
#include <cstdio>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <mfprio/version.hpp>

#include "commands.hpp"
#include "demo.hpp"
#include "fairshare_commands.hpp"
#include "maui_commands.hpp"
#include "queue_commands.hpp"
#include "whatif_commands.hpp"

namespace mfprio::cli {

/// A command: its name, one line about it, how to run it, its help text and the options its
/// parser takes (every spelling of its option rows: their names, and with whether each takes
/// a value, for the man page and the shell completion).
struct command {
    std::string_view name;
    std::string_view summary;
    outcome (*run)(args_t);
    std::string_view help;
    std::span<const std::string_view> options;
    std::span<const option_spelling> spellings;
};

inline const command commands[] = {
    {"sprio", "what Slurm's sprio prints, from files, a saved bundle or the live cluster",
     [](args_t a) { return run_sprio(a); }, sprio_help, sprio_option_names, sprio_option_spellings},
    {"sshare", "what Slurm's sshare prints, fair-share taken or computed", [](args_t a) { return run_sshare(a); },
     sshare_help, sshare_option_names, sshare_option_spellings},
    {"usage", "charges running jobs for a while and prints the association table after",
     [](args_t a) { return run_usage(a); }, usage_help, usage_option_names, usage_option_spellings},
    {"whatif", "what a configuration change would do to the pending queue", [](args_t a) { return run_whatif(a); },
     whatif_help, whatif_option_names, whatif_option_spellings},
    {"diagnose", "what Maui 3.3's diagnose -p prints, from maui.cfg and a jobs table",
     [](args_t a) { return run_diagnose(a); }, diagnose_help, diagnose_option_names, diagnose_option_spellings},
    {"queue", "a runtime-configured engine (policy file or preset) over a jobs table",
     [](args_t a) { return run_queue(a); }, queue_help, queue_option_names, queue_option_spellings},
    {"lint", "checks slurm.conf's priority weights, or how Maui 3.3 reads a maui.cfg",
     [](args_t a) { return run_lint(a); }, lint_help, lint_option_names, lint_option_spellings},
    {"demo", "the seeds' three clusters through sprio, --explain and diagnose",
     [](args_t a) { return run_demo(a); }, demo_help, demo_option_names, demo_option_spellings},
};

inline constexpr std::string_view main_usage = "usage: mfprio [COMMAND] [OPTIONS]  (mfprio help COMMAND: its options)";

/// What mfprio is, as `--help` and the man page say it.
inline constexpr std::string_view main_description =
    "Multifactor job priority, computed the way Slurm, Maui and Flux compute it, from your own files\n"
    "or a live Slurm cluster.";

/// The exit statuses, as `--help` and the man page list them.
inline constexpr std::string_view main_exit_status =
    "0 success, 1 lint warnings or --verify differences, 2 usage error, 65 bad input data.";

/// "mfprio 0.1.0".
inline std::string version_text() {
    return "mfprio " + std::to_string(MFPRIO_VERSION_MAJOR) + "." + std::to_string(MFPRIO_VERSION_MINOR) + "." +
           std::to_string(MFPRIO_VERSION_PATCH);
}

/// `mfprio --help`: the commands, one line each.
inline std::string main_help() {
    std::string out = std::string(main_usage) + "\n\n" + std::string(main_description) + "\n\nCommands:\n";
    for (const command& c : commands) {
        char line[256];
        std::snprintf(line, sizeof line, "  %-9.*s%.*s\n", static_cast<int>(c.name.size()), c.name.data(),
                      static_cast<int>(c.summary.size()), c.summary.data());
        out += line;
    }
    out += "\n"
           "  --help, -h, help      this text; mfprio help COMMAND or mfprio COMMAND --help: every option\n"
           "  --version, -V         the version\n"
           "\n"
           "Exit status: " + std::string(main_exit_status) + "\n";
    return out;
}

/// The command named `name`, or nullptr.
inline const command* find_command(std::string_view name) {
    for (const command& c : commands)
        if (c.name == name) return &c;
    return nullptr;
}

/// The usage error of an unknown command.
inline outcome unknown_command(std::string_view name) {
    std::vector<std::string_view> names;
    for (const command& c : commands) names.push_back(c.name);
    outcome o;
    o.status = exit_usage;
    o.err = "mfprio: unknown command '" + std::string(name) + "'" + text::did_you_mean(name, names) + "\n" +
            std::string(main_usage) + "\nTry 'mfprio --help'.\n";
    return o;
}

} // namespace mfprio::cli
