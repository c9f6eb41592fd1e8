// `mfprio sprio` against hand-derived expected output (tests/data/sprio/expected_*.txt).
//
// The scenario (tests/data/sprio/*.txt, slurm.conf) exercises reference slurm.md sections 1
// and 4.2: 10 nodes / 192 CPUs; partitions cpu (PriorityJobFactor 1, tier 1), gpu (4, tier
// 1), urgent (2, tier 2), so the partition factors are 1/4, 4/4, 2/4; QOS high 100, low 50,
// normal 0 (factors 1, 0.5, 0); association priorities phys 10, chem 5 (factors 1, 0.5);
// PriorityMaxAge 10 days; now = 2026-11-21T12:00:00 UTC.
//
// Each expected value was derived from the reference formulas, outside mfprio:
//  1001 alice cpu: age 5/10 d -> 500; assoc 100; fs .75 -> 7500; job size (1/10 + 16/192)/2
//       x 2000 = 183.3 -> 183; partition .25 x 5000 = 1250; QOS 0; TRES cpu 16/128 x 3000 =
//       375, mem 32768/524288 x 2000 = 125; PRIORITY 500+100+7500+183.3+1250+375+125 = 10033.
//  1002 bob cpu,urgent: one row per partition, urgent first (PriorityTier 2 > 1); age 10 d
//       -> 1.0 -> 1000; job size (2/10 + 32/192)/2 x 2000 = 366.7 -> 367; partition 2500 or
//       1250; nice 100 subtracted: 9866 and 8616.
//  1003 carol gpu high: age 1 d -> 100; assoc 50; fs 2500; job size 141.7 -> 142; partition
//       5000; QOS 4000; site 500; TRES cpu 8/64 x 3000 = 375, mem 125, gres/gpu 2/8 x 6000 =
//       1500 (the TRES string is cut at 20 characters, as sprio cuts right-justified fields).
//  1004 dave cpu normal,low: QOS sorted by priority (low, normal); the `normal` row, whose QOS
//       has priority 0, shows the job's own QOS term (low: 2000): the fallback quirk (1.2).
//  1005 held, 1009 eligible tomorrow, 1010 running: not listed (listing filter, 1.1).
//  1006 admin-set 123456: factor columns 0, TRES blank, PRIORITY the set value (4.2).
//  1007 nice 50000: the sum is negative, PRIORITY floored at 1.
//  1008 site 2147483645, nice -2147483645: sprio's client-side sum 4294970168 is not clamped.
// The column layout follows the formats of reference 4.2 and sprio's print rules (a `.`
// right-justifies; every field is cut at its width; %.0f; %.7f; %16.14f).

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <mfprio/report/sprio.hpp>

#include "cli.hpp"

namespace {

std::string data(const std::string& name) { return std::string(MFPRIO_TEST_DATA) + "/sprio/" + name; }

std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

mfprio::cli::outcome sprio(std::vector<std::string_view> extra) {
    static const std::string conf = data("slurm.conf"), qos = data("qos.txt"), assoc = data("assoc.txt"),
                             jobs = data("jobs.txt");
    std::vector<std::string_view> args{"--conf", conf, "--qos", qos, "--assoc", assoc, "--jobs", jobs,
                                       "--now", "2026-11-21T12:00:00"};
    args.insert(args.end(), extra.begin(), extra.end());
    return mfprio::cli::run_sprio(args);
}

} // namespace

TEST_CASE("report: sprio short form matches the hand-derived lines") {
    const auto o = sprio({});
    CHECK(o.err == "");
    CHECK(o.status == 0);
    CHECK(o.out == slurp(data("expected_short.txt")));
}

TEST_CASE("report: sprio -l") {
    const auto o = sprio({"-l"});
    CHECK(o.status == 0);
    CHECK(o.out == slurp(data("expected_long.txt")));
    // The -l header line checked by Slurm's test25.1 (reference 4.2), leading spaces aside.
    const std::string header = o.out.substr(0, o.out.find('\n'));
    CHECK(header.substr(header.find_first_not_of(' ')) ==
          "JOBID PARTITION     USER  ACCOUNT   PRIORITY       SITE        AGE      ASSOC  FAIRSHARE    JOBSIZE  "
          "PARTITION    QOSNAME        QOS        NICE                 TRES");
}

TEST_CASE("report: sprio -n") {
    const auto o = sprio({"-n"});
    CHECK(o.status == 0);
    CHECK(o.out == slurp(data("expected_norm.txt")));
}

TEST_CASE("report: sprio -w prints the weights row only") {
    const auto o = sprio({"-w"});
    CHECK(o.status == 0);
    CHECK(o.out == slurp(data("expected_weights.txt")));
}

TEST_CASE("report: sprio -o with seed 001's detailed format") {
    // Seed 001: sprio -o "%.9i %.14u %.8Y %.8A %.8a %.8F %.8f %.8P %.8p"
    const auto o = sprio({"-o", "%.9i %.14u %.8Y %.8A %.8a %.8F %.8f %.8P %.8p"});
    CHECK(o.status == 0);
    CHECK(o.out == slurp(data("expected_format_seed001.txt")));
}

TEST_CASE("report: sprio -u adds the user column, -h drops the header") {
    const auto o = sprio({"-u", "carol,dave", "-h"});
    CHECK(o.status == 0);
    CHECK(o.out == slurp(data("expected_user_noheader.txt")));
}

TEST_CASE("report: sprio -p keeps only the rows of that partition") {
    const auto o = sprio({"-p", "urgent"});
    CHECK(o.status == 0);
    CHECK(o.out == slurp(data("expected_partition_urgent.txt")));
}

TEST_CASE("report: sprio -j with no listed job says so, as sprio does") {
    const auto o = sprio({"-j", "1005"}); // held: not listed
    CHECK(o.status == 0);
    CHECK(o.out == "Unable to find jobs matching user/id(s) specified\n");
}

TEST_CASE("report: sprio -S -y sorts by priority, descending") {
    const auto o = sprio({"-S", "-y", "-h", "-o", "%i"});
    CHECK(o.status == 0);
    // PRIORITY, from the derivation above: 1008 4294970168, 1006 123456, 1003 14291,
    // 1001 10033, 1002 9866, 1002 8616, 1004 4995 (two rows), 1007 1.
    CHECK(o.out == "1008\n1006\n1003\n1001\n1002\n1002\n1004\n1004\n1007\n");
}

TEST_CASE("report: sprio -S o and -S n sort by account and QOS name (sprio 23.02 and later)") {
    // sort.c's _sort_by_account and _sort_by_qos_name compare the names (xstrcmp); rows of
    // equal names keep the order of the key after them. Accounts from assoc.txt: chem holds
    // carol (1003, 1007) and dave (1004, 1008), phys alice (1001) and bob (1002, 1006).
    const auto by_account = sprio({"-S", "o,i", "-h", "-o", "%i %o"});
    CHECK(by_account.status == 0);
    CHECK(by_account.out ==
          "1003 chem\n1004 chem\n1004 chem\n1007 chem\n1008 chem\n1001 phys\n1002 phys\n1002 phys\n1006 phys\n");
    // Descending QOS names: normal, low (1004's second QOS), high (1003).
    const auto by_qos = sprio({"-S", "-n", "-h", "-o", "%i %n"});
    CHECK(by_qos.status == 0);
    CHECK(by_qos.out == "1001 normal\n1002 normal\n1002 normal\n1004 normal\n1006 normal\n1007 normal\n1008 "
                        "normal\n1004 low\n1003 high\n");
    // 22.05's sprio knows neither letter: -S refuses it (sort.c "Invalid sort specification"),
    // -o leaves the field out with a message (opts.c _parse_format).
    const auto old_sort = sprio({"--slurm-version", "22.05", "-S", "n"});
    CHECK(old_sort.status == 2);
    CHECK(old_sort.err.find("Invalid sort specification: n") != std::string::npos);
    const auto old_field = sprio({"--slurm-version", "22.05", "-h", "-o", "%i %o", "-j", "1001"});
    CHECK(old_field.status == 0);
    CHECK(old_field.err == "sprio: error: Invalid job format specification: o\n");
    CHECK(old_field.out == "1001 \n");
    // Nor does 25.11's know %s (SLUID, 26.05's opts.c).
    CHECK(sprio({"--slurm-version", "25.11", "-h", "-o", "%s", "-j", "1001"}).err ==
          "sprio: error: Invalid job format specification: s\n");
    CHECK(sprio({"-h", "-o", "%s|", "-j", "1001"}).out == "|\n");
}

TEST_CASE("report: sprio --explain names each factor's parameter and share") {
    const auto o = sprio({"--explain", "1001"});
    CHECK(o.status == 0);
    CHECK(o.out.find("Job 1001 in partition cpu with QOS normal (user alice, account phys)") != std::string::npos);
    // fair-share: raw .75, weight 10000, 7500, share 7500/10033.33 = 74.8 %
    CHECK(o.out.find("fairshare            0.75 x      10000 =      7500.00   74.8%  PriorityWeightFairshare") != std::string::npos);
    CHECK(o.out.find("total 10033.33 -> priority 10033") != std::string::npos);
    const auto held = sprio({"--explain", "1005"});
    CHECK(held.status == 65);
    // Exit-65 messages name the input and the job's line (1005 is on line 6 of jobs.txt).
    CHECK(held.err == "mfprio: " + data("jobs.txt") + ":6: job 1005 is not listed by sprio (held, not pending, or not "
                                                      "yet eligible)\n");
    const auto unknown = sprio({"--explain", "4242"});
    CHECK(unknown.status == 65);
    CHECK(unknown.err == "mfprio: " + data("jobs.txt") + ": job 4242 is not in the jobs input\n");
    const auto floored = sprio({"--explain", "1007"});
    CHECK(floored.out.find("raised to 1") != std::string::npos);
    const auto over = sprio({"--explain", "1008"});
    CHECK(over.out.find("clamps the job's priority to 4294967295") != std::string::npos);
}

TEST_CASE("report: sprio usage errors exit 2") {
    CHECK(sprio({"-l", "-o", "%i"}).status == 2);           // -l and -o are exclusive
    // An unknown field letter is no usage error: 22.05's sprio (opts.c `_parse_format`) logs
    // "Invalid job format specification: Z" and prints the table without the field and its
    // suffix, exit 0.
    const auto unknown_field = sprio({"-o", "%.7i %Z| %-10u"});
    CHECK(unknown_field.status == 0);
    CHECK(unknown_field.err ==
          "sprio: error: Invalid job format specification: Z\nsprio: error: Invalid job format specification: -\n");
    CHECK(unknown_field.out == sprio({"-o", "%.7i "}).out);
    CHECK(sprio({"-S", "x"}).status == 2);                  // unknown sort key
    CHECK(sprio({"--now", "yesterday"}).status == 2);
    CHECK(sprio({"--bogus"}).status == 2);
    CHECK(sprio({"-j", "12x"}).status == 2);
    const std::vector<std::string_view> none{};
    CHECK(mfprio::cli::run_sprio(none).status == 2);        // missing files
}

TEST_CASE("report: sprio bad input data exits 65 and names the file") {
    const std::string conf = data("slurm.conf"), qos = data("qos.txt"), assoc = data("assoc.txt");
    const std::string missing = data("no-such-jobs.txt");
    const std::vector<std::string_view> args{"--conf", conf, "--qos", qos, "--assoc", assoc, "--jobs", missing};
    const auto o = mfprio::cli::run_sprio(args);
    CHECK(o.status == 65);
    CHECK(o.err.find("no-such-jobs.txt") != std::string::npos);
}

TEST_CASE("report: sprio's numbers are printf's %.0f and %.7f, ties and signs included") {
    // The oracle is the C library's printf, which sprio prints its columns with.
    const auto printf_text = [](double v, int precision) {
        char buf[400];
        const int n = std::snprintf(buf, sizeof buf, "%.*f", precision, v);
        return std::string(buf, static_cast<std::size_t>(n));
    };
    std::vector<double> values = {0.0, -0.0, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999999999999994, -0.3, 1e-300,
                                  4294967295.0, 4294967295.5, 0x1p52 - 0.5, 0x1p52, -0x1p52, 0x1p53 + 2, 1e300,
                                  -2147483648.0, 12345.678901234567, 999.5, 1000.5};
    std::uint64_t x = 0x9E3779B97F4A7C15ull; // splitmix64: doubles of every magnitude and sign
    for (int i = 0; i < 20000; ++i) {
        x += 0x9E3779B97F4A7C15ull;
        std::uint64_t z = x;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        const double unit = static_cast<double>(z >> 11) * 0x1p-53;
        const double magnitude = std::ldexp(1.0, static_cast<int>(z % 70) - 10);
        values.push_back((z & 1) ? -unit * magnitude : unit * magnitude);
        values.push_back(std::round(unit * magnitude * 2) / 2); // halves: exact ties
    }
    std::size_t compared = 0, differ = 0;
    for (const double v : values)
        for (const int precision : {0, 7}) {
            const std::string want = printf_text(v, precision);
            const mfprio::report::detail::fixed_text got(v, precision);
            ++compared;
            if (got.view() == want) continue;
            if (++differ <= 10) FAIL_CHECK(v << " %." << precision << "f: mfprio " << got.view() << ", printf " << want);
        }
    CHECK(compared == 2 * values.size());
    CHECK(differ == 0);
}
