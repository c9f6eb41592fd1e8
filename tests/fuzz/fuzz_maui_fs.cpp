// Maui's fair-share window files, FS.<epoch> (config/maui_fs.hpp).
#include <mfprio/config/maui_fs.hpp>

#include "fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto text = mfprio_fuzz::text_of(data, size);
    const auto w = mfprio::config::parse_fs_window(text, "FS.1800000000", 1800000000);
    if (!w) mfprio_fuzz::check(w.error(), "FS.1800000000", text);
    return 0;
}
