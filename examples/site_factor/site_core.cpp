// site_factor/mfprio's C++ half: the policy (mfprio::queue::site.hpp's registry and result)
// behind the plain C interface of site_job.h. It includes mfprio and nothing of Slurm.
//
// slurmctld calls the plugin under its job write lock (submission, the periodic update) or
// its configuration lock (reconfigure); the policy is swapped under a mutex, so a
// reconfigure never frees an engine another call is using.

#include "site_job.h"

#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include <mfprio/queue/site.hpp>

namespace {

struct loaded_policy {
    std::string path;
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

/// The value of `key=` in a comma-separated parameter list ("" when absent); `unknown`
/// receives the first key that is not `policy`.
std::string parameter(std::string_view list, std::string_view key, std::string& unknown) {
    std::string value;
    while (!list.empty()) {
        const std::size_t comma = list.find(',');
        const std::string_view item = mfprio::text::trim(list.substr(0, comma));
        list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
        if (item.empty()) continue;
        const std::size_t eq = item.find('=');
        const std::string_view k = mfprio::text::trim(item.substr(0, eq));
        if (k == key && eq != std::string_view::npos) value = std::string(mfprio::text::trim(item.substr(eq + 1)));
        else if (unknown.empty()) unknown = std::string(item);
    }
    return value;
}

} // namespace

extern "C" int mfprio_site_configure(const char* parameters, char* error, std::size_t size) {
    const std::string_view list = parameters != nullptr ? parameters : "";
    std::string unknown;
    const std::string path = parameter(list, "policy", unknown);
    std::string message;
    std::shared_ptr<const loaded_policy> next;
    if (!unknown.empty()) {
        message = "PrioritySiteFactorParameters: unknown parameter '" + unknown + "' (policy=FILE)";
    } else if (path.empty()) {
        message = "PrioritySiteFactorParameters has no policy=FILE";
    } else {
        auto engine = mfprio::queue::load_site_policy_file(path);
        if (!engine) message = engine.error().to_string();
        else next = std::make_shared<const loaded_policy>(loaded_policy{path, std::move(*engine)});
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
