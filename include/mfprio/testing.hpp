#pragma once
/// \file
/// The kit for a policy author's own test suite: job and cluster builders, a controllable
/// clock, the factor contract checks (the factor-policy concept and noexcept at compile time;
/// finite, pure, within a declared range and monotone where declared at run time) and
/// assertions on queue order whose failure message shows both jobs' breakdowns side by side.
///
/// Every check is a plain function returning a `check_result` (`ok` and a message a person
/// can read), so this header does not include any test framework and compiles on its own.
/// The `MFPRIO_CHECK_*` macros at the end report a result through doctest's
/// `DOCTEST_CHECK_MESSAGE` at the point of use, so a doctest suite includes
/// `<doctest/doctest.h>` itself, before or after this header. Another framework defines
/// `MFPRIO_TESTING_CHECK(condition, message)` before including this header (with Catch2:
/// `do { INFO(message); CHECK(condition); } while (false)`).
///
/// Test code only: it allocates (strings, vectors) and is not part of any umbrella header
/// (`mfprio/mfprio.hpp` does not include it). Include it as `<mfprio/testing.hpp>`.

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <ranges>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <mfprio/core/factor.hpp>
#include <mfprio/core/job.hpp>
#include <mfprio/core/result.hpp>
#include <mfprio/flux/job.hpp>
#include <mfprio/maui/job.hpp>
#include <mfprio/maui/model.hpp>
#include <mfprio/maui/priority.hpp>
#include <mfprio/slurm/cluster.hpp>
#include <mfprio/slurm/context.hpp>

namespace mfprio::testing {

// ---------------------------------------------------------------- clock

/// A clock a test moves by hand: builders place jobs relative to it (`submitted_ago`) and
/// contexts are taken at its time (`slurm_cluster_builder::context(clock)`). It starts at a
/// fixed epoch time (`default_start`), so that priorities computed in a test never depend on
/// when the test runs.
class test_clock {
public:
    /// 2023-11-14 22:13:20 UTC: a round, fixed "now".
    static constexpr std::int64_t default_start = 1'700'000'000;

    constexpr test_clock() noexcept = default;
    constexpr explicit test_clock(std::int64_t start) noexcept : now_(start) {}

    /// The current time, epoch seconds.
    [[nodiscard]] constexpr std::int64_t now() const noexcept { return now_; }
    /// Moves the clock by `seconds` (negative moves it back).
    constexpr test_clock& advance(std::int64_t seconds) noexcept {
        now_ += seconds;
        return *this;
    }
    /// Sets the clock to `t`.
    constexpr test_clock& set(std::int64_t t) noexcept {
        now_ = t;
        return *this;
    }
    /// The time `seconds` before now.
    [[nodiscard]] constexpr std::int64_t ago(std::int64_t seconds) const noexcept { return now_ - seconds; }

private:
    std::int64_t now_ = default_start;
};

// ---------------------------------------------------------------- job builders

/// A fluent builder for `mfprio::job` and for job types derived from it (`flux::job`, a
/// policy author's own job type that adds fields): every setter names the field it sets,
/// and `build()` returns the job. Fields not set keep the job type's defaults; in particular
/// a job does not accrue age until `submitted_at`, `submitted_ago` or `accruing_since` says
/// so (`accrue_time` 0 means "not accruing", as in Slurm).
///
///     const auto j = job_builder{}.id(7).user(3).submitted_ago(clock, 3600).nodes(2).cpus(64)
///                        .partition(1).qos(0).time_limit_minutes(60).build();
///
/// Fields the library does not know are set with `set(&my_job::gpus, 4)` or `with(fn)`.
template <class J>
    requires std::derived_from<J, mfprio::job> && std::default_initializable<J>
class basic_job_builder {
public:
    /// Slurm JobId.
    basic_job_builder& id(std::uint32_t v) noexcept { return field(&mfprio::job::id, v); }
    /// User index.
    basic_job_builder& user(std::uint32_t v) noexcept { return field(&mfprio::job::user, v); }
    /// Association index (fair-share and association priority).
    basic_job_builder& association(std::uint32_t v) noexcept { return field(&mfprio::job::association, v); }
    /// Partition index.
    basic_job_builder& partition(std::uint16_t v) noexcept { return field(&mfprio::job::partition, v); }
    /// QOS index.
    basic_job_builder& qos(std::uint16_t v) noexcept { return field(&mfprio::job::qos, v); }
    /// Submitted at `t`, and accruing age from then (Slurm's usual case).
    basic_job_builder& submitted_at(std::int64_t t) noexcept {
        job_.submit_time = t;
        job_.accrue_time = t;
        return *this;
    }
    /// Submitted `seconds` before the clock's now, and accruing age from then.
    basic_job_builder& submitted_ago(const test_clock& clock, std::int64_t seconds) noexcept {
        return submitted_at(clock.ago(seconds));
    }
    /// Accruing age from `t` (Slurm's accrue_time), whatever the submit time.
    basic_job_builder& accruing_since(std::int64_t t) noexcept { return field(&mfprio::job::accrue_time, t); }
    /// Not accruing age (accrue_time 0: held back by an accrue limit, say).
    basic_job_builder& not_accruing() noexcept { return field(&mfprio::job::accrue_time, std::int64_t{0}); }
    /// Requested nodes (Slurm's min_nodes).
    basic_job_builder& nodes(std::uint32_t v) noexcept { return field(&mfprio::job::min_nodes, v); }
    /// CPUs.
    basic_job_builder& cpus(std::uint32_t v) noexcept { return field(&mfprio::job::cpus, v); }
    /// Time limit in minutes (`no_val32`: none requested; `infinite32`: UNLIMITED).
    basic_job_builder& time_limit_minutes(std::uint32_t v) noexcept { return field(&mfprio::job::time_limit, v); }
    /// Nice value (subtracted from the priority).
    basic_job_builder& nice(std::int32_t v) noexcept { return field(&mfprio::job::nice, v); }
    /// Site factor (added to the priority).
    basic_job_builder& site_factor(std::int32_t v) noexcept { return field(&mfprio::job::site_factor, v); }
    /// Priority set by an administrator (passes through `slurm_result`).
    basic_job_builder& admin_priority(std::uint32_t v) noexcept { return field(&mfprio::job::admin_priority, v); }
    /// Row of the context's TRES request table.
    basic_job_builder& tres_row(std::uint32_t v) noexcept { return field(&mfprio::job::tres_row, v); }
    /// Job state.
    basic_job_builder& state(job_state v) noexcept { return field(&mfprio::job::state, v); }
    /// Held (priority 0 under `slurm_result`).
    basic_job_builder& held() noexcept { return state(job_state::held); }

    /// Flux urgency, 0..31 (RFC 30: 0 holds, 16 is the default, 31 expedites).
    basic_job_builder& urgency(std::uint8_t v) noexcept
        requires std::derived_from<J, flux::job>
    { return field(&flux::job::urgency, v); }
    /// Flux queue index.
    basic_job_builder& queue(std::uint32_t v) noexcept
        requires std::derived_from<J, flux::job>
    { return field(&flux::job::queue, v); }
    /// Flux bank index.
    basic_job_builder& bank(std::uint32_t v) noexcept
        requires std::derived_from<J, flux::job>
    { return field(&flux::job::bank, v); }
    /// Flux position in submission order.
    basic_job_builder& submit_seq(std::uint64_t v) noexcept
        requires std::derived_from<J, flux::job>
    { return field(&flux::job::submit_seq, v); }

    /// Sets a member of the job type itself: `set(&my_job::gpus, 4)`.
    template <class M>
    basic_job_builder& set(M J::*member, std::type_identity_t<M> value) {
        job_.*member = std::move(value);
        return *this;
    }
    /// Calls `fn(job&)`: for several fields of the author's own at once.
    template <class Fn>
        requires std::invocable<Fn&, J&>
    basic_job_builder& with(Fn&& fn) {
        fn(job_);
        return *this;
    }

    /// The job.
    [[nodiscard]] J build() const { return job_; }

private:
    template <class Base, class M, class V>
    basic_job_builder& field(M Base::*member, V value) noexcept {
        static_cast<Base&>(job_).*member = value;
        return *this;
    }

    J job_{};
};

/// Builds an `mfprio::job` (Slurm's factors).
using job_builder = basic_job_builder<mfprio::job>;
/// Builds a `flux::job`: the Slurm-style fields plus urgency, queue, bank and submission order.
using flux_job_builder = basic_job_builder<flux::job>;

/// A fluent builder for `maui::job`. Credentials are indices into the context's credential
/// tables (unset: `maui::no_cred`); times are epoch seconds; the wallclock limit is in
/// seconds, as Maui counts it.
class maui_job_builder {
public:
    maui_job_builder& id(std::uint32_t v) noexcept { job_.id = v; return *this; }
    maui_job_builder& user(std::uint32_t v) noexcept { job_.user = v; return *this; }
    maui_job_builder& group(std::uint32_t v) noexcept { job_.group = v; return *this; }
    maui_job_builder& account(std::uint32_t v) noexcept { job_.account = v; return *this; }
    maui_job_builder& qos(std::uint32_t v) noexcept { job_.qos = v; return *this; }
    /// Class (queue) credential.
    maui_job_builder& job_class(std::uint32_t v) noexcept { job_.job_class = v; return *this; }
    /// Submitted (and eligible) at `t`.
    maui_job_builder& submitted_at(std::int64_t t) noexcept { job_.submit_time = t; return *this; }
    /// Submitted `seconds` before the clock's now.
    maui_job_builder& submitted_ago(const test_clock& clock, std::int64_t seconds) noexcept {
        return submitted_at(clock.ago(seconds));
    }
    /// Eligible since `t` (Maui's SystemQueueTime base: PBS etime, hold release).
    maui_job_builder& eligible_at(std::int64_t t) noexcept { job_.eligible_time = t; return *this; }
    /// Last blocked by an idle, active or system queue policy at `t`.
    maui_job_builder& policy_blocked_at(std::int64_t t) noexcept { job_.policy_blocked_time = t; return *this; }
    /// Last blocked by any other check (hold, dependency, fair-share cap) at `t`.
    maui_job_builder& blocked_at(std::int64_t t) noexcept { job_.blocked_time = t; return *this; }
    /// Running since `t`.
    maui_job_builder& started_at(std::int64_t t) noexcept {
        job_.start_time = t;
        job_.state = job_state::running;
        return *this;
    }
    /// Wallclock limit (WCLIMIT) in seconds.
    maui_job_builder& wclimit_seconds(std::uint32_t v) noexcept { job_.wclimit = v; return *this; }
    /// Processors (tasks x processors per task).
    maui_job_builder& procs(std::uint32_t v) noexcept { job_.procs = v; return *this; }
    maui_job_builder& nodes(std::uint32_t v) noexcept { job_.nodes = v; return *this; }
    maui_job_builder& mem_mb(std::uint32_t v) noexcept { job_.mem_mb = v; return *this; }
    maui_job_builder& swap_mb(std::uint32_t v) noexcept { job_.swap_mb = v; return *this; }
    maui_job_builder& disk_mb(std::uint32_t v) noexcept { job_.disk_mb = v; return *this; }
    /// Times bypassed by backfill.
    maui_job_builder& bypass(std::uint32_t v) noexcept { job_.bypass = v; return *this; }
    /// Violates a soft policy.
    maui_job_builder& spviolation(bool v = true) noexcept { job_.spviolation = v; return *this; }
    /// `setspri` value and how it applies.
    maui_job_builder& system_priority(std::int32_t v, maui::system_priority_kind kind) noexcept {
        job_.system_priority = v;
        job_.system_priority_mode = kind;
        return *this;
    }
    maui_job_builder& state(job_state v) noexcept { job_.state = v; return *this; }
    maui_job_builder& held() noexcept { return state(job_state::held); }
    /// Calls `fn(maui::job&)`.
    template <class Fn>
        requires std::invocable<Fn&, maui::job&>
    maui_job_builder& with(Fn&& fn) {
        fn(job_);
        return *this;
    }
    [[nodiscard]] maui::job build() const noexcept { return job_; }

private:
    maui::job job_{};
};

// ---------------------------------------------------------------- cluster builder

/// A fluent builder of the tables Slurm's factors read, over `slurm::cluster` (which owns
/// them and keeps their names for reports). Indices are given in order of addition: the
/// first partition is 0, the first QOS 0, the first association 0. Every change renormalizes
/// (the tables are small), so `context` can be taken at any time; it views the builder's
/// tables, which must outlive it. Copying a builder copies its tables.
///
///     auto cluster = slurm_cluster_builder{}.nodes(16).cpus(512).partition("gpu")
///                        .qos("normal", 10).qos("high", 100);
///     const slurm::context ctx = cluster.context(clock);
class slurm_cluster_builder {
public:
    slurm_cluster_builder() { cluster_.finalize(); }
    slurm_cluster_builder(const slurm_cluster_builder& other) : cluster_(other.cluster_) { cluster_.finalize(); }
    slurm_cluster_builder& operator=(const slurm_cluster_builder& other) {
        if (this != &other) {
            cluster_ = other.cluster_;
            cluster_.finalize(); // rebinds the partitions' TRES views to this copy's tables
        }
        return *this;
    }
    slurm_cluster_builder(slurm_cluster_builder&&) noexcept = default;
    slurm_cluster_builder& operator=(slurm_cluster_builder&&) noexcept = default;
    ~slurm_cluster_builder() = default;

    /// Nodes in the cluster (job size normalization).
    slurm_cluster_builder& nodes(std::uint32_t n) {
        cluster_.set_totals(n, cluster_.cpus());
        return done();
    }
    /// CPUs in the cluster (job size normalization).
    slurm_cluster_builder& cpus(std::uint32_t n) {
        cluster_.set_totals(cluster_.node_count(), n);
        return done();
    }
    /// A partition (`PartitionName=`): PriorityJobFactor, PriorityTier, MaxTime in minutes.
    slurm_cluster_builder& partition(std::string name, std::uint32_t priority_job_factor = 1,
                                     std::uint32_t priority_tier = 1, std::uint32_t max_time = infinite32) {
        cluster_.add_partition(std::move(name), priority_job_factor, priority_tier, max_time);
        return done();
    }
    /// A QOS with its Priority and UsageFactor.
    slurm_cluster_builder& qos(std::string name, std::uint32_t priority, double usage_factor = 1.0) {
        cluster_.add_qos(std::move(name), priority, usage_factor);
        return done();
    }
    /// An association (user empty for an account) with its fair-share factor and Priority.
    slurm_cluster_builder& association(std::string account, std::string user, double fairshare,
                                       std::uint32_t priority = 0) {
        cluster_.add_association(std::move(account), std::move(user), fairshare, priority);
        return done();
    }
    /// Replaces association `a`'s fair-share factor.
    slurm_cluster_builder& fairshare(std::uint32_t a, double value) {
        cluster_.set_fairshare(a, value);
        return *this;
    }
    /// Partition `p`'s count of TRES `name` (added if new: "gres/gpu", "license/matlab").
    slurm_cluster_builder& partition_tres(std::uint32_t p, std::string_view name, double count) {
        cluster_.set_partition_tres(p, cluster_.tres(name), count);
        return done();
    }

    /// The context of a pass at `now`.
    [[nodiscard]] slurm::context context(std::int64_t now) const noexcept { return cluster_.view(now); }
    /// The context of a pass at the clock's now.
    [[nodiscard]] slurm::context context(const test_clock& clock) const noexcept { return context(clock.now()); }
    /// The underlying tables and names (for reports).
    [[nodiscard]] const slurm::cluster& cluster() const noexcept { return cluster_; }

private:
    slurm_cluster_builder& done() {
        cluster_.finalize();
        return *this;
    }
    slurm::cluster cluster_;
};

// ---------------------------------------------------------------- results

/// The outcome of a check: `ok`, and when not, a message a person can read (it names the
/// factor or the jobs and shows the values). Contextually converts to `ok`.
struct [[nodiscard]] check_result {
    bool ok = true;
    std::string message; ///< empty when ok

    [[nodiscard]] explicit operator bool() const noexcept { return ok; }
};

/// The range a factor declares for its values: every value must be in [lo, hi].
struct factor_range {
    double lo = -std::numeric_limits<double>::infinity();
    double hi = std::numeric_limits<double>::infinity();
};
/// [0, 1]: a normalized factor (Slurm's age, fair-share, job size, partition, QOS...).
inline constexpr factor_range unit_range{0.0, 1.0};
/// Any finite value (site factor, nice, raw TRES counts).
inline constexpr factor_range any_finite{};

/// The direction a factor declares as a field or the clock moves.
enum class monotone : std::uint8_t {
    non_decreasing, ///< never goes down
    non_increasing, ///< never goes up
};

namespace detail {

/// The shortest text that reads back as the same double (`std::to_chars`): exact and short.
inline std::string number(double v) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}
template <std::integral T>
std::string number(T v) {
    if constexpr (std::is_signed_v<T>) return std::to_string(static_cast<long long>(v));
    else return std::to_string(static_cast<unsigned long long>(v));
}

inline std::string status_text(mfprio::priority_status s) {
    switch (s) {
    case mfprio::priority_status::computed: return "computed";
    case mfprio::priority_status::floored: return "floored";
    case mfprio::priority_status::clamped: return "clamped";
    case mfprio::priority_status::admin_set: return "admin set";
    case mfprio::priority_status::held: return "held";
    }
    return "status " + number(static_cast<int>(s));
}
inline std::string status_text(maui::priority_status s) {
    switch (s) {
    case maui::priority_status::computed: return "computed";
    case maui::priority_status::floored: return "floored";
    case maui::priority_status::ceiling: return "ceiling";
    case maui::priority_status::negative_rejected: return "negative, rejected";
    case maui::priority_status::system_absolute: return "system priority, absolute";
    case maui::priority_status::system_relative: return "system priority, relative";
    }
    return "status " + number(static_cast<int>(s));
}
/// Any other result policy's status enum: its number.
template <class S>
    requires std::is_enum_v<S>
std::string status_text(S s) {
    return "status " + number(static_cast<long long>(static_cast<std::underlying_type_t<S>>(s)));
}

/// A priority as text: its value, and how it came about when that is not the plain sum
/// ("1 (floored)", "0 (held)").
template <class P>
std::string priority_text(const P& p) {
    if constexpr (requires { p.value; p.status; }) {
        std::string s = number(p.value);
        if (p.status != decltype(p.status){}) s += " (" + status_text(p.status) + ")";
        return s;
    } else if constexpr (requires { p.value; }) {
        return number(p.value);
    } else {
        return number(p);
    }
}

/// What the queue is ordered by: the priority's value (or the priority itself when it is a
/// plain number, `raw_result`).
template <class P>
auto priority_key(const P& p) {
    if constexpr (requires { p.value; }) return p.value;
    else return p;
}

/// "job 7", or "job #2 (id 7)" with its position in a set.
template <class J>
std::string job_name(const J& j) {
    if constexpr (has_id<J>) return "job " + number(job_traits<J>::id(j));
    else return "the job";
}
template <class J>
std::string job_label(const J& j, std::size_t index) {
    std::string s = "job #" + number(index);
    if constexpr (has_id<J>) s += " (id " + number(job_traits<J>::id(j)) + ")";
    return s;
}

/// A text table: columns in groups (a label over each group), the first column left-aligned,
/// the others right-aligned, two spaces between columns and " | " between groups. Column
/// widths fit the widest cell; a group label wider than its columns widens the last one.
class table {
public:
    table(std::vector<std::string> group_labels, std::vector<std::size_t> group_sizes)
        : labels_(std::move(group_labels)), sizes_(std::move(group_sizes)) {}

    void row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
    /// A rule under the row added last.
    void rule() { rules_.push_back(rows_.size()); }

    [[nodiscard]] std::string render() const {
        std::size_t columns = 0;
        for (auto n : sizes_) columns += n;
        std::vector<std::size_t> width(columns, 0);
        for (const auto& r : rows_)
            for (std::size_t k = 0; k < r.size() && k < columns; ++k) width[k] = std::max(width[k], r[k].size());
        // Widen the last column of a group whose label does not fit.
        std::size_t first = 0;
        for (std::size_t g = 0; g < sizes_.size(); ++g) {
            std::size_t span = 0;
            for (std::size_t k = first; k < first + sizes_[g]; ++k) span += width[k] + (k > first ? 2 : 0);
            if (labels_[g].size() > span) width[first + sizes_[g] - 1] += labels_[g].size() - span;
            first += sizes_[g];
        }
        std::string out;
        // The group labels.
        if (std::any_of(labels_.begin(), labels_.end(), [](const std::string& l) { return !l.empty(); })) {
            std::string line;
            first = 0;
            for (std::size_t g = 0; g < sizes_.size(); ++g) {
                std::size_t span = 0;
                for (std::size_t k = first; k < first + sizes_[g]; ++k) span += width[k] + (k > first ? 2 : 0);
                if (g > 0) line += " | ";
                line += labels_[g];
                line.append(span - labels_[g].size(), ' ');
                first += sizes_[g];
            }
            out += trimmed(line);
        }
        for (std::size_t r = 0; r <= rows_.size(); ++r) {
            if (std::count(rules_.begin(), rules_.end(), r) > 0) out += rule_line(width);
            if (r == rows_.size()) break;
            std::string line;
            std::size_t k = 0;
            for (std::size_t g = 0; g < sizes_.size(); ++g) {
                if (g > 0) line += " | ";
                for (std::size_t i = 0; i < sizes_[g]; ++i, ++k) {
                    if (i > 0) line += "  ";
                    const std::string& cell = k < rows_[r].size() ? rows_[r][k] : empty_;
                    const std::size_t pad = width[k] - std::min(width[k], cell.size());
                    if (k == 0) line += cell + std::string(pad, ' ');
                    else line += std::string(pad, ' ') + cell;
                }
            }
            out += trimmed(line);
        }
        return out;
    }

private:
    static std::string trimmed(std::string line) {
        while (!line.empty() && line.back() == ' ') line.pop_back();
        return line + '\n';
    }
    std::string rule_line(const std::vector<std::size_t>& width) const {
        std::string line;
        std::size_t k = 0;
        for (std::size_t g = 0; g < sizes_.size(); ++g) {
            if (g > 0) line += "-+-";
            for (std::size_t i = 0; i < sizes_[g]; ++i, ++k) line.append(width[k] + (i > 0 ? 2 : 0), '-');
        }
        return line + '\n';
    }

    std::vector<std::string> labels_;
    std::vector<std::size_t> sizes_;
    std::vector<std::vector<std::string>> rows_;
    std::vector<std::size_t> rules_;
    std::string empty_;
};

/// Lines of a failure message past this many are summarized ("... and 3 more").
inline constexpr std::size_t max_reported = 8;

/// Collects the problems of a check, at most `max_reported` of them in full.
class problems {
public:
    void add(std::string line) {
        if (lines_.size() < max_reported) lines_.push_back(std::move(line));
        ++count_;
    }
    [[nodiscard]] bool empty() const noexcept { return count_ == 0; }
    [[nodiscard]] std::string text() const {
        std::string s;
        for (const auto& l : lines_) s += "  " + l + '\n';
        if (count_ > lines_.size()) s += "  ... and " + number(count_ - lines_.size()) + " more\n";
        return s;
    }

private:
    std::vector<std::string> lines_;
    std::size_t count_ = 0;
};

inline std::string direction_text(monotone d) {
    return d == monotone::non_decreasing ? "non-decreasing" : "non-increasing";
}

/// Whether `next` follows `previous` in direction `d` (a NaN never does).
inline bool follows(double previous, double next, monotone d) noexcept {
    return d == monotone::non_decreasing ? next >= previous : next <= previous;
}

template <class Jobs>
using job_of = std::ranges::range_value_t<Jobs>;

/// The monotonicity check behind `check_monotone` and `check_monotone_in_context`:
/// `value(job, step)` for steps 0..steps-1 of every job must move in direction `d`.
template <class Jobs, class Value>
check_result monotone_check(std::string_view factor, std::string_view what, const Jobs& jobs, Value value,
                            monotone d, int steps) {
    if (steps < 2)
        return {false, "factor '" + std::string(factor) + "': a monotonicity check needs at least 2 steps, got " +
                           number(steps) + "\n"};
    problems found;
    std::size_t index = 0, failing = 0;
    for (const auto& j : jobs) {
        std::vector<double> v;
        v.reserve(static_cast<std::size_t>(steps));
        for (int k = 0; k < steps; ++k) v.push_back(value(j, k));
        for (std::size_t k = 1; k < v.size(); ++k) {
            if (follows(v[k - 1], v[k], d)) continue;
            std::string line = job_label(j, index) + ": step " + number(k - 1) + " gives " + number(v[k - 1]) +
                               ", step " + number(k) + " gives " + number(v[k]) + "; values by step:";
            for (std::size_t i = 0; i < v.size(); ++i) line += (i == 0 ? " " : ", ") + number(v[i]);
            found.add(std::move(line));
            ++failing;
            break; // one line per job
        }
        ++index;
    }
    if (index == 0) return {false, "factor '" + std::string(factor) + "': no jobs to check\n"};
    if (found.empty()) return {};
    return {false, "factor '" + std::string(factor) + "' is not " + direction_text(d) + " " + std::string(what) +
                       " for " + number(failing) + " of " + number(index) + " jobs:\n" + found.text()};
}

} // namespace detail

// ---------------------------------------------------------------- factor contract

/// The compile-time half of the factor contract, one `static_assert` per requirement so that
/// the message names what is missing: a `name`, copyable, callable with `(const J&, const
/// Ctx&)` (its `has_*` constraints hold for `J`), `noexcept`, returning `double`. Returns
/// true, for `static_assert(assert_factor_policy<F, J, Ctx>())`.
template <class F, class J, class Ctx>
consteval bool assert_factor_policy() {
    static_assert(requires { { F::name } -> std::convertible_to<std::string_view>; },
                  "mfprio::testing: a factor policy needs `static constexpr std::string_view name = \"...\";`");
    static_assert(std::copy_constructible<F>, "mfprio::testing: a factor policy must be copy-constructible");
    static_assert(std::is_invocable_v<const F&, const J&, const Ctx&>,
                  "mfprio::testing: the factor cannot be called as f(job, context) with this job and context "
                  "types: its call operator must be const, take (const J&, const Ctx&), and its constraints "
                  "(the has_* concepts of the fields it reads) must hold for this job type");
    if constexpr (std::is_invocable_v<const F&, const J&, const Ctx&>) {
        static_assert(std::is_nothrow_invocable_v<const F&, const J&, const Ctx&>,
                      "mfprio::testing: the factor's call operator must be noexcept (the engine's hot path never "
                      "throws)");
        static_assert(std::is_same_v<std::invoke_result_t<const F&, const J&, const Ctx&>, double>,
                      "mfprio::testing: the factor's call operator must return double");
    }
    return factor_policy<F, J, Ctx>;
}

/// The factor contract over a set of jobs in one context: the compile-time half
/// (`assert_factor_policy`), then for every job a finite value, the same value when asked
/// twice (bit for bit: a factor is pure), within the declared range. The set must not be
/// empty. The message names the factor, each failing job (position and id) and its values.
template <class F, std::ranges::forward_range Jobs, class Ctx>
check_result check_factor_contract(const F& f, const Jobs& jobs, const Ctx& c, factor_range range) {
    using J = detail::job_of<Jobs>;
    static_assert(assert_factor_policy<F, J, Ctx>(), "mfprio::testing: not a factor policy (the error above says why)");
    if constexpr (factor_policy<F, J, Ctx>) {
        const std::string name(F::name);
        detail::problems found;
        std::size_t index = 0, failing = 0;
        for (const J& j : jobs) {
            const double v = f(j, c);
            const double again = f(j, c);
            bool bad = false;
            if (!std::isfinite(v)) {
                found.add(detail::job_label(j, index) + ": " + detail::number(v) + " is not finite");
                bad = true;
            } else if (!(v >= range.lo && v <= range.hi)) {
                found.add(detail::job_label(j, index) + ": " + detail::number(v) + " is outside the declared range [" +
                          detail::number(range.lo) + ", " + detail::number(range.hi) + "]");
                bad = true;
            }
            if (std::bit_cast<std::uint64_t>(v) != std::bit_cast<std::uint64_t>(again)) {
                found.add(detail::job_label(j, index) + ": not pure: " + detail::number(v) + ", then " +
                          detail::number(again) + " for the same job and context");
                bad = true;
            }
            failing += bad ? 1 : 0;
            ++index;
        }
        if (index == 0) return {false, "factor '" + name + "': no jobs to check\n"};
        if (found.empty()) return {};
        return {false, "factor '" + name + "' broke its contract on " + detail::number(failing) + " of " +
                           detail::number(index) + " jobs:\n" + found.text()};
    } else {
        return {false, "not a factor policy"};
    }
}

/// Monotonicity as a field of the job moves: for every job of the set and each step k in
/// [0, steps), `mutate(copy, k)` is applied to a fresh copy of the job and the factor
/// evaluated; the values must move in direction `d`. `mutate` sets the field for step k,
/// e.g. `[](job& j, int k) { j.cpus = 1 + 8 * k; }`.
template <class F, std::ranges::forward_range Jobs, class Ctx, class Mutate>
    requires std::invocable<Mutate&, detail::job_of<Jobs>&, int>
check_result check_monotone(const F& f, const Jobs& jobs, const Ctx& c, Mutate mutate, monotone d, int steps = 16) {
    using J = detail::job_of<Jobs>;
    static_assert(assert_factor_policy<F, J, Ctx>(), "mfprio::testing: not a factor policy (the error above says why)");
    if constexpr (factor_policy<F, J, Ctx>) {
        return detail::monotone_check(F::name, "as the job changes", jobs,
                                      [&](const J& j, int k) {
                                          J copy = j;
                                          mutate(copy, k);
                                          return f(copy, c);
                                      },
                                      d, steps);
    } else {
        return {false, "not a factor policy"};
    }
}

/// Monotonicity as the context moves: `context_at(k)` gives the context of step k in
/// [0, steps) (a table value raised step by step, say); every job's factor must move in
/// direction `d`.
template <class F, std::ranges::forward_range Jobs, class ContextAt>
    requires std::invocable<ContextAt&, int>
check_result check_monotone_in_context(const F& f, const Jobs& jobs, ContextAt context_at, monotone d,
                                       int steps = 16) {
    using J = detail::job_of<Jobs>;
    using Ctx = std::remove_cvref_t<std::invoke_result_t<ContextAt&, int>>;
    static_assert(assert_factor_policy<F, J, Ctx>(), "mfprio::testing: not a factor policy (the error above says why)");
    if constexpr (factor_policy<F, J, Ctx>) {
        std::vector<Ctx> contexts;
        for (int k = 0; k < steps; ++k) contexts.push_back(context_at(k));
        return detail::monotone_check(F::name, "as the context changes", jobs,
                                      [&](const J& j, int k) { return f(j, contexts[static_cast<std::size_t>(k)]); },
                                      d, steps);
    } else {
        return {false, "not a factor policy"};
    }
}

/// Monotonicity as the clock moves: step k is the clock's current time plus k x
/// `step_seconds`, and its context is `source.context(clock)` (a `slurm_cluster_builder`) or
/// `source(clock)` (any callable). The clock is back at its start time afterwards.
template <class F, std::ranges::forward_range Jobs, class Source>
check_result check_monotone_in_time(const F& f, const Jobs& jobs, test_clock& clock, const Source& source,
                                    std::int64_t step_seconds, monotone d, int steps = 16) {
    const std::int64_t start = clock.now();
    const auto context_at = [&](int k) {
        clock.set(start + step_seconds * k);
        if constexpr (std::invocable<const Source&, const test_clock&>) return source(clock);
        else return source.context(clock);
    };
    using Ctx = std::remove_cvref_t<std::invoke_result_t<decltype(context_at)&, int>>;
    using J = detail::job_of<Jobs>;
    static_assert(assert_factor_policy<F, J, Ctx>(), "mfprio::testing: not a factor policy (the error above says why)");
    if constexpr (factor_policy<F, J, Ctx>) {
        std::vector<Ctx> contexts;
        for (int k = 0; k < steps; ++k) contexts.push_back(context_at(k));
        clock.set(start);
        return detail::monotone_check(F::name, "as the clock moves by " + detail::number(step_seconds) + " s a step",
                                      jobs,
                                      [&](const J& j, int k) { return f(j, contexts[static_cast<std::size_t>(k)]); },
                                      d, steps);
    } else {
        return {false, "not a factor policy"};
    }
}

// ---------------------------------------------------------------- breakdowns and order

/// One job's breakdown as a table: every term's name, raw factor, weight and contribution,
/// then the sum and the priority. `e` is an engine (anything with `explain(job, context)`).
template <class E, class J, class Ctx>
std::string explain_text(const E& e, const J& j, const Ctx& c) {
    const auto why = e.explain(j, c);
    detail::table t({"", detail::job_name(j)}, {1, 3});
    t.row({"term", "factor", "weight", "contribution"});
    t.rule();
    for (const auto& term : why.terms)
        t.row({std::string(term.name), detail::number(term.factor), detail::number(term.weight),
               detail::number(term.contribution)});
    t.rule();
    t.row({"sum", "", "", detail::number(why.score)});
    t.row({"priority", "", "", detail::priority_text(why.priority)});
    return t.render();
}

/// Two jobs' breakdowns side by side, with the difference of each contribution, of the sums
/// and of the priorities (first minus second): the line that explains why one job is ahead
/// of the other.
template <class E, class J, class Ctx>
std::string explain_side_by_side(const E& e, const J& a, const J& b, const Ctx& c) {
    const auto wa = e.explain(a, c);
    const auto wb = e.explain(b, c);
    const std::string na = detail::job_name(a), nb = detail::job_name(b);
    detail::table t({"", na, nb, na + " - " + nb}, {1, 3, 3, 1});
    t.row({"term", "factor", "weight", "contribution", "factor", "weight", "contribution", "contribution"});
    t.rule();
    for (std::size_t k = 0; k < wa.terms.size(); ++k) {
        const auto& x = wa.terms[k];
        const auto& y = wb.terms[k];
        t.row({std::string(x.name), detail::number(x.factor), detail::number(x.weight), detail::number(x.contribution),
               detail::number(y.factor), detail::number(y.weight), detail::number(y.contribution),
               detail::number(x.contribution - y.contribution)});
    }
    t.rule();
    t.row({"sum", "", "", detail::number(wa.score), "", "", detail::number(wb.score),
           detail::number(wa.score - wb.score)});
    t.row({"priority", "", "", detail::priority_text(wa.priority), "", "", detail::priority_text(wb.priority),
           detail::number(static_cast<double>(detail::priority_key(wa.priority)) -
                          static_cast<double>(detail::priority_key(wb.priority)))});
    return t.render();
}

/// Job `a` is ahead of job `b` in the queue: its priority is strictly higher. (Equal
/// priorities are not an order: the scheduler's tie-break decides, e.g. Slurm's earlier
/// submit time, then lower job id.) On failure the message shows both breakdowns side by
/// side.
template <class E, class J, class Ctx>
check_result check_before(const E& e, const J& a, const J& b, const Ctx& c) {
    const auto pa = e.priority(a, c);
    const auto pb = e.priority(b, c);
    if (detail::priority_key(pa) > detail::priority_key(pb)) return {};
    const std::string na = detail::job_name(a), nb = detail::job_name(b);
    std::string head = na + " should be ahead of " + nb + ", but ";
    if (detail::priority_key(pa) == detail::priority_key(pb))
        head += "both have priority " + detail::priority_text(pa) + " (a tie is not an order)\n";
    else
        head += "its priority " + detail::priority_text(pa) + " is below " + detail::priority_text(pb) + "\n";
    return {false, head + explain_side_by_side(e, a, b, c)};
}

/// The queue order of the jobs with ids `expected`, first to be scheduled first: each job's
/// priority strictly above the next one's (jobs of the set not listed are not checked). On
/// failure the message gives the expected order, the actual order of the whole set (by
/// priority, highest first, with the priorities), and both breakdowns of the first pair out of
/// order side by side.
template <class E, std::ranges::forward_range Jobs, class Ctx>
    requires has_id<detail::job_of<Jobs>>
check_result check_order(const E& e, const Jobs& jobs, const Ctx& c, const std::vector<std::uint64_t>& expected) {
    using J = detail::job_of<Jobs>;
    std::vector<const J*> all;
    for (const J& j : jobs) all.push_back(&j);
    const auto id_of = [](const J& j) { return static_cast<std::uint64_t>(job_traits<J>::id(j)); };
    std::vector<const J*> listed;
    for (const std::uint64_t id : expected) {
        const auto it = std::find_if(all.begin(), all.end(), [&](const J* j) { return id_of(*j) == id; });
        if (it == all.end())
            return {false, "no job with id " + detail::number(id) + " among the " + detail::number(all.size()) +
                               " jobs\n"};
        if (std::find(listed.begin(), listed.end(), *it) != listed.end())
            return {false, "job " + detail::number(id) + " is listed twice in the expected order\n"};
        listed.push_back(*it);
    }
    if (listed.size() < 2)
        return {false, "an order needs at least 2 jobs, got " + detail::number(listed.size()) + "\n"};

    using P = decltype(e.priority(std::declval<const J&>(), c));
    std::vector<P> prio;
    for (const J* j : all) prio.push_back(e.priority(*j, c));
    const auto priority_of = [&](const J* j) {
        return prio[static_cast<std::size_t>(std::find(all.begin(), all.end(), j) - all.begin())];
    };
    std::vector<std::size_t> bad;
    for (std::size_t k = 0; k + 1 < listed.size(); ++k)
        if (!(detail::priority_key(priority_of(listed[k])) > detail::priority_key(priority_of(listed[k + 1]))))
            bad.push_back(k);
    if (bad.empty()) return {};

    std::vector<std::size_t> order(all.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
        return detail::priority_key(prio[x]) > detail::priority_key(prio[y]);
    });
    std::string msg = "queue order differs from the expected one\n  expected: ";
    for (std::size_t k = 0; k < listed.size(); ++k) msg += (k ? ", " : "") + detail::number(id_of(*listed[k]));
    msg += "\n  actual:   ";
    for (std::size_t k = 0; k < order.size(); ++k)
        msg += (k ? ", " : "") + detail::number(id_of(*all[order[k]])) + " at " + detail::priority_text(prio[order[k]]);
    msg += "\n  (every job of the set by priority, highest first; equal priorities in the order given)\n";
    for (const std::size_t k : bad) {
        const J& a = *listed[k];
        const J& b = *listed[k + 1];
        msg += "  " + detail::job_name(a) + " should be ahead of " + detail::job_name(b) + ": priority " +
               detail::priority_text(priority_of(&a)) + " vs " + detail::priority_text(priority_of(&b)) + "\n";
    }
    const J& a = *listed[bad.front()];
    const J& b = *listed[bad.front() + 1];
    return {false, msg + "first pair out of order, side by side:\n" + explain_side_by_side(e, a, b, c)};
}

} // namespace mfprio::testing

// ---------------------------------------------------------------- doctest macros

/// How a `check_result` is reported: doctest's `CHECK_MESSAGE` by default, expanded where the
/// macro is used (the suite includes doctest). Define it before including this header to
/// report through another framework.
#ifndef MFPRIO_TESTING_CHECK
#define MFPRIO_TESTING_CHECK(condition, message) DOCTEST_CHECK_MESSAGE(condition, message)
#endif

/// Evaluates a check and reports it under a name that reads as the failed condition.
#define MFPRIO_DETAIL_TESTING_REPORT(what, ...)                                                \
    do {                                                                                       \
        const ::mfprio::testing::check_result mfprio_detail_result = (__VA_ARGS__);            \
        const bool what = mfprio_detail_result.ok;                                             \
        MFPRIO_TESTING_CHECK(what, mfprio_detail_result.message);                              \
    } while (false)

/// `MFPRIO_CHECK_FACTOR_CONTRACT(factor, jobs, context, range)`: see `check_factor_contract`.
#define MFPRIO_CHECK_FACTOR_CONTRACT(...) \
    MFPRIO_DETAIL_TESTING_REPORT(factor_contract_holds, ::mfprio::testing::check_factor_contract(__VA_ARGS__))
/// `MFPRIO_CHECK_MONOTONE(factor, jobs, context, mutate, direction[, steps])`.
#define MFPRIO_CHECK_MONOTONE(...) \
    MFPRIO_DETAIL_TESTING_REPORT(factor_is_monotone, ::mfprio::testing::check_monotone(__VA_ARGS__))
/// `MFPRIO_CHECK_MONOTONE_IN_CONTEXT(factor, jobs, context_at, direction[, steps])`.
#define MFPRIO_CHECK_MONOTONE_IN_CONTEXT(...) \
    MFPRIO_DETAIL_TESTING_REPORT(factor_is_monotone, ::mfprio::testing::check_monotone_in_context(__VA_ARGS__))
/// `MFPRIO_CHECK_MONOTONE_IN_TIME(factor, jobs, clock, source, step_seconds, direction[, steps])`.
#define MFPRIO_CHECK_MONOTONE_IN_TIME(...) \
    MFPRIO_DETAIL_TESTING_REPORT(factor_is_monotone, ::mfprio::testing::check_monotone_in_time(__VA_ARGS__))
/// `MFPRIO_CHECK_BEFORE(engine, a, b, context)`: see `check_before`.
#define MFPRIO_CHECK_BEFORE(...) \
    MFPRIO_DETAIL_TESTING_REPORT(job_is_ahead, ::mfprio::testing::check_before(__VA_ARGS__))
/// `MFPRIO_CHECK_ORDER(engine, jobs, context, {ids, first to last})`: see `check_order`.
#define MFPRIO_CHECK_ORDER(...) \
    MFPRIO_DETAIL_TESTING_REPORT(queue_order_as_expected, ::mfprio::testing::check_order(__VA_ARGS__))
