#!/bin/bash
# bench runs every target warm and cold with 1 and 2 threads, says how it
# measured, evicts the cache for cold runs, and writes JSON and SVG.
# Correctness only: no timing is asserted.
. "$TESTS/cli/lib.sh"
require_backend wds
require_backend lmdb
require_backend hdf5
"$MKDATA" tricky "$T/in"
"$BALE" pack "$T/in" -f lmdb,hdf5,wds -o "$T/out" -q
run "$BALE" bench "$T/out" --against "$T/in" -t 1,2 --cache both -r 2 \
    --decode --json "$T/b.json" --svg "$T/b.svg"
expect_status 0
grep -q '^method: 24 samples per run, random order' "$T/stdout" ||
    fail "the method is not stated"
expect_stderr "cold run 1: 0.0% resident before"
"$PY" - "$T/b.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
rows = b["results"]
targets = {r["target"] for r in rows}
assert targets == {"folder", "wds", "lmdb", "hdf5", "pread-ref",
                   "lmdb-map"}, targets
assert {(r["cache"], r["threads"]) for r in rows} == \
    {("warm", 1), ("warm", 2), ("cold", 1), ("cold", 2)}
for r in rows:
    assert len(r["samples_per_s"]) == 2 and min(r["samples_per_s"]) > 0, r
    if r["cache"] == "cold":
        assert max(r["resident_before"]) < 0.05, r
assert b["method"]["decode"] is True
PY
grep -q "<svg" "$T/b.svg" && grep -q "lmdb-map" "$T/b.svg" || fail "no chart"
run "$BALE" bench "$T/out" -r 1
expect_status 2
expect_stderr "--against"
# with permission to write drop_caches (root), cold runs say they used it
if [ -w /proc/sys/vm/drop_caches ]; then
    run "$BALE" bench "$T/out" --against "$T/in" --cache cold -r 1 --drop-caches
    expect_status 0
    grep -q 'cold runs: drop_caches=3' "$T/stdout" || fail "drop_caches not used"
fi
# the streaming order, stated as such
run "$BALE" bench "$T/out" --against "$T/in" --sequential -r 1 -k 10
expect_status 0
grep -q '^method: 10 samples per run, sequential order' "$T/stdout" ||
    fail "--sequential is not stated"
