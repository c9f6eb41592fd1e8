// The -o format strings of sprio (report/sprio.hpp) and sshare (report/sshare.hpp): refused
// with a reason, or parsed into fields whose line stays within config::max_format_line.
#include <mfprio/model/fairshare_tree.hpp>
#include <mfprio/fairshare/compute.hpp>
#include <mfprio/report/sprio.hpp>
#include <mfprio/report/sshare.hpp>

#include "fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace cfg = mfprio::config;
    const auto text = mfprio_fuzz::text_of(data, size);
    std::vector<mfprio::report::sprio_field> fields;
    const auto error = mfprio::report::parse_sprio_format(text, fields);
    if (error && error->empty()) std::abort(); // a refusal says why

    // sshare -o over a fixed tree of five rows (root, an account, a user; -a -l).
    static const auto tree = [] {
        auto ft = cfg::parse_fairshare_tree("Account|User|RawShares|RawUsage\nroot|||\n a||1|10\n  a|u|1|10\n"
                                            " b||2|\n");
        mfprio::fairshare::columns cols;
        mfprio::fairshare::compute(ft->tree, cols, mfprio::fairshare::options{});
        return std::pair{std::move(*ft), cols};
    }();
    mfprio::report::sshare_options o;
    o.all = true;
    o.long_list = true;
    o.format = std::string(text);
    const auto out = mfprio::report::render_sshare(tree.first.tree, tree.second, o);
    if (!out.error.empty()) return 0;
    // Header, rule, five rows: each line within the bound (plus its newline).
    if (out.text.size() > 7 * (cfg::max_format_line + 1)) std::abort();
    return 0;
}
