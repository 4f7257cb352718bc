#!/bin/bash
# Thousands of classes (ImageNet-21k has 21 841): every format packs and
# verifies them, with every name kept. HDF5 keeps them in an attribute,
# which past 64 KiB (some 4 000 names) needs the 1.8 file format's dense
# storage; bale failed there at the end of the pack before.
. "$TESTS/cli/lib.sh"
n=5000
"$MKDATA" random "$T/in" -n $n --classes $n --min 8 --max 9 >/dev/null
formats=
for f in wds lmdb hdf5; do
    "$BALE" formats | grep -q "^$f " && formats=$formats${formats:+,}$f
done
[ -n "$formats" ] || { echo "no format built"; exit 77; }
run "$BALE" pack "$T/in" -f "$formats" -o "$T/out" -q
expect_status 0
run "$BALE" verify "$T/out" -q
expect_status 0
[ "$(grep -c ": $n samples, 0 bad" "$T/stdout")" -eq "$(echo "$formats" | tr , '\n' | wc -l)" ] ||
    { cat "$T/stdout"; fail "verify"; }
if [ -f "$T/out/data.h5" ]; then
    "$PY" - "$T/out/data.h5" "$n" <<'PY' || fail "h5py: class_names"
import sys
import h5py
with h5py.File(sys.argv[1], "r") as f:
    names = [n.decode() if isinstance(n, bytes) else n
             for n in f.attrs["class_names"]]
n = int(sys.argv[2])
assert names == [f"n{i:08d}" for i in range(n)], names[:3]
PY
fi
