#!/bin/bash
# SIGINT and SIGTERM stop a run cleanly: exit 130 / 143, the report says
# "interrupted", nothing looks complete and no temporary file is left
# (checkpointed progress stays, for --resume), also when the source is
# still being listed, and the next run packs everything. In every format
# built.
. "$TESTS/cli/lib.sh"
formats=$(need_writers) || exit 77
# slow on purpose (one thread, big arrays), so the signal lands mid-run
"$MKDATA" random "$T/in" -n 250 --classes 4 --min 300 --max 1200 -j 2
for sig in INT TERM; do
    set +e
    "$BALE" pack "$T/in" -f "$formats" -o "$T/out" --pixels 512x512 -j 1 \
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
    [ -z "$(outputs_in "$T/out" 2>/dev/null)" ] ||
        fail "SIG$sig left an output looking complete"
    # a shard still open stays only as the checkpoint the journal names
    if ls "$T/out" | grep -q '\.tar\.partial$' &&
        ! grep -q '"partial_bytes":[1-9]' "$T/out/data-resume.json"; then
        ls -la "$T/out" >&2
        fail "SIG$sig left a temporary shard no checkpoint covers"
    fi
    $PY - "$T/report.json" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["status"] == "interrupted", r["status"]
assert "stopped on request" in r["error"], r["error"]
PYEOF
done

# a stop while the source is still being listed ends the walk at once:
# a compressed tar of 600 000 folder members and one image takes about a
# second to list, and is frozen (SIGSTOP) with the archive open and no
# output yet, that is while listing, before SIGINT reaches it
"$PY" - "$T/in" <<'PY' | gzip -1 >"$T/many.tar.gz"
import os, sys, tarfile
out = sys.stdout.buffer
folder = tarfile.TarInfo("cls/")
folder.type = tarfile.DIRTYPE
block = folder.tobuf(tarfile.GNU_FORMAT) * 10000
for _ in range(60):
    out.write(block)
img = os.path.join(sys.argv[1], sorted(os.listdir(sys.argv[1]))[0])
img = os.path.join(img, sorted(os.listdir(img))[0])
member = tarfile.TarInfo("cls/a.jpg")
member.size = os.path.getsize(img)
out.write(member.tobuf(tarfile.GNU_FORMAT))
data = open(img, "rb").read()
out.write(data + b"\0" * (-len(data) % 512) + b"\0" * 1024)
PY
caught=
for attempt in 1 2 3; do
    rm -rf "$T/many"
    set +e
    "$BALE" pack "$T/many.tar.gz" -f "${formats%%,*}" -o "$T/many" \
        2>"$T/stderr" &
    pid=$!
    for _ in $(seq 1000); do
        ls -l "/proc/$pid/fd" 2>/dev/null | grep -q 'many\.tar\.gz' && break
        sleep 0.005
    done
    kill -STOP $pid
    [ -e "$T/many" ] || caught=1
    kill -INT $pid
    kill -CONT $pid
    wait $pid
    status=$?
    set -e
    [ -z "$caught" ] || break
done
[ -n "$caught" ] || fail "three runs listed the archive before the stop"
expect_status 130
expect_stderr "stopped on request while listing the source"
expect_no_output "$T/many"

"$BALE" pack "$T/in" -f "$formats" -o "$T/out" --pixels 512x512 -q \
    --resume
[ ! -e "$T/out/data-resume.json" ] || fail "a finished run kept its journal"
outputs=$(outputs_in "$T/out")
[ "$(echo "$outputs" | wc -l)" -eq "$(echo "$formats" | tr , '\n' | wc -l)" ] ||
    fail "not one output per format after the reruns: $outputs"
for o in $outputs; do
    "$BALE" verify "$o" >/dev/null || fail "verify $o after the reruns"
done
exit 0
