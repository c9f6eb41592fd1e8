#pragma once
/// \file
/// Maui's `diagnose -p` table: how much each priority component contributes to each idle
/// job's priority.
///
/// Layout (columns sized to their widest cell, separated by two spaces):
/// - the line `diagnosing job priority information (partition: ALL)` and a blank line;
/// - a header: `Job`, `PRIORITY*`, then one column per component in use, headed by its name
///   and the short names of its subcomponents in use, e.g. `Serv(QTime:XFctr)`;
/// - a weights row: `Weights`, `--------`, then each component's weight with its
///   subcomponents' weights in parentheses, `1(1:10)`;
/// - one row per job, highest priority first (ties: earlier submission, then lower job id):
///   the job id, its priority, then per component `PERCENT(VALUE:VALUE...)`: the component's
///   share of the job's weighted sum in percent (Maui's "percentage contribution"), and the
///   raw value of each subcomponent in use;
/// - a totals row `Percent Contribution`: each component's and subcomponent's share of the
///   sum of all listed jobs' weighted sums.
/// A component is in use when its weight is not 0 and one of its subcomponents is; a
/// subcomponent when its weight is not 0, or (QUEUETIME, XFACTOR) a QOS adds QTWEIGHT or
/// XFWEIGHT, or (CLASS) a group sets CLASSWEIGHT. USAGE is shown for running jobs only
/// (`running`), whose rows give the run priority (`RUNPRIO*`).
/// A priority that is not the plain truncated sum is marked: `f` floored at 1, `c` at the
/// 1e9 ceiling, `s` system priority (setspri), `r` relative system priority, `!` negative
/// and rejected (REJECTNEGPRIOJOBS); a legend follows the table when any mark is used.
/// Percentages and values print with one and two decimals ("%.1f", "%.2f").

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <mfprio/maui/context.hpp>
#include <mfprio/maui/job.hpp>
#include <mfprio/maui/model.hpp>
#include <mfprio/maui/priority.hpp>

namespace mfprio::report {

/// Short column names of the subcomponents (`maui::subcomponent` order).
inline constexpr std::array<std::string_view, maui::subcomponent_count> diagnose_labels{
    "QTime", "XFctr", "SPVio", "Bypas", "TQTim", "TXFct", "User",  "Group", "Accnt", "QOS",   "Class",
    "AAttr", "AStat", "User",  "Group", "Accnt", "QOS",   "Class", "Node",  "Proc",  "Mem",   "Swap",
    "Disk",  "PS",    "PE",    "WTime", "UProc", "UJob",  "Cons",  "ExTim", "Rem",   "Pct"};

/// One job's breakdown by component.
struct diagnose_row {
    std::uint32_t job_id = 0;
    std::int64_t submit_time = 0;
    maui::priority_value priority{};  ///< start priority (or, for running rows, the start priority used)
    double run_priority = 0;          ///< running rows: the run priority
    double score = 0;                 ///< the weighted sum the percentages are shares of
    std::array<double, maui::component_count> contribution{};   ///< CW x cap(CF)
    std::array<double, maui::subcomponent_count> value{};       ///< raw subfactors
    std::array<double, maui::subcomponent_count> weighted{};    ///< CW x SW x cap(SF)
};

namespace detail {
template <std::size_t I>
inline void diagnose_component(const maui::maui_engine& e, const maui::job& j, const maui::context& c,
                               diagnose_row& row) {
    const auto& t = e.get<I>();
    const auto x = t.factor.explain(j, c);
    const double cw = t.weight.as_double();
    const std::size_t first = maui::index(maui::components[I].first);
    for (std::size_t s = 0; s < x.subterms.size(); ++s) {
        row.value[first + s] = x.subterms[s].factor;
        row.weighted[first + s] = cw * x.subterms[s].contribution;
    }
    row.contribution[I] = cw == 0 ? 0.0 : x.value * cw;
}
template <std::size_t... I>
inline void diagnose_components(const maui::maui_engine& e, const maui::job& j, const maui::context& c,
                                diagnose_row& row, std::index_sequence<I...>) {
    (diagnose_component<I>(e, j, c, row), ...);
}
} // namespace detail

/// Rows for the idle (pending) jobs, or with `running` for the running jobs (run priority,
/// with `weights` and `opts` as configured), in start order.
[[nodiscard]] inline std::vector<diagnose_row> diagnose_rows(const maui::weights& weights, const maui::options& opts,
                                                             std::span<const maui::job> jobs, const maui::context& c,
                                                             bool running = false) {
    // For running rows the USAGE component is weighted as in the run priority.
    maui::options start_opts = opts;
    const auto start = maui::make_maui_engine(weights, start_opts);
    start_opts.usage_in_start_priority = true;
    const auto with_usage = maui::make_maui_engine(weights, start_opts);
    std::vector<diagnose_row> rows;
    for (const auto& j : jobs) {
        const bool is_running = j.state == job_state::running;
        if (is_running != running || (!running && j.state != job_state::pending)) continue;
        diagnose_row r;
        r.job_id = j.id;
        r.submit_time = j.submit_time;
        r.priority = start.priority(j, c);
        detail::diagnose_components(running ? with_usage : start, j, c, r,
                                    std::make_index_sequence<maui::component_count>{});
        if (running) {
            r.run_priority = maui::run_priority(weights, opts, j, c, r.priority.value);
            r.score = start.score(j, c) + r.contribution[maui::index(maui::component_id::usage)];
        } else {
            r.score = start.score(j, c);
        }
        rows.push_back(r);
    }
    std::stable_sort(rows.begin(), rows.end(), [running](const diagnose_row& a, const diagnose_row& b) {
        const double pa = running ? a.run_priority : static_cast<double>(a.priority.value);
        const double pb = running ? b.run_priority : static_cast<double>(b.priority.value);
        if (pa != pb) return pa > pb;
        if (a.submit_time != b.submit_time) return a.submit_time < b.submit_time;
        return a.job_id < b.job_id;
    });
    return rows;
}

namespace detail {
inline std::string diag_fmt(const char* f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    std::string s = buf;
    // A value that rounds to zero prints without a sign ("-0.0" would read as negative).
    if (s.front() == '-' && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
    return s;
}
inline char priority_mark(maui::priority_status s) {
    switch (s) {
    case maui::priority_status::computed: return ' ';
    case maui::priority_status::floored: return 'f';
    case maui::priority_status::ceiling: return 'c';
    case maui::priority_status::system_absolute: return 's';
    case maui::priority_status::system_relative: return 'r';
    case maui::priority_status::negative_rejected: return '!';
    }
    return '?';
}
} // namespace detail

/// Which components and subcomponents the table shows (see the file comment).
struct diagnose_columns {
    std::array<bool, maui::component_count> component{};
    std::array<bool, maui::subcomponent_count> sub{};
};

/// The columns in use for `weights` and the credentials of `c`.
[[nodiscard]] inline diagnose_columns diagnose_columns_for(const maui::weights& w, const maui::context& c,
                                                           bool running) {
    diagnose_columns cols;
    for (std::size_t s = 0; s < maui::subcomponent_count; ++s) cols.sub[s] = w.sub_weight[s] != 0;
    if (!c.opts.res_user_terms) { // not weighted (`maui::options::res_user_terms`)
        cols.sub[maui::index(maui::subcomponent::uproc)] = false;
        cols.sub[maui::index(maui::subcomponent::ujob)] = false;
    }
    for (const auto& q : c.creds[maui::index(maui::cred_kind::qos)]) {
        if (q.qt_weight != 0) cols.sub[maui::index(maui::subcomponent::queuetime)] = true;
        if (q.xf_weight != 0) cols.sub[maui::index(maui::subcomponent::xfactor)] = true;
    }
    for (const auto& g : c.creds[maui::index(maui::cred_kind::group)])
        if (g.class_weight > 0) cols.sub[maui::index(maui::subcomponent::job_class)] = true;
    for (std::size_t k = 0; k < maui::component_count; ++k) {
        const auto& info = maui::components[k];
        bool any = false;
        for (std::size_t s = 0; s < info.count; ++s) any = any || cols.sub[maui::index(info.first) + s];
        cols.component[k] = any && w.component_weight[k] != 0;
        if (k == maui::index(maui::component_id::usage) && !running) cols.component[k] = false;
    }
    return cols;
}

/// Renders the table (see the file comment).
[[nodiscard]] inline std::string render_diagnose(std::span<const diagnose_row> rows, const maui::weights& w,
                                                 const diagnose_columns& cols, bool running = false) {
    using std::string;
    // Cells: [row][column], column 0 = job, 1 = priority, then one per shown component,
    // whose cell is split into the percent and the parts inside the parentheses so that
    // each part can be aligned.
    struct comp_cells {
        string lead;                    // percent, weight or name
        std::vector<string> parts;      // one per shown subcomponent
    };
    std::vector<std::size_t> shown;
    for (std::size_t k = 0; k < maui::component_count; ++k)
        if (cols.component[k]) shown.push_back(k);
    auto subs_of = [&](std::size_t k) {
        std::vector<std::size_t> out;
        const auto& info = maui::components[k];
        for (std::size_t s = 0; s < info.count; ++s)
            if (cols.sub[maui::index(info.first) + s]) out.push_back(maui::index(info.first) + s);
        return out;
    };
    struct line {
        string job, prio;
        std::vector<comp_cells> comps;
    };
    std::vector<line> lines;
    // Header and weights.
    line head{"Job", running ? "RUNPRIO*" : "PRIORITY*", {}};
    line weights{"Weights", "--------", {}};
    for (std::size_t k : shown) {
        comp_cells h{string(maui::components[k].name), {}}, wt{std::to_string(w.component_weight[k]), {}};
        for (std::size_t s : subs_of(k)) {
            h.parts.emplace_back(diagnose_labels[s]);
            wt.parts.push_back(std::to_string(w.sub_weight[s]));
        }
        head.comps.push_back(std::move(h));
        weights.comps.push_back(std::move(wt));
    }
    lines.push_back(std::move(head));
    lines.push_back(std::move(weights));
    const std::size_t first_job = lines.size();
    bool marks = false;
    std::array<double, maui::component_count> total_c{};
    std::array<double, maui::subcomponent_count> total_s{};
    double total = 0;
    for (const auto& r : rows) {
        const char mark = detail::priority_mark(r.priority.status);
        marks = marks || (mark != ' ' && !running);
        line l;
        l.job = std::to_string(r.job_id);
        l.prio = running ? detail::diag_fmt("%.0f", r.run_priority) : std::to_string(r.priority.value);
        if (!running && mark != ' ') l.prio += mark;
        const double share = r.score == 0 ? 0.0 : 100.0 / r.score;
        for (std::size_t k : shown) {
            comp_cells cell{detail::diag_fmt("%.1f", r.contribution[k] * share), {}};
            for (std::size_t s : subs_of(k)) {
                cell.parts.push_back(detail::diag_fmt("%.2f", r.value[s]));
                total_s[s] += r.weighted[s];
            }
            total_c[k] += r.contribution[k];
            l.comps.push_back(std::move(cell));
        }
        total += r.score;
        lines.push_back(std::move(l));
    }
    {
        line t{"Percent Contribution", "--------", {}};
        const double share = total == 0 ? 0.0 : 100.0 / total;
        for (std::size_t k : shown) {
            comp_cells cell{detail::diag_fmt("%.1f", total_c[k] * share), {}};
            for (std::size_t s : subs_of(k)) cell.parts.push_back(detail::diag_fmt("%.1f", total_s[s] * share));
            t.comps.push_back(std::move(cell));
        }
        lines.push_back(std::move(t));
    }
    // Widths.
    std::size_t w_job = 0, w_prio = 0;
    std::vector<std::size_t> w_lead(shown.size(), 0);
    std::vector<std::vector<std::size_t>> w_part(shown.size());
    for (std::size_t c = 0; c < shown.size(); ++c) w_part[c].assign(subs_of(shown[c]).size(), 0);
    for (const auto& l : lines) {
        w_job = std::max(w_job, l.job.size());
        w_prio = std::max(w_prio, l.prio.size());
        for (std::size_t c = 0; c < l.comps.size(); ++c) {
            w_lead[c] = std::max(w_lead[c], l.comps[c].lead.size());
            for (std::size_t p = 0; p < l.comps[c].parts.size(); ++p)
                w_part[c][p] = std::max(w_part[c][p], l.comps[c].parts[p].size());
        }
    }
    auto pad_left = [](const string& s, std::size_t n) { return string(n > s.size() ? n - s.size() : 0, ' ') + s; };
    auto pad_right = [](const string& s, std::size_t n) { return s + string(n > s.size() ? n - s.size() : 0, ' '); };
    string out = "diagnosing job priority information (partition: ALL)\n\n";
    for (std::size_t n = 0; n < lines.size(); ++n) {
        const auto& l = lines[n];
        if (n == first_job || n + 1 == lines.size()) out += '\n';
        string text = pad_right(l.job, w_job) + "  " + pad_left(l.prio, w_prio + (marks ? 0 : 0));
        for (std::size_t c = 0; c < l.comps.size(); ++c) {
            text += "  " + pad_left(l.comps[c].lead, w_lead[c]) + '(';
            for (std::size_t p = 0; p < l.comps[c].parts.size(); ++p) {
                if (p != 0) text += ':';
                text += pad_left(l.comps[c].parts[p], w_part[c][p]);
            }
            text += ')';
        }
        while (!text.empty() && text.back() == ' ') text.pop_back();
        out += text + '\n';
    }
    if (marks)
        out += "\nf: floored at 1  c: at the 1e9 ceiling  s: system priority  r: relative system priority  "
               "!: negative, will not start\n";
    return out;
}

namespace detail {
/// Maui 3.3's `ABS` macro (MPriority.c): `a >= 0 ? a : 0 - a`. Unlike `fabs` it leaves a
/// negative zero as it is (-0.0 >= 0 holds), so a share that is a zero times a negative weight
/// prints `-0.0`, as Maui prints it.
[[nodiscard]] constexpr double maui_abs(double a) noexcept { return a >= 0 ? a : 0 - a; }

/// `%5.5s` of `%3.1lf`: the one-decimal value cut to five characters and right-aligned in
/// five, as Maui prints every cell of `diagnose -p`.
inline std::string maui_cell(double v) {
    char number[512];
    std::snprintf(number, sizeof number, "%3.1f", v);
    char cell[8];
    std::snprintf(cell, sizeof cell, "%5.5s", number);
    return cell;
}
inline std::string maui_weight(std::int64_t w) {
    char cell[32];
    std::snprintf(cell, sizeof cell, "%5lld", static_cast<long long>(w));
    return cell;
}
/// The 5-character names `diagnose -p` heads subcomponents with (`maui::subcomponent`
/// order); empty where Maui 3.3 prints none (EXECUTIONTIME, and the ATTR pair, whose
/// header Maui never builds).
inline constexpr std::array<std::string_view, maui::subcomponent_count> maui_header_names{
    "QTime", "XFctr", "SPVio", "Bypas", "QTime", "XFctr", " User", "Group", "Accnt", "  QOS", "Class",
    "",      "",      " User", "Group", "Accnt", "  QOS", "Class", " Node", " Proc", "  Mem", " Swap",
    " Disk", "   PS", "   PE", "WTime", "UProc", " UJob", "Cons ", "",      "Rem  ", "PerC "};
/// The components in the order `diagnose -p` prints them, with each one's header prefix.
struct maui_column {
    maui::component_id which;
    std::string_view prefix; ///< "  Cred(" ...; empty: no header (ATTR)
    std::size_t first, last; ///< the subcomponents it lists (WALLTIME ends RES: UPROC and UJOB never show)
};
inline constexpr std::array<maui_column, maui::component_count> maui_columns{{
    {maui::component_id::cred, "  Cred(", maui::index(maui::subcomponent::user), maui::index(maui::subcomponent::job_class)},
    {maui::component_id::fs, "    FS(", maui::index(maui::subcomponent::fsuser), maui::index(maui::subcomponent::fsclass)},
    {maui::component_id::attr, "", maui::index(maui::subcomponent::attrattr), maui::index(maui::subcomponent::attrstate)},
    {maui::component_id::serv, "  Serv(", maui::index(maui::subcomponent::queuetime), maui::index(maui::subcomponent::bypass)},
    {maui::component_id::targ, "  Targ(", maui::index(maui::subcomponent::targetqueuetime),
     maui::index(maui::subcomponent::targetxfactor)},
    {maui::component_id::res, "   Res(", maui::index(maui::subcomponent::node), maui::index(maui::subcomponent::walltime)},
    // Maui 3.3 heads USAGE "Res" too.
    {maui::component_id::usage, "   Res(", maui::index(maui::subcomponent::consumed), maui::index(maui::subcomponent::percent)},
}};
} // namespace detail

/// Maui 3.3's `diagnose -p` (`UIDiagnosePriority` calling `MJobGetStartPriority` in its three
/// modes), byte for byte:
/// - `diagnosing job priority information (partition: ALL)` and an empty line; "no idle jobs
///   in queue" alone when no job is idle;
/// - a header `Job`, `PRIORITY*`, then per component in the order Cred, FS, Attr, Serv,
///   Targ, Res, Usage, when its weight is not 0, the 5-character names of its subcomponents
///   whose weight is not 0 (QUEUETIME and XFACTOR also when some QOS has a QTWEIGHT or
///   XFWEIGHT > 0); ATTR never has a header, RES stops at WALLTIME, USAGE is headed "Res";
/// - `Weights`: the weights as `%5ld`;
/// - per idle job, highest priority first: its id, the weighted sum before the floor, the
///   ceiling and any system priority (`%10.0lf`), `*` when it has a system priority, then per
///   component its share of the sum of absolute weighted components and per subcomponent:
///   CRED the absolute capped value, TARG the component's share again (both as Maui prints
///   them), the others CW x SW x capped value, with each job's QTWEIGHT, XFWEIGHT and
///   CLASSWEIGHT; USAGE's values are 0 (Maui does not compute it for idle jobs);
/// - an empty line, `Percent Contribution`: each component's and subcomponent's absolute
///   share of the total over the listed jobs, and `* indicates system prio set on job`.
/// Every cell is `%3.1lf` cut and padded to five characters (`%5.5s`); absolute values are
/// taken as Maui's `ABS` macro takes them (`detail::maui_abs`: a negative zero stays `-0.0`).
/// The text ends with the empty line Maui's `diagnose` client adds (`MCDiagnose` prints the
/// server's text with `"%s\n"`), also after "no idle jobs in queue".
///
/// `queue_order`: Maui lists the jobs of its idle queue as its last iteration sorted them
/// (`UIDiagnosePriority` walks `MUIQ`), which is the order `showq` prints under IDLE JOBS.
/// Given (non-empty), exactly the idle jobs named in it are listed, in its order; so a
/// `setspri` made since the last iteration shows its mark and new sum in the old order, as
/// in Maui. Empty: every idle job, highest final priority first.
[[nodiscard]] inline std::string render_maui_diagnose(const maui::weights& w, const maui::options& opts,
                                                      std::span<const maui::job> jobs, const maui::context& c,
                                                      std::span<const std::uint32_t> queue_order = {}) {
    using maui::component_count;
    using maui::subcomponent_count;
    const auto e = maui::make_maui_engine(w, opts);
    std::vector<maui::job> idle;
    for (const auto& j : jobs)
        if (j.state == job_state::pending) idle.push_back(j);
    std::vector<std::size_t> order;
    if (queue_order.empty()) {
        std::vector<maui::priority_value> prio(idle.size());
        for (std::size_t i = 0; i < idle.size(); ++i) prio[i] = e.priority(idle[i], c);
        order = maui::start_order(std::span<const maui::job>(idle), std::span<const maui::priority_value>(prio));
    } else {
        std::unordered_map<std::uint32_t, std::size_t> at;
        for (std::size_t i = 0; i < idle.size(); ++i) at.emplace(idle[i].id, i);
        for (const std::uint32_t id : queue_order)
            if (const auto it = at.find(id); it != at.end()) order.push_back(it->second);
    }
    if (order.empty()) return "no idle jobs in queue\n\n";

    const auto cw = [&](maui::component_id k) { return w.component_weight[maui::index(k)]; };
    // QUEUETIME and XFACTOR show when some QOS (DEFAULT included) adds a weight.
    std::array<bool, subcomponent_count> display{};
    const auto qos_adds = [&](std::int64_t maui::credential::*field) {
        if (c.default_of(maui::cred_kind::qos).*field > 0) return true;
        for (const auto& q : c.creds[maui::index(maui::cred_kind::qos)])
            if (q.*field > 0) return true;
        return false;
    };
    display[maui::index(maui::subcomponent::queuetime)] =
        w[maui::subcomponent::queuetime] != 0 || qos_adds(&maui::credential::qt_weight);
    display[maui::index(maui::subcomponent::xfactor)] =
        w[maui::subcomponent::xfactor] != 0 || qos_adds(&maui::credential::xf_weight);

    std::string out = "diagnosing job priority information (partition: ALL)\n\n";
    char buf[256];
    // Header and weights.
    std::string header, weights_line;
    for (const auto& col : detail::maui_columns) {
        if (cw(col.which) == 0 || col.prefix.empty()) continue;
        const bool serv = col.which == maui::component_id::serv;
        std::string names, values;
        for (std::size_t s = col.first; s <= col.last; ++s) {
            if (w.sub_weight[s] == 0 && !(serv && display[s])) continue;
            if (!names.empty()) {
                names += ':';
                values += ':';
            }
            names += detail::maui_header_names[s];
            values += detail::maui_weight(w.sub_weight[s]);
        }
        if (names.empty()) continue;
        header += std::string(col.prefix) + names + ")";
        weights_line += " " + detail::maui_weight(cw(col.which)) + "(" + values + ")";
    }
    std::snprintf(buf, sizeof buf, "%-20s %10s%c ", "Job", "PRIORITY", '*');
    out += buf + header + "\n";
    std::snprintf(buf, sizeof buf, "%20s %10s%c ", "Weights", "--------", ' ');
    out += buf + weights_line + "\n\n";

    // One line per job.
    double total_priority = 0;
    std::array<double, component_count> total_c{};
    std::array<double, subcomponent_count> total_s{};
    for (const std::size_t n : order) {
        const maui::job& j = idle[n];
        std::array<double, subcomponent_count> sf{}, sw{};
        std::array<double, component_count> cf{};
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            (
                [&] {
                    const auto ce = e.get<I>().factor.explain(j, c);
                    const std::size_t first = maui::index(maui::components[I].first);
                    for (std::size_t s = 0; s < ce.subterms.size(); ++s) {
                        sf[first + s] = ce.subterms[s].capped;
                        sw[first + s] = ce.subterms[s].weight;
                    }
                    cf[I] = ce.value;
                }(),
                ...);
        }(std::make_index_sequence<component_count>{});
        // USAGE: not computed for an idle job (its call is commented out in Maui 3.3).
        cf[maui::index(maui::component_id::usage)] = 0;
        for (std::size_t s = maui::index(maui::subcomponent::consumed); s < subcomponent_count; ++s) sf[s] = 0;
        double sum = 0, absolute = 0;
        for (std::size_t k = 0; k < component_count; ++k) {
            sum += static_cast<double>(w.component_weight[k]) * cf[k];
            absolute += detail::maui_abs(static_cast<double>(w.component_weight[k]) * cf[k]);
        }
        total_priority += absolute;
        std::array<double, component_count> cp{};
        for (std::size_t k = 0; k < component_count; ++k) {
            cp[k] = absolute != 0.0 ? detail::maui_abs(static_cast<double>(w.component_weight[k]) * cf[k]) / absolute * 100.0
                                    : 0.0;
            total_c[k] += detail::maui_abs(cf[k]);
        }
        for (std::size_t s = 0; s < subcomponent_count; ++s) total_s[s] += detail::maui_abs(sf[s]);
        std::string cells;
        for (const auto& col : detail::maui_columns) {
            const std::size_t k = maui::index(col.which);
            if (w.component_weight[k] == 0) continue;
            std::string line;
            for (std::size_t s = col.first; s <= col.last; ++s) {
                if (sw[s] == 0 && !display[s]) continue;
                if (!line.empty()) line += ':';
                double v;
                if (col.which == maui::component_id::cred) v = detail::maui_abs(sf[s]);
                else if (col.which == maui::component_id::targ) v = cp[k];
                else v = static_cast<double>(w.component_weight[k]) * sw[s] * sf[s];
                line += detail::maui_cell(v);
            }
            if (!line.empty()) cells += " " + detail::maui_cell(cp[k]) + "(" + line + ")";
        }
        const bool system = (j.system_priority_mode == maui::system_priority_kind::absolute && j.system_priority > 0) ||
                            j.system_priority_mode == maui::system_priority_kind::relative;
        std::snprintf(buf, sizeof buf, "%-20s %10.0f%c ", std::to_string(j.id).c_str(), sum, system ? '*' : ' ');
        out += buf + cells + "\n";
    }

    // Footer.
    std::string footer;
    for (const auto& col : detail::maui_columns) {
        const std::size_t k = maui::index(col.which);
        const std::int64_t weight = w.component_weight[k];
        if (weight == 0) continue;
        std::string line;
        for (std::size_t s = col.first; s <= col.last; ++s) {
            if (w.sub_weight[s] == 0) continue;
            if (!line.empty()) line += ':';
            line += detail::maui_cell(total_priority != 0.0
                                          ? detail::maui_abs(total_s[s] * static_cast<double>(w.sub_weight[s]) *
                                                      static_cast<double>(weight) * 100.0 / total_priority)
                                          : 0.0);
        }
        if (line.empty()) continue;
        footer += " " +
                  detail::maui_cell(total_priority != 0.0
                                        ? detail::maui_abs(total_c[k] * static_cast<double>(weight) * 100.0 / total_priority)
                                        : 0.0) +
                  "(" + line + ")";
    }
    std::snprintf(buf, sizeof buf, "%-20s %10s%c ", "Percent Contribution", "--------", ' ');
    out += "\n" + std::string(buf) + footer + "\n\n* indicates system prio set on job\n\n";
    return out;
}

/// One job's full breakdown in plain text: each component's weight, value and contribution,
/// and under it each subcomponent in use (weight not 0): its raw value, capped value, weight (after QTWEIGHT,
/// XFWEIGHT or CLASSWEIGHT) and contribution; then the sum and the priority with how it
/// was obtained. Numbers print with "%.6g" (weights as integers).
[[nodiscard]] inline std::string render_diagnose_explain(const maui::maui_engine& e, const maui::job& j,
                                                         const maui::context& c, const maui::options& opts) {
    std::string out = "job " + std::to_string(j.id) + "\n";
    auto num = [](double v) { return detail::diag_fmt("%.6g", v); };
    const auto x = e.explain(j, c);
    auto component = [&](std::size_t k, const auto& t) {
        const auto ce = t.factor.explain(j, c);
        out += "  " + std::string(maui::components[k].name) + ": weight " + num(t.weight.as_double()) + " x " +
               num(ce.value) + (ce.value != ce.sum ? " (capped from " + num(ce.sum) + ")" : std::string()) + " = " +
               num(x.terms[k].contribution) + "\n";
        for (const auto& s : ce.subterms) {
            if (s.weight == 0) continue; // subcomponents that are off
            out += "    " + std::string(s.name) + ": " + num(s.factor);
            if (s.capped != s.factor) out += " (capped " + num(s.capped) + ")";
            out += " x weight " + num(s.weight) + " = " + num(s.contribution) + "\n";
        }
    };
    [&]<std::size_t... I>(std::index_sequence<I...>) { (component(I, e.get<I>()), ...); }(
        std::make_index_sequence<maui::component_count>{});
    if (!opts.usage_in_start_priority) out += "  (Usage counts in the run priority only, not the start priority)\n";
    out += "  sum: " + num(x.score) + "\n";
    static constexpr std::array<std::string_view, 6> how{
        "the sum, truncated", "floored at 1 (negative priorities not enabled)", "lowered to the 1e9 ceiling",
        "negative: REJECTNEGPRIOJOBS keeps it and the job will not start", "system priority (setspri): 1e9 + N",
        "relative system priority (setspri -r) added after the clamps"};
    out += "  priority: " + std::to_string(x.priority.value) + " (" +
           std::string(how[static_cast<std::size_t>(x.priority.status)]) + ")\n";
    return out;
}

} // namespace mfprio::report
