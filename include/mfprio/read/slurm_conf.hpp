#pragma once
/// \file
/// slurm.conf: the parameters of priority/multifactor, the nodes and the partitions.
///
/// File syntax (Slurm's parse_config.c):
/// - Keys are case-insensitive; values keep their case. A top-level line holds one
///   `Key=Value` (white space around '=' allowed; a value with spaces must be quoted).
///   `NodeName=` and `PartitionName=` lines hold several space-separated pairs.
/// - `#` starts a comment to the end of the line, unless escaped: `\#` is a literal '#'.
///   After comments are removed, every backslash escapes the next character (`\\` is one
///   backslash), as Slurm does.
/// - A line ending in an odd number of backslashes (trailing blanks allowed) continues on
///   the next line; the pieces are joined without a separator. Errors name the physical
///   line and column.
/// - `Include path` (case-insensitive, a space before the path) reads another file, relative
///   to the directory of the including file when not absolute; `%c` in the path is the
///   lower-cased ClusterName seen so far. Missing files and include cycles are errors naming
///   the including file and line; errors inside an included file name that file and line.
/// - A line without `=` (other than Include) is an error. Keys mfprio does not use are
///   ignored together with the rest of their line (slurm.conf has hundreds of keys); so are
///   NodeName/PartitionName options mfprio does not use. A malformed value of a key mfprio
///   uses is an error naming the key. A repeated key: the last value wins (each is checked).
///
/// Values (reference §1.3, §1.4; Slurm's read_config.c and parse_value.c):
/// - Integer keys use Slurm's rules: strtoul base 0 (so `0x10` is 16 and `010` is **8**),
///   `UNLIMITED`/`INFINITE` is the type's maximum, negative values and values too large for
///   the type are errors; u32 keys (the PriorityWeight* keys) also take a `k`/`K` suffix
///   (x1024).
/// - Time keys are Slurm time strings (see slurm_time.hpp) converted to minutes rounding up,
///   stored as minutes*60 seconds. `UNLIMITED` as PriorityDecayHalfLife or PriorityMaxAge is
///   kept as Slurm ends up storing it: the u32 wrap of INFINITE*60, 4294967236 s.
///   PriorityCalcPeriod must be at least one minute.
/// - PriorityDecayHalfLife=0 without any PriorityUsageResetPeriod line is an error, as in
///   Slurm; Slurm does not complain about an explicit `PriorityUsageResetPeriod=NONE`, and
///   neither does mfprio.
/// - PriorityFlags: case-insensitive substring matching on the whole value, starting from
///   FAIR_TREE only. Words that match no keyword are ignored (substring matching has no
///   notion of an unknown word), e.g. `PriorityFlags=FOO` leaves the default.
/// - PriorityWeightTRES and partition TRESBillingWeights: see `parse_tres_weights`.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <mfprio/core/expected.hpp>
#include <mfprio/core/job.hpp>
#include <mfprio/text/hostlist.hpp>
#include <mfprio/read/common.hpp>
#include <mfprio/read/slurm_keys.hpp>
#include <mfprio/fairshare/reset.hpp>
#include <mfprio/slurm/flags.hpp>

namespace mfprio::config {

/// The most nodes one configuration defines (NodeName lines in all), and the most partition
/// memberships (the sizes of the partitions' node lists added up). Far above any Slurm
/// cluster in service, they keep a small file (`NodeName=n[1-99999999]`, thousands of
/// `Nodes=ALL` partitions) from costing seconds and gigabytes.
inline constexpr std::size_t slurm_conf_max_nodes = 200'000;
inline constexpr std::size_t slurm_conf_max_partition_nodes = 2'000'000;
/// The most partitions one configuration defines (a job keeps 16-bit partition indices).
inline constexpr std::size_t slurm_conf_max_partitions = 65536;

/// PriorityUsageResetPeriod: when accumulated usage is cleared (the ledger's own enum).
using usage_reset_period = fairshare::reset_period;

/// One TRES weight of PriorityWeightTRES or TRESBillingWeights. `name` is canonical: the
/// type in lower case, then `/name` as written for typed TRES ("cpu", "mem", "gres/gpu",
/// "gres/gpu:a100", "license/foo", "bb/datawarp", "fs/disk"). `weight` is per base unit
/// (per MB for mem and bb/*), after the unit suffix was applied.
struct tres_weight {
    std::string name;  ///< canonical TRES name
    double weight = 0; ///< weight per base unit
    friend bool operator==(const tres_weight&, const tres_weight&) = default;
};

/// One node (a NodeName line expands to one of these per host).
struct node_def {
    std::string name;                ///< host name
    std::uint32_t cpus = 1;          ///< CPUs (else Boards*Sockets*CoresPerSocket*ThreadsPerCore)
    std::uint64_t real_memory = 1;   ///< RealMemory, MB
    /// Gres as written, with counts: `gpu:4,gpu:a100:2` -> ("gpu",4), ("gpu:a100",2).
    std::vector<std::pair<std::string, std::uint64_t>> gres;
};

/// One partition (a PartitionName line).
/// The largest PriorityJobFactor (and partition Priority) slurm.conf takes.
inline constexpr std::uint16_t max_priority_job_factor = 65533;
/// The largest PriorityTier.
inline constexpr std::uint16_t max_priority_tier = 65535;

struct partition_def {
    std::string name;                        ///< PartitionName
    std::vector<std::uint32_t> nodes;        ///< indices into slurm_conf::nodes, ascending
    std::uint16_t priority_job_factor = 1;   ///< PriorityJobFactor (max `max_priority_job_factor`)
    std::uint16_t priority_tier = 1;         ///< PriorityTier
    std::uint32_t max_time = infinite32;     ///< MaxTime in minutes; infinite32 = UNLIMITED
    std::vector<tres_weight> billing_weights; ///< TRESBillingWeights, parsed
    std::string billing_weights_text;        ///< TRESBillingWeights as written
    bool is_default = false;                 ///< Default=YES (only the last such partition keeps it)
};

struct slurm_conf {
    std::string priority_type = "priority/multifactor"; ///< PriorityType
    std::int64_t decay_half_life = 604800;  ///< PriorityDecayHalfLife, seconds (0 = no decay)
    std::int64_t calc_period = 300;         ///< PriorityCalcPeriod, seconds
    std::int64_t max_age = 604800;          ///< PriorityMaxAge, seconds
    usage_reset_period usage_reset = usage_reset_period::none; ///< PriorityUsageResetPeriod
    bool favor_small = false;               ///< PriorityFavorSmall
    std::uint32_t weight_age = 0;           ///< PriorityWeightAge
    std::uint32_t weight_assoc = 0;         ///< PriorityWeightAssoc
    std::uint32_t weight_fairshare = 0;     ///< PriorityWeightFairshare
    std::uint32_t weight_job_size = 0;      ///< PriorityWeightJobSize
    std::uint32_t weight_partition = 0;     ///< PriorityWeightPartition
    std::uint32_t weight_qos = 0;           ///< PriorityWeightQOS
    std::vector<tres_weight> weight_tres;   ///< PriorityWeightTRES, parsed
    std::string weight_tres_text;           ///< PriorityWeightTRES as written (sprio -w)
    slurm::priority_flags flags;            ///< PriorityFlags (default FAIR_TREE)
    std::string flags_text;                 ///< PriorityFlags as written
    std::uint16_t fairshare_dampening = 1;  ///< FairShareDampeningFactor (>= 1)
    std::string accounting_storage_type;    ///< AccountingStorageType (empty = not set)
    std::string accounting_storage_enforce; ///< AccountingStorageEnforce (empty = not set)
    std::string cluster_name;               ///< ClusterName
    std::vector<node_def> nodes;            ///< all nodes, in file order
    std::vector<partition_def> partitions;  ///< all partitions, in file order
    /// What was read but not as written: a partition of `scontrol show partition` naming a
    /// node no input defines ("file:line:column: Nodes: ..."), left out of the partition.
    std::vector<std::string> warnings;

    /// Sum of the nodes' CPUs (Slurm's cluster_cpus).
    [[nodiscard]] std::uint64_t total_cpus() const noexcept {
        std::uint64_t n = 0;
        for (const auto& node : nodes) n += node.cpus;
        return n;
    }
    /// Number of nodes.
    [[nodiscard]] std::size_t node_count() const noexcept { return nodes.size(); }
    /// Index of the node named `name`, if any.
    [[nodiscard]] std::optional<std::size_t> find_node(std::string_view name) const noexcept {
        for (std::size_t i = 0; i < nodes.size(); ++i)
            if (nodes[i].name == name) return i;
        return std::nullopt;
    }
    /// Index of the partition named `name` (case-sensitive, as Slurm), if any.
    [[nodiscard]] std::optional<std::size_t> find_partition(std::string_view name) const noexcept {
        for (std::size_t i = 0; i < partitions.size(); ++i)
            if (partitions[i].name == name) return i;
        return std::nullopt;
    }
    /// Index of the default partition (Default=YES), if any.
    [[nodiscard]] std::optional<std::size_t> default_partition() const noexcept {
        for (std::size_t i = partitions.size(); i-- > 0;)
            if (partitions[i].is_default) return i;
        return std::nullopt;
    }
    /// True when the six integer weights add up to more than 2^32-1 (Slurm logs
    /// "PriorityWeight values too high" but accepts the file).
    [[nodiscard]] bool weights_may_overflow() const noexcept {
        const std::uint64_t sum = std::uint64_t{weight_age} + weight_assoc + weight_fairshare +
                                  weight_job_size + weight_partition + weight_qos;
        return sum > 0xFFFFFFFFull;
    }
};

// ---------------------------------------------------------------------------------------
// TRES names and weights
// ---------------------------------------------------------------------------------------

/// Canonical TRES name from a `Type[/name]` string: the type (cpu, mem, node, energy,
/// billing, fs, vmem, pages, gres, license, bb, ic; any case) in lower case, the name as
/// written. fs, gres, license, bb and ic need a name; the others take none. Errors carry
/// a message only.
[[nodiscard]] inline expected<std::string> canonical_tres_name(std::string_view text) {
    const std::string_view s = trim(text);
    const std::size_t slash = s.find('/');
    const std::string type = to_lower(s.substr(0, slash));
    const std::string_view name =
        (slash == std::string_view::npos) ? std::string_view{} : s.substr(slash + 1);
    static constexpr std::string_view plain[] = {"cpu",     "mem",  "node",  "energy",
                                                 "billing", "vmem", "pages"};
    static constexpr std::string_view named[] = {"fs", "gres", "license", "bb", "ic"};
    const bool is_plain = std::find(std::begin(plain), std::end(plain), type) != std::end(plain);
    const bool is_named = std::find(std::begin(named), std::end(named), type) != std::end(named);
    if (!is_plain && !is_named)
        return make_error({}, 0, 0, {}, "unknown TRES type " + text::quote(s.substr(0, slash)));
    if (is_plain && slash != std::string_view::npos)
        return make_error({}, 0, 0, {}, "TRES type '" + type + "' takes no name (" +
                                            text::quote(s) + ")");
    if (is_named && name.empty())
        return make_error({}, 0, 0, {}, "TRES type '" + type + "' needs a name, as in '" +
                                            type + "/name' (" + text::quote(s) + ")");
    return is_named ? type + "/" + std::string(name) : type;
}

/// Base unit of a TRES for unit suffixes (Slurm's slurmdb_get_tres_base_unit): 2 (MB) for
/// mem and bb/*, 0 (plain count) for everything else.
[[nodiscard]] inline int tres_base_unit(std::string_view canonical_name) noexcept {
    return (canonical_name == "mem" || istarts_with(canonical_name, "bb/")) ? 2 : 0;
}

/// Parses `Type[/name]=double[K|M|G|T|P],...` (PriorityWeightTRES, TRESBillingWeights).
///
/// Slurm's rule (_tres_weight_item, get_convert_unit_val): a unit suffix (any case) is a
/// power of 1024 relative to the TRES's base unit, and the weight is **divided** by it
/// when the suffix is above the base unit: for mem and bb (base MB) `G` divides by 1024,
/// `T` by 1024^2, `P` by 1024^3, while `K` and `M` leave the weight unchanged; for other
/// TRES (base 1) `K` divides by 1024, `M` by 1024^2, `G` by 1024^3, and `T`/`P` are
/// rejected here because Slurm's int conversion factor overflows. A `B` after the suffix
/// ("0.25GB") is tolerated. Negative weights are allowed. Empty items are skipped; a
/// repeated TRES keeps its first position and takes the last value (Slurm overwrites).
/// Errors carry a message and the 1-based column inside `text`.
[[nodiscard]] inline expected<std::vector<tres_weight>> parse_tres_weights(std::string_view text) {
    std::vector<tres_weight> out;
    std::size_t start = 0;
    for (const std::string_view raw : split(text, ',')) {
        const std::size_t column = start + 1;
        start += raw.size() + 1;
        const std::string_view item = trim(raw);
        if (item.empty()) continue;
        const std::size_t eq = item.find('=');
        if (eq == std::string_view::npos || trim(item.substr(eq + 1)).empty())
            return make_error({}, 0, column, {},
                              "TRES weight " + text::quote(item) +
                                  " is not of the form Type[/name]=number[K|M|G|T|P]");
        auto name = canonical_tres_name(item.substr(0, eq));
        if (!name) {
            input_error e = name.error();
            e.column = column;
            return e;
        }
        const std::string_view value = trim(item.substr(eq + 1));
        const auto number = parse_double_prefix(value);
        if (!number)
            return make_error({}, 0, column, {},
                              "TRES weight " + text::quote(item) + " has no number");
        double weight = number->first;
        std::string_view unit = value.substr(number->second);
        if (!unit.empty()) {
            static constexpr std::string_view units = "kmgtp";
            const std::size_t u = units.find(to_lower(unit.front()));
            const std::string_view after = unit.substr(1);
            if (u == std::string_view::npos || !(after.empty() || iequals(after, "B")))
                return make_error({}, 0, column, {},
                                  "TRES weight " + text::quote(item) +
                                      ": unit must be one of K, M, G, T, P");
            const int unit_index = static_cast<int>(u) + 1;
            const int base = tres_base_unit(*name);
            if (unit_index - base >= 4)
                return make_error({}, 0, column, {},
                                  "TRES weight " + text::quote(item) + ": unit '" +
                                      std::string(1, unit.front()) + "' is too large for " +
                                      *name + " (Slurm's conversion factor overflows)");
            for (int i = base; i < unit_index; ++i) weight /= 1024.0;
        }
        auto same = std::find_if(out.begin(), out.end(),
                                 [&](const tres_weight& w) { return w.name == *name; });
        if (same != out.end()) same->weight = weight;
        else out.push_back({std::move(*name), weight});
    }
    return out;
}

// ---------------------------------------------------------------------------------------
// Reader internals
// ---------------------------------------------------------------------------------------

namespace detail {

/// Physical position of a character.
struct conf_pos {
    std::size_t line = 0;
    std::size_t column = 0;
};

/// The positions of a line's characters, held as runs of consecutive columns on one
/// physical line (a few a logical line, however long it is).
class conf_positions {
public:
    void push_back(conf_pos p) {
        if (!runs_.empty()) {
            const run& r = runs_.back();
            if (r.line == p.line && r.column + (size_ - r.index) == p.column) {
                ++size_;
                return;
            }
        }
        runs_.push_back({.index = size_, .line = p.line, .column = p.column});
        ++size_;
    }
    [[nodiscard]] std::size_t size() const noexcept { return size_; }
    void clear() noexcept {
        runs_.clear();
        size_ = 0;
    }
    /// Where character `i` (< size()) was.
    [[nodiscard]] conf_pos operator[](std::size_t i) const noexcept {
        const auto it = std::upper_bound(runs_.begin(), runs_.end(), i, [](std::size_t v, const run& r) { return v < r.index; });
        const run& r = *std::prev(it);
        return {r.line, r.column + (i - r.index)};
    }

private:
    struct run {
        std::size_t index, line, column; ///< first character of the run, and where it was
    };
    std::vector<run> runs_;
    std::size_t size_ = 0;
};

/// A logical line: comments removed, continuations joined, escapes resolved; `pos[i]` is
/// where `text[i]` was (one extra entry for the end of the line).
struct conf_line {
    std::string text;
    conf_positions pos;
};

/// Splits slurm.conf text into logical lines (see the file comment).
[[nodiscard]] inline std::vector<conf_line> conf_logical_lines(std::string_view text) {
    std::vector<conf_line> out;
    std::string raw;              // joined text before escape removal
    conf_positions raw_pos;
    auto finish = [&](conf_pos end) {
        conf_line line;
        for (std::size_t i = 0; i < raw.size(); ++i) {
            if (raw[i] == '\\') {
                ++i;
                if (i >= raw.size()) break;
            }
            line.text += raw[i];
            line.pos.push_back(raw_pos[i]);
        }
        line.pos.push_back(end);
        if (!trim(line.text).empty()) out.push_back(std::move(line));
        raw.clear();
        raw_pos.clear();
    };
    conf_pos last_end{};
    for_each_line(text, [&](const text_line& tl) {
        const std::string_view physical = tl.text;
        const std::size_t number = tl.number;
        // Comment: the first '#' preceded by an even number of backslashes.
        std::size_t len = physical.size();
        std::size_t backslashes = 0;
        for (std::size_t i = 0; i < physical.size(); ++i) {
            if (physical[i] == '#' && backslashes % 2 == 0) {
                len = i;
                break;
            }
            backslashes = (physical[i] == '\\') ? backslashes + 1 : 0;
        }
        std::string_view content = physical.substr(0, len);
        // Continuation: an odd number of trailing backslashes (blanks after them allowed).
        const std::string_view body = trim_right(content);
        std::size_t trailing = 0;
        while (trailing < body.size() && body[body.size() - 1 - trailing] == '\\') ++trailing;
        const bool continues = trailing % 2 == 1;
        if (continues) content = body.substr(0, body.size() - 1);
        for (std::size_t i = 0; i < content.size(); ++i) {
            raw += content[i];
            raw_pos.push_back({number, i + 1});
        }
        last_end = {number, content.size() + 1};
        if (!continues) finish(last_end);
        return true;
    });
    if (!raw.empty()) finish(last_end);
    return out;
}

/// One `Key=Value` pair found in a logical line (indices into conf_line::text).
struct conf_pair {
    std::string_view key;
    char op = 0; ///< '+', '-', '*', '/' before '=', or 0
    std::string_view value;
    std::size_t key_at = 0;
    std::size_t value_at = 0;
    std::size_t end = 0; ///< index just after the value
};

[[nodiscard]] constexpr bool is_key_char(char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_' ||
           c == '.';
}

/// Finds the next `Key[op]=Value` at or after `from` (Slurm's key/value regex); nullopt
/// when the text there is not such a pair.
[[nodiscard]] inline std::optional<conf_pair> next_pair(std::string_view s, std::size_t from) {
    std::size_t i = from;
    while (i < s.size() && is_space(s[i])) ++i;
    conf_pair p;
    p.key_at = i;
    while (i < s.size() && is_key_char(s[i])) ++i;
    if (i == p.key_at) return std::nullopt;
    p.key = s.substr(p.key_at, i - p.key_at);
    while (i < s.size() && is_space(s[i])) ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-' || s[i] == '*' || s[i] == '/')) {
        p.op = s[i];
        ++i;
    }
    if (i >= s.size() || s[i] != '=') return std::nullopt;
    ++i;
    while (i < s.size() && is_space(s[i])) ++i;
    if (i >= s.size()) return std::nullopt;
    if (s[i] == '"') {
        const std::size_t close = s.find('"', i + 1);
        if (close != std::string_view::npos && (close + 1 == s.size() || is_space(s[close + 1]))) {
            p.value_at = i + 1;
            p.value = s.substr(i + 1, close - i - 1);
            p.end = close + 1;
            return p;
        }
    }
    std::size_t j = i;
    while (j < s.size() && !is_space(s[j])) ++j;
    p.value_at = i;
    p.value = s.substr(i, j - i);
    p.end = j;
    return p;
}

/// Slurm's unsigned parsing (parse_value.c): strtoul base 0 (decimal, 0x hex, leading-0
/// octal), an optional leading '+', optionally a k/K suffix (x1024), UNLIMITED/INFINITE
/// as `unlimited_value` (when allowed), negative and too-large values refused. Returns the
/// value or an error message.
[[nodiscard]] inline expected<std::uint64_t> slurm_unsigned(std::string_view v, std::uint64_t max,
                                                            bool k_suffix,
                                                            std::optional<std::uint64_t> unlimited_value) {
    auto fail = [&](std::string why) { return make_error({}, 0, 0, {}, std::move(why)); };
    if (iequals(v, "UNLIMITED") || iequals(v, "INFINITE")) {
        if (unlimited_value) return *unlimited_value;
        return fail("UNLIMITED is not a valid value here");
    }
    if (!v.empty() && v.front() == '-')
        return fail("value " + quote(v) + " is less than zero");
    std::string_view s = v;
    if (!s.empty() && s.front() == '+') s.remove_prefix(1);
    std::uint64_t multiplier = 1;
    if (k_suffix && !s.empty() && (s.back() == 'k' || s.back() == 'K')) {
        multiplier = 1024;
        s.remove_suffix(1);
    }
    int base = 10;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s.remove_prefix(2);
    } else if (s.size() > 1 && s[0] == '0') {
        base = 8;
        s.remove_prefix(1);
    }
    std::uint64_t value = 0;
    const char* end = s.data() + s.size();
    const auto [ptr, ec] = s.empty() ? std::from_chars_result{s.data(), std::errc::invalid_argument}
                                     : std::from_chars(s.data(), end, value, base);
    if (ec == std::errc::result_out_of_range) return fail("value " + quote(v) + " is out of range");
    if (ec != std::errc{} || ptr != end) return fail("value " + quote(v) + " is not a valid number");
    if (value > max / multiplier)
        return fail("value " + quote(v) + " is greater than " + std::to_string(max));
    return value * multiplier;
}

/// Slurm's boolean values (yes/up/true/1, no/down/false/0; any case).
[[nodiscard]] inline std::optional<bool> slurm_bool(std::string_view v) noexcept {
    if (iequals(v, "yes") || iequals(v, "up") || iequals(v, "true") || v == "1") return true;
    if (iequals(v, "no") || iequals(v, "down") || iequals(v, "false") || v == "0") return false;
    return std::nullopt;
}

/// PriorityFlags from its text (see reference §1.3 and the file comment).
[[nodiscard]] inline slurm::priority_flags parse_priority_flags(std::string_view v) noexcept {
    slurm::priority_flags f; // FAIR_TREE only
    for (const priority_flag_word& w : priority_flag_table)
        if (icontains(v, w.word) && (w.unless.empty() || !icontains(v, w.unless))) f.bits = (f.bits | w.sets) & ~w.clears;
    return f;
}

/// Gres of a NodeName line: `name[:type][:count[K|M|G|T|P]][(...)]`, comma separated; the
/// count defaults to 1.
[[nodiscard]] inline expected<std::vector<std::pair<std::string, std::uint64_t>>> parse_gres(
    std::string_view v) {
    std::vector<std::pair<std::string, std::uint64_t>> out;
    std::size_t start = 0;
    // Split on commas outside parentheses.
    std::vector<std::pair<std::string_view, std::size_t>> items;
    int depth = 0;
    for (std::size_t i = 0; i <= v.size(); ++i) {
        if (i == v.size() || (v[i] == ',' && depth == 0)) {
            items.emplace_back(v.substr(start, i - start), start + 1);
            start = i + 1;
        } else if (v[i] == '(') {
            ++depth;
        } else if (v[i] == ')') {
            --depth;
        }
    }
    for (const auto& [raw, column] : items) {
        std::string_view item = trim(raw);
        if (const std::size_t paren = item.find('('); paren != std::string_view::npos)
            item = item.substr(0, paren);
        if (item.empty())
            return make_error({}, 0, column, {}, "empty Gres entry");
        std::string_view name = item;
        std::uint64_t count = 1;
        if (const std::size_t colon = item.rfind(':'); colon != std::string_view::npos) {
            std::string_view last = item.substr(colon + 1);
            if (!last.empty() && is_digit(last.front())) {
                std::uint64_t multiplier = 1;
                static constexpr std::string_view units = "kmgtp";
                if (const std::size_t u = units.find(to_lower(last.back()));
                    u != std::string_view::npos) {
                    for (std::size_t k = 0; k <= u; ++k) multiplier *= 1024;
                    last.remove_suffix(1);
                }
                const auto n = parse_unsigned<std::uint64_t>(last);
                if (!n || *n > std::numeric_limits<std::uint64_t>::max() / multiplier)
                    return make_error({}, 0, column, {},
                                      "Gres count in " + quote(item) + " is not a valid number");
                count = *n * multiplier;
                name = item.substr(0, colon);
            }
        }
        if (name.empty() || name.front() == ':' || name.back() == ':')
            return make_error({}, 0, column, {}, "Gres entry " + quote(item) + " has no name");
        out.emplace_back(std::string(name), count);
    }
    return out;
}

/// Node properties given on one NodeName line (or accumulated DEFAULT lines).
struct node_options {
    std::optional<std::uint64_t> cpus, boards, sockets, sockets_per_board, cores, threads;
    std::optional<std::uint64_t> real_memory;
    std::optional<std::vector<std::pair<std::string, std::uint64_t>>> gres;

    void merge_into(node_options& d) const {
        if (cpus) d.cpus = cpus;
        if (boards) d.boards = boards;
        if (sockets) d.sockets = sockets;
        if (sockets_per_board) d.sockets_per_board = sockets_per_board;
        if (cores) d.cores = cores;
        if (threads) d.threads = threads;
        if (real_memory) d.real_memory = real_memory;
        if (gres) d.gres = gres;
    }
};

/// Partition properties given on one PartitionName line (or DEFAULT lines).
struct partition_options {
    std::optional<std::uint16_t> job_factor, tier, priority;
    std::optional<std::uint32_t> max_time;
    std::optional<std::pair<std::vector<tres_weight>, std::string>> billing;
    std::optional<bool> is_default;
    std::optional<std::string> nodes;
    std::string nodes_file;
    conf_pos nodes_at;

    void merge_into(partition_options& d) const {
        if (job_factor) d.job_factor = job_factor;
        if (tier) d.tier = tier;
        if (priority) d.priority = priority;
        if (max_time) d.max_time = max_time;
        if (billing) d.billing = billing;
        if (is_default) d.is_default = is_default;
        if (nodes) {
            d.nodes = nodes;
            d.nodes_file = nodes_file;
            d.nodes_at = nodes_at;
        }
    }
};

/// A partition waiting for its node names to be resolved (after all NodeName lines).
struct pending_partition {
    partition_def def;
    partition_options options;
};

/// The state of one slurm.conf read (all files of an Include tree).
class conf_reader {
public:
    [[nodiscard]] expected<slurm_conf> run(std::string_view text, std::string_view file_name,
                                           const std::filesystem::path& base_dir) {
        std::error_code ec;
        const auto id = std::filesystem::weakly_canonical(std::filesystem::path(file_name), ec);
        std::vector<std::string> stack{ec ? std::string(file_name) : id.string()};
        if (auto r = parse_file(text, file_name, base_dir, stack); !r) return r.error();
        return finish();
    }

    /// Reads one more text into the same configuration (keys of later texts override
    /// earlier ones; nodes and partitions add up). Call `done()` after the last one.
    [[nodiscard]] expected<bool> add(std::string_view text, std::string_view file_name,
                                     const std::filesystem::path& base_dir) {
        std::vector<std::string> stack{std::string(file_name)};
        return parse_file(text, file_name, base_dir, stack);
    }
    /// The configuration of every text given to `add`.
    [[nodiscard]] expected<slurm_conf> done() { return finish(); }
    /// Partitions read from `file_name` are what slurmctld printed, not a configuration
    /// Slurm would refuse: a node they name that no input defines (a FUTURE node that
    /// `scontrol show node` leaves out without --future) is a warning, not an error.
    void printed_partitions(std::string_view file_name) { printed_partition_files_.emplace(file_name); }

private:
    slurm_conf conf_;
    bool reset_seen_ = false;
    std::string half_life_file_;
    conf_pos half_life_at_{};
    node_options node_defaults_;
    partition_options partition_defaults_;
    std::vector<pending_partition> partitions_;
    std::unordered_set<std::string> partition_names_; ///< names of `partitions_`
    std::unordered_map<std::string, std::uint32_t> node_index_;
    std::unordered_set<std::string> printed_partition_files_; ///< see printed_partitions

    static constexpr std::size_t max_include_depth = 64;

    [[nodiscard]] static input_error at(std::string_view file, conf_pos p, std::string_view key,
                                        std::string message) {
        return make_error(file, p.line, p.column, key, std::move(message));
    }
    /// An error from a helper (message + optional column inside `value`) placed at the value.
    [[nodiscard]] static input_error at_value(std::string_view file, const conf_line& line,
                                              const conf_pair& p, const input_error& e) {
        std::size_t index = p.value_at;
        if (e.column > 0) index = std::min(p.value_at + e.column - 1, line.pos.size() - 1);
        return at(file, line.pos[index], p.key, e.message);
    }

    [[nodiscard]] expected<bool> parse_file(std::string_view text, std::string_view file,
                                            const std::filesystem::path& dir,
                                            std::vector<std::string>& stack) {
        for (const conf_line& line : conf_logical_lines(text)) {
            const std::string_view s = line.text;
            const std::size_t first = s.size() - trim_left(s).size();
            const std::string_view rest = s.substr(first);
            if (istarts_with(rest, "include") && rest.size() > 7 && is_space(rest[7])) {
                if (auto r = include(line, first, file, dir, stack); !r) return r.error();
                continue;
            }
            const auto pair = next_pair(s, 0);
            if (!pair) {
                if (iequals(trim(rest), "include"))
                    return at(file, line.pos[first], "Include", "Include needs a file name");
                return at(file, line.pos[first], {},
                          "expected Key=Value, found " + quote(trim(rest)));
            }
            if (pair->op != 0 && is_used_key(pair->key))
                return at(file, line.pos[pair->key_at], pair->key,
                          std::string("operator '") + pair->op + "=' is not supported");
            if (iequals(pair->key, "Include"))
                return at(file, line.pos[pair->key_at], "Include",
                          "Include takes a path after a space (Include path), not '='");
            if (is_key(pair->key, slurm_conf_setting::node_name)) {
                if (auto r = node_line(line, *pair, file); !r) return r.error();
                continue;
            }
            if (is_key(pair->key, slurm_conf_setting::partition_name)) {
                if (auto r = partition_line(line, *pair, file); !r) return r.error();
                continue;
            }
            if (!is_used_key(pair->key)) continue; // unknown key: ignore the whole line
            const std::size_t after = pair->end + (s.size() - pair->end -
                                                   trim_left(s.substr(pair->end)).size());
            if (after < s.size())
                return at(file, line.pos[after], pair->key,
                          "unexpected text " + quote(s.substr(after)) +
                              " after the value (one Key=Value per line)");
            if (auto r = simple_key(line, *pair, file); !r) return r.error();
        }
        return true;
    }

    [[nodiscard]] expected<bool> include(const conf_line& line, std::size_t first,
                                         std::string_view file, const std::filesystem::path& dir,
                                         std::vector<std::string>& stack) {
        const std::string_view s = line.text;
        std::size_t i = first + 7;
        while (i < s.size() && is_space(s[i])) ++i;
        const std::size_t path_at = i;
        while (i < s.size() && !is_space(s[i])) ++i;
        std::string target(s.substr(path_at, i - path_at));
        const std::size_t after = i + (s.size() - i - trim_left(s.substr(i)).size());
        if (target.empty())
            return at(file, line.pos[path_at], "Include", "Include needs a file name");
        if (after < s.size())
            return at(file, line.pos[after], "Include",
                      "unexpected text " + quote(s.substr(after)) + " after the Include path");
        for (std::size_t p = target.find("%c"); p != std::string::npos; p = target.find("%c", p)) {
            if (conf_.cluster_name.empty())
                return at(file, line.pos[path_at], "Include",
                          "Include path uses %c but no ClusterName was set before it");
            const std::string lower = to_lower(conf_.cluster_name);
            target.replace(p, 2, lower);
            p += lower.size();
        }
        std::filesystem::path path(target);
        if (path.is_relative()) path = dir / path;
        const std::string path_name = path.lexically_normal().string();
        std::error_code ec;
        auto canonical = std::filesystem::weakly_canonical(path, ec);
        const std::string id = ec ? path_name : canonical.string();
        if (std::find(stack.begin(), stack.end(), id) != stack.end())
            return at(file, line.pos[path_at], "Include",
                      "Include cycle: " + quote(path_name) + " is already being read");
        if (stack.size() >= max_include_depth)
            return at(file, line.pos[path_at], "Include", "Include nesting is too deep");
        auto content = read_text_file(path_name);
        if (!content)
            return at(file, line.pos[path_at], "Include",
                      "cannot open included file " + quote(path_name));
        stack.push_back(id);
        auto r = parse_file(*content, path_name, path.parent_path(), stack);
        stack.pop_back();
        return r;
    }

    [[nodiscard]] static bool is_used_key(std::string_view key) noexcept {
        const slurm_conf_key* k = find_slurm_conf_key(key);
        return k != nullptr && k->read;
    }

    [[nodiscard]] expected<bool> simple_key(const conf_line& line, const conf_pair& p,
                                            std::string_view file) {
        const std::string_view key = p.key;
        const std::string_view v = p.value;
        auto bad = [&](const input_error& e) { return at_value(file, line, p, e); };
        auto message = [&](std::string m) { return at(file, line.pos[p.value_at], key, std::move(m)); };
        if (v.empty()) return message("empty value");

        auto weight = [&](std::uint32_t& out) -> expected<bool> {
            auto n = slurm_unsigned(v, 0xFFFFFFFFull, true, 0xFFFFFFFFull);
            if (!n) return bad(n.error());
            out = static_cast<std::uint32_t>(*n);
            return true;
        };
        // Time keys: minutes (rounded up) * 60; UNLIMITED as Slurm stores it.
        auto time_key = [&](std::int64_t& out) -> expected<bool> {
            auto d = parse_slurm_time(v);
            if (!d) return bad(d.error());
            if (d->unlimited) out = std::int64_t{0xFFFFFFFFu} - 59; // (u32)(INFINITE * 60)
            else out = std::int64_t{d->minutes()} * 60;
            return true;
        };

        const slurm_conf_key* known = find_slurm_conf_key(key);
        if (known == nullptr || !known->read) return true;
        switch (known->setting) {
        case slurm_conf_setting::type: conf_.priority_type = std::string(v); break;
        case slurm_conf_setting::decay_half_life:
            if (auto r = time_key(conf_.decay_half_life); !r) return r;
            half_life_file_ = std::string(file);
            half_life_at_ = line.pos[p.key_at];
            break;
        case slurm_conf_setting::max_age:
            if (auto r = time_key(conf_.max_age); !r) return r;
            break;
        case slurm_conf_setting::calc_period: {
            auto d = parse_slurm_time(v);
            if (!d) return bad(d.error());
            if (d->unlimited || d->minutes() < 1)
                return message(std::string(known->name) + " must be at least one minute, not " + quote(v));
            conf_.calc_period = std::int64_t{d->minutes()} * 60;
            break;
        }
        case slurm_conf_setting::usage_reset_period: {
            static constexpr std::pair<std::string_view, usage_reset_period> names[] = {
                {"NONE", usage_reset_period::none},       {"NOW", usage_reset_period::now},
                {"DAILY", usage_reset_period::daily},     {"WEEKLY", usage_reset_period::weekly},
                {"MONTHLY", usage_reset_period::monthly}, {"QUARTERLY", usage_reset_period::quarterly},
                {"YEARLY", usage_reset_period::yearly}};
            bool found = false;
            for (const auto& [n, value] : names)
                if (iequals(v, n)) {
                    conf_.usage_reset = value;
                    found = true;
                }
            if (!found)
                return message("bad value " + quote(v) +
                               " (expected NONE, NOW, DAILY, WEEKLY, MONTHLY, QUARTERLY or YEARLY)");
            reset_seen_ = true;
            break;
        }
        case slurm_conf_setting::favor_small: {
            const auto b = slurm_bool(v);
            if (!b) return message(quote(v) + " is not a valid option (expected YES or NO)");
            conf_.favor_small = *b;
            break;
        }
        case slurm_conf_setting::weight_age: return weight(conf_.weight_age);
        case slurm_conf_setting::weight_assoc: return weight(conf_.weight_assoc);
        case slurm_conf_setting::weight_fairshare: return weight(conf_.weight_fairshare);
        case slurm_conf_setting::weight_job_size: return weight(conf_.weight_job_size);
        case slurm_conf_setting::weight_partition: return weight(conf_.weight_partition);
        case slurm_conf_setting::weight_qos: return weight(conf_.weight_qos);
        case slurm_conf_setting::weight_tres: {
            auto w = parse_tres_weights(v);
            if (!w) return bad(w.error());
            conf_.weight_tres = std::move(*w);
            conf_.weight_tres_text = std::string(v);
            break;
        }
        case slurm_conf_setting::flags:
            conf_.flags = parse_priority_flags(v);
            conf_.flags_text = std::string(v);
            break;
        case slurm_conf_setting::dampening: {
            auto n = slurm_unsigned(v, 0xFFFF, false, 0xFFFF);
            if (!n) return bad(n.error());
            if (*n == 0) return message(std::string(known->name) + " must be at least 1");
            conf_.fairshare_dampening = static_cast<std::uint16_t>(*n);
            break;
        }
        case slurm_conf_setting::accounting_storage_type: conf_.accounting_storage_type = std::string(v); break;
        case slurm_conf_setting::accounting_storage_enforce: conf_.accounting_storage_enforce = std::string(v); break;
        case slurm_conf_setting::cluster_name: conf_.cluster_name = std::string(v); break;
        default: break; // records (NodeName, PartitionName) and keys read elsewhere
        }
        return true;
    }

    /// Calls `f(pair)` for every pair after the first on a NodeName/PartitionName line.
    template <class F>
    [[nodiscard]] static expected<bool> for_each_option(const conf_line& line,
                                                        const conf_pair& first,
                                                        std::string_view file, F&& f) {
        const std::string_view s = line.text;
        std::size_t i = first.end;
        for (;;) {
            while (i < s.size() && is_space(s[i])) ++i;
            if (i >= s.size()) return true;
            const auto p = next_pair(s, i);
            if (!p)
                return at(file, line.pos[i], first.key,
                          "expected Key=Value, found " + quote(s.substr(i)));
            if (auto r = f(*p); !r) return r;
            i = p->end;
        }
    }

    [[nodiscard]] expected<bool> node_line(const conf_line& line, const conf_pair& first,
                                           std::string_view file) {
        node_options opt;
        auto r = for_each_option(line, first, file, [&](const conf_pair& p) -> expected<bool> {
            auto bad = [&](const input_error& e) { return at_value(file, line, p, e); };
            auto number = [&](std::optional<std::uint64_t>& out, std::uint64_t max,
                              bool zero_ok) -> expected<bool> {
                auto n = slurm_unsigned(p.value, max, false, std::nullopt);
                if (!n) return bad(n.error());
                if (*n == 0 && !zero_ok) return at(file, line.pos[p.value_at], p.key,
                                                   "must be at least 1");
                out = *n;
                return true;
            };
            // CPUTot is how `scontrol show node` prints the configured CPUs.
            if (iequals(p.key, "CPUs") || iequals(p.key, "Procs") || iequals(p.key, "CPUTot"))
                return number(opt.cpus, 0xFFFF, false);
            if (iequals(p.key, "Boards")) return number(opt.boards, 0xFFFF, false);
            if (iequals(p.key, "Sockets")) return number(opt.sockets, 0xFFFF, false);
            if (iequals(p.key, "SocketsPerBoard")) return number(opt.sockets_per_board, 0xFFFF, false);
            if (iequals(p.key, "CoresPerSocket")) return number(opt.cores, 0xFFFF, false);
            if (iequals(p.key, "ThreadsPerCore")) return number(opt.threads, 0xFFFF, false);
            if (iequals(p.key, "RealMemory"))
                return number(opt.real_memory, std::numeric_limits<std::uint64_t>::max(), true);
            if (iequals(p.key, "Gres")) {
                auto g = parse_gres(p.value);
                if (!g) return bad(g.error());
                opt.gres = std::move(*g);
            }
            return true; // other node keys are not used by mfprio
        });
        if (!r) return r;

        if (iequals(first.value, "DEFAULT")) {
            opt.merge_into(node_defaults_);
            return true;
        }
        node_options eff = node_defaults_;
        opt.merge_into(eff);
        const std::uint64_t sockets = eff.sockets_per_board
                                          ? eff.boards.value_or(1) * *eff.sockets_per_board
                                          : eff.boards.value_or(1) * eff.sockets.value_or(1);
        const std::uint64_t cpus =
            eff.cpus ? *eff.cpus : sockets * eff.cores.value_or(1) * eff.threads.value_or(1);
        if (cpus > 0xFFFF)
            return at(file, line.pos[first.value_at], "CPUs",
                      "Boards*Sockets*CoresPerSocket*ThreadsPerCore = " + std::to_string(cpus) +
                          " is more than Slurm's 65535 CPUs per node");
        const std::size_t room = slurm_conf_max_nodes - conf_.nodes.size();
        auto hosts = expand_hostlist(first.value, room);
        if (!hosts) {
            if (hosts.error().kind == error_kind::limit)
                return at(file, line.pos[first.value_at], key_name(slurm_conf_setting::node_name),
                          "the NodeName lines define more than " + std::to_string(slurm_conf_max_nodes) +
                              " nodes, the most mfprio reads");
            return at_value(file, line, first, hosts.error());
        }
        if (hosts->empty())
            return at(file, line.pos[first.value_at], key_name(slurm_conf_setting::node_name), "no node name");
        for (auto& h : *hosts) {
            if (node_index_.count(h) != 0)
                return at(file, line.pos[first.value_at], key_name(slurm_conf_setting::node_name),
                          "node " + quote(h) + " is defined twice");
            node_index_.emplace(h, static_cast<std::uint32_t>(conf_.nodes.size()));
            node_def n;
            n.name = std::move(h);
            n.cpus = static_cast<std::uint32_t>(cpus);
            n.real_memory = eff.real_memory.value_or(1);
            if (eff.gres) n.gres = *eff.gres;
            conf_.nodes.push_back(std::move(n));
        }
        return true;
    }

    [[nodiscard]] expected<bool> partition_line(const conf_line& line, const conf_pair& first,
                                                std::string_view file) {
        partition_options opt;
        auto r = for_each_option(line, first, file, [&](const conf_pair& p) -> expected<bool> {
            auto bad = [&](const input_error& e) { return at_value(file, line, p, e); };
            auto message = [&](std::string m) {
                return at(file, line.pos[p.value_at], p.key, std::move(m));
            };
            auto factor = [&](std::optional<std::uint16_t>& out, std::uint64_t max) -> expected<bool> {
                auto n = slurm_unsigned(p.value, 0xFFFF, false, 0xFFFF);
                if (!n) return bad(n.error());
                if (*n > max)
                    return message("value " + quote(p.value) + " is greater than " +
                                   std::to_string(max));
                out = static_cast<std::uint16_t>(*n);
                return true;
            };
            if (is_key(p.key, slurm_conf_setting::job_factor)) return factor(opt.job_factor, max_priority_job_factor);
            if (is_key(p.key, slurm_conf_setting::tier)) return factor(opt.tier, max_priority_tier);
            if (iequals(p.key, "Priority")) return factor(opt.priority, max_priority_job_factor);
            if (iequals(p.key, "MaxTime")) {
                auto d = parse_slurm_time(p.value);
                if (!d) return bad(d.error());
                opt.max_time = d->minutes();
            } else if (iequals(p.key, "TRESBillingWeights")) {
                auto w = parse_tres_weights(p.value);
                if (!w) return bad(w.error());
                opt.billing.emplace(std::move(*w), std::string(p.value));
            } else if (iequals(p.key, "Default")) {
                const auto b = slurm_bool(p.value);
                if (!b) return message(quote(p.value) + " is not a valid option (expected YES or NO)");
                opt.is_default = *b;
            } else if (iequals(p.key, "Nodes")) {
                opt.nodes = std::string(p.value);
                opt.nodes_file = std::string(file);
                opt.nodes_at = line.pos[p.value_at];
            }
            return true; // other partition keys are not used by mfprio
        });
        if (!r) return r;

        if (iequals(first.value, "DEFAULT")) {
            opt.merge_into(partition_defaults_);
            return true;
        }
        if (partitions_.size() == slurm_conf_max_partitions)
            return at(file, line.pos[first.value_at], key_name(slurm_conf_setting::partition_name),
                      "more than " + std::to_string(slurm_conf_max_partitions) +
                          " partitions, the most mfprio reads (jobs keep 16-bit partition indices)");
        if (!partition_names_.insert(std::string(first.value)).second)
            return at(file, line.pos[first.value_at], key_name(slurm_conf_setting::partition_name),
                      "partition " + quote(first.value) + " is defined twice");
        partition_options eff = partition_defaults_;
        opt.merge_into(eff);
        pending_partition part;
        part.def.name = std::string(first.value);
        part.def.priority_job_factor = eff.job_factor.value_or(1);
        part.def.priority_tier = eff.tier.value_or(1);
        if (eff.priority) { // old synonym: sets both
            part.def.priority_job_factor = *eff.priority;
            part.def.priority_tier = *eff.priority;
        }
        part.def.max_time = eff.max_time.value_or(infinite32);
        if (eff.billing) {
            part.def.billing_weights = eff.billing->first;
            part.def.billing_weights_text = eff.billing->second;
        }
        part.def.is_default = eff.is_default.value_or(false);
        part.options = std::move(eff);
        partitions_.push_back(std::move(part));
        return true;
    }

    [[nodiscard]] expected<slurm_conf> finish() {
        // Nodes of each partition (node lines may come after partition lines), at most
        // slurm_conf_max_partition_nodes in all.
        std::size_t members = 0;
        for (auto& part : partitions_) {
            const auto& o = part.options;
            if (!o.nodes) continue;
            const std::string too_many = "the partitions list more than " +
                                         std::to_string(slurm_conf_max_partition_nodes) +
                                         " nodes in all, the most mfprio reads";
            std::vector<std::uint32_t> nodes;
            if (iequals(*o.nodes, "ALL")) {
                if (conf_.nodes.size() > slurm_conf_max_partition_nodes - members)
                    return at(o.nodes_file, o.nodes_at, "Nodes", too_many);
                for (std::uint32_t i = 0; i < conf_.nodes.size(); ++i) nodes.push_back(i);
            } else {
                auto hosts = expand_hostlist(*o.nodes, slurm_conf_max_partition_nodes - members);
                if (!hosts && hosts.error().kind == error_kind::limit)
                    return at(o.nodes_file, o.nodes_at, "Nodes", too_many);
                if (!hosts) {
                    conf_pos p = o.nodes_at;
                    if (hosts.error().column > 0) p.column += hosts.error().column - 1;
                    return at(o.nodes_file, p, "Nodes", hosts.error().message);
                }
                for (const auto& h : *hosts) {
                    const auto it = node_index_.find(h);
                    if (it == node_index_.end()) {
                        if (printed_partition_files_.contains(o.nodes_file)) {
                            conf_.warnings.push_back(
                                at(o.nodes_file, o.nodes_at, "Nodes",
                                   "partition " + quote(part.def.name) + ": node " + quote(h) +
                                       " is in no node input (a FUTURE node: `scontrol --future show node` lists "
                                       "it); left out of the partition and of the cluster's totals")
                                    .to_string());
                            continue;
                        }
                        return at(o.nodes_file, o.nodes_at, "Nodes",
                                  "partition " + quote(part.def.name) + ": node " + quote(h) +
                                      " is not defined by any NodeName line");
                    }
                    nodes.push_back(it->second);
                }
                std::sort(nodes.begin(), nodes.end());
                nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
            }
            members += nodes.size();
            part.def.nodes = std::move(nodes);
        }
        // Several Default=YES: the last one wins (Slurm changes the default partition).
        std::size_t defaults = 0;
        for (std::size_t i = partitions_.size(); i-- > 0;)
            if (partitions_[i].def.is_default && defaults++ > 0) partitions_[i].def.is_default = false;
        for (auto& part : partitions_) conf_.partitions.push_back(std::move(part.def));

        if (conf_.decay_half_life == 0 && !reset_seen_)
            return at(half_life_file_, half_life_at_, key_name(slurm_conf_setting::decay_half_life),
                      "PriorityDecayHalfLife=0 (no decay) needs a PriorityUsageResetPeriod, "
                      "or usage would grow forever (Slurm refuses this configuration)");
        return std::move(conf_);
    }
};

} // namespace detail

/// A word of a PriorityFlags value that is no flag. slurmctld looks for each flag's name
/// anywhere in the value, so such a word is ignored (a typo such as NO_FAIR_TRE silently
/// leaves Fair Tree on) unless a flag's name is inside it (XNO_FAIR_TREE sets NO_FAIR_TREE).
struct unknown_flag_word {
    std::string_view word;
    bool ignored = true; ///< no flag's name inside it

    /// "'WORD' is no flag: Slurm ignores it" or "... Slurm reads the flag names inside it".
    [[nodiscard]] std::string describe() const {
        std::string out = "'";
        out.append(word.substr(0, 100));
        out += "' is no flag: Slurm ";
        out += ignored ? "ignores it" : "reads the flag names inside it";
        return out;
    }
};

/// The words of a PriorityFlags value that are no flag, in order: callers warn.
[[nodiscard]] inline std::vector<unknown_flag_word> unknown_priority_flags(std::string_view v) {
    std::vector<unknown_flag_word> out;
    for (const auto word : split(v, ',')) {
        const std::string_view w = trim(word);
        if (w.empty()) continue;
        bool known = false;
        for (const auto k : priority_flag_words) known = known || iequals(k, w);
        if (!known) out.push_back({w, detail::parse_priority_flags(w) == slurm::priority_flags{}});
    }
    return out;
}

/// Parses slurm.conf text. `file_name` names the text in errors; relative Include paths
/// are resolved against `base_dir` (the current directory when empty).
[[nodiscard]] inline expected<slurm_conf> parse_slurm_conf(std::string_view text,
                                                           std::string_view file_name = "slurm.conf",
                                                           std::string_view base_dir = {}) {
    detail::conf_reader reader;
    return reader.run(text, file_name, std::filesystem::path(base_dir));
}

/// Reads and parses the slurm.conf file at `path` (Include paths relative to its
/// directory); "cannot open file" if unreadable.
[[nodiscard]] inline expected<slurm_conf> read_slurm_conf(const std::string& path) {
    auto text = read_text_file(path);
    if (!text) return text.error();
    detail::conf_reader reader;
    return reader.run(*text, path, std::filesystem::path(path).parent_path());
}

} // namespace mfprio::config
