#!/bin/bash
# An archive of more members than the walk sorts in memory (runs of
# 131 072, merged from an unlinked file) packs as its folder does: a tar
# in readdir order and a zip whose central directory is larger than the
# window it is read through give the same shards, byte for byte; where
# the sorted runs cannot be written, the run fails saying why. The
# members are hard links to a few small images, so the tree costs
# little. The same members compressed, and the folder's output read back
# as a source, pass through the feed's ring more than once over.
. "$TESTS/cli/lib.sh"
"$BALE" --help | grep -q '^Formats built in:.* wds' ||
    { echo "skipped: wds is not built in"; exit 77; }
"$MKDATA" random "$T/few" -n 8 --classes 1 --min 8 --max 8 --seed 5 \
    >/dev/null
"$PY" - "$T/few" "$T/in" <<'PY'
import os, sys
few, top = sys.argv[1:3]
imgs = [os.path.join(r, f) for r, _, fs in os.walk(few) for f in fs]
for c in range(150):
    d = os.path.join(top, "c%03d" % c)
    os.makedirs(d)
    for i in range(900):
        os.link(imgs[(c + i) % len(imgs)], os.path.join(d, "%04d.jpg" % i))
PY
"$BALE" pack "$T/in" -f wds -o "$T/ref" -q
tar --hard-dereference -C "$T/in" -cf "$T/in.tar" .
(cd "$T/in" && "$PY" -c 'import os, zipfile
with zipfile.ZipFile("../in.zip", "w") as z:
    for r, _, fs in os.walk("."):
        for f in fs:
            z.write(os.path.join(r, f))')
for a in in.tar in.zip; do
    TMPDIR=$T run "$BALE" pack "$T/$a" -f wds -o "$T/out-$a" --report \
        "$T/$a.json"
    expect_status 0
    "$PY" "$TESTS/cli/same_output.py" "$T/ref" "$T/out-$a" ||
        fail "$a does not pack as its folder"
done
# compressed, with its members in the reverse of the output's order:
# more positions than the feed's ring holds (65 536), so a pass meets
# members it cannot keep yet and more passes take them
(cd "$T/in" && find . -type f | sort -r) >"$T/rev.list"
tar --hard-dereference -C "$T/in" -cf - -T "$T/rev.list" | gzip -1 \
    >"$T/rev.tar.gz"
run "$BALE" pack "$T/rev.tar.gz" -f wds -o "$T/out-gz" --report "$T/gz.json"
expect_status 0
"$PY" "$TESTS/cli/same_output.py" "$T/ref" "$T/out-gz" ||
    fail "a compressed tar does not pack as its folder"
"$PY" -c 'import json, sys
sys.exit(json.load(open(sys.argv[1]))["stream_passes"] < 2)' "$T/gz.json" ||
    fail "every member of the reversed archive was taken in one pass"
# a packed output of as many samples converts back into the same shards
run "$BALE" pack "$T/ref/data-shards.json" -f wds -o "$T/out-conv"
expect_status 0
"$PY" "$TESTS/cli/same_output.py" "$T/ref" "$T/out-conv" ||
    fail "the packed output does not convert into itself"
# the sorted runs' file is unlinked from the start: nothing is left
[ -z "$(find "$T" -maxdepth 1 -name '.bale-spill-*')" ] ||
    fail "a spill file was left behind"
# where the runs cannot go, the run fails saying so, and writes nothing
TMPDIR=$T/missing run "$BALE" pack "$T/in.tar" -f wds -o "$T/nowhere"
expect_status 1
expect_stderr "cannot keep the sorted members in '$T/missing'"
expect_no_output "$T/nowhere"
