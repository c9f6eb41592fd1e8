#pragma once
/// \file
/// slurm.conf's keys as mfprio knows them (the priority settings and the few others it reads)
/// and PriorityFlags' words: one table each, which the slurm.conf and `scontrol show config`
/// readers, `mfprio lint`, `whatif --set` and its help, and every message naming a key read.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include <mfprio/read/common.hpp>
#include <mfprio/slurm/flags.hpp>

namespace mfprio::config {

/// Which setting a slurm.conf key is (slurm_conf_keys names each): what the reader switches on.
enum class slurm_conf_setting : unsigned char {
    calc_period, decay_half_life, favor_small, flags, max_age, parameters, site_factor_parameters,
    site_factor_plugin, type, usage_reset_period, weight_age, weight_assoc, weight_fairshare, weight_job_size,
    weight_partition, weight_qos, weight_tres, job_factor, tier, dampening, accounting_storage_type,
    accounting_storage_enforce, cluster_name, node_name, partition_name,
};

/// A slurm.conf key mfprio knows, and what it does with it: the one list of them, which the
/// slurm.conf reader, the `scontrol show config` reader, `mfprio lint` and `whatif --set` use.
struct slurm_conf_key {
    std::string_view name;
    slurm_conf_setting setting;
    bool read = false;     ///< the reader takes it (other keys are skipped, as unrelated settings)
    bool record = false;   ///< a record's key (NodeName, PartitionName), not a line of `scontrol show config`
    bool settable = false; ///< `whatif --set` changes it
    bool printed = false;  ///< a PriorityWeight line `scontrol show config` always prints under priority/multifactor
};

/// The keys of slurm.conf's priority settings (each key Slurm 22.05 knows whose name starts
/// with "Priority" or "FairShare", PriorityJobFactor and PriorityTier being partition options)
/// and the other keys mfprio reads. `lint` warns about a Priority or FairShare key not listed.
inline constexpr slurm_conf_key slurm_conf_keys[] = {
    // name                          setting                                        read   record settable printed
    {"PriorityCalcPeriod",         slurm_conf_setting::calc_period,                true,  false, true,  false},
    {"PriorityDecayHalfLife",      slurm_conf_setting::decay_half_life,            true,  false, true,  false},
    {"PriorityFavorSmall",         slurm_conf_setting::favor_small,                true,  false, true,  false},
    {"PriorityFlags",              slurm_conf_setting::flags,                      true,  false, true,  false},
    {"PriorityMaxAge",             slurm_conf_setting::max_age,                    true,  false, true,  false},
    {"PriorityParameters",         slurm_conf_setting::parameters,                 false, false, false, false},
    {"PrioritySiteFactorParameters", slurm_conf_setting::site_factor_parameters,     false, false, false, false},
    {"PrioritySiteFactorPlugin",   slurm_conf_setting::site_factor_plugin,         false, false, false, false},
    {"PriorityType",               slurm_conf_setting::type,                       true,  false, false, false},
    {"PriorityUsageResetPeriod",   slurm_conf_setting::usage_reset_period,         true,  false, true,  false},
    {"PriorityWeightAge",          slurm_conf_setting::weight_age,                 true,  false, true,  true},
    {"PriorityWeightAssoc",        slurm_conf_setting::weight_assoc,               true,  false, true,  true},
    {"PriorityWeightFairshare",    slurm_conf_setting::weight_fairshare,           true,  false, true,  true},
    {"PriorityWeightJobSize",      slurm_conf_setting::weight_job_size,            true,  false, true,  true},
    {"PriorityWeightPartition",    slurm_conf_setting::weight_partition,           true,  false, true,  true},
    {"PriorityWeightQOS",          slurm_conf_setting::weight_qos,                 true,  false, true,  true},
    {"PriorityWeightTRES",         slurm_conf_setting::weight_tres,                true,  false, true,  false},
    {"PriorityJobFactor",          slurm_conf_setting::job_factor,                 false, false, false, false},
    {"PriorityTier",               slurm_conf_setting::tier,                       false, false, false, false},
    {"FairShareDampeningFactor",   slurm_conf_setting::dampening,                  true,  false, true,  false},
    {"AccountingStorageType",      slurm_conf_setting::accounting_storage_type,    true,  false, false, false},
    {"AccountingStorageEnforce",   slurm_conf_setting::accounting_storage_enforce, true,  false, false, false},
    {"ClusterName",                slurm_conf_setting::cluster_name,               true,  false, false, false},
    {"NodeName",                   slurm_conf_setting::node_name,                  true,  true,  false, false},
    {"PartitionName",              slurm_conf_setting::partition_name,             true,  true,  false, false},
};

/// The entry of `key` (any case), or null.
[[nodiscard]] constexpr const slurm_conf_key* find_slurm_conf_key(std::string_view key) noexcept {
    for (const auto& k : slurm_conf_keys)
        if (iequals(k.name, key)) return &k;
    return nullptr;
}

/// The names of the entries `keep` accepts, in the table's order.
template <class Keep>
[[nodiscard]] std::vector<std::string_view> slurm_conf_key_names(Keep keep) {
    std::vector<std::string_view> out;
    for (const auto& k : slurm_conf_keys)
        if (keep(k)) out.push_back(k.name);
    return out;
}

/// The name of `setting`'s key as slurm_conf_keys spells it: code that names a key (in a
/// message, or to compare with what it reads) takes it from here.
[[nodiscard]] constexpr std::string_view key_name(slurm_conf_setting setting) noexcept {
    for (const auto& k : slurm_conf_keys)
        if (k.setting == setting) return k.name;
    return {};
}

/// True when `key` (any case) is `setting`'s key.
[[nodiscard]] constexpr bool is_key(std::string_view key, slurm_conf_setting setting) noexcept {
    return iequals(key, key_name(setting));
}

/// One word of PriorityFlags: the flags it sets and clears. slurmctld looks for each word
/// anywhere in the value, in any case (read_config.c, xstrcasestr), so a word counts unless
/// `unless`, a longer word holding it, is there (MAX_TRES inside MAX_TRES_GRES).
struct priority_flag_word {
    std::string_view word;
    std::uint32_t sets = 0;
    std::uint32_t clears = 0;
    std::string_view unless = {};
};

/// Every PriorityFlags word Slurm knows (FAIR_TREE, the default, is accepted as a word).
inline constexpr priority_flag_word priority_flag_table[] = {
    {.word = "ACCRUE_ALWAYS", .sets = static_cast<std::uint32_t>(slurm::priority_flag::accrue_always)},
    {.word = "SMALL_RELATIVE_TO_TIME", .sets = static_cast<std::uint32_t>(slurm::priority_flag::small_relative_to_time)},
    {.word = "CALCULATE_RUNNING", .sets = static_cast<std::uint32_t>(slurm::priority_flag::calculate_running)},
    {.word = "DEPTH_OBLIVIOUS",
     .sets = static_cast<std::uint32_t>(slurm::priority_flag::depth_oblivious),
     .clears = static_cast<std::uint32_t>(slurm::priority_flag::fair_tree)},
    {.word = "NO_FAIR_TREE", .clears = static_cast<std::uint32_t>(slurm::priority_flag::fair_tree)},
    {.word = "FAIR_TREE"},
    {.word = "INCR_ONLY", .sets = static_cast<std::uint32_t>(slurm::priority_flag::incr_only)},
    {.word = "MAX_TRES", .sets = static_cast<std::uint32_t>(slurm::priority_flag::max_tres), .unless = "MAX_TRES_GRES"},
    {.word = "MAX_TRES_GRES", .sets = static_cast<std::uint32_t>(slurm::priority_flag::max_tres_gres)},
    {.word = "NO_NORMAL_ALL",
     .sets = static_cast<std::uint32_t>(slurm::priority_flag::no_normal_assoc) |
             static_cast<std::uint32_t>(slurm::priority_flag::no_normal_part) |
             static_cast<std::uint32_t>(slurm::priority_flag::no_normal_qos) |
             static_cast<std::uint32_t>(slurm::priority_flag::no_normal_tres)},
    {.word = "NO_NORMAL_ASSOC", .sets = static_cast<std::uint32_t>(slurm::priority_flag::no_normal_assoc)},
    {.word = "NO_NORMAL_PART", .sets = static_cast<std::uint32_t>(slurm::priority_flag::no_normal_part)},
    {.word = "NO_NORMAL_QOS", .sets = static_cast<std::uint32_t>(slurm::priority_flag::no_normal_qos)},
    {.word = "NO_NORMAL_TRES", .sets = static_cast<std::uint32_t>(slurm::priority_flag::no_normal_tres)},
};

/// The words of priority_flag_table, for "did you mean" and the check of unknown words.
inline constexpr auto priority_flag_words = [] {
    std::array<std::string_view, std::size(priority_flag_table)> words{};
    for (std::size_t i = 0; i < words.size(); ++i) words[i] = priority_flag_table[i].word;
    return words;
}();

} // namespace mfprio::config
