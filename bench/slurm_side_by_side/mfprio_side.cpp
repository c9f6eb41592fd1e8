// The mfprio half of slurm_side_by_side (mfprio_side.hpp), built once per optimization level;
// MFPRIO_SBS_LEVEL names the namespace (o2, o3).

#include "mfprio_side.hpp"

#include <cstddef>

#include <mfprio/fairshare/compute.hpp>

#ifndef MFPRIO_SBS_LEVEL
#error "MFPRIO_SBS_LEVEL (o2 or o3) is set by bench/meson.build"
#endif

namespace sbs::MFPRIO_SBS_LEVEL {

namespace {
const mfprio_bench::fixed_engine& engine() {
    static const mfprio_bench::fixed_engine e = mfprio_bench::make_fixed();
    return e;
}
} // namespace

void one_job(const mfprio_bench::slurm_workload& w, std::span<mfprio::priority_value> out) {
    const auto& e = engine();
    const std::size_t n = w.jobs.size();
    for (std::size_t k = 0; k < n; ++k) out[k] = e.priority(w.jobs[k], w.ctx);
}

void batch(const mfprio_bench::slurm_workload& w, std::span<mfprio::priority_value> out) {
    engine().batch(std::span<const mfprio::job>(w.jobs), w.ctx, out);
}

void fair_tree(const mfprio::fairshare::tree& t, mfprio::fairshare::columns& c,
               mfprio::fairshare::fair_tree_workspace& ws, unsigned threads) {
    mfprio::fairshare::fair_tree(t, c, ws, false, threads);
}

void classic(const mfprio::fairshare::tree& t, mfprio::fairshare::columns& c, unsigned threads) {
    mfprio::fairshare::compute(t, c, {mfprio::fairshare::algorithm::classic, 1, threads});
}

} // namespace sbs::MFPRIO_SBS_LEVEL
