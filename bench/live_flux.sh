#!/usr/bin/env bash
# `mfprio queue --live` against `flux jobs -A` in a one-broker Flux instance with
# flux-accounting's priority plugin and the accounts of tests/live/flux_admin.sh (13 users in
# banks three levels deep, users in two and three banks, three queues), JOBS pending jobs
# (at most 16,000: 1,000 per association) with urgencies 0-31 and a priority-update after them;
# then both commands timed in alternating rounds as whole processes (wall time and peak resident
# memory), after a check that `mfprio queue --live --check` finds every job as Flux holds it.
#
#   bench/live_flux.sh MFPRIO [JOBS] [ROUNDS]     (defaults: 420 jobs, 7 rounds)
#
# Needs flux-core and flux-accounting on PATH (tests/live/flux.sh says which releases). Prints a
# Markdown table for bench/README.md.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
live=$here/../tests/live

if [[ ${1:-} != inner ]]; then
    mfprio=$(cd "$(dirname "${1:?usage: live_flux.sh MFPRIO [JOBS] [ROUNDS]}")" && pwd)/$(basename "$1")
    command -v flux >/dev/null || { echo "live_flux.sh: flux is not installed" >&2; exit 77; }
    flux account --help >/dev/null 2>&1 || { echo "live_flux.sh: flux-accounting is not installed" >&2; exit 77; }
    work=$(mktemp -d "${TMPDIR:-/tmp}/mfprio-bench.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    mkdir "$work/conf.d"
    printf '[queues.batch]\n[queues.debug]\n[queues.urgent]\n' >"$work/conf.d/queues.toml"
    exec timeout 1800 flux start --test-size=1 -o,--config-path="$work/conf.d" \
        bash "${BASH_SOURCE[0]}" inner "$mfprio" "${2:-420}" "${3:-7}" "$work"
fi

mfprio=$2
jobs=$3
rounds=$4
work=$5
db=$work/accounting.db
cd "$work"
# shellcheck source=tests/live/flux_lib.sh
source "$live/flux_lib.sh"
accounting_start

three_level_accounts
queues=(batch debug urgent)
echo "live_flux.sh: submitting $jobs pending jobs" >&2
for ((n = 0; n < jobs; n++)); do
    p=${three_level_pairs[n % ${#three_level_pairs[@]}]}
    printf '%s %s %s %s\n' "${p%%:*}" "${p#*:}" "${queues[n % 3]}" $((n * 7 % 32))
done | submit_all
update
pending=$(flux jobs -A -c 0 -n -f pending -o '{id}' | wc -l)
echo "live_flux.sh: $pending jobs pending" >&2

"$mfprio" queue --live --check >"$work/check.txt" || {
    echo "live_flux.sh: mfprio queue --live --check found differences:" >&2
    tail -n 20 "$work/check.txt" >&2
    exit 1
}
# MFPRIO_BENCH_KEEP=DIR: the instance's bundle kept there, for `mfprio queue --from DIR`.
[[ -z ${MFPRIO_BENCH_KEEP:-} ]] || "$mfprio" queue --live --save "$MFPRIO_BENCH_KEEP" --force >/dev/null

# Alternating rounds: wall seconds and peak RSS of each whole process (wait4's rusage; the
# peak of the command's largest process, its children included once they end).
python3 - "$rounds" "$mfprio" "$pending" "$(tail -1 "$work/check.txt")" <<'PY'
import os, statistics, subprocess, sys, time
rounds, mfprio, pending, check = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
cmds = {"flux jobs -A": ["flux", "jobs", "-A"], "mfprio queue --live": [mfprio, "queue", "--live"]}
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
ratios = [a / b for a, b in zip(wall["mfprio queue --live"], wall["flux jobs -A"])]
print(f"{pending} pending jobs, {rounds} alternating rounds (medians; min-max); "
      f"`mfprio queue --live --check`: {check}\n")
print("| command | wall s | peak RSS MiB |")
print("|---|---|---|")
for k in cmds:
    w, r = wall[k], rss[k]
    print(f"| `{k}` | {statistics.median(w):.3f} ({min(w):.3f}-{max(w):.3f}) | {statistics.median(r):.0f} |")
print(f"\nmfprio / flux jobs wall time, pair by pair: median {statistics.median(ratios):.2f} "
      f"({min(ratios):.2f}-{max(ratios):.2f})")
PY
