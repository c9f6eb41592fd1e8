// slurm.conf (config/slurm_conf.hpp), Include lines too: the input is read as a file in a
// directory of small included files (a valid part, a nested Include, a cycle, a broken line,
// one named by %c for ClusterName=fuzz). Inputs that could name a file outside that
// directory (a '/' anywhere, so no absolute path, no "..", no ClusterName with a slash) are
// left out: "Include /dev/stdin" would wait for input.
#include <mfprio/read/slurm_conf.hpp>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "fuzz.hpp"

namespace {
std::string include_dir() {
    const auto dir = std::filesystem::temp_directory_path() / ("mfprio-fuzz-include-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const auto put = [&](const char* name, const char* text) { std::ofstream(dir / name) << text; };
    put("part.conf", "PriorityWeightAge=1000\nPriorityFlags=NO_FAIR_TREE\nNodeName=n[1-2] CPUs=4\n");
    put("nested.conf", "Include part.conf\nPartitionName=p Nodes=n[1-2] Default=YES\n");
    put("cycle.conf", "Include cycle.conf\n");
    put("broken.conf", "PriorityWeightAge=lots\n");
    put("fuzz.conf", "PriorityWeightFairshare=10000\n");
    return dir.string();
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const std::string dir = include_dir();
    const auto text = mfprio_fuzz::text_of(data, size);
    bool include = false;
    for (std::size_t i = 0; i + 7 <= text.size(); ++i)
        if (mfprio::config::iequals(text.substr(i, 7), "include")) include = true;
    if (include && text.find('/') != std::string_view::npos) return 0;
    const std::string file = dir + "/main.conf";
    const auto c = mfprio::config::parse_slurm_conf(text, file, dir);
    if (!c) {
        // An error inside an included file names that file (in the directory).
        if (c.error().file == file) mfprio_fuzz::check(c.error(), file, text);
        else if (!c.error().file.starts_with(dir + "/") || c.error().message.empty()) std::abort();
    }
    return 0;
}
