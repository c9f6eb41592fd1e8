#pragma once
/// \file
/// Maui's priority: the seven components as an engine over runtime weights, the result
/// policy that turns the sum into Maui's start priority (reference B4), the run priority of
/// running jobs, and the order jobs are started in.
///
/// `Prio = sum over SERV, TARG, CRED, ATTR, FS, RES, USAGE of CW x cap_C(CF)`, each
/// `CF = sum over its subcomponents of SW x cap_S(SF)`, added in Maui's order from 0.0. The
/// USAGE component is 0 in Maui's start priority (Moab counts it: option
/// `usage_in_start_priority`); it is the run priority of running jobs (`run_priority`).
/// The component sums are in `maui/sums.hpp`, their block hooks in `maui/components.hpp`, the
/// result policy in `maui/result.hpp`.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

#include <mfprio/core/engine.hpp>
#include <mfprio/core/job.hpp>
#include <mfprio/core/term.hpp>
#include <mfprio/maui/components.hpp>
#include <mfprio/maui/context.hpp>
#include <mfprio/maui/model.hpp>
#include <mfprio/maui/result.hpp>
#include <mfprio/maui/sums.hpp>

namespace mfprio::maui {

/// Maui's engine: seven component terms in Maui's order with runtime signed weights.
using maui_engine =
    engine<maui_result, term<serv_component, signed_weight>, term<targ_component, signed_weight>,
           term<cred_component, signed_weight>, term<attr_component, signed_weight>,
           term<fs_component, signed_weight>, term<res_component, signed_weight>,
           term<usage_component, signed_weight>>;

namespace detail {
template <class Component, std::size_t... I>
constexpr Component build_component(const weights& w, cap_style style, component_id c, std::index_sequence<I...>) {
    const std::size_t first = index(components[index(c)].first);
    Component out{};
    out.subterms = {typename std::tuple_element_t<I, decltype(Component{}.subterms)>{
        {}, signed_weight{w.sub_weight[first + I]}, cap{w.sub_cap[first + I], style}}...};
    out.limit = cap{w.component_cap[index(c)], style};
    return out;
}
template <class Component>
constexpr Component build_component(const weights& w, cap_style style, component_id c) {
    return build_component<Component>(w, style, c, std::make_index_sequence<Component::size>{});
}
template <class Component>
constexpr term<Component, signed_weight> build_term(const weights& w, cap_style style, component_id c,
                                                    std::int64_t weight) {
    return term<Component, signed_weight>{build_component<Component>(w, style, c), signed_weight{weight}};
}
} // namespace detail

/// Builds Maui's engine from weights and caps (maui.cfg) and the options' cap style, result
/// settings, USAGE rule and UPROC/UJOB rule.
[[nodiscard]] constexpr maui_engine make_maui_engine(const weights& configured, const options& opts = {}) {
    const cap_style s = opts.caps;
    weights w = configured;
    if (!opts.res_user_terms) { // Maui 3.3: UPROC and UJOB are never weighted (`options::res_user_terms`)
        w[subcomponent::uproc] = 0;
        w[subcomponent::ujob] = 0;
    }
    const std::int64_t usage_weight = opts.usage_in_start_priority ? w[component_id::usage] : 0;
    return maui_engine(maui_result::from(opts),
                       detail::build_term<serv_component>(w, s, component_id::serv, w[component_id::serv]),
                       detail::build_term<targ_component>(w, s, component_id::targ, w[component_id::targ]),
                       detail::build_term<cred_component>(w, s, component_id::cred, w[component_id::cred]),
                       detail::build_term<attr_component>(w, s, component_id::attr, w[component_id::attr]),
                       detail::build_term<fs_component>(w, s, component_id::fs, w[component_id::fs]),
                       detail::build_term<res_component>(w, s, component_id::res, w[component_id::res]),
                       detail::build_term<usage_component>(w, s, component_id::usage, usage_weight));
}

/// A running job's run priority, as Maui 3.3's `MJobGetRunPriority` computes it (for
/// preemption): with D the wallclock limit, W the seconds run and R the processors, all
/// integers, `consumed = R x W`, `remaining = R x (D - W)` and `percent = W x 100 /
/// max(1, D - W)` in integer division; then `USAGEWEIGHT x (CONSUMEDWEIGHT x consumed +
/// REMAININGWEIGHT x remaining + PERCENTWEIGHT x percent) + start priority +
/// PREEMPTPRIOMARGIN`. No caps, no EXECUTIONTIME (commented out in Maui 3.3). The integer
/// products wrap as Maui's `long` arithmetic does on x86-64. `start_priority` is the job's
/// start priority (Maui keeps the last one computed while the job was idle). 0 for a job
/// that is not running.
template <class J>
[[nodiscard]] double run_priority(const weights& w, const options& opts, const J& j, const context& c,
                                  std::int64_t start_priority) noexcept {
    using T = job_traits<J>;
    if (T::start_time(j) == 0) return 0.0;
    // Wrapping 64-bit arithmetic, as Maui's long on x86-64 (and no undefined overflow here).
    const auto mul = [](std::int64_t a, std::int64_t b) noexcept {
        return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
    };
    const auto add = [](std::int64_t a, std::int64_t b) noexcept {
        return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
    };
    const std::int64_t duration = static_cast<std::int64_t>(T::wclimit(j));
    const std::int64_t wall = run_seconds(j, c);
    const std::int64_t required = static_cast<std::int64_t>(T::procs(j));
    const std::int64_t left = add(duration, -wall);
    const std::int64_t consumed = mul(required, wall);
    const std::int64_t remaining = mul(required, left);
    const double percent = static_cast<double>(mul(wall, 100) / std::max<std::int64_t>(1, left));
    const std::int64_t integral =
        add(mul(w[subcomponent::consumed], consumed), mul(w[subcomponent::remaining], remaining));
    const double inner = static_cast<double>(integral) + static_cast<double>(w[subcomponent::percent]) * percent;
    double priority = static_cast<double>(w[component_id::usage]) * inner;
    priority += static_cast<double>(start_priority);
    priority += static_cast<double>(opts.preempt_prio_margin);
    return priority;
}

// ---------------------------------------------------------------- order

/// Maui's start order: priority, highest first. Maui sorts with an unstable qsort and no
/// tie-break; mfprio breaks ties by submission time, then job id, so that the order is
/// reproducible.
template <class J>
[[nodiscard]] std::vector<std::size_t> start_order(std::span<const J> jobs, std::span<const priority_value> prio) {
    std::vector<std::size_t> order(jobs.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        if (prio[a].value != prio[b].value) return prio[a].value > prio[b].value;
        const auto sa = job_traits<J>::submit_time(jobs[a]), sb = job_traits<J>::submit_time(jobs[b]);
        if (sa != sb) return sa < sb;
        return job_traits<J>::id(jobs[a]) < job_traits<J>::id(jobs[b]);
    });
    return order;
}

} // namespace mfprio::maui
