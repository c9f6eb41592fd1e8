// sprio's -o format strings (report/sprio.hpp): refused or parsed into bounded fields.
#include <mfprio/report/sprio.hpp>

#include "fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto text = mfprio_fuzz::text_of(data, size);
    std::vector<mfprio::report::sprio_field> fields;
    const auto error = mfprio::report::parse_sprio_format(text, fields);
    if (error && error->empty()) std::abort(); // a refusal says why
    return 0;
}
