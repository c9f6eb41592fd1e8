#pragma once
// `mfprio sshare` and `mfprio usage`: fair-share from an association table, printed the way
// Slurm's sshare prints it, and usage charged by running jobs.

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <mfprio/model/fairshare_tree.hpp>
#include <mfprio/read/slurm_conf.hpp>
#include <mfprio/model/slurm_fairshare.hpp>
#include <mfprio/read/jobs_table.hpp>
#include <mfprio/read/qos_table.hpp>
#include <mfprio/text/slurm_time.hpp>
#include <mfprio/fairshare/billing.hpp>
#include <mfprio/fairshare/compute.hpp>
#include <mfprio/fairshare/decay.hpp>
#include <mfprio/fairshare/reset.hpp>
#include <mfprio/fairshare/usage.hpp>
#include <mfprio/report/sshare.hpp>

#include "commands.hpp"

namespace mfprio::cli {

/// TRES names as sshare lists them in TRESRunMins: Slurm's eight, then the GRES of the nodes.
[[nodiscard]] inline std::vector<std::string> sshare_tres_names(const config::slurm_conf& conf) {
    std::vector<std::string> names{"cpu", "mem", "energy", "node", "billing", "fs/disk", "vmem", "pages"};
    for (const auto& n : conf.nodes)
        for (const auto& g : n.gres) {
            const std::string name = "gres/" + g.first;
            if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
        }
    return names;
}

/// What sshare's help says of --algorithm: the names, then the default.
inline constexpr auto sshare_algorithm_help = [] {
    constant_text<192> t;
    t.add(algorithm_list_text.view());
    t.add("\n(default: what slurm.conf's PriorityFlags select; implies computed)");
    return t;
}();

/// `mfprio sshare`'s options: its --help lists them, its parser takes them and no other.
inline constexpr option_row sshare_option_rows[] = {
    {"--conf FILE", "slurm.conf, or `scontrol show config` / `show node` outputs (merged)"},
    {"--assoc FILE", "`sshare -a -l -P` output or any subset of its columns with Account\n"
                     "and User; with `scontrol show assoc_mgr` and `sacctmgr show assoc -P`\n"
                     "outputs beside it (merged)"},
    {"--live, --save DIR, --force, --from DIR, --timeout S, --slurm-version V:", "as for mfprio sprio"},
    {"--fairshare M", "taken (the cluster's columns), computed, or auto (as mfprio sprio)", fairshare_source_values},
    {"-l, --long", "long format (NormUsage, LevelFS, TRES columns)"},
    {"-p, --parsable", "'|'-delimited with a trailing '|'"},
    {"-P, --parsable2", "'|'-delimited without a trailing '|'"},
    {"-a, --all", "all users (default: the account rows and $USER's rows)"},
    {"-u, --users L", "these users (comma list)"},
    {"-A, --accounts L", "these accounts (comma list)"},
    {"-U, --Users", "user rows only"},
    {"-m, --partition", "add the Partition column"},
    {"-n, -h, --noheader", "no header"},
    {"-o, --format L", "fields, e.g. Account,User,FairShare%12"},
    {"--algorithm A", sshare_algorithm_help.view(), algorithm_values},
    {"--damping N", "FairShareDampeningFactor (overrides slurm.conf; implies computed)"},
    {"--help", "this text"},
};

inline const std::vector<option_spelling> sshare_option_spellings = option_spellings_of({sshare_option_rows});
inline const std::vector<std::string_view> sshare_option_names = option_names_of(sshare_option_spellings);

inline const std::string sshare_help = render_help(
    "usage: mfprio sshare --conf FILE... --assoc FILE... [options]\n"
    "       mfprio sshare --live [--save DIR] [options]\n"
    "       mfprio sshare --from DIR [options]\n"
    "\n"
    "Prints what Slurm's sshare prints: fair-share computed from RawShares and RawUsage, or,\n"
    "for a cluster's own outputs, the cluster's values printed again.\n"
    "\n",
    {sshare_option_rows}, 21,
    
    "\n"
    "Example: mfprio sshare --live -a -l\n");

/// What the association table says the cluster printed, by tree index (`all`: every column).
[[nodiscard]] inline report::sshare_reported reported_of(const config::assoc_table& assoc,
                                                         const config::fairshare_tree& ft, bool all) {
    report::sshare_reported r;
    r.all = all;
    const std::size_t n = ft.tree.size();
    for (auto* v : {&r.norm_shares, &r.raw_usage, &r.norm_usage, &r.effective_usage, &r.fairshare, &r.level_fs})
        v->assign(n, std::nullopt);
    r.grp_tres_mins.assign(n, std::nullopt);
    r.tres_run_mins.assign(n, std::nullopt);
    for (std::size_t row = 0; row < assoc.rows.size(); ++row) {
        const auto& a = assoc.rows[row];
        const std::uint32_t i = ft.tree_index_of_row[row];
        if (i >= n) continue;
        if (assoc.has_column("RawUsage")) r.raw_usage[i] = a.printed_raw_usage ? a.printed_raw_usage : a.raw_usage;
        r.norm_shares[i] = a.norm_shares;
        r.norm_usage[i] = a.norm_usage;
        r.effective_usage[i] = a.effective_usage;
        r.fairshare[i] = a.fairshare;
        r.level_fs[i] = a.level_fs;
        if (a.grp_tres_mins) r.grp_tres_mins[i] = a.grp_tres_mins;
        if (a.tres_run_mins) r.tres_run_mins[i] = a.tres_run_mins;
    }
    return r;
}

/// `mfprio usage`'s options: its --help lists them, its parser takes them and no other.
inline constexpr option_row usage_option_rows[] = {
    {"--conf FILE", "slurm.conf (decay, billing weights, usage reset)"},
    {"--qos FILE", "QOS table (UsageFactor)"},
    {"--assoc FILE", "association table (sshare -a -l -P) with RawUsage"},
    {"--jobs FILE", "jobs table; its RUNNING jobs are charged"},
    {"--elapsed D", "a Slurm time string: min, min:sec, hr:min:sec, days-hr[:min[:sec]]"},
    {"--start T", "the time the period starts (epoch or YYYY-MM-DDTHH:MM:SS; default\n"
                  "2026-01-01T00:00:00), for usage reset boundaries in local time"},
    {"--algorithm A", "fair-share algorithm for the printed columns (default: slurm.conf's)", algorithm_values},
    {"--help", "this text"},
};

inline const std::vector<option_spelling> usage_option_spellings = option_spellings_of({usage_option_rows});
inline const std::vector<std::string_view> usage_option_names = option_names_of(usage_option_spellings);

inline const std::string usage_help = render_help(
    "usage: mfprio usage --conf FILE --qos FILE --assoc FILE --jobs FILE --elapsed DURATION [options]\n"
    "\n"
    "Charges the RUNNING jobs of a jobs table for DURATION with Slurm's decay and billing\n"
    "(PriorityDecayHalfLife, PriorityCalcPeriod, PriorityUsageResetPeriod, partition\n"
    "TRESBillingWeights with MAX_TRES / MAX_TRES_GRES, QOS UsageFactor) and prints the\n"
    "resulting association table as `sshare -a -l -P` (the format --assoc reads), so you\n"
    "can ask what fair-share will look like after a week of this workload.\n"
    "\n",
    {usage_option_rows}, 20,
    
    "\n"
    "Example: mfprio usage --conf slurm.conf --qos qos.txt --assoc assoc.txt --jobs jobs.txt --elapsed 7-0\n");

} // namespace mfprio::cli
