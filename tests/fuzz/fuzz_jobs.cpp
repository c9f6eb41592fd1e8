// The '|' jobs tables against a fixed cluster: Slurm's (config/jobs_table.hpp, with the headers
// squeue and sacct print) and Flux's (config/flux_model.hpp, with its queue and bank tables).
// What is accepted holds the readers' ranges.
#include <mfprio/model/flux_model.hpp>
#include <mfprio/read/jobs_table.hpp>

#include "fuzz.hpp"

namespace {
namespace cfg = mfprio::config;

struct cluster {
    cfg::slurm_conf conf;
    cfg::qos_table qos;
    cfg::assoc_table assoc;
    std::vector<cfg::flux_queue_row> queues;
    std::vector<cfg::flux_bank_row> banks;
};

const cluster& fixed() {
    static const cluster c = [] {
        cluster c;
        c.conf = *cfg::parse_slurm_conf("NodeName=n[1-4] CPUs=8 RealMemory=64000\n"
                                        "PartitionName=normal Nodes=ALL Default=YES\n"
                                        "PartitionName=gpu Nodes=n[3-4] PriorityTier=2\n");
        c.qos = *cfg::parse_qos_table("Name|Priority|UsageFactor\nnormal|0|1\nhigh|100|2\n");
        c.assoc = *cfg::parse_assoc_table("Account|User|Partition|RawShares|FairShare\nroot||||\n phys|||1|\n"
                                          "  phys|alice||1|0.5\n  phys|bob||1|0.25\n  phys|alice|gpu|1|0.75\n");
        c.queues = *cfg::parse_queue_table("Name|Priority\nbatch|0\nurgent|100\n");
        c.banks = *cfg::parse_bank_table("Name|Priority\nphys|1.5\n");
        return c;
    }();
    return c;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const cluster& c = fixed();
    const auto text = mfprio_fuzz::text_of(data, size);
    const std::size_t lines = mfprio_fuzz::line_count(text);
    const auto j = cfg::parse_jobs_table(text, "fuzz.txt", c.conf, c.qos, c.assoc);
    if (!j) {
        mfprio_fuzz::check(j.error(), "fuzz.txt", lines);
    } else {
        for (const auto& row : j->jobs) {
            if (row.job_id == 0 || row.line == 0 || row.line > lines) std::abort();
            if (row.submit_time < 0 || row.submit_time > cfg::max_epoch) std::abort();
            for (const auto& t : row.tres)
                if (!(t.second >= 0.0 && t.second < cfg::two_pow_64)) std::abort();
        }
    }
    const auto t = cfg::parse_table(text, "fuzz.txt");
    if (!t) return 0;
    cfg::flux_inputs in;
    in.jobs = &*t;
    in.assoc = &c.assoc;
    in.queues = &c.queues;
    in.banks = &c.banks;
    in.assoc_file = "fuzz.txt";
    const auto m = cfg::build_flux_model(in);
    if (!m) mfprio_fuzz::check(m.error(), "fuzz.txt", lines);
    return 0;
}
