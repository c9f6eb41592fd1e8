// Maui's jobs table (config/maui_jobs.hpp), Req cells included.
#include <mfprio/read/maui_jobs.hpp>

#include "fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto text = mfprio_fuzz::text_of(data, size);
    const auto t = mfprio::config::parse_maui_jobs(text, "fuzz.txt");
    if (!t) mfprio_fuzz::check(t.error(), "fuzz.txt", text);
    (void)mfprio::config::parse_maui_requirements(text);
    return 0;
}
