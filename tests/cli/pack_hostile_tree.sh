#!/bin/bash
# Trees that break naive packers: 100 000 files in one folder, a folder
# nested 200 deep, and names with newlines, tabs, leading dashes,
# non-UTF-8 bytes, and paths longer than a tar ustar header holds. All
# of it packs into every format and reads back byte for byte, with
# torchvision's labels (check_wds.py), and LMDB and HDF5 list the same.
. "$TESTS/cli/lib.sh"
require_backend wds
require_backend lmdb
require_backend hdf5
"$MKDATA" random "$T/seed" -n 1 --classes 1 --min 16 --max 16
jpg=$(find "$T/seed" -type f | head -1)
src=$T/in
mkdir -p "$src/many" "$src/deep" "$src/names" "$src/-dash class"
# 100 000 names for one small JPEG: hard links to two copies (ext4 allows
# 65 000 links a file), so no disk and no inode per name
cp "$jpg" "$T/seed/a.jpg"
cp "$jpg" "$T/seed/b.jpg"
$PY - "$T/seed" "$src/many" <<'PYEOF'
import os, sys
for i in range(100000):
    os.link(os.path.join(sys.argv[1], "ab"[i % 2] + ".jpg"),
            os.path.join(sys.argv[2], "%06d.jpg" % i))
PYEOF
# 200 folders deep
deep=$src/deep
for i in $(seq 200); do deep=$deep/d; done
mkdir -p "$deep"
cp "$jpg" "$deep/bottom.jpg"
# hard names
cp "$jpg" "$src/names/$(printf 'new\nline.jpg')"
cp "$jpg" "$src/names/$(printf 'tab\there.jpg')"
cp "$jpg" "$src/names/-leading-dash.jpg"
cp "$jpg" "$src/names/ spaces  inside .jpg"
cp "$jpg" "$src/names/$(printf 'latin1-\xe9t\xe9.jpg')"
cp "$jpg" "$src/-dash class/$(printf '%0240d' 0).jpg"
mkdir -p "$src/names/$(printf '%0150d' 0)"
cp "$jpg" "$src/names/$(printf '%0150d' 0)/past-ustar-limits.jpg"
total=$((100000 + 1 + 7))

run timeout 600 "$BALE" pack "$src" -f wds,lmdb,hdf5 -o "$T/out" \
    --shard-count 30000
[ "$status" -eq 0 ] || { cat "$T/stderr" >&2; fail "pack exited $status"; }
expect_stderr "$total samples"
"$PY" "$CHECK" "$T/out" "$src" --count "$total" --max-count 30000
# the other formats hold the same samples (key, label, size, checksum,
# path) in the same order, and every checksum holds
"$BALE" ls "$T/out/data-shards.json" >"$T/wds.ls"
for f in data.lmdb data.h5; do
    "$BALE" ls "$T/out/$f" | cmp -s - "$T/wds.ls" || fail "$f differs from wds"
    "$BALE" verify "$T/out/$f" >/dev/null || fail "verify $f"
done
[ "$(wc -l <"$T/wds.ls")" -ge "$total" ] || fail "bale ls lists too few"
exit 0
