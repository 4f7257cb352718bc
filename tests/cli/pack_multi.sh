#!/bin/bash
# One pass writes every format built with the same samples, keys and
# labels; each is byte-identical whatever -j is; a failure in one format
# leaves no format looking complete.
. "$TESTS/cli/lib.sh"
formats=$(need_writers) || exit 77
[ "$(echo "$formats" | tr , '\n' | wc -l)" -ge 2 ] ||
    { echo "skipped: one pass of several formats needs two built"; exit 77; }
shards=()
! built wds || shards=(--shard-count 7)
"$MKDATA" tricky "$T/in"
for j in 1 8; do
    run "$BALE" pack "$T/in" -f "$formats" -o "$T/j$j" -j $j "${shards[@]}"
    expect_status 0
done
if built wds && built lmdb && built hdf5; then	# read by their libraries
    "$PY" "$CHECK" "$T/j1" "$T/in" --order --count 24
    "$PY" "$TESTS/interop/formats_match.py" "$T/j1" "$T/in"
fi
outputs=$(outputs_in "$T/j1")
"$BALE" ls "$(echo "$outputs" | head -1)" >"$T/first.ls"
[ "$(wc -l <"$T/first.ls")" -eq 24 ] || fail "not 24 samples"
for o in $outputs; do
    "$BALE" ls "$o" | cmp - "$T/first.ls" || fail "$o holds other samples"
done
# every file byte for byte whatever -j (but LMDB's lock, a reader's)
diff -r -x lock.mdb "$T/j1" "$T/j8" >/dev/null ||
    fail "the outputs differ between -j1 and -j8"

# the other layouts open in their readers too
if built lmdb && built hdf5; then
run "$BALE" pack "$T/in" -f lmdb,hdf5 -o "$T/alt" --lmdb-layout caffe \
    --lmdb-nosubdir --hdf5-layout vlen
expect_status 0
[ -f "$T/alt/data.lmdb" ] && [ ! -e "$T/alt/data.lmdb-lock" ] ||
    fail "nosubdir should give one data.lmdb file and no lock file"
"$PY" - "$T/alt" <<'PY'
import h5py, lmdb, sys
out = sys.argv[1]
env = lmdb.open(out + "/data.lmdb", subdir=False, readonly=True, lock=False)
with env.begin() as txn:
    keys = [k for k, _ in txn.cursor()]
assert len(keys) == 24 and keys[0].startswith(b"00000000_"), keys[:3]
f = h5py.File(out + "/data.h5", "r")
assert f.attrs["layout"] == "vlen" and f["images"].shape == (24,)
big = [i for i in range(24) if f["paths"][i] == b"10/big.jpg"][0]
assert f["images"][big].tobytes() == open(sys.argv[1] + "/../in/10/big.jpg", "rb").read()
PY
fi
if built lmdb; then
run "$BALE" pack "$T/in" -f lmdb -o "$T/bad" --lmdb-layout nope
expect_status 2
expect_stderr "layout 'nope': expected default or caffe"

# a path too long for an LMDB key makes the caffe layout fail mid-run,
# after wds and hdf5 have written samples: nothing may look complete
# (checkpointed progress and the resume journal may stay)
long="$T/in/Zebra/$(printf 'd%.0s' {1..200})/$(printf 'e%.0s' {1..200})/$(printf 'f%.0s' {1..200})"
mkdir -p "$long"
cp "$T/in/Zebra/b.png" "$long/z.png"
# lmdb last, so that the others have written samples
others=$(echo "$formats" | tr , '\n' | grep -vx lmdb | paste -sd, -)
shards2=()
! built wds || shards2=(--shard-count 2)
run "$BALE" pack "$T/in" -f "$others,lmdb" -o "$T/fail" --lmdb-layout caffe \
    "${shards2[@]}"
expect_status 1
expect_stderr "over LMDB's 511-byte key limit"
expect_no_output "$T/fail"
# resuming meets the same path and fails the same way, still incomplete
run "$BALE" pack "$T/in" -f "$others,lmdb" -o "$T/fail" --lmdb-layout caffe \
    "${shards2[@]}" --resume
expect_status 1
expect_stderr "over LMDB's 511-byte key limit"
expect_no_output "$T/fail"
fi

# a small dataset makes a small HDF5 file: its images fill one chunk of
# their own size, not a whole 4 MiB one (the per-sample datasets add
# about 200 KB)
built hdf5 || exit 0
"$MKDATA" random "$T/small" -n 40 --classes 2 --min 16 --max 32
"$BALE" pack "$T/small" -f hdf5 -o "$T/small-out" -q
data=$(du -sb "$T/small" | cut -f1)
h5=$(stat -c %s "$T/small-out/data.h5")
[ "$h5" -lt $((data + 512 * 1024)) ] ||
    fail "a $data-byte dataset made a $h5-byte HDF5 file"
"$BALE" verify "$T/small-out" >/dev/null || fail "the small HDF5 file"
"$PY" - "$T/small-out/data.h5" <<'PY'
import sys, h5py
d = h5py.File(sys.argv[1])["images"]
assert d.chunks[0] < 4 << 20 and d.chunks[0] % 4096 == 0, d.chunks
PY
