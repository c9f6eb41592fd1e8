#!/usr/bin/env bash
# Fills the cluster of slurm_cluster.sh with accounts, users (Unix and sacctmgr), shares,
# QOS and association priorities (among them a user in two sub-accounts, one of Fairshare=1
# with an association Priority, siblings in both, and FairShare=parent users); runs short jobs on n1 as those users so that they have
# usage; then submits pending jobs to the partitions whose nodes never come up, one for every
# factor and case: several partitions, nice, held, dependent, an array, QOS, GPUs, memory.
#
#   populate.sh DIR     (SLURM_CONF from DIR/env)
#
# The Unix users are mfprio-* (no home, no login shell); `populate.sh remove-users` removes
# them. Then, as an administrator would: a task of the array split off by an update
# (`scontrol update jobid=A_2 nice=30`), and a priority set by hand
# (`scontrol update jobid=N priority=77777`) on a single-partition and a multi-partition job.
#
#   populate.sh submit-more DIR   submits six more pending jobs of different kinds (one
#                                 partition; two partitions and a QOS; GPUs with nice; an
#                                 array; more CPUs than a node without -N; a GPU job in a
#                                 partition with GPUs and one without), for captures of a busy
#                                 cluster
#   populate.sh submit-many DIR N submits N pending jobs over the five users, six associations,
#                                 three partitions (one job in three on two) and three QOS,
#                                 four sbatch at a time, for benchmarks
set -euo pipefail

users=(alice bob carol dave erin)

if [[ ${1:-} == remove-users ]]; then
    for u in "${users[@]}"; do
        id "mfprio-$u" >/dev/null 2>&1 && userdel "mfprio-$u" >/dev/null 2>&1 || true
    done
    exit 0
fi

# sub USER SBATCH-OPTIONS...: a pending job (its partitions' nodes never answer).
sub() { sbatch --uid="mfprio-$1" --chdir=/tmp -o /dev/null -e /dev/null --parsable "${@:2}" --wrap "true"; }

if [[ ${1:-} == submit-more ]]; then
    # shellcheck disable=SC1091
    . "$2/env"
    ids=$(sub carol -A physics -p big -N 1 -n 6 --mem=1500 -t 90)
    ids+=,$(sub alice -A chem -p big,gpu -N 1 -n 3 -t 20 --qos=high)
    ids+=,$(sub erin -A theory -p gpu -N 1 -n 2 --gres=gpu:1 -t 40 --nice=25)
    ids+=,$(sub bob -A chem -p big -N 1 -n 1 --mem=200 -t 15 --array=1-2)
    # More CPUs than a node has, without -N: its job size reads the one node it asked for,
    # squeue's NumNodes the scheduler's estimate.
    ids+=,$(sub dave -A theory -p big -n 24 -t 50)
    # A GPU job in two partitions, the first with GPUs, the second (debug) without.
    ids+=,$(sub erin -A theory -p gpu,debug -n 1 --gres=gpu:1 -t 30)
    # An array gets its eligible time from the scheduler's next look at it, not at submission;
    # until then sprio does not list it. Wait for that (seconds), so that sprio and what is
    # captured after it see the same jobs.
    for _ in $(seq 1 100); do
        squeue -h -r -j "$ids" -O "EligibleTime" | grep -q "N/A" || break
        sleep 0.2
    done
    exit 0
fi

if [[ ${1:-} == submit-many ]]; then
    # shellcheck disable=SC1091
    . "$2/env"
    ua=(alice:chem bob:chem carol:physics dave:theory erin:theory alice:physics)
    parts=(big gpu big,gpu)
    qos=(normal high low)
    for ((i = 0; i < $3; i++)); do
        u=${ua[i % 6]}
        printf '%s %s %s %s %s %s\n' "${u%%:*}" "${u#*:}" "${parts[i % 3]}" "${qos[(i / 3) % 3]}" $((1 + i % 16)) $((5 + i % 600))
    done | xargs -P 4 -L 1 sh -c 'sbatch --uid="mfprio-$0" -A "$1" -p "$2" --qos="$3" -n "$4" -t "$5" \
            --chdir=/tmp -o /dev/null -e /dev/null --wrap true >/dev/null'
    exit 0
fi

dir=$1
# shellcheck disable=SC1091
. "$dir/env"

for u in "${users[@]}"; do
    id "mfprio-$u" >/dev/null 2>&1 || useradd -M -N -s /usr/sbin/nologin "mfprio-$u"
done

sa() { sacctmgr -i "$@" >/dev/null; }
sa add qos high Priority=100
sa add qos low Priority=10
sa modify qos normal set Priority=0
sa add account chem Parent=root Fairshare=40
sa add account physics Parent=root Fairshare=60
sa add account theory Parent=physics Fairshare=30
sa add user mfprio-alice Account=chem Fairshare=10 QOS=normal,high,low
sa add user mfprio-bob Account=chem Fairshare=30 QOS=normal,high,low
sa add user mfprio-carol Account=physics Fairshare=20 QOS=normal,high,low
sa add user mfprio-dave Account=theory Fairshare=5 QOS=normal,high,low
sa add user mfprio-erin Account=theory Fairshare=parent QOS=normal,high,low
sa add user mfprio-alice Account=physics Fairshare=7 QOS=normal,high,low
sa modify account where name=chem set Priority=20
sa modify user where name=mfprio-bob set Priority=50
# A user in two sub-accounts of physics (theory, and bio: Fairshare=1 with an association
# Priority), with siblings in both, and a FairShare=parent user elsewhere (bob in physics).
sa add account bio Parent=physics Fairshare=1
sa modify account where name=bio set Priority=30
sa add user mfprio-alice Account=theory Fairshare=3 QOS=normal,high,low
sa add user mfprio-alice Account=bio Fairshare=4 QOS=normal,high,low
sa add user mfprio-carol Account=bio Fairshare=2 QOS=normal,high,low
sa add user mfprio-bob Account=physics Fairshare=parent QOS=normal,high,low
# slurmctld learns of the new associations from slurmdbd; wait until it has them.
for _ in $(seq 1 100); do
    scontrol show assoc_mgr users=mfprio-bob accounts=physics flags=assoc 2>/dev/null | grep -q "UserName=mfprio-bob" && break
    sleep 0.2
done

# Usage: short jobs on n1, different CPU counts and lengths, as each user.
run() { sbatch --uid="mfprio-$1" --chdir=/tmp -o /dev/null -e /dev/null -p debug -A "$2" -n "$3" --mem=100 -t 5 --parsable --wrap "sleep $4"; }
run alice chem 2 4 >/dev/null
run bob chem 1 2 >/dev/null
run carol physics 2 3 >/dev/null
run dave theory 1 6 >/dev/null
run erin theory 1 2 >/dev/null
run alice physics 1 1 >/dev/null
run alice theory 1 3 >/dev/null
run alice bio 2 2 >/dev/null
run carol bio 1 5 >/dev/null
run bob physics 1 3 >/dev/null
for _ in $(seq 1 300); do
    [[ -z $(squeue -h -p debug -o %i) ]] && break
    sleep 0.2
done

# Pending jobs on partitions whose nodes never answer.
first=$(sub alice -A chem -p big -N 1 -n 4 --mem=2000 -t 60)
sub bob -A chem -p big -N 2 -n 32 --mem=8000 -t 1-0 --qos=high >/dev/null
sub carol -A physics -p gpu -N 1 -n 8 --gres=gpu:2 --mem=16G -t 120 >/dev/null
sub dave -A theory -p big,gpu -N 1 -n 2 --mem=1000 -t 30 >/dev/null
sub erin -A theory -p big -N 1 -n 1 --mem=500 -t 10 --nice=100 >/dev/null
sub alice -A physics -p gpu -N 1 -n 16 --gres=gpu:1 -t 300 --qos=low >/dev/null
sub bob -A chem -p big -N 4 -n 64 -t 2-0 --hold >/dev/null
sub carol -A physics -p big -N 1 -n 1 -t 5 --dependency=afterok:"$first" >/dev/null
array=$(sub dave -A theory -p big -N 1 -n 3 --mem=3000 -t 45 --array=1-3)
sub erin -A theory -p gpu -N 2 -n 4 --gres=gpu:1 -t 90 --qos=high >/dev/null
sub alice -A chem -p big,gpu -N 1 -n 12 --mem=12000 -t 600 --qos=high >/dev/null
sub bob -A chem -p big -N 1 -n 1 --mem=1 -t 1 --qos=low >/dev/null
sub carol -A physics -p big --exclusive -N 3 -t 240 >/dev/null
sub dave -A theory -p gpu -N 1 -n 1 --gres=gpu:2 -t 15 --nice=-50 >/dev/null
sub alice -A theory -p big -N 1 -n 2 -t 20 >/dev/null
sub alice -A bio -p big -N 1 -n 4 -t 25 >/dev/null
sub carol -A bio -p gpu -N 1 -n 1 -t 35 >/dev/null
sub bob -A physics -p big -N 1 -n 2 -t 15 >/dev/null
# More CPUs than a node has, without -N (squeue's NumNodes: an estimate; job size: 1 node).
sub carol -A physics -p big -n 40 -t 30 >/dev/null
sub alice -A chem -p big,gpu -n 20 -t 45 >/dev/null

# An administrator at work: a task split off from the array by an update, and priorities set
# by hand on a single-partition job (bob's, chem/big) and a multi-partition one (alice's).
scontrol update jobid="${array}_2" nice=30
set_by_hand=$(squeue -h -u mfprio-bob -p big -t PD -o "%i %P" | awk '$2 == "big" {print $1; exit}')
scontrol update jobid="$set_by_hand" priority=77777
multi=$(squeue -h -u mfprio-alice -t PD -o "%i %P" | awk '$2 == "big,gpu" {print $1; exit}')
scontrol update jobid="$multi" priority=55555
