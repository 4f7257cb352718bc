#!/bin/bash
# Wrong answers from an HTTP server (tests/s3/hostile_http.py, no S3
# gateway needed): a body cut short, a range other than asked, more
# bytes than asked, the whole file for a range, errors that are not
# XML. Each is refused with words saying what was wrong, after a bounded
# number of tries, without a hang and without wrong bytes handed on; the
# same faults now and then are retried away and the output reads whole.
# The same server checks S3's two addressings: by path, by host name.
. "$TESTS/cli/lib.sh"
require_backend wds
export HOME="$T/home"
mkdir -p "$HOME"
"$MKDATA" random "$T/in" -n 40 --classes 2 >/dev/null
"$BALE" pack "$T/in" -o "$T/out" -f wds --shard-count 10 2>/dev/null
"$BALE" ls "$T/out/data-shards.json" > "$T/ls.local"

serve() { # MODE [--every K]: the server's URL of the output's list
    rm -f "$T/port"
    "$PY" "$TESTS/s3/hostile_http.py" "$T/out" "$@" > "$T/port" &
    server=$!
    for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.05; done
    url="http://127.0.0.1:$(cat "$T/port")/data-shards.json"
}
stop() { kill "$server" 2>/dev/null; wait "$server" 2>/dev/null || true; }

# every .tar read answered wrongly: refused, saying how
check_refused() { # MODE WORDS
    serve "$1"
    start=$(date +%s)
    run env AWS_MAX_ATTEMPTS=2 "$BALE" cat "$url" 7
    stop
    [ "$status" -ne 0 ] || fail "$1: a wrong answer was taken"
    [ ! -s "$T/stdout" ] || fail "$1: bytes were handed on"
    expect_stderr "$2"
    [ $(($(date +%s) - start)) -lt 10 ] || fail "$1: took too long"
}
check_refused long-length "gave no usable answer in 2 tries"
check_refused short-body "gave no usable answer in 2 tries"
check_refused other-range "in answer to"
check_refused more-bytes "more bytes than the"
check_refused whole "more bytes than the"
check_refused html-503 "status 503"
check_refused garbage-403 "refused access"
grep -q "in 2 tries" "$T/stderr" && fail "a 403 was retried"

# wrong now and then: retried, and every byte as on disk
for mode in long-length other-range html-503 whole; do
    serve "$mode" --every 3
    run "$BALE" ls "$url"
    expect_status 0
    cmp -s "$T/ls.local" "$T/stdout" || fail "$mode: ls differs"
    run "$BALE" verify "$url"
    expect_status 0
    "$BALE" extract "$url" "$T/ex-$mode" 2>/dev/null
    diff -r "$T/in" "$T/ex-$mode" >/dev/null || fail "$mode: extract differs"
    stop
done
# addressing: by path for a custom endpoint (the bucket first in the
# path), by host name when the profile's s3 block says virtual (the
# bucket in the host name, bucket.localhost): this server serves the
# output at /out/ and at /bkt/out/ only as each style names it
mkdir -p "$T/root/bkt" "$HOME/.aws"
ln -s "$T/out" "$T/root/out"
ln -s "$T/out" "$T/root/bkt/out"
rm -f "$T/port"
"$PY" "$TESTS/s3/hostile_http.py" "$T/root" fine > "$T/port" &
server=$!
for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.05; done
export AWS_ENDPOINT_URL="http://localhost:$(cat "$T/port")"
export AWS_ACCESS_KEY_ID=AKTEST AWS_SECRET_ACCESS_KEY=SKTEST
rm "$T/root/out"
run "$BALE" ls "s3://bkt/out/data-shards.json"
expect_status 0
cmp -s "$T/ls.local" "$T/stdout" || fail "path-style ls differs"
ln -s "$T/out" "$T/root/out"
rm -r "$T/root/bkt"
printf '[default]\ns3 =\n  addressing_style = virtual\n' > "$HOME/.aws/config"
run "$BALE" ls "s3://bkt/out/data-shards.json"
expect_status 0
cmp -s "$T/ls.local" "$T/stdout" || fail "virtual-hosted ls differs"
stop
echo ok
