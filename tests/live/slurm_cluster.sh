#!/usr/bin/env bash
# A one-host Slurm cluster on localhost, for mfprio's live tests: MariaDB, munge, slurmdbd,
# slurmctld and one slurmd (node n1, which runs jobs), plus nodes that never come up (so
# that jobs sent to them stay pending) and a FUTURE node (h1, in partition big: `scontrol
# show node` leaves it out, slurmctld counts it). Everything lives under one directory: configuration,
# state, logs, sockets, pid files. Nothing listens beyond 127.0.0.1.
#
#   slurm_cluster.sh start DIR [NO_FAIR_TREE]   start every daemon; DIR/env holds what the
#                                               Slurm commands need (SLURM_CONF)
#   slurm_cluster.sh restart-ctld DIR [FLAGS]   rewrite PriorityFlags and restart slurmctld
#   slurm_cluster.sh stop-dbd DIR               stop slurmdbd only (slurmctld goes on alone)
#   slurm_cluster.sh stop DIR                   stop every daemon started under DIR, by PID
#   slurm_cluster.sh teardown DIR               stop, remove populate.sh's users, remove DIR:
#                                               what a test or benchmark does on exit
#
# Needs root and Debian's slurmctld slurmd slurmdbd slurm-client munge mariadb-server; with
# MFPRIO_SLURM_PREFIX (a Slurm release built from source with munge, its configure --prefix),
# that release's daemons and commands instead of Debian's (DIR/env puts them first in PATH).
# MFPRIO_MAX_JOB_COUNT sets MaxJobCount (default Slurm's 10000), for benchmarks with more jobs.
# MFPRIO_SITE_PLUGIN_DIR (a directory holding site_factor_mfprio.so) loads site_factor/mfprio
# with the policy DIR/etc/site.policy and its snapshot in DIR/state. MFPRIO_N1_GPU=1 gives n1
# one GPU (its device file /dev/null: always there, nothing opens it), so that GPU jobs run
# and GPU usage accrues.
#
# Usage does not decay (PriorityDecayHalfLife=0) unless MFPRIO_DECAY_HALF_LIFE sets one: it
# stays whole CPU-seconds, which sshare and assoc_mgr print exactly, so that the classic
# (NO_FAIR_TREE) factors can be recomputed to the bit. With decay, the classic factors depend
# on digits of usage that no Slurm command prints (site_factor/mfprio's snapshot has them);
# Fair Tree's do not (mfprio sprio --help, --fairshare).
set -euo pipefail

die() { printf 'slurm_cluster.sh: %s\n' "$*" >&2; exit 1; }

# A TCP port on 127.0.0.1 nothing listens on (bash's /dev/tcp connects when one does).
free_port() {
    local p
    for _ in $(seq 1 200); do
        p=$((20000 + RANDOM % 20000))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
            echo "$p"
            return
        fi
    done
    die "no free port found"
}

# wait_for SECONDS DESCRIPTION COMMAND...: runs COMMAND until it succeeds.
wait_for() {
    local seconds=$1 what=$2
    shift 2
    local end=$((SECONDS + seconds))
    until "$@" >/dev/null 2>&1; do
        ((SECONDS < end)) || { echo "timed out waiting for $what" >&2; return 1; }
        sleep 0.2
    done
}

write_slurm_conf() {
    local dir=$1 flags=$2
    # shellcheck disable=SC1091
    . "$dir/ports"
    cat >"$dir/etc/slurm.conf" <<CONF
ClusterName=mfprio
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/run/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/pgid
TaskPlugin=task/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
SlurmdTimeout=300
SlurmctldTimeout=300
MinJobAge=3600
MaxJobCount=${MFPRIO_MAX_JOB_COUNT:-10000}
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoragePort=$dbd_port
AccountingStoragePass=$dir/run/munge.socket
AccountingStorageEnforce=associations,limits,qos
AccountingStorageTRES=gres/gpu
GresTypes=gpu
PriorityType=priority/multifactor
PriorityFlags=$flags
PriorityCalcPeriod=1
PriorityDecayHalfLife=${MFPRIO_DECAY_HALF_LIFE:-0}
PriorityUsageResetPeriod=NONE
PriorityMaxAge=1-0
PriorityFavorSmall=NO
PriorityWeightAge=10000
PriorityWeightFairshare=50000
PriorityWeightJobSize=3000
PriorityWeightPartition=4000
PriorityWeightQOS=6000
PriorityWeightAssoc=500
PriorityWeightTRES=CPU=1000,Mem=2000,GRES/gpu=3000
NodeName=n1 NodeHostname=localhost NodeAddr=127.0.0.1 CPUs=2 RealMemory=1000${MFPRIO_N1_GPU:+ Gres=gpu:1} State=UNKNOWN
NodeName=f[1-4] NodeAddr=127.0.0.1,127.0.0.1,127.0.0.1,127.0.0.1 Port=$dead_port CPUs=16 RealMemory=64000 Gres=gpu:2 State=UNKNOWN
NodeName=h1 NodeAddr=127.0.0.1 Port=$dead_port CPUs=8 RealMemory=32000 State=FUTURE
PartitionName=debug Nodes=n1 Default=YES MaxTime=60 PriorityJobFactor=10 State=UP
PartitionName=big Nodes=f[1-4],h1 MaxTime=2-0 PriorityJobFactor=40 PriorityTier=2 State=UP
PartitionName=gpu Nodes=f[3-4] MaxTime=UNLIMITED PriorityJobFactor=25 State=UP
CONF
    # site_factor/mfprio when MFPRIO_SITE_PLUGIN_DIR holds site_factor_mfprio.so: the policy
    # is DIR/etc/site.policy (the caller writes it), the pass times go to DIR/state.
    if [[ -n ${MFPRIO_SITE_PLUGIN_DIR:-} ]]; then
        local plugins
        if [[ -n ${MFPRIO_SLURM_PREFIX:-} ]]; then
            plugins=$MFPRIO_SLURM_PREFIX/lib/slurm
        else
            plugins=$(dirname "$(dpkg -L slurm-wlm-basic-plugins 2>/dev/null | grep -m1 '/site_factor_none.so$' || echo /usr/lib/x86_64-linux-gnu/slurm-wlm/x.so)")
        fi
        cat >>"$dir/etc/slurm.conf" <<CONF
PluginDir=$plugins:$MFPRIO_SITE_PLUGIN_DIR
PrioritySiteFactorPlugin=site_factor/mfprio
PrioritySiteFactorParameters=policy=$dir/etc/site.policy,snapshot=$dir/state
CONF
    fi
    if [[ -n ${MFPRIO_N1_GPU:-} ]]; then
        echo "NodeName=n1 Name=gpu File=/dev/null" >"$dir/etc/gres.conf"
    else
        : >"$dir/etc/gres.conf"
    fi
    cp "$dir/etc/slurm.conf" "$dir/etc/slurm.conf.written"
}

# slurm_path: a Slurm built from source (MFPRIO_SLURM_PREFIX, its configure --prefix) first
# in PATH, for the daemons and the commands.
slurm_path() {
    if [[ -n ${MFPRIO_SLURM_PREFIX:-} ]]; then
        [[ -x $MFPRIO_SLURM_PREFIX/sbin/slurmctld ]] || die "no slurmctld in $MFPRIO_SLURM_PREFIX/sbin"
        export PATH=$MFPRIO_SLURM_PREFIX/sbin:$MFPRIO_SLURM_PREFIX/bin:$PATH
    fi
}

cmd_start() {
    local dir=$1 flags=${2:-FAIR_TREE}
    ((EUID == 0)) || die "must run as root (the daemons run as root and jobs as test users)"
    slurm_path
    for b in mariadb-install-db mariadbd munged slurmdbd slurmctld slurmd sacctmgr; do
        command -v "$b" >/dev/null || die "$b not found"
    done
    mkdir -p "$dir"/{etc,state,spool,log,run,db,munge}
    # Jobs run as the test users: they must reach the spool directory (the batch script).
    chmod 755 "$dir" "$dir/spool"
    chmod 700 "$dir/munge" "$dir/run"
    {
        echo "ctld_port=$(free_port)"
        echo "slurmd_port=$(free_port)"
        echo "dbd_port=$(free_port)"
        echo "db_port=$(free_port)"
        echo "dead_port=$(free_port)"
    } >"$dir/ports"
    # shellcheck disable=SC1091
    . "$dir/ports"

    # munge, with its own key and socket
    dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
    chmod 400 "$dir/munge/munge.key"
    munged -f --socket="$dir/run/munge.socket" --key-file="$dir/munge/munge.key" \
        --pid-file="$dir/run/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/seed"
    wait_for 20 munged test -S "$dir/run/munge.socket"

    # MariaDB on 127.0.0.1 only, its own data directory
    mariadb-install-db --no-defaults --user=root --datadir="$dir/db" --auth-root-authentication-method=normal \
        --skip-test-db >"$dir/log/mariadb-install.log" 2>&1
    mariadbd --no-defaults --user=root --datadir="$dir/db" --bind-address=127.0.0.1 --port="$db_port" \
        --socket="$dir/run/mysql.sock" --pid-file="$dir/run/mariadbd.pid" --log-error="$dir/log/mariadb.log" \
        --skip-name-resolve --innodb-buffer-pool-size=128M --innodb-lock-wait-timeout=900 >/dev/null 2>&1 &
    wait_for 60 mariadbd mariadb --no-defaults --socket="$dir/run/mysql.sock" -uroot -e 'select 1'
    mariadb --no-defaults --socket="$dir/run/mysql.sock" -uroot -e \
        "CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY 'mfprio'; GRANT ALL ON *.* TO 'slurm'@'127.0.0.1'; FLUSH PRIVILEGES;"

    write_slurm_conf "$dir" "$flags"
    cat >"$dir/etc/slurmdbd.conf" <<CONF
AuthType=auth/munge
AuthInfo=socket=$dir/run/munge.socket
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=$dbd_port
SlurmUser=root
LogFile=$dir/log/slurmdbd.log
PidFile=$dir/run/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$db_port
StorageUser=slurm
StoragePass=mfprio
StorageLoc=slurm_acct_db
CONF
    chmod 600 "$dir/etc/slurmdbd.conf"
    echo "export SLURM_CONF=$dir/etc/slurm.conf" >"$dir/env"
    export SLURM_CONF=$dir/etc/slurm.conf
    if [[ -n ${MFPRIO_SLURM_PREFIX:-} ]]; then
        echo "export PATH=$MFPRIO_SLURM_PREFIX/sbin:$MFPRIO_SLURM_PREFIX/bin:\$PATH" >>"$dir/env"
    fi

    slurmdbd
    wait_for 60 slurmdbd sacctmgr -i show cluster
    sacctmgr -i add cluster mfprio >/dev/null
    slurmctld -i
    wait_for 60 slurmctld scontrol ping
    slurmd -N n1
    wait_for 60 "node n1" sh -c "sinfo -h -n n1 -o %t | grep -qE '^(idle|mix|alloc)'"
}

cmd_restart_ctld() {
    local dir=$1 flags=$2
    slurm_path
    export SLURM_CONF=$dir/etc/slurm.conf
    stop_pid "$dir/run/slurmctld.pid"
    sed -i "s/^PriorityFlags=.*/PriorityFlags=$flags/" "$dir/etc/slurm.conf"
    slurmctld
    wait_for 60 slurmctld scontrol ping
}

# stop_pid FILE: TERM the process whose PID FILE holds, wait for it, KILL after 20 s.
stop_pid() {
    local f=$1 pid
    [[ -f $f ]] || return 0
    pid=$(cat "$f")
    [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null || { rm -f "$f"; return 0; }
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do
        kill -0 "$pid" 2>/dev/null || { rm -f "$f"; return 0; }
        sleep 0.2
    done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$f"
}

cmd_stop() {
    local dir=$1 pid parent
    [[ -d $dir ]] || return 0
    # Jobs still running on n1: their batch scripts run from the node's spool directory; the
    # slurmstepd above each one outlives slurmd. Stop both.
    for pid in $(pgrep -f "$dir/spool/" || true); do
        parent=$(ps -o ppid= -p "$pid" | tr -d ' ' || true)
        kill -KILL "$pid" 2>/dev/null || true
        if [[ -n $parent && $(ps -o comm= -p "$parent" 2>/dev/null) == slurmstepd ]]; then
            kill -KILL "$parent" 2>/dev/null || true
        fi
    done
    stop_pid "$dir/run/slurmd-n1.pid"
    stop_pid "$dir/run/slurmctld.pid"
    stop_pid "$dir/run/slurmdbd.pid"
    stop_pid "$dir/run/mariadbd.pid"
    stop_pid "$dir/run/munged.pid"
}

cmd_teardown() {
    local dir=$1
    cmd_stop "$dir" || true
    bash "$(dirname "${BASH_SOURCE[0]}")/populate.sh" remove-users || true
    [[ -z $dir ]] || rm -rf "$dir"
}

case ${1:-} in
    start) cmd_start "$2" "${3:-FAIR_TREE}" ;;
    restart-ctld) cmd_restart_ctld "$2" "$3" ;;
    stop-dbd) stop_pid "$2/run/slurmdbd.pid" ;;
    stop) cmd_stop "$2" ;;
    teardown) cmd_teardown "$2" ;;
    *) die "usage: slurm_cluster.sh start|restart-ctld|stop-dbd|stop|teardown DIR [FLAGS]" ;;
esac
