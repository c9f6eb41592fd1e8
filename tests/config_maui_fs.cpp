// Tests for mfprio/read/maui_fs.hpp: Maui's `stats/FS.<epoch>` fair-share window files
// (reference flux_maui.md B3; layout from Maui 3.3's MFS.c as described in the header:
// a '#' header line, then `<type> <name> <usage>` lines written "%-10s %15s %12.3f" with the
// types user, group, acct, qos, class and the total; the loader takes `TOTAL` as the total
// and cuts lines at '#'), and the choice of files for a time `now`:
//   window i has start s0 - i * FSINTERVAL, s0 = now - now mod FSINTERVAL, i < FSDEPTH.
#include <mfprio/read/maui_fs.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <doctest/doctest.h>

namespace {
using namespace mfprio::config;
namespace maui = mfprio::maui;

constexpr std::size_t U = 0, G = 1, A = 2, Q = 3, C = 4; // cred_kind order

/// A fresh directory under the system temp directory, removed with its files at the end.
struct temp_dir {
    std::filesystem::path path;
    temp_dir() {
        std::random_device rd;
        const auto base = std::filesystem::temp_directory_path();
        for (int attempt = 0; attempt < 100; ++attempt) {
            auto p = base / ("mfprio_maui_fs_" + std::to_string(rd()) + "_" + std::to_string(attempt));
            if (std::filesystem::create_directory(p)) {
                path = p;
                return;
            }
        }
        FAIL("cannot create a temporary directory");
    }
    ~temp_dir() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
    temp_dir(const temp_dir&) = delete;
    temp_dir& operator=(const temp_dir&) = delete;

    void write(const std::string& name, const std::string& text) const {
        std::FILE* f = std::fopen((path / name).string().c_str(), "wb");
        REQUIRE(f != nullptr);
        std::fwrite(text.data(), 1, text.size(), f);
        std::fclose(f);
    }
    std::string str() const { return path.string(); }
};

/// The error of parsing `text` as file "FS.100" (must fail).
mfprio::input_error parse_error(const std::string& text) {
    const auto r = parse_fs_window(text, "FS.100", 100);
    REQUIRE_FALSE(r);
    return r.error();
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
} // namespace

TEST_CASE("config: maui FS file in Maui's own layout") {
    // As Maui writes it ("%-10s %15s %12.3f"), plus labels spelled as maui::cred_labels, a
    // comment after a value, blank lines and CRLF.
    const std::string text = "# FS Data File (Duration:  43200 seconds)  Starting: Mon Jul 16 00:00:00\n"
                             "user                 alice     1200.000\n"
                             "User bob 300\r\n"
                             "\n"
                             "group                   g1     1500.000\n"
                             "acct               physics     1000.250\n"
                             "Account chem 499.75   # trailing comment\n"
                             "qos                   high      800.000\n"
                             "class                batch     1500.000\n"
                             "TOTAL                  ALL     1500.000\n";
    const auto r = parse_fs_window(text, "stats/FS.1000", 1000);
    REQUIRE(r);
    const maui_fs_window& w = *r;
    CHECK(w.start == 1000);
    CHECK(w.file == "stats/FS.1000");
    REQUIRE(w.usage[U].size() == 2);
    CHECK(w.usage[U][0].first == "alice");
    CHECK(w.usage[U][0].second == 1200.0);
    CHECK(w.usage[U][1].first == "bob");
    CHECK(w.usage[U][1].second == 300.0);
    REQUIRE(w.usage[G].size() == 1);
    CHECK(w.usage[G][0].second == 1500.0);
    REQUIRE(w.usage[A].size() == 2);
    CHECK(w.usage[A][0].first == "physics");
    CHECK(w.usage[A][0].second == 1000.25);
    CHECK(w.usage[A][1].first == "chem");
    CHECK(w.usage[A][1].second == 499.75);
    REQUIRE(w.usage[Q].size() == 1);
    CHECK(w.usage[Q][0].first == "high");
    REQUIRE(w.usage[C].size() == 1);
    CHECK(w.usage[C][0].first == "batch");
    CHECK(w.has_total);
    CHECK(w.total == 1500.0);
}

TEST_CASE("config: maui FS total spellings, and the sum of users without one") {
    // `TOTAL <value>`, `TOTAL <name> <value>` and Maui's scheduler record `sched <name> <value>`.
    for (const char* line : {"TOTAL 42\n", "total ALL 42\n", "sched maui 42\n"}) {
        const auto r = parse_fs_window(std::string("user a 40\n") + line, "f", 0);
        REQUIRE(r);
        CHECK(r->has_total);
        CHECK(r->total == 42.0);
    }
    // No total line: the total is the sum of the User entries (1.5 + 2.25 = 3.75), not of
    // the other kinds.
    const auto r = parse_fs_window("user a 1.5\nuser b 2.25\ngroup g 100\n", "f", 0);
    REQUIRE(r);
    CHECK_FALSE(r->has_total);
    CHECK(r->total == 3.75);
    // An empty window (Maui writes only the header when nothing ran).
    const auto e = parse_fs_window("# FS Data File (Duration:  43200 seconds)  Starting: x\n", "f", 7);
    REQUIRE(e);
    CHECK(e->total == 0.0);
    CHECK(e->start == 7);
    // The same name under different kinds is fine; names are case-sensitive.
    CHECK(parse_fs_window("user x 1\ngroup x 2\nuser X 3\n", "f", 0));
}

TEST_CASE("config: maui FS file errors name file, line, column and label") {
    {
        const auto e = parse_error("user a 1\nproject p 2\n");
        CHECK(e.file == "FS.100");
        CHECK(e.line == 2);
        CHECK(e.column == 1);
        CHECK(e.key == "project");
        CHECK(contains(e.message, "unknown label"));
    }
    {
        const auto e = parse_error("  user\n");
        CHECK(e.line == 1);
        CHECK(e.column == 7); // just after "user"
        CHECK(e.key == "user");
        CHECK(contains(e.message, "missing name and value"));
    }
    {
        const auto e = parse_error("group g1   # no value\n");
        CHECK(e.line == 1);
        CHECK(e.column == 9);
        CHECK(e.key == "group");
        CHECK(contains(e.message, "missing value"));
    }
    {
        const auto e = parse_error("\nuser alice abc\n");
        CHECK(e.line == 2);
        CHECK(e.column == 12);
        CHECK(contains(e.message, "'abc'"));
        CHECK(contains(e.message, "not a non-negative number"));
    }
    {
        const auto e = parse_error("qos high -1\n");
        CHECK(e.column == 10);
        CHECK(e.key == "qos");
        CHECK(contains(e.message, "not a non-negative number"));
    }
    {
        const auto e = parse_error("user a nan\n"); // not finite
        CHECK(e.column == 8);
    }
    {
        const auto e = parse_error("user a 1 2\n");
        CHECK(e.column == 10);
        CHECK(contains(e.message, "unexpected '2'"));
    }
    {
        const auto e = parse_error("user alice 1\ngroup g 1\nUser alice 2\n");
        CHECK(e.line == 3);
        CHECK(e.column == 6);
        CHECK(e.key == "User");
        CHECK(contains(e.message, "listed twice"));
        CHECK(contains(e.message, "line 1"));
    }
    {
        // "acct" and "Account" are the same kind.
        const auto e = parse_error("acct p 1\nAccount p 2\n");
        CHECK(e.line == 2);
        CHECK(contains(e.message, "listed twice"));
    }
    {
        const auto e = parse_error("TOTAL 5\nuser a 1\nsched maui 5\n");
        CHECK(e.line == 3);
        CHECK(e.column == 1);
        CHECK(contains(e.message, "second total"));
        CHECK(contains(e.message, "line 1"));
    }
    {
        const auto e = parse_error("TOTAL\n");
        CHECK(e.column == 6);
        CHECK(contains(e.message, "missing value"));
    }
    {
        const auto e = parse_error("TOTAL ALL -3\n");
        CHECK(e.column == 11);
        CHECK(contains(e.message, "not a non-negative number"));
    }
    {
        const auto e = parse_error("TOTAL ALL 3 4\n");
        CHECK(e.column == 13);
    }
    // to_string shows it all.
    CHECK(parse_error("x y 1\n").to_string() == "FS.100:1:1: x: unknown label 'x' (expected User, Group, Account, QOS, "
                                                "Class or TOTAL)");
}

TEST_CASE("config: maui FS round trip format -> parse gives the same numbers") {
    maui_fs_window w;
    w.start = 1209600;
    w.usage[U] = {{"alice", 0.1}, {"bob", 2.0 / 3.0}, {"carol", 1e-300}};
    w.usage[G] = {{"g", 123456789.123456789}};
    w.usage[A] = {{"acc", 1e300}};
    w.usage[Q] = {{"normal", 0.0}};
    w.usage[C] = {{"batch", 5e-324}}; // the smallest subnormal
    w.total = 1.0 / 3.0;
    w.has_total = true;
    const std::string text = format_fs_window(w);
    CHECK(text.rfind("# ", 0) == 0);                      // header comment first
    CHECK(contains(text, "\nacct acc "));                 // Maui's type names
    CHECK(contains(text, "\nTOTAL ALL "));                // three fields, as Maui's loader needs
    const auto r = parse_fs_window(text, "x", w.start);
    REQUIRE(r);
    CHECK(r->start == w.start);
    CHECK(r->has_total);
    CHECK(r->total == w.total);
    for (std::size_t k = 0; k < maui::cred_kind_count; ++k) {
        REQUIRE(r->usage[k].size() == w.usage[k].size());
        for (std::size_t i = 0; i < w.usage[k].size(); ++i) {
            CHECK(r->usage[k][i].first == w.usage[k][i].first);
            CHECK(r->usage[k][i].second == w.usage[k][i].second); // bit-exact
        }
    }
    // And once more: the text is stable.
    CHECK(format_fs_window(*r) == text);
}

TEST_CASE("config: maui FS directory, windows chosen by now") {
    temp_dir d;
    // FSINTERVAL 100, FSDEPTH 3, now 1050: windows 1000 (current), 900, 800.
    d.write("FS.1000", "user a 4\nTOTAL ALL 4\n");
    d.write("FS.900", "user a 1\nuser b 3\nTOTAL ALL 4\n");
    // no FS.800: that window is empty
    d.write("FS.700", "user a 1000\n");             // older than the depth: not used
    d.write("FS.1100", "user a 99\n");              // in the future: ignored
    d.write("FS.abc", "garbage garbage garbage\n"); // not FS.<digits>: ignored
    d.write("FS-batch.900", "<xml/>\n");            // Moab's per-partition tree files: ignored
    d.write("stats.2001_07_16", "whatever\n");
    std::filesystem::create_directory(d.path / "FS.600"); // a directory: ignored

    const maui::fs_config cfg{100, 3, 0.5};
    const auto r = read_fs_dir(d.str(), cfg, 1050);
    REQUIRE(r);
    REQUIRE(r->size() == 3);
    const auto& w = *r;
    CHECK(w[0].start == 1000);
    CHECK(w[0].file == (d.path / "FS.1000").string());
    CHECK(w[0].total == 4);
    CHECK(w[1].start == 900);
    REQUIRE(w[1].usage[U].size() == 2);
    CHECK(w[1].usage[U][1].second == 3);
    CHECK(w[2].start == 800);
    CHECK(w[2].file.empty());
    CHECK(w[2].usage[U].empty());
    CHECK(w[2].total == 0);

    // Later: now 1130 -> window 0 is 1100 (its file exists and is not in the future any
    // more), 1000 and 900 follow.
    const auto later = read_fs_dir(d.str(), cfg, 1130);
    REQUIRE(later);
    CHECK((*later)[0].start == 1100);
    CHECK((*later)[0].usage[U][0].second == 99);
    CHECK((*later)[1].start == 1000);
    CHECK((*later)[2].start == 900);

    // The current window without a file: index 0 is empty with the right start.
    const auto gap = read_fs_dir(d.str(), maui::fs_config{100, 2, 1.0}, 1299);
    REQUIRE(gap);
    REQUIRE(gap->size() == 2);
    CHECK((*gap)[0].start == 1200);
    CHECK((*gap)[0].file.empty());
    CHECK((*gap)[1].start == 1100);
    CHECK((*gap)[1].total == 99); // no total line: sum of users

    // Load into a ledger (names -> indices) and check the decayed percentages:
    // users a = 0, b = 1; windows (now 1050): a 4, 1, 0; b 0, 3, 0; total 4, 4, 0.
    // effective a = 4 + 1*0.5 = 4.5, b = 3*0.5 = 1.5, total = 4 + 4*0.5 = 6:
    // a 4.5/6*100 = 75%, b 1.5/6*100 = 25%.
    maui::fs_ledger ledger(cfg, {2, 0, 0, 0, 0});
    const std::vector<std::string> users{"a", "b"};
    auto index_of = [&](maui::cred_kind k, std::string_view name) -> std::uint32_t {
        if (k != maui::cred_kind::user) return maui::no_cred;
        for (std::uint32_t i = 0; i < users.size(); ++i)
            if (users[i] == name) return i;
        return maui::no_cred;
    };
    CHECK(load_fs_windows(ledger, *r, index_of) == 0);
    ledger.advance(1050);
    CHECK(ledger.window_start() == 1000);
    CHECK(ledger.percent(maui::cred_kind::user, 0) == 75.0);
    CHECK(ledger.percent(maui::cred_kind::user, 1) == 25.0);

    // And back out: window 1 of the ledger as a file, the same numbers as FS.900.
    auto name_of = [&](maui::cred_kind, std::uint32_t i) { return users[i]; };
    const maui_fs_window back = fs_window_of(ledger, 1, name_of);
    CHECK(back.start == 900);
    REQUIRE(back.usage[U].size() == 2);
    CHECK(back.usage[U][0] == std::pair<std::string, double>{"a", 1.0});
    CHECK(back.usage[U][1] == std::pair<std::string, double>{"b", 3.0});
    CHECK(back.total == 4.0);
    d.write("FS.900", format_fs_window(back));
    const auto again = read_fs_dir(d.str(), cfg, 1050);
    REQUIRE(again);
    CHECK((*again)[1].usage[U] == w[1].usage[U]);
    CHECK((*again)[1].total == w[1].total);

    // Unknown names are skipped and counted.
    maui::fs_ledger small(cfg, {1, 0, 0, 0, 0});
    CHECK(load_fs_windows(small, *r, index_of) == 1); // "b" -> index 1, past a 1-entry table
}

TEST_CASE("config: maui FS directory errors") {
    temp_dir d;
    const maui::fs_config cfg{100, 3, 1.0};
    {
        // A file whose epoch is not a window start names the file.
        d.write("FS.950", "user a 1\n");
        const auto r = read_fs_dir(d.str(), cfg, 1050);
        REQUIRE_FALSE(r);
        CHECK(r.error().file == (d.path / "FS.950").string());
        CHECK(contains(r.error().message, "not a window start"));
        std::filesystem::remove(d.path / "FS.950");
    }
    {
        // A misaligned file in the future is ignored like any future file.
        d.write("FS.1150", "user a 1\n");
        CHECK(read_fs_dir(d.str(), cfg, 1050));
        std::filesystem::remove(d.path / "FS.1150");
    }
    {
        // A bad line in a kept file: the error names the file and the line.
        d.write("FS.900", "user a 1\nuser a 2\n");
        const auto r = read_fs_dir(d.str(), cfg, 1050);
        REQUIRE_FALSE(r);
        CHECK(r.error().file == (d.path / "FS.900").string());
        CHECK(r.error().line == 2);
        // The same file past the depth is not read.
        CHECK(read_fs_dir(d.str(), maui::fs_config{100, 1, 1.0}, 1050));
        std::filesystem::remove(d.path / "FS.900");
    }
    {
        const auto r = read_fs_dir((d.path / "missing").string(), cfg, 1050);
        REQUIRE_FALSE(r);
        CHECK(r.error().file == (d.path / "missing").string());
        CHECK(contains(r.error().message, "cannot list directory"));
    }
    {
        const auto r = read_fs_dir(d.str(), maui::fs_config{0, 3, 1.0}, 1050);
        REQUIRE_FALSE(r);
        CHECK(r.error().key == "FSINTERVAL");
    }
    // An empty directory gives FSDEPTH empty windows (depth clamped to 24).
    const auto e = read_fs_dir(d.str(), maui::fs_config{100, 30, 1.0}, 1050);
    REQUIRE(e);
    CHECK(e->size() == 24);
    CHECK(e->back().start == 1000 - 23 * 100);
}
