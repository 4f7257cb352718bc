#!/bin/bash
# The read tools on an output in S3: wds and HDF5 outputs uploaded with
# s3cmd read through info, ls, cat, extract and verify (--decode too)
# exactly as the local ones, by the folder's prefix and by the output's
# file; the same over plain http:// and unsigned s3:// names without
# credentials when the objects are public; an LMDB output is refused, saying why and what to
# do, and a folder holding one reads another format.
. "$TESTS/cli/lib.sh"
. "$TESTS/s3/lib.sh"
require_backend wds
make_bucket
"$MKDATA" random "$T/in" -n 120 --classes 3 >/dev/null
formats=wds
built lmdb && formats=$formats,lmdb
built hdf5 && formats=$formats,hdf5
"$BALE" pack "$T/in" -o "$T/out" -f "$formats" --shard-count 25 2>/dev/null
upload "$T/out" "s3://$BUCKET/out"
local_list="$T/out/data-shards.json"
url="s3://$BUCKET/out/data-shards.json"

# the same listing and bytes as the local output, by list and by folder
"$BALE" ls "$local_list" > "$T/ls.local"
for name in "$url" "s3://$BUCKET/out/" "s3://$BUCKET/out"; do
    run "$BALE" ls -f wds "$name"
    expect_status 0
    cmp "$T/ls.local" "$T/stdout" || fail "bale ls of $name differs"
done
for i in 0 57 119; do
    "$BALE" cat "$url" "$i" > "$T/remote.bin"
    "$BALE" cat "$local_list" "$i" > "$T/local.bin"
    cmp "$T/local.bin" "$T/remote.bin" || fail "sample $i differs"
done
run "$BALE" info "$url"
expect_status 0
grep -q "samples: 120" "$T/stdout" || fail "info: $(cat "$T/stdout")"
grep -q '"formats":"wds' "$T/stdout" || fail "info: no made line"
run "$BALE" verify "$url"
expect_status 0
grep -q "120 samples, 0 bad" "$T/stdout" || fail "verify: $(cat "$T/stdout")"
run "$BALE" verify --decode "$url"
expect_status 0
"$BALE" extract "$url" "$T/ex" 2>/dev/null
diff -r "$T/in" "$T/ex" >/dev/null || fail "extract from S3 differs from the tree"

# HDF5 through bale's own HDF5 driver: the same bytes, verified
if built hdf5; then
    h5="s3://$BUCKET/out/data.h5"
    "$BALE" ls "$T/out/data.h5" > "$T/ls5.local"
    run "$BALE" ls "$h5"
    expect_status 0
    cmp "$T/ls5.local" "$T/stdout" || fail "bale ls of $h5 differs"
    for i in 0 64 119; do
        "$BALE" cat "$h5" "$i" > "$T/remote.bin"
        "$BALE" cat "$T/out/data.h5" "$i" > "$T/local.bin"
        cmp "$T/local.bin" "$T/remote.bin" || fail "hdf5 sample $i differs"
    done
    run "$BALE" verify --decode "$h5"
    expect_status 0
    grep -q "120 samples, 0 bad" "$T/stdout" || fail "verify: $(cat "$T/stdout")"
fi
# the folder: a format that reads from object stores is picked
run "$BALE" ls "s3://$BUCKET/out/"
expect_status 0
cmp "$T/ls.local" "$T/stdout" || fail "bale ls of the folder differs"
expect_no_stderr "LMDB"

# the tree as small objects (a prefix a class): the folder reader lists
# it as torchvision orders it, and bench reads outputs and tree there,
# the listing's time said
upload "$T/in" "s3://$BUCKET/train"
"$BALE" ls -f folder "$T/in" > "$T/lsf.local"
run "$BALE" ls -f folder "s3://$BUCKET/train/"
expect_status 0
cmp "$T/lsf.local" "$T/stdout" || fail "the tree in S3 lists otherwise"
# a hidden class and a class with sub-folders: the labels and order the
# pack writes (torchvision's), not S3's key order
cp -r "$T/in" "$T/in2"
first=$(ls "$T/in2" | head -1)
img=$(find "$T/in2/$first" -type f | head -1)
mkdir -p "$T/in2/.hidden" "$T/in2/$first/a" "$T/in2/$first/a.b"
cp "$img" "$T/in2/.hidden/h.jpg"
cp "$img" "$T/in2/$first/a/z.jpg"
cp "$img" "$T/in2/$first/a.b/y.jpg"
upload "$T/in2" "s3://$BUCKET/train2"
"$BALE" ls -f folder "$T/in2" > "$T/lsf2.local"
run "$BALE" ls -f folder "s3://$BUCKET/train2/"
expect_status 0
cmp "$T/lsf2.local" "$T/stdout" || fail "hidden or nested classes differ"
grep -q "\.hidden/h\.jpg" "$T/stdout" || fail "the hidden class is missing"
run "$BALE" bench "s3://$BUCKET/out/" --against "s3://$BUCKET/train/" \
    -t 1,4 -r 1 -k 30
expect_status 0
expect_stderr "listing 's3://$BUCKET/train/' (120 objects) took"
grep -q "^wds .*warm    4" "$T/stdout" || fail "bench: $(cat "$T/stdout")"
if built lmdb; then expect_stderr "data.lmdb' left out"; fi
run "$BALE" bench "s3://$BUCKET/out/data-shards.json" --against "$T/in" \
    -r 1 -k 30
expect_status 0
grep -q "^wds " "$T/stdout" || fail "bench: $(cat "$T/stdout")"

# a damaged shard in the store is found as on disk
head -c 20000 "$T/out/data-000001.tar" > "$T/cut.tar"
s3 put "$T/cut.tar" "s3://$BUCKET/cut/data-000001.tar" >/dev/null
upload "$T/out" "s3://$BUCKET/cut"
s3 put "$T/cut.tar" "s3://$BUCKET/cut/data-000001.tar" >/dev/null
run "$BALE" verify "s3://$BUCKET/cut/data-shards.json"
[ "$status" -ne 0 ] || fail "verify passed a shard cut short"

# LMDB maps a local file: refused, with the reason and what to do
if built lmdb; then
    run "$BALE" info "s3://$BUCKET/out/data.lmdb"
    [ "$status" -ne 0 ] || fail "LMDB read from S3"
    expect_stderr "LMDB maps a local file"
    expect_stderr "copy its folder to a local disk"
fi

# public objects over plain http, no credentials anywhere
upload_public() { s3 sync --no-preserve --acl-public "$1/" "$2/" >/dev/null; }
upload_public "$T/out" "s3://$BUCKET/pub"
run env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_ENDPOINT_URL \
    "$BALE" ls "$BALE_TEST_S3/$BUCKET/pub/data-shards.json"
expect_status 0
cmp "$T/ls.local" "$T/stdout" || fail "bale ls over http differs"
run env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY \
    "$BALE" verify "$BALE_TEST_S3/$BUCKET/pub/data-shards.json"
expect_status 0
# and by s3:// names, unsigned (no credentials found), the bucket
# public: a public dataset's bucket read as awscli's --no-sign-request
s3 setacl --acl-public "s3://$BUCKET" >/dev/null
for name in "s3://$BUCKET/pub/data-shards.json" "s3://$BUCKET/pub/"; do
    run env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY "$BALE" ls \
        -f wds "$name"
    expect_status 0
    cmp "$T/ls.local" "$T/stdout" || fail "unsigned ls of $name differs"
done
echo ok
