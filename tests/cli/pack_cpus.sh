#!/bin/bash
# Default threads follow the CPUs the process may use, not the machine's:
# a Slurm task's share (SLURM_CPUS_PER_TASK, else SLURM_CPUS_ON_NODE) and
# the affinity mask (taskset) each bound them, and the report says which.
. "$TESTS/cli/lib.sh"
f=$(any_backend)
"$MKDATA" random "$T/in" -n 40 --classes 2 --min 64 --max 128
cpus() { # REPORT: "cpus limited_by threads"
    "$PY" -c 'import json, sys
o = json.load(open(sys.argv[1]))["options"]
print(o["cpus"], o["cpus_limited_by"], o["threads"])' "$1"
}
SLURM_CPUS_PER_TASK=1 SLURM_CPUS_ON_NODE=64 "$BALE" pack "$T/in" -f "$f" \
    -o "$T/a" -q --report "$T/a.json"
read -r n why threads <<<"$(cpus "$T/a.json")"
[ "$n $why" = "1 slurm" ] || fail "SLURM_CPUS_PER_TASK=1 gave $n ($why)"
# one CPU: one reader to start with, at most four while reads wait
[ "$threads" -ge 1 ] && [ "$threads" -le 4 ] ||
    fail "one CPU, $threads reader threads (want 1..4)"
env -u SLURM_CPUS_PER_TASK SLURM_CPUS_ON_NODE=1 "$BALE" pack "$T/in" \
    -f "$f" -o "$T/b" -q --report "$T/b.json"
read -r n why threads <<<"$(cpus "$T/b.json")"
[ "$n $why" = "1 slurm" ] || fail "SLURM_CPUS_ON_NODE=1 was not followed"
[ "$threads" -ge 1 ] && [ "$threads" -le 4 ] ||
    fail "SLURM_CPUS_ON_NODE=1: $threads reader threads (want 1..4)"
if command -v taskset >/dev/null && taskset -c 0 true 2>/dev/null; then
    env -u SLURM_CPUS_PER_TASK -u SLURM_CPUS_ON_NODE taskset -c 0 \
        "$BALE" pack "$T/in" -f "$f" -o "$T/c" -q --report "$T/c.json"
    read -r n why threads <<<"$(cpus "$T/c.json")"
    # the affinity mask, unless a cgroup quota is lower still (1 either way)
    [ "$n" = 1 ] || fail "taskset -c 0 gave $n CPUs ($why)"
    [ "$threads" -ge 1 ] && [ "$threads" -le 4 ] ||
        fail "taskset -c 0: $threads reader threads (want 1..4)"
fi
# an explicit -j is kept whatever the CPUs: exactly that many readers
SLURM_CPUS_PER_TASK=1 "$BALE" pack "$T/in" -f "$f" -o "$T/d" -q -j 3 \
    --report "$T/d.json"
[ "$(cpus "$T/d.json" | cut -d' ' -f3)" = 3 ] ||
    fail "-j 3 gave $(cpus "$T/d.json" | cut -d' ' -f3) readers"
# -j 0 is the default: a reader per CPU, up to four while reads wait
SLURM_CPUS_PER_TASK=2 "$BALE" pack "$T/in" -f "$f" -o "$T/e" -q -j 0 \
    --report "$T/e.json"
read -r n why threads <<<"$(cpus "$T/e.json")"
[ "$n" -ge 1 ] && [ "$n" -le 2 ] && [ "$threads" -ge "$n" ] &&
    [ "$threads" -le $((4 * n)) ] ||
    fail "-j 0 with two CPUs: $n ($why), $threads readers"
exit 0
