#pragma once
/// \file
/// What a configuration change would do to the pending queue (`mfprio whatif`): changes given
/// as slurm.conf keys or as partition, QOS and association fields applied to a cluster's
/// parsed inputs (`apply_whatif`), the queues of two models compared entry by entry with
/// Kendall's tau and the moves (`compare_queues`), the term that changed an entry most
/// (`changed_term`), and an SVG chart of the accounts' shares of the head of the queue.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <mfprio/read/slurm_conf.hpp>
#include <mfprio/model/slurm_model.hpp>
#include <mfprio/read/slurm_native.hpp>
#include <mfprio/slurm/order.hpp>

namespace mfprio::report {

using config::parsed_cluster;

/// The keys `--set` suggests for an unknown one: within one edit per eight letters, up to three.
inline constexpr text::suggestion_rule whatif_suggestions{.edits = 1, .letters_per_edit = 8, .prefixes = false, .shown = 3};

/// What `--set` changes, once applied: whether fair-share must be recomputed for both sides
/// (the comparison is then between two computations from the same usage).
struct whatif_applied {
    bool fairshare = false;
    std::string error; ///< non-empty: the change that cannot be made, and why
    std::vector<std::string> warnings; ///< what is taken but likely not meant (a PriorityFlags word that is no flag)
};

namespace detail {

/// Every key `whatif --set` takes on `pc`, sorted (equally close keys are suggested in byte
/// order): the settable slurm.conf keys, then each partition's, QOS's and association's.
[[nodiscard]] inline std::vector<std::string> whatif_keys(const parsed_cluster& pc) {
    using config::key_name;
    using config::slurm_conf_setting;
    std::vector<std::string> known;
    for (const auto& k : config::slurm_conf_keys)
        if (k.settable) known.emplace_back(k.name);
    for (const auto& p : pc.conf.partitions) {
        known.push_back("partition." + p.name + "." + std::string(key_name(slurm_conf_setting::job_factor)));
        known.push_back("partition." + p.name + "." + std::string(key_name(slurm_conf_setting::tier)));
    }
    for (const auto& q : pc.qos.qos) {
        known.push_back("qos." + q.name + ".Priority");
        known.push_back("qos." + q.name + ".UsageFactor");
    }
    for (const auto& a : pc.assoc.rows)
        if (a.parent >= 0) known.push_back("assoc." + a.account + (a.user.empty() ? "" : "/" + a.user) + ".Shares");
    std::sort(known.begin(), known.end());
    return known;
}

/// PriorityFlags after `edit` (`+FLAG` or `-FLAG`) on the list `flags_text`: FAIR_TREE is the
/// default, so removing it means NO_FAIR_TREE and adding it means dropping NO_FAIR_TREE.
[[nodiscard]] inline std::string edited_flags(std::string_view flags_text, std::string_view edit) {
    std::vector<std::string> words;
    for (const auto w : config::split(flags_text, ','))
        if (!config::trim(w).empty()) words.emplace_back(config::trim(w));
    const bool add = edit.front() == '+';
    std::string flag(config::trim(edit.substr(1)));
    for (auto& c : flag) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c); // upper case
    const auto drop = [&](std::string_view f) {
        words.erase(std::remove_if(words.begin(), words.end(), [&](const std::string& w) { return config::iequals(w, f); }),
                    words.end());
    };
    if (flag == "FAIR_TREE") {
        drop("NO_FAIR_TREE");
        if (!add) words.emplace_back("NO_FAIR_TREE");
    } else {
        drop(flag);
        if (add) words.push_back(flag);
    }
    std::string v;
    for (const auto& w : words) v += (v.empty() ? "" : ",") + w;
    return v;
}

} // namespace detail

/// Applies the changes to `pc` in order. `conf_inputs` are the configuration texts, read again
/// with the slurm.conf keys appended (so that each value follows slurm.conf's own rules).
[[nodiscard]] inline whatif_applied apply_whatif(parsed_cluster& pc, std::span<const config::conf_input> conf_inputs,
                                                 std::span<const std::pair<std::string, std::string>> changes) {
    whatif_applied r;
    std::string conf_text;
    std::string flags_text = pc.conf.flags_text;
    bool conf_changed = false;
    const std::vector<std::string> known = detail::whatif_keys(pc);
    // Partition, QOS and association changes are applied after the configuration is read again.
    std::vector<std::pair<std::string, std::string>> later;
    for (const auto& change : changes) {
        const std::string& key = change.first;
        const std::string& value = change.second;
        const config::slurm_conf_key* conf_key = config::find_slurm_conf_key(key);
        if (conf_key != nullptr && conf_key->settable) {
            std::string v = value;
            if (config::is_key(key, config::slurm_conf_setting::flags) && !v.empty() && (v.front() == '+' || v.front() == '-'))
                v = detail::edited_flags(flags_text, v);
            if (config::is_key(key, config::slurm_conf_setting::flags)) {
                flags_text = v;
                r.fairshare = true;
                for (const auto& u : config::unknown_priority_flags(v))
                    r.warnings.push_back("PriorityFlags: " + u.describe() + text::did_you_mean(u.word, config::priority_flag_words));
            }
            if (config::is_key(key, config::slurm_conf_setting::dampening)) r.fairshare = true;
            conf_text += std::string(conf_key->name) + "=" + v + "\n";
            conf_changed = true;
            continue;
        }
        const std::string_view k = key;
        const std::size_t last = k.rfind('.');
        const std::size_t first = k.find('.');
        const std::string_view kind = k.substr(0, first);
        const bool structured = first != std::string_view::npos && last != first &&
                                (kind == "partition" || kind == "qos" || kind == "assoc");
        if (!structured) {
            r.error = "unknown key '" + key + "'" + text::did_you_mean(key, known, whatif_suggestions);
            return r;
        }
        later.emplace_back(key, value);
    }
    if (conf_changed) {
        std::vector<config::conf_input> inputs(conf_inputs.begin(), conf_inputs.end());
        inputs.push_back({conf_text, "--set"});
        auto conf = config::read_slurm_conf_inputs(inputs);
        if (!conf) {
            r.error = conf.error().key + ": " + conf.error().message;
            return r;
        }
        pc.conf = std::move(*conf);
    }
    for (const auto& change : later) {
        const std::string& key = change.first;
        const std::string& value = change.second;
        const std::string_view k = key;
        const std::size_t first = k.find('.'), last = k.rfind('.');
        const std::string_view kind = k.substr(0, first), name = k.substr(first + 1, last - first - 1),
                               field = k.substr(last + 1);
        const auto bad_key = [&] { r.error = "unknown key '" + key + "'" + text::did_you_mean(key, known, whatif_suggestions); };
        if (kind == "partition") {
            const auto p = pc.conf.find_partition(name);
            const bool factor = config::is_key(field, config::slurm_conf_setting::job_factor),
                       tier = config::is_key(field, config::slurm_conf_setting::tier);
            if (!p || (!factor && !tier)) {
                bad_key();
                return r;
            }
            const std::uint32_t max = factor ? config::max_priority_job_factor : config::max_priority_tier;
            const auto v = config::parse_unsigned<std::uint32_t>(value);
            if (!v || *v > max) {
                r.error = key + ": '" + value + "' is not an integer from 0 to " + std::to_string(max);
                return r;
            }
            auto& part = pc.conf.partitions[*p];
            (factor ? part.priority_job_factor : part.priority_tier) = static_cast<std::uint16_t>(*v);
        } else if (kind == "qos") {
            const auto q = pc.qos.find(name);
            const bool prio = config::iequals(field, "Priority"), uf = config::iequals(field, "UsageFactor");
            if (!q || (!prio && !uf)) {
                bad_key();
                return r;
            }
            if (prio) {
                const auto v = config::parse_unsigned<std::uint32_t>(value);
                if (!v) {
                    r.error = key + ": '" + value + "' is not an integer from 0 to 4294967295";
                    return r;
                }
                pc.qos.qos[*q].priority = *v;
            } else {
                const auto v = config::parse_usage_factor(value);
                if (!v) {
                    r.error = key + ": '" + value + "' is not a number " + config::range_text(0.0, config::max_usage_factor);
                    return r;
                }
                pc.qos.qos[*q].usage_factor = *v;
            }
        } else {
            const std::size_t slash = name.find('/');
            const std::string_view account = name.substr(0, slash);
            const std::string_view user = slash == std::string_view::npos ? std::string_view{} : name.substr(slash + 1);
            const auto a = user.empty() ? pc.assoc.find_account(account) : pc.assoc.find_user(account, user);
            if (!a || *a == 0 || !(config::iequals(field, "Shares") || config::iequals(field, "FairShare"))) {
                bad_key();
                return r;
            }
            const auto v = config::parse_raw_shares(value);
            if (!v) {
                r.error = key + ": '" + value + "' is not 'parent' or an integer from 0 to 4294967295";
                return r;
            }
            pc.assoc.rows[*a].raw_shares = *v;
            r.fairshare = true;
        }
    }
    return r;
}

/// One entry of the queue on both sides.
struct whatif_entry {
    std::uint32_t job_index = 0;                    ///< the job's index in both models
    std::uint32_t partition = 0, qos = 0;           ///< the entry's partition and QOS indices
    std::uint32_t job_id = 0;
    std::uint32_t old_priority = 0, new_priority = 0;
    std::uint32_t old_tier = 0, new_tier = 0;       ///< the partition's PriorityTier on each side
    std::size_t old_position = 0, new_position = 0; ///< 1-based, among the entries of both sides
    [[nodiscard]] long move() const noexcept {      ///< positions gained (negative: lost)
        return static_cast<long>(old_position) - static_cast<long>(new_position);
    }
};

/// The comparison of two queues.
struct whatif_result {
    std::vector<whatif_entry> entries; ///< in the old queue's order
    double tau = 1.0;                  ///< Kendall's tau between the two orders
    std::size_t up = 0, down = 0;
    double median_move = 0;            ///< of |move| over all entries
    std::size_t largest_move = 0;
};

namespace detail {

/// The queue of a model as sprio would list it (eligible pending jobs), in Slurm's order.
[[nodiscard]] inline std::vector<slurm::queue_entry> queue_of(const config::slurm_model& m, std::int64_t now,
                                                              std::int64_t listed_at) {
    const auto ctx = m.context(now);
    std::vector<slurm::queue_entry> all;
    slurm::build_queue(m.engine(), std::span<const job>(m.jobs), std::span<const slurm::job_lists>(m.lists), ctx, all);
    std::erase_if(all, [&](const slurm::queue_entry& e) {
        const std::int64_t begin = m.begin_times[e.job_index];
        return begin == 0 || begin > listed_at;
    });
    return all;
}

/// One key for (job, partition, QOS): both models hold the same jobs, partitions and QOS in
/// the same order.
[[nodiscard]] constexpr std::uint64_t entry_key(const slurm::queue_entry& e) noexcept {
    return (std::uint64_t{e.job_index} << 32) | (std::uint64_t{e.partition & 0xFFFFu} << 16) | (e.qos & 0xFFFFu);
}

/// Inversions of `v` (merge sort), for Kendall's tau.
inline std::uint64_t inversions(std::vector<std::size_t>& v, std::vector<std::size_t>& tmp, std::size_t lo, std::size_t hi) {
    if (hi - lo < 2) return 0;
    const std::size_t mid = lo + (hi - lo) / 2;
    std::uint64_t n = inversions(v, tmp, lo, mid) + inversions(v, tmp, mid, hi);
    std::size_t i = lo, j = mid, k = lo;
    while (i < mid && j < hi) {
        if (v[i] <= v[j]) tmp[k++] = v[i++];
        else {
            n += mid - i;
            tmp[k++] = v[j++];
        }
    }
    while (i < mid) tmp[k++] = v[i++];
    while (j < hi) tmp[k++] = v[j++];
    std::copy(tmp.begin() + static_cast<std::ptrdiff_t>(lo), tmp.begin() + static_cast<std::ptrdiff_t>(hi),
              v.begin() + static_cast<std::ptrdiff_t>(lo));
    return n;
}

} // namespace detail

/// Compares the queues of two models of the same jobs at `now`, listing the jobs eligible at
/// `listed_at` (default: `now`). Entries that only one side
/// lists are left out, and each side's entries are numbered 1..n among the others, so that
/// such an entry does not count as a move of everything after it.
[[nodiscard]] inline whatif_result compare_queues(const config::slurm_model& before, const config::slurm_model& after,
                                                  std::int64_t now,
                                                  std::optional<std::int64_t> listed_at = std::nullopt) {
    const std::int64_t listed = listed_at.value_or(now);
    const auto a = detail::queue_of(before, now, listed), b = detail::queue_of(after, now, listed);
    std::vector<std::pair<std::uint64_t, std::size_t>> new_pos(b.size()); // key, position in b
    for (std::size_t i = 0; i < b.size(); ++i) new_pos[i] = {detail::entry_key(b[i]), i};
    std::sort(new_pos.begin(), new_pos.end());
    whatif_result res;
    std::vector<std::size_t> order; // b's positions, in a's order
    for (const auto& e : a) {
        const std::uint64_t k = detail::entry_key(e);
        const auto it = std::lower_bound(new_pos.begin(), new_pos.end(), std::make_pair(k, std::size_t{0}));
        if (it == new_pos.end() || it->first != k) continue;
        const auto& nb = b[it->second];
        whatif_entry w;
        w.job_index = e.job_index;
        w.partition = e.partition;
        w.qos = e.qos;
        w.job_id = e.job_id;
        w.old_priority = e.priority;
        w.new_priority = nb.priority;
        w.old_tier = e.tier;
        w.new_tier = nb.tier;
        w.old_position = res.entries.size() + 1;
        order.push_back(it->second);
        res.entries.push_back(w);
    }
    const std::size_t n = res.entries.size();
    {
        // Renumber b's positions 1..n among the common entries: rank of each in `order`.
        std::vector<std::size_t> idx(n);
        for (std::size_t i = 0; i < n; ++i) idx[i] = i;
        std::sort(idx.begin(), idx.end(), [&](std::size_t x, std::size_t y) { return order[x] < order[y]; });
        for (std::size_t r = 0; r < n; ++r) res.entries[idx[r]].new_position = r + 1;
    }
    if (n >= 2) {
        std::vector<std::size_t> v = order, tmp(n);
        const auto inv = static_cast<double>(detail::inversions(v, tmp, 0, n));
        const double pairs = static_cast<double>(n) * static_cast<double>(n - 1) / 2.0;
        res.tau = 1.0 - 2.0 * inv / pairs;
    }
    std::vector<std::size_t> moves;
    moves.reserve(n);
    for (const auto& e : res.entries) {
        const long m = e.move();
        if (m > 0) ++res.up;
        if (m < 0) ++res.down;
        moves.push_back(static_cast<std::size_t>(m < 0 ? -m : m));
    }
    if (!moves.empty()) {
        std::sort(moves.begin(), moves.end());
        res.largest_move = moves.back();
        res.median_move = moves.size() % 2 == 1
                              ? static_cast<double>(moves[moves.size() / 2])
                              : (static_cast<double>(moves[moves.size() / 2 - 1]) + static_cast<double>(moves[moves.size() / 2])) / 2.0;
    }
    return res;
}

/// The term whose weighted value changed most between the two sides for entry `e` (age,
/// assoc, fairshare, jobsize, partition, qos, tres); "tier" when none changed and the
/// partition's PriorityTier did, "-" when nothing of the entry's own changed.
[[nodiscard]] inline std::string changed_term(const config::slurm_model& before, const config::slurm_model& after,
                                              std::int64_t now, const whatif_entry& e) {
    const auto ca = before.context(now), cb = after.context(now);
    const auto fa = slurm::breakdown(before.engine(), before.jobs[e.job_index], ca, e.partition, e.qos);
    const auto fb = slurm::breakdown(after.engine(), after.jobs[e.job_index], cb, e.partition, e.qos);
    const std::pair<const char*, double> terms[] = {
        {"age", fb.age - fa.age},          {"assoc", fb.assoc - fa.assoc},           {"fairshare", fb.fairshare - fa.fairshare},
        {"jobsize", fb.job_size - fa.job_size}, {"partition", fb.part - fa.part}, {"qos", fb.qos_term - fa.qos_term},
        {"tres", fb.tres - fa.tres}};
    double most = 0;
    std::string term;
    for (const auto& [name, d] : terms)
        if (std::fabs(d) > most) {
            most = std::fabs(d);
            term = name;
        }
    if (!term.empty()) return term;
    return e.old_tier != e.new_tier ? "tier" : "-";
}
/// One account's (or user's) share of the head of the queue before and after, in percent.
struct head_share {
    std::string who;
    double before = 0, after = 0;
};

/// What `mfprio whatif` reports of a comparison: the largest moves with the term that moved
/// each, and each account's and user's share of the head of the queue on both sides.
struct whatif_summary {
    std::vector<std::size_t> movers; ///< indices into the result's entries, largest |move| first
    std::vector<std::string> terms;  ///< changed_term of each mover
    std::size_t head = 0;            ///< the positions counted as the head of the queue
    std::size_t entries = 0;         ///< all positions
    std::vector<head_share> by_account, by_user; ///< most of the head after first; nobody absent from both heads
};

/// Summarizes `r` (compare_queues of `before` and `after` at `now`): at most `top` movers,
/// ties by the old position; the head is `head` positions, or a tenth of the queue (at least
/// one) when not given.
[[nodiscard]] inline whatif_summary summarize_whatif(const config::slurm_model& before, const config::slurm_model& after,
                                                     std::int64_t now, const whatif_result& r, std::size_t top,
                                                     std::optional<std::size_t> head = std::nullopt) {
    whatif_summary s;
    for (std::size_t i = 0; i < r.entries.size(); ++i)
        if (r.entries[i].move() != 0) s.movers.push_back(i);
    std::stable_sort(s.movers.begin(), s.movers.end(), [&](std::size_t x, std::size_t y) {
        const long a = std::labs(r.entries[x].move()), b = std::labs(r.entries[y].move());
        return a != b ? a > b : r.entries[x].old_position < r.entries[y].old_position;
    });
    if (s.movers.size() > top) s.movers.resize(top);
    for (const std::size_t i : s.movers) s.terms.push_back(changed_term(before, after, now, r.entries[i]));
    s.entries = r.entries.size();
    s.head = std::min(s.entries, head ? *head : std::max<std::size_t>(1, s.entries / 10));
    const auto percent = [&](std::size_t c) {
        return s.head == 0 ? 0.0 : 100.0 * static_cast<double>(c) / static_cast<double>(s.head);
    };
    for (const bool by_account : {true, false}) {
        // Names from the model before the change (the same jobs on both sides), counted in
        // name order.
        std::map<std::string_view, std::pair<std::size_t, std::size_t>> count;
        for (const auto& e : r.entries) {
            const auto& j = before.jobs[e.job_index];
            const std::string_view who = by_account ? std::string_view(before.cluster.assoc_accounts()[j.association])
                                                    : std::string_view(before.user_names[j.user]);
            auto& c = count[who];
            c.first += e.old_position <= s.head ? 1 : 0;
            c.second += e.new_position <= s.head ? 1 : 0;
        }
        std::vector<std::pair<std::string_view, std::pair<std::size_t, std::size_t>>> listed;
        for (const auto& [who, c] : count)
            if (c.first + c.second != 0) listed.emplace_back(who, c);
        std::stable_sort(listed.begin(), listed.end(), [](const auto& x, const auto& y) {
            return x.second.second != y.second.second ? x.second.second > y.second.second
                                                      : x.second.first > y.second.first;
        });
        auto& out = by_account ? s.by_account : s.by_user;
        for (const auto& [who, c] : listed) out.push_back({.who = std::string(who), .before = percent(c.first), .after = percent(c.second)});
    }
    return s;
}

/// `mfprio whatif`'s text report: the changes (`changes`, as "KEY=VALUE, ..."), the order's
/// statistics, the largest moves and the head's shares by account and by user.
[[nodiscard]] inline std::string render_whatif(const config::slurm_model& before, const whatif_result& r,
                                               const whatif_summary& s, std::string_view changes) {
    std::string out;
    char buf[512];
    out += "whatif: " + std::string(changes) + "\n";
    const std::size_t n = s.entries;
    std::snprintf(buf, sizeof buf, "queue entries compared: %zu   Kendall's tau: %.4f\n", n, r.tau);
    out += buf;
    std::snprintf(buf, sizeof buf, "moved up: %zu   moved down: %zu   unchanged: %zu   median move: %g   largest move: %zu\n",
                  r.up, r.down, n - r.up - r.down, r.median_move, r.largest_move);
    out += buf;
    if (!s.movers.empty()) {
        out += "\nlargest moves:\n";
        std::snprintf(buf, sizeof buf, "%10s %-10s %-10s %-10s %10s %10s %7s %7s %5s  %s\n", "JOBID", "PARTITION", "USER",
                      "ACCOUNT", "OLD_PRIO", "NEW_PRIO", "OLD_POS", "NEW_POS", "MOVE", "TERM");
        out += buf;
        for (std::size_t i = 0; i < s.movers.size(); ++i) {
            const whatif_entry& e = r.entries[s.movers[i]];
            const auto& j = before.jobs[e.job_index];
            std::snprintf(buf, sizeof buf, "%10u %-10.10s %-10.10s %-10.10s %10u %10u %7zu %7zu %+5ld  %s\n", e.job_id,
                          before.cluster.partition_names()[e.partition].c_str(), before.user_names[j.user].c_str(),
                          before.cluster.assoc_accounts()[j.association].c_str(), e.old_priority, e.new_priority,
                          e.old_position, e.new_position, e.move(), s.terms[i].c_str());
            out += buf;
        }
    }
    if (n != 0)
        for (const bool by_account : {true, false}) {
            std::snprintf(buf, sizeof buf, "\nhead of the queue (first %zu of %zu positions), by %s:\n", s.head, n,
                          by_account ? "account" : "user");
            out += buf;
            std::snprintf(buf, sizeof buf, "%-20s %8s %8s\n", by_account ? "ACCOUNT" : "USER", "BEFORE", "AFTER");
            out += buf;
            for (const auto& c : by_account ? s.by_account : s.by_user) {
                std::snprintf(buf, sizeof buf, "%-20.20s %7.1f%% %7.1f%%\n", c.who.c_str(), c.before, c.after);
                out += buf;
            }
        }
    return out;
}

namespace detail {

/// `s` with XML's five special characters escaped.
[[nodiscard]] inline std::string xml_escape(std::string_view s) {
    std::string out;
    for (const char c : s) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&apos;"; break;
        default: out += c;
        }
    }
    return out;
}

} // namespace detail

/// An SVG chart of the accounts' shares of the head of the queue before and after: one row
/// per account (at most 20, the largest first), a grey bar for before and a blue one for
/// after, each labelled with its percentage, on a 0-100% scale.
[[nodiscard]] inline std::string whatif_svg(std::span<const head_share> shares, std::string_view title,
                                            std::size_t head, std::size_t of) {
    const std::size_t rows = std::min<std::size_t>(shares.size(), 20);
    const int label_w = 170, bar_w = 520, row_h = 44, top = 92, left = 20;
    const int width = left + label_w + bar_w + 80, height = top + static_cast<int>(rows) * row_h + 50;
    std::string svg;
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                  "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                  "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"13\">\n",
                  width, height, width, height);
    svg += buf;
    std::snprintf(buf, sizeof buf, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", width, height);
    svg += buf;
    svg += "<text x=\"" + std::to_string(left) + "\" y=\"28\" font-size=\"17\" font-weight=\"bold\">Share of the first " +
           std::to_string(head) + " of " + std::to_string(of) + " queue positions, by account</text>\n";
    svg += "<text x=\"" + std::to_string(left) + "\" y=\"50\" fill=\"#444\">" + detail::xml_escape(title) + "</text>\n";
    // Legend.
    std::snprintf(buf, sizeof buf,
                  "<rect x=\"%d\" y=\"62\" width=\"14\" height=\"12\" fill=\"#9e9e9e\"/>"
                  "<text x=\"%d\" y=\"73\">before</text>\n"
                  "<rect x=\"%d\" y=\"62\" width=\"14\" height=\"12\" fill=\"#1f6fb4\"/>"
                  "<text x=\"%d\" y=\"73\">after</text>\n",
                  left + label_w, left + label_w + 20, left + label_w + 90, left + label_w + 110);
    svg += buf;
    // Grid lines at 0, 25, 50, 75 and 100%.
    for (int g = 0; g <= 100; g += 25) {
        const int x = left + label_w + bar_w * g / 100;
        std::snprintf(buf, sizeof buf,
                      "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>"
                      "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#666\">%d%%</text>\n",
                      x, top - 6, x, top + static_cast<int>(rows) * row_h, x, top + static_cast<int>(rows) * row_h + 18, g);
        svg += buf;
    }
    for (std::size_t i = 0; i < rows; ++i) {
        const auto& sh = shares[i];
        const int y = top + static_cast<int>(i) * row_h;
        std::string name = sh.who.size() > 22 ? sh.who.substr(0, 21) + "..." : sh.who;
        svg += "<text x=\"" + std::to_string(left + label_w - 8) + "\" y=\"" + std::to_string(y + 24) +
               "\" text-anchor=\"end\">" + detail::xml_escape(name) + "</text>\n";
        const auto bar = [&](double pct, int dy, const char* colour) {
            const double w = bar_w * std::clamp(pct, 0.0, 100.0) / 100.0;
            std::snprintf(buf, sizeof buf,
                          "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"16\" fill=\"%s\"/>"
                          "<text x=\"%.1f\" y=\"%d\" font-size=\"12\">%.1f%%</text>\n",
                          left + label_w, y + dy, w, colour, left + label_w + w + 5, y + dy + 13, pct);
            svg += buf;
        };
        bar(sh.before, 4, "#9e9e9e");
        bar(sh.after, 22, "#1f6fb4");
    }
    if (shares.size() > rows) {
        std::snprintf(buf, sizeof buf, "<text x=\"%d\" y=\"%d\" fill=\"#666\">and %zu more accounts</text>\n", left,
                      height - 12, shares.size() - rows);
        svg += buf;
    }
    svg += "</svg>\n";
    return svg;
}

} // namespace mfprio::report
