#!/bin/bash
# The store full: a gateway of its own whose in-memory OSD is small,
# filled; a Ceph cluster that is full holds writes without answering.
# A replacing pack into it fails cleanly (exit 1) within the stall's
# bounds, saying the store may be full, and the output there before
# still reads and verifies as it did. It costs a gateway start (about
# 15 s), so scripts/test runs it once, in its first build
# (BALE_TEST_S3_FULL_PORT: the port to start it on).
. "$TESTS/cli/lib.sh"
. "$TESTS/s3/lib.sh"
require_backend wds
port=${BALE_TEST_S3_FULL_PORT:-}
[ -n "$port" ] || {
    echo "skipped: BALE_TEST_S3_FULL_PORT unset (scripts/test sets it once)"
    exit 77
}
gw="$T/gw"
# a throwaway cluster: killed outright (a full one stops slowly)
trap 'kill -9 $(cat "$gw"/run/*.pid 2>/dev/null) 2>/dev/null; rm -rf "$T"' EXIT
MEMSTORE_BYTES=$((96 << 20)) "$S3_DIR/gateway.sh" up "$gw" "$port" \
    > "$T/up.log" 2>&1 || fail "the small gateway did not start: $(tail -3 "$T/up.log")"
export AWS_ENDPOINT_URL="http://127.0.0.1:$port"
sed -i "s/^host_base = .*/host_base = 127.0.0.1:$port/;
    s/^host_bucket = .*/host_bucket = 127.0.0.1:$port/" "$T/s3cfg"
s3 mb s3://full >/dev/null

"$MKDATA" random "$T/small" -n 40 --classes 2 >/dev/null
"$BALE" pack "$T/small" -o s3://full/out/ -f wds -q
"$BALE" ls s3://full/out/ > "$T/ls.before"

# fill it: 8 MB objects until one is not taken within 5 s
head -c $((8 << 20)) /dev/urandom > "$T/junk"
full=0
for i in $(seq 40); do
    if ! timeout 5 s3cmd -q -c "$T/s3cfg" put "$T/junk" "s3://full/junk$i" \
        >/dev/null 2>&1; then
        full=1
        break
    fi
done
[ "$full" = 1 ] || fail "320 MB went into a 96 MB store"

"$MKDATA" random "$T/more" -n 200 --classes 2 >/dev/null
start=$(date +%s)
BALE_HTTP_STALL_SECONDS=1 AWS_MAX_ATTEMPTS=2 run "$BALE" pack "$T/more" \
    -o s3://full/out/ -f wds --force
took=$(( $(date +%s) - start ))
expect_status 1
expect_stderr "may be full"
[ "$took" -lt 60 ] || fail "the failing pack took $took s"
run "$BALE" ls s3://full/out/
expect_status 0
cmp -s "$T/ls.before" "$T/stdout" || fail "the output before changed"
run "$BALE" verify s3://full/out/
expect_status 0
echo ok
