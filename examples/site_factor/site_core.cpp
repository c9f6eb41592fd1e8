// site_factor/mfprio's C++ half: the policy (mfprio::queue::site.hpp's registry and result)
// behind the plain C interface of site_job.h. It includes mfprio and nothing of Slurm.
//
// slurmctld calls the plugin under its job write lock (submission, the periodic update) or
// its configuration lock (reconfigure); the policy is swapped under a mutex, so a
// reconfigure never frees an engine another call is using.

#include "site_job.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include <mfprio/queue/site.hpp>

namespace {

struct loaded_policy {
    std::string path;
    std::string snapshot; ///< snapshot=DIR ("" when not set)
    mfprio::queue::site_engine engine;
};

std::mutex policy_mutex;
std::shared_ptr<const loaded_policy> current;
std::string current_path;

std::shared_ptr<const loaded_policy> policy() {
    std::lock_guard<std::mutex> lock(policy_mutex);
    return current;
}

void copy_error(const std::string& message, char* error, std::size_t size) {
    if (error == nullptr || size == 0) return;
    const std::size_t n = message.size() < size - 1 ? message.size() : size - 1;
    std::memcpy(error, message.data(), n);
    error[n] = '\0';
}

/// The parameters of PrioritySiteFactorParameters: `policy=FILE[,snapshot=DIR]`; `unknown`
/// receives the first item that is neither.
struct parameters {
    std::string policy, snapshot, unknown;
};
parameters parse_parameters(std::string_view list) {
    parameters p;
    while (!list.empty()) {
        const std::size_t comma = list.find(',');
        const std::string_view item = mfprio::text::trim(list.substr(0, comma));
        list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
        if (item.empty()) continue;
        const std::size_t eq = item.find('=');
        const std::string_view k = mfprio::text::trim(item.substr(0, eq));
        const std::string value = eq == std::string_view::npos ? std::string() : std::string(mfprio::text::trim(item.substr(eq + 1)));
        if (k == "policy" && !value.empty()) p.policy = value;
        else if (k == "snapshot" && !value.empty()) p.snapshot = value;
        else if (p.unknown.empty()) p.unknown = std::string(item);
    }
    return p;
}

} // namespace

extern "C" int mfprio_site_configure(const char* text, char* error, std::size_t size) {
    const parameters p = parse_parameters(text != nullptr ? text : "");
    std::string message;
    std::shared_ptr<const loaded_policy> next;
    if (!p.unknown.empty()) {
        message = "PrioritySiteFactorParameters: unknown parameter '" + p.unknown + "' (policy=FILE[,snapshot=DIR])";
    } else if (p.policy.empty()) {
        message = "PrioritySiteFactorParameters has no policy=FILE";
    } else {
        auto engine = mfprio::queue::load_site_policy_file(p.policy);
        if (!engine) message = engine.error().to_string();
        else next = std::make_shared<const loaded_policy>(loaded_policy{p.policy, p.snapshot, std::move(*engine)});
    }
    {
        std::lock_guard<std::mutex> lock(policy_mutex);
        current = next;
        current_path = next ? next->path : std::string();
    }
    if (next) return 0;
    copy_error(message, error, size);
    return -1;
}

extern "C" int mfprio_site_loaded(void) { return policy() != nullptr; }

extern "C" const char* mfprio_site_policy_path(void) {
    std::lock_guard<std::mutex> lock(policy_mutex);
    return current_path.c_str();
}

extern "C" int64_t mfprio_site_value(const struct mfprio_site_job* job, int64_t now) {
    const auto p = policy();
    if (!p || job == nullptr) return 0;
    mfprio::queue::site_job j;
    j.id = job->id;
    j.submit_time = job->submit_time;
    j.begin_time = job->begin_time;
    j.time_limit = job->time_limit;
    j.partition_priority = job->partition_priority;
    j.qos_priority = job->qos_priority;
    j.nice = job->nice;
    j.cpus = job->cpus;
    j.nodes = job->nodes;
    j.mem_mb = job->mem_mb;
    j.gpus = job->gpus;
    return p->engine.priority(j, mfprio::queue::site_context{now});
}

extern "C" void mfprio_site_clear(void) {
    std::lock_guard<std::mutex> lock(policy_mutex);
    current.reset();
    current_path.clear();
}

extern "C" int mfprio_site_note_pass(int64_t now, char* error, std::size_t size) {
    const auto p = policy();
    if (!p || p->snapshot.empty()) return 0;
    // Written to a new file, then renamed: a reader sees the old pass or the new one.
    const std::string final_path = p->snapshot + "/site_factor_pass";
    const std::string temp_path = final_path + ".new";
    std::FILE* f = std::fopen(temp_path.c_str(), "w");
    if (f == nullptr) {
        copy_error("cannot write " + temp_path + ": " + std::strerror(errno), error, size);
        return -1;
    }
    const int written = std::fprintf(f, "pass=%lld\n", static_cast<long long>(now));
    const bool ok = written > 0 && std::fclose(f) == 0;
    if (!ok || std::rename(temp_path.c_str(), final_path.c_str()) != 0) {
        copy_error("cannot write " + final_path + ": " + std::strerror(errno), error, size);
        std::remove(temp_path.c_str());
        return -1;
    }
    return 0;
}
