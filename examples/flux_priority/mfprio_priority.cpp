// mfprio_priority.so: a flux-core jobtap priority plugin whose priority is an mfprio policy
// file over the factors a Flux job carries (README.md beside this file is its manual).
//
//   flux jobtap load mfprio_priority.so policy=FILE|PRESET [period=SECONDS] [db=PATH]
//
// At every refresh (at load, every `period` seconds, and when a query finds the policy file
// changed) it takes the time, the instance's nodes and cores (resource.R in the KVS) and,
// with `db`, flux-accounting's queue, bank and association tables, then reprioritizes every
// pending job; a job arriving between refreshes is computed with the refresh's numbers, so a
// priority always follows from what `flux jobtap query mfprio_priority.so` reports. A policy
// that does not parse is logged (file, line, column) and the one in force stays.

#include <flux/core.h>
#include <flux/idset.h>
#include <flux/jobtap.h>
#include <jansson.h>
#include <sqlite3.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <mfprio/model/flux_jobtap.hpp>
#include <mfprio/queue/builtin.hpp>
#include <mfprio/queue/policy.hpp>
#include <mfprio/text/text.hpp>

namespace {

namespace keys = mfprio::config::jobtap_keys;
using engine_type = mfprio::queue::flux_dynamic_engine;
using clock_type = std::chrono::steady_clock;

/// Default seconds between refreshes.
constexpr double default_period = 60.0;

struct plugin_state {
    flux_plugin_t* p = nullptr;
    flux_t* h = nullptr;
    std::string policy;       ///< as configured: a file, or a preset of jobtap_registry()
    std::string policy_text;  ///< the text in force
    std::string tried_text;   ///< the last text refused (logged once)
    std::string policy_error; ///< its error
    double policy_loaded = 0;
    std::optional<engine_type> engine;
    double period = default_period;
    std::string database;
    std::string database_error;
    bool database_read = false; ///< the database was read once
    bool resources_read = true; ///< the last refresh read resource.R
    mfprio::config::jobtap_model model;
    mfprio::flux::context ctx;
    std::uint64_t generation = 0;
    double refreshed = 0;
    std::uint64_t jobs = 0; ///< jobs the last reprioritization computed
    double seconds = 0;     ///< its wall time
    std::uint64_t calls = 0;
    double call_seconds = 0;
    flux_watcher_t* timer = nullptr;

    ~plugin_state() { flux_watcher_destroy(timer); }
};

double wall_now() {
    timespec t{};
    clock_gettime(CLOCK_REALTIME, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

/// The policy's text (config::jobtap_policy_text); a file that cannot be read is logged.
std::optional<std::string> policy_text_of(plugin_state& s) {
    auto t = mfprio::config::jobtap_policy_text(s.policy);
    if (!t) {
        const std::string e = t.error().to_string();
        if (e != s.policy_error)
            flux_log(s.h, LOG_ERR, "mfprio_priority: %s (%s)", e.c_str(),
                     s.engine ? "the policy in force stays" : "the plugin is not loaded");
        s.policy_error = e;
        return std::nullopt;
    }
    return std::move(*t);
}

/// Loads the policy when its text changed since the one in force (and since the last one
/// refused): true when a new one is in force.
bool load_policy(plugin_state& s) {
    auto text = policy_text_of(s);
    if (!text || (s.engine && *text == s.policy_text) || (!s.tried_text.empty() && *text == s.tried_text)) return false;
    auto e = mfprio::config::jobtap_engine(*text, mfprio::config::jobtap_policy_name(s.policy), s.model.inputs());
    if (!e) {
        s.tried_text = *text;
        s.policy_error = e.error().to_string();
        flux_log(s.h, LOG_ERR, "mfprio_priority: %s (%s)", s.policy_error.c_str(),
                 s.engine ? "the policy in force stays" : "the plugin is not loaded");
        return false;
    }
    s.engine.emplace(std::move(*e));
    s.policy_text = std::move(*text);
    s.tried_text.clear();
    s.policy_error.clear();
    s.policy_loaded = wall_now();
    flux_log(s.h, LOG_INFO, "mfprio_priority: policy %s loaded", s.policy.c_str());
    return true;
}

/// The instance's nodes and cores from resource.R (R version 1's R_lite); false if it cannot
/// be read.
bool read_resources(flux_t* h, std::uint32_t& nodes, std::uint32_t& cores) {
    flux_future_t* f = flux_kvs_lookup(h, nullptr, 0, "resource.R");
    json_t* rlite = nullptr;
    bool ok = f != nullptr && flux_kvs_lookup_get_unpack(f, "{s:{s:o}}", "execution", "R_lite", &rlite) == 0 &&
              json_is_array(rlite);
    std::uint64_t n = 0, c = 0;
    std::size_t i = 0;
    json_t* entry = nullptr;
    if (ok) json_array_foreach(rlite, i, entry) {
            const char* ranks = nullptr;
            const char* core = nullptr;
            if (json_unpack(entry, "{s:s s:{s:s}}", "rank", &ranks, "children", "core", &core) < 0) {
                ok = false;
                break;
            }
            idset* r = idset_decode(ranks);
            idset* k = idset_decode(core);
            if (r != nullptr && k != nullptr) {
                n += idset_count(r);
                c += static_cast<std::uint64_t>(idset_count(r)) * idset_count(k);
            } else {
                ok = false;
            }
            idset_destroy(r);
            idset_destroy(k);
        }
    flux_future_destroy(f);
    if (!ok) return false;
    nodes = static_cast<std::uint32_t>(n);
    cores = static_cast<std::uint32_t>(c);
    return true;
}

/// Runs `sql` on `db`, calling `row` with each row's statement; the error, or "".
template <class Row>
std::string query(sqlite3* db, const char* sql, Row row) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) != SQLITE_OK) return sqlite3_errmsg(db);
    int rc = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) row(st);
    std::string err = rc == SQLITE_DONE ? "" : sqlite3_errmsg(db);
    sqlite3_finalize(st);
    return err;
}

std::string column_text(sqlite3_stmt* st, int k) {
    const unsigned char* t = sqlite3_column_text(st, k);
    return t == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(t));
}

/// flux-accounting's tables into `in`, as `flux account-priority-update` sends them to its
/// plugin (every row, active or not); the error, or "".
std::string read_database(const std::string& path, mfprio::config::jobtap_inputs& in) {
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
        std::string e = db != nullptr ? sqlite3_errmsg(db) : "cannot open";
        sqlite3_close(db);
        return path + ": " + e;
    }
    sqlite3_busy_timeout(db, 2000);
    std::string e = query(db, "SELECT queue, priority FROM queue_table", [&](sqlite3_stmt* st) {
        in.queues.emplace_back(column_text(st, 0), sqlite3_column_int64(st, 1));
    });
    if (e.empty())
        e = query(db, "SELECT bank, priority FROM bank_table", [&](sqlite3_stmt* st) {
            in.banks.emplace_back(column_text(st, 0), sqlite3_column_double(st, 1));
        });
    if (e.empty())
        e = query(db, "SELECT factor, weight FROM priority_factor_weight_table", [&](sqlite3_stmt* st) {
            in.weights.emplace_back(column_text(st, 0), sqlite3_column_int64(st, 1));
        });
    if (e.empty())
        e = query(db, "SELECT userid, bank, fairshare, default_bank FROM association_table", [&](sqlite3_stmt* st) {
            in.associations.push_back({static_cast<std::uint32_t>(sqlite3_column_int64(st, 0)), column_text(st, 1),
                                       sqlite3_column_double(st, 2), column_text(st, 3)});
        });
    sqlite3_close(db);
    return e.empty() ? e : path + ": " + e;
}

/// The time, the instance's size and the database read again: the numbers of the next
/// computations.
void read_inputs(plugin_state& s) {
    mfprio::config::jobtap_inputs in;
    in.now = static_cast<std::int64_t>(std::time(nullptr));
    in.nodes = s.model.inputs().nodes;
    in.cores = s.model.inputs().cores;
    const bool sized = read_resources(s.h, in.nodes, in.cores);
    if (!sized && s.resources_read) // (said once, until it can be read again)
        flux_log(s.h, LOG_ERR, "mfprio_priority: resource.R cannot be read: the instance's size stays %u nodes, %u cores",
                 in.nodes, in.cores);
    s.resources_read = sized;
    if (!s.database.empty()) {
        std::string e = read_database(s.database, in);
        if (!e.empty()) {
            if (e != s.database_error)
                flux_log(s.h, LOG_ERR, "mfprio_priority: %s (%s)", e.c_str(),
                         s.database_read ? "the tables read before stay" : "no table read yet: their terms are 0");
            in.queues = s.model.inputs().queues;
            in.banks = s.model.inputs().banks;
            in.associations = s.model.inputs().associations;
            in.weights = s.model.inputs().weights;
        }
        s.database_read = s.database_read || e.empty();
        s.database_error = std::move(e);
    }
    const bool reweigh = in.weights != s.model.inputs().weights;
    s.model = mfprio::config::jobtap_model(std::move(in));
    s.ctx = s.model.context();
    if (reweigh && s.engine) {
        // The database's weights changed: the flux-accounting preset takes them.
        auto e = mfprio::config::jobtap_engine(s.policy_text, mfprio::config::jobtap_policy_name(s.policy), s.model.inputs());
        if (e) s.engine.emplace(std::move(*e));
        else flux_log(s.h, LOG_ERR, "mfprio_priority: %s (the policy in force stays)", e.error().to_string().c_str());
    }
    ++s.generation;
    s.refreshed = wall_now();
}

/// A refresh: `read_inputs`, then every pending job reprioritized.
void refresh(plugin_state& s) {
    read_inputs(s);
    const std::uint64_t before = s.calls;
    const auto start = clock_type::now();
    if (flux_jobtap_reprioritize_all(s.p) < 0) flux_log_error(s.h, "mfprio_priority: flux_jobtap_reprioritize_all");
    s.seconds = std::chrono::duration<double>(clock_type::now() - start).count();
    s.jobs = s.calls - before;
}

/// The nodes and cores a jobspec asks for, as flux-core's job-list counts them (nnodes: the
/// product of the node counts down to the node level; ncores: slots x cores per slot, 0 for
/// whole nodes, where the count depends on the nodes given).
void jobspec_counts(json_t* resources, std::int64_t factor, std::int64_t& nnodes, std::int64_t& nslots,
                    std::int64_t& slot_size, bool& exclusive) {
    std::size_t i = 0;
    json_t* v = nullptr;
    json_array_foreach(resources, i, v) {
        const char* type = nullptr;
        json_int_t count = 0;
        int excl = 0;
        json_t* with = nullptr;
        if (json_unpack(v, "{s:s s:I s?b s?o}", "type", &type, "count", &count, "exclusive", &excl, "with", &with) < 0 ||
            count <= 0)
            continue;
        const std::int64_t f = factor * count;
        const std::string_view t = type;
        if (t == "node") {
            nnodes = f;
            exclusive = exclusive || excl != 0;
        } else if (t == "slot") {
            nslots = count;
        } else if (t == "core") {
            slot_size = count;
        }
        if (with != nullptr && json_is_array(with)) jobspec_counts(with, f, nnodes, nslots, slot_size, exclusive);
    }
}

/// What the plugin keeps of a job between computations (the job's aux item "mfprio::job"):
/// all but the urgency, which is read at every call. Dropped at a jobspec-update
/// (`job.update`), which may change the queue, bank, size or duration.
struct job_facts {
    std::uint32_t userid = 0;
    double t_submit = 0;
    std::string queue, bank;
    std::int64_t nnodes = 0, ncores = 0;
    double duration = 0;
};
constexpr const char* facts_key = "mfprio::job";

/// The current job's facts from the job manager's arguments; nullptr if they lack what every
/// job has.
std::unique_ptr<job_facts> read_facts(flux_plugin_arg_t* args) {
    json_int_t userid = 0;
    double t_submit = 0;
    json_t* jobspec = nullptr;
    if (flux_plugin_arg_unpack(args, FLUX_PLUGIN_ARG_IN, "{s:I s:F s:o}", "userid", &userid, "t_submit", &t_submit,
                               "jobspec", &jobspec) < 0)
        return nullptr;
    const char* queue = nullptr;
    const char* bank = nullptr;
    double duration = 0;
    json_t* resources = nullptr;
    (void)json_unpack(jobspec, "{s?{s?{s?s s?s s?F}} s?o}", "attributes", "system", "queue", &queue, "bank", &bank,
                      "duration", &duration, "resources", &resources);
    std::int64_t nnodes = 0, nslots = 0, slot_size = 0;
    bool exclusive = false;
    if (resources != nullptr && json_is_array(resources)) jobspec_counts(resources, 1, nnodes, nslots, slot_size, exclusive);
    if (nnodes > 0) nslots *= nnodes;
    auto f = std::make_unique<job_facts>();
    f->userid = static_cast<std::uint32_t>(userid);
    f->t_submit = t_submit;
    f->queue = queue != nullptr ? queue : "";
    f->bank = bank != nullptr ? bank : "";
    f->nnodes = nnodes;
    f->ncores = (nnodes > 0 && exclusive) ? 0 : nslots * slot_size;
    f->duration = duration;
    return f;
}

/// The current job as mfprio's model reads it (its facts kept from an earlier call, or read
/// and kept now); false if the job manager's arguments lack what every job has.
bool current_job(flux_plugin_t* p, flux_plugin_arg_t* args, mfprio::config::jobtap_job& j) {
    int urgency = 0;
    if (flux_plugin_arg_unpack(args, FLUX_PLUGIN_ARG_IN, "{s:i}", "urgency", &urgency) < 0) return false;
    auto* f = static_cast<job_facts*>(flux_jobtap_job_aux_get(p, FLUX_JOBTAP_CURRENT_JOB, facts_key));
    if (f == nullptr) {
        auto read = read_facts(args);
        if (!read) return false;
        f = read.get();
        if (flux_jobtap_job_aux_set(p, FLUX_JOBTAP_CURRENT_JOB, facts_key, f,
                                    [](void* v) { delete static_cast<job_facts*>(v); }) == 0)
            (void)read.release();
        else
            return false;
    }
    j.userid = f->userid;
    j.urgency = static_cast<std::uint8_t>(urgency < 0 ? 0 : urgency > 31 ? 31 : urgency);
    j.t_submit = f->t_submit;
    j.queue = f->queue;
    j.bank = f->bank;
    j.nnodes = f->nnodes;
    j.ncores = f->ncores;
    j.duration = f->duration;
    return true;
}

/// job.update: a jobspec-update; the job's facts are read again at its next computation.
int update_cb(flux_plugin_t* p, const char*, flux_plugin_arg_t*, void*) {
    (void)flux_jobtap_job_aux_set(p, FLUX_JOBTAP_CURRENT_JOB, facts_key, nullptr, nullptr);
    return 0;
}

/// job.state.priority and job.priority.get: the job's priority under the policy in force.
int priority_cb(flux_plugin_t* p, const char*, flux_plugin_arg_t* args, void* data) {
    auto& s = *static_cast<plugin_state*>(data);
    const auto start = clock_type::now();
    mfprio::config::jobtap_job j;
    if (!current_job(p, args, j)) {
        flux_log(s.h, LOG_ERR, "mfprio_priority: %s", flux_plugin_arg_strerror(args));
        return -1;
    }
    const auto prio = s.engine->priority(s.model.job(j), s.ctx);
    const int rc = flux_plugin_arg_pack(args, FLUX_PLUGIN_ARG_OUT, "{s:I}", "priority", static_cast<json_int_t>(prio.value));
    ++s.calls;
    s.call_seconds += std::chrono::duration<double>(clock_type::now() - start).count();
    if (rc < 0) flux_log(s.h, LOG_ERR, "mfprio_priority: %s", flux_plugin_arg_strerror(args));
    return rc;
}

json_t* inputs_json(const mfprio::config::jobtap_inputs& in) {
    json_t* queues = json_array();
    for (const auto& [name, priority] : in.queues) json_array_append_new(queues, json_pack("[s I]", name.c_str(), static_cast<json_int_t>(priority)));
    json_t* banks = json_array();
    for (const auto& [name, priority] : in.banks) json_array_append_new(banks, json_pack("[s f]", name.c_str(), priority));
    json_t* assocs = json_array();
    for (const auto& a : in.associations)
        json_array_append_new(assocs, json_pack("[I s f s]", static_cast<json_int_t>(a.userid), a.bank.c_str(), a.fairshare,
                                                a.default_bank.c_str()));
    json_t* weights = json_array();
    for (const auto& [factor, weight] : in.weights)
        json_array_append_new(weights, json_pack("[s I]", factor.c_str(), static_cast<json_int_t>(weight)));
    return json_pack("{s:I s:I s:I s:o s:o s:o s:o}", keys::now, static_cast<json_int_t>(in.now), keys::nodes,
                     static_cast<json_int_t>(in.nodes), keys::cores, static_cast<json_int_t>(in.cores), keys::queues,
                     queues, keys::banks, banks, keys::associations, assocs, keys::weights, weights);
}

/// plugin.query: loads the policy file again when it changed (and refreshes), then reports
/// what the priorities follow from.
int query_cb(flux_plugin_t*, const char*, flux_plugin_arg_t* args, void* data) {
    auto& s = *static_cast<plugin_state*>(data);
    const bool reloaded = load_policy(s);
    if (reloaded) refresh(s);
    json_t* o = inputs_json(s.model.inputs());
    json_t* more = json_pack("{s:s s:s s:f s:s s:b s:f s:s s:s s:I s:f s:I s:f s:I s:f}", keys::policy, s.policy.c_str(),
                             keys::policy_text, s.policy_text.c_str(), keys::policy_loaded, s.policy_loaded,
                             keys::policy_error, s.policy_error.c_str(), keys::reloaded, reloaded ? 1 : 0, keys::period,
                             s.period, keys::database, s.database.c_str(), keys::database_error, s.database_error.c_str(),
                             keys::generation, static_cast<json_int_t>(s.generation), keys::refreshed, s.refreshed, keys::jobs,
                             static_cast<json_int_t>(s.jobs), keys::seconds, s.seconds, keys::calls,
                             static_cast<json_int_t>(s.calls), keys::call_seconds, s.call_seconds);
    if (o == nullptr || more == nullptr || json_object_update(o, more) < 0) {
        json_decref(o);
        json_decref(more);
        return -1;
    }
    json_decref(more);
    return flux_plugin_arg_pack(args, FLUX_PLUGIN_ARG_OUT, "o", o);
}

void timer_cb(flux_reactor_t*, flux_watcher_t*, int, void* data) {
    auto& s = *static_cast<plugin_state*>(data);
    (void)load_policy(s);
    refresh(s);
}

/// The plugin's configuration: policy (required), period and db.
bool configure(plugin_state& s) {
    const char* policy = nullptr;
    const char* db = nullptr;
    json_t* period = nullptr;
    if (flux_plugin_conf_unpack(s.p, "{s:s s?o s?s !}", "policy", &policy, "period", &period, "db", &db) < 0) {
        flux_log(s.h, LOG_ERR,
                 "mfprio_priority: configuration: %s (give policy=FILE or policy=PRESET, and optionally "
                 "period=SECONDS and db=PATH)",
                 flux_plugin_strerror(s.p));
        return false;
    }
    s.policy = policy;
    if (db != nullptr) s.database = db;
    if (period != nullptr) {
        const char* text = json_string_value(period);
        char* end = nullptr;
        const double v = json_is_number(period) ? json_number_value(period) : text != nullptr ? std::strtod(text, &end) : -1;
        if ((text != nullptr && (end == text || *end != '\0')) || !(v >= 0 && v <= 31536000)) {
            flux_log(s.h, LOG_ERR, "mfprio_priority: period: expected seconds from 0 (no periodic refresh) to 31536000");
            return false;
        }
        s.period = v;
    }
    return true;
}

const flux_plugin_handler handlers[] = {
    {"job.state.priority", priority_cb, nullptr},
    {"job.priority.get", priority_cb, nullptr},
    {"plugin.query", query_cb, nullptr},
    {"job.update", update_cb, nullptr},
    {nullptr, nullptr, nullptr},
};

} // namespace

extern "C" __attribute__((visibility("default"))) int flux_plugin_init(flux_plugin_t* p) {
    auto state = std::make_unique<plugin_state>();
    plugin_state& s = *state;
    s.p = p;
    s.h = flux_jobtap_get_flux(p);
    if (s.h == nullptr || !configure(s)) return -1;
    if (!load_policy(s)) return -1; // logged: a plugin without a policy is not loaded
    if (s.period > 0) {
        s.timer = flux_timer_watcher_create(flux_get_reactor(s.h), s.period, s.period, timer_cb, &s);
        if (s.timer == nullptr) return -1;
        flux_watcher_start(s.timer);
    }
    // Handlers take the state as their argument; the plugin owns it.
    for (const auto& h : handlers) {
        if (h.topic == nullptr) break;
        if (flux_plugin_add_handler(p, h.topic, h.cb, &s) < 0) return -1;
    }
    if (flux_plugin_aux_set(p, nullptr, state.get(), [](void* v) { delete static_cast<plugin_state*>(v); }) < 0) return -1;
    state.release();
    read_inputs(s); // (the job manager reprioritizes every job once the plugin is loaded)
    return 0;
}
