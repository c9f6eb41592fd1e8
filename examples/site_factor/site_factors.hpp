#pragma once
// A site's own factors, compiled into site_factor/mfprio and into mfprio's offline twin
// (`mfprio sprio --site-policy`, `whatif`, `lint`) by building both with
// `meson setup -Dsite_factors=examples/site_factor/site_factors.hpp`, so that both read the
// same policy files. A site copies this header, adds its factor types (each reads
// `mfprio::queue::site_job` and `mfprio::queue::site_context`, is registered under the name
// its policy files use, and says which of the job's fields it reads, its `reads`), writes
// their unit tests (site_factors_test.cpp here) and rebuilds the plugin and the tool.
//
// The example is "short jobs first":
//
//   short_jobs = 2000
//   short_jobs.max_limit = 2-0        a Slurm time (default 7-0)
//
// 1 - limit / max_limit within [0, 1] over the job's time limit: a job of no time scores
// 1, a job at or past max_limit 0, and so does a job without a limit (none requested, or
// UNLIMITED), which could run for ever.

#include <cstdint>
#include <string>
#include <string_view>

#include <mfprio/core/assert.hpp>
#include <mfprio/queue/site.hpp>

namespace site {

/// "Short jobs first" over a Slurm job (see the file comment).
struct short_jobs {
    static constexpr std::string_view name = "short_jobs";
    /// What it reads of a job (`mfprio::queue::site_reads`): the plugin fills only that.
    static constexpr std::uint32_t reads = mfprio::queue::site_reads_times;
    std::uint32_t max_limit_minutes = 7 * 1440;
    [[nodiscard]] double operator()(const mfprio::queue::site_job& j, const mfprio::queue::site_context&) const noexcept {
        if (j.time_limit == mfprio::no_val32 || j.time_limit == mfprio::infinite32) return 0.0;
        if (j.time_limit >= max_limit_minutes) return 0.0;
        return 1.0 - static_cast<double>(j.time_limit) / static_cast<double>(max_limit_minutes);
    }
};

/// The built-in site factors with the site's own added.
[[nodiscard]] inline mfprio::queue::registry<mfprio::queue::site_job, mfprio::queue::site_context> make_site_factor_registry() {
    using mfprio::queue::factor_options;
    auto r = mfprio::queue::make_site_registry();
    [[maybe_unused]] const bool ok = r.add_configured<short_jobs>(
        "short_jobs", {"max_limit"}, [](const factor_options& o) -> mfprio::expected<short_jobs> {
            short_jobs f;
            if (const std::string* v = o.find("max_limit")) {
                auto t = mfprio::text::parse_slurm_time(mfprio::text::trim(*v));
                if (!t) return factor_options::error("max_limit", t.error().message);
                if (t->minutes() == 0 || t->minutes() >= mfprio::no_val32)
                    return factor_options::error("max_limit", "expected a time limit above 0, got " + mfprio::text::quote(*v));
                f.max_limit_minutes = static_cast<std::uint32_t>(t->minutes());
            }
            return f;
        });
    MFPRIO_ASSERT(ok);
    return r;
}

/// The site's registry, built once: what `mfprio::queue::site_factors()` returns in a build
/// that names this header.
[[nodiscard]] inline const mfprio::queue::registry<mfprio::queue::site_job, mfprio::queue::site_context>& site_factor_registry() {
    static const auto reg = make_site_factor_registry();
    return reg;
}

} // namespace site
