#!/bin/bash
# bale pack -o s3://bucket/out/: WebDataset shards streamed into the
# bucket as multipart uploads. What s3cmd fetches of it is byte for byte
# the same pack on local disk, and verify passes on both; an output
# there is refused without --force; --force keeps the old output whole
# until the new one is (a killed --force leaves it as it was), then
# removes it; a killed run leaves no list and no upload behind, and
# --resume finishes it byte for byte; SlowDown answers and dropped
# connections change nothing; a format that cannot write there, wrong
# credentials and a missing bucket are refused, saying why; Ctrl-C
# while a request stalls ends the run at once. HDF5 goes up whole at the
# end, byte for byte the local file.
. "$TESTS/cli/lib.sh"
. "$TESTS/s3/lib.sh"
require_backend wds
make_bucket
s3ls() { s3cmd -c "$T/s3cfg" ls "$@"; }	# s3's -q keeps ls quiet

"$MKDATA" random "$T/in" -n 200 --classes 4 >/dev/null
# shards of ~6 MB in parts of 5 MiB: two parts each, the last short
flags=(-f wds --shard-size 6M --upload-part 5M --uploads 2)
"$BALE" pack "$T/in" -o "$T/local" "${flags[@]}" -q
nshards=$(ls "$T/local"/data-*.tar | wc -l)
[ "$nshards" -ge 3 ] || fail "the local pack made $nshards shards"

same_as_local() { # PREFIX WHAT: the objects under PREFIX are the local pack
    rm -rf "$T/got"
    mkdir "$T/got"
    s3 get --recursive "s3://$BUCKET/$1/" "$T/got/" >/dev/null ||
        fail "$2: s3cmd cannot fetch it"
    for f in "$T"/local/*; do
        cmp -s "$f" "$T/got/$(basename "$f")" ||
            fail "$2: $(basename "$f") differs from the local pack's"
    done
    [ "$(ls "$T/got" | wc -l)" = "$(ls "$T/local" | wc -l)" ] ||
        fail "$2: other objects than the local pack's files: $(ls "$T/got")"
    "$BALE" verify "$T/got" >/dev/null || fail "$2: verify of the copy failed"
}
no_uploads_left() { # WHAT
    s3cmd -c "$T/s3cfg" multipart "s3://$BUCKET" > "$T/uploads" 2>&1
    ! grep -q "s3://$BUCKET/[^[:space:]]" "$T/uploads" ||
        fail "$1: multipart uploads left: $(cat "$T/uploads")"
}

run "$BALE" pack "$T/in" -o "s3://$BUCKET/out/" "${flags[@]}"
expect_status 0
same_as_local out "a pack into the bucket"
no_uploads_left "a finished run"
run "$BALE" verify "s3://$BUCKET/out/"
expect_status 0

# an output there is not replaced unless asked
run "$BALE" pack "$T/in" -o "s3://$BUCKET/out" "${flags[@]}"
expect_status 1
expect_stderr "exists (use --force to replace it)"
same_as_local out "a refused run"

# SIGKILL mid-upload, through a proxy that makes each request slow
kill_after_first_shard() { # PREFIX ARGS...: bale pack killed once its
    # second shard is up (the journal records the first by then)
    local prefix=$1
    shift
    start_proxy --latency 150
    AWS_ENDPOINT_URL=$proxy_url "$BALE" pack "$T/in" \
        -o "s3://$BUCKET/$prefix/" "${flags[@]}" "$@" 2>"$T/killed.err" &
    local pid=$!
    for _ in $(seq 600); do
        s3ls "s3://$BUCKET/$prefix/" 2>/dev/null | grep -q -- '-000001\.idx$' &&
            break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    kill -9 "$pid" 2>/dev/null ||
        fail "the run ended before it was killed: $(cat "$T/killed.err")"
    wait "$pid" 2>/dev/null || true
    stop_proxy
}

kill_after_first_shard fresh
s3ls "s3://$BUCKET/fresh/" > "$T/left"
! grep -q data-shards.json "$T/left" ||
    fail "a killed run left a complete-looking output"
run "$BALE" ls "s3://$BUCKET/fresh/"
[ "$status" != 0 ] || fail "a killed run's output opened"
run "$BALE" pack "$T/in" -o "s3://$BUCKET/fresh/" "${flags[@]}" --resume
expect_status 0
expect_stderr "resum"
same_as_local fresh "a resumed run"
no_uploads_left "a resumed run"
# resuming a finished output finds it so, and writes nothing
run "$BALE" pack "$T/in" -o "s3://$BUCKET/fresh/" "${flags[@]}" --resume
expect_status 0
expect_stderr "every output is complete already, nothing was written"
same_as_local fresh "a resume of a finished output"

# --force: killed, the old output stays whole; resumed, it is replaced
# by shards of names of its own (S3 has no rename), the old ones removed
"$BALE" ls "s3://$BUCKET/out/" > "$T/ls.old"
echo changed > "$T/in/n00000000/extra.jpg"
"$BALE" pack "$T/in" -o "$T/local" "${flags[@]}" -q --force
kill_after_first_shard out --force
run "$BALE" ls "s3://$BUCKET/out/"
expect_status 0
cmp -s "$T/ls.old" "$T/stdout" || fail "a killed --force changed the output"
run "$BALE" verify "s3://$BUCKET/out/"
expect_status 0
run "$BALE" pack "$T/in" -o "s3://$BUCKET/out/" "${flags[@]}" --force \
    --resume
expect_status 0
"$BALE" ls "$T/local" > "$T/ls.new"
run "$BALE" ls "s3://$BUCKET/out/"
cmp -s "$T/ls.new" "$T/stdout" || fail "--force did not replace the output"
run "$BALE" verify "s3://$BUCKET/out/"
expect_status 0
# each shard the list names is the local pack's, in order
s3 get "s3://$BUCKET/out/data-shards.json" "$T/list.json" >/dev/null
i=0
for url in $("$PY" -c 'import json, sys
for s in json.load(open(sys.argv[1]))["shardlist"]: print(s["url"])' \
    "$T/list.json"); do
    s3 get "s3://$BUCKET/out/$url" "$T/shard.tar" >/dev/null
    cmp -s "$T/shard.tar" "$(printf "$T/local/data-%06d.tar" "$i")" ||
        fail "shard $url is not the local pack's shard $i"
    rm "$T/shard.tar"
    i=$((i + 1))
done
[ "$i" = "$(ls "$T/local"/data-*.tar | wc -l)" ] || fail "$i shards listed"
s3ls "s3://$BUCKET/out/" | awk '{print $4}' | sed 's|.*/||' > "$T/objects"
[ "$(grep -c . "$T/objects")" = $((3 * i + 2)) ] ||
    fail "objects left beside the new output: $(cat "$T/objects")"
no_uploads_left "a replacing run"

# SlowDown answers and dropped connections: retried, the same bytes
rm "$T/in/n00000000/extra.jpg"
"$BALE" pack "$T/in" -o "$T/local" "${flags[@]}" -q --force
start_proxy --slowdown-every 4 --drop-every 9
AWS_ENDPOINT_URL=$proxy_url run "$BALE" pack "$T/in" \
    -o "s3://$BUCKET/faults/" "${flags[@]}"
stop_proxy
expect_status 0
same_as_local faults "a run through faults"

# Ctrl-C while the store holds a request unanswered: out at once (not
# after the 30 s stall and its retries), with no output looking complete
start_proxy --stall-every 3
AWS_ENDPOINT_URL=$proxy_url "$BALE" pack "$T/in" -o "s3://$BUCKET/stall/" \
    "${flags[@]}" 2>"$T/stall.err" &
pid=$!
sleep 2
start=$(date +%s)
kill -INT "$pid"
wait "$pid" && fail "an interrupted pack succeeded"
[ $(($(date +%s) - start)) -le 5 ] || fail "Ctrl-C took over 5 s"
stop_proxy
! s3ls "s3://$BUCKET/stall/" | grep -q data-shards.json ||
    fail "an interrupted pack left a shard list"

# HDF5: made in a staging folder in $TMPDIR, uploaded whole at the end
if built hdf5; then
    "$BALE" pack "$T/in" -o "$T/h5local" -f hdf5 -q
    mkdir -p "$T/tmp"
    TMPDIR="$T/tmp" run "$BALE" pack "$T/in" -o "s3://$BUCKET/h5/" -f hdf5
    expect_status 0
    [ -z "$(ls -A "$T/tmp")" ] || fail "the staging folder was left"
    for f in data.h5 data.h5.bidx; do
        s3 get "s3://$BUCKET/h5/$f" "$T/$f" >/dev/null
        cmp -s "$T/$f" "$T/h5local/$f" || fail "$f differs from the local"
    done
    run "$BALE" verify "s3://$BUCKET/h5/data.h5"
    expect_status 0
    run "$BALE" pack "$T/in" -o "s3://$BUCKET/h5/" -f hdf5
    expect_status 1
    expect_stderr "exists"
    run "$BALE" pack "$T/in" -o "s3://$BUCKET/h5/" -f hdf5 --force
    expect_status 0
    run "$BALE" verify "s3://$BUCKET/h5/data.h5"
    expect_status 0
fi

# refusals
if built lmdb; then
    run "$BALE" pack "$T/in" -o "s3://$BUCKET/lmdb/" -f lmdb
    expect_status 2
    expect_stderr "lmdb cannot write into an object store"
fi
run "$BALE" pack "$T/in" -o "s3://no-such-bucket-$$/out/" -f wds
expect_status 1
expect_stderr "no such bucket"
AWS_SECRET_ACCESS_KEY=wrong run "$BALE" pack "$T/in" \
    -o "s3://$BUCKET/creds/" -f wds
expect_status 1
expect_stderr "refused key id AKTEST"
run "$BALE" pack "$T/in" -o "s3://$BUCKET/x/" -f wds --upload-part 1M
expect_status 2
echo ok
