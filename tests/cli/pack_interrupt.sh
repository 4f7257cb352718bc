#!/bin/bash
# SIGINT and SIGTERM stop a run cleanly: exit 130 / 143, the report says
# "interrupted", nothing looks complete and no temporary file is left
# (checkpointed progress stays, for --resume), and the next run packs
# everything.
. "$TESTS/cli/lib.sh"
require_backend wds
require_backend lmdb
require_backend hdf5
# slow on purpose (one thread, big arrays), so the signal lands mid-run
"$MKDATA" random "$T/in" -n 250 --classes 4 --min 300 --max 1200 -j 2
for sig in INT TERM; do
    set +e
    "$BALE" pack "$T/in" -f wds,lmdb,hdf5 -o "$T/out" --pixels 512x512 -j 1 \
        --report "$T/report.json" 2>"$T/stderr" &
    pid=$!
    sleep 0.5
    kill -s "$sig" $pid
    wait $pid
    status=$?
    set -e
    want=$((128 + $(kill -l "$sig")))
    expect_status "$want"
    expect_stderr "stopped on request after"
    for f in data-shards.json data.lmdb data.h5; do
        [ ! -e "$T/out/$f" ] || fail "SIG$sig left $f looking complete"
    done
    if ls "$T/out" | grep -q '\.tar\.partial$'; then
        ls -la "$T/out" >&2
        fail "SIG$sig left a temporary shard"
    fi
    $PY - "$T/report.json" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["status"] == "interrupted", r["status"]
assert "stopped on request" in r["error"], r["error"]
PYEOF
done
"$BALE" pack "$T/in" -f wds,lmdb,hdf5 -o "$T/out" --pixels 512x512 -q \
    --resume
[ ! -e "$T/out/data-resume.json" ] || fail "a finished run kept its journal"
for f in data-shards.json data.lmdb data.h5; do
    "$BALE" verify "$T/out/$f" >/dev/null || fail "verify $f after the reruns"
done
exit 0
