#pragma once
/// \file
/// What a Slurm cluster prints, read as mfprio's inputs: `scontrol show config`,
/// `scontrol show partition` and `scontrol show node` (one-line `-o` or multi-line), as
/// configuration; `scontrol show job` (both forms) as jobs; `scontrol show assoc_mgr` and
/// `sacctmgr show assoc -P` merged into the association table read from `sshare -a -l -P`.
/// (`squeue --json` needs a JSON library and is read by mfprio/inputs/.) Each source's own
/// format is read by its header (read/scontrol.hpp, read/squeue.hpp, read/assoc_mgr.hpp,
/// read/sacctmgr.hpp, read/assoc_table.hpp for sshare); this file tells the kinds apart and
/// puts a cluster's configuration and associations together from them.
///
/// Every reader keeps the line and column of what it reads, so errors point into the file
/// the cluster printed. The kind of a text is told from its content (`detect_kind`).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <mfprio/core/expected.hpp>
#include <mfprio/read/assoc_mgr.hpp>
#include <mfprio/read/assoc_table.hpp>
#include <mfprio/read/qos_table.hpp>
#include <mfprio/read/sacctmgr.hpp>
#include <mfprio/read/slurm_conf.hpp>
#include <mfprio/text/table.hpp>
#include <mfprio/read/common.hpp>
#include <mfprio/read/scontrol.hpp>
#include <mfprio/read/squeue.hpp>

namespace mfprio::config {

/// What a Slurm input text is, as `detect_kind` tells it from its first lines.
enum class input_kind {
    slurm_conf,      ///< slurm.conf syntax
    scontrol_config, ///< `scontrol show config`
    scontrol_records, ///< `scontrol show partition` / `show node` (NodeName=, PartitionName=)
    scontrol_jobs,   ///< `scontrol show job`
    json,            ///< a JSON document (`squeue --json`)
    assoc_mgr,       ///< `scontrol show assoc_mgr`
    squeue_text,     ///< `squeue -h -O` with `squeue_format` (no header)
    pipe_table,      ///< a '|' separated table with a header (sshare -P, sacctmgr -P, mfprio's tables)
};

/// Tells what kind of Slurm input `text` is (see `input_kind`).
[[nodiscard]] inline input_kind detect_kind(std::string_view text) noexcept {
    const std::string_view first = detail::first_content_line(text);
    if (first.starts_with("{") || first.starts_with("[")) return input_kind::json;
    if (first.starts_with("Configuration data as of")) return input_kind::scontrol_config;
    if (first.starts_with("Current Association Manager state")) return input_kind::assoc_mgr;
    if (first.starts_with("JobId=")) return input_kind::scontrol_jobs;
    // scontrol prints keys slurm.conf never holds: a node's CPUTot or State, a partition's
    // TotalCPUs.
    if (is_squeue_text_line(first)) return input_kind::squeue_text;
    if ((first.starts_with("NodeName=") || first.starts_with("PartitionName=")) &&
        (first.find(" CPUTot=") != std::string_view::npos || first.find(" TotalCPUs=") != std::string_view::npos ||
         first.find(' ') == std::string_view::npos))
        return input_kind::scontrol_records;
    if (first.find('|') != std::string_view::npos && first.find('=') == std::string_view::npos)
        return input_kind::pipe_table;
    return input_kind::slurm_conf;
}

namespace detail {

/// A `scontrol show config` output that lacks the priority settings it always prints
/// (PriorityType, and under priority/multifactor its PriorityWeight lines): cut short, or
/// not the whole output. An error naming it, rather than priorities computed from defaults.
[[nodiscard]] inline std::optional<input_error> incomplete_config(const conf_input& in) {
    std::optional<std::string> type;
    bool weight_seen = false;
    std::size_t last = 0;
    for_each_line(in.text, [&](const text_line& l) {
        last = l.number;
        const std::size_t eq = l.text.find('=');
        if (eq == std::string_view::npos) return true;
        const std::string_view k = trim(l.text.substr(0, eq));
        if (k == key_name(slurm_conf_setting::type)) type = std::string(trim(l.text.substr(eq + 1)));
        const slurm_conf_key* key = find_slurm_conf_key(k);
        weight_seen = weight_seen || (key != nullptr && key->printed);
        return true;
    });
    if (!type)
        return make_error(in.name, last, 1, std::string(key_name(slurm_conf_setting::type)),
                          "no PriorityType: not a whole `scontrol show config` output (cut short?)");
    if (*type == "priority/multifactor" && !weight_seen)
        return make_error(in.name, last, 1, std::string(key_name(slurm_conf_setting::weight_age)),
                          "no PriorityWeight settings: not a whole `scontrol show config` output (cut short?)");
    return std::nullopt;
}

} // namespace detail

/// Reads slurm.conf, `scontrol show config`, `scontrol show partition` and `scontrol show
/// node` texts (any mix, in order; later keys win, nodes and partitions add up) into one
/// configuration. `version` receives SLURM_VERSION when a `show config` text has it.
[[nodiscard]] inline expected<slurm_conf> read_slurm_conf_inputs(std::span<const conf_input> inputs,
                                                                 std::string* version = nullptr) {
    detail::conf_reader reader;
    // Nodes before partitions: a partition's Nodes must name nodes already read.
    std::vector<std::pair<const conf_input*, std::string>> texts;
    std::vector<std::pair<const conf_input*, std::string>> partitions;
    for (const conf_input& in : inputs) {
        // Nothing to read is no configuration: Slurm's defaults would give every job the same
        // priority without a word.
        if (detail::first_content_line(in.text).empty())
            return text::file_error(in.name, {},
                                    "empty: no configuration in it (an empty file, or an output cut before its first line)");
        switch (detect_kind(in.text)) {
        case input_kind::scontrol_config:
            if (auto e = detail::incomplete_config(in)) return *e;
            texts.emplace_back(&in, config_as_slurm_conf(in.text, version));
            break;
        case input_kind::scontrol_records: {
            std::string t = records_as_slurm_conf(records_multi_line(in.text) ? records_one_line(in.text) : in.text);
            if (detail::first_content_line(in.text).starts_with("PartitionName=")) {
                reader.printed_partitions(in.name);
                partitions.emplace_back(&in, std::move(t));
            }
            else
                texts.emplace_back(&in, std::move(t));
            break;
        }
        case input_kind::slurm_conf:
            texts.emplace_back(&in, in.text);
            break;
        default:
            return text::file_error(in.name, {},
                                    "not a slurm.conf, `scontrol show config`, `scontrol show partition` or "
                                    "`scontrol show node` output");
        }
    }
    texts.insert(texts.end(), std::make_move_iterator(partitions.begin()), std::make_move_iterator(partitions.end()));
    for (const auto& [in, text] : texts) {
        const auto dir = std::filesystem::path(in->name).parent_path();
        if (auto r = reader.add(detail::without_bom(text), in->name, dir); !r) return r.error();
    }
    return reader.done();
}

/// The association table from several texts, merged by (account, user, partition):
/// - one `sshare -a -l -P` / `-p` output (or any association table, see assoc_table.hpp):
///   the tree, shares and sshare's columns;
/// - `scontrol show assoc_mgr` (`flags=assoc`): RawUsage with its two decimals instead of
///   sshare's integer (`UsageRaw/Norm/Efctv=`), and the GPU usage in minutes (GrpTRESMins'
///   `gres/gpu=LIMIT(USED)`);
/// - `sacctmgr show assoc -P`: the association priority (`Priority`, which sacctmgr prints
///   with what the account gave its users).
/// An association in assoc_mgr or sacctmgr that the sshare output does not have is an error
/// naming it: the texts come from different clusters or different times.
[[nodiscard]] inline expected<assoc_table> read_assoc_inputs(std::span<const conf_input> inputs) {
    const conf_input* tree = nullptr;
    std::vector<std::pair<const conf_input*, table>> sacctmgr;
    std::vector<const conf_input*> assoc_mgr;
    for (const conf_input& in : inputs) {
        const input_kind k = detect_kind(in.text);
        if (k == input_kind::assoc_mgr) {
            assoc_mgr.push_back(&in);
            continue;
        }
        if (k != input_kind::pipe_table)
            return text::file_error(in.name, {},
                                    "not an `sshare -a -l -P`, `scontrol show assoc_mgr` or `sacctmgr show assoc -P` output");
        auto t = parse_table(detail::without_bom(in.text), in.name);
        if (!t) return t.error();
        if (is_sacctmgr_assoc(*t)) {
            sacctmgr.emplace_back(&in, std::move(*t));
        } else {
            if (tree != nullptr)
                return text::make_error(in.name, t->header_line, 1, {},
                                        "a second association tree (the first is " + tree->name +
                                            "): give one sshare output, with assoc_mgr and sacctmgr outputs beside it");
            tree = &in;
        }
    }
    if (tree == nullptr)
        return text::file_error(inputs.empty() ? std::string() : inputs.front().name, {},
                                "no association tree: give `sshare -a -l -P` output (assoc_mgr and sacctmgr outputs only "
                                "add to it)");
    auto out = parse_assoc_table(detail::without_bom(tree->text), tree->name);
    if (!out) return out.error();
    for (const auto& [in, t] : sacctmgr)
        if (auto e = add_sacctmgr_priorities(*out, t, in->name, tree->name)) return *e;
    for (const conf_input* in : assoc_mgr)
        if (auto e = add_assoc_mgr_usage(*out, *in, tree->name)) return *e;
    return out;
}

/// True when some association has running jobs' TRES minutes in its TRESRunMins column (a
/// count other than 0): its usage grows between two of slurmctld's recalculations.
[[nodiscard]] inline bool usage_accruing(const assoc_table& a) {
    for (const auto& r : a.rows) {
        if (!r.tres_run_mins) continue;
        for (const std::string_view item : split(*r.tres_run_mins, ',')) {
            const std::size_t eq = item.find('=');
            if (eq != std::string_view::npos && trim(item.substr(eq + 1)) != "0") return true;
        }
    }
    return false;
}

} // namespace mfprio::config
