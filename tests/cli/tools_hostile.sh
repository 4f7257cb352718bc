#!/bin/bash
# The readers refuse hostile LMDB and HDF5 outputs with a message saying
# what is wrong: exit 1, no crash, and nothing allocated because a file
# says so (a count of 10^12 samples in a small file). A label changed to
# another number, which no checksum covers, is caught where the sample's
# JSON holds it too (LMDB, wds). Each format where the build has it.
. "$TESTS/cli/lib.sh"
formats=$(need_writers) || exit 77
"$MKDATA" random "$T/in" -n 12 --classes 3 --min 16 --max 40
"$BALE" pack "$T/in" -f "$formats" -o "$T/good" -q

# hdf5 CASE MESSAGE: a copy of the good file, changed by CASE (h5py), is
# refused by verify with MESSAGE
hdf5() {
    rm -f "$T/bad.h5"
    cp "$T/good/data.h5" "$T/bad.h5"
    "$PY" "$TESTS/python/damage.py" hdf5 "$T/bad.h5" "$1"
    run "$BALE" verify "$T/bad.h5"
    expect_status 1
    expect_stderr "$2"
    if grep -q "Sanitizer\|Segmentation" "$T/stderr"; then
        fail "hdf5 $1: the reader crashed"
    fi
}
if built hdf5; then
hdf5 count "count says 1000000000000 samples, more than a file of"
hdf5 layout "layout 'bogus' is none of bale's"
hdf5 no-labels "dataset 'labels' is missing or does not hold count (12) rows"
hdf5 short-crc32 "dataset 'crc32' is missing or does not hold count (12) rows"
hdf5 wide-keys "'keys' is missing or not strings of fixed width under 64"
hdf5 offsets "offsets end at byte 1099511627776, past the end of images"
hdf5 deflated "images is not one chunked, unfiltered dimension of bytes"
fi

# lmdb CASE MESSAGE: the same for a copy of the good LMDB output
lmdb() {
    rm -rf "$T/bad.lmdb"
    cp -r "$T/good/data.lmdb" "$T/bad.lmdb"
    "$PY" "$TESTS/python/damage.py" lmdb "$T/bad.lmdb" "$1"
    run "$BALE" verify "$T/bad.lmdb"
    expect_status 1
    expect_stderr "$2"
}
if built lmdb; then
lmdb label "bad label"
lmdb other-label "0000000003: label 7 in .cls, "
lmdb long-key "is too long"
lmdb no-image "0000000005: its .cls, .image and .json records are not all there"
fi

if built wds; then
# wds: sample 3's .cls member rewritten in place to another digit
rm -rf "$T/wds"
mkdir "$T/wds"
cp "$T/good"/data-* "$T/wds/"
"$PY" "$TESTS/python/damage.py" wds "$T/wds/data-000000.tar"
run "$BALE" verify "$T/wds/data-shards.json"
expect_status 1
expect_stderr "wds: label 9 in .cls, "

# wds: an .idx line whose image offset plus size wraps around 2^64 (the
# fuzzer's find) is refused, not read from before the buffer
rm -rf "$T/wds"
mkdir "$T/wds"
cp "$T/good"/data-* "$T/wds/"
sed -i '2s/^\([a-z]*\) [0-9]* /\1 18446744073709551615 /' \
    "$T/wds/data-000000.idx"
run "$BALE" verify "$T/wds/data-shards.json"
expect_status 1
expect_stderr "(cut short, or its .idx damaged)"
fi

built lmdb || exit 0
# lmdb: a data file cut short (its meta page names pages past the end,
# which LMDB would touch through its map: SIGBUS) is refused at open
rm -rf "$T/bad.lmdb"
cp -r "$T/good/data.lmdb" "$T/bad.lmdb"
truncate -s $(($(stat -c %s "$T/bad.lmdb/data.mdb") / 2)) "$T/bad.lmdb/data.mdb"
run "$BALE" verify "$T/bad.lmdb"
expect_status 1
expect_stderr "the data file is cut short"
