// Tests for mfprio/text/text.hpp: trimming, case-insensitive comparison, splitting,
// whole-string number parsing and file loading.
#include <doctest/doctest.h>

#include <mfprio/text/text.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include <csignal>
#include <unistd.h>

using namespace mfprio::text;

TEST_CASE("config: text trim and case-insensitive helpers") {
    CHECK(trim("  a b \t\r\n") == "a b");
    CHECK(trim_left("  x ") == "x ");
    CHECK(trim_right("  x ") == "  x");
    CHECK(trim("   ").empty());
    CHECK(iequals("PriorityWeightAge", "priorityweightage"));
    CHECK_FALSE(iequals("abc", "abd"));
    CHECK_FALSE(iequals("abc", "ab"));
    CHECK(istarts_with("Include foo", "INCLUDE"));
    CHECK_FALSE(istarts_with("Inc", "include"));
    CHECK(icontains("no_fair_tree,INCR_ONLY", "incr_only"));
    CHECK_FALSE(icontains("MAX_TRE", "MAX_TRES"));
    CHECK(to_lower(std::string_view("GRES/GPU")) == "gres/gpu");
}

TEST_CASE("config: text split keeps empty pieces") {
    const auto parts = split("a,,b,", ',');
    REQUIRE(parts.size() == 4);
    CHECK(parts[0] == "a");
    CHECK(parts[1].empty());
    CHECK(parts[2] == "b");
    CHECK(parts[3].empty());
    CHECK(split("", ',').size() == 1);
}

TEST_CASE("config: text number parsing is whole-string and range-checked") {
    CHECK(parse_unsigned<std::uint32_t>("4294967295") == 4294967295u);
    CHECK_FALSE(parse_unsigned<std::uint32_t>("4294967296"));
    CHECK_FALSE(parse_unsigned<std::uint32_t>("-1"));
    CHECK_FALSE(parse_unsigned<std::uint32_t>("+1"));
    CHECK_FALSE(parse_unsigned<std::uint32_t>("12a"));
    CHECK_FALSE(parse_unsigned<std::uint32_t>(""));
    CHECK_FALSE(parse_unsigned<std::uint32_t>(" 1"));
    CHECK(parse_signed<std::int32_t>("-2147483648") == INT32_MIN);
    CHECK(parse_signed<std::int32_t>("+7") == 7);
    CHECK_FALSE(parse_signed<std::int32_t>("2147483648"));
    CHECK_FALSE(parse_signed<std::int32_t>("-"));
    CHECK(parse_double("0.25") == 0.25);
    CHECK(parse_double("-1e3") == -1000.0);
    CHECK(parse_double(".5") == 0.5);
    CHECK_FALSE(parse_double("inf"));
    CHECK_FALSE(parse_double("nan"));
    CHECK_FALSE(parse_double("1.5x"));
    CHECK_FALSE(parse_double(""));
    const auto prefix = parse_double_prefix("0.25G");
    REQUIRE(prefix);
    CHECK(prefix->first == 0.25);
    CHECK(prefix->second == 4);
    CHECK_FALSE(parse_double_prefix("G"));
}

TEST_CASE("config: text lines drop CR and count from 1") {
    const auto lines = split_lines("a\r\n\nb");
    REQUIRE(lines.size() == 3);
    CHECK(lines[0].text == "a");
    CHECK(lines[0].number == 1);
    CHECK(lines[1].text.empty());
    CHECK(lines[2].text == "b");
    CHECK(lines[2].number == 3);
    CHECK(split_lines("").empty());
}

TEST_CASE("config: text read_text_file loads a file and reports a missing one") {
    const std::string path = "mfprio_test_text_file.txt";
    {
        std::FILE* f = std::fopen(path.c_str(), "wb");
        REQUIRE(f != nullptr);
        std::fputs("hello\nworld", f);
        std::fclose(f);
    }
    const auto text = read_text_file(path);
    REQUIRE(text);
    CHECK(*text == "hello\nworld");
    std::remove(path.c_str());

    const auto missing = read_text_file("no/such/dir/file.txt");
    REQUIRE_FALSE(missing);
    CHECK(missing.error().file == "no/such/dir/file.txt");
    CHECK(missing.error().message == "cannot open file");
}

TEST_CASE("config: text lines: a BOM, CR-only and mixed line ends") {
    // A UTF-8 byte order mark is not part of line 1; a lone CR ends a line (old Mac files);
    // CRLF is one end, not two.
    const auto lines = split_lines("\xEF\xBB\xBF" "a=1\rb=2\r\nc=3\n\rd");
    REQUIRE(lines.size() == 5);
    CHECK(lines[0].text == "a=1");
    CHECK(lines[1].text == "b=2");
    CHECK(lines[2].text == "c=3");
    CHECK(lines[3].text.empty());
    CHECK(lines[3].number == 4);
    CHECK(lines[4].text == "d");
    CHECK(lines[4].number == 5);
    CHECK(split_lines("\xEF\xBB\xBF").empty());
    // Lone CRs before the next LF, a CR before a CRLF, a CR at the very end.
    const auto cr = split_lines("a\rb\rc\nd\r\r\ne\r");
    REQUIRE(cr.size() == 6);
    CHECK(cr[0].text == "a");
    CHECK(cr[1].text == "b");
    CHECK(cr[2].text == "c");
    CHECK(cr[3].text == "d");
    CHECK(cr[4].text.empty());
    CHECK(cr[5].text == "e");
    CHECK(cr[5].number == 6);
}

TEST_CASE("config: text read_text_file refuses inputs past its bound, devices and directories by name") {
    // A regular file past the bound: refused from its size, before it is read.
    const std::string big = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/mfprio_big.txt";
    std::ofstream(big, std::ios::binary) << std::string((1 << 20) + 1, 'x');
    const auto large = read_text_file(big, 1 << 20);
    REQUIRE_FALSE(large);
    CHECK(large.error().file == big);
    CHECK(large.error().message == "larger than 1048576 bytes, the most mfprio reads from one input");
    CHECK(read_text_file(big, (1 << 20) + 1));
    std::remove(big.c_str());
    // A pipe past the bound (no size to look at): refused at the bound while reading; a
    // pipe within it is read. (The writer sees the reader stop: EPIPE, not SIGPIPE.)
    std::signal(SIGPIPE, SIG_IGN);
    for (const std::size_t n : {std::size_t{1} << 20, (std::size_t{1} << 20) + 1}) {
        int fds[2];
        REQUIRE(pipe(fds) == 0);
        std::thread writer([&] {
            const std::string data(n, 'y');
            std::size_t done = 0;
            while (done < data.size()) {
                const auto w = write(fds[1], data.data() + done, data.size() - done);
                if (w <= 0) break; // the reader stopped at the bound
                done += static_cast<std::size_t>(w);
            }
            close(fds[1]);
        });
        const auto piped = read_text_file("/dev/fd/" + std::to_string(fds[0]), 1 << 20);
        close(fds[0]);
        writer.join();
        CHECK(static_cast<bool>(piped) == (n == std::size_t{1} << 20));
        if (piped) CHECK(piped->size() == n);
        else CHECK(piped.error().message == "larger than 1048576 bytes, the most mfprio reads from one input");
    }
    // /dev/zero never ends and /dev/null is no text either: devices are refused by kind.
    for (const char* dev : {"/dev/zero", "/dev/null", "/dev/urandom"}) {
        const auto endless = read_text_file(dev, 1 << 20);
        REQUIRE_FALSE(endless);
        CHECK(endless.error().file == dev);
        CHECK(endless.error().message == "cannot read file: a device, not a text file");
    }
    CHECK(max_input_bytes == std::size_t{1} << 30);
}

TEST_CASE("config: text read_text_file reports a directory as unreadable") {
    const auto dir = read_text_file(".");
    REQUIRE_FALSE(dir);
    CHECK(dir.error().file == ".");
    CHECK(dir.error().message.find("cannot") != std::string::npos);
}

TEST_CASE("config: text read_text_file refuses a NUL byte with its line and column") {
    const std::string path = "mfprio_test_nul.txt";
    const auto write = [&](const std::string& content) {
        std::FILE* f = std::fopen(path.c_str(), "wb");
        REQUIRE(f != nullptr);
        std::fwrite(content.data(), 1, content.size(), f);
        std::fclose(f);
    };
    write(std::string("Account|User\r\nroot|\r\n a|al\0ice\n", 31));
    auto r = read_text_file(path);
    REQUIRE_FALSE(r);
    CHECK(r.error().file == path);
    CHECK(r.error().line == 3);
    CHECK(r.error().column == 6);
    CHECK(r.error().message == "a NUL byte: not a text file");
    write(std::string("\xEF\xBB\xBF" "ab\0", 6)); // columns count after the byte order mark
    r = read_text_file(path);
    REQUIRE_FALSE(r);
    CHECK(r.error().line == 1);
    CHECK(r.error().column == 3);
    write(std::string("a\rb\0", 4)); // a lone CR ends line 1
    r = read_text_file(path);
    REQUIRE_FALSE(r);
    CHECK(r.error().line == 2);
    CHECK(r.error().column == 2);
    std::remove(path.c_str());
}

TEST_CASE("config: text edit_distance, exact and bounded") {
    // Levenshtein's textbook pairs: kitten -> sitting 3 (two substitutions, one insertion),
    // flaw -> lawn 2; case does not count.
    CHECK(edit_distance("kitten", "sitting") == 3);
    CHECK(edit_distance("flaw", "lawn") == 2);
    CHECK(edit_distance("QueueTimeWeight", "QUEUETIMEWEIGHT") == 0);
    CHECK(edit_distance("", "abc") == 3);
    // Bounded: the distance when within the bound, the bound + 1 otherwise (at once for
    // lengths further apart than the bound).
    CHECK(edit_distance("kitten", "sitting", 3) == 3);
    CHECK(edit_distance("kitten", "sitting", 2) == 3);
    CHECK(edit_distance("kitten", "sitting", 0) == 1);
    CHECK(edit_distance(std::string(100000, 'Q'), "QUEUETIMEWEIGHT", 2) == 3);
    CHECK(edit_distance("flaw", "lawn", 5) == 2);
}

TEST_CASE("did_you_mean: the names within the rule's edits, nearest first, ties in the names' order") {
    using mfprio::text::did_you_mean;
    constexpr std::string_view names[] = {"--conf", "--qos", "--assoc", "--jobs", "--maui-cfg"};
    // "--cnof": two edits (a swap) from --conf; nothing else within two.
    CHECK(did_you_mean("--cnof", names) == " (did you mean --conf?)");
    // A word that starts a longer name is suggested whatever its distance.
    CHECK(did_you_mean("--maui", names) == " (did you mean --maui-cfg?)");
    CHECK(did_you_mean("--maui", names, {2, 4, false, 2}).empty());
    // --qos and --jobs are one edit each from --qobs (a deletion): both shown, in the names' order.
    CHECK(did_you_mean("--qobs", names) == " (did you mean --qos or --jobs?)");
    CHECK(did_you_mean("--qobs", names, {2, 4, true, 1}) == " (did you mean --qos?)");
    // Three shown: "A, B or C".
    constexpr std::string_view abc[] = {"ab", "ac", "ad", "zz"};
    CHECK(did_you_mean("aa", abc, {1, 0, false, 3}) == " (did you mean ab, ac or ad?)");
    CHECK(did_you_mean("qqqqqq", abc).empty());
    // One edit per eight letters: 17 letters allow two (a swap), 15 only one (two letters left out).
    constexpr std::string_view weights[] = {"PriorityWeightAge"};
    CHECK(did_you_mean("PriorityWeihgtAge", weights, {1, 8, false, 3}) == " (did you mean PriorityWeightAge?)");
    CHECK(did_you_mean("PriorityWeihtAg", weights, {1, 8, false, 3}).empty());
}
