#!/bin/bash
# --force replaces an output only once the new one is complete: a run
# that fails (a skipped file under --strict), is interrupted (SIGINT) or
# killed (SIGKILL) leaves the old output exactly as it was and readable;
# a killed one carries on with --resume; a complete one leaves the new
# output alone (no stale shard, lock or image file of the old one, no
# staging folder) equal to a fresh pack, for every format built.
. "$TESTS/cli/lib.sh"
formats=$(need_writers) || exit 77
SAME="$TESTS/cli/same_output.py"
shards10=() shards50=()
! built wds || { shards10=(--shard-count 10); shards50=(--shard-count 50); }

"$MKDATA" random "$T/a" -n 120 --classes 3 --min 32 --max 96 -j 2
"$MKDATA" random "$T/b" -n 160 --classes 4 --min 300 --max 900 --seed 2 -j 2
"$BALE" pack "$T/a" -f "$formats" "${shards10[@]}" -o "$T/out" -q
# b's packs are slow on purpose (one thread, arrays), so signals land
# mid-run
B=(-f "$formats" --pixels 256x256 "${shards50[@]}" -j 1)
"$BALE" pack "$T/b" "${B[@]}" -o "$T/fresh" -q

# every byte of the old output, and that it still verifies (not the
# staging folder .data-replace, which holds what a resumed run needs,
# nor LMDB's lock file, where readers such as verify register)
snapshot() { (cd "$T/out" && find . -path ./.data-replace -prune -o \
    -type f ! -name lock.mdb -print | sort | xargs sha1sum); }
snapshot >"$T/before"
expect_old_output() {
    snapshot >"$T/now"
    diff "$T/before" "$T/now" >&2 || fail "$1: the old output changed"
    "$BALE" verify "$T/out" >"$T/verify" 2>&1 || { cat "$T/verify" >&2;
        fail "$1: the old output no longer verifies"; }
}

# a failed run: an empty file under --strict, met last
: >"$T/b/n00000003/zzzz-empty.jpg"
run "$BALE" pack "$T/b" "${B[@]}" -o "$T/out" --force --strict
expect_status 1
expect_stderr "empty file"
expect_old_output "a failed --force run"
rm "$T/b/n00000003/zzzz-empty.jpg"

# started: its journal is in the staging folder (the one a run before
# left there is removed first, so it is this run's)
wait_started() {
    local i
    for i in $(seq 200); do
        [ -e "$T/out/.data-replace/data-resume.json" ] && return 0
        sleep 0.01
    done
    fail "the run did not start"
}

# interrupted: SIGINT mid-run
rm -rf "$T/out/.data-replace"
set +e
"$BALE" pack "$T/b" "${B[@]}" -o "$T/out" --force 2>"$T/stderr" &
pid=$!
wait_started
kill -INT $pid
wait $pid
status=$?
set -e
expect_status 130
expect_old_output "an interrupted --force run"

# killed mid-run, then resumed: the replacement carries on and completes
rm -rf "$T/out/.data-replace"
set +e
"$BALE" pack "$T/b" "${B[@]}" -o "$T/out" --force -q 2>/dev/null &
pid=$!
wait_started
sleep 0.1
kill -9 $pid
wait $pid 2>/dev/null
set -e
expect_old_output "a killed --force run"
run "$BALE" pack "$T/b" "${B[@]}" -o "$T/out" --force --resume
expect_status 0
$PY "$SAME" "$T/fresh" "$T/out" || fail "the resumed replacement differs"
# the files of a fresh pack, no more: nothing stale, nothing staged
[ "$(ls -A "$T/out")" = "$(ls -A "$T/fresh")" ] ||
    fail "stale or staged files remain: $(ls -A "$T/out")"

# a complete run over the old output: the old shards beyond the new
# ones go
"$BALE" pack "$T/a" -f "$formats" "${shards10[@]}" -o "$T/out" -q --force
! built wds || [ -f "$T/out/data-000011.tar" ] || fail "expected 12 shards"
run "$BALE" pack "$T/b" "${B[@]}" -o "$T/out" --force
expect_status 0
[ "$(ls -A "$T/out")" = "$(ls -A "$T/fresh")" ] ||
    fail "old files remain: $(ls -A "$T/out")"
$PY "$SAME" "$T/fresh" "$T/out" || fail "the replaced output differs"

# an LMDB folder gives way to a file (nosubdir) and back
if built lmdb; then
    run "$BALE" pack "$T/b" "${B[@]}" -o "$T/out" --force \
        -O lmdb.nosubdir=1
    expect_status 0
    [ "$(ls -A "$T/out")" = "$(ls -A "$T/fresh")" ] ||
        fail "after nosubdir: $(ls -A "$T/out")"
    [ -f "$T/out/data.lmdb" ] || fail "data.lmdb is not a file"
    "$BALE" verify "$T/out/data.lmdb" >/dev/null
    run "$BALE" pack "$T/b" -f lmdb --pixels 256x256 -o "$T/out" --force
    expect_status 0
    [ -d "$T/out/data.lmdb" ] ||
        fail "the nosubdir LMDB was not replaced by a folder"
    $PY "$SAME" "$T/fresh" "$T/out" || fail "the replaced output differs"
fi

# an updated HDF5 output keeps images in data-images/: a replacement
# takes them away with the rest of the old output
built hdf5 || exit 0
"$BALE" pack "$T/a" -f hdf5 -o "$T/upd" --update -q
cp "$T/b/n00000000/$(ls "$T/b/n00000000" | head -1)" "$T/a/n00000000/new.jpg"
"$BALE" pack "$T/a" -f hdf5 -o "$T/upd" --update -q
[ -d "$T/upd/data-images" ] || fail "the update made no data-images/"
run "$BALE" pack "$T/b" -f hdf5 -o "$T/upd" --force
expect_status 0
[ ! -e "$T/upd/data-images" ] || fail "the old data-images/ remains"
"$BALE" verify "$T/upd" >/dev/null
