#!/bin/bash
# WebDataset shards are a source, whoever wrote them: a folder of shards,
# a brace pattern, or one shard; samples grouped by key as webdataset
# groups them, labels from KEY.cls or the "label" of KEY.json, paths from
# KEY.json or the image member's name, in shard then member order; what
# cannot be a sample is reported with its reason, and members bale has no
# place for are counted in a warning. bale's own shards convert into
# what a direct pack gives. Compressed shards are read as plain ones.
. "$TESTS/cli/lib.sh"
for f in wds lmdb hdf5; do require_backend "$f"; done
"$MKDATA" tricky "$T/in"
rm "$T/in/9/linked"
"$PY" "$TESTS/cli/make_wds.py" "$T/in" "$T/shards" >"$T/want.tsv"
ls_of() { "$BALE" ls "$1" | cut -f3-; }    # label size crc path
for j in 1 4; do
    run "$BALE" pack "$T/shards" -f wds,lmdb,hdf5 -o "$T/out-$j" -j$j
    expect_status 3
    expect_stderr "skipped 'nopic (sample)': no image member"
    expect_stderr "skipped 'nolabel (sample)': no label (no KEY.cls, and no \"label\" in KEY.json)"
    expect_stderr "WebDataset source: $(($(wc -l <"$T/want.tsv") + 1)) members beside the image, .cls and .json of their samples (such as KEY.txt) are not carried over"
    for f in data-shards.json data.lmdb data.h5; do
        diff "$T/want.tsv" <(ls_of "$T/out-$j/$f") ||
            fail "-j$j: $f does not hold the shards' samples"
    done
done
"$PY" "$TESTS/cli/same_output.py" "$T/out-1" "$T/out-4"
# a brace pattern, as webdataset takes it, and one shard alone
"$BALE" pack "$T/shards/shard-{000000..000001}.tar" -f lmdb -o "$T/brace" -q
diff <(head -n 10 "$T/want.tsv") <(ls_of "$T/brace/data.lmdb")
"$BALE" pack "$T/shards/shard-000001.tar" -f lmdb -o "$T/one" -q
diff <(sed -n 6,10p "$T/want.tsv") <(ls_of "$T/one/data.lmdb")
run "$BALE" pack "$T/shards/shard-{000000..000009}.tar" -f lmdb -o "$T/gone"
[ "$status" -ne 0 ] || fail "a pattern naming missing shards packed"
expect_stderr "cannot open '$T/shards/shard-000005.tar'"
# bale's own shards, as a folder: what the folder itself packs into
"$BALE" pack "$T/in" -f wds,lmdb,hdf5 -o "$T/ref" -q
mkdir "$T/bale-shards"
cp "$T/ref"/data-* "$T/bale-shards/"
run "$BALE" pack "$T/bale-shards" -f lmdb,hdf5 -o "$T/from-shards" -j3
expect_status 0
"$PY" "$TESTS/cli/same_output.py" "$T/ref" "$T/from-shards" --present
# a shard cut short fails the run; allowed, it keeps the samples before
# the cut, and says so
head -c 4500 "$T/shards/shard-000000.tar" >"$T/cut.tar"
run "$BALE" pack "$T/cut.tar" -f lmdb -o "$T/cut"
expect_status 1
expect_stderr "the dataset would miss whatever follows the damage"
run "$BALE" pack "$T/cut.tar" -f lmdb -o "$T/cut" --allow-damaged
expect_status 3
expect_stderr "nothing after it is read"
[ "$(ls_of "$T/cut/data.lmdb" | wc -l)" -ge 1 ] || fail "the cut shard lost all"

# compressed shards (webdataset reads .tar.gz too): streamed, several in
# turn, and give what the plain ones give, in a folder, as a pattern or
# alone, within a 4 KB window as with a large one
mkdir "$T/gz"
for t in "$T"/shards/*.tar; do gzip -c "$t" >"$T/gz/$(basename "$t").gz"; done
run "$BALE" pack "$T/gz" -f wds,lmdb,hdf5 -o "$T/gz-out" -j4 --window 4K
expect_status 3
expect_stderr "skipped 'nolabel (sample)': no label"
"$PY" "$TESTS/cli/same_output.py" "$T/out-1" "$T/gz-out"
"$BALE" pack "$T/gz/shard-{000000..000001}.tar.gz" -f lmdb -o "$T/gz-brace" -q
diff <(head -n 10 "$T/want.tsv") <(ls_of "$T/gz-brace/data.lmdb")
"$BALE" pack "$T/gz/shard-000001.tar.gz" -f lmdb -o "$T/gz-one" -q
diff <(sed -n 6,10p "$T/want.tsv") <(ls_of "$T/gz-one/data.lmdb")
# a compressed shard cut short: the samples before the cut are packed
head -c $(($(stat -c %s "$T/gz/shard-000000.tar.gz") * 2 / 3)) \
    "$T/gz/shard-000000.tar.gz" >"$T/cut.tar.gz"
run "$BALE" pack "$T/cut.tar.gz" -f lmdb -o "$T/gz-cut"
expect_status 1
run "$BALE" pack "$T/cut.tar.gz" -f lmdb -o "$T/gz-cut" --allow-damaged
expect_status 3
expect_stderr "damaged after"
[ "$(ls_of "$T/gz-cut/data.lmdb" | wc -l)" -ge 1 ] || fail "the cut compressed shard lost all"
echo ok
