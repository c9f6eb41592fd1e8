#!/usr/bin/env bash
# Starts a one-host Slurm 22.05 cluster on localhost (tests/live/slurm_cluster.sh), fills it
# (populate.sh) and captures a bundle under Fair Tree and another under NO_FAIR_TREE
# (capture.sh, after slurmctld's restart with the new flag), then stops every daemon it
# started, by PID, removes the test users and its directory.
#
#   run.sh OUT        bundles in OUT/fair_tree and OUT/classic
#
# Skipped (exit 77) when MFPRIO_NO_LIVE_SLURM is set, when not root, or when the Slurm
# daemons are not installed. About two minutes, most of it waiting for slurmctld's
# recalculations (PriorityCalcPeriod=1).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$1

skip() { printf 'live Slurm: skipped: %s\n' "$*"; exit 77; }
[[ -z ${MFPRIO_NO_LIVE_SLURM:-} ]] || skip "MFPRIO_NO_LIVE_SLURM is set"
((EUID == 0)) || skip "needs root"
for b in slurmctld slurmd slurmdbd sacctmgr sprio munged mariadbd; do
    command -v "$b" >/dev/null || skip "$b is not installed"
done

dir=$(mktemp -d "${TMPDIR:-/tmp}/mfprio-slurm.XXXXXX")
cleanup() {
    bash "$here/slurm_cluster.sh" stop "$dir" || true
    bash "$here/populate.sh" remove-users || true
    rm -rf "$dir"
}
trap cleanup EXIT

report() {
    echo "live Slurm: $*" >&2
    for f in "$dir"/log/*.log; do
        [[ -f $f ]] && { echo "--- $f" >&2; tail -n 20 "$f" >&2; }
    done
}

bash "$here/slurm_cluster.sh" start "$dir" FAIR_TREE || { report "the cluster did not start"; exit 1; }
bash "$here/populate.sh" "$dir" || { report "populating the cluster failed"; exit 1; }
rm -rf "$out/fair_tree" "$out/classic"
bash "$here/capture.sh" "$dir" "$out/fair_tree" || { report "capture under Fair Tree failed"; exit 1; }
bash "$here/slurm_cluster.sh" restart-ctld "$dir" NO_FAIR_TREE || { report "slurmctld did not restart"; exit 1; }
bash "$here/capture.sh" "$dir" "$out/classic" || { report "capture under NO_FAIR_TREE failed"; exit 1; }
echo "live Slurm: bundles in $out/fair_tree and $out/classic"
