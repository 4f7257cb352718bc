#!/bin/bash
# kill -9 at random moments, many times: after every kill nothing looks
# complete unless it is (a published format equals the uninterrupted
# run's), and the next run, with --resume or plain, gives output equal to
# an uninterrupted run: the same tar bytes, LMDB records and HDF5
# datasets, and the same skipped inputs in its report. In every format
# built.
. "$TESTS/cli/lib.sh"
formats=$(need_writers) || exit 77
nformats=$(echo "$formats" | tr , '\n' | wc -l)
shards=()
! built wds || shards=(--shard-count 25)
SAME="$TESTS/cli/same_output.py"
KILLS=${BALE_KILLS:-8}

"$MKDATA" random "$T/in" -n 240 --classes 3 --min 500 --max 1400 -j 2
# bad inputs early and late, so skipped ones fall on both sides of a
# resume point
head -c 3000 "$T/in/n00000000/$(ls "$T/in/n00000000" | head -1)" \
    >"$T/in/n00000000/0000cut.jpg"
echo "not an image" >"$T/in/n00000002/zzzz.jpg"

# wait_checkpoint DIR PID: until DIR's journal names a checkpoint past 0
# for some format, or the run PID ended
wait_checkpoint() {
    while kill -0 "$2" 2>/dev/null &&
        ! grep -q '"next":[1-9]' "$1/data-resume.json" 2>/dev/null; do
        sleep 0.005
    done
}

# every format's output is published in DIR
complete() {
    [ "$(outputs_in "$1" | wc -l)" -eq "$nformats" ]
}

skipped_paths() {
    $PY -c 'import json,sys; print(sorted(e["path"] for e in
        json.load(open(sys.argv[1]))["skipped_files"]))' "$1"
}

# one configuration: its flags; an uninterrupted reference; then kills
check_config() {
    local name=$1; shift
    local flags=(-f "$formats" "${shards[@]}" -j 1 "$@")
    local ref="$T/ref-$name" out="$T/out-$name"
    local start end ms k pid resumable=0 finished=0
    start=$(date +%s%N)
    run "$BALE" pack "$T/in" "${flags[@]}" -o "$ref" --report "$T/ref.json"
    end=$(date +%s%N)
    expect_status 3
    ms=$(( (end - start) / 1000000 ))
    for ((k = 0; k < KILLS; k++)); do
        "$BALE" pack "$T/in" "${flags[@]}" -o "$out" --resume -q \
            2>/dev/null &
        pid=$!
        if [ $k -eq $((KILLS - 1)) ] && [ "$resumable" -eq 0 ]; then
            wait_checkpoint "$out" $pid	# at least one kill after one
        else
            sleep "$(awk -v r=$RANDOM -v ms="$ms" \
                'BEGIN { printf "%.3f", (20 + r % (ms * 9 / 10 + 1)) / 1000 }')"
        fi
        kill -9 $pid 2>/dev/null || true
        wait $pid 2>/dev/null || true
        $PY "$SAME" "$ref" "$out" --present ||
            fail "$name: kill $k left output that looks complete but is not"
        if grep -q '"next":[1-9]' "$out/data-resume.json" 2>/dev/null; then
            resumable=$((resumable + 1))
        elif complete "$out" && [ ! -e "$out/data-resume.json" ]; then
            rm -rf "$out"	# finished before the kill: start again
            finished=$((finished + 1))
        fi
    done
    if [ -e "$out/data-resume.json" ] || ! complete "$out"; then
        run "$BALE" pack "$T/in" "${flags[@]}" -o "$out" --resume \
            --report "$T/out.json"
        expect_status 3
        [ "$(skipped_paths "$T/ref.json")" = \
            "$(skipped_paths "$T/out.json")" ] ||
            fail "$name: the resumed run's report lost skipped inputs"
        # what the output holds: the kept samples and this run's
        $PY - "$T/ref.json" "$T/out.json" <<'PY' ||
import json, sys
ref, out = (json.load(open(p)) for p in sys.argv[1:])
assert out["resumed_kept"] + out["packed"] == ref["packed"], out
PY
            fail "$name: the resumed run miscounts what the output holds"
        if [ "$(grep -o '"resumed_at":[0-9]*' "$T/out.json")" != \
            '"resumed_at":0' ]; then
            expect_stderr "the output holds $($PY -c 'import json, sys
print(json.load(open(sys.argv[1]))["packed"])' "$T/ref.json") samples"
        fi
    else	# the last kill came after the run had finished
        run "$BALE" pack "$T/in" "${flags[@]}" -o "$out" --resume
        expect_status 0
        expect_stderr "every output is complete already"
    fi
    [ ! -e "$out/data-resume.json" ] || fail "$name: journal left behind"
    $PY "$SAME" "$ref" "$out" || fail "$name: resumed output differs"
    # a plain rerun after a kill gives the same output too
    rm -rf "$out"
    "$BALE" pack "$T/in" "${flags[@]}" -o "$out" -q 2>/dev/null &
    pid=$!
    sleep "$(awk -v ms="$ms" 'BEGIN { printf "%.3f", ms / 2000 }')"
    kill -9 $pid 2>/dev/null || true
    wait $pid 2>/dev/null || true
    run "$BALE" pack "$T/in" "${flags[@]}" -o "$out" --force
    expect_status 3
    $PY "$SAME" "$ref" "$out" || fail "$name: plain rerun differs"
    [ "$resumable" -gt 0 ] || fail "$name: no kill left anything to resume"
    echo "$name: $KILLS kills ($resumable left checkpoints to resume from," \
        "$finished came after the end), reference run ${ms} ms: identical"
}

check_config pixels --pixels 128x128
check_config encoded --resize shorter:200 --quality 95
! built hdf5 ||
    check_config vlen --resize shorter:200 --quality 95 --hdf5-layout vlen

# a journal from other inputs or settings is refused, not trusted
out="$T/out-other"
"$BALE" pack "$T/in" -f "$formats" "${shards[@]}" -j 1 --pixels 128x128 \
    -o "$out" -q 2>/dev/null &
pid=$!
sleep 0.5
kill -9 $pid 2>/dev/null || true
wait $pid 2>/dev/null || true
if [ -e "$out/data-resume.json" ]; then
    run "$BALE" pack "$T/in" -f "$formats" "${shards[@]}" --pixels 96x96 \
        -o "$out" --resume
    expect_status 1
    expect_stderr "is from a run with other inputs or settings"
fi
exit 0
