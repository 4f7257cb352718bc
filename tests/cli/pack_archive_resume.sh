#!/bin/bash
# --resume holds for archive sources as for folders: a run stopped after
# a checkpoint and resumed gives the uninterrupted run's output, from a
# tar, a zip, a compressed tar in an order not torchvision's (whose
# resumed run must skip, not feed, what was packed before) and two
# compressed tars together. In every format built.
. "$TESTS/cli/lib.sh"
formats=$(need_writers resume) || exit 77
shards=()
! built wds || shards=(--shard-count 16)
"$MKDATA" random "$T/in" -n 160 --classes 4 --min 300 --max 1200 -j 2
mkdir "$T/arc"
tar -C "$T/in" -cf "$T/arc/in.tar" .
tar -C "$T/in" -czf "$T/arc/in.tar.gz" .
(cd "$T/in" && "$PY" -c 'import os, zipfile
with zipfile.ZipFile(os.sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
    for d, _, fs in sorted(os.walk(".")):
        for f in sorted(fs):
            z.write(os.path.join(d, f))' "$T/arc/in.zip")
# two compressed tars, the classes alternating between them
(cd "$T/in" && tar -czf "$T/arc/even.tar.gz" n00000000 n00000002 &&
    tar -cJf "$T/arc/odd.tar.xz" n00000001 n00000003)
# slow on purpose (one thread, resized), checkpoints every few samples
for a in in.tar in.zip in.tar.gz two-streams; do
    window=64K
    src=("$T/arc/$a")
    if [ "$a" = two-streams ]; then    # one pass over each, not dozens
        src=("$T/arc/odd.tar.xz" "$T/arc/even.tar.gz")
        window=1G
    fi
    flags=(-f "$formats" --pixels 384x384 -j 1 "${shards[@]}"
        --window "$window")
    "$BALE" pack "${src[@]}" "${flags[@]}" -o "$T/ref-$a" -q
    set +e
    "$BALE" pack "${src[@]}" "${flags[@]}" -o "$T/out-$a" -q 2>/dev/null &
    pid=$!
    j="$T/out-$a/data-resume.json"
    for ((i = 0; i < 2400; i++)); do	# until every writer checkpointed
        # (up to a minute: a sanitized build on a busy machine is slow)
        grep -q '"next":[1-9]' "$j" 2>/dev/null &&
            ! grep -q '"next":0,' "$j" && break
        sleep 0.025
    done
    kill -INT $pid
    wait $pid
    status=$?
    set -e
    expect_status 130
    run "$BALE" pack "${src[@]}" "${flags[@]}" -o "$T/out-$a" --resume \
        --report "$T/$a.json"
    expect_status 0
    "$PY" -c 'import json, sys
r = json.load(open(sys.argv[1]))
assert r["resumed_at"] > 0 and r["packed"] < 160, r' "$T/$a.json"
    "$PY" "$TESTS/cli/same_output.py" "$T/ref-$a" "$T/out-$a" ||
        fail "$a: the resumed run differs from an uninterrupted one"
done
exit 0
