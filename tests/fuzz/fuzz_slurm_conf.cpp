// slurm.conf (config/slurm_conf.hpp). Include lines are left out: they open files by name
// (a fuzzer's "Include /dev/stdin" would wait for input); tests/config_slurm_conf.cpp covers them.
#include <mfprio/config/slurm_conf.hpp>

#include "fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto text = mfprio_fuzz::text_of(data, size);
    for (std::size_t i = 0; i + 7 <= text.size(); ++i)
        if (mfprio::config::iequals(text.substr(i, 7), "include")) return 0;
    const auto c = mfprio::config::parse_slurm_conf(text, "fuzz.conf", "/nonexistent");
    if (!c) mfprio_fuzz::check(c.error(), "fuzz.conf", text);
    return 0;
}
