#!/bin/bash
# The encode stage from the command line: every bad input skipped with
# its reason (exit 3), bad flag combinations refused before any work
# (exit 2), and the same output for any thread count.
. "$TESTS/cli/lib.sh"
require_backend wds
require_backend hdf5
"$MKIMAGES" "$T/in"

# bad inputs: each one named with why, the rest packed
run "$BALE" pack "$T/in" -f wds -o "$T/out" --resize shorter:32 \
    --report "$T/report.json"
expect_status 3
expect_stderr "'bad/truncated.jpg': jpeg: cannot decode: Premature end"
expect_stderr "'bad/corrupt.jpg': jpeg: cannot decode"
expect_stderr "'bad/truncated.png': png: cannot decode"
expect_stderr "'bad/huge.jpg': image is 60000 x 60000 = 3600000000 pixels"
expect_stderr "'bad/other.webp': webp: bale decodes only JPEG and PNG"
expect_stderr "'bad/notes.jpg': not a JPEG or PNG file"
expect_stderr "'bad/header_only.jpg': no image size in the header"
expect_stderr "26 samples"
expect_stderr "7 skipped"
$PY - "$T/report.json" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
skipped = {s["path"] for s in r["skipped_files"]}
want = {"bad/truncated.jpg", "bad/corrupt.jpg", "bad/truncated.png",
        "bad/huge.jpg", "bad/other.webp", "bad/notes.jpg",
        "bad/header_only.jpg"}
assert skipped == want, skipped
PYEOF

# --max-pixels judges from the header; --strict makes a skip fatal
run "$BALE" pack "$T/in" -f wds -o "$T/small" --quality 80 --max-pixels 100000
expect_status 3
expect_stderr "'jpeg/base420.jpg': image is 640 x 480 = 307200 pixels, over the limit of 100000"
expect_stderr "samples re-encoded"
run "$BALE" pack "$T/in" -f wds -o "$T/strict" --resize shorter:32 --strict
expect_status 1
expect_no_output "$T/strict"

# a size limit alone keeps every image within it as it came (no
# re-encode), and says nothing was re-encoded; larger ones are skipped
cp -r "$T/in" "$T/good"
rm -r "$T/good/bad"
"$BALE" pack "$T/good" -f wds -o "$T/asis" -q
run "$BALE" pack "$T/good" -f wds -o "$T/limited" --max-pixels 100000 \
    --report "$T/limited.json"
expect_status 3
expect_no_stderr "re-encoded"
"$PY" - "$T/asis" "$T/limited" "$T/limited.json" <<'PYEOF'
import json, subprocess, sys, os
bale = os.environ["BALE"]
asis, limited = (subprocess.run([bale, "ls", p], check=True, text=True,
                                capture_output=True).stdout.splitlines()
                 for p in sys.argv[1:3])
rep = json.load(open(sys.argv[3]))
assert rep["reencoded"] == 0, rep["reencoded"]
skipped = {s["path"] for s in rep["skipped_files"]}
assert skipped and all("over the limit" in s["reason"]
                       for s in rep["skipped_files"]), rep["skipped_files"]
# every sample kept (label, size, crc, path) is the pass-through one
kept = {tuple(l.split("\t")[2:]) for l in limited}
assert kept <= {tuple(l.split("\t")[2:]) for l in asis}, kept
assert len(limited) == len(asis) - len(skipped), (len(limited), len(asis))
PYEOF

# refused combinations: exit 2 or 1 with the reason, nothing written
for bad in "--resize shorter:32 --pad" "--resize longer:32 --crop center" \
    "--resize exact:9x9 --crop center" "--crop center" \
    "--pixels 32x32 --resize shorter:32" "--resize shorter:0" \
    "--resize wide:3" "--quality 0" "--quality 101" "--subsampling 411" \
    "--color cmyk" "--alpha drop" "--background red" "--pixels 32"; do
    # shellcheck disable=SC2086
    run "$BALE" pack "$T/in" -f wds -o "$T/refused" $bad
    [ "$status" -eq 1 ] || [ "$status" -eq 2 ] ||
        fail "'$bad': exit status $status"
    [ -s "$T/stderr" ] || fail "'$bad': no message"
    expect_no_output "$T/refused"
done
run "$BALE" pack "$T/in" -f hdf5 -o "$T/refused" --resize shorter:32 \
    -O hdf5.deflate=4
expect_status 1
expect_stderr "deflate applies to pixel arrays"

# same bytes for any thread count, encoded or as pixel arrays
same() {
    [ "$(ls "$1")" = "$(ls "$2")" ] || fail "$1 and $2 hold different files"
    for f in "$1"/*; do cmp "$f" "$2/$(basename "$f")" || fail "$f differs"; done
}
for opts in "--resize shorter:48 --crop center --quality 85" \
    "--pixels 40x30 -O hdf5.deflate=6"; do
    for j in 1 4; do
        # shellcheck disable=SC2086
        "$BALE" pack "$T/in" -f wds,hdf5 -o "$T/j$j" -j $j $opts -q || [ $? -eq 3 ]
    done
    same "$T/j1" "$T/j4"
    rm -rf "$T/j1" "$T/j4"
done
exit 0
