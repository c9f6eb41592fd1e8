#!/usr/bin/env bash
# Captures what the cluster of slurm_cluster.sh prints, right after slurmctld's next
# priority recalculation, as a bundle directory: the inputs mfprio reads (jobs, configuration,
# associations, QOS) and, under expected/, what sprio and sshare print.
#
#   capture.sh DIR OUT [MFPRIO]
#
# With MFPRIO (the mfprio tool), also runs `mfprio sprio --live` and `mfprio sshare --live`
# with the same options as the expected outputs, into OUT/mfprio/ (same file names), and
# `mfprio sprio --live --save OUT/saved`. All of it must happen within one recalculation
# period: when slurmctld recalculated meanwhile, or a job changed (its state, times, stored
# priority or partition), the capture is taken again (three tries).
#
# sprio shows the factors of slurmctld's last recalculation, not of the moment it runs; that
# time is in StateSaveLocation/priority_last_decay_ran (two packed 64-bit times: the last
# pass, the last usage reset). capture.sh waits for the file to change (a new pass, at most
# one PriorityCalcPeriod), captures at once, and writes the pass's time into OUT/meta as
# priority_calc_time.
#
# A reconfigure: with MFPRIO_RECONFIGURE_AFTER_PASS="Key=value ..." those slurm.conf lines are
# rewritten and `scontrol reconfigure` run a second after the pass, before the capture; meta's
# slurm_conf_changed is slurm.conf's modification time, as --live reads it. Slurm 22.05 keeps
# the factors of the pass before until its next; from 23.11 the reconfigure restarts
# slurmctld, which recalculates at once: the capture shows that pass.
#
# A busy cluster: with MFPRIO_SUBMIT_AFTER_PASS=1, jobs of several kinds are submitted two
# seconds after the pass and before the capture (populate.sh submit-more), so that the
# capture holds jobs whose factors slurmctld computed at submission, not at the pass.
# sacctmgr's outputs are optional (slurmdbd may be down: sprio, sshare and assoc_mgr still
# answer from slurmctld). OUT/manifest lists every input file (manifest.py), as --save does.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dir=$1
out=$2
mfprio=${3:-}
# shellcheck disable=SC1091
. "$dir/env"
stamp=$dir/state/priority_last_decay_ran

# config::squeue_format (mfprio sprio --help prints it).
squeue_format="JobID:0|,JobArrayID:0|,UserName:0|,Account:0|,Partition:0|,QOS:0|,SubmitTime:0|,EligibleTime:0|,AccrueTime:0|,NumNodes:0|,NumCPUs:0|,TimeLimit:0|,Nice:0|,tres-alloc:0|,State:0|,PriorityLong:0"

# config::sprio_listing_format: what sprio prints of every job's factors (mfprio's --live
# runs the same; --verify compares with it).
sprio_format="%i|%r|%Y|%S|%A|%B|%F|%J|%P|%Q|%N|%T"

# What capture_once compares before and after.
jobs_state="JobID:0|,State:0|,EligibleTime:0|,AccrueTime:0|,PriorityLong:0|,Partition:0"

last_pass() { od -An -tx1 -N8 "$stamp" 2>/dev/null | tr -d ' \n'; }

# capture_once: waits for a recalculation, captures everything; fails (1) when another
# recalculation happened before it was done.
capture_once() {
    local before pass
    before=$(last_pass)
    for _ in $(seq 1 700); do
        [[ $(last_pass) != "$before" ]] && break
        sleep 0.1
    done
    [[ $(last_pass) != "$before" ]] || { echo "capture.sh: no priority recalculation within 70 s" >&2; exit 1; }
    pass=$(last_pass)
    if [[ -n ${MFPRIO_RECONFIGURE_AFTER_PASS:-} ]]; then
        # An administrator's reconfigure right after the pass: slurmctld keeps each job's
        # factors of the weights before until its next recalculation.
        sleep 1
        for kv in $MFPRIO_RECONFIGURE_AFTER_PASS; do
            sed -i "s/^${kv%%=*}=.*/$kv/" "$SLURM_CONF"
        done
        scontrol reconfigure
        sleep 1
        # From 23.11 a reconfigure starts slurmctld anew, which recalculates at once with the
        # new weights: the capture then shows that recalculation (22.05 keeps the one before).
        for _ in $(seq 1 50); do
            scontrol ping >/dev/null 2>&1 && [[ $(last_pass) != "$pass" ]] && break
            sleep 0.1
        done
        pass=$(last_pass)
    fi
    if [[ -n ${MFPRIO_SUBMIT_AFTER_PASS:-} ]]; then
        sleep 2
        bash "$here/populate.sh" submit-more "$dir"
    fi

    rm -rf "$out"
    mkdir -p "$out/expected"
    # Each job's state, times and stored priority before and after: a capture is one moment.
    squeue -a -r -h -t all -O "$jobs_state" >"$dir/jobs_before"
    # The inputs.
    squeue -a --json >"$out/squeue.json"
    scontrol show job >"$out/scontrol_show_job.txt"
    scontrol -o show job >"$out/scontrol_show_job_o.txt"
    scontrol show config >"$out/scontrol_show_config.txt"
    scontrol -o show partition >"$out/scontrol_show_partition.txt"
    scontrol -o --future show node >"$out/scontrol_show_node.txt"
    squeue -a -r -h -t PENDING,RUNNING,SUSPENDED -O "$squeue_format" >"$out/squeue.txt"
    sshare -a -l -P >"$out/sshare_a_l_P.txt"
    scontrol show assoc_mgr flags=assoc,qos >"$out/scontrol_show_assoc_mgr.txt"
    sacctmgr -P show assoc >"$out/sacctmgr_show_assoc.txt" 2>/dev/null || rm -f "$out/sacctmgr_show_assoc.txt"
    sacctmgr -P show qos >"$out/sacctmgr_show_qos.txt" 2>/dev/null || rm -f "$out/sacctmgr_show_qos.txt"
    sprio -o "$sprio_format" >"$out/sprio_factors.txt"
    # What mfprio must print the same.
    sprio >"$out/expected/sprio.txt"
    sprio -l >"$out/expected/sprio_l.txt"
    sprio -n >"$out/expected/sprio_n.txt"
    sprio -w >"$out/expected/sprio_w.txt"
    sprio -l -n >"$out/expected/sprio_l_n.txt"
    sprio -S u,-y >"$out/expected/sprio_S_u_y.txt"
    sprio -S u >"$out/expected/sprio_S_u.txt"
    sshare -a -l >"$out/expected/sshare_a_l.txt"
    sshare -a -l -P >"$out/expected/sshare_a_l_P.txt"
    sshare -A chem,theory -l >"$out/expected/sshare_A_chem_theory_l.txt"
    {
        echo "captured=$(date +%s)"
        echo "slurm_version=$(scontrol --version | awk '{print $2}')"
        echo "priority_calc_time=$((16#$pass))"
        echo "priority_flags=$(scontrol show config | awk -F' = ' '/^PriorityFlags/ {print $2}')"
        echo "slurm_conf_changed=$(stat -c %Y "$SLURM_CONF")"
    } >"$out/meta"
    python3 "$here/manifest.py" "$out"
    if [[ -n $mfprio ]]; then
        mkdir -p "$out/mfprio"
        "$mfprio" sprio --live >"$out/mfprio/sprio.txt"
        "$mfprio" sprio --live -l >"$out/mfprio/sprio_l.txt"
        "$mfprio" sprio --live -n >"$out/mfprio/sprio_n.txt"
        "$mfprio" sprio --live -w >"$out/mfprio/sprio_w.txt"
        "$mfprio" sprio --live -l -n >"$out/mfprio/sprio_l_n.txt"
        "$mfprio" sprio --live -S u,-y >"$out/mfprio/sprio_S_u_y.txt"
        "$mfprio" sprio --live -S u >"$out/mfprio/sprio_S_u.txt"
        "$mfprio" sshare --live -a -l >"$out/mfprio/sshare_a_l.txt"
        "$mfprio" sshare --live -a -l -P >"$out/mfprio/sshare_a_l_P.txt"
        "$mfprio" sshare --live -A chem,theory -l >"$out/mfprio/sshare_A_chem_theory_l.txt"
        "$mfprio" sprio --live --save "$out/saved" >/dev/null
    fi
    [[ $(last_pass) == "$pass" ]] || return 1
    # A job that changed meanwhile (the scheduler's first look after a restart, an accrue
    # time set) makes the outputs of different moments: the changed rows are shown.
    squeue -a -r -h -t all -O "$jobs_state" >"$dir/jobs_after"
    if ! cmp -s "$dir/jobs_before" "$dir/jobs_after"; then
        echo "capture.sh: jobs changed during the capture:" >&2
        diff "$dir/jobs_before" "$dir/jobs_after" >&2 || true
        return 1
    fi
    rm -f "$dir/jobs_before" "$dir/jobs_after"
}

for try in 1 2 3; do
    capture_once && exit 0
    echo "capture.sh: slurmctld recalculated or a job changed during the capture (try $try); again" >&2
done
echo "capture.sh: no capture within one recalculation period in three tries" >&2
exit 1
