// maui.cfg (config/maui_cfg.hpp): errors and warnings keep the contract; what is accepted is
// within Maui's ranges.
#include <mfprio/read/maui_cfg.hpp>

#include "fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto text = mfprio_fuzz::text_of(data, size);
    const auto c = mfprio::config::parse_maui_cfg(text, "fuzz.cfg");
    if (!c) {
        mfprio_fuzz::check(c.error(), "fuzz.cfg", text);
        return 0;
    }
    const std::size_t lines = mfprio_fuzz::line_count(text);
    for (const auto& w : c->warnings) mfprio_fuzz::check(w, "fuzz.cfg", lines);
    if (c->fs.depth < 1 || c->fs.depth > mfprio::maui::max_fs_depth) std::abort();
    if (!(c->fs.decay > 0) || !(c->fs.interval > 0)) std::abort();
    return 0;
}
