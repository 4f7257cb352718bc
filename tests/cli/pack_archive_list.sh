#!/bin/bash
# A list file selects from an archive as from its extracted folder: the
# same lines (paths as extraction places the members, labels, order,
# a path listed twice) give the same samples and bytes from a tar, a
# zip, a tar of tars, compressed tars and several archives together, with
# -j1 and -j4. A line naming no member, a link or a duplicated name is
# skipped with its reason; members the list does not name are left out
# unreported; WebDataset shards cannot be selected from.
. "$TESTS/cli/lib.sh"
require_backend wds    # the folder's sample paths come from a shard list
formats=$("$BALE" --help | sed -n 's/^Formats built in: //p' | tr ' ' '\n' |
    grep -E '^(wds|lmdb|hdf5)$' | paste -sd,)
[ -n "$formats" ] || { echo "skipped: no format that writes is built in"; exit 77; }
"$MKDATA" tricky "$T/in"
rm "$T/in/9/linked"    # an archive stores it as a link (see below)
"$PY" "$TESTS/cli/make_archives.py" "$T/in" "$T/arc"
tar -C "$T/in" -czf "$T/arc/gnutar.tar.gz" .
# every image the folder holds, shuffled, some twice, some as "./PATH",
# with labels not the classes'; and a file that is not an image
"$BALE" pack "$T/in" -f wds -o "$T/all" -q
"$BALE" ls "$T/all/data-shards.json" | cut -f6 >"$T/paths"
"$PY" - "$T/paths" "$T/list.tsv" <<'PY'
import random, sys
paths = open(sys.argv[1]).read().split("\n")[:-1]
rng = random.Random(7)
rng.shuffle(paths)
lines = [(p, rng.randrange(5)) for p in paths]
lines[3] = ("./" + lines[3][0], lines[3][1])
lines.append(("LICENSE.txt", 4))
with open(sys.argv[2], "w") as f:
    f.writelines("%s\t%d\n" % line for line in lines)
PY
run "$BALE" pack "$T/in" --list "$T/list.tsv" -f "$formats" -o "$T/ref" -q
expect_status 0
for a in gnu.tar pax.tar stored.zip deflated.zip gnutar.tar.gz \
    shuffled.tar.xz; do
    for j in 1 4; do
        run "$BALE" pack "$T/arc/$a" --list "$T/list.tsv" -f "$formats" \
            -o "$T/out-$a-$j" -j$j --window 64K
        expect_status 0
        "$PY" "$TESTS/cli/same_output.py" "$T/ref" "$T/out-$a-$j" ||
            fail "$a -j$j does not pack as its folder through the list"
    done
done

# a tar of class tars: its samples' paths are CLASS/MEMBER
"$BALE" ls "$T/all/data-shards.json" | awk -F'\t' \
    '$6 ~ /^(apple|10)\/[^\/]*$/ { print $6 "\t" NR % 3 }' >"$T/tars.tsv"
[ -s "$T/tars.tsv" ] || fail "the tars list is empty"
"$BALE" pack "$T/in" --list "$T/tars.tsv" -f "$formats" -o "$T/ref-tars" -q
for a in tars.tar tars.tar.gz; do
    run "$BALE" pack "$T/arc/$a" --list "$T/tars.tsv" -f "$formats" \
        -o "$T/out-$a"
    expect_status 0
    "$PY" "$TESTS/cli/same_output.py" "$T/ref-tars" "$T/out-$a"
done

# several archives, one dataset, one list
tar -C "$T/in" -cf "$T/part1.tar" -- -dash 10 9 apple/sub
"$PY" - "$T/in" "$T/part2.zip" <<'PY'
import os, sys, zipfile
root, out = sys.argv[1:3]
with zipfile.ZipFile(out, "w") as z:
    for d, _, fs in os.walk(root):
        for f in fs:
            rel = os.path.relpath(os.path.join(d, f), root)
            if not rel.startswith(("-dash/", "10/", "9/", "apple/sub/")):
                z.write(os.path.join(d, f), rel)
PY
run "$BALE" pack "$T/part1.tar" "$T/part2.zip" --list "$T/list.tsv" \
    -f "$formats" -o "$T/parts" -j3
expect_status 0
"$PY" "$TESTS/cli/same_output.py" "$T/ref" "$T/parts"

# lines that give no sample: each skipped with its reason (exit 3),
# while members the list does not name (unsafe ones, a device) are not
# reported: they are not part of the dataset
f=${formats%%,*}
"$PY" "$TESTS/cli/make_hostile_archives.py" "$T/in/10/ten.jpg" "$T/h"
printf '%s\t0\n' cls/good.jpg cls/nothere.jpg cls/link.jpg cls/dup.jpg \
    ../evil.jpg cls/good.jpg >"$T/bad.tsv"
skipped() { # REPORT 'path: reason-part' ...: exactly these skipped
    "$PY" - "$@" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
got = sorted((e["path"], e["reason"]) for e in r["skipped_files"])
want = sorted(w.split(": ", 1) for w in sys.argv[2:])
assert len(got) == len(want), got
for (path, why), (wpath, part) in zip(got, want):
    assert path == wpath and part in why, (path, why, wpath, part)
print(r["packed"])
PY
}
run "$BALE" pack "$T/h/bad.tar" --list "$T/bad.tsv" -f "$f" -o "$T/o-bad" \
    --report "$T/bad.json"
expect_status 3
packed=$(skipped "$T/bad.json" "cls/nothere.jpg: no member of the archive" \
    "cls/link.jpg: symbolic link" "cls/dup.jpg: duplicate member name" \
    "../evil.jpg: not one a member can have")
# good, dup (its last copy), good again: listed twice, packed twice
[ "$packed" = 3 ] || fail "bad.tar packed $packed, not 3"
# from a compressed tar a member is read once: its second line is skipped
run "$BALE" pack "$T/h/bad.tar.gz" --list "$T/bad.tsv" -f "$f" \
    -o "$T/o-badz" --report "$T/badz.json"
expect_status 3
packed=$(skipped "$T/badz.json" "cls/nothere.jpg: no member of the archive" \
    "cls/link.jpg: symbolic link" "cls/dup.jpg: duplicate member name" \
    "../evil.jpg: not one a member can have" "cls/good.jpg: listed again")
[ "$packed" = 2 ] || fail "bad.tar.gz packed $packed, not 2"

# WebDataset shards: the list cannot select from them
run "$BALE" pack "$T/all" --list "$T/list.tsv" -f "$f" -o "$T/o-wds"
expect_status 2
expect_stderr "a list file cannot select from WebDataset shards"
expect_no_output "$T/o-wds"
run "$BALE" pack "$T/all/data-000000.tar" --list "$T/list.tsv" -f "$f" \
    -o "$T/o-shard"
expect_status 1
expect_stderr "a list file cannot select from them"
expect_no_output "$T/o-shard"
exit 0
