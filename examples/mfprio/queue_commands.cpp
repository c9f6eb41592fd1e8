// `mfprio queue`: a runtime-configured engine over a jobs table.
#include "queue_commands.hpp"

#include <unordered_set>

namespace mfprio::cli {

/// `mfprio queue ...`
outcome run_queue(std::span<const std::string_view> args) {
    if ((std::find(args.begin(), args.end(), std::string_view("--from")) != args.end() ||
         std::find(args.begin(), args.end(), std::string_view("--live")) != args.end()) &&
        std::find(args.begin(), args.end(), std::string_view("--help")) == args.end())
        return run_queue_from(args);
    outcome o;
    std::string policy, jobs_path, assoc_path, queues_path, banks_path, conf_path, qos_path;
    std::optional<std::int64_t> now;
    std::optional<std::uint32_t> explain;
    std::optional<fairshare::algorithm> algorithm;
    std::unordered_map<std::string, std::string> default_banks;
    const auto usage = usage_reporter(o, "queue");
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view a = args[i];
        if (help_or_unknown(o, "queue", a, queue_option_names, queue_help)) return o;
        if (a == "--check" || a == "--exact-products" || a == "--save" || a == "--force" || a == "--set" ||
            a == "--new-submissions" || a == "--next-update")
            return usage(std::string(a) + " goes with --from or --live");
        if (a == "--from" || !takes_value(queue_option_spellings, a)) return usage("unknown option '" + std::string(a) + "'");
        std::string error;
        const auto value = option_value(args, i, error);
        if (!value) return usage(error);
        const std::string_view v = *value;
        if (a == "--policy") policy = v;
        else if (a == "--jobs") jobs_path = v;
        else if (a == "--assoc") assoc_path = v;
        else if (a == "--queues") queues_path = v;
        else if (a == "--banks") banks_path = v;
        else if (a == "--conf") conf_path = v;
        else if (a == "--qos") qos_path = v;
        else if (a == "--default-bank") {
            const std::size_t eq = v.find('=');
            if (eq == std::string_view::npos || eq == 0 || eq + 1 == v.size())
                return usage("--default-bank takes USER=BANK, not '" + std::string(v) + "'");
            default_banks[std::string(v.substr(0, eq))] = std::string(v.substr(eq + 1));
        } else if (std::string error; common_value(a, v, now, explain, error)) {
            if (!error.empty()) return usage(error);
        } else {
            algorithm = fairshare::parse_algorithm(v);
            if (!algorithm) return usage("unknown algorithm '" + std::string(v) + "'");
        }
    }
    if (policy.empty() || jobs_path.empty()) return usage("--policy and --jobs are required");
    if (conf_path.empty() != qos_path.empty()) return usage("--conf and --qos go together");
    if (!conf_path.empty() && assoc_path.empty()) return usage("--conf needs --assoc too");

    const auto fail = [&](const input_error& e) {
        o.status = exit_data;
        o.err += "mfprio: " + e.to_string() + "\n";
        return o;
    };
    // The engine: a preset by name, else a policy file.
    const auto reg = queue::builtin_registry();
    auto engine = reg.find_preset(policy) != nullptr ? queue::load_preset(policy, reg, flux::flux_result{})
                                                     : queue::load_policy_file(policy, reg, flux::flux_result{});
    if (!engine) return fail(engine.error());

    auto jobs = config::read_table(jobs_path);
    if (!jobs) return fail(jobs.error());
    config::flux_inputs in;
    in.jobs = &*jobs;
    in.algorithm = algorithm;
    if (!default_banks.empty()) in.default_banks = &default_banks;
    std::optional<config::assoc_table> assoc;
    std::optional<config::priority_table> queues, banks;
    std::optional<config::slurm_conf> conf;
    std::optional<config::qos_table> qos;
    if (!assoc_path.empty()) {
        auto a = config::read_assoc_table(assoc_path);
        if (!a) return fail(a.error());
        assoc = std::move(*a);
        in.assoc = &*assoc;
        in.assoc_file = assoc_path;
    }
    if (!queues_path.empty()) {
        auto q = config::read_queue_table(queues_path);
        if (!q) return fail(q.error());
        queues = std::move(*q);
        in.queues = &*queues;
    }
    if (!banks_path.empty()) {
        auto b = config::read_bank_table(banks_path);
        if (!b) return fail(b.error());
        banks = std::move(*b);
        in.banks = &*banks;
    }
    if (!conf_path.empty()) {
        auto c = config::read_slurm_conf(conf_path);
        if (!c) return fail(c.error());
        conf = std::move(*c);
        auto q = config::read_qos_table(qos_path);
        if (!q) return fail(q.error());
        qos = std::move(*q);
        in.conf = &*conf;
        in.qos = &*qos;
        in.conf_file = conf_path;
    }
    auto model = config::build_flux_model(in);
    if (!model) return fail(model.error());
    const std::int64_t t = now ? *now : static_cast<std::int64_t>(std::time(nullptr));
    const auto ctx = model->context(t);

    if (explain) {
        for (const auto& j : model->jobs) {
            if (j.id != *explain) continue;
            const auto x = engine->explain(j, ctx);
            std::string out = "job " + std::to_string(j.id) + " (user " + model->user_names[j.user] + ", urgency " +
                              std::to_string(j.urgency) + ")\n";
            for (const auto& term : x.terms) {
                char line[256];
                std::snprintf(line, sizeof line, "  %-12.*s %.17g x %.17g = %.17g\n", static_cast<int>(term.name.size()),
                              term.name.data(), term.factor, term.weight, term.contribution);
                out += line;
            }
            char sum[128];
            std::snprintf(sum, sizeof sum, "  sum %.17g\n", x.score);
            out += sum;
            static constexpr std::string_view how[] = {
                "the sum, rounded", "urgency 0: held", "urgency 31: expedited",
                "the rounded sum is 0 or less: 0, which holds the job in Flux (priority-hold)",
                "clamped at 4294967295"};
            out += "  priority " + std::to_string(x.priority.value) + " (" +
                   std::string(how[static_cast<std::size_t>(x.priority.status)]) + ")\n";
            o.out = out;
            return o;
        }
        o.status = exit_data;
        o.err += "mfprio: " + jobs_path + ": job " + std::to_string(*explain) + " is not in the jobs table\n";
        return o;
    }

    // Pending jobs only (held ones included: their priority is 0), in Flux's queue order.
    std::vector<flux::job> pending;
    for (const auto& j : model->jobs)
        if (j.state == job_state::pending || j.state == job_state::held) pending.push_back(j);
    std::vector<flux::priority_value> prio(pending.size());
    engine->batch(std::span<const flux::job>(pending), ctx, std::span<flux::priority_value>(prio));
    const auto order = flux::start_order(std::span<const flux::job>(pending), std::span<const flux::priority_value>(prio));

    // Seed 003's layout: "%7s %8s %10s" then " %10s" per factor; values are the weighted
    // contributions, rounded ("%.0f").
    const auto names = engine->names();
    std::string out = detail::right("JOBID", 7) + " " + detail::right("USER", 8) + " " + detail::right("PRIORITY", 10);
    for (const auto& n : names) out += " " + detail::right(detail::upper(n), 10);
    out += "\n";
    for (std::size_t k : order) {
        const auto& j = pending[k];
        const auto x = engine->explain(j, ctx);
        out += detail::right(std::to_string(j.id), 7) + " " + detail::right(model->user_names[j.user], 8) + " " +
               detail::right(std::to_string(prio[k].value), 10);
        for (const auto& term : x.terms) out += " " + detail::right(detail::fixed0(term.contribution), 10);
        out += "\n";
    }
    o.out = out;
    return o;
}

outcome run_queue_from(std::span<const std::string_view> args) {
    outcome o;
    std::string dir, save;
    bool check = false, live = false, new_submissions = false, force = false, next_update = false;
    std::optional<std::uint64_t> explain;
    std::vector<std::pair<std::string, std::string>> changes;
    config::flux_plugin_options opt;
    const auto usage = usage_reporter(o, "queue");
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view a = args[i];
        if (help_or_unknown(o, "queue", a, queue_option_names, queue_help)) return o;
        if (a == "--check") check = true;
        else if (a == "--exact-products") opt.exact_products = true;
        else if (a == "--live") live = true;
        else if (a == "--force") force = true;
        else if (a == "--new-submissions") new_submissions = true;
        else if (a == "--next-update") next_update = true;
        else if (a == "--explain" || a == "--set" || a == "--from" || a == "--save") {
            std::string error;
            const auto value = option_value(args, i, error);
            if (!value) return usage(error);
            const std::string_view v = *value;
            if (a == "--explain") {
                explain = inputs::parse_flux_jobid(v);
                if (!explain || *explain == 0) return usage("--explain takes a Flux job id (f58 or decimal), not '" + std::string(v) + "'");
            } else if (a == "--set") {
                const std::size_t eq = v.find('=');
                if (eq == std::string_view::npos || eq == 0) return usage("--set takes KEY=VALUE, not '" + std::string(v) + "'");
                changes.emplace_back(std::string(text::trim(v.substr(0, eq))), std::string(text::trim(v.substr(eq + 1))));
            } else {
                (a == "--from" ? dir : save) = v;
            }
        } else return usage("option " + std::string(a) + " does not go with --from or --live");
    }
    if (live == !dir.empty()) return usage("give --from DIR or --live");
    if (!save.empty() && !live) return usage("--save needs --live (a bundle is what --live captured)");
    if (force && save.empty()) return usage("--force goes with --save DIR");
    if (!save.empty())
        if (auto e = inputs::save_dir_error(save, force)) return usage(*e);
    if (new_submissions && changes.empty()) return usage("--new-submissions goes with --set");
    if (!changes.empty() && check) return usage("--check compares with what Flux printed; it does not go with --set");
    if (explain && (check || !changes.empty())) return usage("--explain goes with neither --check nor --set");
    if (next_update && (check || !changes.empty()))
        return usage("--next-update predicts what Flux has not computed yet: it goes with neither --check nor --set (--set predicts the next update too)");
    std::string scratch; // --live without --save: a bundle in a directory of its own, removed after
    std::vector<std::pair<std::string, std::string>> ran; // --live: each file's command line
    if (live) {
        if (save.empty()) {
            std::string t = std::filesystem::temp_directory_path().string() + "/mfprio-flux.XXXXXX";
            if (mkdtemp(t.data()) == nullptr) {
                o.status = exit_data;
                o.err += "mfprio queue --live: cannot make a temporary directory\n";
                return o;
            }
            scratch = save = t;
        }
        std::string err;
        if (!capture_flux_live(save, err, ran)) {
            if (!scratch.empty()) std::filesystem::remove_all(scratch);
            o.status = exit_data;
            o.err += "mfprio queue --live: " + err + "\n";
            return o;
        }
        dir = save;
    }
    struct remove_scratch {
        std::string dir;
        ~remove_scratch() {
            std::error_code ec;
            if (!dir.empty()) std::filesystem::remove_all(dir, ec);
        }
    } cleanup{scratch};
    const auto fail = [&](input_error e) {
        // What a command printed into the scratch bundle is named by the command: the file
        // is gone when mfprio exits.
        if (!scratch.empty())
            for (const auto& [file, line] : ran)
                if (e.file == (std::filesystem::path(scratch) / file).string()) e.file = "`" + line + "` output";
        o.status = exit_data;
        o.err += "mfprio: " + e.to_string() + "\n";
        return o;
    };
    auto h = inputs::read_flux_history(dir);
    if (!h) return fail(h.error());
    const inputs::flux_bundle* b = &h->latest;
    const std::vector<config::flux_update>& updates = h->updates;
    std::vector<std::optional<std::int64_t>> ours(b->jobs.size());
    std::vector<std::optional<config::flux_plugin_priority>> replayed;
    if (b->plugin) {
        if (next_update) {
            // The next priority-update: the latest database sent again after everything the
            // bundle holds; the pairs keep their caches.
            std::vector<config::flux_update> after = updates;
            config::flux_update next = *std::max_element(updates.begin(), updates.end(),
                                                         [](const auto& x, const auto& y) { return x.time < y.time; });
            for (const auto& j : b->jobs) next.time = std::max(next.time, j.t_submit);
            for (const auto& j : b->jobs)
                for (const auto& e : j.events) next.time = std::max(next.time, e.time);
            if (b->captured) next.time = std::max(next.time, *b->captured);
            next.time += 1;
            next.predicted = true;
            after.push_back(std::move(next));
            replayed = config::replay_flux_plugin(after, b->jobs, opt, h->held, h->plugin_history());
        } else {
            replayed = config::replay_flux_plugin(updates, b->jobs, opt, h->held, h->plugin_history());
        }
        for (std::size_t k = 0; k < replayed.size(); ++k)
            if (replayed[k]) ours[k] = replayed[k]->value.value;
    } else {
        const auto r = config::flux_core_priorities(b->jobs);
        for (std::size_t k = 0; k < r.size(); ++k)
            if (r[k]) ours[k] = r[k]->value;
    }
    const auto order = config::flux_queue_order(b->jobs, ours);
    const auto user_of = [](const config::flux_job_row& j) { return j.username.empty() ? std::to_string(j.userid) : j.username; };
    // A pending job mfprio cannot compute (its user and bank in none of the databases the
    // plugin received: an association deleted, a user never added) is said, job by job, not
    // dropped in silence; it is left out of the tables and of --check's count.
    for (std::size_t k = 0; k < b->jobs.size(); ++k) {
        const auto& j = b->jobs[k];
        if (!j.pending() || ours[k]) continue;
        o.err += "mfprio queue: warning: job " + flux_f58(j.id) + " (user " + user_of(j) + ", bank " +
                 (j.bank.empty() ? std::string("default") : j.bank) +
                 "): its user has no association in that bank in the database flux-accounting's plugin received; "
                 "its priority " + (j.priority ? std::to_string(*j.priority) : std::string("(none printed)")) +
                 " is not computed\n";
    }
    if (explain) {
        const auto k = std::find_if(b->jobs.begin(), b->jobs.end(), [&](const auto& j) { return j.id == *explain; });
        if (k == b->jobs.end()) {
            o.status = exit_data;
            o.err += "mfprio queue: job " + flux_f58(*explain) + " is not among the jobs of " + dir + "\n";
            return o;
        }
        const std::size_t idx = static_cast<std::size_t>(k - b->jobs.begin());
        o.out = explain_flux_job(*k, idx < replayed.size() ? replayed[idx] : std::nullopt, ours[idx], b->plugin, opt);
        return o;
    }
    if (!changes.empty()) {
        if (!b->plugin || updates.empty())
            return usage("--set needs flux-accounting's plugin: " + dir + " holds flux-core's own priorities");
        // The latest database, changed.
        const auto latest = std::max_element(updates.begin(), updates.end(),
                                             [](const auto& x, const auto& y) { return x.time < y.time; });
        config::flux_update changed{.time = latest->time, .db = latest->db, .predicted = true};
        for (const auto& [k, v] : changes)
            if (auto why = config::apply_flux_change(changed.db, k, v); !why.empty()) return usage("--set " + why);
        std::vector<config::flux_update> after;
        std::span<const config::flux_cached_pair> held;
        if (new_submissions) {
            changed.time = 0; // before every submission: each job computed as it arrives
            after.push_back(std::move(changed));
        } else {
            // A priority-update after everything the bundle holds: the pairs keep their caches.
            double t = changed.time;
            for (const auto& j : b->jobs) t = std::max(t, j.t_submit);
            for (const auto& j : b->jobs)
                for (const auto& e : j.events) t = std::max(t, e.time);
            if (b->captured) t = std::max(t, *b->captured);
            changed.time = t + 1;
            after = updates;
            after.push_back(std::move(changed));
            held = h->held;
        }
        const auto r = config::replay_flux_plugin(after, b->jobs, opt, held,
                                                  new_submissions ? config::flux_plugin_history{} : h->plugin_history());
        std::vector<std::optional<std::int64_t>> theirs(b->jobs.size());
        for (std::size_t k = 0; k < r.size(); ++k)
            if (r[k]) theirs[k] = r[k]->value.value;
        const auto new_order = config::flux_queue_order(b->jobs, theirs);
        std::vector<std::size_t> old_pos(b->jobs.size(), 0), new_pos(b->jobs.size(), 0);
        for (std::size_t p = 0; p < order.size(); ++p) old_pos[order[p]] = p + 1;
        for (std::size_t p = 0; p < new_order.size(); ++p) new_pos[new_order[p]] = p + 1;
        std::size_t up = 0, down = 0;
        for (const std::size_t k : new_order) {
            if (old_pos[k] == 0) continue;
            up += new_pos[k] < old_pos[k] ? 1 : 0;
            down += new_pos[k] > old_pos[k] ? 1 : 0;
        }
        std::string what;
        for (const auto& [k, v] : changes) what += (what.empty() ? "" : ", ") + k + "=" + v;
        o.out += "whatif: " + what + (new_submissions ? " (for new submissions)\n" : " (after flux account-priority-update)\n");
        o.out += "pending jobs compared: " + std::to_string(new_order.size()) + "   moved up: " + std::to_string(up) +
                 "   moved down: " + std::to_string(down) + "   unchanged: " + std::to_string(new_order.size() - up - down) + "\n\n";
        char buf[256];
        std::snprintf(buf, sizeof buf, "%12s %-8s %3s %20s %20s %7s %7s %5s\n", "JOBID", "USER", "URG", "OLD_PRI", "NEW_PRI",
                      "OLD_POS", "NEW_POS", "MOVE");
        o.out += buf;
        for (const std::size_t k : new_order) {
            const auto& j = b->jobs[k];
            const std::string id = flux_f58(j.id);
            const std::string pad(id.size() - 1 < 12 ? 12 - (id.size() - 1) : 0, ' ');
            std::snprintf(buf, sizeof buf, "%s%s %-8.8s %3u %20s %20lld %7zu %7zu %+5ld\n", pad.c_str(), id.c_str(),
                          user_of(j).c_str(), static_cast<unsigned>(j.urgency),
                          ours[k] ? std::to_string(*ours[k]).c_str() : "-", static_cast<long long>(*theirs[k]), old_pos[k],
                          new_pos[k], static_cast<long>(old_pos[k]) - static_cast<long>(new_pos[k]));
            o.out += buf;
        }
        return o;
    }
    if (!check) {
        char buf[256];
        std::snprintf(buf, sizeof buf, "%12s %-8s %3s %20s %-10s %s\n", "JOBID", "USER", "URG", "PRI", "QUEUE", "BANK");
        o.out += buf;
        for (const std::size_t k : order) {
            const auto& j = b->jobs[k];
            const std::string id = flux_f58(j.id);
            // The id's display width: "ƒ" is two bytes.
            const std::string pad(id.size() - 1 < 12 ? 12 - (id.size() - 1) : 0, ' ');
            std::snprintf(buf, sizeof buf, "%s%s %-8.8s %3u %20lld %-10.10s %s\n", pad.c_str(), id.c_str(),
                          user_of(j).c_str(), static_cast<unsigned>(j.urgency), static_cast<long long>(*ours[k]),
                          j.queue.empty() ? "-" : j.queue.c_str(), j.bank.empty() ? "-" : j.bank.c_str());
            o.out += buf;
        }
        return o;
    }
    std::size_t compared = 0, differ = 0;
    for (std::size_t k = 0; k < b->jobs.size(); ++k) {
        const auto& j = b->jobs[k];
        if (!j.pending()) continue;
        ++compared;
        // (No priority on either side: a job the plugin holds without data, in PRIORITY.)
        if (ours[k] ? j.priority && *ours[k] == *j.priority : !j.priority) continue;
        ++differ;
        o.out += "job " + flux_f58(j.id) + " (" + user_of(j) + ", " + (j.bank.empty() ? "-" : j.bank) + ", " +
                 (j.queue.empty() ? "-" : j.queue) + ", urgency " + std::to_string(j.urgency) + "): flux " +
                 (j.priority ? std::to_string(*j.priority) : std::string("none")) + ", mfprio " +
                 (ours[k] ? std::to_string(*ours[k]) : std::string("none")) + "\n";
    }
    // The order Flux listed (flux_jobs.txt, else flux_jobs.json's pending jobs).
    std::string order_note;
    if (b->expected_order) {
        // (Jobs without a priority, which the plugin holds without data, have no place in it.)
        std::unordered_set<std::uint64_t> unprioritized;
        for (const auto& j : b->jobs)
            if (!j.priority) unprioritized.insert(j.id);
        std::vector<std::string> theirs;
        for (const std::uint64_t id : *b->expected_order)
            if (!unprioritized.contains(id)) theirs.push_back(flux_f58(id));
        std::vector<std::string> mine;
        for (const std::size_t k : order) mine.push_back(flux_f58(b->jobs[k].id));
        order_note = mine == theirs ? ", queue order identical" : ", queue order differs";
        if (mine != theirs) {
            ++differ;
            o.out += "order: flux";
            for (const auto& id : theirs) o.out += " " + id;
            o.out += "\norder: mfprio";
            for (const auto& id : mine) o.out += " " + id;
            o.out += "\n";
        }
    }
    o.out += "check: " + std::to_string(compared) + " pending jobs compared, " + std::to_string(differ) + " differ" + order_note + "\n";
    if (differ != 0) o.status = 1;
    return o;
}

} // namespace mfprio::cli
