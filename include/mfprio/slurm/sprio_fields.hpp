#pragma once
/// \file
/// sprio's fields: one row per letter of `sprio -o`, saying the header sprio prints above
/// it, what the value is (and the factor and weight behind it), the width and justification
/// of its default formats, what `-S` sorts by, and the first Slurm release whose sprio knows
/// the letter. The printer and its format parser (report/sprio.hpp), `-S`, the sprio listing
/// reader (config/sprio_listing.hpp) and the tool's help read this table; none of them names
/// a letter of its own.
///
/// Sources: src/sprio/opts.c's format letters (22.05: `_parse_format`'s chain; 24.05 and
/// later: `fmt_data`), src/sprio/print.c's headers and values, src/sprio/sort.c's sort keys,
/// src/sprio/sprio.c's default formats; 26.05.3's for the newest release.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <mfprio/core/constant_text.hpp>
#include <mfprio/slurm/multifactor.hpp>

namespace mfprio::slurm {

/// What a sprio field prints.
enum class sprio_value : unsigned char {
    job_id,        ///< the job id
    partition,     ///< the row's partition
    user,          ///< the job's user name
    account,       ///< the job's account
    qos_name,      ///< the job's QOS
    cluster,       ///< the cluster's name
    sluid,         ///< the job's SLUID (mfprio has none: blank)
    priority,      ///< the weighted sum, an integer
    priority_norm, ///< the sum over 2^32 - 1, 14 decimals
    factor,        ///< one weighted factor, an integer
    factor_norm,   ///< one factor over its weight, 7 decimals
    site,          ///< the site factor, as is
    nice,          ///< the nice value
    tres,          ///< the weighted TRES factors, name=value
    tres_norm,     ///< the TRES factors over their weights, name=value
};

/// What `sprio -S` sorts a letter by (`none`: not a sort key; sprio refuses it).
enum class sprio_sort_key : unsigned char { none, cluster, job_id, nice, qos_name, account, partition, user, factor, tres, priority };

/// How a field is justified in sprio's default formats.
enum class sprio_justify : unsigned char {
    right,  ///< "%.W": always
    left,   ///< "%W": always
    values, ///< right in the weighted formats, left in the normalized ones (`-n`)
};

/// One letter of `sprio -o`.
struct sprio_field_row {
    char letter;
    std::string_view header;
    sprio_value value;
    double weighted_factors::*factor = nullptr; ///< factor and factor_norm: the factor
    std::uint32_t weights::*weight = nullptr;   ///< factor and factor_norm: its weight (what -w prints)
    int width = 10;                             ///< its width in sprio's default formats
    sprio_justify justify = sprio_justify::values;
    sprio_sort_key sort = sprio_sort_key::none;
    int since = 0;      ///< the first release whose sprio -o knows it (0: every release mfprio imitates)
    int sort_since = 0; ///< the first release whose sprio -S knows it
    std::string_view meaning = {}; ///< what it shows, for the tool's help
};

/// Every letter sprio's -o knows, in sprio's own order (opts.c).
inline constexpr sprio_field_row sprio_fields[] = {
    {.letter = 'a', .header = "AGE", .value = sprio_value::factor_norm, .factor = &weighted_factors::age,
     .weight = &weights::age, .sort = sprio_sort_key::factor, .meaning = "age, normalized"},
    {.letter = 'A', .header = "AGE", .value = sprio_value::factor, .factor = &weighted_factors::age,
     .weight = &weights::age, .sort = sprio_sort_key::factor, .meaning = "age, weighted"},
    {.letter = 'b', .header = "ASSOC", .value = sprio_value::factor_norm, .factor = &weighted_factors::assoc,
     .weight = &weights::assoc, .meaning = "association, normalized"},
    {.letter = 'B', .header = "ASSOC", .value = sprio_value::factor, .factor = &weighted_factors::assoc,
     .weight = &weights::assoc, .meaning = "association, weighted"},
    {.letter = 'c', .header = "CLUSTER", .value = sprio_value::cluster, .sort = sprio_sort_key::cluster,
     .meaning = "cluster name"},
    {.letter = 'f', .header = "FAIRSHARE", .value = sprio_value::factor_norm, .factor = &weighted_factors::fairshare,
     .weight = &weights::fairshare, .sort = sprio_sort_key::factor, .meaning = "fair-share, normalized"},
    {.letter = 'F', .header = "FAIRSHARE", .value = sprio_value::factor, .factor = &weighted_factors::fairshare,
     .weight = &weights::fairshare, .sort = sprio_sort_key::factor, .meaning = "fair-share, weighted"},
    {.letter = 'i', .header = "JOBID", .value = sprio_value::job_id, .width = 15, .justify = sprio_justify::right,
     .sort = sprio_sort_key::job_id, .meaning = "job id"},
    {.letter = 'j', .header = "JOBSIZE", .value = sprio_value::factor_norm, .factor = &weighted_factors::job_size,
     .weight = &weights::job_size, .sort = sprio_sort_key::factor, .meaning = "job size, normalized"},
    {.letter = 'J', .header = "JOBSIZE", .value = sprio_value::factor, .factor = &weighted_factors::job_size,
     .weight = &weights::job_size, .sort = sprio_sort_key::factor, .meaning = "job size, weighted"},
    {.letter = 'n', .header = "QOSNAME", .value = sprio_value::qos_name, .sort = sprio_sort_key::qos_name, .since = 2302,
     .sort_since = 2302, .meaning = "QOS name"},
    {.letter = 'N', .header = "NICE", .value = sprio_value::nice, .width = 11, .justify = sprio_justify::right,
     .sort = sprio_sort_key::nice, .meaning = "nice"},
    {.letter = 'o', .header = "ACCOUNT", .value = sprio_value::account, .width = 8, .justify = sprio_justify::right,
     .sort = sprio_sort_key::account, .since = 2302, .sort_since = 2302, .meaning = "account"},
    {.letter = 'p', .header = "PARTITION", .value = sprio_value::factor_norm, .factor = &weighted_factors::part,
     .weight = &weights::partition, .sort = sprio_sort_key::factor, .meaning = "partition, normalized"},
    {.letter = 'P', .header = "PARTITION", .value = sprio_value::factor, .factor = &weighted_factors::part,
     .weight = &weights::partition, .sort = sprio_sort_key::factor, .meaning = "partition, weighted"},
    {.letter = 'r', .header = "PARTITION", .value = sprio_value::partition, .width = 9, .justify = sprio_justify::left,
     .sort = sprio_sort_key::partition, .meaning = "partition name"},
    {.letter = 'S', .header = "SITE", .value = sprio_value::site, .meaning = "site factor"},
    {.letter = 'q', .header = "QOS", .value = sprio_value::factor_norm, .factor = &weighted_factors::qos_term,
     .weight = &weights::qos, .sort = sprio_sort_key::factor, .meaning = "QOS, normalized"},
    {.letter = 'Q', .header = "QOS", .value = sprio_value::factor, .factor = &weighted_factors::qos_term,
     .weight = &weights::qos, .sort = sprio_sort_key::factor, .meaning = "QOS, weighted"},
    {.letter = 's', .header = "SLUID", .value = sprio_value::sluid, .since = 2605, .meaning = "SLUID (blank)"},
    {.letter = 'u', .header = "USER", .value = sprio_value::user, .width = 8, .justify = sprio_justify::right,
     .sort = sprio_sort_key::user, .meaning = "user"},
    {.letter = 'y', .header = "PRIORITY", .value = sprio_value::priority_norm, .sort = sprio_sort_key::priority,
     .meaning = "priority, normalized"},
    {.letter = 'Y', .header = "PRIORITY", .value = sprio_value::priority, .sort = sprio_sort_key::priority,
     .meaning = "priority"},
    {.letter = 't', .header = "TRES", .value = sprio_value::tres_norm, .width = 20, .sort = sprio_sort_key::tres,
     .meaning = "TRES, normalized"},
    {.letter = 'T', .header = "TRES", .value = sprio_value::tres, .width = 20, .sort = sprio_sort_key::tres,
     .meaning = "TRES, weighted"},
};

namespace detail {
/// Each ASCII letter's index in sprio_fields (size: none), for a lookup per printed cell.
inline constexpr auto sprio_field_index = [] {
    std::array<std::uint8_t, 128> index{};
    index.fill(static_cast<std::uint8_t>(std::size(sprio_fields)));
    for (std::size_t i = 0; i < std::size(sprio_fields); ++i)
        index[static_cast<unsigned char>(sprio_fields[i].letter)] = static_cast<std::uint8_t>(i);
    return index;
}();
static_assert(std::size(sprio_fields) < 255 && [] {
    for (const auto& r : sprio_fields)
        if (static_cast<unsigned char>(r.letter) >= 128) return false;
    return true;
}());
} // namespace detail

/// The row of `letter`, or nullptr when sprio has no such field.
[[nodiscard]] constexpr const sprio_field_row* sprio_field(char letter) noexcept {
    const auto u = static_cast<unsigned char>(letter);
    if (u >= detail::sprio_field_index.size()) return nullptr;
    const std::size_t i = detail::sprio_field_index[u];
    return i < std::size(sprio_fields) ? &sprio_fields[i] : nullptr;
}

/// The row of `letter` when the sprio of `release` (major*100+minor; 0: the newest) knows
/// it in -o, else nullptr.
[[nodiscard]] constexpr const sprio_field_row* sprio_field(char letter, int release) noexcept {
    const sprio_field_row* r = sprio_field(letter);
    return r != nullptr && (release == 0 || release >= r->since) ? r : nullptr;
}

/// True when the sprio of `release` takes `letter` as an -S key.
[[nodiscard]] constexpr bool sprio_sorts_by(char letter, int release) noexcept {
    const sprio_field_row* r = sprio_field(letter);
    return r != nullptr && r->sort != sprio_sort_key::none && (release == 0 || release >= r->sort_since);
}

/// The letters of the newest sprio, a normalized field and its weighted twin together
/// ("a/A b/B c ..."); with `sort_keys`, only those -S takes.
[[nodiscard]] constexpr constant_text<96> sprio_letters_text(bool sort_keys) {
    constant_text<96> t;
    for (const sprio_field_row& r : sprio_fields) {
        if (sort_keys && r.sort == sprio_sort_key::none) continue;
        const bool twin = r.value == sprio_value::factor || r.value == sprio_value::priority || r.value == sprio_value::tres;
        if (twin) t.add("/");
        else if (t.size > 0) t.add(" ");
        t.add(std::string_view(&r.letter, 1));
    }
    return t;
}

/// What the tool's help says of -o and -S.
inline constexpr auto sprio_format_help = [] {
    constant_text<192> t;
    t.add("output format, e.g. \"%.15i %9r %.10Y %.10F\"; fields:\n");
    t.add(sprio_letters_text(false).view());
    return t;
}();
inline constexpr auto sprio_sort_help = [] {
    constant_text<192> t;
    t.add("sort keys (default i): ");
    t.add(sprio_letters_text(true).view());
    t.add(";\n'-' before a key sorts it descending");
    return t;
}();

static_assert([] {
    for (std::size_t i = 0; i < std::size(sprio_fields); ++i)
        for (std::size_t k = i + 1; k < std::size(sprio_fields); ++k)
            if (sprio_fields[i].letter == sprio_fields[k].letter) return false;
    return true;
}(), "sprio_fields names each letter once");

} // namespace mfprio::slurm
