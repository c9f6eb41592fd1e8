#!/usr/bin/env bash
# `mfprio sprio --live -l` against the real `sprio -l` on a busy one-host Slurm 22.05 cluster:
# starts the test cluster of tests/live (slurm_cluster.sh, populate.sh), submits JOBS pending
# jobs spread over five users, six associations, three partitions (one job in three on two
# partitions) and three QOS, then times both commands in alternating rounds, as whole
# processes (wall time and peak resident memory), right after one of slurmctld's
# recalculations, and checks that the two print the same bytes. Stops every daemon after.
#
#   bench/live_sprio.sh MFPRIO [JOBS] [ROUNDS]     (defaults: 24000 jobs, 5 rounds)
#
# Needs root and Debian's Slurm packages, as tests/live/run.sh. Submitting takes a few
# minutes (sbatch, four at a time). Prints a Markdown table for bench/README.md.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
live=$here/../tests/live
mfprio=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
jobs=${2:-24000}
rounds=${3:-5}
((EUID == 0)) || { echo "live_sprio.sh: needs root" >&2; exit 77; }
for b in slurmctld slurmd slurmdbd sprio munged mariadbd; do
    command -v "$b" >/dev/null || { echo "live_sprio.sh: $b is not installed" >&2; exit 77; }
done

dir=$(mktemp -d "${TMPDIR:-/tmp}/mfprio-bench.XXXXXX")
trap 'bash "$live/slurm_cluster.sh" teardown "$dir"' EXIT

MFPRIO_MAX_JOB_COUNT=$((jobs + 1000)) bash "$live/slurm_cluster.sh" start "$dir" FAIR_TREE
bash "$live/populate.sh" "$dir"
# shellcheck disable=SC1091
. "$dir/env"

echo "live_sprio.sh: submitting $jobs pending jobs" >&2
bash "$live/populate.sh" submit-many "$dir" "$jobs"
pending=$(squeue -h -t PD -o %i | wc -l)
echo "live_sprio.sh: $pending jobs pending" >&2

stamp=$dir/state/priority_last_decay_ran
last_pass() { od -An -tx1 -N8 "$stamp" | tr -d ' \n'; }
wait_pass() {
    local before
    before=$(last_pass)
    for _ in $(seq 1 700); do
        [[ $(last_pass) != "$before" ]] && return 0
        sleep 0.1
    done
    return 1
}

# Same bytes, within one recalculation period.
for try in 1 2 3; do
    wait_pass
    pass=$(last_pass)
    sprio -l >"$dir/sprio.txt"
    "$mfprio" sprio --live -l >"$dir/mfprio.txt"
    [[ $(last_pass) == "$pass" ]] && break
done
if ! cmp -s "$dir/sprio.txt" "$dir/mfprio.txt"; then
    echo "live_sprio.sh: mfprio sprio --live -l differs from sprio -l:" >&2
    diff "$dir/sprio.txt" "$dir/mfprio.txt" | head -n 20 >&2
    exit 1
fi
lines=$(wc -l <"$dir/sprio.txt")

# Alternating rounds: wall seconds and peak RSS of each whole process (wait4's rusage).
python3 - "$rounds" "$mfprio" "$pending" "$lines" <<'PY'
import os, statistics, subprocess, sys, time
rounds, mfprio, pending, lines = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
cmds = {"sprio -l": ["sprio", "-l"], "mfprio sprio --live -l": [mfprio, "sprio", "--live", "-l"]}
wall = {k: [] for k in cmds}
rss = {k: [] for k in cmds}
for _ in range(rounds):
    for k, c in cmds.items():
        t = time.monotonic()
        p = subprocess.Popen(c, stdout=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        wall[k].append(time.monotonic() - t)
        rss[k].append(ru.ru_maxrss / 1024)
        if status != 0:
            sys.exit(f"{k} failed")
ratios = [a / b for a, b in zip(wall["mfprio sprio --live -l"], wall["sprio -l"])]
print(f"{pending} pending jobs, {lines} lines of sprio -l, {rounds} alternating rounds (medians; min-max):\n")
print("| command | wall s | peak RSS MiB |")
print("|---|---|---|")
for k in cmds:
    w, r = wall[k], rss[k]
    print(f"| `{k}` | {statistics.median(w):.3f} ({min(w):.3f}-{max(w):.3f}) | {statistics.median(r):.0f} |")
print(f"\nmfprio / sprio wall time, pair by pair: median {statistics.median(ratios):.2f} "
      f"({min(ratios):.2f}-{max(ratios):.2f}); output identical")
PY
