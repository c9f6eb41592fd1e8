#pragma once
// Where `mfprio sprio` and `mfprio sshare` get a cluster from: files in any format Slurm
// prints (read by kind, see config/slurm_native.hpp), `squeue --json` (read here with
// simdjson, so that the library headers stay free of dependencies), a bundle directory
// (`--from DIR`), or the cluster itself (`--live`: the Slurm commands are run, with a time
// limit, and their outputs can be kept as a bundle with `--save DIR`). `squeue --json` is read
// with simdjson (Debian: libsimdjson-dev): the library headers use no JSON library.
//
// A bundle is a directory of the commands' outputs under fixed names (bundle_files below)
// and a `meta` file of key=value lines: captured (epoch seconds), slurm_version and
// priority_calc_time (the time of slurmctld's last priority recalculation, which is the
// time sprio's factors were computed at).

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <sys/syscall.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <simdjson.h>

#include <mfprio/config/slurm_cluster.hpp>
#include <mfprio/config/jobs_table.hpp>
#include <mfprio/config/slurm_native.hpp>
#include <mfprio/text/text.hpp>

namespace mfprio::cli {

// ---------------------------------------------------------------------------------------
// squeue --json

namespace detail {

/// What a field of a job must hold: a string (null for none: 22.05 prints null for an unset
/// account, QOS or TRES string), the job's state (a string, or in 23.11 and later a list of
/// strings), or a number (a JSON number, squeue's number object, or null: 22.05's nice).
enum class json_expect { text, state, number };

/// The text of a JSON value as the jobs table wants it, checked against what its field must
/// hold: a string as is; a number as its token (the jobs table checks its range); squeue's
/// number object ({"set", "infinite", "number"}, 23.11 and later) as its number, "UNLIMITED"
/// when infinite, empty when not set; the first string of a state list; empty for null.
/// Returns why the value is refused, or an empty string. Every token read is checked in full
/// (`1_0`, `nul` are not JSON).
[[nodiscard]] inline std::string json_cell(simdjson::ondemand::value v, json_expect expect, std::string& out) {
    using simdjson::ondemand::json_type;
    const auto invalid = [](simdjson::error_code e) { return std::string("not valid JSON: ") + simdjson::error_message(e); };
    const auto wrong = [expect] {
        return std::string(expect == json_expect::number ? "expected a number, a number object or null"
                           : expect == json_expect::state ? "expected a string or a list of strings"
                                                          : "expected a string or null");
    };
    out.clear();
    json_type type;
    if (auto e = v.type().get(type)) return invalid(e);
    switch (type) {
    case json_type::null: {
        bool null = false;
        if (v.is_null().get(null) != simdjson::SUCCESS) null = false;
        if (!null) return "not valid JSON: a token that is not null, true, false, a number or a string";
        return {};
    }
    case json_type::string: {
        if (expect == json_expect::number) return wrong();
        std::string_view sv;
        if (auto e = v.get_string().get(sv)) return invalid(e);
        out.assign(sv);
        return {};
    }
    case json_type::number: {
        if (expect != json_expect::number) return wrong();
        std::string_view raw = v.raw_json_token();
        simdjson::ondemand::number n;
        if (auto e = v.get_number().get(n)) return invalid(e);
        while (!raw.empty() && config::is_space(raw.back())) raw.remove_suffix(1);
        out.assign(raw); // the jobs table checks the number's range
        return {};
    }
    case json_type::object: {
        if (expect != json_expect::number) return wrong();
        simdjson::ondemand::object o;
        if (auto e = v.get_object().get(o)) return invalid(e);
        bool set = true, infinite = false, have_number = false;
        std::string number;
        for (auto field : o) {
            std::string_view key;
            if (auto e = field.unescaped_key().get(key)) return invalid(e);
            simdjson::ondemand::value fv;
            if (auto e = field.value().get(fv)) return invalid(e);
            if (key == "set" || key == "infinite") {
                if (fv.get_bool().get(key == "set" ? set : infinite) != simdjson::SUCCESS)
                    return "\"" + std::string(key) + "\" of a number object: expected true or false";
            } else if (key == "number") {
                json_type nt;
                if (auto e = fv.type().get(nt)) return invalid(e);
                if (nt != json_type::number) return "\"number\" of a number object: expected a number";
                if (auto why = json_cell(fv, json_expect::number, number); !why.empty()) return why;
                have_number = true;
            }
        }
        if (infinite) out = "UNLIMITED";
        else if (!set) out.clear();
        else if (!have_number) return "a number object without \"number\"";
        else out = std::move(number);
        return {};
    }
    case json_type::array: {
        if (expect != json_expect::state) return wrong();
        simdjson::ondemand::array a;
        if (auto e = v.get_array().get(a)) return invalid(e);
        for (auto item : a) {
            simdjson::ondemand::value iv;
            if (auto e = item.get(iv)) return invalid(e);
            std::string_view sv;
            if (iv.get_string().get(sv) != simdjson::SUCCESS) return wrong();
            if (out.empty()) out.assign(sv);
        }
        return {};
    }
    case json_type::boolean:
        return wrong();
    }
    return wrong();
}

/// The JSON key of each jobs table column (config/slurm_native.hpp's order).
inline constexpr std::string_view json_job_keys[] = {
    "job_id", "user_name", "account", "partition", "qos", "submit_time", "eligible_time", "accrue_time",
    "node_count", "cpus", "time_limit", "nice", "tres_req_str", "job_state", "priority"};
static_assert(std::size(json_job_keys) == config::nj_count);

/// The jobs table column of a job's JSON key, or nj_count for the keys not read (about 95
/// of squeue's 110). By length first: this runs for every key of every job.
[[nodiscard]] constexpr std::size_t json_job_column(std::string_view k) noexcept {
    using namespace config;
    const auto is = [k](std::size_t c) { return k == json_job_keys[c]; };
    switch (k.size()) {
    case 3: return is(nj_qos) ? nj_qos : nj_count;
    case 4: return is(nj_cpus) ? nj_cpus : is(nj_nice) ? nj_nice : nj_count;
    case 6: return is(nj_id) ? nj_id : nj_count;
    case 7: return is(nj_account) ? nj_account : nj_count;
    case 8: return is(nj_priority) ? nj_priority : nj_count;
    case 9: return is(nj_user) ? nj_user : is(nj_partition) ? nj_partition : is(nj_state) ? nj_state : nj_count;
    case 10: return is(nj_nodes) ? nj_nodes : is(nj_time_limit) ? nj_time_limit : nj_count;
    case 11: return is(nj_submit) ? nj_submit : is(nj_accrue) ? nj_accrue : nj_count;
    case 12: return is(nj_tres) ? nj_tres : nj_count;
    case 13: return is(nj_eligible) ? nj_eligible : nj_count;
    default: return nj_count;
    }
}
static_assert([] {
    for (std::size_t c = 0; c < config::nj_count; ++c)
        if (json_job_column(json_job_keys[c]) != c) return false;
    return true;
}(), "json_job_column finds every key of json_job_keys");

/// Line and column of byte `offset` of `text`, counting from the previous call's position
/// (lines end as config::line_end_at says).
struct line_counter {
    std::string_view text;
    std::size_t at = 0, line = 1, line_start = 0;
    void advance(std::size_t offset) {
        offset = std::min(offset, text.size());
        if (offset <= at) return;
        const std::string_view span = text.substr(at, offset - at);
        if (span.find('\r') == std::string_view::npos && (at == 0 || text[at - 1] != '\r')) {
            // No CR: each '\n' ends a line (counted at memchr's speed, for 300 MB inputs).
            const auto newlines = static_cast<std::size_t>(std::count(span.begin(), span.end(), '\n'));
            if (newlines != 0) {
                line += newlines;
                line_start = at + span.rfind('\n') + 1;
            }
        } else {
            for (std::size_t i = at; i < offset; ++i)
                if (const std::size_t end = config::line_end_at(text, i); end != 0) {
                    ++line;
                    line_start = i + end;
                }
        }
        at = offset;
    }
    [[nodiscard]] std::size_t column() const noexcept { return at >= line_start ? at - line_start + 1 : 1; }
};

} // namespace detail

/// `squeue --json` as a jobs table (config/slurm_native.hpp's columns). The layouts of
/// Slurm 22.05 (openapi v0.0.38) through 25.x: plain numbers or number objects, job_state a
/// string or a list, the nice value null for 0 and an unsigned wrap for negatives (22.05).
/// A pending job with priority 0 is held. Times are epoch seconds; 0 means unset. `version`
/// receives meta.Slurm.release (meta.slurm.release in later layouts) when present. The
/// text is parsed in place when `readable_after` bytes after it may be read (simdjson's
/// padding), copied otherwise.
[[nodiscard]] inline expected<config::table> squeue_json_table(std::string_view text, std::size_t readable_after,
                                                               std::string_view file, std::string* version = nullptr) {
    using namespace config;
    const std::string_view body = config::detail::without_bom(text);
    const std::size_t bom = text.size() - body.size();
    simdjson::padded_string copy;
    simdjson::padded_string_view view;
    if (readable_after >= simdjson::SIMDJSON_PADDING) {
        view = simdjson::padded_string_view(body.data(), body.size(), body.size() + readable_after);
    } else {
        copy = simdjson::padded_string(body);
        view = copy;
    }
    simdjson::ondemand::parser parser;
    simdjson::ondemand::document doc;
    detail::line_counter lc{body};
    bool iterating = false;
    const auto fail = [&](simdjson::error_code e, std::string what, const char* at = nullptr) -> input_error {
        const char* loc = at;
        if (iterating && (loc != nullptr || !doc.current_location().get(loc)) && loc >= body.data() &&
            loc <= body.data() + body.size())
            lc.advance(static_cast<std::size_t>(loc - body.data()));
        if (what.empty()) what = std::string("not valid JSON: ") + simdjson::error_message(e);
        return config::make_error(file, lc.line, lc.column() + (lc.line == 1 ? bom : 0), "jobs", what);
    };
    if (auto e = parser.iterate(view).get(doc)) return fail(e, {});
    iterating = true;
    simdjson::ondemand::object root;
    if (auto e = doc.get_object().get(root))
        return fail(e, e == simdjson::INCORRECT_TYPE ? "not `squeue --json` output: the document is not an object" : "");
    table t = native_jobs_table(file);
    t.header_line = 1;
    bool have_jobs = false;
    std::string cell;
    for (auto field : root) {
        std::string_view key;
        if (auto e = field.unescaped_key().get(key)) return fail(e, {});
        simdjson::ondemand::value v;
        if (auto e = field.value().get(v)) return fail(e, {});
        if (key == "meta") {
            simdjson::ondemand::object meta;
            if (v.get_object().get(meta)) continue;
            for (auto m : meta) {
                std::string_view mk;
                if (auto e = m.unescaped_key().get(mk)) return fail(e, {});
                if (mk != "Slurm" && mk != "slurm") continue;
                simdjson::ondemand::object so;
                if (m.value().get_object().get(so)) continue;
                for (auto f : so) {
                    std::string_view fk;
                    if (auto e = f.unescaped_key().get(fk)) return fail(e, {});
                    std::string_view release;
                    if (fk == "release" && !f.value().get_string().get(release) && version != nullptr)
                        *version = std::string(release);
                }
            }
            continue;
        }
        if (key != "jobs") continue;
        have_jobs = true;
        simdjson::ondemand::array jobs;
        if (auto e = v.get_array().get(jobs)) return fail(e, "\"jobs\" is not a list (not `squeue --json` output)");
        for (auto item : jobs) {
            simdjson::ondemand::object job;
            if (auto e = item.get_object().get(job)) return fail(e, "an entry of \"jobs\" is not an object");
            const char* loc = nullptr;
            if (!doc.current_location().get(loc)) lc.advance(static_cast<std::size_t>(loc - body.data()));
            table_row row;
            row.line = lc.line;
            row.cells.assign(nj_count, std::string());
            row.columns.assign(nj_count, 1);
            std::string nice;
            for (auto jf : job) {
                // The key as written (squeue's keys have no escapes): no unescaping copy.
                simdjson::ondemand::raw_json_string rk;
                if (auto e = jf.key().get(rk)) return fail(e, {});
                const char* kp = rk.raw();
                const void* kq = std::memchr(kp, '"', 32);
                const std::size_t col =
                    kq == nullptr ? nj_count
                                  : detail::json_job_column(std::string_view(kp, static_cast<std::size_t>(static_cast<const char*>(kq) - kp)));
                if (col == nj_count) continue; // skipped unread by On Demand
                simdjson::ondemand::value jv;
                if (auto e = jf.value().get(jv)) return fail(e, {});
                const detail::json_expect expect = col == nj_state ? detail::json_expect::state
                                                   : col == nj_user || col == nj_account || col == nj_partition ||
                                                           col == nj_qos || col == nj_tres
                                                       ? detail::json_expect::text
                                                       : detail::json_expect::number;
                const char* value_at = nullptr; // the value's first byte: errors point at it
                if (doc.current_location().get(value_at)) value_at = nullptr;
                if (auto why = detail::json_cell(jv, expect, cell); !why.empty())
                    return fail(simdjson::INCORRECT_TYPE, "\"" + std::string(detail::json_job_keys[col]) + "\": " + why, value_at);
                row.cells[col] = cell;
            }
            // 0 (22.05) or an unset number object (later layouts): no such time.
            for (const std::size_t c : {nj_eligible, nj_accrue})
                if (row.cells[c] == "0" || row.cells[c].empty()) row.cells[c] = "Unknown";
            if (row.cells[nj_time_limit].empty()) row.cells[nj_time_limit] = "Partition_Limit";
            // 22.05 prints a negative nice as its unsigned 32-bit wrap.
            if (const auto n = parse_unsigned<std::uint64_t>(row.cells[nj_nice]); n && *n > 2147483647 && *n <= 4294967295)
                row.cells[nj_nice] = std::to_string(static_cast<std::int64_t>(*n) - 4294967296);
            if (row.cells[nj_state] == "PENDING" && row.cells[nj_priority] == "0") row.cells[nj_state] = "HELD";
            t.rows.push_back(std::move(row));
        }
    }
    // Past the root object: nothing but white space (simdjson 3.0's document has no at_end;
    // a location in bounds is a token after the document).
    if (const char* after = nullptr; !doc.current_location().get(after))
        return fail(simdjson::TRAILING_CONTENT, "more after the JSON document (one `squeue --json` output a file)");
    if (!have_jobs) return config::make_error(file, 1, 1, "jobs", "a JSON document without a \"jobs\" list (not `squeue --json` output)");
    return t;
}

// ---------------------------------------------------------------------------------------
// Files by kind

/// Reads the file at `path` as a `conf_input` ("-" is standard input) through the checked
/// loader (config::read_text_file: at most 1 GiB, no NUL byte, a directory refused), with
/// room after the text for simdjson's padding.
[[nodiscard]] inline expected<config::conf_input> read_input(const std::string& path) {
    auto text = config::read_text_file(path);
    if (!text) return text.error();
    expected<config::conf_input> in(config::conf_input{});
    in->name = path == "-" ? std::string("<stdin>") : path;
    in->text.swap(*text);
    in->text.reserve(in->text.size() + simdjson::SIMDJSON_PADDING);
    return in;
}

/// A jobs input: a text in memory, or a large file mapped (a 100,000-job squeue --json is
/// some 300 MB: mapping it saves copying it).
struct jobs_source {
    std::string name;
    std::string owned;                 ///< the text, when read into memory
    std::shared_ptr<const char> mapped; ///< the mapping, when mapped
    std::size_t mapped_size = 0;       ///< the file's size
    std::size_t mapped_after = 0;      ///< readable bytes after the end (the rest of the last page)

    jobs_source() = default;
    jobs_source(config::conf_input in) : name(std::move(in.name)), owned(std::move(in.text)) {}
    jobs_source(std::string text, std::string n) : name(std::move(n)), owned(std::move(text)) {}

    [[nodiscard]] std::string_view text() const noexcept {
        return mapped ? std::string_view(mapped.get(), mapped_size) : std::string_view(owned);
    }
    [[nodiscard]] std::size_t readable_after() const noexcept {
        return mapped ? mapped_after : owned.capacity() - owned.size();
    }
};

/// Reads the jobs input at `path`: mapped when it is a regular file of 1 MiB or more, read
/// into memory otherwise ("-": standard input).
[[nodiscard]] inline expected<jobs_source> read_jobs_source(const std::string& path) {
    if (path != "-") {
        const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
        struct stat st {};
        if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= (1 << 20)) {
            const auto size = static_cast<std::size_t>(st.st_size);
            if (size > config::max_input_bytes) {
                close(fd);
                return config::too_large_error(path);
            }
            void* p = mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
            close(fd);
            if (p != MAP_FAILED) {
                jobs_source j;
                j.name = path;
                j.mapped = std::shared_ptr<const char>(static_cast<const char*>(p), [size](const char* q) {
                    munmap(const_cast<char*>(q), size);
                });
                j.mapped_size = size;
                const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
                j.mapped_after = size % page == 0 ? 0 : page - size % page;
                if (auto e = config::nul_byte_error(j.text(), path)) return *e;
                return j;
            }
        } else if (fd >= 0) {
            close(fd);
        }
    }
    auto in = read_input(path);
    if (!in) return in.error();
    return jobs_source(std::move(*in));
}

/// The jobs table of a jobs input of any kind: squeue --json, scontrol show job, or a '|'
/// table (mfprio's jobs table).
[[nodiscard]] inline expected<config::table> jobs_input_table(const jobs_source& in, std::string* version) {
    const std::string_view text = in.text();
    switch (config::detect_kind(text)) {
    case config::input_kind::json:
        return squeue_json_table(text, in.readable_after(), in.name, version);
    case config::input_kind::scontrol_jobs:
        return config::scontrol_jobs_table(text, in.name);
    case config::input_kind::squeue_text:
        return config::squeue_text_table(text, in.name);
    case config::input_kind::pipe_table:
        return config::parse_table(config::detail::without_bom(text), in.name);
    default:
        return input_error{in.name, 0, 0, {},
                           "not a jobs input: expected `squeue --json`, `scontrol show job`, `squeue -h -O` with the "
                           "format of `mfprio sprio --help`, or a '|' jobs table"};
    }
}

// ---------------------------------------------------------------------------------------
// Bundles and --live

/// A bundle's files: the command that writes each, and its file name. The jobs come from
/// `squeue -r -O` with the fields of config::squeue_format (a tenth of `squeue --json`'s
/// bytes, and as fast as sprio's own request); the QOS and association priorities from
/// slurmctld's assoc_mgr, so that nothing here needs slurmdbd.
struct bundle_file {
    std::string_view name;
    std::vector<std::string_view> command;
};

inline const std::vector<bundle_file>& bundle_files() {
    static const std::string squeue_fields(config::squeue_format);
    static const std::vector<bundle_file> files = {
        {"scontrol_show_config.txt", {"scontrol", "show", "config"}},
        {"scontrol_show_partition.txt", {"scontrol", "-o", "show", "partition"}},
        {"scontrol_show_node.txt", {"scontrol", "-o", "show", "node"}},
        {"sshare_a_l_P.txt", {"sshare", "-a", "-l", "-P"}},
        {"scontrol_show_assoc_mgr.txt", {"scontrol", "show", "assoc_mgr", "flags=assoc,qos"}},
        {"squeue.txt", {"squeue", "-a", "-r", "-h", "-t", "PENDING,RUNNING,SUSPENDED", "-O", squeue_fields}},
    };
    return files;
}

/// The inputs of a cluster, from a bundle or the cluster itself.
struct cluster_inputs {
    std::vector<config::conf_input> conf;   ///< slurm.conf-like texts
    std::vector<config::conf_input> assoc;  ///< sshare / assoc_mgr / sacctmgr texts
    std::optional<config::conf_input> qos;  ///< sacctmgr show qos -P (else assoc_mgr's QOS)
    std::optional<jobs_source> jobs;        ///< squeue -O / squeue --json / scontrol show job / table
    std::string slurm_version;              ///< from meta or the inputs
    std::optional<std::int64_t> calc_time;  ///< slurmctld's last recalculation
    std::optional<std::int64_t> captured;   ///< when the cluster's outputs were read
};

/// A 64-bit FNV-1a digest of `text`, as the manifest's check of each file: it finds a file
/// cut short, extended or edited (it is no defence against a forger).
[[nodiscard]] inline std::uint64_t content_digest(std::string_view text) noexcept {
    std::uint64_t h = 14695981039346656037ull;
    for (const unsigned char c : text) h = (h ^ c) * 1099511628211ull;
    return h;
}

[[nodiscard]] inline std::string hex64(std::uint64_t v) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
    return buf;
}


/// Reads `meta`'s key=value lines into `ci`. Each value is checked as the option it stands
/// for: priority_calc_time and captured as --now (1970..9999), slurm_version as
/// --slurm-version.
[[nodiscard]] inline std::optional<input_error> read_meta(std::string_view text, const std::string& name,
                                                          cluster_inputs& ci) {
    for (const auto& l : config::split_lines(text)) {
        const std::size_t eq = l.text.find('=');
        if (config::trim(l.text).empty()) continue;
        if (eq == std::string_view::npos)
            return config::make_error(name, l.number, 1, {}, "not a key=value line");
        const std::string_view k = config::trim(l.text.substr(0, eq)), v = config::trim(l.text.substr(eq + 1));
        const auto time_value = [&]() -> std::optional<std::int64_t> {
            const auto t = config::parse_signed<std::int64_t>(v);
            if (!t || *t < 0 || *t > config::max_epoch) return std::nullopt;
            return t;
        };
        if (k == "slurm_version") {
            if (!v.empty() && config::slurm_version_number(v) == 0)
                return config::make_error(name, l.number, eq + 2, "slurm_version",
                                          "'" + std::string(v) + "' is not a release such as 22.05 or 24.11.3");
            ci.slurm_version = std::string(v);
        } else if (k == "priority_calc_time" || k == "captured") {
            const auto t = time_value();
            if (!t)
                return config::make_error(name, l.number, eq + 2, std::string(k),
                                          "'" + std::string(v) + "' is not a time in epoch seconds from 1970 to 9999");
            (k == "captured" ? ci.captured : ci.calc_time) = *t;
        }
    }
    return std::nullopt;
}

/// The manifest of a bundle: one line per file, `file NAME SIZE DIGEST` (content_digest in
/// hex), after a first line `mfprio-bundle 1`.
[[nodiscard]] inline std::string manifest_text(std::span<const std::pair<std::string, std::string_view>> files) {
    std::string out = "mfprio-bundle 1\n";
    for (const auto& [name, text] : files)
        out += "file " + name + " " + std::to_string(text.size()) + " " + hex64(content_digest(text)) + "\n";
    return out;
}

/// Reads a bundle written by --save (or tests/live/capture.sh): the manifest says which files
/// it holds and their sizes and digests; a missing, cut or altered file is refused, naming
/// it, and so is a bundle without a manifest or a meta with the recalculation's time.
/// `scontrol_show_job.txt` or `squeue.json` stand in for `squeue.txt`, sacctmgr's QOS and
/// associations are read when the bundle has them.
[[nodiscard]] inline expected<cluster_inputs> read_bundle(const std::string& dir) {
    cluster_inputs ci;
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return input_error{dir, 0, 0, {}, "not a directory (--from takes a bundle written by --save)"};
    const auto path = [&](std::string_view name) { return (fs::path(dir) / name).string(); };
    const std::string manifest_path = path("manifest");
    auto manifest = config::read_text_file(manifest_path);
    if (!manifest)
        return input_error{manifest_path, 0, 0, {},
                           manifest.error().kind == error_kind::cannot_open
                               ? "missing: not a whole bundle (--save writes one with its manifest)"
                               : manifest.error().message};
    // The files the manifest lists, each read and checked.
    std::vector<std::pair<std::string, std::string>> files; // name, text
    bool header = false;
    for (const auto& l : config::split_lines(*manifest)) {
        if (config::trim(l.text).empty()) continue;
        if (!header) {
            if (config::trim(l.text) != "mfprio-bundle 1")
                return config::make_error(manifest_path, l.number, 1, {}, "not an mfprio bundle manifest (its first line is 'mfprio-bundle 1')");
            header = true;
            continue;
        }
        const auto f = config::split(config::trim(l.text), ' ');
        std::optional<std::uint64_t> size;
        if (f.size() == 4) size = config::parse_unsigned<std::uint64_t>(f[2]);
        if (f.size() != 4 || f[0] != "file" || f[1].empty() || f[1].find('/') != std::string_view::npos ||
            f[1] == "." || f[1] == ".." || !size || f[3].size() != 16)
            return config::make_error(manifest_path, l.number, 1, {}, "not a 'file NAME SIZE DIGEST' line");
        const std::string name(f[1]), p = path(name);
        auto text = config::read_text_file(p);
        if (!text) {
            if (text.error().kind == error_kind::cannot_open)
                return input_error{p, 0, 0, {}, "missing from the bundle (its manifest lists it)"};
            return text.error();
        }
        if (text->size() != *size)
            return input_error{p, 0, 0, {}, "has " + std::to_string(text->size()) + " bytes, the manifest says " +
                                                std::string(f[2]) + ": cut short or changed since it was saved"};
        if (hex64(content_digest(*text)) != f[3])
            return input_error{p, 0, 0, {}, "its content differs from what the manifest recorded: changed since it was saved"};
        files.emplace_back(name, std::move(*text));
    }
    if (!header) return input_error{manifest_path, 0, 0, {}, "empty: not a whole bundle"};
    const auto take = [&](std::string_view name) -> std::optional<config::conf_input> {
        for (auto& [n, t] : files)
            if (n == name) return config::conf_input{std::move(t), path(name)};
        return std::nullopt;
    };
    const auto required = [&](std::string_view name) -> expected<config::conf_input> {
        if (auto in = take(name)) return std::move(*in);
        return input_error{manifest_path, 0, 0, {}, "does not list " + std::string(name) + ", which a bundle needs"};
    };
    for (const std::string_view n : {"scontrol_show_config.txt", "scontrol_show_node.txt", "scontrol_show_partition.txt"}) {
        auto in = required(n);
        if (!in) return in.error();
        ci.conf.push_back(std::move(*in));
    }
    {
        auto in = required("sshare_a_l_P.txt");
        if (!in) return in.error();
        ci.assoc.push_back(std::move(*in));
    }
    for (const std::string_view n : {"scontrol_show_assoc_mgr.txt", "sacctmgr_show_assoc.txt"})
        if (auto in = take(n)) ci.assoc.push_back(std::move(*in));
    ci.qos = take("sacctmgr_show_qos.txt");
    if (!ci.qos && !std::any_of(ci.assoc.begin(), ci.assoc.end(), [](const config::conf_input& a) {
            return config::detect_kind(a.text) == config::input_kind::assoc_mgr;
        }))
        return input_error{manifest_path, 0, 0, {}, "lists neither scontrol_show_assoc_mgr.txt nor sacctmgr_show_qos.txt: no QOS"};
    for (const std::string_view n : {"squeue.txt", "squeue.json", "scontrol_show_job.txt"})
        if (auto in = take(n)) {
            in->text.reserve(in->text.size() + simdjson::SIMDJSON_PADDING);
            ci.jobs = jobs_source(std::move(*in));
            break;
        }
    if (!ci.jobs) return input_error{manifest_path, 0, 0, {}, "lists no jobs (squeue.txt, squeue.json or scontrol_show_job.txt)"};
    const std::string meta_path = path("meta");
    auto m = take("meta");
    if (!m) return input_error{meta_path, 0, 0, {}, "not listed in the manifest: the bundle's times are unknown"};
    if (auto e = read_meta(m->text, meta_path, ci)) return *e;
    if (!ci.calc_time)
        return input_error{meta_path, 0, 0, "priority_calc_time",
                           "missing: the time of slurmctld's recalculation the factors stand for"};
    return ci;
}

/// The outcome of running a command.
struct command_output {
    int status = -1;   ///< exit status, or -1 when it could not run or was killed
    std::string out;   ///< standard output
    std::string err;   ///< standard error (or why it could not run)
};

/// The most a command's standard output may print (the readers' own bound), and its
/// standard error.
inline constexpr std::size_t max_command_output = config::max_input_bytes;
inline constexpr std::size_t max_command_errors = std::size_t{1} << 20;

namespace detail {

/// One command of run_commands: its process (the leader of its own group), the read ends of
/// its standard output and error, and a pidfd that becomes readable when it exits (-1 where
/// the kernel has none: then its exit is looked for every 50 ms).
struct child_process {
    pid_t pid = -1;
    int fd[2] = {-1, -1}; ///< standard output, standard error (non-blocking)
    int pidfd = -1;
    bool exited = false, killed = false, over = false;
};

inline void close_fd(int& fd) noexcept {
    if (fd >= 0) close(fd);
    fd = -1;
}

/// Starts `argv` in a process group of its own, standard input from /dev/null. On failure,
/// `out.err` says why and the child counts as exited.
inline child_process start_child(const std::vector<std::string_view>& argv, command_output& out) {
    child_process c;
    int out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1};
    if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
        out.err = std::strerror(errno);
        for (int& fd : {std::ref(out_pipe[0]), std::ref(out_pipe[1]), std::ref(err_pipe[0]), std::ref(err_pipe[1])})
            close_fd(fd);
        c.exited = true;
        return c;
    }
    std::vector<std::string> args(argv.begin(), argv.end());
    std::vector<char*> cargs;
    for (auto& a : args) cargs.push_back(a.data());
    cargs.push_back(nullptr);
    const pid_t pid = fork();
    if (pid < 0) {
        out.err = std::strerror(errno);
        for (int& fd : {std::ref(out_pipe[0]), std::ref(out_pipe[1]), std::ref(err_pipe[0]), std::ref(err_pipe[1])})
            close_fd(fd);
        c.exited = true;
        return c;
    }
    if (pid == 0) {
        setpgid(0, 0);
        const int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0) dup2(devnull, 0);
        dup2(out_pipe[1], 1);
        dup2(err_pipe[1], 2);
        execvp(cargs[0], cargs.data());
        std::fprintf(stderr, "cannot run %s: %s\n", cargs[0], std::strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid); // also here, so that a kill cannot come before the child's own call
    c.pid = pid;
    close_fd(out_pipe[1]);
    close_fd(err_pipe[1]);
    c.fd[0] = out_pipe[0];
    c.fd[1] = err_pipe[0];
    for (const int fd : c.fd) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    c.pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
    return c;
}

} // namespace detail

/// Runs the commands `argvs` (each searched in PATH) at once, each with no input and in a
/// process group of its own, collecting their outputs until every one has exited and its
/// outputs are read, or until `timeout_s` seconds have passed for all of them together: then
/// every group still running (the command and whatever it started) is killed. When a command
/// exits, whatever it left running in its group is killed too (it holds no claim on the
/// result, and its open output would otherwise hold the read). An output past its bound
/// kills its group. Nothing is left running when this returns.
[[nodiscard]] inline std::vector<command_output> run_commands(const std::vector<std::vector<std::string_view>>& argvs,
                                                              int timeout_s = 60) {
    const std::size_t n = argvs.size();
    std::vector<command_output> r(n);
    std::vector<detail::child_process> cs;
    cs.reserve(n);
    for (std::size_t i = 0; i < n; ++i) cs.push_back(detail::start_child(argvs[i], r[i]));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
    std::vector<char> buf(1 << 16);
    const auto kill_group = [&](detail::child_process& c) {
        if (c.pid > 0 && !c.exited) {
            kill(-c.pid, SIGKILL);
            c.killed = true;
        }
    };
    // Reads what `c`'s output `k` holds now; false at its end (or past its bound).
    const auto read_some = [&](std::size_t i, int k) {
        detail::child_process& c = cs[i];
        for (;;) {
            const ssize_t got = read(c.fd[k], buf.data(), buf.size());
            if (got < 0 && errno == EINTR) continue;
            if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
            if (got <= 0) return false;
            std::string& to = k == 0 ? r[i].out : r[i].err;
            const std::size_t bound = k == 0 ? max_command_output : max_command_errors;
            const auto n = static_cast<std::size_t>(got);
            if (to.size() + n > bound) {
                c.over = true;
                kill_group(c);
                return false;
            }
            if (to.size() + n > to.capacity()) {
                // Capacities are powers of two from 64 KiB up to the bound (itself one), so the
                // largest buffer is the bound and the one it grew from half of it.
                std::size_t cap = std::max<std::size_t>(to.capacity(), std::size_t{1} << 16);
                while (cap < to.size() + n) cap *= 2;
                to.reserve(std::min(cap, bound));
            }
            to.append(buf.data(), n);
        }
    };
    const auto reap = [&](detail::child_process& c, bool block) {
        int status = 0;
        pid_t w;
        while ((w = waitpid(c.pid, &status, block ? 0 : WNOHANG)) < 0 && errno == EINTR) {
        }
        if (w != c.pid) return;
        c.exited = true;
        if (WIFEXITED(status) && !c.killed) r[&c - cs.data()].status = WEXITSTATUS(status);
        kill(-c.pid, SIGKILL);
        detail::close_fd(c.pidfd);
    };
    std::vector<pollfd> p;
    std::vector<std::pair<std::size_t, int>> which; // child, 0/1 output or 2 its pidfd
    for (;;) {
        bool polling_exit = false;
        p.clear();
        which.clear();
        for (std::size_t i = 0; i < n; ++i) {
            detail::child_process& c = cs[i];
            if (c.pid > 0 && !c.exited && c.pidfd < 0) {
                reap(c, false);
                polling_exit = !c.exited;
            }
            for (int k = 0; k < 2; ++k) {
                if (c.fd[k] < 0) continue;
                // Once the command has exited, what it printed is read and the pipe closed.
                if (c.exited) {
                    (void)read_some(i, k);
                    detail::close_fd(c.fd[k]);
                    continue;
                }
                p.push_back({c.fd[k], POLLIN, 0});
                which.emplace_back(i, k);
            }
            if (!c.exited && c.pidfd >= 0) {
                p.push_back({c.pidfd, POLLIN, 0});
                which.emplace_back(i, 2);
            }
        }
        if (p.empty() && !polling_exit) break;
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
        if (left <= 0) {
            for (auto& c : cs) {
                if (c.pid <= 0 || c.exited) continue;
                kill_group(c);
                reap(c, true);
                r[&c - cs.data()].status = -1;
                r[&c - cs.data()].err += "(killed after " + std::to_string(timeout_s) + " s)";
            }
            break;
        }
        const int wait_ms = static_cast<int>(polling_exit ? std::min<long long>(left, 50) : left);
        if (poll(p.data(), p.size(), wait_ms) < 0 && errno != EINTR) break;
        for (std::size_t x = 0; x < p.size(); ++x) {
            if (p[x].revents == 0) continue;
            const auto [i, k] = which[x];
            detail::child_process& c = cs[i];
            if (k == 2) reap(c, false);
            else if (c.fd[k] >= 0 && !read_some(i, k)) detail::close_fd(c.fd[k]);
        }
    }
    for (std::size_t i = 0; i < n; ++i) {
        detail::child_process& c = cs[i];
        for (int& fd : c.fd) detail::close_fd(fd);
        detail::close_fd(c.pidfd);
        if (c.over) {
            r[i].status = -1;
            r[i].out.clear();
            r[i].err = "printed more than " + std::to_string(max_command_output) + " bytes on its output (or " +
                       std::to_string(max_command_errors) + " on its errors), the most mfprio reads";
        }
    }
    return r;
}

/// Runs one command (see run_commands).
[[nodiscard]] inline command_output run_command(const std::vector<std::string_view>& argv, int timeout_s = 60) {
    return std::move(run_commands({argv}, timeout_s).front());
}

/// The time of slurmctld's last priority recalculation: the first 8 bytes (a big-endian
/// 64-bit time) of StateSaveLocation/priority_last_decay_ran, when readable. The file is
/// opened without blocking and read only when it is a regular file (a FIFO or a device there
/// would hold the read).
[[nodiscard]] inline std::optional<std::int64_t> last_decay_ran(std::string_view config_text) {
    std::string state;
    for (const auto& l : config::split_lines(config_text)) {
        const std::size_t eq = l.text.find('=');
        if (eq != std::string_view::npos && config::trim(l.text.substr(0, eq)) == "StateSaveLocation")
            state = std::string(config::trim(l.text.substr(eq + 1)));
    }
    if (state.empty()) return std::nullopt;
    const int fd = open((state + "/priority_last_decay_ran").c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    struct stat st {};
    unsigned char b[8];
    const bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && read(fd, b, 8) == 8;
    close(fd);
    if (!ok) return std::nullopt;
    std::uint64_t v = 0;
    for (const unsigned char c : b) v = (v << 8) | c;
    if (v == 0 || v > static_cast<std::uint64_t>(config::max_epoch)) return std::nullopt;
    return static_cast<std::int64_t>(v);
}

/// Runs the bundle's commands on this host's cluster, all at once, within `timeout_s`
/// seconds together. `err` gets the failing command, its status and its standard error.
/// `with_sacctmgr`: also sacctmgr's QOS (for the UsageFactor only it prints), skipped with a
/// note in `notes` when sacctmgr fails (slurmdbd down).
[[nodiscard]] inline std::optional<cluster_inputs> capture_live(std::string& err, int timeout_s = 60,
                                                                bool with_sacctmgr = false, std::string* notes = nullptr) {
    cluster_inputs ci;
    std::vector<std::vector<std::string_view>> commands;
    for (const bundle_file& f : bundle_files()) commands.push_back(f.command);
    static const std::vector<std::string_view> sacctmgr_qos = {"sacctmgr", "-P", "show", "qos"};
    if (with_sacctmgr) commands.push_back(sacctmgr_qos);
    auto outputs = run_commands(commands, timeout_s);
    ci.captured = static_cast<std::int64_t>(std::time(nullptr));
    const auto text_of = [](const std::vector<std::string_view>& command) {
        std::string cmd;
        for (const auto& a : command) {
            if (!cmd.empty()) cmd += ' ';
            cmd.append(a);
        }
        return cmd;
    };
    for (std::size_t i = 0; i < commands.size(); ++i) {
        command_output& r = outputs[i];
        const bool optional = i >= bundle_files().size();
        const std::string name = optional ? "sacctmgr_show_qos.txt" : std::string(bundle_files()[i].name);
        std::optional<input_error> nul;
        if (r.status == 0) nul = config::nul_byte_error(r.out, "`" + text_of(commands[i]) + "` output");
        if (r.status != 0 || nul) {
            std::string why = nul ? nul->to_string()
                                  : "`" + text_of(commands[i]) + "` " +
                                        (r.status < 0 ? std::string("failed") : "exited with status " + std::to_string(r.status));
            if (!nul && !r.err.empty()) why += ": " + std::string(config::trim(r.err));
            if (optional) {
                if (notes != nullptr) *notes += why + " (QOS UsageFactor taken as 1)\n";
                continue;
            }
            err = why;
            return std::nullopt;
        }
        config::conf_input in{std::move(r.out), "live:" + name};
        if (name == "scontrol_show_config.txt") {
            ci.calc_time = last_decay_ran(in.text);
            ci.conf.insert(ci.conf.begin(), std::move(in));
        } else if (name.starts_with("scontrol_show_") && name != "scontrol_show_assoc_mgr.txt") {
            ci.conf.push_back(std::move(in));
        } else if (name == "sacctmgr_show_qos.txt") {
            ci.qos = std::move(in);
        } else if (name == "squeue.txt") {
            ci.jobs = jobs_source(std::move(in));
        } else {
            ci.assoc.push_back(std::move(in));
        }
    }
    return ci;
}

/// Writes `ci` as a bundle into `dir` (created if missing): every file, then `meta`, then the
/// manifest that lists them all with their sizes and digests. Returns an error sentence.
[[nodiscard]] inline std::optional<std::string> save_bundle(const cluster_inputs& ci, const std::string& dir) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return "cannot create " + dir + ": " + ec.message();
    const auto write = [&](std::string_view name, std::string_view text) -> std::optional<std::string> {
        const std::string p = (fs::path(dir) / name).string();
        std::ofstream f(p, std::ios::binary | std::ios::trunc);
        f.write(text.data(), static_cast<std::streamsize>(text.size()));
        f.close();
        if (!f) return "cannot write " + p;
        return std::nullopt;
    };
    std::vector<std::pair<std::string, std::string_view>> all; // name, text
    const auto add = [&](std::string_view name, std::string_view text) {
        if (const auto p = name.find(':'); p != std::string_view::npos) name.remove_prefix(p + 1);
        all.emplace_back(fs::path(name).filename().string(), text);
    };
    for (const auto& c : ci.conf) add(c.name, c.text);
    for (const auto& c : ci.assoc) add(c.name, c.text);
    if (ci.qos) add(ci.qos->name, ci.qos->text);
    if (ci.jobs) add(ci.jobs->name, ci.jobs->text());
    std::string meta;
    if (ci.captured) meta += "captured=" + std::to_string(*ci.captured) + "\n";
    meta += "slurm_version=" + ci.slurm_version + "\n";
    if (ci.calc_time) meta += "priority_calc_time=" + std::to_string(*ci.calc_time) + "\n";
    all.emplace_back("meta", meta);
    for (const auto& [name, text] : all)
        if (auto e = write(name, text)) return e;
    return write("manifest", manifest_text(all));
}

} // namespace mfprio::cli
