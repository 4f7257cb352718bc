#!/bin/bash
# A packed output is a source like a folder: bale's WebDataset shard list,
# LMDB and HDF5 files, and a Caffe LMDB, each convert into every format
# with the order, labels, class names, paths and bytes of a direct pack
# of the folder; a chain wds -> lmdb -> hdf5 -> wds ends byte-identical
# to it; the encode stage applies as it does to files; what cannot be
# converted (a Datum of raw pixels) is skipped with its reason.
. "$TESTS/cli/lib.sh"
for f in wds lmdb hdf5; do require_backend "$f"; done
"$MKDATA" tricky "$T/in"
rm "$T/in/9/linked"
"$BALE" pack "$T/in" -f wds,lmdb,hdf5 -o "$T/ref" -q
ls_of() { "$BALE" ls "$1" | cut -f3-; }    # label size crc path
for src in data-shards.json data.lmdb data.h5; do
    run "$BALE" pack "$T/ref/$src" -f wds,lmdb,hdf5 -o "$T/from-$src" -j3
    expect_status 0
    "$PY" "$TESTS/cli/same_output.py" "$T/ref" "$T/from-$src" ||
        fail "$src does not convert into what the folder packs into"
done
# the chain ends where the direct pack does, byte for byte
"$BALE" pack "$T/ref/data-shards.json" -f lmdb -o "$T/c1" -q
"$BALE" pack "$T/c1/data.lmdb" -f hdf5 -o "$T/c2" -q
"$BALE" pack "$T/c2/data.h5" -f wds -o "$T/c3" -q
"$PY" "$TESTS/cli/same_output.py" "$T/ref" "$T/c3" --present ||
    fail "the chain drifted"
cmp "$T/ref/data-000000.tar" "$T/c3/data-000000.tar"
# shuffled and encoded, as from the folder, whatever the thread count
"$BALE" pack "$T/in" -f wds -o "$T/enc-ref" -q --shuffle --seed 7 \
    --resize shorter:24
for j in 1 4; do
    "$BALE" pack "$T/ref/data.lmdb" -f wds -o "$T/enc-$j" -q --shuffle \
        --seed 7 --resize shorter:24 -j$j
    "$PY" "$TESTS/cli/same_output.py" "$T/enc-ref" "$T/enc-$j" ||
        fail "-j$j: a converted, shuffled, resized pack differs"
done
# bale's own Caffe layout: same samples (its keys keep the paths)
"$BALE" pack "$T/in" -f lmdb --lmdb-layout caffe -o "$T/bcaffe" -q
"$BALE" pack "$T/bcaffe/data.lmdb" -f wds -o "$T/from-bcaffe" -q
[ "$(ls_of "$T/from-bcaffe/data-shards.json")" = \
  "$(ls_of "$T/ref/data-shards.json")" ] || fail "bale's caffe LMDB"
# a Caffe LMDB as Caffe writes it: encoded, unflagged and raw Datums
"$PY" "$TESTS/cli/make_caffe_lmdb.py" "$T/in" "$T/caffe" >"$T/caffe.tsv"
run "$BALE" pack "$T/caffe" -f wds,hdf5 -o "$T/from-caffe" --report "$T/r.json"
expect_status 3
expect_stderr "_raw/pixels.jpg' holds raw pixels (a Caffe Datum not encoded)"
[ "$(ls_of "$T/from-caffe/data-shards.json")" = \
  "$(ls_of "$T/ref/data-shards.json")" ] || fail "a Caffe LMDB"
[ "$("$BALE" ls "$T/from-caffe/data-shards.json" | cut -f3,6 |
     awk -F'\t' '{print $2 "\t" $1}')" = "$(cat "$T/caffe.tsv")" ] ||
    fail "a Caffe LMDB's paths and labels"
"$BALE" verify "$T/from-caffe" >/dev/null
# a sample whose bytes no longer match its stored checksum is skipped
cp -r "$T/ref" "$T/dmg"
"$PY" - "$T/dmg/data-000000.tar" <<'PY'
import sys, tarfile
with tarfile.open(sys.argv[1]) as t:
    m = [m for m in t.getmembers() if m.name.startswith("0000000003.")][0]
with open(sys.argv[1], "r+b") as f:
    f.seek(m.offset_data + 100)
    b = f.read(1)
    f.seek(m.offset_data + 100)
    f.write(bytes([b[0] ^ 0xff]))
PY
run "$BALE" pack "$T/dmg/data-shards.json" -f lmdb -o "$T/from-dmg"
expect_status 3
expect_stderr "skipped '$("$BALE" ls "$T/ref/data.lmdb" | sed -n 4p | cut -f6)': its bytes do not match the checksum"
# the same in an LMDB, whose samples the workers read in place (the walk
# checks them, as it finds where they lie)
cp -r "$T/ref/data.lmdb" "$T/dmg.lmdb"
"$PY" - "$T/dmg.lmdb/data.mdb" <<'PY'
import lmdb, sys
with lmdb.open(sys.argv[1].rsplit("/", 1)[0], readonly=True) as env:
    with env.begin() as txn:
        v = bytes(txn.get(b"0000000003.image"))
data = bytearray(open(sys.argv[1], "rb").read())
at = data.find(v)
assert at >= 0 and data.find(v, at + 1) < 0
data[at + 100] ^= 0xff
open(sys.argv[1], "wb").write(bytes(data))
PY
run "$BALE" pack "$T/dmg.lmdb" -f wds --shuffle -o "$T/from-dmg-lmdb"
expect_status 3
expect_stderr "skipped '$("$BALE" ls "$T/ref/data.lmdb" | sed -n 4p | cut -f6)': its bytes do not match the checksum"
[ "$("$BALE" ls "$T/from-dmg-lmdb/data-shards.json" | wc -l)" = \
  "$(( $("$BALE" ls "$T/ref/data.lmdb" | wc -l) - 1 ))" ] ||
    fail "a damaged LMDB sample lost others, or was packed"
# a list file selects files or archive members, not a packed output's
# samples (nor WebDataset shards': see pack_archive_list)
printf 'apple/a.jpg\t0\n' >"$T/list.tsv"
run "$BALE" pack "$T/ref/data.lmdb" --list "$T/list.tsv" -f wds -o "$T/listed"
expect_status 2
expect_stderr "a list file cannot select from a packed output"
expect_no_output "$T/listed"
# an output bale cannot read: a clear message, nothing written
mkdir "$T/bad" && cp "$T/ref/data.h5" "$T/bad/data.h5"
truncate -s 4096 "$T/bad/data.h5"
run "$BALE" pack "$T/bad/data.h5" -f wds -o "$T/from-bad"
[ "$status" -ne 0 ] || fail "a damaged HDF5 file packed"
expect_no_output "$T/from-bad"
echo ok
