// One Slurm priority computed through the installed (or subproject) mfprio headers, checked
// against the value worked out by hand below. Exit status 0 when it matches.

#include <mfprio/mfprio.hpp>

#include <cstdio>

int main() {
    namespace ms = mfprio::slurm;

    // One partition (PriorityJobFactor 1 of a largest 2; 2048 CPUs), two QOS (Priority 3
    // and a largest 4), one association (fair-share factor 0.25).
    const double part_tres[] = {2048.0}; // TRES id 0: CPUs
    ms::partition_info partitions[1]{};
    partitions[0].priority_job_factor = 1;
    partitions[0].norm_priority = 0.5;
    partitions[0].tres_totals = part_tres;
    ms::qos_info qos[2]{};
    qos[0].priority = 3;
    qos[0].norm_priority = 0.75;
    qos[1].priority = 4;
    qos[1].norm_priority = 1.0;
    const double fairshare[] = {0.25};

    ms::context ctx{};
    ctx.now = 1'000'000'000;
    ctx.node_count = 64;
    ctx.cluster_cpus = 2048;
    ctx.partitions = partitions;
    ctx.qos = qos;
    ctx.fairshare = fairshare;

    const double job_tres[] = {512.0}; // the TRES request table: one row, one column (CPUs, TRES id 0)
    ctx.tres_requests = ms::tres_table{job_tres, 1, {}};
    mfprio::job j{};
    j.association = 0;
    j.partition = 0;
    j.qos = 0;
    j.accrue_time = ctx.now - 201'600; // a third of PriorityMaxAge=7-0
    j.min_nodes = 16;
    j.cpus = 512;
    j.site_factor = 7;
    j.nice = 10;
    j.tres_row = 0;

    ms::settings s{};
    s.max_age = 604'800;
    s.tres.add(ms::tres_id::cpu, 2000.0); // PriorityWeightTRES=CPU=2000
    // PriorityWeightAge=1000 Assoc=0 Fairshare=10000 JobSize=1000 Partition=1000 QOS=2000
    const auto engine = ms::make_multifactor(ms::weights{1000, 0, 10000, 1000, 1000, 2000}, s);

    // age 1000/3 + fair-share 2500 + job size (16/64 + 512/2048)/2 * 1000 = 250
    // + partition 500 + QOS 1500 + TRES 512/2048 * 2000 = 500 + site 7 - nice 10
    // = 5580.33..., truncated to 5580.
    const mfprio::priority_value p = engine.priority(j, ctx);
    if (p.value != 5580u || p.status != mfprio::priority_status::computed) {
        std::printf("mfprio consumer: expected priority 5580 (computed), got %u (status %d)\n",
                    static_cast<unsigned>(p.value), static_cast<int>(p.status));
        return 1;
    }
    std::printf("mfprio consumer: priority %u, as expected\n", static_cast<unsigned>(p.value));
    return 0;
}
