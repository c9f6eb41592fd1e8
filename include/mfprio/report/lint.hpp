#pragma once
/// \file
/// `mfprio lint` for Slurm: what a slurm.conf's priority settings do that its author may not
/// mean. Each finding is a line as the tool prints it; the warnings are the lines that call
/// for a change.
///
/// - keys that look like priority settings (Priority..., FairShare...) but are none Slurm
///   knows: slurmctld ignores them with their defaults in force;
/// - PriorityFlags words that are no flag (Slurm ignores them, or reads a flag inside them);
/// - the six integer weights adding up past 2^32 - 1, where priorities clamp;
/// - for each weight, the smallest factor difference it resolves (a weight w turns factors
///   .59534 and .50002 into the same integer when w is small);
/// - age and fair-share weights without slurmdbd, which slurmctld sets to 0;
/// - under Fair Tree, a fair-share weight smaller than the number of user associations (the
///   factor moves in steps of 1/N, so ranks collapse).

#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include <mfprio/read/assoc_table.hpp>
#include <mfprio/read/slurm_conf.hpp>
#include <mfprio/slurm/flags.hpp>
#include <mfprio/slurm/multifactor.hpp>

namespace mfprio::report {

/// What lint found: lines as printed (without their line end) and how many are warnings.
struct lint_report {
    std::vector<std::string> lines;
    std::size_t warnings = 0;
};

namespace detail {

/// printf into a string (the lines carry numbers formatted as %.3g); the compiler checks
/// the arguments against the format.
[[nodiscard, gnu::format(printf, 1, 2)]] inline std::string format_line(const char* fmt, ...) {
    char buf[512];
    std::va_list args;
    va_start(args, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, args);
    va_end(args);
    return buf;
}

} // namespace detail

/// Lints the priority settings of a slurm.conf: `text` is the file as written (for the keys
/// and PriorityFlags words, at their line and column, named `name`), `conf` what the reader
/// made of it.
[[nodiscard]] inline lint_report lint_slurm_conf(const config::slurm_conf& conf, std::string_view text,
                                                 std::string_view name) {
    lint_report r;
    const auto warn = [&](std::string line) {
        r.lines.push_back(std::move(line));
        ++r.warnings;
    };
    // Priority keys Slurm does not know (a misspelled one is silently ignored by slurmctld's
    // reader too, with its default in force): a warning with the closest known key.
    static const std::vector<std::string_view> known =
        config::slurm_conf_key_names([](const config::slurm_conf_key& k) {
            return text::istarts_with(k.name, "Priority") || text::istarts_with(k.name, "FairShare");
        });
    const std::string where = std::string(name) + ":";
    text::for_each_line(text, [&](const text::text_line& l) {
        const std::string_view rest = l.text.substr(0, l.text.find('#'));
        std::size_t col = 0;
        while (col < rest.size()) {
            while (col < rest.size() && text::is_space(rest[col])) ++col;
            const std::size_t begin = col;
            while (col < rest.size() && !text::is_space(rest[col])) ++col;
            const std::string_view token = rest.substr(begin, col - begin);
            const std::string_view key = token.substr(0, token.find('='));
            if (key.size() == token.size()) continue;
            if (!text::istarts_with(key, "Priority") && !text::istarts_with(key, "FairShare")) continue;
            if (config::is_key(key, config::slurm_conf_setting::flags)) {
                const std::string_view value = token.substr(key.size() + 1);
                for (const auto& u : config::unknown_priority_flags(value)) {
                    const auto at = begin + key.size() + 1 + static_cast<std::size_t>(u.word.data() - value.data());
                    warn("warning: " + where + std::to_string(l.number) + ":" + std::to_string(at + 1) +
                         ": PriorityFlags word " + u.describe() + text::did_you_mean(u.word, config::priority_flag_words));
                }
            }
            bool ok = false;
            for (const auto k : known) ok = ok || text::iequals(k, key);
            if (ok) continue;
            warn("warning: " + where + std::to_string(l.number) + ":" + std::to_string(begin + 1) +
                 ": unknown slurm.conf parameter '" + std::string(key) + "'" + text::did_you_mean(key, known));
        }
        return true;
    });
    const slurm::weights w{conf.weight_age, conf.weight_assoc, conf.weight_fairshare, conf.weight_job_size,
                           conf.weight_partition, conf.weight_qos};
    const auto sum = static_cast<unsigned long long>(w.sum());
    if (w.overflows())
        warn(detail::format_line("warning: PriorityWeight values too high: the six weights add up to %llu, more than "
                                 "4294967295; priorities can overflow and be clamped to 4294967295",
                                 sum));
    else
        r.lines.push_back(detail::format_line("ok: the six weights add up to %llu (at most 4294967295)", sum));
    using config::slurm_conf_setting;
    const struct {
        std::string_view key;
        std::uint32_t value;
    } keys[] = {{config::key_name(slurm_conf_setting::weight_age), w.age},
                {config::key_name(slurm_conf_setting::weight_assoc), w.assoc},
                {config::key_name(slurm_conf_setting::weight_fairshare), w.fairshare},
                {config::key_name(slurm_conf_setting::weight_job_size), w.job_size},
                {config::key_name(slurm_conf_setting::weight_partition), w.partition},
                {config::key_name(slurm_conf_setting::weight_qos), w.qos}};
    for (const auto& k : keys) {
        if (k.value == 0) continue;
        const double step = 1.0 / static_cast<double>(k.value);
        const auto a = static_cast<long long>(0.59534 * k.value);
        const auto b = static_cast<long long>(0.50002 * k.value);
        r.lines.push_back(detail::format_line(
            "%.*s=%u: resolves factor differences of %.3g and more; factors .59534 and .50002 give %lld and %lld%s",
            static_cast<int>(k.key.size()), k.key.data(),
            k.value, step, a, b, a == b ? " (indistinguishable: raise the weight, Slurm suggests 1000 or more)" : ""));
        if (a == b) ++r.warnings;
    }
    const bool slurmdbd = conf.accounting_storage_type == "accounting_storage/slurmdbd";
    if (!slurmdbd && (w.age != 0 || w.fairshare != 0))
        warn("warning: AccountingStorageType is not accounting_storage/slurmdbd: slurmctld forces "
             "PriorityWeightAge and PriorityWeightFairshare to 0");
    return r;
}

/// Under Fair Tree, whether PriorityWeightFairshare separates every rank of the user
/// associations in `assoc` (the factor moves in steps of 1/N for N of them); adds its line to
/// `r`. Nothing without Fair Tree or with a fair-share weight of 0.
inline void lint_fair_tree_steps(const config::slurm_conf& conf, const config::assoc_table& assoc, lint_report& r) {
    std::size_t users = 0;
    for (const auto& row : assoc.rows) users += row.user.empty() ? 0 : 1;
    const std::uint32_t weight = conf.weight_fairshare;
    if (!conf.flags.has(slurm::priority_flag::fair_tree) || weight == 0) return;
    const bool coarse = weight < users;
    r.lines.push_back(detail::format_line(
        "%s: Fair Tree ranks %zu user associations, so the fair-share factor moves in steps of 1/%zu; "
        "PriorityWeightFairshare=%u %s",
        coarse ? "warning" : "ok", users, users, weight,
        coarse ? "cannot separate every rank: use at least the number of user associations (1 to 2 times it is enough)"
               : "separates every rank"));
    if (coarse) ++r.warnings;
}

} // namespace mfprio::report
