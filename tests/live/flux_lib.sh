# Sourced by tests/live/flux.sh, flux_admin.sh, flux_plugin.sh and bench's Flux scripts inside
# a one-broker Flux instance: flux-accounting set up as an administrator does it, jobs submitted
# for other users, and the meta file and manifest of a bundle. Callers set `db` (the accounting
# database's path) and `here` (this directory) first. (eight_nodes runs before the instance.)

# Writes DIR/R.json and DIR/conf.d/instance.toml: an instance of eight 4-core nodes (ranks 1-7
# never come up: with scheduling stopped jobs only wait) and the queues batch, debug and
# urgent. Start it with `flux start --test-size=1 -o,--config-path=DIR/conf.d`.
eight_nodes() { # dir
    mkdir -p "$1/conf.d"
    cat >"$1/R.json" <<'EOF'
{"version": 1, "execution": {"R_lite": [{"rank": "0-7", "children": {"core": "0-3"}}], "starttime": 0, "expiration": 0, "nodelist": ["node[0-7]"]}}
EOF
    cat >"$1/conf.d/instance.toml" <<EOF
[resource]
noverify = true
path = "$1/R.json"
[queues.batch]
[queues.debug]
[queues.urgent]
EOF
}

# Creates the database, starts flux-accounting's service, loads its priority plugin in place
# of flux-core's and stops scheduling (no job runs: they stay pending).
accounting_start() {
    flux account -p "$db" create-db >/dev/null 2>&1
    flux account-service -p "$db" -t >/dev/null
    flux jobtap load -r .priority-default mf_priority.so
    flux queue stop --all >/dev/null
    flux queue enable --all >/dev/null
}

# Adds each line of standard input, `username userid bank shares`, as an association with
# access to QUEUES (the first bank of a user is its default) and room for LIMIT active jobs.
add_users() { # QUEUES LIMIT
    local name uid bank shares
    while read -r name uid bank shares; do
        flux account add-user --username="$name" --userid="$uid" --bank="$bank" --shares="$shares" \
            --queues="$1" --max-active-jobs="$2" --max-running-jobs="$2"
    done
}

# Usage as job-archive would have charged it (standard input: `username bank usage`), then
# fair-share from it.
usage() {
    local name bank u
    while read -r name bank u; do
        sqlite3 "$db" "UPDATE association_table SET job_usage=$u WHERE username='$name' AND bank='$bank';"
    done
    flux account-update-fshare -p "$db"
}

# The cluster of flux_admin.sh, flux_held.sh and bench/live_flux.sh: banks three levels deep
# (root > eng > ml, web; root > sci > bio, chem), queues batch, debug and urgent with
# priorities 1, 5 and 20, 13 users in 16 associations (alice in two banks, judy in three),
# room for 1000 active jobs each, and their usage and fair-share. No update is sent.
# Its associations as uid:bank, for the callers' workloads.
three_level_pairs=(5001:ml 5001:web 5002:ml 5003:web 5004:bio 5005:bio 5006:web 5007:chem 5008:ml 5009:chem
                   5010:chem 5010:ml 5010:bio 5011:web 5012:bio 5013:ml)
three_level_accounts() {
    flux account add-bank root 1
    flux account add-bank --parent-bank=root eng 3
    flux account add-bank --parent-bank=eng --priority=2 ml 2
    flux account add-bank --parent-bank=eng --priority=1 web 1
    flux account add-bank --parent-bank=root --priority=3 sci 2
    flux account add-bank --parent-bank=sci --priority=4 bio 1
    flux account add-bank --parent-bank=sci chem 1
    flux account add-queue batch --priority=1
    flux account add-queue debug --priority=5
    flux account add-queue urgent --priority=20
    add_users batch,debug,urgent 1000 <<'EOF'
alice 5001 ml 3
alice 5001 web 1
bob 5002 ml 1
carol 5003 web 2
dave 5004 bio 1
erin 5005 bio 4
frank 5006 web 1
grace 5007 chem 2
heidi 5008 ml 1
ivan 5009 chem 1
judy 5010 chem 1
judy 5010 ml 2
judy 5010 bio 1
mallory 5011 web 3
niaj 5012 bio 2
olivia 5013 ml 1
EOF
    usage <<'EOF'
alice ml 120
alice web 30
bob ml 400
carol web 55
dave bio 0
erin bio 260
frank web 9
grace chem 77
heidi ml 5
ivan chem 310
judy chem 40
judy ml 12
judy bio 600
mallory web 150
niaj bio 33
olivia ml 90
EOF
}

# Sends the database to the plugin (which recomputes every pending job) and notes when.
last_update=
update() {
    flux account-priority-update -p "$db"
    last_update=$(date +%s.%N)
}

# Submits a job for user `uid` under flux-core's unsigned "none" envelope (header, jobspec,
# "none"; only the instance owner may); prints its id. One jobspec per queue and bank, made
# once (flux run --dry-run is slow).
declare -A jobspecs
submit() { # uid bank queue urgency
    local key=$3/$2 header
    [[ -n ${jobspecs[$key]:-} ]] ||
        jobspecs[$key]=$(flux run --dry-run --env=-* -n1 --queue="$3" --setattr=system.bank="$2" true | base64 -w0)
    header=$(printf 'version\0i1\0userid\0i%s\0mechanism\0snone\0' "$1" | base64 -w0)
    printf '%s.%s.none' "$header" "${jobspecs[$key]}" | FLUX_HANDLE_USERID=$1 flux job submit --flags=signed --urgency="$4"
}

# Submits each line of standard input: uid bank queue urgency.
submit_all() {
    local uid bank queue urgency
    while read -r uid bank queue urgency; do
        submit "$uid" "$bank" "$queue" "$urgency" >/dev/null
    done
}

# What every bundle holds, written into DIR: the jobs (`flux jobs` in JSON, and the pending
# ones in the order it lists them) and, with flux-accounting's plugin loaded, what the plugin
# holds and the database's tables.
capture_tables() { # dir
    flux jobs -A -a -c 0 --json >"$1/flux_jobs.json"
    flux jobs -A -c 0 -n -o '{id.f58} {id.dec} {userid} {urgency} {priority} {state} {queue} {bank}' >"$1/flux_jobs.txt"
    flux jobtap list | grep -q '^mf_priority.so$' || return 0
    flux jobtap query mf_priority.so >"$1/jobtap_mf_priority.json"
    flux account list-factors --json >"$1/list_factors.json"
    flux account list-queues --json >"$1/list_queues.json"
    flux account list-banks --json >"$1/list_banks.json"
    flux account list-users --json >"$1/list_users.json"
}

# A bundle's meta file and manifest in DIR: when it was captured, the releases, what happened
# before it, when the plugin last received the database (priority_update) and the bundle
# captured before this one (previous: the plugin's state is the history of both). Then this
# bundle is the previous one of the next.
previous=
finish_bundle() { # dir description
    {
        printf 'captured=%s\n' "$(date +%s)"
        printf 'flux_core=%s\n' "$(flux version | sed -n 's/^commands:[[:space:]]*//p')"
        printf 'flux_accounting=%s\n' "$(flux account --version 2>/dev/null || echo 0.60.0)"
        printf 'scenario=%s\n' "$2"
        [[ -z $last_update ]] || printf 'priority_update=%s\n' "$last_update"
        [[ -z $previous ]] || printf 'previous=%s\n' "$previous"
    } >"$1/meta"
    python3 "$here/manifest.py" "$1"
    previous=$(basename "$1")
}

# A bundle (callers set `out`, `work` and `mfprio`): what Flux printed, the pending jobs' eventlogs and flux dmesg, a meta file and the
# manifest (finish_bundle chains the bundles). Then, with MFPRIO, `mfprio queue --live --check`
# against the instance as it is now.
capture_bundle() { # name description
    local d=$out/$1
    rm -rf "$d"
    mkdir -p "$d"
    capture_tables "$d"
    # Each pending job: the bank and queue it was submitted with (`flux job info --original
    # ID jobspec`) and its eventlog (`flux job eventlog ID`), read in one process.
    flux python -c '
import json, flux, flux.job, flux.constants as c
h = flux.Flux()
jobs = flux.job.job_list(h, max_entries=0, attrs=[], userid=c.FLUX_USERID_UNKNOWN, states=c.FLUX_JOB_STATE_PENDING).get_jobs()
for d in flux.job.JobKVSLookup(h, [j["id"] for j in jobs], keys=["eventlog", "jobspec"], original=True).data():
    events = [json.loads(l) for l in d["eventlog"].splitlines()]
    system = d["jobspec"].get("attributes", {}).get("system", {})
    print(json.dumps({"id": d["id"], "submitted": {k: system[k] for k in ("bank", "queue") if k in system},
                      "eventlog": [e for e in events if e["name"] in ("submit", "urgency", "jobspec-update", "memo")]},
                     separators=(",", ":")))
' >"$d/eventlogs.json"
    flux dmesg >"$d/flux_dmesg.txt"
    finish_bundle "$d" "$2"
    if [[ -n $mfprio ]]; then
        { "$mfprio" queue --live --check >"$work/live-$1.txt" 2>&1 || true; }
        printf 'live Flux: %s: queue --live: %s\n' "$1" "$(tail -1 "$work/live-$1.txt")" >>"$work/live-check.txt"
        same_as_commands "$1" "$d"
    fi
}

# What `mfprio queue --live --save` writes against what the commands it stands for print at the
# same moment (its capture program sends their requests itself and prints the answers, and
# prints the jobs table as `flux jobs -o` does): the jobs table against `flux jobs -A -c 0 -o`,
# flux-accounting's tables and the plugin's query against BUNDLE's (capture_tables ran the
# commands). One line in files-check.txt: "identical", or the files that differ.
same_as_commands() { # name bundle
    local saved=$work/saved-$1 f differ=()
    rm -rf "$saved"
    if ! "$mfprio" queue --live --save "$saved" --force >"$work/saved-$1.txt" 2>&1; then
        printf 'live Flux: %s: queue --live --save failed: %s\n' "$1" "$(tail -1 "$work/saved-$1.txt")" >>"$work/files-check.txt"
        return
    fi
    flux jobs -A -c 0 -o '{id.dec} {userid} {urgency} {priority} {state} {queue} {bank} {t_submit} {nnodes} {ncores} {duration}' \
        >"$work/table-$1.txt"
    cmp -s "$saved/flux_jobs_table.txt" "$work/table-$1.txt" || differ+=(flux_jobs_table.txt)
    for f in jobtap_mf_priority.json list_factors.json list_queues.json list_banks.json list_users.json; do
        [[ -f $2/$f || -f $saved/$f ]] || continue # (only with the plugin loaded)
        cmp -s "$saved/$f" "$2/$f" || differ+=("$f")
    done
    if ((${#differ[@]} == 0)); then
        printf 'live Flux: %s: queue --live --save: %s jobs, files identical to what the commands print\n' \
            "$1" "$(($(wc -l <"$saved/flux_jobs_table.txt") - 1))" >>"$work/files-check.txt"
    else
        printf 'live Flux: %s: queue --live --save: differ from what the commands print: %s\n' "$1" "${differ[*]}" \
            >>"$work/files-check.txt"
    fi
}

# Submits each line of standard input, `uid bank queue urgency nodes tasks`, for user uid
# under flux-core's unsigned "none" envelope (only the instance owner may), one handle per
# user, in one Python process. nodes 0: the jobspec names no nodes.
submit_sized() {
    flux python -c '
import base64, os, sys, flux, flux.job
from flux.job import JobspecV1
specs, handles, futures = {}, {}, []
for line in sys.stdin:
    uid, bank, queue, urgency, nodes, tasks = line.split()
    key = (bank, queue, nodes, tasks)
    if key not in specs:
        n = int(nodes)
        js = JobspecV1.from_command(["true"], num_tasks=int(tasks), num_nodes=n if n else None)
        js.setattr("system.queue", queue)
        js.setattr("system.bank", bank)
        specs[key] = base64.b64encode(js.dumps().encode()).decode()
    if uid not in handles:
        os.environ["FLUX_HANDLE_USERID"] = uid
        handles[uid] = flux.Flux()
    header = base64.b64encode(("version\0i1\0userid\0i%s\0mechanism\0snone\0" % uid).encode()).decode()
    futures.append(flux.job.submit_async(handles[uid], header + "." + specs[key] + ".none", urgency=int(urgency), pre_signed=True))
for f in futures:
    flux.job.submit_get_id(f)
'
}

# Writes FILE: the five-term policy of flux_plugin.sh and bench/flux_plugin/run.sh for
# mfprio_priority.so (age over two minutes, size against the instance, the queue's priority,
# fair-share, urgency).
five_term_policy() { # file
    cat >"$1" <<'EOF'
# age over two minutes, size against the instance, the queue's priority, fair-share, urgency
age = 40000
age.max_age = 2
jobsize = 20000
queue = 1000
fairshare = 100000
urgency = 500
EOF
}

# COUNT jobs for submit_sized from job number FIRST, over three_level_pairs: each association
# in one queue of its own (so that mf_priority.so's per-association queue factor is each job's
# queue), urgencies 0-31, sizes from one core to four whole nodes.
sized_workload() { # first count
    local i k queues=(batch debug urgent) sizes=("0 1" "0 3" "1 2" "2 8" "4 4" "0 6")
    for ((i = $1; i < $1 + $2; i++)); do
        k=$(((i * 5 + i / 16) % ${#three_level_pairs[@]}))
        printf '%s %s %s %d %s\n' "${three_level_pairs[$k]%%:*}" "${three_level_pairs[$k]#*:}" "${queues[$((k % 3))]}" \
            $(((i * 7) % 32)) "${sizes[$((i % ${#sizes[@]}))]}"
    done
}
