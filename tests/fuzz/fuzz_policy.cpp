// Policy files (queue/policy.hpp) over the built-in registry: parsed and, when valid, built.
#include <mfprio/queue/builtin.hpp>
#include <mfprio/queue/policy.hpp>

#include "fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto reg = mfprio::queue::builtin_registry();
    const auto text = mfprio_fuzz::text_of(data, size);
    const auto e = mfprio::queue::load_policy(text, reg, mfprio::flux::flux_result{}, "fuzz.policy");
    if (!e) mfprio_fuzz::check(e.error(), "fuzz.policy", text);
    return 0;
}
