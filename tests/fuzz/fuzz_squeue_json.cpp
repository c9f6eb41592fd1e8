// `squeue --json` (mfprio/inputs/squeue_json.hpp, simdjson): refused with the contract's error
// or read into a jobs table whose cells point into the input.
#include <mfprio/inputs/squeue_json.hpp>

#include "fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto text = mfprio_fuzz::text_of(data, size);
    std::string version;
    // readable_after 0: the reader copies the text into simdjson's padded buffer.
    const auto t = mfprio::inputs::squeue_json_table(text, 0, "fuzz.json", &version);
    if (!t) mfprio_fuzz::check(t.error(), "fuzz.json", text);
    return 0;
}
