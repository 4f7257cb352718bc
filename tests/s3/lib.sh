# lib.sh - what the object-store tests share; sourced after
# tests/cli/lib.sh. The gateway is the suite's: scripts/test starts one
# (tests/s3/gateway.sh) and exports its URL in BALE_TEST_S3; each test
# makes a bucket of its own, removed at the end, and sees no ~/.aws but
# the one it writes. BALE_TEST_S3_DIR, the gateway's folder, lets a
# test restart it.
S3_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

case "${BALE_TEST_S3:-}" in
http*) ;;
"")
    echo "skipped: no S3 gateway (scripts/test starts one; or run" \
        "tests/s3/gateway.sh up DIR and export BALE_TEST_S3=its URL)"
    exit 77 ;;
*) fail "the suite's S3 gateway did not start: $BALE_TEST_S3" ;;
esac

export HOME="$T/home"
mkdir -p "$HOME"
export AWS_ENDPOINT_URL="$BALE_TEST_S3" AWS_ACCESS_KEY_ID=AKTEST
export AWS_SECRET_ACCESS_KEY=SKTEST AWS_REGION=us-east-1
unset AWS_PROFILE AWS_SESSION_TOKEN AWS_DEFAULT_REGION AWS_CA_BUNDLE \
    AWS_ENDPOINT_URL_S3 AWS_SHARED_CREDENTIALS_FILE AWS_CONFIG_FILE
S3_HOST=${BALE_TEST_S3#*://}

# s3cmd, the interop client, configured for the gateway
cat > "$T/s3cfg" <<CFG
[default]
access_key = AKTEST
secret_key = SKTEST
host_base = $S3_HOST
host_bucket = $S3_HOST
use_https = False
signature_v2 = False
CFG
s3() { s3cmd -q -c "$T/s3cfg" "$@"; }

# make_bucket: a bucket for this test alone, its name in $BUCKET,
# emptied and removed when the test ends (and a proxy started stopped)
make_bucket() {
    BUCKET="bale-$(basename "$0" .sh | tr '_' '-')-$$-$RANDOM"
    BUCKET=${BUCKET:0:63}
    s3 mb "s3://$BUCKET" >/dev/null
    trap '[ -z "${proxy_pid:-}" ] || stop_proxy;
        s3 rb --recursive --force "s3://$BUCKET" >/dev/null 2>&1;
        chmod -R u+rwx "$T" 2>/dev/null; rm -rf "$T"' EXIT
}

# start_proxy ARGS...: tests/s3/fault_proxy.py (ARGS: its faults) in
# front of the gateway, its URL in $proxy_url; stop_proxy ends it
start_proxy() {
    rm -f "$T/port"
    "$PY" "$S3_DIR/fault_proxy.py" "${S3_HOST##*:}" "$@" > "$T/port" &
    proxy_pid=$!
    for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.05; done
    proxy_url="http://127.0.0.1:$(cat "$T/port")"
}
stop_proxy() {
    kill "$proxy_pid" 2>/dev/null || true
    wait "$proxy_pid" 2>/dev/null || true
}

# upload DIR URL: the folder's files as objects under URL/ (s3cmd)
upload() {
    s3 sync --no-preserve "$1/" "$2/" >/dev/null
}

# s3_output N CLASSES [PACK FLAGS...]: a bucket of this test's own
# holding a wds output of N random images in CLASSES classes, packed in
# $T/out and uploaded to s3://$BUCKET/out; its shard list in $url
s3_output() {
    local n=$1 classes=$2
    shift 2
    make_bucket
    "$MKDATA" random "$T/in" -n "$n" --classes "$classes" >/dev/null
    "$BALE" pack "$T/in" -o "$T/out" -f wds "$@" 2>/dev/null
    upload "$T/out" "s3://$BUCKET/out"
    url="s3://$BUCKET/out/data-shards.json"
}
