#!/bin/bash
# bale on a real Slurm cluster of one machine: munged, slurmctld and
# slurmd (Debian's slurm-wlm and munge, which scripts/deps --test
# installs) started here with a generated slurm.conf, state under the
# test's folder. scripts/slurm/submit.sh queues an array of 4 parts and
# the merge after it (afterok); the merged output (wds, lmdb, hdf5) must
# equal a single run's, each task's threads must follow the CPUs Slurm
# gave it, and a second submission must find every part complete. The
# daemons started are stopped by pid. Skips (77) only where they cannot
# start.
. "$TESTS/cli/lib.sh"
for f in wds lmdb hdf5; do require_backend "$f"; done
skip() { echo "skipped: $*"; exit 77; }
for c in munged slurmctld slurmd sbatch squeue scontrol sinfo; do
    command -v "$c" >/dev/null || skip "no $c (install slurm-wlm and munge)"
done
[ "$(id -u)" -eq 0 ] || skip "slurmd must run as root here"

S=$T/slurm
mkdir -p "$S/munge" "$S/state" "$S/spool" "$S/log"
chmod 711 "$S/munge"    # the socket must be reachable, the key not
head -c 1024 /dev/urandom >"$S/munge/key"
chmod 400 "$S/munge/key"
pids=()
stop_daemons() {
    local p
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap 'stop_daemons; chmod -R u+rwx "$T" 2>/dev/null; rm -rf "$T"' EXIT
logs() { tail -n 20 "$S"/log/* >&2 || true; }

munged -F -f --socket="$S/munge/sock" --key-file="$S/munge/key" \
    --pid-file="$S/munge/pid" --seed-file="$S/munge/seed" \
    --log-file="$S/log/munged.log" 2>"$S/log/munged.err" &
pids+=($!)
host=$(hostname -s)
port=$((20000 + RANDOM % 20000))
export SLURM_CONF=$S/slurm.conf
cat >"$SLURM_CONF" <<EOF
ClusterName=balecheck
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$S/munge/sock
CredType=cred/munge
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/log/slurmctld.log
SlurmdLogFile=$S/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MinJobAge=3600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=bale Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
for ((i = 0; i < 50; i++)); do [ -S "$S/munge/sock" ] && break; sleep 0.1; done
[ -S "$S/munge/sock" ] || { logs; skip "munged did not start"; }
slurmctld -D -i 2>"$S/log/slurmctld.err" &
pids+=($!)
slurmd -D 2>"$S/log/slurmd.err" &
pids+=($!)
for ((i = 0; i < 100; i++)); do
    [ "$(sinfo -h -o %t 2>/dev/null)" = idle ] && break
    sleep 0.2
done
[ "$(sinfo -h -o %t 2>/dev/null)" = idle ] ||
    { logs; skip "the slurm daemons did not start (node not idle)"; }

# wait_job ID: until it has left the queue; then it must have COMPLETED
wait_job() {
    local state
    for ((i = 0; i < 600; i++)); do
        [ -z "$(squeue -h -j "$1" 2>/dev/null)" ] && break
        sleep 0.2
    done
    state=$(scontrol show job "$1" | grep -o 'JobState=[A-Z_]*' | sort -u)
    [ "$state" = JobState=COMPLETED ] ||
        { logs; cat "$T"/out/*.log >&2; fail "job $1: $state"; }
}

"$MKDATA" tricky "$T/in"
rm "$T/in/9/linked"
"$BALE" pack "$T/in" -f wds,lmdb,hdf5 -o "$T/single" -q --shuffle --seed 7
export BALE
submit() {
    BALE_SBATCH_ARGS="--cpus-per-task 1" \
        "$TESTS/../scripts/slurm/submit.sh" "$T/in" "$T/out" 4 \
        -f wds,lmdb,hdf5 -q --shuffle --seed 7 >"$T/jobs" ||
        { logs; fail "submit.sh failed"; }
    pack=$(sed -n 's/^pack array: //p' "$T/jobs")
    merge=$(sed -n 's/^merge: //p' "$T/jobs")
    [ -n "$pack" ] && [ -n "$merge" ] || fail "submit.sh printed no job ids"
    wait_job "$merge"
    for ((k = 0; k < 4; k++)); do wait_job "${pack}_$k"; done
}
submit
for o in data-shards.json data.lmdb data.h5; do
    diff <("$BALE" ls "$T/single/$o") <("$BALE" ls "$T/out/merged/$o") ||
        fail "the parts packed on Slurm do not merge into the single $o"
    "$BALE" verify "$T/out/merged/$o" >/dev/null ||
        fail "the merged $o does not verify"
done
rm -rf "$T/x1" "$T/x2"
"$BALE" extract "$T/single/data.lmdb" "$T/x1" >/dev/null
"$BALE" extract "$T/out/merged/data.h5" "$T/x2" >/dev/null
diff -r "$T/x1" "$T/x2" || fail "merged bytes differ"
# each task had 1 CPU of the node's: bale's threads followed Slurm's
"$PY" - "$T/out/reports" <<'PYEOF' || fail "threads did not follow Slurm"
import json, os, sys
reports = sorted(os.listdir(sys.argv[1]))
assert reports == ["p%d.json" % i for i in range(4)], reports
for r in reports:
    o = json.load(open(os.path.join(sys.argv[1], r)))["options"]
    assert o["cpus"] == 1 and "slurm" in o["cpus_limited_by"], (r, o)
PYEOF

# submitted again: every part is complete, so the tasks pack nothing
rm -rf "$T/out/merged"
submit
for ((k = 0; k < 4; k++)); do
    grep -q "part $k/4 of this run is already complete" \
        "$T/out/bale-pack-${pack}_$k.log" ||
        fail "relaunched task $k did not find its part complete"
done
diff <("$BALE" ls "$T/single/data.h5") <("$BALE" ls "$T/out/merged/data.h5") ||
    fail "the rerun differs"
exit 0
