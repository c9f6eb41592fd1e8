#pragma once
// The mfprio tool's commands as functions from arguments to what the tool prints and its
// exit status, so that tests (and the fuzz targets) run them without a process. Their
// definitions are compiled once, into the tool's library (meson.build: mfprio_cli); the
// headers beside this one hold what each command is made of.
//
// Exit status: 0 success, 2 usage error, 65 bad input data (sysexits' EX_DATAERR).

#include <span>
#include <string>
#include <string_view>

namespace mfprio::cli {

inline constexpr int exit_ok = 0;
inline constexpr int exit_usage = 2;
inline constexpr int exit_data = 65;

/// What a command printed and how it ended.
struct outcome {
    int status = exit_ok;
    std::string out;
    std::string err;
};

/// A command's arguments (after the command's name).
using args_t = std::span<const std::string_view>;

struct slurm_sources; // commands.hpp
struct maui_sources;  // maui_commands.hpp

/// `mfprio ARGS...`: what the tool prints and its exit status.
outcome run_main(args_t args);
/// `mfprio sprio`; `embedded`: the demo's texts instead of files.
outcome run_sprio(args_t args, const slurm_sources* embedded = nullptr);
outcome run_lint(args_t args);
outcome run_sshare(args_t args);
outcome run_usage(args_t args);
outcome run_whatif(args_t args);
/// `mfprio diagnose`; `embedded`: the demo's texts instead of files.
outcome run_diagnose(args_t args, const maui_sources* embedded = nullptr);
outcome run_queue(args_t args);
outcome run_demo(args_t args);

} // namespace mfprio::cli
