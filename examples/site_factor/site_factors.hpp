#pragma once
// The site's own factors, compiled into site_factor/mfprio and into mfprio's offline twin
// (`mfprio sprio --site-policy`, `whatif`, `lint`), so that both read the same policy files.
// A site adds its factor types here: each reads `mfprio::queue::site_job` and
// `mfprio::queue::site_context`, is registered under the name its policy files use, says
// which of the job's fields it reads (its `reads`), and has its unit tests in
// site_factors_test.cpp. Rebuild the plugin and the tool after a change.
//
// The example is examples/policy's GPU-hours fair use (gpu_policy.hpp), over what the plugin
// knows of a Slurm job: the GPUs it requests, its time limit, and its association's GPU usage
// as slurmctld keeps it (whole minutes, decayed by PriorityDecayHalfLife: with a half-life of
// 30 days, usage fades over about that period).
//
//   gpu_fair_use = 5000
//   gpu_fair_use.budget = 1000        GPU-hours (default 1000)
//   gpu_fair_use.default_limit = 1-0  the limit of a job without one (default a day)

#include <cstdint>
#include <string>

#include <mfprio/queue/site.hpp>

#include "../policy/gpu_policy.hpp"

namespace site {

/// What gpu_fair_use reads of a job, taken from a `site_job`.
struct gpu_request_of_site_job {
    std::uint32_t gpus = 0;
    double owner_gpu_hours = 0.0;
    std::uint32_t time_limit = mfprio::no_val32;
};

/// gpu_fair_use over a Slurm job as site_factor/mfprio sees it: GPUs beyond 2^32-1 count as
/// 2^32-1, the usage is whole minutes / 60.
struct site_gpu_fair_use {
    static constexpr std::string_view name = "gpu_fair_use";
    /// What it reads of a job (`mfprio::queue::site_reads`): the plugin fills only that.
    static constexpr std::uint32_t reads =
        mfprio::queue::site_reads_times | mfprio::queue::site_reads_tres | mfprio::queue::site_reads_owner_gpu;
    gpu_fair_use policy;
    [[nodiscard]] double operator()(const mfprio::queue::site_job& j, const mfprio::queue::site_context& c) const noexcept {
        const gpu_request_of_site_job r{j.gpus > 0xffffffffULL ? 0xffffffffU : static_cast<std::uint32_t>(j.gpus),
                                        static_cast<double>(j.owner_gpu_minutes) / 60.0, j.time_limit};
        return policy(r, c);
    }
};

/// `mfprio::queue::make_site_registry()` with the site's factors added.
[[nodiscard]] inline mfprio::queue::registry<mfprio::queue::site_job, mfprio::queue::site_context> make_site_factor_registry() {
    using mfprio::queue::factor_options;
    auto r = mfprio::queue::make_site_registry();
    [[maybe_unused]] const bool ok = r.add_configured<site_gpu_fair_use>(
        "gpu_fair_use", {"budget", "default_limit"}, [](const factor_options& o) -> mfprio::expected<site_gpu_fair_use> {
            site_gpu_fair_use f;
            if (const std::string* v = o.find("budget")) {
                const auto d = mfprio::text::parse_double(mfprio::text::trim(*v));
                if (!d || !(*d >= 0) || *d > 1e15)
                    return factor_options::error("budget", "expected GPU-hours from 0 to 1e15, got " + mfprio::text::quote(*v));
                f.policy.budget_gpu_hours = *d;
            }
            if (const std::string* v = o.find("default_limit")) {
                auto t = mfprio::text::parse_slurm_time(mfprio::text::trim(*v));
                if (!t) return factor_options::error("default_limit", t.error().message);
                if (t->minutes() == 0 || t->minutes() >= mfprio::no_val32)
                    return factor_options::error("default_limit", "expected a time limit above 0, got " + mfprio::text::quote(*v));
                f.policy.default_limit_minutes = static_cast<std::uint32_t>(t->minutes());
            }
            return f;
        });
    MFPRIO_ASSERT(ok);
    return r;
}

/// The site's registry, built once: what site_factor/mfprio and mfprio's twin read policies
/// with.
[[nodiscard]] inline const mfprio::queue::registry<mfprio::queue::site_job, mfprio::queue::site_context>& site_factor_registry() {
    static const auto reg = make_site_factor_registry();
    return reg;
}

} // namespace site
