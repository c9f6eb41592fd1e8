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

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include <mfprio/core/component.hpp>
#include <mfprio/core/engine.hpp>
#include <mfprio/core/job.hpp>
#include <mfprio/core/term.hpp>
#include <mfprio/maui/context.hpp>
#include <mfprio/maui/factors.hpp>
#include <mfprio/maui/model.hpp>

namespace mfprio::maui {

// ---------------------------------------------------------------- result policy

/// How a Maui priority came about.
enum class priority_status : std::uint8_t {
    computed,          ///< the weighted sum, truncated
    floored,           ///< the sum was below 1 and was raised to 1 (negatives not enabled)
    ceiling,           ///< the sum exceeded MAX_PRIO_VAL (1e9) and was lowered to it
    negative_rejected, ///< REJECTNEGPRIOJOBS: a negative priority, kept; the job will not start
    system_absolute,   ///< `setspri N`: 1e9 + N, above every computed priority
    system_relative,   ///< `setspri -r N`: N added after the clamps
};

/// A Maui start priority (Maui's `long StartPriority`) and how it was obtained.
struct priority_value {
    std::int64_t value = 0;
    priority_status status = priority_status::computed;
    /// False when Maui would not start the job for its priority (REJECTNEGPRIOJOBS and < 0).
    [[nodiscard]] constexpr bool startable() const noexcept { return status != priority_status::negative_rejected; }
    friend constexpr bool operator==(const priority_value&, const priority_value&) = default;
};

/// Maui's final value (reference B4): floor at 1 unless REJECTNEGPRIOJOBS or
/// ENABLENEGJOBPRIORITY, ceiling at MAX_PRIO_VAL (1e9), then a system priority: absolute
/// replaces the value with 1e9 + N, relative adds N after the ceiling. The double is then
/// truncated toward zero into a 64-bit integer, as Maui's cast does on x86-64.
struct maui_result {
    using output_type = priority_value;
    bool reject_negative = false; ///< REJECTNEGPRIOJOBS
    bool enable_negative = false; ///< ENABLENEGJOBPRIORITY
    double max_priority = 1e9;    ///< MAX_PRIO_VAL

    /// The result policy configured by `opts`.
    [[nodiscard]] static constexpr maui_result from(const options& opts) noexcept {
        return maui_result{opts.reject_negative, opts.enable_negative, opts.max_priority};
    }

    /// Finishes a weighted sum for a job with the given system priority.
    [[nodiscard]] constexpr priority_value finish(double sum, system_priority_kind kind = system_priority_kind::none,
                                                  std::int64_t system = 0) const noexcept {
        double p = sum;
        priority_status status = priority_status::computed;
        if (!reject_negative && !enable_negative) {
            if (!(p >= 1.0)) { p = 1.0; status = priority_status::floored; } // also catches NaN
        } else if (!(p == p)) {
            p = 0.0; // NaN: never a silent garbage value
        }
        if (p > max_priority) { p = max_priority; status = priority_status::ceiling; }
        if (kind == system_priority_kind::absolute) {
            p = max_priority + static_cast<double>(system);
            status = priority_status::system_absolute;
        } else if (kind == system_priority_kind::relative) {
            p += static_cast<double>(system);
            status = priority_status::system_relative;
        }
        const auto value = static_cast<std::int64_t>(p);
        if (reject_negative && value < 0 && status != priority_status::system_absolute)
            status = priority_status::negative_rejected;
        return {value, status};
    }

    template <class J, class F>
    constexpr priority_value operator()(const J& j, F&& score) const noexcept {
        auto kind = system_priority_kind::none;
        std::int64_t system = 0;
        if constexpr (has_system_priority_mode<J> && has_system_priority<J>) {
            kind = job_traits<J>::system_priority_mode(j);
            system = static_cast<std::int64_t>(job_traits<J>::system_priority(j));
        }
        return finish(score(), kind, system);
    }
};

// ---------------------------------------------------------------- the engine

using signed_weight = runtime_weight<std::int64_t>;
template <class F>
using maui_subterm = subterm<F, signed_weight>;

using serv_component = ::mfprio::component<"Serv", maui_subterm<queuetime>, maui_subterm<xfactor>,
                                 maui_subterm<spviolation>, maui_subterm<bypass>>;
using targ_component = ::mfprio::component<"Targ", maui_subterm<target_queuetime>, maui_subterm<target_xfactor>>;
using cred_component = ::mfprio::component<"Cred", maui_subterm<user_priority>, maui_subterm<group_priority>,
                                 maui_subterm<account_priority>, maui_subterm<qos_priority>,
                                 maui_subterm<class_priority>>;
using attr_component = ::mfprio::component<"Attr", maui_subterm<unimplemented<subcomponent::attrattr>>,
                                 maui_subterm<unimplemented<subcomponent::attrstate>>>;
using fs_component = ::mfprio::component<"FS", maui_subterm<fs_user>, maui_subterm<fs_group>, maui_subterm<fs_account>,
                               maui_subterm<fs_qos>, maui_subterm<fs_class>>;
using res_component = ::mfprio::component<"Res", maui_subterm<nodes>, maui_subterm<procs>, maui_subterm<memory>,
                                maui_subterm<swap>, maui_subterm<disk>, maui_subterm<proc_seconds>,
                                maui_subterm<processor_equivalent>, maui_subterm<walltime>,
                                maui_subterm<user_procs>, maui_subterm<user_jobs>>;
using usage_component = ::mfprio::component<"Usage", maui_subterm<consumed>, maui_subterm<execution_time>,
                                  maui_subterm<remaining>, maui_subterm<percent>>;

/// (`::mfprio::component` is the core template; `maui::component` names the seven of them.)
/// Maui's engine: seven component terms in Maui's order with runtime signed weights.
using maui_engine =
    engine<maui_result, term<serv_component, signed_weight>, term<targ_component, signed_weight>,
           term<cred_component, signed_weight>, term<attr_component, signed_weight>,
           term<fs_component, signed_weight>, term<res_component, signed_weight>,
           term<usage_component, signed_weight>>;

namespace detail {
template <class Component, std::size_t... I>
constexpr Component build_component(const weights& w, cap_style style, component c, std::index_sequence<I...>) {
    const std::size_t first = index(components[index(c)].first);
    return Component{
        {typename std::tuple_element_t<I, decltype(Component{}.subterms)>{
            {}, signed_weight{w.sub_weight[first + I]}, cap{w.sub_cap[first + I], style}}...},
        cap{w.component_cap[index(c)], style}};
}
template <class Component>
constexpr Component build_component(const weights& w, cap_style style, component c) {
    return build_component<Component>(w, style, c, std::make_index_sequence<Component::size>{});
}
template <class Component>
constexpr term<Component, signed_weight> build_term(const weights& w, cap_style style, component c,
                                                    std::int64_t weight) {
    return term<Component, signed_weight>{build_component<Component>(w, style, c), signed_weight{weight}};
}
} // namespace detail

/// Builds Maui's engine from weights and caps (maui.cfg) and the options' cap style, result
/// settings and USAGE rule.
[[nodiscard]] constexpr maui_engine make_maui_engine(const weights& w, const options& opts = {}) {
    const cap_style s = opts.caps;
    const std::int64_t usage_weight = opts.usage_in_start_priority ? w[component::usage] : 0;
    return maui_engine(maui_result::from(opts),
                       detail::build_term<serv_component>(w, s, component::serv, w[component::serv]),
                       detail::build_term<targ_component>(w, s, component::targ, w[component::targ]),
                       detail::build_term<cred_component>(w, s, component::cred, w[component::cred]),
                       detail::build_term<attr_component>(w, s, component::attr, w[component::attr]),
                       detail::build_term<fs_component>(w, s, component::fs, w[component::fs]),
                       detail::build_term<res_component>(w, s, component::res, w[component::res]),
                       detail::build_term<usage_component>(w, s, component::usage, usage_weight));
}

/// A running job's run priority (Maui `MJobGetRunPriority`, for preemption):
/// `USAGEWEIGHT x cap(USAGE) + StartPriority + PREEMPTPRIOMARGIN`, `start_priority` being the
/// job's last start priority.
template <class J>
[[nodiscard]] double run_priority(const weights& w, const options& opts, const J& j, const context& c,
                                  std::int64_t start_priority) noexcept {
    const usage_component usage = detail::build_component<usage_component>(w, opts.caps, component::usage);
    const double weighted = usage(j, c) * static_cast<double>(w[component::usage]);
    return weighted + static_cast<double>(start_priority) + static_cast<double>(opts.preempt_prio_margin);
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
