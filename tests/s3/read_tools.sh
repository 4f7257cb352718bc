#!/bin/bash
# The read tools on an output in S3: a wds output uploaded with s3cmd
# reads through info, ls, cat, extract and verify (--decode too) exactly
# as the local one, by the folder's prefix and by its shard list; the
# same over plain http:// without credentials when the objects are
# public; an LMDB output is refused, saying why and what to do.
. "$TESTS/cli/lib.sh"
. "$TESTS/s3/lib.sh"
require_backend wds
make_bucket
"$MKDATA" random "$T/in" -n 120 --classes 3 >/dev/null
formats=wds
built lmdb && formats=$formats,lmdb
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
echo ok
