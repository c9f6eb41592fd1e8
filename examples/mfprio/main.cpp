// mfprio: the command-line tool. See `mfprio --help`.
#include <cstdio>
#include <string_view>
#include <vector>

#include "commands.hpp"
#include "demo.hpp"
#include "fairshare_commands.hpp"
#include "maui_commands.hpp"
#include "queue_commands.hpp"
#include "whatif_commands.hpp"

namespace {

constexpr std::string_view main_help =
    "usage: mfprio [COMMAND] [OPTIONS]\n"
    "\n"
    "Multifactor job priority, computed the way Slurm, Maui and Flux compute it, from your own files.\n"
    "\n"
    "Commands:\n"
    "  sprio    what Slurm's sprio prints for a jobs table (and --explain JOBID)\n"
    "  sshare   what Slurm's sshare prints, fair-share computed from RawShares and RawUsage\n"
    "  usage    charges running jobs for a while and prints the association table after\n"
    "  whatif   what a configuration change would do to the pending queue\n"
    "  diagnose what Maui's diagnose -p prints, from maui.cfg and a jobs table\n"
    "  queue    a runtime-configured engine (policy file or preset) over a jobs table\n"
    "  lint     checks slurm.conf's priority weights\n"
    "  demo     three clusters from the seeds (the default when no command is given)\n"
    "\n"
    "Run 'mfprio COMMAND --help' for a command's options.\n"
    "Exit status: 0 success, 1 lint warnings, 2 usage error, 65 bad input data.\n";

int finish(const mfprio::cli::outcome& o) {
    std::fwrite(o.out.data(), 1, o.out.size(), stdout);
    std::fwrite(o.err.data(), 1, o.err.size(), stderr);
    return o.status;
}

} // namespace

int main(int argc, char** argv) {
    std::vector<std::string_view> args(argv + 1, argv + argc);
    if (args.empty()) return finish(mfprio::cli::run_demo({}));
    const std::string_view cmd = args.front();
    const std::span<const std::string_view> rest(args.data() + 1, args.size() - 1);
    if (cmd == "--help" || cmd == "help" || cmd == "-h") {
        std::fwrite(main_help.data(), 1, main_help.size(), stdout);
        return 0;
    }
    if (cmd == "sprio") return finish(mfprio::cli::run_sprio(rest));
    if (cmd == "sshare") return finish(mfprio::cli::run_sshare(rest));
    if (cmd == "usage") return finish(mfprio::cli::run_usage(rest));
    if (cmd == "whatif") return finish(mfprio::cli::run_whatif(rest));
    if (cmd == "diagnose") return finish(mfprio::cli::run_diagnose(rest));
    if (cmd == "queue") return finish(mfprio::cli::run_queue(rest));
    if (cmd == "lint") return finish(mfprio::cli::run_lint(rest));
    if (cmd == "demo") return finish(mfprio::cli::run_demo(rest));
    std::fprintf(stderr, "mfprio: unknown command '%.*s'\nTry 'mfprio --help'.\n", static_cast<int>(cmd.size()), cmd.data());
    return 2;
}
