#!/bin/bash
# Trees that break naive packers: 100 000 files in one folder, a folder
# nested 200 deep, and names with newlines, tabs, leading dashes,
# non-UTF-8 bytes, and paths longer than a tar ustar header holds. All
# of it packs into every format built and reads back byte for byte, with
# torchvision's labels (check_wds.py, when wds is built; else the
# extracted tree), and every format lists the same.
. "$TESTS/cli/lib.sh"
formats=$(need_writers) || exit 77
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

shards=()
! built wds || shards=(--shard-count 30000)
run timeout 600 "$BALE" pack "$src" -f "$formats" -o "$T/out" "${shards[@]}"
[ "$status" -eq 0 ] || { cat "$T/stderr" >&2; fail "pack exited $status"; }
expect_stderr "$total samples"
outputs=$(outputs_in "$T/out")
first=$(echo "$outputs" | head -1)
if built wds; then
    "$PY" "$CHECK" "$T/out" "$src" --count "$total" --max-count 30000
else
    "$BALE" extract "$first" "$T/x" >/dev/null || fail "extract $first"
    diff -r "$src" "$T/x" >/dev/null || fail "$first: extracted bytes differ"
fi
# every format holds the same samples (key, label, size, checksum,
# path) in the same order, and every checksum holds
"$BALE" ls "$first" >"$T/first.ls"
for o in $outputs; do
    "$BALE" ls "$o" | cmp -s - "$T/first.ls" || fail "$o differs from $first"
    "$BALE" verify "$o" >/dev/null || fail "verify $o"
done
[ "$(wc -l <"$T/first.ls")" -ge "$total" ] || fail "bale ls lists too few"
exit 0
