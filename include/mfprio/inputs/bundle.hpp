#pragma once
// A cluster's inputs, and the bundle that keeps them: a directory of the Slurm commands'
// outputs under fixed names (bundle_files), a `meta` file of key=value lines (captured, in
// epoch seconds; slurm_version; priority_calc_time, the time of slurmctld's last priority
// recalculation, which is the time sprio's factors were computed at; slurm_conf_changed, when
// slurm.conf last changed, where known) and a `manifest` listing
// every file with its size and digest, so that a file cut short or edited is refused.
// Opt-in, as jobs_input.hpp (simdjson).

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <simdjson.h>

#include <mfprio/model/slurm_cluster.hpp>
#include <mfprio/read/slurm_native.hpp>
#include <mfprio/read/sprio_listing.hpp>
#include <mfprio/core/expected.hpp>
#include <mfprio/inputs/jobs_input.hpp>
#include <mfprio/text/text.hpp>

namespace mfprio::inputs {

/// A bundle's files: the command that writes each, and its file name. The jobs come from
/// `squeue -r -O` with the fields of config::squeue_format (a tenth of `squeue --json`'s
/// bytes, and as fast as sprio's own request); the QOS and association priorities from
/// slurmctld's assoc_mgr, so that nothing here needs slurmdbd; the nodes with --future, which
/// lists the FUTURE nodes too (slurmctld counts them in the cluster's nodes and CPUs).
struct bundle_file {
    std::string_view name;
    std::vector<std::string_view> command;
};

inline const std::vector<bundle_file>& bundle_files() {
    static const std::string squeue_fields(config::squeue_format);
    static const std::vector<bundle_file> files = {
        {"scontrol_show_config.txt", {"scontrol", "show", "config"}},
        {"scontrol_show_partition.txt", {"scontrol", "-o", "show", "partition"}},
        {"scontrol_show_node.txt", {"scontrol", "-o", "--future", "show", "node"}},
        {"sshare_a_l_P.txt", {"sshare", "-a", "-l", "-P"}},
        {"scontrol_show_assoc_mgr.txt", {"scontrol", "show", "assoc_mgr", "flags=assoc,qos"}},
        {"squeue.txt", {"squeue", "-a", "-r", "-h", "-t", "PENDING,RUNNING,SUSPENDED", "-O", squeue_fields}},
    };
    return files;
}

/// What sprio printed at the capture (config::sprio_listing_format): the one output that tells
/// a priority set by an administrator, and what `--verify` compares mfprio's factors with.
/// A bundle may hold it in either form config::parse_sprio_listing reads.
inline const bundle_file& sprio_listing_file() {
    static const std::string format(config::sprio_listing_format);
    static const bundle_file f{"sprio_factors.txt", {"sprio", "-o", format}};
    return f;
}

/// The inputs of a cluster, from a bundle or the cluster itself.
struct cluster_inputs {
    std::vector<config::conf_input> conf;   ///< slurm.conf-like texts
    std::vector<config::conf_input> assoc;  ///< sshare / assoc_mgr / sacctmgr texts
    std::optional<config::conf_input> qos;  ///< sacctmgr show qos -P (else assoc_mgr's QOS)
    std::optional<jobs_source> jobs;        ///< squeue -O / squeue --json / scontrol show job / table
    std::optional<config::conf_input> sprio; ///< what sprio printed (sprio_listing_file), when captured
    std::string slurm_version;              ///< from meta or the inputs
    std::optional<std::int64_t> calc_time;  ///< slurmctld's last recalculation
    std::optional<std::int64_t> captured;   ///< when the cluster's outputs were read
    /// When the slurm.conf slurmctld reads (`scontrol show config`'s SLURM_CONF) last changed,
    /// where --live could see it: after the last recalculation, slurmctld holds each job's
    /// factors of the weights before (it keeps them until its next recalculation).
    std::optional<std::int64_t> conf_changed;
    /// The command lines that printed the inputs, by the bundle file each wrote (--live: the
    /// command's full path first), kept in meta as `command.FILE=LINE`.
    std::vector<std::pair<std::string, std::string>> commands;
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


/// The lines of a bundle's meta seen so far, by key: each key is given once (a second line
/// would silently win over the first).
class meta_key_lines {
public:
    /// The error of `key` given again on line `line`, or nullopt (the key is then recorded).
    [[nodiscard]] std::optional<input_error> repeated(std::string_view key, std::size_t line, const std::string& file) {
        for (const auto& [k, first] : seen_)
            if (k == key)
                return config::make_error(file, line, 1, std::string(key),
                                          "given twice (first on line " + std::to_string(first) + ")", error_kind::shape);
        seen_.emplace_back(std::string(key), line);
        return std::nullopt;
    }

private:
    std::vector<std::pair<std::string, std::size_t>> seen_;
};

/// Reads `meta`'s key=value lines into `ci`. Each value is checked as the option it stands
/// for: priority_calc_time, captured and slurm_conf_changed as --now (1970..9999),
/// slurm_version as --slurm-version.
[[nodiscard]] inline std::optional<input_error> read_meta(std::string_view text, const std::string& name,
                                                          cluster_inputs& ci) {
    meta_key_lines keys;
    for (const auto& l : config::split_lines(text)) {
        const std::size_t eq = l.text.find('=');
        if (config::trim(l.text).empty()) continue;
        if (eq == std::string_view::npos)
            return config::make_error(name, l.number, 1, {}, "not a key=value line");
        const std::string_view k = config::trim(l.text.substr(0, eq)), v = config::trim(l.text.substr(eq + 1));
        if (auto twice = keys.repeated(k, l.number, name)) return *twice;
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
        } else if (k == "priority_calc_time" || k == "captured" || k == "slurm_conf_changed") {
            const auto t = time_value();
            if (!t)
                return config::make_error(name, l.number, eq + 2, std::string(k),
                                          "'" + std::string(v) + "' is not a time in epoch seconds from 1970 to 9999");
            (k == "captured" ? ci.captured : k == "slurm_conf_changed" ? ci.conf_changed : ci.calc_time) = *t;
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

/// The files a bundle's manifest lists, each read through the checked loader and checked
/// against the size and digest the manifest recorded, in the manifest's order (name, text).
/// A missing, cut or altered file is refused, naming it, and so is a directory without a
/// manifest.
[[nodiscard]] inline expected<std::vector<std::pair<std::string, std::string>>> read_manifest_files(const std::string& dir) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        return config::file_error(dir, {}, "not a directory (--from takes a bundle written by --save)");
    const auto path = [&](std::string_view name) { return (fs::path(dir) / name).string(); };
    const std::string manifest_path = path("manifest");
    auto manifest = config::read_text_file(manifest_path, config::max_input_bytes, config::file_source::regular);
    if (!manifest)
        return config::file_error(manifest_path, {},
                                  manifest.error().kind == error_kind::cannot_open
                                      ? "missing: not a whole bundle (--save writes one with its manifest)"
                                      : manifest.error().message);
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
        auto text = config::read_text_file(p, config::max_input_bytes, config::file_source::regular);
        if (!text) {
            if (text.error().kind == error_kind::cannot_open)
                return config::file_error(p, {}, "missing from the bundle (its manifest lists it)");
            return text.error();
        }
        if (text->size() != *size)
            return config::file_error(p, {},
                                      "has " + std::to_string(text->size()) + " bytes, the manifest says " + std::string(f[2]) +
                                          ": cut short or changed since it was saved");
        if (hex64(content_digest(*text)) != f[3])
            return config::file_error(p, {},
                                      "its content differs from what the manifest recorded: changed since it was saved");
        files.emplace_back(name, std::move(*text));
    }
    if (!header) return config::file_error(manifest_path, {}, "empty: not a whole bundle");
    // The bundle is the files its manifest lists and nothing else: a file beside them is one
    // the replay would not read, so its presence is said rather than ignored. Subdirectories
    // are not part of a bundle (capture.sh keeps the real commands' reference outputs in
    // expected/).
    std::vector<std::string> unlisted;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        std::error_code kind_ec;
        if (name == "manifest" || it->is_directory(kind_ec)) continue;
        if (std::none_of(files.begin(), files.end(), [&](const auto& f) { return f.first == name; }))
            unlisted.push_back(name);
    }
    if (!unlisted.empty()) {
        std::sort(unlisted.begin(), unlisted.end());
        return config::file_error(path(unlisted.front()), {},
                                  "not listed in the bundle's manifest: a bundle holds only the files its manifest lists" +
                                      std::string(unlisted.size() > 1 ? " (" + std::to_string(unlisted.size() - 1) + " more)" : ""));
    }
    return files;
}

/// Why `dir` may not receive a bundle from --save, or nullopt: it may when it does not exist
/// or is empty, or, with `force`, when it holds a whole bundle (save_bundle then replaces it).
/// A directory that holds anything else is never written into.
[[nodiscard]] inline std::optional<std::string> save_dir_error(const std::string& dir, bool force) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::exists(dir, ec)) return std::nullopt;
    if (!fs::is_directory(dir, ec)) return dir + " exists and is not a directory";
    if (fs::is_empty(dir, ec)) return std::nullopt;
    if (!force) return dir + " is not empty: --save writes a new bundle (--force replaces the bundle in it)";
    if (auto listed = read_manifest_files(dir); !listed)
        return dir + " does not hold a whole bundle, so --force does not replace it: " + listed.error().to_string();
    return std::nullopt;
}

/// Removes the bundle in `dir` (the files its manifest lists, then the manifest), if any, so
/// that a bundle written there holds only its own files.
inline void remove_bundle(const std::string& dir) {
    namespace fs = std::filesystem;
    std::error_code ec;
    auto listed = read_manifest_files(dir);
    if (!listed) return;
    for (const auto& [name, text] : *listed) fs::remove(fs::path(dir) / name, ec);
    fs::remove(fs::path(dir) / "manifest", ec);
}

/// Reads a bundle written by --save (or tests/live/capture.sh): the manifest says which files
/// it holds and their sizes and digests (read_manifest_files); a bundle without a meta with the
/// recalculation's time is refused.
/// `scontrol_show_job.txt` or `squeue.json` stand in for `squeue.txt`, sacctmgr's QOS and
/// associations and sprio's listing (sprio_listing_file) are read when the bundle has them.
[[nodiscard]] inline expected<cluster_inputs> read_bundle(const std::string& dir) {
    cluster_inputs ci;
    namespace fs = std::filesystem;
    const auto path = [&](std::string_view name) { return (fs::path(dir) / name).string(); };
    const std::string manifest_path = path("manifest");
    auto listed = read_manifest_files(dir);
    if (!listed) return listed.error();
    auto& files = *listed;
    const auto take = [&](std::string_view name) -> std::optional<config::conf_input> {
        for (auto& [n, t] : files)
            if (n == name) return config::conf_input{std::move(t), path(name)};
        return std::nullopt;
    };
    const auto required = [&](std::string_view name) -> expected<config::conf_input> {
        if (auto in = take(name)) return std::move(*in);
        return config::file_error(manifest_path, {}, "does not list " + std::string(name) + ", which a bundle needs");
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
    ci.sprio = take(sprio_listing_file().name);
    if (!ci.qos && !std::any_of(ci.assoc.begin(), ci.assoc.end(), [](const config::conf_input& a) {
            return config::detect_kind(a.text) == config::input_kind::assoc_mgr;
        }))
        return config::file_error(manifest_path, {},
                                  "lists neither scontrol_show_assoc_mgr.txt nor sacctmgr_show_qos.txt: no QOS");
    for (const std::string_view n : {"squeue.txt", "squeue.json", "scontrol_show_job.txt"})
        if (auto in = take(n)) {
            in->text.reserve(in->text.size() + simdjson::SIMDJSON_PADDING);
            ci.jobs = jobs_source(std::move(*in));
            break;
        }
    if (!ci.jobs)
        return config::file_error(manifest_path, {}, "lists no jobs (squeue.txt, squeue.json or scontrol_show_job.txt)");
    const std::string meta_path = path("meta");
    auto m = take("meta");
    if (!m) return config::file_error(meta_path, {}, "not listed in the manifest: the bundle's times are unknown");
    if (auto e = read_meta(m->text, meta_path, ci)) return *e;
    if (!ci.calc_time)
        return config::file_error(meta_path, "priority_calc_time",
                                  "missing: the time of slurmctld's recalculation the factors stand for");
    return ci;
}

/// Writes `ci` as a bundle into `dir` (created if missing; a bundle already there replaced):
/// every file, then `meta`, then the manifest that lists them all with their sizes and
/// digests. Returns an error sentence. (--save checks the directory first: save_dir_error.)
[[nodiscard]] inline std::optional<std::string> save_bundle(const cluster_inputs& ci, const std::string& dir) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return "cannot create " + dir + ": " + ec.message();
    remove_bundle(dir);
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
    if (ci.sprio) add(ci.sprio->name, ci.sprio->text);
    std::string meta;
    if (ci.captured) meta += "captured=" + std::to_string(*ci.captured) + "\n";
    meta += "slurm_version=" + ci.slurm_version + "\n";
    if (ci.calc_time) meta += "priority_calc_time=" + std::to_string(*ci.calc_time) + "\n";
    if (ci.conf_changed) meta += "slurm_conf_changed=" + std::to_string(*ci.conf_changed) + "\n";
    for (const auto& [file, line] : ci.commands) meta += "command." + file + "=" + line + "\n";
    all.emplace_back("meta", meta);
    for (const auto& [name, text] : all)
        if (auto e = write(name, text)) return e;
    return write("manifest", manifest_text(all));
}

} // namespace mfprio::inputs
