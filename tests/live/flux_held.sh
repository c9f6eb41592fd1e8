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

flux account add-bank root 1
flux account add-bank --parent-bank=root eng 3
flux account add-bank --parent-bank=eng --priority=2 ml 2
flux account add-bank --parent-bank=eng --priority=1 web 1
flux account add-bank --parent-bank=root --priority=3 sci 2
flux account add-bank --parent-bank=sci --priority=4 bio 1
flux account add-bank --parent-bank=sci chem 1
flux account add-queue batch --priority=1
flux account add-queue debug --priority=5
flux account add-queue urgent --priority=20
add_users batch,debug,urgent 1000 <<'EOF'
alice 5001 ml 3
alice 5001 web 1
bob 5002 ml 1
carol 5003 web 2
dave 5004 bio 1
erin 5005 bio 4
frank 5006 web 1
grace 5007 chem 2
heidi 5008 ml 1
ivan 5009 chem 1
judy 5010 chem 1
judy 5010 ml 2
judy 5010 bio 1
mallory 5011 web 3
niaj 5012 bio 2
olivia 5013 ml 1
EOF
flux account edit-factor --factor=bank --weight=1000
usage <<'EOF'
alice ml 120
alice web 30
bob ml 400
carol web 55
dave bio 0
erin bio 260
frank web 9
grace chem 77
heidi ml 5
ivan chem 310
judy chem 40
judy ml 12
judy bio 600
mallory web 150
niaj bio 33
olivia ml 90
EOF

# N jobs spread over the pairs (users in several banks submit to each), three queues and the
# urgencies 1-30 (deterministic).
pairs=(5001:ml 5001:web 5002:ml 5003:web 5004:bio 5005:bio 5006:web 5007:chem 5008:ml 5009:chem
       5010:chem 5010:ml 5010:bio 5011:web 5012:bio 5013:ml)
queues=(batch debug urgent)
workload() { # first count
    local i p
    for ((i = $1; i < $1 + $2; i++)); do
        p=${pairs[$(((i * 5 + i / 16) % ${#pairs[@]}))]}
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
