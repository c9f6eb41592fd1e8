// `mfprio ARGS...`: the dispatch to the commands, --help, --version.
#include "cli_main.hpp"

namespace mfprio::cli {

/// `mfprio ARGS...`: what the tool prints and its exit status.
outcome run_main(args_t args) {
    outcome o;
    if (args.empty()) {
        // No command: what the tool can do, as a usage error (`mfprio demo` runs the demo).
        o.status = exit_usage;
        o.err = main_help();
        return o;
    }
    const std::string_view cmd = args.front();
    const args_t rest = args.subspan(1);
    if (cmd == "--help" || cmd == "-h" || (cmd == "help" && rest.empty())) {
        o.out = main_help();
        return o;
    }
    if (cmd == "--version" || cmd == "-V") {
        o.out = version_text() + "\n";
        return o;
    }
    if (cmd == "help") {
        const command* c = find_command(rest.front());
        if (c == nullptr) return unknown_command(rest.front());
        o.out = c->help;
        return o;
    }
    const command* c = find_command(cmd);
    if (c == nullptr) return unknown_command(cmd);
    // No option of any command takes an empty value (a file, a number, a name, a format):
    // `--nodes ""` is a mistake (an unset variable, often), not the option left out.
    for (std::size_t i = 0; i < rest.size(); ++i)
        if (rest[i].empty()) {
            o.status = exit_usage;
            o.err = "mfprio " + std::string(cmd) + ": an empty argument" +
                    (i > 0 ? " after " + std::string(rest[i - 1]) : std::string()) +
                    "; options take non-empty values\nTry 'mfprio " + std::string(cmd) + " --help'.\n";
            return o;
        }
    return c->run(rest);
}

} // namespace mfprio::cli
