#pragma once
/// \file
/// What Slurm's `sprio` prints, from an mfprio Slurm engine: the rows (one per job x
/// partition x QOS entry, weighted factors per entry), the format language `%[.][size]type`
/// with Slurm's own justification rule (a leading `.` right-justifies, no dot
/// left-justifies and cuts at the width), the default formats chosen by the non-zero
/// weights, `-l`, `-n`, `-w`, `-o`, `-h`, the `-j/-u/-p` filters, `-S` sort keys, and a
/// plain-language `--explain` of one job.

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <mfprio/text/text.hpp>
#include <mfprio/core/assert.hpp>
#include <mfprio/core/job.hpp>
#include <mfprio/slurm/cluster.hpp>
#include <mfprio/slurm/flags.hpp>
#include <mfprio/slurm/multifactor.hpp>
#include <mfprio/slurm/release.hpp>
#include <mfprio/slurm/sprio_fields.hpp>
#include <mfprio/read/slurm_keys.hpp>

namespace mfprio::report {

/// One weighted TRES of a row, as sprio's %T/%t show it.
struct sprio_tres {
    std::string name;   ///< e.g. "cpu", "mem", "gres/gpu"
    double weighted = 0; ///< factor x weight
    double weight = 0;   ///< the PriorityWeightTRES weight
};

/// One sprio row: a job's (partition, QOS) entry with weighted factors.
struct sprio_row {
    std::uint32_t job_id = 0;
    /// The job's place in slurmctld's job list (config::job_list_places), which orders rows
    /// before sprio's sort keys; sprio_rows sets the job id, set_list_places the place.
    std::uint32_t place = 0;
    std::string partition, user, account, qos;
    std::uint32_t direct_priority = 0; ///< administrator-set priority (factors print 0)
    slurm::weighted_factors factors{};
    std::vector<sprio_tres> tres;      ///< weighted TRES with a non-zero value, in TRES id order
    std::int64_t site = 0, nice = 0;

    /// sprio's client-side PRIORITY: age + assoc + fs + js + part + qos + site - nice, then
    /// each non-zero weighted TRES in turn, floored at 1, no upper clamp, no INCR_ONLY; the
    /// set priority for direct-set jobs.
    [[nodiscard]] double priority() const noexcept {
        if (direct_priority > 0) return static_cast<double>(direct_priority);
        const auto& f = factors;
        double p = f.age + f.assoc + f.fairshare + f.job_size + f.part + f.qos_term +
                   static_cast<double>(site) - static_cast<double>(nice);
        for (const auto& t : tres) p += t.weighted;
        if (p < 1) p = 1;
        return p;
    }
};

/// The weights sprio knows (from slurm.conf).
struct sprio_weights {
    slurm::weights w{};
    std::string tres_text; ///< PriorityWeightTRES as written (empty = unset)
};

/// Which jobs sprio lists (`_foreach_priority_factor_job`): pending jobs (running and
/// suspended ones too under CALCULATE_RUNNING) whose start of accrual (submit time under
/// ACCRUE_ALWAYS, else the eligible time) is set and not in the future, that are not held
/// and that have a partition.
/// `begin`, when given, is the time the job became eligible (Slurm's begin time, or the
/// submit time under ACCRUE_ALWAYS); without it the job's accrue time stands for it.
/// `listed_at` is when sprio asks (its own clock, not the recalculation's); without it, the
/// context's time.
template <class J>
[[nodiscard]] bool listed_by_sprio(const J& j, const slurm::context& c, slurm::priority_flags flags,
                                   std::optional<std::int64_t> begin = std::nullopt,
                                   std::optional<std::int64_t> listed_at = std::nullopt) {
    if (!slurm::recalculated_periodically(j, flags)) return false;
    if (job_traits<J>::state(j) == job_state::held) return false;
    const std::int64_t use = begin ? *begin
        : flags.has(slurm::priority_flag::accrue_always)
        ? static_cast<std::int64_t>(job_traits<J>::submit_time(j))
        : static_cast<std::int64_t>(job_traits<J>::accrue_time(j));
    if (use == 0 || use > listed_at.value_or(c.now)) return false;
    return c.partition(static_cast<std::uint32_t>(job_traits<J>::partition(j))) != nullptr;
}

/// No record partition known for a job (`sprio_rows`' `record_partitions`).
inline constexpr std::uint32_t no_record_partition = 0xffffffffu;

/// Builds sprio's rows for `jobs`: one per (partition, QOS) entry of each listed job, in the
/// job's partition-then-QOS order. `lists[k]` holds the partition and QOS lists of `jobs[k]`
/// (empty `lists`: no job has any). `user_names` maps job user ids to names. `begin_times`,
/// when not empty, holds each job's begin time for the listing test (see `listed_by_sprio`),
/// and `listed_at` when sprio asks (default: the context's time).
///
/// A job with an administrator-set priority is one row per partition: that priority and
/// every factor 0. Before Slurm 23.02 (`slurm_release`, slurm::release_change::
/// sprio_rows_per_partition) a multi-partition job's rows carry the factors slurmctld cleared
/// instead (`_filter_job` copies them and fills in each partition's term): the partition term
/// alone, SITE and NICE at their cleared value minus NICE_OFFSET (-2147483648), and the
/// partition term as the priority.
///
/// `record_partitions`, when not empty, holds for each job the partition its job record
/// points at (slurmctld's `part_ptr`; `no_record_partition` for none), and asks for the
/// rows of a job in several partitions as slurmctld builds them: each copies the job's weighted
/// TRES factors of that partition and recomputes only those the row's partition has some of,
/// then weights them all again, so a TRES the row's partition has none of (GPUs in a
/// partition without) shows the record partition's weighted factor times its weight once
/// more (priority_multifactor.c `_get_tres_factors`, called by 22.05's `_filter_job` and by
/// `_create_prio_list_qos` from 23.02; seen on 22.05.8 and 26.05.3).
template <slurm::slurm_engine E>
[[nodiscard]] std::vector<sprio_row> sprio_rows(const E& e, const slurm::cluster& cl, std::span<const job> jobs,
                                                std::span<const slurm::job_lists> lists, const slurm::context& c,
                                                slurm::priority_flags flags, std::span<const std::string> user_names,
                                                std::span<const std::int64_t> begin_times = {},
                                                std::optional<std::int64_t> listed_at = std::nullopt,
                                                std::span<const std::uint32_t> record_partitions = {},
                                                int slurm_release = 0) {
    MFPRIO_ASSERT(lists.empty() || lists.size() == jobs.size());
    const bool cleared_rows = !slurm::has(slurm_release, slurm::release_change::sprio_rows_per_partition);
    std::vector<sprio_row> rows;
    const auto& tres = e.template term_of<slurm::tres_factor>().factor;
    for (std::size_t k = 0; k < jobs.size(); ++k) {
        const job& j = jobs[k];
        if (!listed_by_sprio(j, c, flags,
                             k < begin_times.size() ? std::optional<std::int64_t>(begin_times[k]) : std::nullopt,
                             listed_at))
            continue;
        const slurm::job_lists l = k < lists.size() ? lists[k] : slurm::job_lists{};
        const auto parts = l.partitions;
        const auto qos = l.qos;
        const std::size_t np = parts.empty() ? 1 : parts.size();
        const std::size_t nq = qos.empty() ? 1 : qos.size();
        // 22.05: the weighted TRES factors of the record's partition, which a row of another
        // partition keeps where it has none of a TRES (see above).
        std::vector<double> record_tres;
        if (np > 1 && k < record_partitions.size() && record_partitions[k] != no_record_partition &&
            tres.count != 0 && tres.normalize && j.admin_priority == 0)
            tres.each(j, record_partitions[k], c, [&](const slurm::tres_weight_entry&, double, double weighted) {
                record_tres.push_back(weighted);
            });
        for (std::size_t pi = 0; pi < np; ++pi) {
            const std::uint32_t p = parts.empty() ? j.partition : parts[pi];
            for (std::size_t qi = 0; qi < nq; ++qi) {
                const std::uint32_t q = qos.empty() ? j.qos : qos[qi];
                sprio_row r;
                r.job_id = j.id;
                r.place = j.id;
                r.partition = p < cl.partition_names().size() ? cl.partition_names()[p] : std::string();
                r.qos = q < cl.qos_names().size() ? cl.qos_names()[q] : std::string();
                r.user = j.user < user_names.size() ? user_names[j.user] : std::to_string(j.user);
                r.account = j.association < cl.assoc_accounts().size() ? cl.assoc_accounts()[j.association] : std::string();
                r.direct_priority = j.admin_priority;
                r.site = j.site_factor;
                r.nice = j.nice;
                if (j.admin_priority != 0 && parts.size() > 1 && cleared_rows) {
                    constexpr std::int64_t cleared = -2147483648LL; // 0 - NICE_OFFSET
                    r.direct_priority = 0;
                    r.site = cleared;
                    r.nice = cleared;
                    r.factors.partition = p;
                    r.factors.qos = q;
                    r.factors.part = slurm::breakdown(e, j, c, p, q).part;
                } else if (j.admin_priority == 0) {
                    r.factors = slurm::breakdown(e, j, c, p, q);
                    std::size_t entry = 0;
                    if (tres.count != 0)
                        tres.each(j, p, c, [&](const slurm::tres_weight_entry& te, double, double weighted) {
                            if (weighted == 0.0 && entry < record_tres.size()) weighted = record_tres[entry] * te.weight;
                            ++entry;
                            if (weighted != 0.0)
                                r.tres.push_back({te.id < cl.tres_names().size() ? cl.tres_names()[te.id] : "?",
                                                  weighted, te.weight});
                        });
                }
                rows.push_back(std::move(r));
            }
        }
    }
    return rows;
}

/// sprio's rows for jobs without partition or QOS lists.
template <slurm::slurm_engine E>
[[nodiscard]] std::vector<sprio_row> sprio_rows(const E& e, const slurm::cluster& cl, std::span<const job> jobs,
                                                const slurm::context& c, slurm::priority_flags flags,
                                                std::span<const std::string> user_names) {
    return sprio_rows(e, cl, jobs, std::span<const slurm::job_lists>{}, c, flags, user_names);
}

/// Gives `rows` (sprio_rows of `jobs`, in their order) the places of `places`, one per job
/// (config::slurm_model::list_places); rows of jobs past its end keep their job id.
inline void set_list_places(std::span<sprio_row> rows, std::span<const job> jobs,
                            std::span<const std::uint32_t> places) noexcept {
    std::size_t k = 0;
    for (sprio_row& r : rows) {
        while (k < jobs.size() && jobs[k].id != r.job_id) ++k;
        if (k >= jobs.size()) return;
        if (k < places.size()) r.place = places[k];
    }
}

/// sprio's command-line choices.
struct sprio_options {
    bool long_list = false;   ///< -l
    bool normalized = false;  ///< -n
    bool weights = false;     ///< -w
    bool no_header = false;   ///< -h
    std::string format;       ///< -o (empty: the default format)
    std::string sort = "i";   ///< -S
    std::vector<std::uint32_t> jobs;       ///< -j
    std::vector<std::string> users;        ///< -u
    std::vector<std::string> partitions;   ///< -p
    /// The Slurm release whose sprio to imitate, as major*100+minor (2205 for 22.05);
    /// 0 means the newest. Before 23.02, `-l` has no ACCOUNT and QOSNAME columns and `-n`
    /// prints a fixed-priority job's factors as 0.0000000.
    int slurm_version = 0;
};

/// True when `o` asks for the layout of Slurm releases before 23.02.
[[nodiscard]] inline bool sprio_before_2302(const sprio_options& o) noexcept {
    return !slurm::has(o.slurm_version, slurm::release_change::sprio_long_columns);
}

/// One field of a parsed format: its type letter, width, justification and the literal
/// text that follows it. The type '\0' is the leading literal text.
struct sprio_field {
    char type = '\0';
    int width = 0;
    bool right = false;
    std::string suffix;
};

/// The format sprio prints `letters` in by default: each field at its width and
/// justification (slurm::sprio_fields), separated by a space.
[[nodiscard]] inline std::string sprio_format_of(std::string_view letters, bool normalized) {
    std::string f;
    for (const char c : letters) {
        const slurm::sprio_field_row* r = slurm::sprio_field(c);
        MFPRIO_ASSERT(r != nullptr);
        const bool right = r->justify == slurm::sprio_justify::right ||
                           (r->justify == slurm::sprio_justify::values && !normalized);
        if (!f.empty()) f += ' ';
        f += right ? "%." : "%";
        f += std::to_string(r->width);
        f += c;
    }
    return f;
}

/// The default format sprio chooses (sprio.c): short forms include only the factors whose
/// weight is non-zero (TRES when PriorityWeightTRES is set).
[[nodiscard]] inline std::string sprio_default_format(const sprio_options& o, const sprio_weights& w) {
    const bool old = sprio_before_2302(o);
    if (o.long_list && o.normalized) return sprio_format_of(old ? "iruyabfjpqt" : "iruoyabfjpnqt", true);
    if (o.long_list) return sprio_format_of(old ? "iruYSABFJPQNT" : "iruoYSABFJPnQNT", false);
    std::string letters = "ir";
    if (!o.users.empty()) letters += "u";
    letters += o.normalized ? "y" : "YS";
    // The factors with a weight, in sprio's order, then TRES when PriorityWeightTRES is set.
    const auto kind = o.normalized ? slurm::sprio_value::factor_norm : slurm::sprio_value::factor;
    for (const slurm::sprio_field_row& r : slurm::sprio_fields)
        if (r.value == kind && w.w.*(r.weight) != 0) letters += r.letter;
    const auto tres = o.normalized ? slurm::sprio_value::tres_norm : slurm::sprio_value::tres;
    for (const slurm::sprio_field_row& r : slurm::sprio_fields)
        if (r.value == tres && !w.tres_text.empty()) letters += r.letter;
    return sprio_format_of(letters, o.normalized);
}

/// Parses a sprio format. A field of a letter the sprio of `slurm_version` (0: the newest)
/// does not know (slurm::sprio_fields) is left out with its suffix, as sprio does
/// (`_parse_format`: it logs "Invalid job format specification: X" and goes on): the message
/// is added to `warnings` when given, else it is the error. Returns an error sentence for a
/// width above 4096 or a line wider than `text::max_format_line`.
[[nodiscard]] inline std::optional<std::string> parse_sprio_format(std::string_view fmt, std::vector<sprio_field>& out,
                                                                   std::vector<std::string>* warnings = nullptr,
                                                                   int slurm_version = 0) {
    out.clear();
    std::size_t i = 0;
    sprio_field lead;
    while (i < fmt.size() && fmt[i] != '%') lead.suffix += fmt[i++];
    if (!lead.suffix.empty()) out.push_back(lead);
    while (i < fmt.size()) {
        while (i < fmt.size() && fmt[i] == '%') ++i; // '%' (several in a row are one, as strtok reads them)
        if (i >= fmt.size()) break;
        sprio_field f;
        if (i < fmt.size() && fmt[i] == '.') {
            f.right = true;
            ++i;
        }
        while (i < fmt.size() && fmt[i] >= '0' && fmt[i] <= '9') {
            f.width = f.width * 10 + (fmt[i] - '0');
            if (f.width > 4096) return std::string("field width too large in format \"") + std::string(fmt) + '"';
            ++i;
        }
        if (i >= fmt.size()) return std::string("format ends in the middle of a field: \"") + std::string(fmt) + '"';
        f.type = fmt[i++];
        while (i < fmt.size() && fmt[i] != '%') f.suffix += fmt[i++];
        if (slurm::sprio_field(f.type, slurm_version) == nullptr) {
            std::string message = std::string("Invalid job format specification: ") + f.type;
            if (warnings == nullptr) return message;
            warnings->push_back(std::move(message));
            continue;
        }
        out.push_back(std::move(f));
    }
    // Each field bounded, and the line too: thousands of wide fields would print gigabytes.
    std::size_t line = 0;
    for (const auto& f : out) line += static_cast<std::size_t>(f.width) + f.suffix.size();
    if (line > text::max_format_line) {
        out.clear();
        return "the fields' widths add up to " + std::to_string(line) + " characters, more than " +
               std::to_string(text::max_format_line) + " a line";
    }
    return std::nullopt;
}

namespace detail {

/// Slurm's `_print_str` with cut_output: right-justified "%*s" then cut to the width;
/// left-justified "%.*s" (cut) then padded; width 0 prints as is.
inline void put_str(std::string& out, std::string_view s, int width, bool right) {
    if (width <= 0) {
        out += s;
        return;
    }
    const auto w = static_cast<std::size_t>(width);
    if (right) {
        // "%*s" then cut to the width: the padding, then as much of the text as fits.
        const std::size_t pad = s.size() < w ? w - s.size() : 0;
        out.append(pad, ' ');
        out += s.substr(0, w - pad);
    } else {
        const std::string_view cut = s.substr(0, std::min(s.size(), w));
        out += cut;
        out.append(w - cut.size(), ' ');
    }
}

/// A double as printf's `%.<precision>f` prints it in the C locale (std::to_chars with a
/// precision is specified to give the same characters; snprintf for what it does not cover).
struct fixed_text {
    char buf[400];
    std::size_t size = 0;
    fixed_text(double v, int precision) {
        if (precision == 0 && std::fabs(v) < 0x1p52) {
            // Whole numbers, most of what sprio prints: a double below 2^52 rounded to the
            // nearest integer, ties to even (the default rounding mode; an exact tie is a true
            // tie), is what %.0f prints; -0 keeps its sign as printf's does.
            const double r = std::nearbyint(v);
            char* p = buf;
            if (r == 0 && std::signbit(r)) *p++ = '-';
            p = std::to_chars(p, buf + sizeof buf, static_cast<long long>(r)).ptr;
            size = static_cast<std::size_t>(p - buf);
            return;
        }
        if (std::isfinite(v)) {
            const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, precision);
            if (r.ec == std::errc()) {
                size = static_cast<std::size_t>(r.ptr - buf);
                return;
            }
        }
        const int n = std::snprintf(buf, sizeof buf, "%.*f", precision, v);
        size = n < 0 ? 0 : std::min(static_cast<std::size_t>(n), sizeof buf - 1);
    }
    [[nodiscard]] std::string_view view() const noexcept { return {buf, size}; }
};

inline std::string fmt_double(const char* f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

inline void put_int(std::string& out, double v, int width, bool right) { put_str(out, fixed_text(v, 0).view(), width, right); }
inline void put_norm(std::string& out, double v, int width, bool right) { put_str(out, fixed_text(v, 7).view(), width, right); }

inline void put_header(std::string& out, const sprio_field& f) {
    const slurm::sprio_field_row* r = slurm::sprio_field(f.type);
    put_str(out, r != nullptr ? r->header : std::string_view{}, f.width, f.right);
}

/// `-w`: the weights of the factors' fields (the site factor's is 1), "Weights" under the job
/// id, PriorityWeightTRES as written under the weighted TRES, the cluster's name.
inline void put_weights(std::string& out, const sprio_field& f, const sprio_weights& w, std::string_view cluster) {
    using slurm::sprio_value;
    const slurm::sprio_field_row* r = slurm::sprio_field(f.type);
    switch (r != nullptr ? r->value : sprio_value::sluid) {
    case sprio_value::factor:
    case sprio_value::factor_norm: put_int(out, w.w.*(r->weight), f.width, f.right); break;
    case sprio_value::site: put_int(out, 1, f.width, f.right); break;
    case sprio_value::job_id: put_str(out, "Weights", f.width, f.right); break;
    case sprio_value::tres: put_str(out, w.tres_text, f.width, f.right); break;
    case sprio_value::cluster: put_str(out, cluster, f.width, f.right); break;
    default: put_str(out, "", f.width, f.right); break;
    }
}

/// `zero_norm_direct`: print a fixed-priority job's normalized factors as 0.0000000 (Slurm
/// before 23.02 sent them as zeros and printed them like any factor).
inline void put_value(std::string& out, const sprio_field& f, const sprio_row& r, const sprio_weights& w,
                      std::string_view cluster, bool zero_norm_direct = false) {
    using slurm::sprio_value;
    const bool direct = r.direct_priority > 0;
    const slurm::sprio_field_row* field = slurm::sprio_field(f.type);
    const auto weighted = [&](double v) { put_int(out, direct ? 0.0 : v, f.width, f.right); };
    switch (field != nullptr ? field->value : sprio_value::sluid) {
    case sprio_value::factor: weighted(r.factors.*(field->factor)); break;
    case sprio_value::factor_norm: {
        const std::uint32_t weight = w.w.*(field->weight);
        if (direct && zero_norm_direct) put_norm(out, 0.0, f.width, f.right);
        else if (direct) put_int(out, 0.0, f.width, f.right);
        else put_norm(out, weight ? r.factors.*(field->factor) / weight : 0.0, f.width, f.right);
        break;
    }
    case sprio_value::site: weighted(static_cast<double>(r.site)); break;
    case sprio_value::nice: weighted(static_cast<double>(r.nice)); break;
    case sprio_value::cluster: put_str(out, cluster, f.width, f.right); break;
    case sprio_value::job_id: put_str(out, std::to_string(r.job_id), f.width, f.right); break;
    case sprio_value::qos_name: put_str(out, r.qos, f.width, f.right); break;
    case sprio_value::account: put_str(out, r.account, f.width, f.right); break;
    case sprio_value::partition: put_str(out, r.partition, f.width, f.right); break;
    case sprio_value::sluid: put_str(out, "", f.width, f.right); break;
    case sprio_value::user: put_str(out, r.user, f.width, f.right); break;
    case sprio_value::priority: put_str(out, std::to_string(static_cast<long long>(r.priority())), f.width, f.right); break;
    case sprio_value::priority_norm:
        put_str(out, fmt_double("%16.14f", direct ? r.priority() : r.priority() / 4294967295.0), f.width, f.right);
        break;
    case sprio_value::tres:
    case sprio_value::tres_norm: {
        const bool norm = field->value == sprio_value::tres_norm;
        std::string s;
        if (!direct)
            for (const auto& t : r.tres) {
                if (!s.empty()) s += ',';
                s += t.name;
                s += '=';
                s += fixed_text(norm ? t.weighted / t.weight : t.weighted, norm ? 2 : 0).view();
            }
        put_str(out, s, f.width, f.right);
        break;
    }
    }
}

inline int compare_double(double a, double b) {
    const double d = a - b;
    if (d > -1e-6 && d < 1e-6) return 0; // Slurm's fuzzy_equal
    return a < b ? -1 : 1;
}

} // namespace detail

/// The outcome of rendering: the text, or an error sentence for a bad format or sort key.
struct sprio_output {
    std::string text;
    std::string error; ///< non-empty on a usage error
    std::vector<std::string> warnings; ///< what sprio logs and goes on from (an -o field it does not know)
};

/// Renders sprio's output for `rows` (already built by `sprio_rows`).
[[nodiscard]] inline sprio_output render_sprio(std::span<const sprio_row> rows, const sprio_weights& w,
                                               const sprio_options& o, std::string_view cluster = {}) {
    sprio_output res;
    std::vector<sprio_field> fields;
    const std::string fmt = o.format.empty() ? sprio_default_format(o, w) : o.format;
    if (auto err = parse_sprio_format(fmt, fields, &res.warnings, o.slurm_version)) {
        res.error = *err;
        return res;
    }
    // Filters (-j, -u, -p): the controller filters by job id, user and partition entry.
    const auto listed = [&](const sprio_row& r) {
        if (!o.jobs.empty() && std::find(o.jobs.begin(), o.jobs.end(), r.job_id) == o.jobs.end()) return false;
        if (!o.users.empty() && std::find(o.users.begin(), o.users.end(), r.user) == o.users.end()) return false;
        if (!o.partitions.empty() && std::find(o.partitions.begin(), o.partitions.end(), r.partition) == o.partitions.end())
            return false;
        return true;
    };
    std::vector<std::uint32_t> order; // the rows listed, by index
    order.reserve(rows.size());
    for (std::uint32_t i = 0; i < rows.size(); ++i)
        if (listed(rows[i])) order.push_back(i);
    const auto line = [&](auto&& put) {
        for (const auto& f : fields) {
            if (f.type != '\0') put(f);
            res.text += f.suffix;
        }
        res.text += '\n';
    };
    if (!o.weights && !o.jobs.empty() && order.empty()) {
        res.text = "Unable to find jobs matching user/id(s) specified\n";
        return res;
    }
    if (!o.no_header) line([&](const sprio_field& f) { detail::put_header(res.text, f); });
    if (o.weights) {
        line([&](const sprio_field& f) { detail::put_weights(res.text, f, w, cluster); });
        return res;
    }
    // -S: keys applied from the last to the first, each a stable sort; '-' descends. The rows
    // stay where they are: their order is sorted. Before the keys, the order slurmctld sends
    // them in: it walks its job list, where each job was appended when created
    // (priority_multifactor.c's priority_p_get_priority_factors_list, job_mgr.c
    // _create_job_record), a job's partitions in turn; sprio's sorts (list_sort: glibc's
    // qsort, a merge sort) keep that order among rows of equal keys. Each row's `place`
    // stands for the list's order (config::job_list_places: job id order but for array
    // tasks split off).
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return rows[a].place < rows[b].place; });
    for (std::size_t k = o.sort.size(); k-- > 0;) {
        const char c = o.sort[k];
        if (c == ',' || c == '-' || c == '+') continue;
        const bool desc = k > 0 && o.sort[k - 1] == '-';
        if (!slurm::sprio_sorts_by(c, o.slurm_version)) {
            res.text.clear();
            res.error = std::string("Invalid sort specification: ") + c;
            return res;
        }
        const auto cmp = [field = slurm::sprio_field(c)](const sprio_row& a, const sprio_row& b) {
            using slurm::sprio_sort_key;
            const auto three_way = [](const auto& x, const auto& y) { return x < y ? -1 : y < x ? 1 : 0; };
            switch (field->sort) {
            case sprio_sort_key::job_id: return three_way(a.job_id, b.job_id);
            case sprio_sort_key::nice: return three_way(a.nice, b.nice);
            case sprio_sort_key::qos_name: return a.qos.compare(b.qos);
            case sprio_sort_key::account: return a.account.compare(b.account);
            case sprio_sort_key::partition: return a.partition.compare(b.partition);
            case sprio_sort_key::user: return a.user.compare(b.user);
            case sprio_sort_key::factor: return detail::compare_double(a.factors.*(field->factor), b.factors.*(field->factor));
            case sprio_sort_key::tres: {
                double x = 0, y = 0;
                for (const auto& t : a.tres) x += t.weighted;
                for (const auto& t : b.tres) y += t.weighted;
                return detail::compare_double(x, y);
            }
            case sprio_sort_key::priority: return detail::compare_double(a.priority(), b.priority());
            case sprio_sort_key::cluster: // one cluster: every row's the same
            case sprio_sort_key::none: return 0;
            }
            return 0;
        };
        std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
            const int v = cmp(rows[a], rows[b]);
            return desc ? v > 0 : v < 0;
        });
    }
    // Every line about as long as the header: one allocation for the whole text.
    res.text.reserve(res.text.size() + (res.text.size() + 16) * (order.size() + 1));
    for (const std::uint32_t i : order)
        line([&](const sprio_field& f) { detail::put_value(res.text, f, rows[i], w, cluster, sprio_before_2302(o)); });
    return res;
}

/// A plain-language breakdown of one sprio row: each factor's raw value, weight, weighted
/// contribution, share of the total, and the slurm.conf parameter behind it.
[[nodiscard]] inline std::string render_explain(const sprio_row& r, const sprio_weights& w) {
    std::string out;
    char buf[256];
    std::snprintf(buf, sizeof buf, "Job %u in partition %s with QOS %s (user %s, account %s)\n", r.job_id,
                  r.partition.c_str(), r.qos.c_str(), r.user.c_str(), r.account.c_str());
    out += buf;
    const double total = r.priority();
    if (r.direct_priority > 0) {
        std::snprintf(buf, sizeof buf,
                      "  Priority %u was set by an administrator (scontrol update priority=N): no factor applies.\n",
                      r.direct_priority);
        return out + buf;
    }
    out += "  factor          raw value x     weight = contribution   share  set by\n";
    const auto line = [&](const char* name, double weighted, double weight, const std::string& param) {
        const double raw = weight != 0 ? weighted / weight : 0.0;
        const double share = total != 0 ? 100.0 * weighted / total : 0.0;
        std::snprintf(buf, sizeof buf, "  %-13s %11.7g x %10.6g = %12.2f  %5.1f%%  %s\n", name, raw, weight, weighted,
                      share + 0.0, param.c_str());
        out += buf;
    };
    using config::slurm_conf_setting;
    const auto key = [](slurm_conf_setting s) { return std::string(config::key_name(s)); };
    const auto& f = r.factors;
    line("age", f.age, w.w.age, key(slurm_conf_setting::weight_age) + ", " + key(slurm_conf_setting::max_age));
    line("assoc", f.assoc, w.w.assoc, key(slurm_conf_setting::weight_assoc) + ", association Priority");
    line("fairshare", f.fairshare, w.w.fairshare, key(slurm_conf_setting::weight_fairshare) + " (sshare FairShare)");
    line("jobsize", f.job_size, w.w.job_size,
         key(slurm_conf_setting::weight_job_size) + ", " + key(slurm_conf_setting::favor_small));
    line("partition", f.part, w.w.partition,
         key(slurm_conf_setting::weight_partition) + ", partition " + key(slurm_conf_setting::job_factor));
    line("qos", f.qos_term, w.w.qos, key(slurm_conf_setting::weight_qos) + ", QOS Priority");
    for (const auto& t : r.tres) {
        const std::string label = "tres " + t.name;
        line(label.c_str(), t.weighted, t.weight, key(slurm_conf_setting::weight_tres) + ", partition TRES totals");
    }
    // Negate the integer, not the double: a nice of 0 must print as 0.00, not -0.00.
    const double site = static_cast<double>(r.site), minus_nice = static_cast<double>(-r.nice);
    std::snprintf(buf, sizeof buf, "  %-13s %11s   %10s   %12.2f  %5.1f%%  %s\n", "site", "", "", site,
                  total != 0 ? 100.0 * site / total + 0.0 : 0.0, "scontrol update sitefactor=N (added as is)");
    out += buf;
    std::snprintf(buf, sizeof buf, "  %-13s %11s   %10s   %12.2f  %5.1f%%  %s\n", "nice", "", "", minus_nice,
                  total != 0 ? 100.0 * minus_nice / total + 0.0 : 0.0, "sbatch --nice (subtracted)");
    out += buf;
    const double raw_sum = f.scalar_sum();
    std::snprintf(buf, sizeof buf, "  total %.2f -> priority %lld", raw_sum, static_cast<long long>(total));
    out += buf;
    if (raw_sum < 1) out += " (raised to 1: priority 0 is reserved for held jobs)";
    if (total > 4294967295.0)
        out += " (above 2^32-1: slurmctld clamps the job's priority to 4294967295; sprio shows the sum)";
    out += "\n";
    return out;
}

} // namespace mfprio::report
