// mfprio: the command-line tool. See `mfprio --help`.
#include <cstdio>
#include <string_view>
#include <vector>

#include "cli.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

int main(int argc, char** argv) {
#if defined(__GLIBC__)
    // Each run is one short pass over outputs of up to tens of megabytes: blocks of any size
    // come from the heap and stay there when freed, to be reused without the page faults of a
    // fresh mapping (glibc maps large blocks one by one and unmaps them when freed).
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
#endif
    const std::vector<std::string_view> args(argv + 1, argv + argc);
    const mfprio::cli::outcome o = mfprio::cli::run_main(args);
    std::fwrite(o.out.data(), 1, o.out.size(), stdout);
    std::fwrite(o.err.data(), 1, o.err.size(), stderr);
    return o.status;
}
