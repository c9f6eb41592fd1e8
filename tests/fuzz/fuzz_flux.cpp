// What Flux prints (mfprio/inputs/flux.hpp, simdjson): flux jobs --json and its -o text form,
// flux-accounting's list-* --json outputs. Each is refused with the contract's error or read,
// and jobs read are jobs Flux can list.
#include <string>
#include <unordered_set>

#include <mfprio/inputs/flux.hpp>

#include "fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto text = mfprio_fuzz::text_of(data, size);
    if (const auto j = mfprio::inputs::read_flux_jobs(text, "fuzz.txt"); !j) {
        mfprio_fuzz::check(j.error(), "fuzz.txt", text);
    } else {
        // What is read is what Flux can print: each job once, with an id, an urgency of 0-31
        // and a submission time within 1970-9999.
        std::unordered_set<std::uint64_t> ids;
        for (const auto& job : *j) {
            if (job.id == 0 || !ids.insert(job.id).second) mfprio_fuzz::broken("a job without an id, or twice", std::string(text));
            if (job.urgency > 31) mfprio_fuzz::broken("an urgency past 31", std::string(text));
            if (!(job.t_submit >= 0 && job.t_submit <= static_cast<double>(mfprio::text::max_epoch)))
                mfprio_fuzz::broken("a submission time outside 1970-9999", std::string(text));
        }
    }
    if (const auto u = mfprio::inputs::flux_users_from(text, "fuzz.txt"); !u) mfprio_fuzz::check(u.error(), "fuzz.txt", text);
    if (const auto f = mfprio::inputs::flux_factors_from(text, "fuzz.txt"); !f) mfprio_fuzz::check(f.error(), "fuzz.txt", text);
    if (const auto q = mfprio::inputs::flux_queues_from(text, "fuzz.txt"); !q) mfprio_fuzz::check(q.error(), "fuzz.txt", text);
    if (const auto b = mfprio::inputs::flux_banks_from(text, "fuzz.txt"); !b) mfprio_fuzz::check(b.error(), "fuzz.txt", text);
    return 0;
}
