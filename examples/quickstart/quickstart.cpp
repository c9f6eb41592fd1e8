// The README's example: seed 000's weights on one job, with compile-time weights.
#include <cstdio>
#include <mfprio/mfprio.hpp>

int main() {
    using namespace mfprio;
    slurm::cluster cl;                              // 10 nodes, 320 CPUs
    cl.set_totals(10, 320);
    cl.add_partition("batch", 1, 1, infinite32);    // PriorityJobFactor 1, tier 1
    cl.add_qos("normal", 0);
    const auto alice = cl.add_association("B", "user1", 0.408479); // seed 000, user 1
    cl.finalize();
    // PriorityWeightAge=1000 Assoc=0 Fairshare=10000 JobSize=1000 Partition=1000 QOS=0
    constexpr auto engine = slurm::make_fixed_multifactor<1000, 0, 10000, 1000, 1000, 0>({.max_age = 14 * 86400});
    const std::int64_t now = 1795262400;
    const job j{.id = 101, .association = alice, .submit_time = now - 7 * 86400, .accrue_time = now - 7 * 86400, .cpus = 32};
    const auto why = engine.explain(j, cl.view(now));
    for (const auto& t : why.terms) std::printf("%-9s %9.6f x %5.0f = %8.2f\n", t.name.data(), t.factor, t.weight, t.contribution);
    std::printf("priority %u\n", why.priority.value);  // 500 + 4084.79 + 100 + 1000 -> 5684
    return why.priority.value == 5684 ? 0 : 1;
}
