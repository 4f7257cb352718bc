#!/bin/bash
# The network's troubles between bale and the S3 gateway, made by
# tests/s3/fault_proxy.py: 503 SlowDown answers, connections dropped
# mid-answer, an answer that stalls, the gateway gone for seconds, 20 ms
# more round trip. Each is retried away and the output reads exactly as
# on disk; SlowDown for ever fails in bounded time, saying so.
. "$TESTS/cli/lib.sh"
. "$TESTS/s3/lib.sh"
require_backend wds
s3_output 60 3 --shard-count 15
"$BALE" ls "$T/out/data-shards.json" > "$T/ls.local"

proxy() { # ARGS...: AWS_ENDPOINT_URL through a new proxy
    start_proxy "$@"
    export AWS_ENDPOINT_URL="$proxy_url"
}
unproxy() { stop_proxy; }

reads_whole() { # WHAT
    run "$BALE" ls "$url"
    expect_status 0
    cmp -s "$T/ls.local" "$T/stdout" || fail "$1: ls differs"
    run "$BALE" verify "$url"
    expect_status 0
    rm -rf "$T/ex"
    "$BALE" extract "$url" "$T/ex" 2>/dev/null || fail "$1: extract failed"
    diff -r "$T/in" "$T/ex" >/dev/null || fail "$1: extract differs"
}

proxy --slowdown-every 4
reads_whole "503 SlowDown"
unproxy
proxy --drop-every 5
reads_whole "dropped connections"
unproxy
proxy --stall-every 25
start=$(date +%s)
BALE_HTTP_STALL_SECONDS=1 reads_whole "stalls"
[ $(($(date +%s) - start)) -lt 60 ] || fail "stalls took too long"
unproxy
proxy --down-after 12 --down-for 3
reads_whole "the gateway gone for 3 s"
unproxy
proxy --latency 20
reads_whole "20 ms more round trip"
unproxy

# the Loader's GETs in flight ahead of its threads, through drops and
# SlowDown: the batches of the output on disk, in both orders
for order in "" "--runs 6"; do
    # shellcheck disable=SC2086
    "$LOADER_RUN" "$T/out/data-shards.json" 1 2 $order > "$T/batches.local"
    proxy --drop-every 6 --slowdown-every 4
    # shellcheck disable=SC2086
    "$LOADER_RUN" "$url" 3 2 --io-requests 8 $order > "$T/batches.s3" ||
        fail "the Loader failed through faults ($order)"
    unproxy
    cmp -s "$T/batches.local" "$T/batches.s3" ||
        fail "the Loader's batches from S3 differ ($order)"
done

# SlowDown for ever: a bounded number of tries, then said
proxy --slowdown-every 1
start=$(date +%s)
run env AWS_MAX_ATTEMPTS=3 "$BALE" cat "$url" 5
[ "$status" -ne 0 ] || fail "a gateway that only says SlowDown was read"
expect_stderr "gave no usable answer in 3 tries: status 503"
[ $(($(date +%s) - start)) -lt 10 ] || fail "SlowDown retried too long"
unproxy
echo ok
