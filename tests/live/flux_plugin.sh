#!/usr/bin/env bash
# mfprio's own jobtap priority plugin (examples/flux_priority: mfprio_priority.so) in a real
# one-broker Flux instance of eight 4-core nodes (scheduling stopped: every job stays pending),
# flux-accounting's database of flux_lib.sh's three_level_accounts (banks three levels deep,
# 13 users in 16 associations, queues batch, debug and urgent):
#
#   plugin_accounting  330 jobs of every association, sizes from one core to four nodes,
#                      urgencies 0 to 31, under flux-accounting's mf_priority.so and its
#                      priority-update; then mf_priority.so removed and mfprio_priority.so
#                      loaded with policy=flux-accounting on the same database: every pending
#                      job's priority identical to the one mf_priority.so gave it
#   plugin_site        a policy of its own (age, job size, queue, fair-share and urgency terms),
#                      refreshed every 8 seconds, 60 more jobs submitted over 15 seconds, two
#                      jobs moved to another queue (flux update) and two urgencies changed
#   plugin_edited      the policy file edited (new weights), in force at the next query
#   plugin_malformed   the file made malformed: the broker keeps running, its log names the file,
#                      line and column, and the policy before stays in force; a fresh load of a
#                      malformed policy fails and changes nothing
#   plugin_core        flux-core's default plugin, then the flux-core preset: every priority
#                      identical
#
# For each, `mfprio queue --live --check` inside the instance (the twin: what the plugin
# computes, job by job, from what it reports) and the bundle it saved replayed with
# `mfprio queue --from DIR --check`: 0 differ, queue order identical.
#
#   flux_plugin.sh OUT MFPRIO [PLUGIN]  bundles in OUT/plugin_*; exit 1 on a difference
#                                       (PLUGIN: mfprio_priority.so, else $MFPRIO_FLUX_PLUGIN)
#
# Needs flux-core and flux-accounting on PATH (tests/README.md, "A real Flux") and the plugin
# built (meson -Dflux=enabled). Skipped (exit 77) without them. About two minutes.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

skip() { printf 'live Flux plugin: skipped: %s\n' "$*"; exit 77; }

if [[ ${1:-} != inner ]]; then
    out=${1:?usage: flux_plugin.sh OUT MFPRIO [PLUGIN]}
    mfprio=${2:?usage: flux_plugin.sh OUT MFPRIO [PLUGIN]}
    plugin=${3:-${MFPRIO_FLUX_PLUGIN:-}}
    command -v flux >/dev/null || skip "flux is not installed"
    flux account --help >/dev/null 2>&1 || skip "flux-accounting is not installed"
    [[ -n $plugin && -f $plugin ]] || skip "mfprio_priority.so is not built (meson -Dflux=enabled; give its path)"
    mfprio=$(cd "$(dirname "$mfprio")" && pwd)/$(basename "$mfprio")
    plugin=$(cd "$(dirname "$plugin")" && pwd)/$(basename "$plugin")
    mkdir -p "$out"
    out=$(cd "$out" && pwd)
    work=$(mktemp -d "${TMPDIR:-/tmp}/mfprio-flux-plugin.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    mkdir "$work/conf.d"
    # Eight nodes of four cores (ranks 1-7 never come up: jobs only wait), three queues.
    cat >"$work/R.json" <<'EOF'
{"version": 1, "execution": {"R_lite": [{"rank": "0-7", "children": {"core": "0-3"}}], "starttime": 0, "expiration": 0, "nodelist": ["node[0-7]"]}}
EOF
    cat >"$work/conf.d/instance.toml" <<EOF
[resource]
noverify = true
path = "$work/R.json"
[queues.batch]
[queues.debug]
[queues.urgent]
EOF
    status=0
    timeout 900 flux start --test-size=1 -o,--config-path="$work/conf.d" \
        bash "${BASH_SOURCE[0]}" inner "$out" "$work" "$mfprio" "$plugin" || status=$?
    cat "$work/results.txt" 2>/dev/null || true
    if ((status != 0)) || grep -qv ': ok: ' "$work/results.txt"; then
        printf 'live Flux plugin: FAILED (instance exit %d)\n' "$status"
        exit 1
    fi
    printf 'live Flux plugin: mfprio_priority.so and its twin identical in every scenario\n'
    exit 0
fi

# Inside the instance.
out=$2
work=$3
mfprio=$4
plugin=$5
db=$work/accounting.db
cd "$work"
: >"$work/results.txt"
result() { printf 'live Flux plugin: %s\n' "$*" >>"$work/results.txt"; }

# shellcheck source=tests/live/flux_lib.sh
source "$here/flux_lib.sh"
accounting_start
three_level_accounts

# Submits each line of standard input, `uid bank queue urgency nodes tasks`, for user uid
# under flux-core's unsigned "none" envelope (only the instance owner may), one handle per
# user, in one Python process. nodes 0: the jobspec names no nodes.
submit_sized() {
    flux python -c '
import base64, os, sys, flux, flux.job
from flux.job import JobspecV1
specs, handles, futures = {}, {}, []
for line in sys.stdin:
    uid, bank, queue, urgency, nodes, tasks = line.split()
    key = (bank, queue, nodes, tasks)
    if key not in specs:
        n = int(nodes)
        js = JobspecV1.from_command(["true"], num_tasks=int(tasks), num_nodes=n if n else None)
        js.setattr("system.queue", queue)
        js.setattr("system.bank", bank)
        specs[key] = base64.b64encode(js.dumps().encode()).decode()
    if uid not in handles:
        os.environ["FLUX_HANDLE_USERID"] = uid
        handles[uid] = flux.Flux()
    header = base64.b64encode(("version\0i1\0userid\0i%s\0mechanism\0snone\0" % uid).encode()).decode()
    futures.append(flux.job.submit_async(handles[uid], header + "." + specs[key] + ".none", urgency=int(urgency), pre_signed=True))
for f in futures:
    flux.job.submit_get_id(f)
'
}

# N jobs from job number FIRST: every association, each in one queue of its own (so that
# mf_priority.so's per-association queue factor is each job's queue), urgencies 0-31, sizes
# from one core to four whole nodes.
queues=(batch debug urgent)
sizes=("0 1" "0 3" "1 2" "2 8" "4 4" "0 6")
workload() { # first count
    local i k
    for ((i = $1; i < $1 + $2; i++)); do
        k=$(((i * 5 + i / 16) % ${#three_level_pairs[@]}))
        printf '%s %s %s %d %s\n' "${three_level_pairs[$k]%%:*}" "${three_level_pairs[$k]#*:}" "${queues[$((k % 3))]}" \
            $(((i * 7) % 32)) "${sizes[$((i % ${#sizes[@]}))]}"
    done
}

# Each pending job's id and priority, sorted by id.
priorities() { flux jobs -A -n -o '{id.dec} {priority}' | sort; }

# `mfprio queue --live --check --save OUT/NAME` inside the instance, then the bundle replayed.
twin() { # name [mfprio options]
    local name=$1
    shift
    local live from
    live=$({ "$mfprio" queue --live --check --save "$out/$name" --force "$@" 2>&1 || true; } | tail -n 40)
    from=$({ "$mfprio" queue --from "$out/$name" --check "$@" 2>&1 || true; } | tail -n 40)
    for r in "$live" "$from"; do
        if [[ $(tail -n 1 <<<"$r") =~ ^check:\ ([0-9]+)\ pending\ jobs\ compared,\ 0\ differ,\ queue\ order\ identical$ ]] &&
            ((BASH_REMATCH[1] >= 300)); then
            continue
        fi
        result "$name: DIFFERS: $r"
        return
    done
    result "$name: ok: --live --check and --from --check: $(tail -n 1 <<<"$live")"
}

# 1. flux-accounting's plugin, then the preset on the same database (its bank weight changed
# from the default: the preset takes the database's weights) and jobs.
flux account edit-factor --factor=bank --weight=1000
update # (as the instance's rc1 sends it at start: the plugin holds the data when jobs arrive)
workload 0 330 | submit_sized
update
priorities >"$work/mf_priority.txt"
flux jobtap remove mf_priority.so
flux jobtap load "$plugin" policy=flux-accounting db="$db" period=0
priorities >"$work/preset.txt"
n=$(wc -l <"$work/mf_priority.txt")
if ((n >= 330)) && cmp -s "$work/mf_priority.txt" "$work/preset.txt"; then
    result "plugin_accounting: ok: $n of $n pending jobs' priorities identical to mf_priority.so's"
else
    result "plugin_accounting: DIFFERS from mf_priority.so: $(diff "$work/mf_priority.txt" "$work/preset.txt" | grep -c '^>') of $n jobs"
    diff "$work/mf_priority.txt" "$work/preset.txt" | head -n 20 >>"$work/results.txt" || true
fi
twin plugin_accounting --policy flux-accounting

# 2. A policy of the site's own, refreshed every 8 seconds, jobs arriving between refreshes.
cat >"$work/site.policy" <<'EOF'
# age over two minutes, size against the instance, the queue's priority, fair-share, urgency
age = 40000
age.max_age = 2
jobsize = 20000
queue = 1000
fairshare = 100000
urgency = 500
EOF
flux jobtap load -r mfprio_priority.so "$plugin" policy="$work/site.policy" db="$db" period=8
for ((b = 0; b < 6; b++)); do
    workload $((330 + b * 10)) 10 | submit_sized
    sleep 2.5
done
# An administrator's edits between refreshes: queues moved (the plugin reads the job again)
# and urgencies changed (computed at once with the last refresh's numbers).
mapfile -t some < <(flux jobs -A -n -o '{id.f58}' | sed -n '5p;50p;120p;200p')
flux update "${some[0]}" queue=urgent
flux update "${some[1]}" queue=batch
flux job urgency "${some[2]}" 31
flux job urgency "${some[3]}" 2
twin plugin_site

# 3. The file edited: in force at the next query.
sed -i 's/^jobsize = 20000/jobsize = 60000/; s/^urgency = 500/urgency = 2000/' "$work/site.policy"
if flux jobtap query mfprio_priority.so | jq -e '.reloaded == true and .policy_error == ""' >/dev/null; then
    twin plugin_edited
else
    result "plugin_edited: DIFFERS: the query did not load the edited policy"
fi

# 4. Malformed: refused with its place, the broker running, the policy before in force.
cp "$work/site.policy" "$work/good.policy"
printf 'jobsize.favor_small = maybe\n' >>"$work/site.policy"
line=$(wc -l <"$work/site.policy")
expected="$work/site.policy:$line:23: jobsize.favor_small:"
error=$(flux jobtap query mfprio_priority.so | jq -r .policy_error)
if [[ $error == "$expected"* ]] && flux dmesg | grep -qF "mfprio_priority: $expected" && flux uptime >/dev/null; then
    twin plugin_malformed --policy "$work/good.policy"
else
    result "plugin_malformed: DIFFERS: the error is '$error', expected '$expected...' in the query and flux dmesg"
fi
printf 'age = 1\nage = 2\n' >"$work/bad.policy"
if flux jobtap load "$plugin" policy="$work/bad.policy" 2>"$work/load.txt"; then
    result "plugin_malformed: DIFFERS: a malformed policy loaded"
elif ! flux dmesg | grep -qF "mfprio_priority: $work/bad.policy:2:1: age:" ||
    [[ $(flux jobtap list | grep -c '^mfprio_priority.so$') != 1 ]]; then
    result "plugin_malformed: DIFFERS: a refused load did not log its place or changed the plugins: $(flux jobtap list | tr '\n' ' ')"
else
    result "plugin_malformed: ok: a fresh load of a malformed policy fails, logged at its line, the loaded plugin untouched"
fi

# 5. The flux-core preset against flux-core's own default plugin, on the same jobs.
flux jobtap remove mfprio_priority.so
flux jobtap load .priority-default
priorities >"$work/default.txt"
flux jobtap load -r .priority-default "$plugin" policy=flux-core period=0
priorities >"$work/core.txt"
n=$(wc -l <"$work/default.txt")
if ((n >= 390)) && cmp -s "$work/default.txt" "$work/core.txt"; then
    result "plugin_core: ok: $n of $n pending jobs' priorities identical to flux-core's default plugin's"
else
    result "plugin_core: DIFFERS from flux-core's default: $(diff "$work/default.txt" "$work/core.txt" | grep -c '^>') of $n jobs"
fi
