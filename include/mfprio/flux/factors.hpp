#pragma once
/// \file
/// Flux's priority factors, as factor policies over `flux::context` (reference flux_maui.md
/// A1, A2.1, A2.4; seed 003):
///
/// - `queue_factor`: flux-accounting's queue term, the priority of the job's queue (an integer
///   in the accounting database), 0 when the job names no queue or a queue flux-accounting
///   does not know;
/// - `bank_factor`: flux-accounting's bank term, the priority of the job's bank (a double),
///   0 when the bank is unknown;
/// - `urgency_factor`: flux-accounting's urgency term, `urgency - 16`, so that the default
///   urgency (16) adds nothing, lower urgencies subtract and higher ones add;
/// - `urgency_value`: flux-core's default priority plugin, priority = urgency (0..31);
/// - `fcfs_factor`: the first-come first-served scheme of Flux's early scheduler design (seed
///   003): each job one below the last submitted, the first at 0xFFFFFFFF;
/// - `fairshare_factor`: flux-accounting's per-association fair-share, which lives in the
///   context's fair-share column exactly as Slurm's does (the same factor type).
///
/// Unlike flux-accounting (reference A2.4.1), the queue and bank factors are resolved from the
/// job's own queue and bank each time the priority is calculated. The plugin keeps a single
/// queue factor per association, overwritten by that association's latest submitted job, so
/// that a reprioritization gives all of its jobs the last job's queue priority, and edited
/// queue or bank priorities reach pending jobs only when a new job arrives. These factors do
/// not keep that state: two jobs of one association in different queues get their own
/// queues' priorities, and a new queue table takes effect at the next pass.
/// `config::replay_flux_plugin` (`config/flux_plugin.hpp`) keeps the plugin's cache and
/// evaluates these factors over it.
///
/// Every factor is a plain lookup or subtraction: O(1), no allocation, `noexcept`. Urgencies
/// above 31 are not valid in Flux (RFC 30) and are not checked here: they enter the formulas
/// as given.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include <mfprio/core/job.hpp>
#include <mfprio/flux/context.hpp>
#include <mfprio/flux/job.hpp>
#include <mfprio/slurm/fairshare.hpp>

namespace mfprio::flux {

/// flux-accounting's queue factor: `context::queue_priority` at the job's queue index, as a
/// double. 0 when the job gives no queue (`no_index`) or its index is past the table (a queue
/// flux-accounting does not know), as the plugin's queue lookup returns 0 in both cases
/// (reference A2.1). (A queue the association may not use is rejected at submission by
/// flux-accounting; that validation is outside mfprio.) Read from the job's own queue at
/// calculation time, not from the association (reference A2.4.1; see the file comment).
struct queue_factor {
    static constexpr std::string_view name = "queue";

    /// The factor of job `j` (see above).
    template <class J>
        requires has_queue<J>
    [[nodiscard]] constexpr double operator()(const J& j, const context& c) const noexcept {
        const auto q = static_cast<std::uint64_t>(job_traits<J>::queue(j));
        return q < c.queue_priority.size() ? static_cast<double>(c.queue_priority[static_cast<std::size_t>(q)]) : 0.0;
    }
};

/// flux-accounting's bank factor: `context::bank_priority` at the job's bank index (a double;
/// flux-accounting's test t1054 uses 3.5). 0.0 when the job has no bank or its index is past
/// the table (an unknown bank, reference A2.1). Read from the job's own bank at calculation
/// time (reference A2.4.1).
struct bank_factor {
    static constexpr std::string_view name = "bank";

    /// The factor of job `j` (see above).
    template <class J>
        requires has_bank<J>
    [[nodiscard]] constexpr double operator()(const J& j, const context& c) const noexcept {
        const auto b = static_cast<std::uint64_t>(job_traits<J>::bank(j));
        return b < c.bank_priority.size() ? c.bank_priority[static_cast<std::size_t>(b)] : 0.0;
    }
};

/// flux-accounting's urgency term: `urgency - 16` (reference A2.1), from -16 to +15 for the
/// urgencies Flux allows. The urgency weight (default 1000) multiplies it. Urgencies 0 (hold)
/// and 31 (expedite) never reach the sum: the result policy decides them first.
struct urgency_factor {
    static constexpr std::string_view name = "urgency";

    /// The factor of job `j` (see above).
    template <class J>
        requires has_urgency<J>
    [[nodiscard]] constexpr double operator()(const J& j, const context&) const noexcept {
        return static_cast<double>(static_cast<std::int64_t>(job_traits<J>::urgency(j)) - 16);
    }
};

/// The urgency itself, 0..31: flux-core's default priority plugin sets priority = urgency
/// (reference A1). Used with weight 1 by `make_flux_core_engine`.
struct urgency_value {
    static constexpr std::string_view name = "flux_urgency";

    /// The factor of job `j` (see above).
    template <class J>
        requires has_urgency<J>
    [[nodiscard]] constexpr double operator()(const J& j, const context&) const noexcept {
        return static_cast<double>(job_traits<J>::urgency(j));
    }
};

/// The first-come first-served priority of seed 003: each job one below the previously
/// submitted one, the first at 0xFFFFFFFF, i.e. `4294967295 - submit_seq`, exact in a
/// double. Floored at 0: after 2^32 - 1 submissions the value reaches 0, which in flux-core
/// holds the job (priority 0 is "priority-hold", reference A1), so the scheme needs the
/// sequence to be restarted before that.
struct fcfs_factor {
    static constexpr std::string_view name = "fcfs";

    /// The factor of job `j` (see above).
    template <class J>
        requires has_submit_seq<J>
    [[nodiscard]] constexpr double operator()(const J& j, const context&) const noexcept {
        const auto seq = static_cast<std::uint64_t>(job_traits<J>::submit_seq(j));
        return seq >= std::uint64_t{priority_max} ? 0.0 : static_cast<double>(std::uint64_t{priority_max} - seq);
    }
};

/// flux-accounting's fair-share factor: the association's value from the weighted-tree pass
/// (`fairshare::flux_tree`, in (0, 1]; 0.5 for an association not ranked yet), kept in the
/// context's `fairshare` column by association index. The lookup is Slurm's, so this is
/// `slurm::fairshare_factor` (name "fairshare"): 0 for an association past the column.
using fairshare_factor = slurm::fairshare_factor;

} // namespace mfprio::flux
