#!/usr/bin/env bash
# Runs inside a one-broker Flux instance (tests/live/flux.sh starts it): flux-accounting's
# priority plugin loaded and its database filled, but no priority-update sent yet, as after an
# instance's start. The jobs submitted then are held by the plugin's placeholder association
# (no priority, state PRIORITY) until the first update, when each finds its user-bank pair:
#
#   held_wait    130 jobs of 13 users in banks three levels deep, held without data
#   held_first   the first priority-update: every job computed, in the order the plugin took
#                them (each sets its pair's queue factor to its own queue, then is moved to
#                its user's default bank)
#   held_after   40 more jobs, computed as they arrive, and an urgency change
#   held_live    with MFPRIO: `mfprio queue --live --save` of the same moment (what --live
#                keeps: no history, the jobs as `flux jobs -o` prints them)
#
#   flux_held.sh OUT WORK [MFPRIO]
#
# Writes WORK/live-check.txt (one line per --live --check).
set -euo pipefail

out=$1
work=$2
mfprio=${3:-}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
db=$work/accounting.db
cd "$work"
: >"$work/live-check.txt"

# shellcheck source=tests/live/flux_lib.sh
source "$here/flux_lib.sh"
accounting_start

three_level_accounts
flux account edit-factor --factor=bank --weight=1000

# N jobs spread over the pairs (users in several banks submit to each), three queues and the
# urgencies 1-30 (deterministic).
queues=(batch debug urgent)
workload() { # first count
    local i p
    for ((i = $1; i < $1 + $2; i++)); do
        p=${three_level_pairs[$(((i * 5 + i / 16) % ${#three_level_pairs[@]}))]}
        printf '%s %s %s %d\n' "${p%%:*}" "${p#*:}" "${queues[$(((i * 2 + i / 7) % 3))]}" $((1 + (i * 11) % 30))
    done
}

workload 0 130 | submit_all
capture_bundle held_wait "130 jobs submitted before the plugin received any data: held without a priority"
update
capture_bundle held_first "the first priority-update: every held job finds its pair"
workload 130 40 | submit_all
flux job urgency "$(flux jobs -A -n -o '{id.f58}' | head -n 1)" 3
capture_bundle held_after "40 more jobs computed as they arrive, an urgency change"
if [[ -n $mfprio ]]; then
    "$mfprio" queue --live --save "$out/held_live" --force >/dev/null
    printf 'live Flux: held_live: queue --from (saved by --live): %s\n' \
        "$({ "$mfprio" queue --from "$out/held_live" --check 2>&1 || true; } | tail -1)" >>"$work/live-check.txt"
fi
