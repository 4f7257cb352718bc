#!/bin/bash
# The gateway killed and started again in the middle of an epoch (the
# suite's own gateway, so this test runs alone): the Loader's requests
# in flight and those that follow fail, are retried with backoff until
# the gateway answers again, and the epoch's batches are those of the
# output on disk. Then in the middle of a pack from the bucket into it:
# retried too, or a clean failure that --resume finishes; the output is
# the local pack's, byte for byte.
. "$TESTS/cli/lib.sh"
. "$TESTS/s3/lib.sh"
require_backend wds
[ -n "${BALE_TEST_S3_DIR:-}" ] || {
    echo "skipped: the gateway's folder is not known (BALE_TEST_S3_DIR)"
    exit 77
}
make_bucket
restart_during() { # PID WHAT: the gateway stopped for 2 s while PID runs
    "$TESTS/s3/gateway.sh" stop-rgw "$BALE_TEST_S3_DIR"
    # the restart must fall inside the run, or this tests nothing
    kill -0 "$1" 2>/dev/null || fail "the $2 ended before the restart"
    sleep 2
    "$TESTS/s3/gateway.sh" start-rgw "$BALE_TEST_S3_DIR" ||
        fail "the gateway did not start again"
}
"$MKDATA" random "$T/in" -n 400 --classes 4 --min 32 --max 96 >/dev/null
"$BALE" pack "$T/in" -o "$T/out" -f wds --shard-count 100 2>/dev/null
upload "$T/out" "s3://$BUCKET/out"
"$LOADER_RUN" "$T/out/data-shards.json" 2 8 > "$T/batches.local"

"$LOADER_RUN" "s3://$BUCKET/out/" 2 8 > "$T/batches.s3" 2>"$T/loader.err" &
loader=$!
sleep 0.5
restart_during "$loader" Loader
wait "$loader" || { cat "$T/loader.err" >&2; fail "the Loader failed"; }
cmp -s "$T/batches.local" "$T/batches.s3" ||
    fail "the batches read across the restart differ"

upload "$T/in" "s3://$BUCKET/train"
flags=(-f wds --shard-count 40 --upload-part 5M)
"$BALE" pack "s3://$BUCKET/train/" -o "$T/packed" "${flags[@]}" -q
start_proxy --latency 60	# the pack must span the restart
AWS_ENDPOINT_URL=$proxy_url "$BALE" pack "s3://$BUCKET/train/" \
    -o "s3://$BUCKET/packed/" "${flags[@]}" 2>"$T/pack.err" &
pack=$!
sleep 0.5
restart_during "$pack" pack
if ! wait "$pack"; then
    grep -q -- '--resume' "$T/pack.err" ||
        fail "a failed pack did not say to resume: $(cat "$T/pack.err")"
    AWS_ENDPOINT_URL=$proxy_url run "$BALE" pack "s3://$BUCKET/train/" \
        -o "s3://$BUCKET/packed/" "${flags[@]}" --resume
    expect_status 0
fi
stop_proxy
mkdir "$T/got"
s3 get --recursive "s3://$BUCKET/packed/" "$T/got/" >/dev/null
for f in "$T"/packed/*; do
    [ "$(basename "$f")" = data-made.json ] && continue
    cmp -s "$f" "$T/got/$(basename "$f")" ||
        fail "$(basename "$f") packed across the restart differs"
done
echo ok
