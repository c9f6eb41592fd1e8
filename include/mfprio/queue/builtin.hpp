#pragma once
/// \file
/// The library's own factors in dynamic registries, under the names policy files use:
///
/// - `builtin_registry()`, for `flux::job` in `flux::context`: Slurm's factors (which read
///   `flux::job` as the `mfprio::job` it derives from), Flux's, seed 003's names as aliases,
///   and the presets `fcfs`, `flux-core` and `flux-accounting`;
/// - `slurm_registry()`, for `mfprio::job` in `slurm::context`: Slurm's factors alone;
/// - `maui_registry()`, for `maui::job` in `maui::context`: Maui's seven components and the
///   preset `maui` (see `maui_registry`).
///
/// Names and options (any ASCII case):
///
/// | name | factor | options |
/// |------|--------|---------|
/// | `age` (`wait_time`) | `slurm::age_factor` | `max_age`: PriorityMaxAge as slurm.conf takes it, a Slurm time (`7-0`; a bare number is minutes; `UNLIMITED`), default 7-0 |
/// | `assoc` | `slurm::association_factor` | `normalize` (yes/no, default yes; no = NO_NORMAL_ASSOC) |
/// | `fairshare` (`fair_share`) | `slurm::fairshare_factor` = `flux::fairshare_factor` | |
/// | `jobsize` (`job_size`) | `slurm::job_size_factor` | `favor_small`, `small_relative_to_time` (yes/no, default no) |
/// | `partition` | `slurm::partition_factor` | `normalize` (default yes; no = NO_NORMAL_PART) |
/// | `qos` | `slurm::qos_factor` | `normalize` (default yes; no = NO_NORMAL_QOS) |
/// | `site` | `slurm::site_factor` (use weight 1, as Slurm) | |
/// | `nice` | `slurm::nice_factor`, minus the nice value (use weight 1) | |
/// | `queue` | `flux::queue_factor` | |
/// | `bank` | `flux::bank_factor` | |
/// | `urgency` (`user`) | `flux::urgency_factor`, urgency - 16 | |
/// | `flux_urgency` | `flux::urgency_value`, the urgency itself | |
/// | `fcfs` | `flux::fcfs_factor`, 4294967295 - submission sequence | |
///
/// Seed 003's six factors are `wait_time`, `fair_share`, `qos`, `queue`, `job_size` and
/// `user`. Its user factor, "the priority value the user specified for the job", is Flux's
/// urgency; `user` is the flux-accounting form, urgency - 16, so that a job at the default
/// urgency neither gains nor loses (`flux_urgency` is the urgency as is).
///
/// Slurm's TRES factor is not registered: its per-TRES weights need the cluster's TRES ids,
/// which `config::slurm_model` resolves. Register a configured one yourself:
/// `reg.add("tres", tres)` (weight 1, as Slurm adds it).
///
/// Presets (weights in the order of addition):
/// - `fcfs`: `fcfs = 1` (seed 003's first-come first-served: `flux::make_fcfs_engine`);
/// - `flux-core`: `flux_urgency = 1` (priority = urgency: under `flux::flux_result` this is
///   `flux::make_flux_core_engine`'s priority for every urgency 0..31);
/// - `flux-accounting`: `fairshare = 100000`, `queue = 10000`, `bank = 0`, `urgency = 1000`
///   (flux-accounting's default weights, reference flux_maui.md A2.1:
///   `flux::make_flux_accounting_engine`).
///
/// The engines of the Flux registry use `flux::flux_result` (`flux_dynamic_engine`).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <mfprio/text/slurm_time.hpp>
#include <mfprio/text/text.hpp>
#include <mfprio/core/assert.hpp>
#include <mfprio/core/component.hpp>
#include <mfprio/core/expected.hpp>
#include <mfprio/core/job.hpp>
#include <mfprio/flux/context.hpp>
#include <mfprio/flux/factors.hpp>
#include <mfprio/flux/job.hpp>
#include <mfprio/flux/result.hpp>
#include <mfprio/maui/context.hpp>
#include <mfprio/maui/job.hpp>
#include <mfprio/maui/model.hpp>
#include <mfprio/maui/priority.hpp>
#include <mfprio/queue/dynamic.hpp>
#include <mfprio/queue/policy.hpp>
#include <mfprio/slurm/age.hpp>
#include <mfprio/slurm/association.hpp>
#include <mfprio/slurm/context.hpp>
#include <mfprio/slurm/fairshare.hpp>
#include <mfprio/slurm/job_size.hpp>
#include <mfprio/slurm/nice.hpp>
#include <mfprio/slurm/partition.hpp>
#include <mfprio/slurm/qos.hpp>
#include <mfprio/slurm/site.hpp>

namespace mfprio::queue {

/// Registers Slurm's age factor as `age` (option `max_age`) in `reg`; false if the name was
/// taken.
template <class J, class Ctx>
[[nodiscard]] bool add_age_factor(registry<J, Ctx>& reg) {
    return reg.template add_configured<slurm::age_factor>(
        "age", {"max_age"}, [](const factor_options& o) -> expected<slurm::age_factor> {
            const std::string* v = o.find("max_age");
            if (v == nullptr) return slurm::age_factor{};
            auto d = text::parse_slurm_time(*v);
            if (!d) return factor_options::error("max_age", d.error().message);
            // As slurm.conf stores PriorityMaxAge: whole minutes (rounded up) x 60, in a
            // uint32 (UNLIMITED wraps to 4294967236 s, as in Slurm).
            return slurm::age_factor{static_cast<std::uint32_t>(d->minutes() * 60u)};
        });
}

/// Registers Slurm's job size factor as `jobsize` (options `favor_small`,
/// `small_relative_to_time`) in `reg`; false if the name was taken.
template <class J, class Ctx>
[[nodiscard]] bool add_job_size_factor(registry<J, Ctx>& reg) {
    return reg.template add_configured<slurm::job_size_factor>(
        "jobsize", {"favor_small", "small_relative_to_time"}, [](const factor_options& o) -> expected<slurm::job_size_factor> {
            auto small = o.boolean("favor_small", false);
            if (!small) return small.error();
            auto relative = o.boolean("small_relative_to_time", false);
            if (!relative) return relative.error();
            return slurm::job_size_factor{*small, *relative};
        });
}

/// Registers Slurm's factors (all but TRES, see the file comment) in `reg`; false if a name
/// was taken.
template <class J, class Ctx>
[[nodiscard]] bool add_slurm_factors(registry<J, Ctx>& reg) {
    bool ok = add_age_factor(reg);
    ok = reg.template add_configured<slurm::association_factor>(
             "assoc", {"normalize"}, [](const factor_options& o) -> expected<slurm::association_factor> {
                 auto n = o.boolean("normalize", true);
                 if (!n) return n.error();
                 return slurm::association_factor{*n};
             }) && ok;
    ok = reg.template add<slurm::fairshare_factor>("fairshare") && ok;
    ok = add_job_size_factor(reg) && ok;
    ok = reg.template add_configured<slurm::partition_factor>(
             "partition", {"normalize"}, [](const factor_options& o) -> expected<slurm::partition_factor> {
                 auto n = o.boolean("normalize", true);
                 if (!n) return n.error();
                 return slurm::partition_factor{*n};
             }) && ok;
    ok = reg.template add_configured<slurm::qos_factor>(
             "qos", {"normalize"}, [](const factor_options& o) -> expected<slurm::qos_factor> {
                 auto n = o.boolean("normalize", true);
                 if (!n) return n.error();
                 return slurm::qos_factor{*n};
             }) && ok;
    ok = reg.template add<slurm::site_factor>("site") && ok;
    ok = reg.template add<slurm::nice_factor>("nice") && ok;
    return ok;
}

/// Registers Flux's factors (queue, bank, urgency, flux_urgency, fcfs) in `reg`; false if a
/// name was taken. (Flux's fair-share is Slurm's factor: `add_slurm_factors` registers it.)
template <class J, class Ctx>
[[nodiscard]] bool add_flux_factors(registry<J, Ctx>& reg) {
    bool ok = true;
    ok = reg.template add<flux::queue_factor>("queue") && ok;
    ok = reg.template add<flux::bank_factor>("bank") && ok;
    ok = reg.template add<flux::urgency_factor>("urgency") && ok;
    ok = reg.template add<flux::urgency_value>("flux_urgency") && ok;
    ok = reg.template add<flux::fcfs_factor>("fcfs") && ok;
    return ok;
}

/// Registers seed 003's names as aliases: wait_time = age, fair_share = fairshare,
/// job_size = jobsize, user = urgency. The targets must be registered.
template <class J, class Ctx>
[[nodiscard]] bool add_seed003_aliases(registry<J, Ctx>& reg) {
    bool ok = true;
    ok = reg.alias("wait_time", "age") && ok;
    ok = reg.alias("fair_share", "fairshare") && ok;
    ok = reg.alias("job_size", "jobsize") && ok;
    ok = reg.alias("user", "urgency") && ok;
    return ok;
}

/// The registry of Flux jobs.
using flux_registry = registry<flux::job, flux::context>;
/// The dynamic engine of Flux jobs, with flux-accounting's result policy.
using flux_dynamic_engine = dynamic_engine<flux::job, flux::context, flux::flux_result>;

/// The preset texts of `builtin_registry`.
inline constexpr std::string_view fcfs_preset = "# seed 003: each job one below the last submitted\nfcfs = 1\n";
inline constexpr std::string_view flux_core_preset = "# flux-core's default plugin: priority = urgency\nflux_urgency = 1\n";
inline constexpr std::string_view flux_accounting_preset =
    "# flux-accounting's multi-factor plugin, its default weights in its order of addition\n"
    "fairshare = 100000\n"
    "queue = 10000\n"
    "bank = 0\n"
    "urgency = 1000\n";

/// Slurm's and Flux's factors for `flux::job` in `flux::context`, seed 003's aliases and the
/// presets fcfs, flux-core and flux-accounting (see the file comment). A scheduler adds its
/// own factors to the copy it gets: `auto reg = builtin_registry(); (void)reg.add<mine>("mine");`.
[[nodiscard]] inline flux_registry builtin_registry() {
    flux_registry reg;
    bool ok = add_slurm_factors(reg);
    ok = add_flux_factors(reg) && ok;
    ok = add_seed003_aliases(reg) && ok;
    ok = reg.add_preset("fcfs", std::string(fcfs_preset)) && ok;
    ok = reg.add_preset("flux-core", std::string(flux_core_preset)) && ok;
    ok = reg.add_preset("flux-accounting", std::string(flux_accounting_preset)) && ok;
    MFPRIO_ASSERT(ok);
    (void)ok;
    return reg;
}

/// The factors a Flux job carries into a jobtap plugin (examples/flux_priority): `age`
/// (since submission), `jobsize` (nodes and cores against the instance's), `fairshare`
/// (flux-accounting's, by user and bank), `queue`, `bank`, `urgency` and `flux_urgency`, with
/// seed 003's aliases and the presets flux-core and flux-accounting. Slurm's partition, QOS,
/// association, site and nice factors, and `fcfs` (a submission sequence the job manager does
/// not keep), are not in it: a policy naming one is an error at its line, not a term that is
/// always 0.
[[nodiscard]] inline flux_registry jobtap_registry() {
    flux_registry reg;
    bool ok = add_age_factor(reg);
    ok = reg.add<slurm::fairshare_factor>("fairshare") && ok;
    ok = add_job_size_factor(reg) && ok;
    ok = reg.add<flux::queue_factor>("queue") && ok;
    ok = reg.add<flux::bank_factor>("bank") && ok;
    ok = reg.add<flux::urgency_factor>("urgency") && ok;
    ok = reg.add<flux::urgency_value>("flux_urgency") && ok;
    ok = add_seed003_aliases(reg) && ok;
    ok = reg.add_preset("flux-core", std::string(flux_core_preset)) && ok;
    ok = reg.add_preset("flux-accounting", std::string(flux_accounting_preset)) && ok;
    MFPRIO_ASSERT(ok);
    (void)ok;
    return reg;
}

/// A policy text over `builtin_registry()`, built with result policy `r`.
[[nodiscard]] inline expected<flux_dynamic_engine> load_builtin_policy(std::string_view text,
                                                                       std::string_view file = "<policy>",
                                                                       flux::flux_result r = {}) {
    return load_policy(text, builtin_registry(), r, file);
}

/// A preset of `builtin_registry()` (`--policy fcfs`, `--policy flux-accounting`).
[[nodiscard]] inline expected<flux_dynamic_engine> builtin_preset(std::string_view name, flux::flux_result r = {}) {
    return load_preset(name, builtin_registry(), r);
}

/// Slurm's factors for `mfprio::job` in `slurm::context` (no presets: Slurm's weights all
/// default to 0).
[[nodiscard]] inline registry<job, slurm::context> slurm_registry() {
    registry<job, slurm::context> reg;
    const bool ok = add_slurm_factors(reg);
    MFPRIO_ASSERT(ok);
    (void)ok;
    return reg;
}

// ---------------------------------------------------------------- Maui

namespace detail {

/// The factory of Maui component `C` (one of `maui::serv_component` ...): subcomponent weights
/// and caps from the options, over Maui 3.3's defaults (`maui::weights{}`).
template <class Component>
[[nodiscard]] expected<Component> make_maui_component(maui::component_id which, const factor_options& o) {
    maui::weights w;
    const maui::component_info& info = maui::components[maui::index(which)];
    const std::size_t first = maui::index(info.first);
    constexpr std::int64_t limit = 9007199254740992; // 2^53, as policy weights
    for (std::size_t k = first; k < first + info.count; ++k) {
        const std::string key = text::to_lower(maui::subcomponents[k].name);
        auto weight = o.integer(key, w.sub_weight[k], -limit, limit);
        if (!weight) return weight.error();
        w.sub_weight[k] = *weight;
        auto cap = o.number(key + "_cap", w.sub_cap[k]);
        if (!cap) return cap.error();
        w.sub_cap[k] = *cap;
    }
    auto cap = o.number("cap", w.component_cap[maui::index(which)]);
    if (!cap) return cap.error();
    w.component_cap[maui::index(which)] = *cap;
    cap_style style = cap_style::upper;
    if (const std::string* s = o.find("cap_style")) {
        if (text::iequals(*s, "upper")) style = cap_style::upper;
        else if (text::iequals(*s, "symmetric")) style = cap_style::symmetric;
        else
            return factor_options::error("cap_style",
                                         "expected upper (Maui) or symmetric (Moab), not " + text::quote(*s));
    }
    return maui::detail::build_component<Component>(w, style, which);
}

/// The options of Maui component `which`: its subcomponents' names (lower case) and their
/// `_cap`s, `cap` and `cap_style`.
[[nodiscard]] inline std::vector<std::string> maui_component_options(maui::component_id which) {
    const maui::component_info& info = maui::components[maui::index(which)];
    const std::size_t first = maui::index(info.first);
    std::vector<std::string> out;
    for (std::size_t k = first; k < first + info.count; ++k) out.push_back(text::to_lower(maui::subcomponents[k].name));
    for (std::size_t k = first; k < first + info.count; ++k)
        out.push_back(text::to_lower(maui::subcomponents[k].name) + "_cap");
    out.emplace_back("cap");
    out.emplace_back("cap_style");
    return out;
}

template <class Component, class J, class Ctx>
[[nodiscard]] bool add_maui_component(registry<J, Ctx>& reg, maui::component_id which) {
    return reg.template add_configured<Component>(maui::components[maui::index(which)].name,
                                                  maui_component_options(which),
                                                  [which](const factor_options& o) -> expected<Component> {
                                                      return make_maui_component<Component>(which, o);
                                                  });
}

} // namespace detail

/// The registry of Maui jobs.
using maui_registry_type = registry<maui::job, maui::context>;
/// The dynamic engine of Maui jobs, with Maui's result policy.
using maui_dynamic_engine = dynamic_engine<maui::job, maui::context, maui::maui_result>;

/// The preset of `maui_registry`: every component weight 1 but USAGE's 0, as Maui 3.3 counts
/// its start priority (`maui::make_maui_engine(maui::weights{})`).
inline constexpr std::string_view maui_preset =
    "# Maui 3.3's defaults: component weights 1, USAGE not in the start priority\n"
    "serv = 1\ntarg = 1\ncred = 1\nattr = 1\nfs = 1\nres = 1\nusage = 0\n";

/// Maui's seven components for `maui::job` in `maui::context`, named as `diagnose -p` heads
/// them and as `maui::maui_engine` names its terms: `Serv`, `Targ`, `Cred`, `Attr`, `FS`, `Res`
/// and `Usage` (any case in a policy: `serv = 1`), in Maui's order, and the preset `maui`. Each component's options are its subcomponents' weights by
/// their lower-case names (`serv.queuetime = 1`, `cred.user = 1`, `res.proc = 10`), their caps
/// (`serv.queuetime_cap = 100`), the component's cap (`fs.cap = 1000`) and the cap style
/// (`cap_style = upper` (Maui) or `symmetric` (Moab)); unset, they are Maui 3.3's defaults
/// (QUEUETIME 1, every other subcomponent weight 0, no caps). The component weights are the
/// policy's weights. Context options (XFMINWCLIMIT, accrual...) stay in `maui::context`.
[[nodiscard]] inline maui_registry_type maui_registry() {
    maui_registry_type reg;
    using maui::component_id;
    bool ok = detail::add_maui_component<maui::serv_component>(reg, component_id::serv);
    ok = detail::add_maui_component<maui::targ_component>(reg, component_id::targ) && ok;
    ok = detail::add_maui_component<maui::cred_component>(reg, component_id::cred) && ok;
    ok = detail::add_maui_component<maui::attr_component>(reg, component_id::attr) && ok;
    ok = detail::add_maui_component<maui::fs_component>(reg, component_id::fs) && ok;
    ok = detail::add_maui_component<maui::res_component>(reg, component_id::res) && ok;
    ok = detail::add_maui_component<maui::usage_component>(reg, component_id::usage) && ok;
    ok = reg.add_preset("maui", std::string(maui_preset)) && ok;
    MFPRIO_ASSERT(ok);
    (void)ok;
    return reg;
}

} // namespace mfprio::queue
