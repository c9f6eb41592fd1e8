#pragma once
/// \file
/// The registry site policies are read with, by site_factor/mfprio and by mfprio's offline
/// twin of it: the built-in site factors (`site_registry()`), or, when the build names a
/// header of the site's own factors, that header's `site::site_factor_registry()`.
///
/// A site with factors of its own writes them in one header (examples/site_factor/
/// site_factors.hpp is one), defining `site::site_factor_registry()` as the built-in registry
/// with its factors added, and builds the plugin and the tool with it (`meson setup
/// -Dsite_factors=HEADER`, which defines MFPRIO_SITE_FACTORS as the header's path), so that
/// both read the same policy files.

#include <mfprio/queue/site.hpp>

#ifdef MFPRIO_SITE_FACTORS
#include MFPRIO_SITE_FACTORS
#endif

namespace mfprio::queue {

/// The registry this build reads site policies with (see the file comment).
[[nodiscard]] inline const registry<site_job, site_context>& site_factors() {
#ifdef MFPRIO_SITE_FACTORS
    return ::site::site_factor_registry();
#else
    return site_registry();
#endif
}

} // namespace mfprio::queue
