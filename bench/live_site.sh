#!/usr/bin/env bash
# site_factor/mfprio's cost inside slurmctld: starts the test cluster of tests/live with the
# plugin loaded (policy: the xfactor preset and a queue-time term, snapshot on), fills it as
# populate.sh does, submits JOBS pending jobs over five users, six associations, three
# partitions and three QOS, then reads from slurmctld's log (at debug level, set with
# `scontrol setdebug`) the plugin's own timing of ROUNDS of its updates: the time it held the
# job lock for every pending job's site factor, and for the copy of the snapshot. Checks that
# `mfprio sprio --live -l --site-policy --site-snapshot` prints what `sprio -l` prints, and
# stops every daemon after.
#
#   bench/live_site.sh MFPRIO PLUGIN_DIR [JOBS] [ROUNDS]   (defaults: 20000 jobs, 5 rounds)
#
# Needs root and Debian's Slurm packages, as tests/live/run.sh, and the plugin built for the
# installed release (./setup.sh test builds it into build-site/build/examples/site_factor).
# Submitting takes a few minutes. Prints a Markdown table for bench/README.md.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
live=$here/../tests/live
mfprio=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
plugin_dir=$(cd "${2:?usage: live_site.sh MFPRIO PLUGIN_DIR [JOBS] [ROUNDS]}" && pwd)
jobs=${3:-20000}
rounds=${4:-5}
((EUID == 0)) || { echo "live_site.sh: needs root" >&2; exit 77; }
for b in slurmctld slurmd slurmdbd sprio munged mariadbd; do
    command -v "$b" >/dev/null || { echo "live_site.sh: $b is not installed" >&2; exit 77; }
done
[[ -f $plugin_dir/site_factor_mfprio.so ]] || { echo "live_site.sh: no site_factor_mfprio.so in $plugin_dir" >&2; exit 77; }

dir=$(mktemp -d "${TMPDIR:-/tmp}/mfprio-bench.XXXXXX")
trap 'bash "$live/slurm_cluster.sh" teardown "$dir"' EXIT

mkdir -p "$dir/etc"
printf 'preset = xfactor\nqueuetime = 2\n' >"$dir/etc/site.policy"
MFPRIO_SITE_PLUGIN_DIR=$plugin_dir MFPRIO_MAX_JOB_COUNT=$((jobs + 1000)) \
    bash "$live/slurm_cluster.sh" start "$dir" FAIR_TREE >/dev/null
bash "$live/populate.sh" "$dir" >/dev/null
# shellcheck disable=SC1091
. "$dir/env"

echo "live_site.sh: submitting $jobs pending jobs" >&2
bash "$live/populate.sh" submit-many "$dir" "$jobs"
pending=$(squeue -h -t PD -o %i | wc -l)
echo "live_site.sh: $pending jobs pending" >&2

scontrol setdebug debug
log=$dir/log/slurmctld.log
pattern='site_factor/mfprio: update of [0-9]+ pending jobs'
before=$(grep -cE "$pattern" "$log" || true)
for _ in $(seq 1 $((rounds * 70 + 60))); do
    (($(grep -cE "$pattern" "$log" || true) >= before + rounds)) && break
    sleep 1
done
grep -E "$pattern" "$log" | tail -n "$rounds" >"$dir/updates.txt"
scontrol setdebug info

# The twin agrees with sprio -l, within one recalculation.
stamp=$dir/state/priority_last_decay_ran
last_pass() { od -An -tx1 -N8 "$stamp" | tr -d ' \n'; }
for _ in 1 2 3; do
    pass=$(last_pass)
    sprio -l >"$dir/sprio.txt"
    "$mfprio" sprio --live -l --site-policy "$dir/etc/site.policy" --site-snapshot "$dir/state" >"$dir/mfprio.txt"
    [[ $(last_pass) == "$pass" ]] && break
    sleep 2
done
if ! cmp -s "$dir/sprio.txt" "$dir/mfprio.txt"; then
    echo "live_site.sh: mfprio sprio --live -l --site-policy differs from sprio -l:" >&2
    diff "$dir/sprio.txt" "$dir/mfprio.txt" | head -n 20 >&2
    exit 1
fi

python3 - "$dir/updates.txt" "$pending" <<'PY'
import re, statistics, sys
rows = []
for line in open(sys.argv[1]):
    m = re.search(r"update of (\d+) pending jobs: (\d+) us; snapshot of (\d+) associations: (\d+) us", line)
    if m:
        rows.append(tuple(int(x) for x in m.groups()))
if not rows:
    sys.exit("live_site.sh: no timing in slurmctld's log")
jobs = [r[0] for r in rows]
upd = [r[1] for r in rows]
snap = [r[3] for r in rows]
print(f"{len(rows)} of slurmctld's recalculations, {statistics.median(jobs):.0f} pending jobs, {rows[0][2]} associations "
      f"(medians; min-max), sprio -l and mfprio's twin identical:\n")
print("| under the job lock | µs | ns per job |")
print("|---|---|---|")
print(f"| every pending job's site factor | {statistics.median(upd):.0f} ({min(upd)}-{max(upd)}) | "
      f"{1000 * statistics.median(upd) / statistics.median(jobs):.0f} |")
print(f"| the snapshot's copy | {statistics.median(snap):.0f} ({min(snap)}-{max(snap)}) | |")
PY
