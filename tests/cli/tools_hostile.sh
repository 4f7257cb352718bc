#!/bin/bash
# The readers refuse hostile LMDB and HDF5 outputs with a message saying
# what is wrong: exit 1, no crash, and nothing allocated because a file
# says so (a count of 10^12 samples in a small file). A label changed to
# another number, which no checksum covers, is caught where the sample's
# JSON holds it too (LMDB, wds).
. "$TESTS/cli/lib.sh"
require_backend wds
require_backend lmdb
require_backend hdf5
"$MKDATA" random "$T/in" -n 12 --classes 3 --min 16 --max 40
"$BALE" pack "$T/in" -f hdf5,lmdb,wds -o "$T/good" -q

# hdf5 CASE MESSAGE: a copy of the good file, changed by CASE (h5py), is
# refused by verify with MESSAGE
hdf5() {
    rm -f "$T/bad.h5"
    cp "$T/good/data.h5" "$T/bad.h5"
    "$PY" - "$T/bad.h5" "$1" <<'PY'
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r+")
case = sys.argv[2]
if case == "count":
    f.attrs["count"] = np.int64(10**12)
elif case == "layout":
    f.attrs["layout"] = "bogus"
elif case == "no-labels":
    del f["labels"]
elif case == "short-crc32":
    f["crc32"].resize((len(f["crc32"]) - 1,))
elif case == "wide-keys":
    n = len(f["keys"])
    del f["keys"]
    f.create_dataset("keys", data=np.array([b"k" * 100] * n, dtype="S100"))
elif case == "offsets":
    f["offsets"][-1] = 2**40
elif case == "deflated":
    data = f["images"][:]
    del f["images"]
    f.create_dataset("images", data=data, chunks=(4096,), compression="gzip")
f.close()
PY
    run "$BALE" verify "$T/bad.h5"
    expect_status 1
    expect_stderr "$2"
    if grep -q "Sanitizer\|Segmentation" "$T/stderr"; then
        fail "hdf5 $1: the reader crashed"
    fi
}
hdf5 count "count says 1000000000000 samples, more than a file of"
hdf5 layout "layout 'bogus' is none of bale's"
hdf5 no-labels "dataset 'labels' is missing or does not hold count (12) rows"
hdf5 short-crc32 "dataset 'crc32' is missing or does not hold count (12) rows"
hdf5 wide-keys "'keys' is missing or not strings of fixed width under 64"
hdf5 offsets "offsets end at byte 1099511627776, past the end of images"
hdf5 deflated "images is not one chunked, unfiltered dimension of bytes"

# lmdb CASE MESSAGE: the same for a copy of the good LMDB output
lmdb() {
    rm -rf "$T/bad.lmdb"
    cp -r "$T/good/data.lmdb" "$T/bad.lmdb"
    "$PY" - "$T/bad.lmdb" "$1" <<'PY'
import sys, lmdb
env = lmdb.open(sys.argv[1], map_size=1 << 26)
case = sys.argv[2]
with env.begin(write=True) as txn:
    keys = bytes(txn.get(b"__keys__")).split(b"\n")
    if case == "label":
        txn.put(keys[3] + b".cls", b"three")
    elif case == "other-label":
        txn.put(keys[3] + b".cls", b"7")
    elif case == "long-key":
        txn.put(b"__keys__", b"\n".join(keys + [b"k" * 700]))
    elif case == "no-image":
        txn.delete(keys[5] + b".image")
env.close()
PY
    run "$BALE" verify "$T/bad.lmdb"
    expect_status 1
    expect_stderr "$2"
}
lmdb label "bad label"
lmdb other-label "0000000003: label 7 in .cls, "
lmdb long-key "is too long"
lmdb no-image "0000000005: its .cls, .image and .json records are not all there"

# wds: sample 3's .cls member rewritten in place to another digit
rm -rf "$T/wds"
mkdir "$T/wds"
cp "$T/good"/data-* "$T/wds/"
"$PY" - "$T/wds/data-000000.tar" <<'PY'
import sys, tarfile
with tarfile.open(sys.argv[1]) as tar:
    m = tar.getmember("0000000003.cls")
    old = tar.extractfile(m).read()
assert len(old) == 1, old
with open(sys.argv[1], "r+b") as f:
    f.seek(m.offset_data)
    f.write(b"9" if old != b"9" else b"8")
PY
run "$BALE" verify "$T/wds/data-shards.json"
expect_status 1
expect_stderr "wds: label 9 in .cls, "
