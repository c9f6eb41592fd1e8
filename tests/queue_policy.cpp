// Tests for mfprio/queue/policy.hpp: the policy file grammar (comments, case, spaces, options,
// presets and overrides), every error with its file, line, column and key, and seed 003's
// six-factor formula as a policy file (tests/data/queue/seed003.policy) worked by hand.
#include <mfprio/queue/policy.hpp>

#include <mfprio/queue/builtin.hpp>

#include <mfprio/core/expected.hpp>
#include <mfprio/flux/context.hpp>
#include <mfprio/flux/job.hpp>
#include <mfprio/flux/result.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <doctest/doctest.h>

#ifndef MFPRIO_TEST_DATA
#define MFPRIO_TEST_DATA "tests/data"
#endif

namespace q = mfprio::queue;
namespace flux = mfprio::flux;

namespace {

const q::flux_registry& reg() {
    static const q::flux_registry r = q::builtin_registry();
    return r;
}

/// The error of loading `text` as "t.policy" (parse and build).
mfprio::input_error error_of(std::string_view text) {
    auto e = q::load_policy(text, reg(), flux::flux_result{}, "t.policy");
    REQUIRE_FALSE(e.has_value());
    return e.error();
}

q::policy parsed(std::string_view text) {
    auto p = q::parse_policy(text, reg(), "t.policy");
    REQUIRE_MESSAGE(p.has_value(), (p ? std::string() : p.error().to_string()));
    return *p;
}

q::flux_dynamic_engine built(std::string_view text) {
    auto e = q::load_policy(text, reg(), flux::flux_result{}, "t.policy");
    REQUIRE_MESSAGE(e.has_value(), (e ? std::string() : e.error().to_string()));
    return std::move(*e);
}

void check_error(std::string_view text, std::size_t line, std::size_t column, std::string_view key,
                 std::string_view message_start) {
    const auto e = error_of(text);
    INFO(text);
    INFO(e.to_string());
    CHECK(e.file == "t.policy");
    CHECK(e.line == line);
    CHECK(e.column == column);
    CHECK(e.key == key);
    CHECK(e.message.substr(0, message_start.size()) == message_start);
}

} // namespace

TEST_CASE("policy: names, weights, comments, blank lines, spaces, case and CRLF") {
    const auto p = parsed("# a comment\n"
                          "  AGE\t=\t1000   # one week\r\n"
                          "\n"
                          "   # another\n"
                          "FairShare=5\n"
                          "urgency = -2.5\n"
                          "queue = +1e4\n"
                          "bank = .5\n"
                          "fcfs = 0");
    CHECK(p.preset.empty());
    CHECK(p.file == "t.policy");
    REQUIRE(p.terms.size() == 6);
    CHECK(p.terms[0].name == "age"); // the registered spelling
    CHECK(p.terms[0].factor == "age");
    CHECK(p.terms[0].weight == 1000);
    CHECK(p.terms[0].line == 2);
    CHECK(p.terms[0].column == 3);
    CHECK(p.terms[1].name == "fairshare");
    CHECK(p.terms[1].weight == 5);
    CHECK(p.terms[1].line == 5);
    CHECK(p.terms[2].weight == -2.5);
    CHECK(p.terms[3].weight == 10000);
    CHECK(p.terms[4].weight == 0.5);
    CHECK(p.terms[5].weight == 0); // kept: reports show it
    CHECK(p.find("fairshare") == &p.terms[1]);
    CHECK(p.find("nothing") == nullptr);

    const auto e = built("age = 1\nfcfs = 0\n");
    CHECK(e.names() == std::vector<std::string_view>{"age", "fcfs"});
    CHECK(e.terms()[1].weight == 0.0);
}

TEST_CASE("policy: weights as large as 2^53, and not beyond") {
    CHECK(parsed("age = 9007199254740992").terms[0].weight == 9007199254740992.0);
    CHECK(parsed("age = -9007199254740992").terms[0].weight == -9007199254740992.0);
    CHECK(parsed("age = 4294967295").terms[0].weight == 4294967295.0); // Slurm's largest
    CHECK(parsed("age = 1e3").terms[0].weight == 1000.0);
    CHECK(parsed("age = 5.").terms[0].weight == 5.0);
    check_error("age = 9007199254740994", 1, 7, "age", "the weight '9007199254740994' is out of range");
    check_error("age = 1e16", 1, 7, "age", "the weight '1e16' is out of range");
    check_error("age = 1e400", 1, 7, "age", "the weight '1e400' is out of range");
    check_error("age = -1e400", 1, 7, "age", "the weight '-1e400' is out of range");
    for (const std::string_view bad : {"abc", "inf", "-inf", "nan", "0x10", "12abc", "--1", "+-1", "1,5", "1 000", ".",
                                       "-", "1e", "one"}) {
        const std::string text = "fairshare = " + std::string(bad);
        check_error(text, 1, 13, "fairshare", "the weight '" + std::string(bad) + "' is not a number");
    }
}

TEST_CASE("policy: errors in the lines themselves") {
    check_error("age 1000", 1, 1, "", "expected 'name = weight', 'name.option = value' or 'preset = name'");
    check_error("age = 1\n\n   just words  # and a comment\n", 3, 4, "",
                "expected 'name = weight', 'name.option = value' or 'preset = name', not 'just words'");
    check_error("  = 5", 1, 3, "", "missing name before '='");
    check_error("age =   ", 1, 6, "age", "missing value after '='");
    check_error("age = # no value\n", 1, 6, "age", "missing value after '='");
    check_error("\n# c\nfoo = 1", 3, 1, "foo",
                "unknown factor 'foo' (known factors: age, assoc, fairshare, jobsize, partition, qos, site, nice, "
                "queue, bank, urgency, flux_urgency, fcfs, wait_time, fair_share, job_size, user)");
    check_error("age = 1\n  tres = 1", 2, 3, "tres", "unknown factor 'tres'");
    check_error("3age = 1", 1, 1, "3age", "invalid factor name '3age'");
    check_error("my age = 1", 1, 1, "my age", "invalid factor name 'my age'");
}

TEST_CASE("policy: a factor set twice, under any of its names") {
    check_error("age = 1\nfairshare = 2\nAGE = 3", 3, 1, "AGE", "factor 'AGE' is already set on line 1");
    check_error("age = 1\nwait_time = 2", 2, 1, "wait_time",
                "'wait_time' and 'age' are the same factor ('age'), already set on line 1");
    check_error("user = 1\n urgency = 2", 2, 2, "urgency",
                "'urgency' and 'user' are the same factor ('urgency'), already set on line 1");
}

TEST_CASE("policy: options") {
    // PriorityMaxAge = 1 day: a job accruing for 12 hours has an age factor of 0.5.
    flux::context c{};
    c.now = 1'000'000;
    flux::job j;
    j.accrue_time = c.now - 43200;
    for (const std::string_view text : {"age = 1000\nage.max_age = 1-0\n", "age.max_age = 1-0\nage = 1000\n",
                                        "Age = 1000\nAGE.Max_Age = 1-0\n", "wait_time = 1000\nwait_time.max_age = 24:00:00\n",
                                        "age.max_age = 1440\nage = 1000\n"}) {
        INFO(text);
        const auto e = built(text);
        CHECK(e.score(j, c) == 500.0);
    }
    // The default PriorityMaxAge is 7-0; UNLIMITED is kept as Slurm stores it (4294967236 s).
    CHECK(built("age = 604800").score(j, c) == 43200.0);
    CHECK(built("age = 4294967236\nage.max_age = UNLIMITED").score(j, c) == 43200.0);

    const auto p = parsed("\nage = 1\n  age.max_age =  2-0 \n");
    REQUIRE(p.terms[0].options.size() == 1);
    const auto& o = p.terms[0].options[0];
    CHECK(o.key == "max_age");
    CHECK(o.written_key == "age.max_age");
    CHECK(o.value == "2-0");
    CHECK(o.file == "t.policy");
    CHECK(o.line == 3);
    CHECK(o.key_column == 7);
    CHECK(o.value_column == 18);

    // Yes/no options in any of their spellings.
    for (const std::string_view yes : {"yes", "TRUE", "on", "1"}) {
        const std::string text = "jobsize = 1\njobsize.favor_small = " + std::string(yes);
        (void)built(text);
    }
}

TEST_CASE("policy: option errors") {
    check_error("age.bogus = 1\nage = 1", 1, 5, "age.bogus", "unknown option 'bogus' of factor 'age' (it takes: max_age)");
    check_error("fairshare = 1\nfairshare.x = 1", 2, 11, "fairshare.x", "unknown option 'x' of factor 'fairshare' (it takes none)");
    check_error("jobsize = 1\njob_size.favour_small = yes", 2, 10, "job_size.favour_small",
                "unknown option 'favour_small' of factor 'jobsize' (it takes: favor_small, small_relative_to_time)");
    check_error("foo.max_age = 1", 1, 1, "foo.max_age", "unknown factor 'foo'");
    check_error("age. = 1", 1, 5, "age.", "invalid option name ''");
    check_error("age.max.age = 1", 1, 5, "age.max.age", "invalid option name 'max.age'");
    check_error(".max_age = 1", 1, 1, ".max_age", "invalid factor name ''");
    check_error("age.max_age = 1\nage.MAX_AGE = 2\nage = 1", 2, 1, "age.MAX_AGE",
                "option 'MAX_AGE' of factor 'age' is already set on line 1");
    check_error("age.max_age = 1\nwait_time.max_age = 2\nage = 1", 2, 1, "wait_time.max_age",
                "option 'max_age' of factor 'age' is already set on line 1");
    check_error("fairshare = 1\n  age.max_age = 1-0\n", 2, 3, "age.max_age",
                "option of factor 'age', which this policy does not use (add a line 'age = weight')");
    // Values the factories reject: at the option's line and the value's column.
    check_error("age = 1\nage.max_age = soon", 2, 15, "age.max_age", "invalid time 'soon'");
    check_error("jobsize = 1\njobsize.favor_small = maybe", 2, 23, "jobsize.favor_small",
                "expected yes or no, not 'maybe'");
    check_error("qos = 1\nQOS.Normalize = 2", 2, 17, "QOS.Normalize", "expected yes or no, not '2'");
}

TEST_CASE("policy: presets, and weights that override them") {
    const auto p = parsed("# start from flux-accounting\n"
                          "preset = flux-accounting\n"
                          "urgency = 1\n"
                          "age = 5\n"
                          "fair_share = 50\n");
    CHECK(p.preset == "flux-accounting");
    REQUIRE(p.terms.size() == 5);
    // The preset's terms in its order, then the new ones; an override keeps the preset's name.
    CHECK(p.terms[0].name == "fairshare");
    CHECK(p.terms[0].weight == 50);
    CHECK(p.terms[0].file == "t.policy");
    CHECK(p.terms[0].line == 5);
    CHECK(p.terms[1].name == "queue");
    CHECK(p.terms[1].weight == 10000);
    CHECK(p.terms[1].file == "<preset flux-accounting>");
    CHECK(p.terms[1].line == 3);
    CHECK(p.terms[2].name == "bank");
    CHECK(p.terms[2].weight == 0);
    CHECK(p.terms[3].name == "urgency");
    CHECK(p.terms[3].weight == 1);
    CHECK(p.terms[3].line == 3);
    CHECK(p.terms[4].name == "age");
    CHECK(p.terms[4].weight == 5);

    // The engine: fair-share 0.5 x 50 + queue 2 x 10000 + (20 - 16) x 1 = 20029.
    const auto e = built("preset = flux-accounting\nurgency = 1\n");
    std::vector<double> fs{0.5};
    std::vector<std::int64_t> queues{0, 2};
    flux::context c{};
    c.fairshare = fs;
    c.queue_priority = queues;
    flux::job j;
    j.association = 0;
    j.queue = 1;
    j.urgency = 20;
    CHECK(e.priority(j, c).value == 50000 + 20000 + 4);
    CHECK(built("preset = flux-accounting\nuser = 1\nfairshare = 50\n").priority(j, c).value == 25 + 20000 + 4);
    // The default preset weights: urgency 1000.
    CHECK(built("preset = flux-accounting").priority(j, c).value == 50000 + 20000 + 4000);
    CHECK(built("  # comment first\n\nPRESET = Flux-Accounting").priority(j, c).value == 74000);

    // Options of a preset's factor; `preset = fcfs` is `--policy fcfs`.
    CHECK(parsed("preset = fcfs\nfcfs = 2\n").terms.size() == 1);
    const auto fcfs = built("preset = FCFS");
    const auto fcfs_preset = q::builtin_preset("fcfs");
    REQUIRE(fcfs_preset.has_value());
    j.submit_seq = 41;
    CHECK(fcfs.priority(j, c) == fcfs_preset->priority(j, c));
    CHECK(fcfs.priority(j, c).value == 4294967295 - 41);
    CHECK(built("preset = flux-core").priority(j, c).value == 20);
    CHECK(parsed("preset = flux-accounting\nage = 1\nage.max_age = 60\n").terms[4].options.size() == 1);
}

TEST_CASE("policy: preset errors") {
    check_error("age = 1\npreset = fcfs", 2, 1, "preset", "'preset' must be the first setting of the file (line 1 comes before it)");
    check_error("age.max_age = 1\npreset = fcfs", 2, 1, "preset", "'preset' must be the first setting of the file");
    check_error("preset = fcfs\n\nPreset = fcfs", 3, 1, "Preset", "'preset' must be the first setting of the file (line 1 comes before it)");
    check_error("preset = nope", 1, 10, "preset",
                "unknown preset 'nope' (known presets: fcfs, flux-core, flux-accounting)");
    // A preset may not start from another one (a registry's own mistake, still reported).
    auto r = q::builtin_registry();
    REQUIRE(r.add_preset("nested", "preset = fcfs\n"));
    auto e = q::load_policy("preset = nested", r, flux::flux_result{}, "t.policy");
    REQUIRE_FALSE(e.has_value());
    CHECK(e.error().file == "<preset nested>");
    CHECK(e.error().line == 1);
    CHECK(e.error().message == "a preset cannot start from another preset");
    auto unknown = q::builtin_preset("fifo");
    REQUIRE_FALSE(unknown.has_value());
    CHECK(unknown.error().key == "fifo");
    CHECK(unknown.error().message == "unknown preset 'fifo' (known presets: fcfs, flux-core, flux-accounting)");
}

TEST_CASE("policy: a policy must name a factor, and nothing is built on error") {
    for (const std::string_view text : {"", "\n\n", "# nothing\n   # at all\n"}) {
        const auto e = error_of(text);
        CHECK(e.file == "t.policy");
        CHECK(e.line == 0);
        CHECK(e.message == "the policy names no factor (write 'name = weight' lines, or 'preset = name')");
    }
    const auto missing = q::load_policy_file("/nonexistent/mfprio.policy", reg(), flux::flux_result{});
    REQUIRE_FALSE(missing.has_value());
    CHECK(missing.error().file == "/nonexistent/mfprio.policy");
    CHECK(missing.error().message == "cannot open file");
}

TEST_CASE("policy: seed 003's six factors as a policy file") {
    auto e = q::load_policy_file(std::string(MFPRIO_TEST_DATA) + "/queue/seed003.policy", reg(), flux::flux_result{});
    REQUIRE_MESSAGE(e.has_value(), (e ? std::string() : e.error().to_string()));
    CHECK(e->names() == std::vector<std::string_view>{"wait_time", "fair_share", "qos", "queue", "job_size", "user"});

    const std::int64_t now = 1'700'000'000;
    std::vector<double> fs{0.25};
    std::vector<mfprio::slurm::qos_info> qos{{0, 0.0, 1.0}, {500, 0.5, 1.0}};
    std::vector<std::int64_t> queues{0, 3};
    flux::context c{};
    c.now = now;
    c.node_count = 100;
    c.cluster_cpus = 1000;
    c.fairshare = fs;
    c.qos = qos;
    c.queue_priority = queues;
    flux::job j;
    j.accrue_time = now - 302400; // half of PriorityMaxAge (7-0)
    j.association = 0;
    j.qos = 1;
    j.queue = 1;
    j.min_nodes = 10;
    j.cpus = 100;
    j.urgency = 18;
    // wait_time 0.5 x 1000 = 500; fair_share 0.25 x 100000 = 25000; qos 0.5 x 10000 = 5000;
    // queue 3 x 10000 = 30000; job_size (10/100 + 100/1000) / 2 = 0.1 x 1000 = 100;
    // user (18 - 16) x 1000 = 2000. Sum 62600.
    const auto x = e->explain(j, c);
    REQUIRE(x.terms.size() == 6);
    CHECK(x.terms[0].contribution == 500.0);
    CHECK(x.terms[1].contribution == 25000.0);
    CHECK(x.terms[2].contribution == 5000.0);
    CHECK(x.terms[3].contribution == 30000.0);
    CHECK(x.terms[4].contribution == doctest::Approx(100.0));
    CHECK(x.terms[5].contribution == 2000.0);
    CHECK(x.score == doctest::Approx(62600.0));
    CHECK(x.priority == flux::priority_value{62600, flux::priority_status::computed});
    CHECK(e->priority(j, c) == x.priority);
}
