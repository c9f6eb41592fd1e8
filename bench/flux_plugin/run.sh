#!/usr/bin/env bash
# mfprio_priority.so's cost per job inside flux-core's job manager, against flux-core's default
# priority plugin (.priority-default: priority = urgency), at JOBS pending jobs (default
# 10,000) of the 13 users of tests/live/flux_lib.sh's database.
#
#   run.sh PLUGIN TIMER [JOBS] [ROUNDS]
#
# PLUGIN is mfprio_priority.so, TIMER bench's reprioritize_timer.so (both built with meson
# -Dflux=enabled -Dbenchmarks=true). In a one-broker instance of eight 4-core nodes with
# scheduling stopped, each round takes three priority plugins in turn: the default, mfprio's
# with the flux-accounting preset on the database, and mfprio's with a five-term policy
# (tests/live/flux_plugin.sh's). For each it reprioritizes once untimed (the priorities then
# settle: no job's priority changes after), waits for the broker to commit the switch's
# priority events, then seven times through TIMER, which times
# flux_jobtap_reprioritize_all inside the job manager (the priority plugin called for every
# pending job, the job manager's own work around each call); the best of the seven, per job.
# Prints each round's figures and ratios to the default, and their medians. Needs flux-core and
# flux-accounting on PATH.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
live=$here/../../tests/live

if [[ ${1:-} != inner ]]; then
    plugin=$(realpath "${1:?usage: run.sh PLUGIN TIMER [JOBS] [ROUNDS]}")
    timer=$(realpath "${2:?usage: run.sh PLUGIN TIMER [JOBS] [ROUNDS]}")
    work=$(mktemp -d "${TMPDIR:-/tmp}/mfprio-flux-bench.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    # shellcheck source=tests/live/flux_lib.sh
    source "$live/flux_lib.sh"
    eight_nodes "$work"
    exec timeout 3600 flux start --test-size=1 -o,--config-path="$work/conf.d" \
        bash "${BASH_SOURCE[0]}" inner "$work" "$plugin" "$timer" "${3:-10000}" "${4:-5}"
fi

work=$2
plugin=$3
timer=$4
jobs=$5
rounds=$6
db=$work/accounting.db
cd "$work"
# shellcheck source=tests/live/flux_lib.sh
source "$live/flux_lib.sh"
accounting_start
three_level_accounts
update
five_term_policy "$work/site.policy"
echo "submitting $jobs jobs" >&2
sized_workload 0 "$jobs" | submit_sized
flux jobtap remove mf_priority.so

flux python -c '
import statistics, sys, time, flux
plugin, timer, db, policy, jobs, rounds = sys.argv[1:7]
jobs, rounds = int(jobs), int(rounds)
h = flux.Flux()
h.rpc("job-manager.jobtap", {"load": timer}).get()
configs = [
    ("flux-core default (.priority-default)", {"remove": "mfprio_priority.so", "load": ".priority-default"}),
    ("mfprio_priority.so, policy=flux-accounting", {"remove": "*priority*", "load": plugin,
                                                    "conf": {"policy": "flux-accounting", "db": db, "period": 0}}),
    ("mfprio_priority.so, five-term policy", {"remove": "*priority*", "load": plugin,
                                              "conf": {"policy": policy, "db": db, "period": 0}}),
]
def reprioritize():
    return h.rpc("job-manager.reprioritize_timer.reprioritize", {}).get()["seconds"]
per_job = {name: [] for name, _ in configs}
for r in range(rounds):
    for name, req in configs:
        try:
            h.rpc("job-manager.jobtap", req).get()
        except OSError:
            # (the first round: nothing of that name to remove)
            req = {k: v for k, v in req.items() if k != "remove"}
            h.rpc("job-manager.jobtap", req).get()
        reprioritize()
        # The switch posted a priority event per job: let the broker commit them and job-list
        # take them in before timing (about a second per 2,000 jobs here).
        time.sleep(1 + jobs / 2000)
        per_job[name].append(min(reprioritize() for _ in range(7)) / jobs * 1e6)
    base = per_job[configs[0][0]][-1]
    print("round %d: " % (r + 1) + ", ".join("%s %.2f us (%.2fx)" % (n.split(",")[-1].strip(), per_job[n][-1], per_job[n][-1] / base)
                                       for n, _ in configs), flush=True)
print()
print("%d pending jobs, %d rounds; per job, inside the job manager (median of rounds, lowest-highest):" % (jobs, rounds))
base = per_job[configs[0][0]]
for name, _ in configs:
    v = per_job[name]
    ratios = [a / b for a, b in zip(v, base)]
    print("  %-44s %6.2f us (%.2f-%.2f)   %.2fx the default (%.2f-%.2f)" % (
        name, statistics.median(v), min(v), max(v), statistics.median(ratios), min(ratios), max(ratios)))
' "$plugin" "$timer" "$db" "$work/site.policy" "$jobs" "$rounds"
