#!/bin/bash
# A complete output is never replaced unless asked; a replaced output loses
# its stale shards; a run that fails (here: file-size limit) exits 1, says
# why, and leaves nothing that looks complete.
. "$TESTS/cli/lib.sh"
require_backend wds
"$MKDATA" tricky "$T/in"
"$BALE" pack "$T/in" -f wds -o "$T/out" --shard-count 1 -q
[ -f "$T/out/data-000023.tar" ] || fail "expected 24 one-sample shards"
run "$BALE" pack "$T/in" -f wds -o "$T/out"
expect_status 1
expect_stderr "exists (use --force to replace it)"
[ -f "$T/out/data-000023.tar" ] || fail "a refused run touched the output"
"$PY" "$CHECK" "$T/out" "$T/in" --order --max-count 1

run "$BALE" pack "$T/in" -f wds -o "$T/out" --force
expect_status 0
[ "$(ls "$T/out" | tr '\n' ' ')" = "data-000000.bidx data-000000.idx \
data-000000.tar data-made.json data-shards.json " ] ||
    fail "stale shards remain: $(ls "$T/out")"
"$PY" "$CHECK" "$T/out" "$T/in" --order

# 2 MiB file-size limit: the 2400x1800 image cannot be written
run bash -c "ulimit -f 2048; exec \"\$0\" pack \"\$1\" -f wds -o \"\$2\" --shard-count 4" \
    "$BALE" "$T/in" "$T/limited"
expect_status 1
expect_stderr "File too large"
expect_no_output "$T/limited"

# --resume of a complete output: one line that says nothing was left to
# do, naming the output (no journal file, no "resumed after")
"$BALE" pack "$T/in" -f wds -o "$T/whole" -q
run "$BALE" pack "$T/in" -f wds -o "$T/whole" --resume
expect_status 0
expect_stderr "bale pack: $T/whole: nothing to resume: every output is complete already, nothing was written"
! grep -q "resumed after\|resume.json" "$T/stderr" || fail "$(cat "$T/stderr")"
