#!/bin/bash
# pack_disk_full.sh fsize|tmpfs: a file-size limit (RLIMIT_FSIZE), or a
# full disk (a small tmpfs), for every format: exit 1, a message naming
# the output file and the system's reason, nothing that looks complete;
# after space is freed, --resume finishes with output equal to an
# uninterrupted run's. Two tests, so that where no tmpfs can be mounted
# that half reports as skipped.
. "$TESTS/cli/lib.sh"
case=${1:?fsize or tmpfs}
formats=$(need_writers) || exit 77
SAME="$TESTS/cli/same_output.py"
shards=()
! built wds || shards=(--shard-count 10)

"$MKDATA" random "$T/in" -n 120 --classes 3 --min 400 --max 900 -j 2
"$BALE" pack "$T/in" -f "$formats" -o "$T/ref" "${shards[@]}" -q

looks_complete() {
    [ -n "$(outputs_in "$1")" ]
}

# file-size limit: each format alone
for fmt in ${formats//,/ }; do
    [ "$case" = fsize ] || break
    run bash -c 'ulimit -f 1024; exec "$0" pack "$1" -f "$2" -o "$3"' \
        "$BALE" "$T/in" "$fmt" "$T/limited-$fmt"
    expect_status 1
    expect_stderr "$T/limited-$fmt/data"
    grep -qE "File too large|disk full, or a file-size limit" "$T/stderr" ||
        fail "$fmt: no reason given: $(cat "$T/stderr")"
    ! looks_complete "$T/limited-$fmt" || fail "$fmt: looks complete"
done
if [ "$case" = fsize ]; then
    echo "file-size limit: refused cleanly by every format"
    exit 0
fi

small="$T/small"
mkdir -p "$small"
if ! mount -t tmpfs -o size=3m tmpfs "$small" 2>/dev/null; then
    echo "skipped: no small filesystem (mounting a tmpfs was refused)"
    exit 77
fi
ro="$T/ro"
mkdir -p "$ro"
mount -t tmpfs -o ro,size=1m tmpfs "$ro"
trap 'umount "$small" 2>/dev/null || true; umount "$ro" 2>/dev/null || true
      rm -rf "$T"' EXIT
# a read-only output folder: said in those words, before any work, and
# no word of removing files that were never there
run "$BALE" pack "$T/in" -f "$formats" -o "$ro"
expect_status 1
expect_stderr "cannot write in '$ro': Read-only file system"
expect_no_stderr "cannot remove"
umount "$ro"
for fmt in ${formats//,/ } "$formats"; do
    out="$small/out-${fmt//,/-}"
    fshards=()
    [[ $fmt != *wds* ]] || fshards=(--shard-count 10)
    run "$BALE" pack "$T/in" -f "$fmt" -o "$out" "${fshards[@]}"
    expect_status 1
    expect_stderr "$out/data"
    grep -qE "No space left on device|disk full" "$T/stderr" ||
        fail "$fmt: no reason given: $(cat "$T/stderr")"
    # what was written, and that space must be freed first
    expect_stderr "(the filesystem of '$out' is full: "
    expect_stderr "MB of samples): free space there, then run again"
    ! looks_complete "$out" || fail "$fmt: a full disk left output that looks complete"
    [ "$fmt" = "$formats" ] || rm -rf "$out"
done
# space freed: the run carries on from its checkpoints
mount -o remount,size=256m "$small"
run "$BALE" pack "$T/in" -f "$formats" -o "$small/out-${formats//,/-}" \
    "${shards[@]}" --resume
expect_status 0
$PY "$SAME" "$T/ref" "$small/out-${formats//,/-}" ||
    fail "resumed after a full disk: output differs"
echo "full disk: refused cleanly, resumed identically"
exit 0
