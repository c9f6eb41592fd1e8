// Maui's fair-share window files, FS.<epoch> (config/maui_fs.hpp): errors keep the contract,
// and what is read prints (format_fs_window) into a file that reads back the same.
#include <mfprio/read/maui_fs.hpp>

#include "fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto text = mfprio_fuzz::text_of(data, size);
    const auto w = mfprio::config::parse_fs_window(text, "FS.1800000000", 1800000000);
    if (!w) {
        mfprio_fuzz::check(w.error(), "FS.1800000000", text);
        return 0;
    }
    const std::string printed = mfprio::config::format_fs_window(*w);
    const auto again = mfprio::config::parse_fs_window(printed, "FS.1800000000", 1800000000);
    if (!again) {
        std::fprintf(stderr, "printed window does not read back: %s\n%s", again.error().to_string().c_str(),
                     printed.c_str());
        std::abort();
    }
    if (again->usage != w->usage || again->total != w->total || again->start != w->start) {
        std::fprintf(stderr, "printed window reads back different:\n%s", printed.c_str());
        std::abort();
    }
    return 0;
}
