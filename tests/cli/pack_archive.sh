#!/bin/bash
# An archive packs as its extracted folder does: a tar (GNU tar's own,
# Python's GNU and pax formats, long names), a zip (stored and deflated),
# a tar of per-class tars and compressed tars (gzip, bzip2, xz; one in an
# order not torchvision's, packed with a read-ahead bound so small that
# it takes many passes) give the same samples, order, labels and bytes as
# the folder, in every format built in, with -j1 and -j4 alike, and
# report the same files as not samples. Several archives, compressed or
# not, pack as one folder holding all of them.
. "$TESTS/cli/lib.sh"
formats=$("$BALE" --help | sed -n 's/^Formats built in: //p' | tr ' ' '\n' |
    grep -E '^(wds|lmdb|hdf5)$' | paste -sd,)
[ -n "$formats" ] || { echo "skipped: no format that writes is built in"; exit 77; }
"$MKDATA" tricky "$T/in"
rm "$T/in/9/linked"    # a symlink: an archive stores it as a link (see the hostile test)
# a name too long for a ustar header (GNU 'L' member, pax record)
long="$T/in/apple/$(printf 'd%.0s' {1..120})/$(printf 'f%.0s' {1..110})"
mkdir -p "$(dirname "$long")"
cp "$T/in/apple/sub/deep.jpg" "$long.jpg"
"$BALE" pack "$T/in" -f "$formats" -o "$T/ref" -q --report "$T/ref.json"
"$PY" "$TESTS/cli/make_archives.py" "$T/in" "$T/arc"
tar -C "$T/in" -cf "$T/arc/gnutar.tar" .
tar -C "$T/in" -czf "$T/arc/gnutar.tar.gz" .
for a in gnutar.tar gnu.tar pax.tar stored.zip deflated.zip tars.tar \
    gnutar.tar.gz gnu.tar.bz2 tars.tar.gz shuffled.tar.xz; do
    run "$BALE" pack "$T/arc/$a" -f "$formats" -o "$T/out-$a" -j1 \
        --report "$T/$a.json"
    expect_status 0
    "$PY" "$TESTS/cli/same_output.py" "$T/ref" "$T/out-$a" ||
        fail "$a does not pack as its folder"
    "$PY" - "$T/ref.json" "$T/$a.json" "$a" <<'PY'
import json, sys
ref, got, name = (json.load(open(sys.argv[1])), json.load(open(sys.argv[2])),
                  sys.argv[3])
assert got["status"] == "complete" and got["packed"] == ref["packed"], got
assert got["skipped"] == 0, got["skipped_files"]
ignored = sorted(e["path"] for e in got["ignored_files"])
want = sorted(e["path"] for e in ref["ignored_files"])
if name.startswith("tars.tar"):  # a tar of class tars: no top-level file
    want.remove("LICENSE.txt")
assert ignored == want, (ignored, want)
PY
done
# the workers read members in any order; the output does not change
"$BALE" pack "$T/arc/pax.tar" -f "$formats" -o "$T/j4" -j4 -q
"$PY" "$TESTS/cli/same_output.py" "$T/out-pax.tar" "$T/j4"
"$BALE" pack "$T/arc/deflated.zip" -f "$formats" -o "$T/j4z" -j4 -q
"$PY" "$TESTS/cli/same_output.py" "$T/out-deflated.zip" "$T/j4z"
# out of order, 4 KB of read-ahead: many passes over the stream, and
# whichever member a pass meets first, the output does not change
run "$BALE" pack "$T/arc/shuffled.tar.xz" -f "$formats" -o "$T/j4x" -j4 \
    --window 4K --report "$T/j4x.json"
expect_status 0
"$PY" "$TESTS/cli/same_output.py" "$T/ref" "$T/j4x"
"$PY" - "$T/j4x.json" "$T/shuffled.tar.xz.json" "$T/in" <<'PY'
import json, os, sys
small, large = (json.load(open(p)) for p in sys.argv[1:3])
assert large["stream_passes"] == 1, large["stream_passes"]
assert small["stream_passes"] > 2, small["stream_passes"]
# held: within the bound, plus the one member next in line
paths = [os.path.join(d, f) for d, _, fs in os.walk(sys.argv[3]) for f in fs]
biggest = max(os.path.getsize(p) for p in paths if os.path.isfile(p))
assert small["stream_peak_bytes"] <= 4096 + biggest, small
assert large["stream_peak_bytes"] > small["stream_peak_bytes"], large
PY
# several archives, one dataset: as if all were extracted into one folder
# (a class split between a tar and a zip, the loose file in the zip)
tar -C "$T/in" -cf "$T/part1.tar" -- -dash 10 9 apple/sub
"$PY" - "$T/in" "$T/part2" <<'PY'
import os, sys, tarfile, zipfile
root, out = sys.argv[1:3]
with zipfile.ZipFile(out + ".zip", "w") as z, \
        tarfile.open(out + ".tar.xz", "w:xz") as t:
    for d, _, fs in os.walk(root):
        for f in fs:
            rel = os.path.relpath(os.path.join(d, f), root)
            if not rel.startswith(("-dash/", "10/", "9/", "apple/sub/")):
                z.write(os.path.join(d, f), rel)
                t.add(os.path.join(d, f), rel)
PY
run "$BALE" pack "$T/part1.tar" "$T/part2.zip" -f "$formats" -o "$T/parts" -j3 \
    --report "$T/parts.json"
expect_status 0
"$PY" "$TESTS/cli/same_output.py" "$T/ref" "$T/parts"
"$PY" -c 'import json, sys
r = json.load(open(sys.argv[1]))
assert r["source"] == sys.argv[2] and r["sources"] == sys.argv[2:], r' \
    "$T/parts.json" "$T/part1.tar" "$T/part2.zip"
run "$BALE" pack "$T/part1.tar" "$T/in" -f "$formats" -o "$T/mixed"
expect_status 2
expect_stderr "several sources must all be archive files"
# compressed tars among them: each streamed by the one feeding thread,
# in turn, beside members read in place, within the window (4 KB: many
# passes over each), in the folder's order or shuffled
gzip -k "$T/part1.tar"
run "$BALE" pack "$T/part1.tar.gz" "$T/part2.zip" -f "$formats" \
    -o "$T/gz-zip" -j4 --window 4K
expect_status 0
"$PY" "$TESTS/cli/same_output.py" "$T/ref" "$T/gz-zip"
run "$BALE" pack "$T/part2.tar.xz" "$T/part1.tar.gz" -f "$formats" \
    -o "$T/xz-gz" -j4 --window 4K --report "$T/xz-gz.json"
expect_status 0
"$PY" "$TESTS/cli/same_output.py" "$T/ref" "$T/xz-gz"
"$PY" -c 'import json, sys
r = json.load(open(sys.argv[1]))
assert r["stream_passes"] > 2 and r["skipped"] == 0, r' "$T/xz-gz.json"
"$BALE" pack "$T/in" -f "$formats" -o "$T/ref-shuf" -q --shuffle --seed 3
run "$BALE" pack "$T/part1.tar.gz" "$T/part2.tar.xz" -f "$formats" \
    -o "$T/shuf-streams" -j4 --shuffle --seed 3
expect_status 0
"$PY" "$TESTS/cli/same_output.py" "$T/ref-shuf" "$T/shuf-streams"

# the usual `tar -cf top.tar top`: every image below one top folder; its
# sub-folders are the classes (said), as packing the folder gives them;
# an image right in the top folder is in no class, there as in the
# folder (named in a warning, not packed)
mkdir "$T/top"
cp -r "$T/in" "$T/top/tree"
cp "$T/in/apple/sub/deep.jpg" "$T/top/tree/stray.jpg"
run "$BALE" pack "$T/top/tree" -f "$formats" -o "$T/ref-stray"
expect_status 0
expect_stderr "stray.jpg: image outside any class folder: not packed"
"$PY" "$TESTS/cli/same_output.py" "$T/ref" "$T/ref-stray" ||
    fail "a stray image changed the folder's pack"
tar -cf "$T/top.tar" -C "$T/top" tree
tar -czf "$T/top.tar.gz" -C "$T/top" tree
(cd "$T/top" && "$PY" -c 'import os, zipfile
with zipfile.ZipFile("../top.zip", "w") as z:
    for d, _, fs in sorted(os.walk("tree")):
        for f in sorted(fs):
            z.write(os.path.join(d, f))')
for a in top.tar top.tar.gz top.zip; do
    run "$BALE" pack "$T/$a" -f "$formats" -o "$T/out-$a"
    expect_status 0
    expect_stderr "every image is below the one folder 'tree', some in its sub-folders: they are taken as the classes"
    expect_stderr "tree/stray.jpg: image outside any class folder: not packed"
    "$PY" "$TESTS/cli/same_output.py" "$T/ref" "$T/out-$a" ||
        fail "$a: differs from the folder's pack"
done
# the folder holding the classes named: the archive's top level (one
# class, 'tree'), or a folder inside it
run "$BALE" pack "$T/top.tar" -f "$formats" -o "$T/root-top" \
    --archive-root . --report "$T/root-top.json"
expect_status 0
"$BALE" info "$T/root-top" | grep -q '"classes":\["tree"\]' ||
    fail "--archive-root .: not the one class 'tree'"
"$PY" - "$T/root-top.json" "$T/ref.json" <<'PY'
import json, sys
got, ref = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert got["packed"] == ref["packed"] + 1, (got["packed"], ref["packed"])
PY
run "$BALE" pack "$T/top.zip" -f "$formats" -o "$T/root-tree" \
    --archive-root ./tree/
expect_status 0
expect_no_stderr "every image is below"
"$PY" "$TESTS/cli/same_output.py" "$T/ref" "$T/root-tree" ||
    fail "--archive-root tree differs from the folder's pack"
run "$BALE" pack "$T/top.tar.gz" -f "$formats" -o "$T/root-none" \
    --archive-root nope
expect_status 1
expect_stderr "no class folder below 'nope'"
expect_no_output "$T/root-none"
run "$BALE" pack "$T/in" -f "$formats" -o "$T/root-folder" \
    --archive-root tree
expect_status 2
expect_stderr "archive root names a folder inside an archive"
expect_no_output "$T/root-folder"
# a compressed tar is told apart as it streams (its members wait in a
# spill until a WebDataset label or an inner tar needs them listed
# whole): a shard whose .json comes before its .cls, an ImageFolder tar
# with a stray .tar among its images, out of order, pack as the same
# tars uncompressed
mkdir "$T/told"
"$PY" - "$T/told" "$T/in" <<'PY'
import glob, io, json, os, sys, tarfile
out, src = sys.argv[1], sys.argv[2]
imgs = [open(p, "rb").read() for p in sorted(glob.glob(src + "/*/*"))
        if p.endswith((".jpg", ".png"))][:6]
def add(t, name, data):
    ti = tarfile.TarInfo(name)
    ti.size = len(data)
    t.addfile(ti, io.BytesIO(data))
with tarfile.open(out + "/wds.tar", "w") as t:
    for k, img in enumerate(imgs):
        meta = {"path": "c%d/f%d.jpg" % (k % 2, k), "label": k % 2}
        add(t, "s%04d.json" % k, json.dumps(meta).encode())
        add(t, "s%04d.jpg" % k, img)
        add(t, "s%04d.cls" % k, str(k % 2).encode())
with tarfile.open(out + "/stray.tar", "w") as t:
    for k in (5, 2, 0, 3, 1, 4):
        add(t, "c%d/f%d.jpg" % (k % 2, k), imgs[k])
        if k == 3:
            add(t, "c1/stray.tar", b"x" * 100)
PY
for a in wds stray; do
    gzip -k "$T/told/$a.tar"
    "$BALE" pack "$T/told/$a.tar" -f "${formats%%,*}" \
        -o "$T/told/$a-plain" -q
    "$BALE" pack "$T/told/$a.tar.gz" -f "${formats%%,*}" \
        -o "$T/told/$a-gz" -q
    [ "$("$BALE" ls "$T/told/$a-plain" | wc -l)" = 6 ] ||
        fail "$a.tar: not 6 samples"
    diff <("$BALE" ls "$T/told/$a-plain") <("$BALE" ls "$T/told/$a-gz") ||
        fail "$a.tar.gz packs otherwise than $a.tar"
done
"$BALE" ls "$T/told/wds-gz" | cut -f6 | grep -qx c1/f1.jpg ||
    fail "a compressed shard's paths from its .json"
exit 0
