// site_factor/mfprio's inputs: its snapshot (config/site_snapshot.hpp), read and, when valid,
// written again and read back to the same values; and site policies over the built-in site
// factors, built when valid and run on a job.
#include <mfprio/replay/site_snapshot.hpp>
#include <mfprio/queue/site.hpp>

#include "fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto text = mfprio_fuzz::text_of(data, size);
    const auto s = mfprio::config::parse_site_snapshot(text, "fuzz.snapshot");
    if (!s) {
        mfprio_fuzz::check(s.error(), "fuzz.snapshot", text);
    } else {
        const auto again = mfprio::config::parse_site_snapshot(mfprio::config::format_site_snapshot(*s), "again");
        if (!again) mfprio_fuzz::broken("a written snapshot does not read back", again.error());
        if (again->pass != s->pass || again->assocs.size() != s->assocs.size())
            mfprio_fuzz::broken("a written snapshot reads back otherwise", std::string(text));
        for (std::size_t i = 0; i < s->assocs.size(); ++i) {
            const auto& a = s->assocs[i];
            const auto& b = again->assocs[i];
            if (a.usage_raw != b.usage_raw || a.usage_efctv != b.usage_efctv || a.shares_norm != b.shares_norm ||
                a.gpu_usage != b.gpu_usage || a.account != b.account || a.fs_parent != b.fs_parent)
                mfprio_fuzz::broken("a written snapshot reads back other values", std::string(text));
        }
    }
    const auto e = mfprio::queue::load_site_policy(text, "fuzz.policy", mfprio::queue::site_registry());
    if (!e) {
        mfprio_fuzz::check(e.error(), "fuzz.policy", text);
    } else {
        mfprio::queue::site_job j;
        j.submit_time = 1'800'000'000 - 3600;
        j.time_limit = 60;
        j.gpus = 2;
        j.owner_gpu_minutes = 600;
        (void)e->priority(j, mfprio::queue::site_context{1'800'000'000});
    }
    return 0;
}
