#!/usr/bin/env bash
# Starts a one-broker Flux instance with flux-accounting's priority plugin, fills it as an
# administrator would (banks root > eng (ml, web) and sci, six users, one of them in two banks,
# queues with priorities 1, 5 and 20 and one queue flux-accounting does not know, usage and
# fair-share, 20 pending jobs with urgencies from 0 to 31), then edits and recomputes, and
# captures a bundle of what Flux printed after each step:
#
#   default    default weights, fresh submissions
#   weights    every weight changed, `flux account-priority-update`
#   edits      queue and bank priorities, shares and usage changed, recomputed
#   overflow   a queue priority whose product with the queue weight passes 2^31 - 1, and new
#              submissions in it
#   above      bank weight x bank priority past 2^32 - 1, and new submissions in that bank
#   core       the plugin unloaded: flux-core's own priority (the urgency)
#
# then, in two more instances, the administrator's everyday operations (flux_admin.sh: admin_*)
# and jobs submitted before the plugin received any data (flux_held.sh: held_*).
#
#   flux.sh OUT [MFPRIO]   bundles in OUT/<scenario>; with MFPRIO (the mfprio tool), each
#                          bundle is replayed (`mfprio queue --from DIR --check`), and after the
#                          weights' update `mfprio queue --live --save DIR --check` runs against
#                          the instance itself: exit 1 when a job's priority or the queue order
#                          differs from what Flux printed
#
# Needs flux-core (0.81 or later) and flux-accounting on PATH. Debian 12 packages neither;
# build them from their sources under a prefix of your own (tests/README.md, "A real Flux"), then
# PATH=PREFIX/bin:$PATH. Skipped (exit 77) when `flux` or `flux account` is missing. Jobs are
# submitted for other users with flux-core's unsigned "none" envelope, which only the
# instance owner may do; no job runs (scheduling is stopped). About half a minute.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

skip() { printf 'live Flux: skipped: %s\n' "$*"; exit 77; }

if [[ ${1:-} != inner ]]; then
    out=${1:?usage: flux.sh OUT [MFPRIO]}
    mfprio=${2:-}
    [[ -z $mfprio ]] || mfprio=$(cd "$(dirname "$mfprio")" && pwd)/$(basename "$mfprio")
    command -v flux >/dev/null || skip "flux is not installed"
    flux account --help >/dev/null 2>&1 || skip "flux-accounting is not installed"
    mkdir -p "$out"
    out=$(cd "$out" && pwd)
    work=$(mktemp -d "${TMPDIR:-/tmp}/mfprio-flux.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    mkdir "$work/conf.d"
    # The queues Flux knows: flux-accounting knows all but scratch.
    cat >"$work/conf.d/queues.toml" <<'EOF'
[queues.batch]
[queues.debug]
[queues.urgent]
[queues.scratch]
EOF
    timeout 300 flux start --test-size=1 -o,--config-path="$work/conf.d" \
        bash "${BASH_SOURCE[0]}" inner "$out" "$work" "$mfprio"
    mkdir "$work/admin" "$work/held"
    timeout 900 flux start --test-size=1 -o,--config-path="$work/conf.d" \
        bash "$here/flux_admin.sh" "$out" "$work/admin" "$mfprio"
    timeout 300 flux start --test-size=1 -o,--config-path="$work/conf.d" \
        bash "$here/flux_held.sh" "$out" "$work/held" "$mfprio"
    [[ -n $mfprio ]] || exit 0
    failed=()
    # `mfprio queue --live --check` run inside the instances: every line says 0 differ.
    checks=("$work/live-check.txt" "$work/admin/live-check.txt" "$work/held/live-check.txt")
    cat "${checks[@]}"
    while IFS= read -r line; do
        failed+=("$line")
        # What that --live --check printed in full (capture_bundle keeps it as live-NAME.txt).
        name=${line#live Flux: }
        name=${name%%:*}
        for f in "$work"/live-"$name".txt "$work"/*/live-"$name".txt; do
            [[ ! -f $f ]] || head -n 40 "$f"
        done
    done < <(grep -hv ' 0 differ, queue order identical$' "${checks[@]}")
    # The files `queue --live --save` wrote against the commands' own output (same_as_commands):
    # one line per scenario of flux_admin.sh and flux_held.sh, each "identical".
    files=("$work/admin/files-check.txt" "$work/held/files-check.txt")
    cat "${files[@]}"
    compared=$(cat "${files[@]}" | wc -l)
    ((compared >= 10)) || failed+=("queue --live --save compared with the commands in $compared scenarios")
    while IFS= read -r line; do failed+=("$line"); done < <(grep -hv ', files identical to what the commands print$' "${files[@]}")
    # --set's predictions against what Flux then computed (flux_admin.sh).
    cat "$work/admin/set-check.txt"
    grep -q '^live Flux: --set .*: identical' "$work/admin/set-check.txt" || failed+=("--set's prediction differs")
    grep -q '^live Flux: --set again: .* moved up: 0 *moved down: 0 ' "$work/admin/set-check.txt" ||
        failed+=("--set again moved jobs")
    for d in "$out"/*/; do
        name=$(basename "$d")
        if "$mfprio" queue --from "$d" --check >"$work/check.txt" 2>&1; then
            printf 'live Flux: %s: %s\n' "$name" "$(tail -1 "$work/check.txt")"
        else
            printf 'live Flux: %s: DIFFERS\n' "$name"
            head -n 40 "$work/check.txt"
            failed+=("$name: --from --check: $(tail -1 "$work/check.txt")")
        fi
    done
    # What failed, last (where a CI log's tail shows it).
    for f in "${failed[@]+"${failed[@]}"}"; do printf 'live Flux: FAILED: %s\n' "$f"; done
    ((${#failed[@]} == 0)) || exit 1
    exit 0
fi

# Inside the instance.
out=$2
work=$3
mfprio=${4:-}
db=$work/accounting.db
cd "$work"

# shellcheck source=tests/live/flux_lib.sh
source "$here/flux_lib.sh"
accounting_start

flux account add-bank root 1
flux account add-bank --parent-bank=root eng 3
flux account add-bank --parent-bank=eng --priority=2 ml 2
flux account add-bank --parent-bank=eng web 1
flux account add-bank --parent-bank=root --priority=1 sci 1
flux account add-queue batch --priority=1
flux account add-queue debug --priority=5
flux account add-queue urgent --priority=20
add_users batch,debug,urgent 100 <<'EOF'
alice 5001 ml 3
alice 5001 web 1
bob 5002 ml 1
carol 5003 web 2
dave 5004 sci 1
erin 5005 sci 4
frank 5006 web 1
EOF

usage <<'EOF'
alice ml 120
alice web 30
bob ml 400
carol web 55
dave sci 0
erin sci 260
frank web 9
EOF
update

# One bundle: what each command printed, a meta file and the manifest.
capture() { # name description
    local d=$out/$1
    rm -rf "$d"
    mkdir -p "$d"
    capture_tables "$d"
    [[ ! -f $d/list_users.json ]] || flux account view-bank root -t -P >"$d/view_bank_root.txt"
    finish_bundle "$d" "$2"
}

# 20 pending jobs: uid bank queue urgency. alice/ml submits to urgent first and to batch
# last, so that the pair's cached queue factor is batch's.
submit_all <<'EOF'
5001 ml urgent 16
5002 ml batch 0
5003 web debug 1
5004 sci urgent 5
5005 sci batch 8
5006 web scratch 10
5001 web debug 12
5002 ml urgent 14
5003 web batch 15
5004 sci debug 16
5005 sci urgent 17
5006 web batch 18
5001 web urgent 20
5002 ml debug 22
5003 web urgent 24
5004 sci batch 26
5005 sci scratch 28
5006 web debug 30
5002 ml batch 31
5001 ml batch 16
EOF
capture default "default weights, 20 jobs submitted"

flux account edit-factor --factor=fairshare --weight=50000
flux account edit-factor --factor=queue --weight=20000
flux account edit-factor --factor=bank --weight=1000
flux account edit-factor --factor=urgency --weight=2000
update
capture weights "weights fairshare 50000, queue 20000, bank 1000, urgency 2000; priority-update"
if [[ -n $mfprio ]]; then
    # Nothing submitted since the update: what the next update computes is what Flux printed.
    {
        printf 'live Flux: queue --live --save: '
        { "$mfprio" queue --live --save "$work/live" --check 2>&1 || true; } | tail -1
        printf 'live Flux: queue --from the --save bundle: '
        { "$mfprio" queue --from "$work/live" --check 2>&1 || true; } | tail -1
    } >"$work/live-check.txt"
fi

flux account edit-queue debug --priority=50
flux account edit-queue urgent --priority=3
flux account edit-bank ml --priority=7
flux account edit-user carol --bank=web --shares=5
usage <<'EOF'
bob ml 40
erin sci 900
frank web 300
EOF
update
capture edits "queues debug 50 and urgent 3, bank ml priority 7, carol's shares 5, usage changed; priority-update"

flux account edit-factor --factor=queue --weight=3
flux account edit-queue urgent --priority=1000000000
update
submit_all <<'EOF'
5002 ml urgent 16
5004 sci urgent 16
5001 web urgent 20
EOF
capture overflow "queue weight 3, urgent priority 1000000000 (3 x 1000000000 passes 2^31 - 1), three jobs submitted to urgent"

flux account edit-factor --factor=bank --weight=2000000000
flux account edit-bank sci --priority=5
update
submit_all <<'EOF'
5005 sci batch 16
5004 sci debug 31
EOF
capture above "bank weight 2000000000, sci priority 5 (a product of 10^10), two jobs submitted to sci"

flux jobtap remove mf_priority.so
flux jobtap load .priority-default
last_update=
capture core "mf_priority.so removed, flux-core's .priority-default loaded"
