// mfprio: the command-line tool. See `mfprio --help`.
#include <cstdio>
#include <string_view>
#include <vector>

#include "cli.hpp"

int main(int argc, char** argv) {
    const std::vector<std::string_view> args(argv + 1, argv + argc);
    const mfprio::cli::outcome o = mfprio::cli::run_main(args);
    std::fwrite(o.out.data(), 1, o.out.size(), stdout);
    std::fwrite(o.err.data(), 1, o.err.size(), stderr);
    return o.status;
}
