// Maui's own outputs (mfprio/read/maui_outputs.hpp): checkjob, showq, showstats -v and the
// simulator's resource and workload traces. Each is refused with the contract's error or read.
#include <mfprio/read/maui_outputs.hpp>

#include "fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto text = mfprio_fuzz::text_of(data, size);
    using namespace mfprio::config;
    (void)detect_maui_input(text);
    if (const auto c = parse_maui_checkjob(text, "fuzz.txt", 1000000); !c) mfprio_fuzz::check(c.error(), "fuzz.txt", text);
    if (const auto q = parse_maui_showq(text, "fuzz.txt"); !q) mfprio_fuzz::check(q.error(), "fuzz.txt", text);
    if (const auto s = parse_maui_showstats(text, "fuzz.txt"); !s) mfprio_fuzz::check(s.error(), "fuzz.txt", text);
    if (const auto r = parse_maui_resource_trace(text, "fuzz.txt"); !r) mfprio_fuzz::check(r.error(), "fuzz.txt", text);
    if (const auto w = parse_maui_workload_trace(text, "fuzz.txt"); !w) mfprio_fuzz::check(w.error(), "fuzz.txt", text);
    return 0;
}
