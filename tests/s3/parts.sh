#!/bin/bash
# bale pack --part I/N into a bucket, and bale merge of the parts there:
# the merged output is byte for byte what the same parts merged on disk
# give (s3cmd get), it verifies, and its shards were copied by the store
# itself (no GET of a part's shard passes through bale); a part already
# complete is not packed again; a merged output there is replaced only
# with --force; parts on disk merge into a bucket and parts in a bucket
# onto disk; HDF5 parts there are refused, saying why.
. "$TESTS/cli/lib.sh"
. "$TESTS/s3/lib.sh"
require_backend wds
make_bucket
"$MKDATA" random "$T/in" -n 90 --classes 3 >/dev/null
upload "$T/in" "s3://$BUCKET/train"
parts="s3://$BUCKET/parts"
for i in 0 1 2; do
    run "$BALE" pack "s3://$BUCKET/train/" -o "$parts/p$i/" -f wds \
        --part "$i/3" --shard-count 10
    expect_status 0
    "$BALE" pack "$T/in" -o "$T/parts/p$i" -f wds --part "$i/3" \
        --shard-count 10 -q
done
"$BALE" merge "$T/merged" "$T/parts/p2" "$T/parts/p0" "$T/parts/p1"

# a relaunched array task finds its part done: nothing written
s3cmd -c "$T/s3cfg" ls "$parts/p1/" > "$T/p1.before"
run "$BALE" pack "s3://$BUCKET/train/" -o "$parts/p1/" -f wds \
    --part 1/3 --shard-count 10
expect_status 0
expect_stderr "part 1/3 of this run is already complete"
s3cmd -c "$T/s3cfg" ls "$parts/p1/" > "$T/p1.after"
cmp -s "$T/p1.before" "$T/p1.after" || fail "a complete part was packed again"

# merged in the bucket, the shards copied there by the store
start_proxy --log "$T/requests"
AWS_ENDPOINT_URL=$proxy_url run "$BALE" merge "s3://$BUCKET/merged/" \
    "$parts/p2/" "$parts/p0/" "$parts/p1/"
stop_proxy
expect_status 0
! grep -E "^GET .*/parts/p[0-9]/data-[0-9]+\.tar" "$T/requests" ||
    fail "the merge read a part's shard through bale"
grep -qE "^PUT .*/merged/data-000000\.tar 0$" "$T/requests" ||
    fail "the first shard was not copied by the store: $(cat "$T/requests")"
mkdir "$T/got"
s3 get --recursive "s3://$BUCKET/merged/" "$T/got/" >/dev/null
for f in "$T/merged"/*; do
    case $f in *-made.json) continue ;; esac
    cmp -s "$f" "$T/got/${f##*/}" ||
        fail "${f##*/} differs from the merge on disk"
done
[ "$(ls "$T/merged" | wc -l)" = "$(ls "$T/got" | wc -l)" ] ||
    fail "the merged outputs hold other files: $(ls "$T/got")"
run "$BALE" verify "s3://$BUCKET/merged/"
expect_status 0
grep -q "90 samples, 0 bad" "$T/stdout" || fail "verify: $(cat "$T/stdout")"

# there already: refused without --force, replaced with it
run "$BALE" merge "s3://$BUCKET/merged/" "$parts"/p{0,1,2}/
[ "$status" -ne 0 ] || fail "a merge replaced an output without --force"
expect_stderr "data-shards.json' exists"
run "$BALE" merge "s3://$BUCKET/merged/" "$parts"/p{0,1,2}/ --force
expect_status 0

# parts on disk into the bucket, parts in the bucket onto disk
"$BALE" ls "$T/merged" > "$T/ls.disk"
run "$BALE" merge "s3://$BUCKET/up/" "$T"/parts/p{0,1,2}
expect_status 0
"$BALE" ls "s3://$BUCKET/up/" | cmp -s - "$T/ls.disk" ||
    fail "local parts merged into the bucket list otherwise"
run "$BALE" merge "$T/down" "$parts"/p{0,1,2}/
expect_status 0
"$BALE" ls "$T/down" | cmp -s - "$T/ls.disk" ||
    fail "parts in the bucket merged onto disk list otherwise"
cmp -s "$T/merged/data-000003.tar" "$T/down/data-000003.tar" ||
    fail "a shard downloaded by the merge differs"

# an HDF5 merge names the parts' files, which its library opens locally
if built hdf5; then
    for i in 0 1; do
        "$BALE" pack "s3://$BUCKET/train/" -o "$parts-h5/p$i/" -f hdf5 \
            --part "$i/2" -q
    done
    run "$BALE" merge "s3://$BUCKET/h5/" "$parts-h5"/p{0,1}/
    [ "$status" -ne 0 ] || fail "an HDF5 merge in a bucket passed"
    expect_stderr "parts in an object store cannot be merged yet"
    [ -z "$(s3cmd -c "$T/s3cfg" ls "s3://$BUCKET/h5/")" ] ||
        fail "a refused merge wrote"
fi
echo ok
