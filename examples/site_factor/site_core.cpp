// site_factor/mfprio's C++ half: the policy (mfprio::queue::site.hpp's registry and result)
// behind the plain C interface of site_job.h. It includes mfprio and nothing of Slurm.
//
// slurmctld calls the plugin under its job write lock (submission, the periodic update) or
// its configuration lock (reconfigure); the policy is swapped under a mutex, so a
// reconfigure never frees an engine another call is using (each thread holds the policy it
// last read until the next change). Policies are read with `mfprio::queue::site_factors()`:
// the built-in site factors, and a site's own when the build names their header
// (-Dsite_factors, examples/site_factor/site_factors.hpp is one).
//
// The snapshot is copied under slurmctld's locks and written by a thread of the plugin's
// own, outside them: the job lock is held for the copy, not for the file.

#include "site_job.h"

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <mfprio/replay/site_snapshot.hpp>
#include <mfprio/queue/site.hpp>
#include <mfprio/queue/site_factors.hpp>

namespace {

struct loaded_policy {
    std::string path;
    std::string snapshot; ///< snapshot=DIR ("" when not set)
    mfprio::queue::site_engine engine;
    std::uint32_t reads = 0; ///< what its terms read of a job (site_reads)
};

// The C header's bits are the library's.
static_assert(MFPRIO_SITE_READS_TIMES == mfprio::queue::site_reads_times &&
              MFPRIO_SITE_READS_PARTITION == mfprio::queue::site_reads_partition &&
              MFPRIO_SITE_READS_QOS == mfprio::queue::site_reads_qos &&
              MFPRIO_SITE_READS_REQUEST == mfprio::queue::site_reads_request &&
              MFPRIO_SITE_READS_TRES == mfprio::queue::site_reads_tres &&
              MFPRIO_SITE_READS_OWNER_GPU == mfprio::queue::site_reads_owner_gpu);

std::mutex policy_mutex;
std::shared_ptr<const loaded_policy> current;
std::string current_path;
/// +1 at each change of `current`: a thread keeps the policy it last read until it changes,
/// so that the value of each job costs no lock.
std::atomic<std::uint64_t> generation{1};

const loaded_policy* policy() {
    thread_local std::uint64_t seen = 0;
    thread_local std::shared_ptr<const loaded_policy> held;
    const std::uint64_t now = generation.load(std::memory_order_acquire);
    if (seen != now) {
        std::lock_guard<std::mutex> lock(policy_mutex);
        held = current;
        seen = generation.load(std::memory_order_relaxed);
    }
    return held.get();
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
        auto engine = mfprio::queue::load_site_policy_file(p.policy, mfprio::queue::site_factors());
        if (!engine) message = engine.error().to_string();
        else {
            const auto names = engine->names();
            const std::uint32_t reads = mfprio::queue::site_policy_reads(names, mfprio::queue::site_factors());
            next = std::make_shared<const loaded_policy>(
                loaded_policy{.path = p.policy, .snapshot = p.snapshot, .engine = std::move(*engine), .reads = reads});
        }
    }
    {
        std::lock_guard<std::mutex> lock(policy_mutex);
        current = next;
        current_path = next ? next->path : std::string();
        generation.fetch_add(1, std::memory_order_release);
    }
    if (next) return 0;
    copy_error(message, error, size);
    return -1;
}

extern "C" int mfprio_site_loaded(void) { return policy() != nullptr; }

extern "C" uint32_t mfprio_site_reads(void) {
    const loaded_policy* p = policy();
    return p != nullptr ? p->reads : 0;
}

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
    j.owner_gpu_minutes = job->owner_gpu_minutes;
    return p->engine.priority(j, mfprio::queue::site_context{now});
}

namespace {

/// An association as copied under slurmctld's locks: its numbers, and its names as offsets
/// into the copy's name buffer (no allocation per association).
struct copied_assoc {
    mfprio_site_assoc values; ///< the names' pointers are left null
    std::uint32_t account = 0, user = 0, partition = 0;
};

/// What the copy under the locks fills: the associations and their names.
struct copied_snapshot {
    std::int64_t pass = 0;
    std::vector<copied_assoc> assocs;
    std::string names;
    void clear() {
        assocs.clear();
        names.clear();
    }
    std::uint32_t add_name(const char* name) {
        const auto at = static_cast<std::uint32_t>(names.size());
        if (name != nullptr) names.append(name);
        names.push_back('\0');
        return at;
    }
    /// The snapshot the library writes, built outside the locks.
    [[nodiscard]] mfprio::config::site_snapshot expand() const {
        mfprio::config::site_snapshot s;
        s.pass = pass;
        s.assocs.reserve(assocs.size());
        for (const auto& c : assocs) {
            const mfprio_site_assoc& a = c.values;
            s.assocs.push_back({a.id, names.c_str() + c.account, names.c_str() + c.user, names.c_str() + c.partition,
                                a.shares_raw, a.level_shares, a.shares_norm, a.usage_raw, a.usage_norm, a.usage_efctv,
                                a.fs_parent, a.gpu_usage, 0});
        }
        return s;
    }
};

/// The snapshot being copied (under slurmctld's locks) and the writer thread that writes
/// the last one committed. Two copies take turns: the one being filled and the one the
/// thread writes, so that after the first passes the copy allocates nothing.
class snapshot_writer {
public:
    ~snapshot_writer() { stop(); }

    copied_snapshot& filling() { return filling_; }

    /// Hands `filling()` to the thread (replacing a snapshot not yet written) as the pass
    /// at `now` for `dir`; `filling()` is then empty, with the capacity of an earlier copy.
    void commit(std::int64_t now, std::string dir) {
        filling_.pass = now;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            std::swap(ready_, filling_);
            has_ready_ = true;
            dir_ = std::move(dir);
            if (!thread_.joinable()) {
                stopping_ = false;
                thread_ = std::thread([this] { run(); });
            }
            // The thread's last copy, done with, if it gave it back; else what was ready.
            if (has_spare_) {
                std::swap(filling_, spare_);
                has_spare_ = false;
            }
        }
        filling_.clear();
        wake_.notify_one();
    }

    /// The thread's last error, cleared.
    std::string take_error() {
        std::lock_guard<std::mutex> lock(mutex_);
        return std::exchange(error_, std::string());
    }

    void stop() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stopping_ = true;
        }
        wake_.notify_one();
        if (thread_.joinable()) thread_.join();
        filling_ = {};
        ready_ = {};
        spare_ = {};
        has_ready_ = has_spare_ = false;
    }

private:
    void run() {
        std::unique_lock<std::mutex> lock(mutex_);
        copied_snapshot mine;
        for (;;) {
            wake_.wait(lock, [this] { return stopping_ || has_ready_; });
            if (stopping_) return;
            std::swap(mine, ready_);
            has_ready_ = false;
            const std::string dir = dir_;
            lock.unlock();
            std::string failure = write(mine.expand(), dir);
            lock.lock();
            if (!failure.empty()) error_ = std::move(failure);
            if (!has_spare_) {
                std::swap(spare_, mine);
                has_spare_ = true;
            }
        }
    }

    /// Written to a new file, then renamed: a reader sees the old snapshot or the new one.
    static std::string write(const mfprio::config::site_snapshot& s, const std::string& dir) {
        const std::string final_path = dir + "/" + std::string(mfprio::config::site_snapshot_file);
        const std::string temp_path = final_path + ".new";
        const std::string text = mfprio::config::format_site_snapshot(s);
        std::FILE* f = std::fopen(temp_path.c_str(), "w");
        if (f == nullptr) return "cannot write " + temp_path + ": " + std::strerror(errno);
        const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
        const bool closed = std::fclose(f) == 0;
        if (!written || !closed || std::rename(temp_path.c_str(), final_path.c_str()) != 0) {
            const std::string why = std::strerror(errno);
            std::remove(temp_path.c_str());
            return "cannot write " + final_path + ": " + why;
        }
        return {};
    }

    copied_snapshot filling_, ready_, spare_;
    bool has_ready_ = false, has_spare_ = false;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::string dir_, error_;
    bool stopping_ = false;
    std::thread thread_;
};

snapshot_writer writer;

} // namespace

extern "C" int mfprio_site_snapshot_wanted(void) {
    const auto p = policy();
    return p && !p->snapshot.empty();
}

extern "C" void mfprio_site_snapshot_add(const struct mfprio_site_assoc* a) {
    if (a == nullptr) return;
    copied_snapshot& s = writer.filling();
    copied_assoc c;
    c.values = *a;
    c.values.account = c.values.user = c.values.partition = nullptr;
    c.account = s.add_name(a->account);
    c.user = s.add_name(a->user);
    c.partition = s.add_name(a->partition);
    s.assocs.push_back(c);
}

extern "C" void mfprio_site_snapshot_commit(int64_t now) {
    const auto p = policy();
    if (!p || p->snapshot.empty()) {
        writer.filling().clear();
        return;
    }
    writer.commit(now, p->snapshot);
}

extern "C" int mfprio_site_take_error(char* error, std::size_t size) {
    const std::string e = writer.take_error();
    if (e.empty()) return 0;
    copy_error(e, error, size);
    return 1;
}

extern "C" void mfprio_site_clear(void) {
    writer.stop();
    std::lock_guard<std::mutex> lock(policy_mutex);
    current.reset();
    current_path.clear();
    generation.fetch_add(1, std::memory_order_release);
}
