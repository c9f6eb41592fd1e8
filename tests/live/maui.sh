#!/usr/bin/env bash
# Runs Maui 3.3 in its simulation mode (no resource manager: the cluster comes from a resource
# trace, the jobs from a workload trace) on scenarios, and captures what its clients printed:
#
#   service   SERV (queue time, XFACTOR with XFMINWCLIMIT and QOS QTWEIGHT/XFWEIGHT), CRED
#             with negative and DEFAULT priorities, a group CLASSWEIGHT, QOSWEIGHT -1, RES
#             (node, proc, memory, PE, walltime) with RESCAP, a negative SPVIOLATIONWEIGHT
#   fairshare FSPOLICY DEDICATEDPS over three 10-minute windows with FSDECAY 0.5, user, group,
#             account, QOS and class targets (plain, ceiling, floor), a negative FSGROUPWEIGHT,
#             FSCLASSWEIGHT, FSCAP; jobs run and finish so the windows fill
#   system    FSPOLICY DEDICATEDPES%, QOS QTTARGET and XFTARGET, negative sums floored,
#             system priorities set with `setspri` (absolute and relative), captured right
#             after the setspri and one iteration later
#
# The simulator keeps three jobs waiting (its default CONSTANTJOBDEPTH policy with
# SIMINITIALQUEUEDEPTH 3): it loads the workload's first three jobs at the start, the clock set
# to the last of their submission times, and the next job whenever fewer than three wait, with
# the clock's time as its submission time. The simulated time is the same on every run.
#
# Each capture is a directory: maui.cfg, resources.trace, workload.trace, fs/ (the FS.<epoch>
# files Maui wrote at the start of the next iteration, which hold the usage this one used),
# and what `diagnose -p`, `showq`, `checkjob -v` (every job, one after another) and
# `showstats -v` printed, as diagnose.txt, showq.txt, checkjob.txt and showstats.txt.
#
#   maui.sh OUT [MFPRIO]   captures in OUT/<scenario>-<step>; with MFPRIO (the mfprio tool),
#                          each is replayed with `mfprio diagnose --check` (diagnose -p byte
#                          for byte, every idle job's StartPriority): exit 1 on a difference
#
# Needs a Maui 3.3 build: MFPRIO_MAUI names its bin directory (maui, diagnose, showq,
# checkjob, showstats, schedctl, setspri). None is packaged; tests/README.md ("A real Maui") says
# how to build TempleHPC/maui-scheduler. Skipped (exit 77) without one, or without root to
# make a network namespace: Maui runs in `unshare -n` with only loopback, so it listens on
# 127.0.0.1 and nothing else can reach it. Times are simulated (the clock starts at the
# workload's last submission and moves RMPOLLINTERVAL per iteration); about a minute.
set -euo pipefail

skip() { printf 'live Maui: skipped: %s\n' "$*"; exit 77; }

if [[ ${1:-} != inner ]]; then
    out=${1:?usage: maui.sh OUT [MFPRIO]}
    mfprio=${2:-}
    [[ -z $mfprio ]] || mfprio=$(cd "$(dirname "$mfprio")" && pwd)/$(basename "$mfprio")
    bin=${MFPRIO_MAUI:-}
    [[ -n $bin ]] || skip "MFPRIO_MAUI does not name a Maui 3.3 build"
    for c in maui diagnose showq checkjob showstats schedctl setspri; do
        [[ -x $bin/$c ]] || skip "$bin/$c is missing"
    done
    [[ $(id -u) == 0 ]] || skip "a network namespace needs root (unshare -n)"
    command -v unshare >/dev/null || skip "unshare is not installed"
    mkdir -p "$out"
    out=$(cd "$out" && pwd)
    bin=$(cd "$bin" && pwd)
    status=0
    for scenario in ${MFPRIO_MAUI_SCENARIOS:-service fairshare system}; do
        work=$(mktemp -d "${TMPDIR:-/tmp}/mfprio-maui.XXXXXX")
        TZ=UTC timeout 300 unshare -n bash "${BASH_SOURCE[0]}" inner "$scenario" "$out" "$work" "$bin" ||
            { echo "live Maui: $scenario: the simulation failed"; tail -20 "$work/maui.log" || true; status=1; }
        rm -rf "$work"
    done
    [[ -n $mfprio ]] || exit $status
    for d in "$out"/*/; do
        name=$(basename "$d")
        if "$mfprio" diagnose --from "$d" --check >"$out/../check-$name.txt" 2>&1; then
            printf 'live Maui: %s: %s\n' "$name" "$(tail -1 "$out/../check-$name.txt")"
        else
            printf 'live Maui: %s: DIFFERS\n' "$name"
            cat "$out/../check-$name.txt"
            status=1
        fi
    done
    exit $status
fi

# Inside the network namespace.
scenario=$2
out=$3
work=$4
bin=$5
ip link set lo up
export MAUIHOMEDIR=$work MAUICKTEST=1
cd "$work"
mkdir -p stats spool log traces

# A workload trace line (version 230, 44 fields): job ID, nodes, tasks, user, group, WCLimit
# (s), class, submission time, run time (s), QOS, account, processors per task, memory per
# task (MB).
job() {
    local id=$1 nodes=$2 tasks=$3 user=$4 group=$5 wclimit=$6 class=$7 submit=$8 run=$9
    local qos=${10} account=${11} dprocs=${12} dmem=${13}
    printf '%s %s %s %s %s %s Completed [%s:1] %s %s %s %s [NONE] [NONE] [NONE] >= 0 >= 0 [NONE] %s %s -1 %s [NONE] %s job%s [NONE] 0 0 [DEFAULT] %s %s 0 0 0 0 [NONE] 0 [NONE] [NONE] [NONE] [NONE] [NONE]\n' \
        "$id" "$nodes" "$tasks" "$user" "$group" "$wclimit" "$class" "$submit" "$submit" "$submit" \
        "$((submit + run))" 0 "$tasks" "$qos" "$account" "$id" "$dprocs" "$dmem"
}
node() {
    printf 'COMPUTENODE AVAILABLE 0 %s [NONE] 16384 %s 100000 %s -1 -1 1 LINUX X86 [NONE] [batch:%s][debug:%s] [NONE] [NONE] [NONE] [NONE] [NONE]\n' \
        "$1" "$2" "$3" "$3" "$3"
}

common() {
    cat <<'EOF'
# Simulation: no resource manager, the cluster and the jobs from traces, on loopback.
SERVERHOST            127.0.0.1
SERVERPORT            42559
SERVERMODE            SIMULATION
ADMIN1                root
RMPOLLINTERVAL        00:01:00
CHECKPOINTINTERVAL    00:00:30
SIMRESOURCETRACEFILE  traces/resources.trace
SIMWORKLOADTRACEFILE  traces/workload.trace
SIMINITIALQUEUEDEPTH  3
SIMSTOPITERATION      1
LOGFILE               maui.log
LOGLEVEL              2
EOF
}

captures=()
case $scenario in
service)
    { common; cat <<'EOF'

# Priority
QUEUETIMEWEIGHT       2
XFACTORWEIGHT         40
SPVIOLATIONWEIGHT     -50
BYPASSWEIGHT          3
CREDWEIGHT            2
USERWEIGHT            1
GROUPWEIGHT           1
ACCOUNTWEIGHT         1
QOSWEIGHT             -1
CLASSWEIGHT           2
RESWEIGHT             1
NODEWEIGHT            20
PROCWEIGHT            5
MEMWEIGHT             1
PEWEIGHT              7
WALLTIMEWEIGHT        1
RESCAP                9000
XFMINWCLIMIT          00:15:00

USERCFG[DEFAULT]      PRIORITY=15
USERCFG[alice]        PRIORITY=300
USERCFG[bob]          PRIORITY=-200
GROUPCFG[staff]       PRIORITY=100
GROUPCFG[guests]      PRIORITY=-50 CLASSWEIGHT=3
ACCOUNTCFG[DEFAULT]   PRIORITY=4
ACCOUNTCFG[chem]      PRIORITY=40
QOSCFG[high]          PRIORITY=1000 QTWEIGHT=5 XFWEIGHT=20
QOSCFG[DEFAULT]       PRIORITY=10
CLASSCFG[batch]       PRIORITY=1
CLASSCFG[debug]       PRIORITY=60
USERCFG[carol]        QDEF=high QLIST=high
USERCFG[alice]        QDEF=high QLIST=high
EOF
    } >maui.cfg
    { node node01 8192 4; node node02 8192 4; } >traces/resources.trace
    t=1000000
    { echo "VERSION 230"
      job 100 2 8 dave guests 7200 batch $t 7000 high phys 1 1000
      job 101 1 2 bob staff 3600 batch $((t + 60)) 600 high phys 1 100
      job 102 1 4 carol guests 1800 debug $((t + 120)) 600 high chem 1 2048
      job 103 1 1 alice staff 600 batch $((t + 180)) 300 high chem 2 0
      job 104 2 6 erin guests 36000 batch $((t + 240)) 600 '[NONE]' '[NONE]' 1 500
      job 105 1 3 alice staff 120 debug $((t + 300)) 100 '[NONE]' bio 1 0
      job 106 1 1 bob guests 7200 debug $((t + 360)) 100 high chem 4 4096
    } >traces/workload.trace
    captures=(3 9)
    ;;
fairshare)
    { common; cat <<'EOF'

# Priority
QUEUETIMEWEIGHT       1
CREDWEIGHT            1
USERWEIGHT            1
FSWEIGHT              2
FSUSERWEIGHT          10
FSGROUPWEIGHT         -4
FSACCOUNTWEIGHT       3
FSQOSWEIGHT           2
FSCLASSWEIGHT         5
FSCAP                 400
FSPOLICY              DEDICATEDPS
FSINTERVAL            00:10:00
FSDEPTH               3
FSDECAY               0.5

USERCFG[DEFAULT]      FSTARGET=20
USERCFG[alice]        FSTARGET=50 PRIORITY=5
USERCFG[bob]          FSTARGET=10-
USERCFG[carol]        FSTARGET=30+
GROUPCFG[staff]       FSTARGET=60
GROUPCFG[guests]      FSTARGET=25-
ACCOUNTCFG[chem]      FSTARGET=40+
ACCOUNTCFG[phys]      FSTARGET=35
QOSCFG[normal]        FSTARGET=5
QOSCFG[high]          FSTARGET=70-
CLASSCFG[batch]       FSTARGET=80
CLASSCFG[debug]       FSTARGET=15+
USERCFG[carol]        QDEF=high QLIST=high
USERCFG[alice]        QDEF=high QLIST=high
EOF
    } >maui.cfg
    { node node01 8192 4; node node02 8192 4; } >traces/resources.trace
    t=1000000
    { echo "VERSION 230"
      # Short jobs that run and finish over the first half hour, then a backlog.
      job 200 1 4 alice staff 900 batch $t 700 high chem 1 0
      job 201 1 2 bob staff 900 batch $t 500 '[NONE]' phys 1 0
      job 202 1 2 carol guests 900 debug $t 800 high chem 1 0
      job 203 1 4 dave guests 1800 batch $((t + 600)) 900 '[NONE]' phys 1 0
      job 204 1 4 alice staff 1800 debug $((t + 900)) 600 high '[NONE]' 1 0
      job 205 1 2 bob guests 1800 batch $((t + 1200)) 600 '[NONE]' chem 1 0
      job 206 2 8 carol guests 36000 batch $((t + 1500)) 30000 high chem 1 0
      job 207 1 2 alice staff 3600 batch $((t + 1560)) 600 high chem 1 0
      job 208 1 4 bob staff 3600 debug $((t + 1560)) 600 '[NONE]' phys 1 0
      job 209 1 1 dave guests 600 batch $((t + 1620)) 300 '[NONE]' '[NONE]' 1 0
      job 210 1 2 carol guests 1200 debug $((t + 1620)) 300 high chem 1 0
    } >traces/workload.trace
    captures=(20 32)
    ;;
system)
    { common; cat <<'EOF'

# Priority
QUEUETIMEWEIGHT       1
XFACTORWEIGHT         10
TARGETWEIGHT          1
TARGETQUEUETIMEWEIGHT 1
TARGETXFACTORWEIGHT   2
CREDWEIGHT            1
USERWEIGHT            1
QOSWEIGHT             1
FSWEIGHT              1
FSUSERWEIGHT          20
FSPOLICY              DEDICATEDPES%
FSINTERVAL            00:20:00
FSDEPTH               2
FSDECAY               0.8
RESWEIGHT             1
PEWEIGHT              -3

USERCFG[alice]        PRIORITY=50 FSTARGET=40
USERCFG[bob]          PRIORITY=-900 FSTARGET=30
USERCFG[carol]        FSTARGET=20
QOSCFG[fast]          PRIORITY=200 XFTARGET=6 QTTARGET=2:00:00
QOSCFG[slow]          PRIORITY=-100 XFTARGET=2.5
USERCFG[alice]        QDEF=fast QLIST=fast,slow
USERCFG[bob]          QDEF=slow QLIST=slow
USERCFG[carol]        QDEF=fast QLIST=fast
EOF
    } >maui.cfg
    { node node01 8192 4; node node02 16384 4; } >traces/resources.trace
    t=1000000
    { echo "VERSION 230"
      job 300 1 4 alice staff 1800 batch $t 1200 fast chem 1 2048
      job 301 1 4 bob staff 3600 batch $t 3000 slow phys 1 8192
      job 302 1 2 carol guests 3600 batch $((t + 60)) 600 fast chem 1 0
      job 303 1 1 bob staff 600 batch $((t + 120)) 300 slow phys 1 0
      job 304 1 3 alice staff 7200 batch $((t + 180)) 600 fast chem 1 6000
      job 305 1 2 carol guests 900 batch $((t + 240)) 300 fast chem 2 0
      job 306 1 1 dave guests 1800 batch $((t + 300)) 300 '[NONE]' '[NONE]' 1 0
    } >traces/workload.trace
    captures=(6 setspri 8)
    ;;
esac

"$bin/maui" >maui.out 2>&1 &
for _ in $(seq 100); do "$bin/showq" >/dev/null 2>&1 && break; sleep 0.2; done
"$bin/showq" >/dev/null 2>&1 || { echo "Maui did not start"; cat maui.out; exit 1; }

iteration() { "$bin/showstats" -v | sed -n 's/^statistics for iteration *\([0-9]*\) .*/\1/p'; }
step_to() {
    local target=$1
    while (( $(iteration) < target )); do
        "$bin/schedctl" -S >/dev/null
        for _ in $(seq 100); do (( $(iteration) > ${now_at:-0} )) && break; sleep 0.05; done
        now_at=$(iteration)
    done
}
capture() {
    local dir=$out/$scenario-$1
    rm -rf "$dir"
    mkdir -p "$dir"
    cp maui.cfg "$dir/maui.cfg"
    cp traces/resources.trace "$dir/resources.trace"
    cp traces/workload.trace "$dir/workload.trace"
    "$bin/diagnose" -p >"$dir/diagnose.txt"
    "$bin/showq" >"$dir/showq.txt"
    "$bin/showstats" -v >"$dir/showstats.txt"
    : >"$dir/checkjob.txt"
    for j in $("$bin/showq" | awk '$3 ~ /^(Idle|Running|Starting)$/ {print $1}'); do
        "$bin/checkjob" -v "$j" >>"$dir/checkjob.txt"
    done
    pending_fs=$dir
}
# The FS files that hold a capture's usage are written at the start of the next iteration.
take_fs() {
    [[ -n ${pending_fs:-} ]] || return 0
    sleep 1
    mkdir -p "$pending_fs/fs"
    cp stats/FS.* "$pending_fs/fs/" 2>/dev/null || true
    pending_fs=
}

now_at=$(iteration)
for c in "${captures[@]}"; do
    if [[ $c == setspri ]]; then
        # Absolute and relative system priorities, taken without an iteration in between.
        "$bin/setspri" 500 301 >/dev/null
        "$bin/setspri" -r 100 305 >/dev/null
        capture "$(iteration)s"
        continue
    fi
    step_to "$c"
    take_fs
    capture "$c"
    step_to $((c + 1))
    take_fs
done
"$bin/schedctl" -k >/dev/null 2>&1 || true
wait
