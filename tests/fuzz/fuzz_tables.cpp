// Pipe tables (config/table.hpp) and the tables built on them: QOS (sacctmgr show qos -P),
// associations (sshare -a -l -P), queue and bank priorities, Maui's nodes.
#include <mfprio/read/assoc_table.hpp>
#include <mfprio/read/flux_tables.hpp>
#include <mfprio/read/maui_jobs.hpp>
#include <mfprio/read/qos_table.hpp>
#include <mfprio/text/table.hpp>

#include "fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace cfg = mfprio::config;
    const auto text = mfprio_fuzz::text_of(data, size);
    const auto t = cfg::parse_table(text, "fuzz.txt");
    if (!t) {
        mfprio_fuzz::check(t.error(), "fuzz.txt", text);
        return 0;
    }
    if (auto q = cfg::qos_table_from(*t); !q) mfprio_fuzz::check(q.error(), "fuzz.txt", text);
    if (auto a = cfg::assoc_table_from(*t); !a) mfprio_fuzz::check(a.error(), "fuzz.txt", text);
    if (auto n = cfg::maui_nodes_from(*t); !n) mfprio_fuzz::check(n.error(), "fuzz.txt", text);
    if (auto p = cfg::parse_queue_table(text, "fuzz.txt"); !p) mfprio_fuzz::check(p.error(), "fuzz.txt", text);
    if (auto p = cfg::parse_bank_table(text, "fuzz.txt"); !p) mfprio_fuzz::check(p.error(), "fuzz.txt", text);
    return 0;
}
