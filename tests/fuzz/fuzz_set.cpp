// `mfprio whatif --set` on any bytes: the input is a list of arguments separated by '\1'
// (each of which may hold line ends, control characters, '#', '=' or bytes that are not
// UTF-8), given as `--set ARG` over a small cluster (Fair Tree, a decay half-life, a running
// job; written once into a temporary directory), with `--after 7-0` when the input's length
// is odd and `--json` when it is a multiple of 3. The contract:
// - the status is 0 (compared) or 2 (a change refused, with a message naming it);
// - a change taken is one word on one line: no value holding a line end, a control
//   character, a space or '#' is ever taken (slurm.conf would read it as another key, an
//   Include or a comment);
// - with --json the output is one JSON document, valid UTF-8.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <mfprio/text/text.hpp>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "cli.hpp"

#include "fuzz.hpp"

namespace {

struct cluster {
    std::string conf, qos, assoc, jobs;
};

/// The cluster's files (the inputs of tests/data/whatif/decay*), written once per process.
const cluster& files() {
    static const cluster c = [] {
        std::string dir = std::filesystem::temp_directory_path().string() + "/mfprio-fuzz-set.XXXXXX";
        if (mkdtemp(dir.data()) == nullptr) std::abort();
        cluster f{dir + "/slurm.conf", dir + "/qos.txt", dir + "/assoc.txt", dir + "/jobs.txt"};
        std::ofstream(f.conf) << "AccountingStorageType=accounting_storage/slurmdbd\n"
                                 "PriorityType=priority/multifactor\nPriorityDecayHalfLife=1-0\nPriorityCalcPeriod=5\n"
                                 "PriorityMaxAge=1-0\nPriorityWeightAge=1000\nPriorityWeightFairshare=1000\n"
                                 "PriorityWeightQOS=100\nNodeName=n[1-4] CPUs=4 RealMemory=1000\n"
                                 "PartitionName=a Nodes=ALL Default=YES\nPartitionName=b Nodes=n[1-2]\n";
        std::ofstream(f.qos) << "Name|Priority|UsageFactor\nnormal|0|1.000000\nhigh|100|1.000000\n";
        std::ofstream(f.assoc) << "Account|User|RawShares|RawUsage\nroot|||1000\n chem||1|1000\n  chem|alice|1|1000\n"
                                  " phys||1|0\n  phys|carol|1|0\n";
        std::ofstream(f.jobs) << "JobID|User|Account|Partition|QOS|SubmitTime|State|NumCPUs|TRES\n"
                                 "1|alice|chem|a|normal|1|PENDING|1|cpu=1,node=1\n"
                                 "3|carol|phys|b|high|1|PENDING|1|cpu=1,node=1\n"
                                 "5|carol|phys|a|normal|1|RUNNING|1|cpu=1,node=1\n";
        return f;
    }();
    return c;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text = mfprio_fuzz::text_of(data, size);
    const cluster& f = files();
    std::vector<std::string> sets;
    for (std::size_t at = 0; at <= text.size() && sets.size() < 8;) {
        const std::size_t end = std::min(text.find('\1', at), text.size());
        sets.emplace_back(text.substr(at, end - at));
        at = end + 1;
    }
    std::vector<std::string_view> args = {"whatif", "--conf", f.conf, "--qos", f.qos, "--assoc", f.assoc,
                                          "--jobs", f.jobs, "--now", "100000"};
    for (const auto& s : sets) {
        args.push_back("--set");
        args.push_back(s);
    }
    if (size % 2 == 1) args.insert(args.end(), {"--after", "7-0"});
    const bool json = size % 3 == 0;
    if (json) args.push_back("--json");
    const auto o = mfprio::cli::run_main(args);
    if (o.status == mfprio::cli::exit_usage) {
        if (!o.err.starts_with("mfprio whatif: ")) mfprio_fuzz::broken("a refusal without the command's name", o.err);
        return 0;
    }
    if (o.status != 0) mfprio_fuzz::broken("a status other than 0 and 2", o.err);
    for (const auto& s : sets) {
        const std::size_t eq = s.find('=');
        if (eq == std::string::npos) mfprio_fuzz::broken("a change without '=' taken", s);
        std::string_view value = mfprio::text::trim(std::string_view(s).substr(eq + 1));
        for (const char c : value)
            if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f || c == ' ' || c == '#')
                mfprio_fuzz::broken("a value that is not one word on one line taken", s);
    }
    if (json) {
        const auto doc = nlohmann::json::parse(o.out, nullptr, false); // strict: invalid UTF-8 is an error
        if (doc.is_discarded()) mfprio_fuzz::broken("--json output that is not one valid JSON document", o.out);
    }
    return 0;
}
