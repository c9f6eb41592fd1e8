// Tests for mfprio/core/job.hpp: the job record, job_traits (default and specialized), and the
// has_* concepts factors are constrained on.
#include <mfprio/core/factor.hpp>
#include <mfprio/core/job.hpp>
#include <mfprio/core/result.hpp>
#include <mfprio/slurm/age.hpp>
#include <mfprio/slurm/job_size.hpp>

#include <cstdint>
#include <span>
#include <type_traits>

#include <doctest/doctest.h>

namespace {

/// A scheduler's own job: same member names as mfprio::job for the ones it has, a different
/// layout and different integer types, and extra members of its own.
struct my_job {
    char label[8] = {};
    std::uint16_t cpus = 1;
    long long accrue_time = 0;
    int min_nodes = 1;
    unsigned partition = 0;
    std::uint32_t time_limit = mfprio::no_val32;
    double memory_gb = 0.0;
};

/// A job whose fields have other names: read through a job_traits specialization.
struct legacy_job {
    unsigned long long eligible_since = 0;
    unsigned node_req = 1;
    unsigned cpu_req = 1;
    unsigned part_idx = 0;
    unsigned wall_minutes = 0; // 0 = none requested here
    bool on_hold = false;
};

/// A job that carries its TRES counts (by TRES id) and its partition and QOS lists itself.
struct list_job {
    std::span<const double> tres{};
    std::span<const std::uint32_t> partitions{};
    std::span<const std::uint32_t> qos_list{};
};

/// No accrue time at all.
struct no_accrue_job {
    std::uint32_t min_nodes = 1;
};

} // namespace

template <>
struct mfprio::job_traits<legacy_job> {
    static constexpr std::int64_t accrue_time(const legacy_job& j) noexcept { return static_cast<std::int64_t>(j.eligible_since); }
    static constexpr std::uint32_t min_nodes(const legacy_job& j) noexcept { return j.node_req; }
    static constexpr std::uint32_t cpus(const legacy_job& j) noexcept { return j.cpu_req; }
    static constexpr std::uint32_t partition(const legacy_job& j) noexcept { return j.part_idx; }
    static constexpr std::uint32_t time_limit(const legacy_job& j) noexcept {
        return j.wall_minutes == 0 ? mfprio::no_val32 : j.wall_minutes;
    }
    static constexpr mfprio::job_state state(const legacy_job& j) noexcept {
        return j.on_hold ? mfprio::job_state::held : mfprio::job_state::pending;
    }
};

TEST_CASE("core: mfprio::job defaults") {
    const mfprio::job j{};
    CHECK(j.state == mfprio::job_state::pending);
    CHECK(j.min_nodes == 1u);
    CHECK(j.cpus == 1u);
    CHECK(j.time_limit == mfprio::no_val32);
    CHECK(j.accrue_time == 0);
    CHECK(j.nice == 0);
    CHECK(j.site_factor == 0);
    CHECK(j.admin_priority == 0u);
    CHECK(j.tres_row == mfprio::no_tres_row); // requests no TRES
    CHECK(j.partition == 0u);
    CHECK(j.qos == 0u);
    // Slurm's sentinels (slurm.md 0/1.1): NO_VAL = 0xfffffffe, INFINITE = 0xffffffff
    CHECK(mfprio::no_val32 == 0xfffffffeu);
    CHECK(mfprio::infinite32 == 0xffffffffu);
}

TEST_CASE("core: mfprio::job is one 64-byte cache line") {
    // The layout documented in job.hpp: a pass over a million jobs streams 64 MB of records.
    CHECK(sizeof(mfprio::job) == 64);
    CHECK(alignof(mfprio::job) == 8);
}

TEST_CASE("core: job_traits reads mfprio::job's members") {
    mfprio::job j{};
    j.id = 42;
    j.accrue_time = 1700000000;
    j.cpus = 64;
    j.nice = -10;
    using T = mfprio::job_traits<mfprio::job>;
    CHECK(T::id(j) == 42u);
    CHECK(T::accrue_time(j) == 1700000000);
    CHECK(T::cpus(j) == 64u);
    CHECK(T::nice(j) == -10);
    static_assert(std::is_same_v<decltype(T::nice(j)), std::int32_t>);
    static_assert(noexcept(T::accrue_time(j)));
}

TEST_CASE("core: job_traits reads a scheduler's own job with a different layout") {
    my_job j{};
    j.cpus = 128;
    j.accrue_time = 1000;
    j.min_nodes = 4;
    using T = mfprio::job_traits<my_job>;
    CHECK(T::cpus(j) == 128);
    static_assert(std::is_same_v<decltype(T::cpus(j)), std::uint16_t>); // its own type, not ours
    CHECK(T::accrue_time(j) == 1000);
    CHECK(T::min_nodes(j) == 4);

    // Factors work on it unchanged. reference slurm.md 1.1 Age: diff/max_age with
    // now - accrue = 3000 - 1000 = 2000 and max_age = 8000: 2000/8000 = 0.25.
    mfprio::slurm::context c{};
    c.now = 3000;
    CHECK(mfprio::slurm::age_factor{8000}(j, c) == 0.25);
    // Job size, favor large: N = 8, C = 256, n = 4, c = 128: (4/8 + 128/256)/2 = 0.5.
    c.node_count = 8;
    c.cluster_cpus = 256;
    CHECK(mfprio::slurm::job_size_factor{}(j, c) == 0.5);
}

TEST_CASE("core: a job_traits specialization maps other field names") {
    legacy_job j{};
    j.eligible_since = 500;
    j.node_req = 2;
    j.cpu_req = 16;
    j.wall_minutes = 4;
    mfprio::slurm::context c{};
    c.now = 500 + 302400;
    // Age: 302400 / 604800 (default max age) = 0.5
    CHECK(mfprio::slurm::age_factor{}(j, c) == 0.5);
    // Job size, SMALL_RELATIVE_TO_TIME (slurm.md 1.1): N = 8, C = 256, n = 2, c = 16, T = 4:
    // max(2*256/8, 16) = 64; 64/4/256 = 0.0625.
    c.node_count = 8;
    c.cluster_cpus = 256;
    CHECK(mfprio::slurm::job_size_factor{false, true}(j, c) == 0.0625);
    // The specialization's state() is honoured by the result policy.
    j.on_hold = true;
    bool called = false;
    const auto p = mfprio::slurm_result{}(j, [&]() noexcept { called = true; return 10.0; });
    CHECK(p == mfprio::priority_value{0u, mfprio::priority_status::held});
    CHECK_FALSE(called);
}

TEST_CASE("core: has_* concepts say exactly which fields a job type has") {
    // mfprio::job has them all.
    CHECK(mfprio::has_id<mfprio::job>);
    CHECK(mfprio::has_user<mfprio::job>);
    CHECK(mfprio::has_association<mfprio::job>);
    CHECK(mfprio::has_partition<mfprio::job>);
    CHECK(mfprio::has_qos<mfprio::job>);
    CHECK(mfprio::has_state<mfprio::job>);
    CHECK(mfprio::has_submit_time<mfprio::job>);
    CHECK(mfprio::has_accrue_time<mfprio::job>);
    CHECK(mfprio::has_min_nodes<mfprio::job>);
    CHECK(mfprio::has_cpus<mfprio::job>);
    CHECK(mfprio::has_time_limit<mfprio::job>);
    CHECK(mfprio::has_nice<mfprio::job>);
    CHECK(mfprio::has_site_factor<mfprio::job>);
    CHECK(mfprio::has_admin_priority<mfprio::job>);
    CHECK(mfprio::has_tres_row<mfprio::job>);
    // ... but not the members a scheduler's own job type may carry instead: a span of TRES
    // counts, and the partition and QOS lists (mfprio::job keeps those outside the record).
    CHECK_FALSE(mfprio::has_tres<mfprio::job>);
    CHECK_FALSE(mfprio::has_partitions<mfprio::job>);
    CHECK_FALSE(mfprio::has_qos_list<mfprio::job>);
    CHECK(mfprio::has_tres<list_job>);
    CHECK(mfprio::has_partitions<list_job>);
    CHECK(mfprio::has_qos_list<list_job>);
    CHECK_FALSE(mfprio::has_tres_row<list_job>);

    // my_job: only the members it declares.
    CHECK(mfprio::has_cpus<my_job>);
    CHECK(mfprio::has_accrue_time<my_job>);
    CHECK(mfprio::has_min_nodes<my_job>);
    CHECK(mfprio::has_partition<my_job>);
    CHECK(mfprio::has_time_limit<my_job>);
    CHECK_FALSE(mfprio::has_id<my_job>);
    CHECK_FALSE(mfprio::has_state<my_job>);
    CHECK_FALSE(mfprio::has_nice<my_job>);
    CHECK_FALSE(mfprio::has_tres<my_job>);
    CHECK_FALSE(mfprio::has_admin_priority<my_job>);

    // legacy_job: through its specialization only (its own member names do not count).
    CHECK(mfprio::has_accrue_time<legacy_job>);
    CHECK(mfprio::has_state<legacy_job>);
    CHECK(mfprio::has_cpus<legacy_job>);
    CHECK_FALSE(mfprio::has_nice<legacy_job>);
    CHECK_FALSE(mfprio::has_association<legacy_job>);

    CHECK(mfprio::has_min_nodes<no_accrue_job>);
    CHECK_FALSE(mfprio::has_accrue_time<no_accrue_job>);
    CHECK_FALSE(mfprio::has_cpus<no_accrue_job>);
    CHECK_FALSE(mfprio::has_id<int>);
}

TEST_CASE("core: factors accept exactly the job types that have their fields") {
    using ctx = mfprio::slurm::context;
    CHECK(mfprio::factor_policy<mfprio::slurm::age_factor, mfprio::job, ctx>);
    CHECK(mfprio::factor_policy<mfprio::slurm::age_factor, my_job, ctx>);
    CHECK(mfprio::factor_policy<mfprio::slurm::age_factor, legacy_job, ctx>);
    CHECK_FALSE(mfprio::factor_policy<mfprio::slurm::age_factor, no_accrue_job, ctx>);
    CHECK(mfprio::factor_policy<mfprio::slurm::job_size_factor, legacy_job, ctx>);
    CHECK_FALSE(mfprio::factor_policy<mfprio::slurm::job_size_factor, no_accrue_job, ctx>);
}
