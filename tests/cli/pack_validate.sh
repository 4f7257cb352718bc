#!/bin/bash
# Corrupt images do not pass silently: pack --validate decodes every
# image (the bytes are stored as read) and skips those that do not
# decode, with why; verify --decode finds them in an output packed
# without it, naming sample and path; a BMP, which bale does not decode,
# is packed unchecked and said to be; one error repeated over a cut
# shard's samples is said once.
. "$TESTS/cli/lib.sh"
require_backend wds
require_backend lmdb
"$MKDATA" tricky "$T/in"
good="$T/in/10/ten.jpg"
head -c $(($(stat -c %s "$good") / 2)) "$good" >"$T/in/apple/cut.jpg"
echo "not an image" >"$T/in/apple/text.jpg"
png=$(find "$T/in" -name '*.png' | sort | head -1)
head -c $(($(stat -c %s "$png") - 20)) "$png" >"$T/in/apple/cut.png"
"$PY" -c 'import sys; from PIL import Image
Image.new("RGB", (8, 6), (1, 2, 3)).save(sys.argv[1])' "$T/in/apple/pic.bmp"

# without --validate they are packed; verify --decode finds them
"$BALE" pack "$T/in" -f wds,lmdb -o "$T/plain" -q
run "$BALE" verify "$T/plain"
expect_status 0
run "$BALE" verify "$T/plain" --decode
expect_status 1
for f in apple/cut.jpg apple/text.jpg apple/cut.png; do
    expect_stderr ", $f): does not decode"
done
expect_stderr "apple/cut.jpg): does not decode: jpeg: cannot decode"
expect_stderr "apple/text.jpg): does not decode: not an image"
grep -q "3 bad, decoded (1 in formats bale does not decode left unchecked)" \
    "$T/stdout" || fail "verify --decode: $(cat "$T/stdout")"

# --validate skips them, with why, and packs the rest byte for byte
run "$BALE" pack "$T/in" -f wds,lmdb -o "$T/valid" --validate \
    --report "$T/r.json"
expect_status 3
expect_stderr "skipped 'apple/cut.jpg': does not decode: jpeg: cannot decode"
expect_stderr "skipped 'apple/text.jpg': does not decode: not an image"
expect_stderr "skipped 'apple/cut.png': does not decode"
expect_stderr "1 image not checked: in a format bale does not decode"
"$PY" - "$T/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert sorted(e["path"] for e in r["skipped_files"]) == \
    ["apple/cut.jpg", "apple/cut.png", "apple/text.jpg"], r["skipped_files"]
PY
run "$BALE" verify "$T/valid" --decode
expect_status 0
rm "$T/in/apple/cut.jpg" "$T/in/apple/text.jpg" "$T/in/apple/cut.png"
rm -rf "$T/x"
"$BALE" extract "$T/valid/data-shards.json" "$T/x" >/dev/null
diff -r --exclude='*.txt' --exclude=noext "$T/in" "$T/x" ||
    fail "--validate changed the bytes stored"

# a shard cut short: one line for its samples, with how many
"$BALE" pack "$T/in" -f wds -o "$T/cut" --shard-count 100 -q
tar=$T/cut/data-000000.tar
truncate -s $(($(stat -c %s "$tar") / 3)) "$tar"
run "$BALE" verify "$T/cut"
expect_status 1
expect_stderr "(cut short, or its .idx damaged)"
[ "$(grep -c "cut short" "$T/stderr")" -eq 1 ] ||
    fail "the cut shard's error was not said once: $(cat "$T/stderr")"
expect_stderr "the same for the next"
