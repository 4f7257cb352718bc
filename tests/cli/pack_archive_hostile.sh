#!/bin/bash
# Hostile archives are inputs like any other: unsafe paths, links,
# devices, duplicates, empty and cut-short members, nested tars, wrong
# CRCs, zip and tar bombs, encrypted and unknown-method members are each
# skipped with their reason (exit 3) while the good members are packed,
# byte for byte, compressed or not; an archive damaged part-way fails the
# run unless --allow-damaged; one bale cannot read at all fails it with
# a message.
. "$TESTS/cli/lib.sh"
f=$(any_backend)
"$MKDATA" tricky "$T/in"
img="$T/in/10/ten.jpg"
"$PY" "$TESTS/cli/make_hostile_archives.py" "$img" "$T/h"
pack() { # ARCHIVE [FLAG...]: pack it into $T/o-ARCHIVE with its report
    run timeout 60 "$BALE" pack "$T/h/$1" -f "$f" -o "$T/o-$1" \
        --report "$T/$1.json" "${@:2}"
}
# an archive that breaks off part-way fails the run (what follows the
# damage would be missing, whole classes perhaps); --allow-damaged packs
# what comes before it, with a warning naming the damage
damaged() { # ARCHIVE
    pack "$1"
    expect_status 1
    expect_stderr "the dataset would miss whatever follows the damage"
    expect_stderr "(--allow-damaged packs what comes before the damage)"
    expect_no_output "$T/o-$1"
    pack "$1" --allow-damaged
    expect_stderr "1 damaged archive: the dataset holds only what comes before"
}
# report ARCHIVE PACKED 'path: reason-part' ... : exactly these skipped
report() {
    "$PY" - "$T/$1.json" "${@:2}" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
packed, want = int(sys.argv[2]), sys.argv[3:]
assert r["packed"] == packed, (r["packed"], packed)
got = {e["path"]: e["reason"] for e in r["skipped_files"]}
assert len(got) == len(want), (sorted(got), want)
for w in want:
    path, part = w.split(": ", 1)
    assert path in got and part in got[path], (w, got.get(path))
PY
}
out_file() { # OUTPUT-DIR: the output of format $f in it
    ls -d "$1"/data-shards.json "$1"/data.lmdb "$1"/data.h5 2>/dev/null | head -1
}

for a in bad.tar bad.tar.gz; do
    pack $a
    expect_status 3
    expect_stderr "skipped '../evil.jpg': unsafe member path"
    report $a 2 "../evil.jpg: unsafe" "/abs/x.jpg: unsafe" \
        "cls/../../up.jpg: unsafe" "cls/link.jpg: symbolic link" \
        "cls/hard.jpg: hard link" "cls/dev.jpg: device node" \
        "cls/fifo.jpg: device node" "cls/dup.jpg: duplicate member name" \
        "cls/empty.jpg: empty file"
    # the samples: cls/dup.jpg as the archive's last copy, then cls/good.jpg
    o=$(out_file "$T/o-$a")
    "$BALE" cat "$o" 0 -f "$f" >"$T/dup"
    "$BALE" cat "$o" 1 -f "$f" >"$T/good"
    "$PY" -c 'import sys; a = open(sys.argv[1], "rb").read()
assert open(sys.argv[2], "rb").read() == a[::-1], "dup is not the last copy"
assert open(sys.argv[3], "rb").read() == a, "good differs"' "$img" "$T/dup" "$T/good"
done

damaged cut.tar
expect_status 3
report cut.tar 2 "$T/h/cut.tar: runs past the end of the archive"

# a compressed tar cut short: the members before the cut are packed;
# the one it cuts is skipped with its reason, and so are those libarchive
# had decompressed only in part (its last block before the cut is lost)
damaged cut.tar.gz
expect_status 3
"$PY" - "$T/cut.tar.gz.json" "$T/h/cut.tar.gz" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
skipped = {e["path"]: e["reason"] for e in r["skipped_files"]}
assert "damaged after" in skipped.pop(sys.argv[2]), r["skipped_files"]
assert all("truncated" in why for why in skipped.values()), skipped
assert r["packed"] >= 3 and r["packed"] + len(skipped) >= 5, r
PY
# a header claiming 2 GiB is refused from its size, not allocated
damaged bomb.tar.gz
expect_status 3
report bomb.tar.gz 1 "cls/bomb.jpg: claims 2147483648 bytes" \
    "$T/h/bomb.tar.gz: damaged after 2 members"

# two compressed tars, the first cut short: its loss stays its own, the
# second's members are all read
run timeout 60 "$BALE" pack "$T/h/cut.tar.gz" "$T/h/bomb.tar.gz" -f "$f" \
    -o "$T/o-two" --report "$T/two.json" --allow-damaged
expect_status 3
"$PY" - "$T/two.json" "$T/cut.tar.gz.json" "$T/h/bomb.tar.gz" <<'PY'
import json, sys
two, cut = (json.load(open(p)) for p in sys.argv[1:3])
skipped = {e["path"] for e in two["skipped_files"]}
assert two["packed"] == cut["packed"] + 1, (two["packed"], cut["packed"])
assert skipped == {e["path"] for e in cut["skipped_files"]} | {
    "cls/bomb.jpg", sys.argv[3]}, skipped
PY
"$BALE" cat "$(out_file "$T/o-two")" "$(($("$PY" -c 'import json, sys
print(json.load(open(sys.argv[1]))["packed"])' "$T/two.json") - 1))" -f "$f" |
    cmp - "$img" || fail "the second tar's good member differs"

pack nested.tar
expect_status 3
report nested.tar 1 "animal/deeper.tar: nested more than one level"

pack bad.zip
expect_status 3
report bad.zip 1 "cls/crc.jpg: CRC-32 differs" "cls/bomb.jpg: zip bomb" \
    "cls/enc.jpg: encrypted" "cls/method.jpg: compression method 12" \
    "cls/lies.jpg: inflates to more than" "cls/link.jpg: symbolic link"
"$BALE" cat "$(out_file "$T/o-bad.zip")" 0 -f "$f" | cmp - "$img"

# archives that cannot be read at all: a clear failure, no output
for a in cut.zip garbage.tar garbage.tar.gz; do
    pack "$a"
    expect_status 1
    expect_no_output "$T/o-$a"
done
pack cut.zip
expect_stderr "no end of central directory"
pack garbage.tar
expect_stderr "is not a tar, compressed tar or zip archive"
pack garbage.tar.gz
expect_stderr "is not a tar, compressed tar or zip archive"
exit 0
