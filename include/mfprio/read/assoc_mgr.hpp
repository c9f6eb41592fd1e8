#pragma once
/// \file
/// `scontrol show assoc_mgr`: slurmctld's own association and QOS records. From `flags=assoc`,
/// what sshare prints less precisely or not at all, added to an association table read from
/// sshare (`add_assoc_mgr_usage`): RawUsage with its two decimals (`UsageRaw/Norm/Efctv=`),
/// the association priority slurmctld uses, and the GPU usage in minutes (GrpTRESMins'
/// `gres/gpu=LIMIT(USED)`). From `flags=qos`, the QOS table (`read_assoc_mgr_qos`).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include <mfprio/core/expected.hpp>
#include <mfprio/read/assoc_table.hpp>
#include <mfprio/read/common.hpp>
#include <mfprio/read/qos_table.hpp>
#include <mfprio/read/scontrol.hpp>

namespace mfprio::config {

namespace detail {

/// The GPU usage in `scontrol show assoc_mgr`'s GrpTRESMins (`cpu=N(12),...,gres/gpu=N(34)`:
/// each TRES's limit and, in parentheses, its usage in whole minutes); none when it has no
/// gres/gpu item (the last one counts).
[[nodiscard]] inline expected<std::optional<std::uint64_t>> gpu_minutes_used(const scontrol_pair& mins,
                                                                             const std::string& file) {
    std::optional<std::uint64_t> out;
    std::size_t at = 0;
    for (const std::string_view item : split(mins.value, ',')) {
        const std::size_t item_at = at;
        at += item.size() + 1;
        if (!item.starts_with("gres/gpu=")) continue;
        const std::size_t open = item.find('(');
        const auto used = open != std::string_view::npos && item.ends_with(')')
                              ? parse_unsigned<std::uint64_t>(item.substr(open + 1, item.size() - open - 2))
                              : std::nullopt;
        if (!used)
            return make_error(file, mins.line, mins.value_column + item_at, "GrpTRESMins",
                              "expected gres/gpu=LIMIT(MINUTES), got " + text::quote(item));
        out = *used;
    }
    return out;
}

} // namespace detail

/// Adds what `scontrol show assoc_mgr` output `in` says of each association to `out`, read
/// from `tree` (sshare's output): RawUsage (sshare's integer kept as `printed_raw_usage`),
/// the priority where sacctmgr gave none, the GPU minutes. An association `out` does not
/// hold is an error naming it.
[[nodiscard]] inline std::optional<input_error> add_assoc_mgr_usage(assoc_table& out, const conf_input& in,
                                                                    const std::string& tree) {
    static constexpr std::string_view assoc_keys[] = {"ClusterName", "Account", "UserName", "Partition", "Priority",
                                                      "UsageRaw/Norm/Efctv", "GrpTRESMins"};
    const auto keep = [](std::string_view k) { return detail::one_of(k, assoc_keys); };
    std::optional<input_error> error;
    const auto fail = [&](input_error e) {
        error = std::move(e);
        return false;
    };
    for_each_scontrol_record(in.text, keep, [&](const scontrol_record& rec) {
        const scontrol_pair* account = rec.find("Account");
        if (account == nullptr || rec.find("ClusterName") == nullptr) return true; // headings, QOS records
        const scontrol_pair* user = rec.find("UserName");
        const scontrol_pair* part = rec.find("Partition");
        const std::string_view uname = user ? detail::without_id(user->value) : std::string_view{};
        const auto r = out.find(account->value, uname, part ? std::string_view(part->value) : std::string_view{});
        if (!r)
            return fail(make_error(in.name, rec.line, account->key_column, "Account",
                                   "association (" + account->value + ", " + std::string(uname) + ") is not in " + tree));
        // The association's priority as slurmctld uses it (inherited from the account
        // where the association has none), the value sacctmgr prints too.
        if (const scontrol_pair* prio = rec.find("Priority")) {
            const auto v = parse_unsigned<std::uint32_t>(prio->value);
            if (!v)
                return fail(make_error(in.name, prio->line, prio->value_column, "Priority",
                                       "priority " + text::quote(prio->value) + " is not an integer from 0 to 4294967295"));
            if (!out.rows[*r].priority) out.rows[*r].priority = *v; // sacctmgr's, where given, first
            if (!out.has_column("Priority")) out.columns.emplace_back("Priority");
        }
        if (const scontrol_pair* mins = rec.find("GrpTRESMins")) {
            auto used = detail::gpu_minutes_used(*mins, in.name);
            if (!used) return fail(used.error());
            if (*used) out.rows[*r].gpu_minutes = **used;
        }
        const scontrol_pair* usage = rec.find("UsageRaw/Norm/Efctv");
        if (usage == nullptr) return true;
        const std::string_view raw = std::string_view(usage->value).substr(0, usage->value.find('/'));
        const auto v = parse_double(raw);
        if (!v || *v < 0 || *v >= two_pow_64) // held as sshare's RawUsage is printed
            return fail(make_error(in.name, usage->line, usage->value_column, "UsageRaw",
                                   "raw usage " + text::quote(raw) + " is not a number " + range_text(0.0, two_pow_64)));
        if (!out.rows[*r].printed_raw_usage) out.rows[*r].printed_raw_usage = out.rows[*r].raw_usage;
        out.rows[*r].raw_usage = *v;
        return true;
    });
    if (error) return error;
    if (!out.has_column("RawUsage")) out.columns.emplace_back("RawUsage");
    return std::nullopt;
}

/// The QOS of `scontrol show assoc_mgr` output (`flags=qos`): each `QOS=name(id)` record's
/// name and `Priority`, as slurmctld holds them (sacctmgr asks slurmdbd for the same). The
/// UsageFactor is not printed there: 1 for each, `usage_factors` false. No QOS record is an
/// error naming the input.
[[nodiscard]] inline expected<qos_table> read_assoc_mgr_qos(const conf_input& in) {
    qos_table out;
    std::unordered_map<std::string, std::size_t> seen;
    std::optional<input_error> error;
    const auto fail = [&](const scontrol_pair& at, std::string key, std::string message) {
        error = make_error(in.name, at.line, at.value_column, std::move(key), std::move(message));
        return false;
    };
    const auto keep = [](std::string_view k) { return k == "QOS" || k == "Priority"; };
    for_each_scontrol_record(in.text, keep, [&](const scontrol_record& rec) {
        if (rec.first_key != "QOS" || rec.pairs.empty()) return true;
        const scontrol_pair& name = rec.pairs.front();
        qos_def q;
        q.name = std::string(detail::without_id(name.value));
        if (q.name.empty()) return fail(name, "QOS", "a QOS record without a name");
        if (const scontrol_pair* prio = rec.find("Priority")) {
            const std::string_view value = trim(prio->value);
            const auto v = parse_unsigned<std::uint32_t>(value);
            if (!v) return fail(*prio, "Priority", "QOS priority " + text::quote(value) + " is not an integer from 0 to 4294967295");
            q.priority = *v;
        }
        std::string key = q.name;
        for (char& c : key) c = to_lower(c);
        if (!seen.try_emplace(key, out.qos.size()).second)
            return fail(name, "QOS", "QOS " + text::quote(q.name) + " is listed twice");
        if (out.qos.size() >= max_qos) return fail(name, "QOS", "more than " + std::to_string(max_qos) + " QOS");
        out.qos.push_back(std::move(q));
        return true;
    });
    if (error) return *error;
    if (out.qos.empty())
        return text::file_error(in.name, "QOS", "no QOS record (`scontrol show assoc_mgr flags=qos` prints them)");
    return out;
}

} // namespace mfprio::config
