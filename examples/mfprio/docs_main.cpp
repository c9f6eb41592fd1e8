// mfprio_docs man|bash: prints mfprio's man page or its bash completion (docs.hpp), for the
// build to install.
#include <cstdio>
#include <string>
#include <string_view>

#include "docs.hpp"

int main(int argc, char** argv) {
    const std::string_view what = argc == 2 ? argv[1] : "";
    std::string text;
    if (what == "man") text = mfprio::cli::render_man();
    else if (what == "bash") text = mfprio::cli::render_bash_completion();
    else {
        std::fputs("usage: mfprio_docs man|bash\n", stderr);
        return 2;
    }
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
}
