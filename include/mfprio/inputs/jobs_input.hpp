#pragma once
// Where a cluster's jobs come from: a file of any kind Slurm prints about jobs, told apart by
// its content (`squeue --json`, `scontrol show job`, `squeue -h -O` with config::squeue_format's
// fields) or mfprio's '|' jobs table. Large files are mapped rather than copied. Opt-in: it
// reads `squeue --json` with simdjson (see squeue_json.hpp).

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <simdjson.h>

#include <mfprio/read/jobs_table.hpp>
#include <mfprio/read/slurm_native.hpp>
#include <mfprio/core/expected.hpp>
#include <mfprio/inputs/squeue_json.hpp>
#include <mfprio/text/text.hpp>

namespace mfprio::inputs {

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
        return text::file_error(in.name, {},
                                "not a jobs input: expected `squeue --json`, `scontrol show job`, `squeue -h -O` with the "
                                "format of `mfprio sprio --help`, or a '|' jobs table");
    }
}

} // namespace mfprio::inputs
