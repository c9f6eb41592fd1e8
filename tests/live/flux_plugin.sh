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
#   plugin_config      loads refused for a missing policy, a bad period, an unknown key and a
#                      missing file, each logged; a database that cannot be opened logged and
#                      shown in the query, the plugin running
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
    # shellcheck source=tests/live/flux_lib.sh
    source "$here/flux_lib.sh"
    eight_nodes "$work"
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

# Each pending job's id and priority, sorted by id.
priorities() { flux jobs -A -n -o '{id.dec} {priority}' | sort; }

# Whether every pending job's priority in file AFTER is the one in BEFORE (priorities' output),
# at least MIN jobs: a result line for scenario NAME either way.
same_priorities() { # name min before after what
    local n
    n=$(wc -l <"$3")
    if ((n >= $2)) && cmp -s "$3" "$4"; then
        result "$1: ok: $n of $n pending jobs' priorities identical to $5"
    else
        result "$1: DIFFERS from $5: $(diff "$3" "$4" | grep -c '^>') of $n jobs"
        diff "$3" "$4" | head -n 20 >>"$work/results.txt" || true
    fi
}

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
sized_workload 0 330 | submit_sized
update
priorities >"$work/mf_priority.txt"
flux jobtap remove mf_priority.so
flux jobtap load "$plugin" policy=flux-accounting db="$db" period=0
priorities >"$work/preset.txt"
same_priorities plugin_accounting 330 "$work/mf_priority.txt" "$work/preset.txt" "mf_priority.so's"
twin plugin_accounting --policy flux-accounting

# 2. A policy of the site's own, refreshed every 8 seconds, jobs arriving between refreshes.
five_term_policy "$work/site.policy"
flux jobtap load -r mfprio_priority.so "$plugin" policy="$work/site.policy" db="$db" period=8
for ((b = 0; b < 6; b++)); do
    sized_workload $((330 + b * 10)) 10 | submit_sized
    sleep 2.5
done
# An administrator's edits between refreshes: queues moved (the plugin reads the job again)
# and urgencies changed (computed at once with the last refresh's numbers).
flux jobs -A -n -o '{id.f58} {queue} {urgency}' >"$work/pending.txt"
flux update "$(awk '$2 == "batch" { print $1; exit }' "$work/pending.txt")" queue=urgent
flux update "$(awk '$2 == "urgent" { print $1; exit }' "$work/pending.txt")" queue=batch
flux job urgency "$(awk '$3 != 31 { print $1; exit }' "$work/pending.txt")" 31
flux job urgency "$(awk '$3 != 2 && $3 != 31 { n++ } n == 2 { print $1; exit }' "$work/pending.txt")" 2
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

# 5. Configuration errors: each load refused, what is wrong in the broker's log, the loaded
# plugin untouched; then a database that cannot be opened: the plugin loads and runs, the error
# in its log and its query.
config_ok=1
refused() { # WHAT LOGGED ARG...: a load that must fail, logging LOGGED
    local what=$1 logged=$2
    shift 2
    flux dmesg -C # each load's messages alone
    if flux jobtap load "$plugin" "$@" 2>/dev/null; then
        result "plugin_config: DIFFERS: loaded with $what"
        config_ok=0
    elif ! flux dmesg | grep -qF "mfprio_priority: $logged" || [[ $(flux jobtap list | grep -c '^mfprio_priority.so$') != 1 ]]; then
        result "plugin_config: DIFFERS: $what: '$logged' not in the log, or the loaded plugins changed"
        config_ok=0
    fi
}
refused "no policy" "configuration:"
refused "period=often" "period: expected seconds" policy="$work/good.policy" period=often
refused "an unknown key" "configuration:" policy="$work/good.policy" colour=red
refused "a policy file that does not exist" "$work/none.policy" policy="$work/none.policy"
flux dmesg -C
flux jobtap load -r mfprio_priority.so "$plugin" policy=flux-accounting period=0 db="$work/none.db"
db_error=$(flux jobtap query mfprio_priority.so | jq -r .database_error)
if [[ $db_error != "$work/none.db: "* ]] || ! flux dmesg | grep -qF "mfprio_priority: $work/none.db: " || ! flux uptime >/dev/null; then
    result "plugin_config: DIFFERS: a database that cannot be opened: the query says '$db_error'"
    config_ok=0
fi
((config_ok == 0)) || result "plugin_config: ok: no policy, a bad period, an unknown key and a missing file refused at load and logged; a missing database logged and in the query"

# 6. The flux-core preset against flux-core's own default plugin, on the same jobs.
flux jobtap remove mfprio_priority.so
flux jobtap load .priority-default
priorities >"$work/default.txt"
flux jobtap load -r .priority-default "$plugin" policy=flux-core period=0
priorities >"$work/core.txt"
same_priorities plugin_core 390 "$work/default.txt" "$work/core.txt" "flux-core's default plugin's"
