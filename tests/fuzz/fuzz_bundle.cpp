// `--from DIR` on mutated bundles: the input is a bundle as one text, each file opened by a
// line `@@@ NAME` (tests/fuzz/bundle/ holds seeds made from the live captures). The files are
// written into a directory; without a `manifest` among them a correct one is written (so that
// mutations reach the readers), with one it is taken as given (so that the manifest check is
// fuzzed too). `mfprio sprio`, `sshare` or `whatif --json` then reads the bundle (chosen by
// the input's length), and must end with its output (0), or an error (65) whose last line is
// "mfprio: " and a file of the bundle; never a crash, an exception, a hang or another status.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

#include "cli.hpp"
#include "live.hpp"

#include "fuzz.hpp"

namespace {

/// The directory the bundle is written into, made once per process.
const std::string& bundle_dir() {
    static const std::string dir = [] {
        std::string t = std::filesystem::temp_directory_path().string() + "/mfprio-fuzz-bundle.XXXXXX";
        if (mkdtemp(t.data()) == nullptr) std::abort();
        return t;
    }();
    return dir;
}

bool valid_name(std::string_view n) {
    if (n.empty() || n.size() > 64 || n == "." || n == "..") return false;
    for (const char c : n)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.'))
            return false;
    return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace fs = std::filesystem;
    const std::string_view text = mfprio_fuzz::text_of(data, size);
    const std::string& dir = bundle_dir();
    for (const auto& e : fs::directory_iterator(dir)) fs::remove(e.path());
    // The files: `@@@ NAME` at the start of a line opens one, up to the next such line.
    std::vector<std::pair<std::string, std::string>> files;
    std::size_t at = 0;
    while (at < text.size() && files.size() < 16) {
        if (!text.substr(at).starts_with("@@@ ")) {
            const std::size_t next = text.find("\n@@@ ", at);
            if (next == std::string_view::npos) break;
            at = next + 1;
            continue;
        }
        const std::size_t eol = text.find('\n', at);
        const std::string name(text.substr(at + 4, eol == std::string_view::npos ? std::string_view::npos : eol - at - 4));
        const std::size_t start = eol == std::string_view::npos ? text.size() : eol + 1;
        std::size_t end = text.find("\n@@@ ", start);
        end = end == std::string_view::npos ? text.size() : end + 1;
        if (valid_name(name)) files.emplace_back(name, std::string(text.substr(start, end - start)));
        at = end;
    }
    bool manifest = false;
    for (const auto& [name, content] : files) {
        std::ofstream(dir + "/" + name, std::ios::binary) << content;
        manifest = manifest || name == "manifest";
    }
    if (!manifest) {
        std::vector<std::pair<std::string, std::string_view>> listed;
        for (const auto& file : files) {
            // The last file of a name is the one on disk.
            std::erase_if(listed, [&](const auto& f) { return f.first == file.first; });
            listed.emplace_back(file.first, file.second);
        }
        std::ofstream(dir + "/manifest", std::ios::binary) << mfprio::inputs::manifest_text(listed);
    }
    using args = std::vector<std::string_view>;
    const args commands[] = {{"sprio", "--from", dir},
                             {"sshare", "--from", dir},
                             {"whatif", "--from", dir, "--set", "PriorityWeightAge=7", "--json"}};
    const auto o = mfprio::cli::run_main(commands[size % 3]);
    if (o.status == 0) return 0;
    if (o.status != mfprio::cli::exit_data) mfprio_fuzz::broken("a status other than 0 and 65", o.err);
    const std::size_t last = o.err.rfind('\n', o.err.size() >= 2 ? o.err.size() - 2 : 0);
    const std::string line = o.err.substr(last == std::string::npos ? 0 : last + 1);
    if (!line.starts_with("mfprio: " + dir)) mfprio_fuzz::broken("an error that names no file of the bundle", o.err);
    return 0;
}
