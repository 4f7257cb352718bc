#!/bin/bash
# A shard still being written is a checkpoint: a run killed while its
# only shard is open keeps what it wrote ("next" past 0 in the journal),
# and --resume carries on from there, not from the start, to a shard
# byte for byte the uninterrupted run's (.tar, .idx, .bidx), through the
# page cache and past it (O_DIRECT). A partial shard that lost what its
# checkpoint names is written again, said so, with the same result.
. "$TESTS/cli/lib.sh"
require_backend wds
"$MKDATA" random "$T/in" -n 160 --classes 2 --min 600 --max 1400 -j 2
# re-encoded, one reader: slow enough to be killed mid-shard
flags=(-f wds -j 1 --quality 97)
"$BALE" pack "$T/in" "${flags[@]}" -q -o "$T/ref"
[ "$(ls "$T/ref"/*.tar | wc -l)" -eq 1 ] || fail "want one shard"

# kill -9 OUT [FLAGS]: a run into OUT killed once its journal names a
# checkpoint inside the open shard
kill_mid_shard() {
    local out=$1 pid i
    shift
    "$BALE" pack "$T/in" "${flags[@]}" -q -o "$out" "$@" &
    pid=$!
    for i in $(seq 2000); do
        grep -q '"partial_samples":[1-9]' "$out/data-resume.json" \
            2>/dev/null && break
        sleep 0.005
    done
    kill -9 $pid 2>/dev/null || true
    wait $pid 2>/dev/null || true
    grep -q '"partial_samples":[1-9]' "$out/data-resume.json" ||
        fail "no checkpoint inside the shard before the run ended"
    [ -e "$out/data-000000.tar.partial" ] || fail "the partial shard went"
    [ ! -e "$out/data-shards.json" ] || fail "a killed run looks complete"
}

same_shard() {
    local f
    for f in tar idx bidx; do
        cmp "$T/ref/data-000000.$f" "$1/data-000000.$f" ||
            fail "$2: the .$f differs from the uninterrupted run's"
    done
}

for mode in cache direct; do
    opt=()
    [ $mode = cache ] || opt=(-O wds.direct_io=1)
    kill_mid_shard "$T/$mode" "${opt[@]}"
    run "$BALE" pack "$T/in" "${flags[@]}" -o "$T/$mode" "${opt[@]}" \
        --resume --report "$T/$mode.json"
    expect_status 0
    expect_stderr "resumed at input "
    expect_stderr "the output holds 160 samples"
    "$PY" - "$T/$mode.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert 0 < r["resumed_at"] < 160 and r["packed"] == 160 - r["resumed_at"], r
PY
    same_shard "$T/$mode" "$mode"
done

# the partial shard cut shorter than its checkpoint: written again
kill_mid_shard "$T/cut"
truncate -s 4096 "$T/cut/data-000000.tar.partial"
run "$BALE" pack "$T/in" "${flags[@]}" -o "$T/cut" --resume
expect_status 0
expect_stderr "data-000000.tar.partial' does not hold the "
expect_stderr "writing it again"
same_shard "$T/cut" "a damaged partial shard"
