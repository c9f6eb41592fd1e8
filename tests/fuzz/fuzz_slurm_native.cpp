// What Slurm's commands print (read/slurm_native.hpp, read/scontrol.hpp, read/squeue.hpp): the kind told from the content, and
// scontrol's records, `scontrol show config`, `scontrol show job` and squeue's text read.
#include <mfprio/read/slurm_native.hpp>

#include "fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace cfg = mfprio::config;
    const auto text = mfprio_fuzz::text_of(data, size);
    (void)cfg::detect_kind(text);
    (void)cfg::scontrol_records(text);
    (void)cfg::config_as_slurm_conf(text);
    (void)cfg::records_as_slurm_conf(text);
    if (auto t = cfg::scontrol_jobs_table(text, "fuzz.txt"); !t) mfprio_fuzz::check(t.error(), "fuzz.txt", text);
    if (auto t = cfg::squeue_text_table(text, "fuzz.txt"); !t) mfprio_fuzz::check(t.error(), "fuzz.txt", text);
    return 0;
}
