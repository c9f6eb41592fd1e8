#!/usr/bin/env bash
# site_factor/mfprio inside slurmctld (Debian's, or the release MFPRIO_SLURM_PREFIX names): the test cluster of slurm_cluster.sh loads the
# plugin (built from the Slurm source of the installed release), populate.sh fills it, and
# after each of slurmctld's recalculations sprio's output (default, -l and -n) must equal
# `mfprio sprio --live --site-policy POLICY --site-snapshot DIR` byte for byte. Usage decays
# (PriorityDecayHalfLife=7-0) and a GPU job runs on n1 throughout, so that CPU and GPU usage
# grow at every recalculation:
#
#   1. xfactor: the xfactor preset with a queue-time term (Fair Tree);
#   2. reconfigured: the GPU policy (gpu_fair_use, which reads the association's GPU
#      usage) with partition, QOS, nice, GPU
#      and Maui expansion-factor terms, written over the first and read by `scontrol
#      reconfigure`, with jobs submitted after the recalculation (their site factor set at
#      submission);
#   3. classic: slurmctld restarted with PriorityFlags=NO_FAIR_TREE, more jobs submitted
#      after the recalculation: the fair-share factors from the plugin's snapshot;
#   4. depth_oblivious: the same with PriorityFlags=DEPTH_OBLIVIOUS;
#   5. dbd_down: slurmdbd stopped, slurmctld going on alone with its associations and usage
#      in memory: its recalculations, the plugin's update and snapshot go on, and the twin
#      (which asks slurmctld only) must still agree, with more jobs submitted;
#   6. removed: slurmctld restarted without the plugin (Fair Tree, slurmdbd still down): the
#      jobs keep the SITE it last gave them, and the twin, given no policy, reads each job's
#      SITE from sprio;
#   7. a malformed policy (the plugin back), reconfigured: slurmctld keeps running, its log
#      names the policy's file, line and column, and every pending job's SITE is 0 from the
#      next recalculation.
#
#   site_factor.sh OUT MFPRIO [PLUGIN_DIR]  exit 1 on a difference; the plugin's directory,
#                                          else MFPRIO_SITE_PLUGIN_DIR
#
# OUT/NAME holds what sprio printed (sprio.txt, sprio_l.txt, sprio_n.txt), what mfprio
# printed, the policy, the plugin's snapshot (site_factor_snapshot) and the --save bundle of
# the same moment: tests/data/site_factor replays them offline.
#
# Skipped (exit 77) when not root, when the Slurm daemons are missing, or without the plugin.
# About ten minutes: seven of slurmctld's recalculations (PriorityCalcPeriod=1, a minute)
# and four restarts.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${1:?usage: site_factor.sh OUT MFPRIO PLUGIN_DIR}
mfprio=${2:?usage: site_factor.sh OUT MFPRIO PLUGIN_DIR}
plugin_dir=${3:-${MFPRIO_SITE_PLUGIN_DIR:-}}
mfprio=$(cd "$(dirname "$mfprio")" && pwd)/$(basename "$mfprio")

skip() { printf 'live site_factor: skipped: %s\n' "$*"; exit 77; }
((EUID == 0)) || skip "needs root"
# A Slurm release built from source (slurm_cluster.sh's MFPRIO_SLURM_PREFIX) instead of Debian's.
if [[ -n ${MFPRIO_SLURM_PREFIX:-} ]]; then
    [[ -x $MFPRIO_SLURM_PREFIX/sbin/slurmctld ]] || skip "no slurmctld in $MFPRIO_SLURM_PREFIX/sbin"
    export PATH=$MFPRIO_SLURM_PREFIX/sbin:$MFPRIO_SLURM_PREFIX/bin:$PATH
fi
for b in slurmctld slurmd slurmdbd sacctmgr sprio munged mariadbd; do
    command -v "$b" >/dev/null || skip "$b is not installed"
done
[[ -n $plugin_dir && -f $plugin_dir/site_factor_mfprio.so ]] || skip "no site_factor_mfprio.so (build with -Dslurm_source)"
plugin_dir=$(cd "$plugin_dir" && pwd)

mkdir -p "$out"
out=$(cd "$out" && pwd)
dir=$(mktemp -d "${TMPDIR:-/tmp}/mfprio-site.XXXXXX")
trap 'bash "$here/slurm_cluster.sh" teardown "$dir"' EXIT

mkdir -p "$dir/etc"
cat >"$dir/etc/site.policy" <<'POLICY'
# The expansion factor as SchedMD's xfactor plugin describes it, and the queue time.
preset = xfactor
queuetime = 2
POLICY
MFPRIO_SITE_PLUGIN_DIR=$plugin_dir MFPRIO_DECAY_HALF_LIFE=7-0 MFPRIO_N1_GPU=1 \
    bash "$here/slurm_cluster.sh" start "$dir" FAIR_TREE >/dev/null ||
    { echo "live site_factor: the cluster did not start"; tail -20 "$dir/log/slurmctld.log"; exit 1; }
# shellcheck disable=SC1091
. "$dir/env"
bash "$here/populate.sh" "$dir" >/dev/null || { echo "live site_factor: populating failed"; exit 1; }
# A GPU job running on n1 for the whole test: carol's GPU (and CPU) usage grows at each
# recalculation, after the plugin's update and before the next one.
sbatch --uid=mfprio-carol --chdir=/tmp -o /dev/null -e /dev/null -p debug -A physics -n 1 --gres=gpu:1 \
    --mem=100 -t 30 --wrap "sleep 1700" >/dev/null
for _ in $(seq 1 100); do
    [[ $(squeue -h -u mfprio-carol -p debug -t R -o %i) ]] && break
    sleep 0.2
done
[[ $(squeue -h -u mfprio-carol -p debug -t R -o %i) ]] || { echo "live site_factor: the GPU job did not start"; exit 1; }

stamp=$dir/state/priority_last_decay_ran
last_pass() { od -An -tx8 -N8 "$stamp" 2>/dev/null | tr -d ' '; }
# Waits for slurmctld's next recalculation and a second more (the plugin's snapshot is
# written at the end of its update).
next_pass() {
    local before
    before=$(last_pass)
    for _ in $(seq 1 900); do
        [[ $(last_pass) != "$before" ]] && { sleep 1; return 0; }
        sleep 0.1
    done
    echo "live site_factor: no recalculation in 90 s" >&2
    return 1
}

status=0
# The twin's site options: the plugin's policy and snapshot (none once the plugin is removed:
# each job's SITE is then the one sprio prints).
twin_site=(--site-policy "$dir/etc/site.policy" --site-snapshot "$dir/state")
# computed_sites: how many rows of `sprio -l` (on standard input, its header first) show a
# SITE the plugin set other than 0, the column found by its header (23.02 added ACCOUNT
# before it). A job in several partitions whose priority an administrator set shows SITE
# -214748364 on 22.05 whatever the plugin did (sprio prints 0 - NICE_OFFSET, cut to its
# column): those rows are left out.
computed_sites() {
    awk 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "SITE") c = i; next }
         c && $c != 0 && $c != -214748364 { n++ } END { print n + 0 }'
}
# compare NAME [busy]: sprio and sprio -l against mfprio's twin, within one recalculation;
# with busy, more jobs are submitted right after the recalculation, before the comparison.
compare() {
    local name=$1 busy=${2:-} pass
    for _ in 1 2 3; do
        next_pass
        pass=$(last_pass)
        # A busy cluster: jobs submitted after the recalculation, whose site factor the plugin
        # set at submission (site_factor_p_set), not at the pass.
        [[ -z $busy ]] || bash "$here/populate.sh" submit-more "$dir" >/dev/null
        rm -rf "${out:?}/$name"
        mkdir -p "$out/$name"
        sprio >"$out/$name/sprio.txt"
        sprio -l >"$out/$name/sprio_l.txt"
        sprio -n >"$out/$name/sprio_n.txt"
        local twin=("$mfprio" sprio --live "${twin_site[@]}")
        "${twin[@]}" >"$out/$name/mfprio.txt" 2>"$out/$name/mfprio.err"
        "${twin[@]}" -l --save "$out/$name/bundle" >"$out/$name/mfprio_l.txt" 2>>"$out/$name/mfprio.err"
        "${twin[@]}" -n >"$out/$name/mfprio_n.txt" 2>>"$out/$name/mfprio.err"
        cp "$dir/etc/site.policy" "$dir/state/site_factor_snapshot" "$out/$name/"
        [[ $(last_pass) == "$pass" ]] && break
    done
    if cmp -s "$out/$name/sprio.txt" "$out/$name/mfprio.txt" && cmp -s "$out/$name/sprio_l.txt" "$out/$name/mfprio_l.txt" &&
        cmp -s "$out/$name/sprio_n.txt" "$out/$name/mfprio_n.txt"; then
        local jobs sites
        jobs=$(tail -n +2 "$out/$name/sprio.txt" | wc -l)
        sites=$(computed_sites <"$out/$name/sprio_l.txt")
        echo "live site_factor: $name: sprio, sprio -l and -n identical ($jobs jobs, $sites with a SITE other than 0)"
    else
        echo "live site_factor: $name: DIFFERENT"
        diff "$out/$name/sprio_l.txt" "$out/$name/mfprio_l.txt" | head -20 || true
        diff "$out/$name/sprio_n.txt" "$out/$name/mfprio_n.txt" | head -10 || true
        cat "$out/$name/mfprio.err"
        status=1
    fi
}

compare xfactor

cat >"$dir/etc/site.policy" <<'POLICY'
# The site's GPU fair use (compiled into the plugin), partition and QOS priorities, nice,
# GPUs, and Maui's expansion factor with a minimum limit.
gpu_fair_use = 5000
gpu_fair_use.budget = 20
partition = 3
qos = 1
qos.cap = 400
nice = 1
gpus = 50
xfactor = 100
xfactor.min_limit = 30
POLICY
scontrol reconfigure
compare reconfigured busy

# Classic and depth-oblivious fair-share under decay, with a job running: exact only
# through the snapshot's usage.
for flags in NO_FAIR_TREE DEPTH_OBLIVIOUS; do
    bash "$here/slurm_cluster.sh" restart-ctld "$dir" "$flags" >/dev/null ||
        { echo "live site_factor: slurmctld did not restart with $flags"; exit 1; }
    name=classic
    [[ $flags == DEPTH_OBLIVIOUS ]] && name=depth_oblivious
    compare "$name" busy
done

bash "$here/slurm_cluster.sh" stop-dbd "$dir" >/dev/null || { echo "live site_factor: slurmdbd did not stop"; exit 1; }
compare dbd_down busy

# The plugin removed (slurmctld restarted without PrioritySiteFactorPlugin, under Fair Tree,
# whose factors sshare prints exactly): the jobs keep the SITE it last gave them, the jobs
# submitted since get none, and the twin, without a policy, reads each job's SITE from sprio.
sed -i '/^PrioritySiteFactor/d' "$dir/etc/slurm.conf"
bash "$here/slurm_cluster.sh" restart-ctld "$dir" FAIR_TREE >/dev/null ||
    { echo "live site_factor: slurmctld did not restart without the plugin"; exit 1; }
twin_site=()
compare removed busy
# The plugin back, for the malformed policy below.
cat >>"$dir/etc/slurm.conf" <<CONF
PrioritySiteFactorPlugin=site_factor/mfprio
PrioritySiteFactorParameters=policy=$dir/etc/site.policy,snapshot=$dir/state
CONF
bash "$here/slurm_cluster.sh" restart-ctld "$dir" FAIR_TREE >/dev/null ||
    { echo "live site_factor: slurmctld did not restart with the plugin"; exit 1; }

printf 'queuetime = often\n' >"$dir/etc/site.policy"
scontrol reconfigure
next_pass
if scontrol ping >/dev/null && grep -q "site.policy:1:13: queuetime: " "$dir/log/slurmctld.log" &&
    [[ $(sprio -l | computed_sites) == 0 ]]; then
    echo "live site_factor: malformed: slurmctld running, the error in its log ($(grep -m1 -o 'site.policy:1:13: .*' "$dir/log/slurmctld.log" | cut -c1-80)), SITE 0"
else
    echo "live site_factor: malformed: FAILED"
    grep site_factor "$dir/log/slurmctld.log" | tail -5
    sprio -l | head -20
    status=1
fi
exit $status
