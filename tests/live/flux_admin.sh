#!/usr/bin/env bash
# Runs inside a one-broker Flux instance (tests/live/flux.sh starts it): flux-accounting's
# priority plugin on a cluster of 13 users in banks three levels deep (root > eng > ml, web;
# root > sci > bio, chem), users in two and three banks, queues flux-accounting knows and one it
# does not, 330 pending jobs with urgencies 0-31; then the administrator's everyday
# operations, each captured as a bundle (what Flux printed, the pending jobs' eventlogs and
# flux dmesg) and, with MFPRIO, checked at once with `mfprio queue --live --check`:
#
#   admin_base      330 jobs in two waves with a priority-update between them
#   admin_urgency   a pair submits to another queue, then `flux job urgency` on seven jobs
#                   (to 0, to 31, back from 0, and between)
#   admin_update    `flux update JOBID queue=...` on six jobs of four pairs
#   admin_after     a priority-update: every job of those pairs takes the new queue factor
#   admin_delete    `flux account delete-user --force` of frank in web, update-fshare, a
#                   priority-update; frank submits twice more in web
#   admin_disabled  `flux account delete-user` (no --force: inactive) of olivia in ml,
#                   update-fshare (which leaves her out), a priority-update
#   admin_set       `--set shares.judy@chem=7` predicted from admin_disabled, then done
#                   (edit-user, update-fshare, priority-update): the prediction is compared
#                   with what Flux computed
#   admin_reloaded  `flux jobtap remove/load mf_priority.so`: the jobs keep their priorities
#   admin_reload    a priority-update: each job finds its pair again
#   admin_reload2   four submissions and another priority-update
#
#   flux_admin.sh OUT WORK [MFPRIO]
#
# Writes WORK/live-check.txt (one line per --live --check) and WORK/set-check.txt.
set -euo pipefail

out=$1
work=$2
mfprio=${3:-}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
db=$work/accounting.db
cd "$work"
: >"$work/live-check.txt"
: >"$work/set-check.txt"

# shellcheck source=tests/live/flux_lib.sh
source "$here/flux_lib.sh"
accounting_start

three_level_accounts
flux account edit-factor --factor=bank --weight=1000
flux account edit-factor --factor=urgency --weight=500
update

# N jobs spread over the pairs, the four queues and every urgency (deterministic).
queues=(batch debug urgent scratch)
workload() { # first count
    local i p
    for ((i = $1; i < $1 + $2; i++)); do
        p=${three_level_pairs[$(((i * 7 + i / 16) % ${#three_level_pairs[@]}))]}
        printf '%s %s %s %d\n' "${p%%:*}" "${p#*:}" "${queues[$(((i * 3 + i / 5) % 4))]}" $(((i * 11) % 32))
    done
}

workload 0 200 | submit_all
update
workload 200 130 | submit_all
capture_bundle admin_base "330 jobs in two waves, a priority-update between them"

# alice/ml submits to urgent (the pair's cached queue factor is urgent's), then urgency changes.
submit 5001 ml urgent 16 >/dev/null
mapfile -t alice_ml < <(flux jobs -A -n --user=5001 -o '{id.f58} {bank} {urgency}' | awk '$2 == "ml" && $3 > 0 && $3 < 31 {print $1}')
mapfile -t others < <(flux jobs -A -n -o '{id.f58} {userid}' | awk '$2 != 5001 {print $1}')
flux job urgency "${alice_ml[0]}" 20
flux job urgency "${alice_ml[1]}" 0
flux job urgency "${alice_ml[2]}" 31
flux job urgency "${others[0]}" 3
flux job urgency "${others[1]}" 0
flux job urgency "${others[1]}" 25
flux job urgency "${others[2]}" 16
capture_bundle admin_urgency "alice/ml submits to urgent; flux job urgency on seven jobs"

# Jobs neither held nor expedited (urgency 1-30), whose priority the update changes at once.
mapfile -t bob_ml < <(flux jobs -A -n --user=5002 -o '{id.f58} {queue} {urgency}' | awk '$2 == "batch" && $3 > 0 && $3 < 31 {print $1}')
mapfile -t erin_bio < <(flux jobs -A -n --user=5005 -o '{id.f58} {queue} {urgency}' | awk '$2 != "urgent" && $3 > 0 && $3 < 31 {print $1}')
mapfile -t grace_chem < <(flux jobs -A -n --user=5007 -o '{id.f58} {urgency}' | awk '$2 > 0 && $2 < 31 {print $1}')
mapfile -t judy_chem < <(flux jobs -A -n --user=5010 -o '{id.f58} {bank} {urgency}' | awk '$2 == "chem" && $3 > 0 && $3 < 31 {print $1}')
flux update "${bob_ml[0]}" queue=debug >/dev/null
flux update "${bob_ml[1]}" queue=urgent >/dev/null
flux update "${erin_bio[0]}" queue=urgent >/dev/null
flux update "${grace_chem[0]}" queue=scratch >/dev/null
flux update "${grace_chem[1]}" queue=debug >/dev/null
flux update "${judy_chem[0]}" queue=batch >/dev/null
capture_bundle admin_update "flux update queue= on six jobs of four pairs"
update
capture_bundle admin_after "a priority-update after the queue updates"

flux account delete-user --force frank web
flux account-update-fshare -p "$db"
update
submit_all <<'EOF'
5006 web debug 16
5006 web batch 9
EOF
capture_bundle admin_delete "frank deleted from web (--force), update-fshare, priority-update; frank submits twice in web"

flux account delete-user olivia ml
flux account-update-fshare -p "$db"
update
capture_bundle admin_disabled "olivia disabled in ml (delete-user without --force), update-fshare, priority-update"

if [[ -n $mfprio ]]; then
    "$mfprio" queue --from "$out/admin_disabled" --set shares.judy@chem=7 >"$work/set-predicted.txt" || true
fi
flux account edit-user judy --bank=chem --shares=7
flux account-update-fshare -p "$db"
update
capture_bundle admin_set "judy's shares in chem 7, update-fshare, priority-update"
if [[ -n $mfprio ]]; then
    # Each job's NEW_PRI (the fifth column of --set's table) against the priority Flux holds.
    flux jobs -A -n -o '{id.f58} {priority}' | sort >"$work/set-flux.txt"
    awk 'NR > 4 && NF >= 5 {print $1, $5}' "$work/set-predicted.txt" | sort >"$work/set-mfprio.txt"
    n=$(wc -l <"$work/set-flux.txt")
    if [[ $n -gt 300 ]] && cmp -s "$work/set-flux.txt" "$work/set-mfprio.txt"; then
        printf 'live Flux: --set shares.judy@chem=7 (olivia inactive): identical: %d jobs as mfprio predicted\n' "$n" >>"$work/set-check.txt"
    else
        printf 'live Flux: --set shares.judy@chem=7: DIFFERS\n' >>"$work/set-check.txt"
        diff "$work/set-flux.txt" "$work/set-mfprio.txt" | head -20 >>"$work/set-check.txt" || true
    fi
    # And the same change again changes nothing.
    printf 'live Flux: --set again: %s\n' "$({ "$mfprio" queue --from "$out/admin_set" --set shares.judy@chem=7 || true; } | sed -n 2p)" >>"$work/set-check.txt"
fi

flux jobtap remove mf_priority.so
flux jobtap load mf_priority.so
capture_bundle admin_reloaded "mf_priority.so removed and loaded again: the jobs keep their priorities until the next update"
update
capture_bundle admin_reload "a priority-update after the reload: each job finds its pair again"
submit_all <<'EOF'
5001 ml debug 16
5003 web urgent 12
5010 bio batch 20
5012 bio scratch 16
EOF
update
capture_bundle admin_reload2 "four submissions and another priority-update"
