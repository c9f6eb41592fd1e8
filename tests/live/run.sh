#!/usr/bin/env bash
# Starts a one-host Slurm cluster (Debian's 22.05, or the release MFPRIO_SLURM_PREFIX names:
# see slurm_cluster.sh) on localhost (tests/live/slurm_cluster.sh), fills it
# (populate.sh: an array task split off, priorities set by hand) and captures a bundle under
# Fair Tree and another under NO_FAIR_TREE (capture.sh, after slurmctld's restart with the new
# flag, with slurmdbd stopped), each with jobs submitted after the recalculation it shows, and
# a third right after a reconfigure with new weights (before the next recalculation), then
# stops every daemon it started, by PID, removes the test users and its directory.
#
#   run.sh OUT [MFPRIO]   bundles in OUT/fair_tree, OUT/classic and OUT/reconfigured; with MFPRIO (the mfprio
#                         tool), also compares, byte for byte, `mfprio sprio --live` and
#                         `mfprio sshare --live` with sprio and sshare (default, -l, -n, -w,
#                         -l -n; sshare -a -l, -a -l -P, -A chem,theory -l), replays each
#                         bundle and the --save bundle offline (--from) against the same
#                         outputs, and runs --verify (against sprio's own output), also on a
#                         copy with one of sprio's factors changed by hand, which it must
#                         report; exit 1 on any difference
#
# Skipped (exit 77) when MFPRIO_NO_LIVE_SLURM is set, when not root, or when the Slurm
# daemons are not installed. About two minutes, most of it waiting for slurmctld's
# recalculations (PriorityCalcPeriod=1).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$1
mfprio=${2:-}
[[ -z $mfprio ]] || mfprio=$(cd "$(dirname "$mfprio")" && pwd)/$(basename "$mfprio")

skip() { printf 'live Slurm: skipped: %s\n' "$*"; exit 77; }
# A Slurm release built from source (slurm_cluster.sh's MFPRIO_SLURM_PREFIX) instead of Debian's.
if [[ -n ${MFPRIO_SLURM_PREFIX:-} ]]; then
    [[ -x $MFPRIO_SLURM_PREFIX/sbin/slurmctld ]] || skip "no slurmctld in $MFPRIO_SLURM_PREFIX/sbin"
    export PATH=$MFPRIO_SLURM_PREFIX/sbin:$MFPRIO_SLURM_PREFIX/bin:$PATH
fi
[[ -z ${MFPRIO_NO_LIVE_SLURM:-} ]] || skip "MFPRIO_NO_LIVE_SLURM is set"
((EUID == 0)) || skip "needs root"
for b in slurmctld slurmd slurmdbd sacctmgr sprio munged mariadbd; do
    command -v "$b" >/dev/null || skip "$b is not installed"
done

dir=$(mktemp -d "${TMPDIR:-/tmp}/mfprio-slurm.XXXXXX")
trap 'bash "$here/slurm_cluster.sh" teardown "$dir"' EXIT

report() {
    echo "live Slurm: $*" >&2
    for f in "$dir"/log/*.log; do
        [[ -f $f ]] && { echo "--- $f" >&2; tail -n 20 "$f" >&2; }
    done
}

bash "$here/slurm_cluster.sh" start "$dir" FAIR_TREE || { report "the cluster did not start"; exit 1; }
bash "$here/populate.sh" "$dir" || { report "populating the cluster failed"; exit 1; }
rm -rf "$out/fair_tree" "$out/classic" "$out/reconfigured"
# A busy cluster: each capture holds jobs submitted after slurmctld's last recalculation.
export MFPRIO_SUBMIT_AFTER_PASS=1
bash "$here/capture.sh" "$dir" "$out/fair_tree" "$mfprio" || { report "capture under Fair Tree failed"; exit 1; }
bash "$here/slurm_cluster.sh" restart-ctld "$dir" NO_FAIR_TREE || { report "slurmctld did not restart"; exit 1; }
# slurmdbd down for the second capture: sprio, sshare and mfprio's --live answer from
# slurmctld alone.
bash "$here/slurm_cluster.sh" stop-dbd "$dir" || { report "slurmdbd did not stop"; exit 1; }
bash "$here/capture.sh" "$dir" "$out/classic" "$mfprio" || { report "capture under NO_FAIR_TREE (slurmdbd down) failed"; exit 1; }
# An administrator's reconfigure with new weights, captured before slurmctld's next
# recalculation: sprio shows the factors of the weights before.
unset MFPRIO_SUBMIT_AFTER_PASS
MFPRIO_RECONFIGURE_AFTER_PASS="PriorityWeightPartition=5000 PriorityWeightQOS=7000" \
    bash "$here/capture.sh" "$dir" "$out/reconfigured" "$mfprio" || { report "capture after a reconfigure failed"; exit 1; }
echo "live Slurm: bundles in $out/fair_tree, $out/classic and $out/reconfigured"
[[ -n $mfprio ]] || exit 0

# The options of each expected output.
declare -A options=(
    [sprio.txt]="sprio" [sprio_l.txt]="sprio -l" [sprio_n.txt]="sprio -n" [sprio_w.txt]="sprio -w"
    [sprio_l_n.txt]="sprio -l -n" [sprio_S_u_y.txt]="sprio -S u,-y" [sprio_S_u.txt]="sprio -S u" [sshare_a_l.txt]="sshare -a -l" [sshare_a_l_P.txt]="sshare -a -l -P"
    [sshare_A_chem_theory_l.txt]="sshare -A chem,theory -l")
differences=0
same() { # same WHAT EXPECTED ACTUAL
    if cmp -s "$2" "$3"; then
        echo "live Slurm: same: $1"
    else
        echo "live Slurm: DIFFERENT: $1" >&2
        diff "$2" "$3" | head -n 20 >&2 || true
        differences=$((differences + 1))
    fi
}
# check_errors WHAT FILE: what mfprio said on stderr: nothing, but after the reconfigure,
# where it says that sprio shows the factors of the weights before.
check_errors() {
    local expected=0 calc changed
    # Where the capture's recalculation came before slurm.conf changed (22.05 keeps the
    # factors of the weights before until its next; 23.11 and later recalculate at once).
    calc=$(sed -n 's/^priority_calc_time=//p' "$b/meta")
    changed=$(sed -n 's/^slurm_conf_changed=//p' "$b/meta")
    [[ $scenario == reconfigured && $1 != *sshare* ]] && ((calc < changed)) && expected=1
    if ((expected == 0)) && [[ ! -s $2 ]]; then
        return 0
    fi
    if ((expected == 1)) &&
        grep -q "sprio's rows show the factors of PriorityWeightPartition=4000 (configured 5000, .*slurm.conf changed at" "$2"; then
        return 0
    fi
    echo "live Slurm: DIFFERENT: $1: on stderr:" >&2
    head -n 5 "$2" >&2
    differences=$((differences + 1))
}
for scenario in fair_tree classic reconfigured; do
    b=$out/$scenario
    # What the checks write goes beside the bundle files, in a directory of its own (a bundle
    # holds only what its manifest lists).
    w=$b/check
    rm -rf "$w"
    mkdir -p "$w"
    for f in "${!options[@]}"; do
        read -r -a o <<<"${options[$f]}"
        same "$scenario: mfprio ${o[*]} --live" "$b/expected/$f" "$b/mfprio/$f"
        for from in "$b" "$b/saved"; do
            what="the capture"
            [[ $from == "$b" ]] || what="the --save bundle"
            USER=root "$mfprio" "${o[0]}" --from "$from" "${o[@]:1}" >"$w/replay.out" 2>"$w/replay.err" || true
            same "$scenario: mfprio ${o[*]} --from ($what)" "$b/expected/$f" "$w/replay.out"
            check_errors "$scenario: mfprio ${o[*]} --from ($what)" "$w/replay.err"
        done
    done
    if "$mfprio" sprio --from "$b/saved" --verify >"$w/verify.out" 2>"$w/verify.err"; then
        echo "live Slurm: $scenario: --verify: $(tail -n 1 "$w/verify.out")"
    else
        echo "live Slurm: $scenario: --verify found differences:" >&2
        cat "$w/verify.out" "$w/verify.err" >&2
        # The evidence: squeue's rows of the jobs named.
        for j in $(sed -n 's/^job \([0-9_]*\).*/\1/p' "$w/verify.out" | sort -u); do
            grep "^$j|" "$b/saved/squeue.txt" >&2 || true
        done
        differences=$((differences + 1))
    fi
    # sprio's own output changed by hand (one factor of one row): --verify must say so.
    rm -rf "$w/edited"
    cp -r "$b/saved" "$w/edited"
    awk -F'|' -v OFS='|' 'NR == 2 { $6 = $6 + 1; job = $1 } { print } END { print job > "/dev/stderr" }' \
        "$b/saved/sprio_factors.txt" >"$w/edited/sprio_factors.txt" 2>"$w/edited.job"
    python3 "$here/manifest.py" "$w/edited"
    edited_job=$(cat "$w/edited.job")
    if "$mfprio" sprio --from "$w/edited" --verify >"$w/verify.out" 2>&1; then
        echo "live Slurm: $scenario: --verify found no difference in a bundle whose sprio output was changed by hand" >&2
        cat "$w/verify.out" >&2
        differences=$((differences + 1))
    elif grep -q "^job $edited_job (.*ASSOC: sprio" "$w/verify.out"; then
        echo "live Slurm: $scenario: --verify reports job $edited_job's ASSOC changed by hand (exit 1)"
    else
        echo "live Slurm: $scenario: --verify did not name job $edited_job's ASSOC changed by hand:" >&2
        cat "$w/verify.out" >&2
        differences=$((differences + 1))
    fi
    rm -rf "$w"
done
if ((differences != 0)); then
    echo "live Slurm: $differences differences" >&2
    exit 1
fi
echo "live Slurm: mfprio and the cluster agree byte for byte under Fair Tree, NO_FAIR_TREE and after a reconfigure"
