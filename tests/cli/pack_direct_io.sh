#!/bin/bash
# wds -O direct_io=1: shards written with O_DIRECT by a thread of their
# own hold the bytes a write through the page cache gives (shards of
# several buffers, a sample larger than all the buffers, tails that are
# not whole blocks); a file-size limit met in the thread is an error
# that names the shard and leaves nothing that looks complete; a bad
# value is refused. Skipped where the file system refuses O_DIRECT.
. "$TESTS/cli/lib.sh"
require_backend wds
command -v strace >/dev/null || { echo "skipped: no strace"; exit 77; }

"$MKDATA" random "$T/in" -n 120 --classes 3 --min 300 --max 900 -j 2
cls=$(ls "$T/in" | head -1)
# 3.5 MiB: over the three 1 MiB buffers (passed through, not decoded)
head -c 3670016 /dev/urandom > "$T/in/$cls/zz_big.jpg"

run "$BALE" pack "$T/in" -f wds -o "$T/cached" --shard-size 4M -q \
    -O direct_io=0
expect_status 0
# (LeakSanitizer cannot run under ptrace: that run goes without it)
run env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    strace -f -e trace=fcntl -o "$T/strace" "$BALE" pack "$T/in" -f wds \
    -o "$T/direct" --shard-size 4M -q -O direct_io=1
expect_status 0
if ! grep -q "F_SETFL, [A-Z_|]*O_DIRECT[A-Z_|]*) = 0" "$T/strace"; then
    echo "skipped: this file system refuses O_DIRECT"
    exit 77
fi
[ "$(ls "$T"/direct/data-*.tar | wc -l)" -ge 3 ] ||
    fail "the fixture should make three shards or more"
for f in "$T"/cached/*; do
    # how each was made records its options, direct_io among them
    [ "${f##*/}" != data-made.json ] || continue
    cmp "$f" "$T/direct/${f##*/}" ||
        fail "direct_io=1 wrote ${f##*/} differently"
done
[ "$(ls "$T/direct")" = "$(ls "$T/cached")" ] ||
    fail "direct_io=1 wrote other files"
run "$BALE" verify "$T/direct" -f wds
expect_status 0

# a file-size limit: the write that fails is the thread's
run bash -c 'ulimit -f 2048; exec "$0" pack "$1" -f wds -o "$2" \
    -O direct_io=1' "$BALE" "$T/in" "$T/limited"
expect_status 1
expect_stderr "$T/limited/data-000000.tar"
grep -qE "File too large|disk full, or a file-size limit" "$T/stderr" ||
    fail "no reason given: $(cat "$T/stderr")"
[ ! -e "$T/limited/data-shards.json" ] || fail "the limited run looks complete"
[ -z "$(ls "$T/limited" 2>/dev/null)" ] ||
    fail "the limited run left files: $(ls "$T/limited")"

run "$BALE" pack "$T/in" -f wds -o "$T/bad" -O direct_io=maybe
expect_status 2
expect_stderr "direct_io 'maybe' is not auto, 1 or 0"
echo "direct_io: same shards, a limit refused cleanly, a bad value refused"
exit 0
