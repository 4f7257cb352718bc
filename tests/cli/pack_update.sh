#!/bin/bash
# bale pack --update, the same command every night: after adding 50
# files, changing 5, removing 10 and adding a class, every format lists
# exactly the tree's files with their exact bytes; the old samples keep
# their keys and labels; the new class is numbered after the old ones
# (torchvision would have shifted every label); the report lists what
# changed. An update with nothing changed opens no image and leaves
# every file of the output as it was. Two outputs given the same
# sequence of updates are byte for byte the same. Refusals: other
# formats or options than the output's, an archive as the source.
. "$TESTS/cli/lib.sh"
export LC_ALL=C
require_backend wds
require_backend lmdb
formats=wds,lmdb
if "$BALE" --help | grep -q "^Formats built in:.* hdf5\b"; then
    formats=wds,lmdb,hdf5
fi
outs="data-shards.json data.lmdb"
[ "$formats" = wds,lmdb ] || outs="$outs data.h5"
"$MKDATA" random "$T/tree" -n 120 --classes 4 --min 16 --max 40 --seed 5
update() {    # OUT [more options]: the nightly command
    local out=$1
    shift
    run "$BALE" pack "$T/tree" -f "$formats" -o "$out" --update \
        --shard-count 16 --report "$out.report.json" "$@"
}
# OUT/O as path, size, crc32, sorted
out_listing() {
    "$BALE" ls "$1" | awk -F'\t' '{print $6 "\t" $4 "\t" $5}' | sort
}
# path -> key and label, from OUT/O
keys_labels() {
    "$BALE" ls "$1" | awk -F'\t' '{print $6 "\t" $2 "\t" $3}' | sort
}
check_tree() {    # OUT LABEL: every format holds exactly the tree
    local o
    for o in $outs; do
        diff <(tree_listing "$T/tree") <(out_listing "$1/$o") ||
            fail "$2: $o does not hold the tree's files"
        "$BALE" verify "$1/$o" >/dev/null || fail "$2: $o does not verify"
    done
    diff <("$BALE" ls "$1/data.lmdb") <("$BALE" ls "$1/data-shards.json") ||
        fail "$2: the formats disagree"
    rm -rf "$T/x"
    "$BALE" extract "$1/data-shards.json" "$T/x" >/dev/null
    diff -r "$T/tree" "$T/x" || fail "$2: extracted bytes differ"
}

update "$T/a"
expect_status 0
update "$T/b"
check_tree "$T/a" "first run"
keys_labels "$T/a/data.lmdb" >"$T/v1"

# the night's changes
i=0
for f in "$T"/tree/n0000000[12]/*.JPEG; do
    [ $i -lt 50 ] || break
    cp "$f" "$(dirname "$f")/new_$i.jpeg"
    i=$((i + 1))
done
for f in $(find "$T/tree" -name 'img_*' | sort | head -n 5); do
    cat "$f" "$f" >"$T/twice" && mv "$T/twice" "$f"
done
find "$T/tree" -name 'img_*' | sort | tail -n 10 | xargs rm
mkdir "$T/tree/a_new_class"
cp "$(find "$T/tree/n00000001" -name '*.JPEG' | head -1)" \
    "$T/tree/a_new_class/x.jpg"
cp "$T/a/data-shards.json" "$T/list-v1"
update "$T/a"
expect_status 0
expect_stderr "version 2 of the dataset: 51 added, 5 replaced, 10 removed"
# shards of the version before stay for its readers
shards() {
    "$PY" -c 'import json, sys
for s in json.load(open(sys.argv[1]))["shardlist"]:
    print(s["url"])' "$1"
}
for s in $(shards "$T/list-v1"); do
    [ -f "$T/a/$s" ] || fail "$s of the version before is gone"
done
update "$T/b"
check_tree "$T/a" "after the update"
"$PY" - "$T/a.report.json" <<'PYEOF' || fail "the report"
import json, sys
u = json.load(open(sys.argv[1]))["update"]
assert u["version"] == 2 and not u["first"], u
assert len(u["added"]) == 51 and len(u["replaced"]) == 5, u
assert len(u["removed"]) == 10 and u["new_classes"] == ["a_new_class"], u
assert "a_new_class/x.jpg" in u["added"], u
PYEOF
# kept samples keep key and label; replaced ones have new keys; the new
# class is numbered next (4), not first as torchvision would
keys_labels "$T/a/data.lmdb" >"$T/v2"
join -t $'\t' "$T/v1" "$T/v2" | awk -F'\t' '$2 != $4 && $3 == $5 {n++}
    $3 != $5 {bad++} END {exit !(n == 5 && !bad)}' ||
    fail "kept samples changed key or label"
grep -q $'^a_new_class/x.jpg\t[0-9]*\t4$' "$T/v2" ||
    fail "the new class is not numbered after the old ones"
"$PY" - "$T/a/data.lmdb" <<'PYEOF' || fail "LMDB classes"
import json, lmdb, sys
with lmdb.open(sys.argv[1], readonly=True, lock=False).begin() as t:
    classes = json.loads(t.get(b"__classes__"))
assert classes[4] == "a_new_class" and classes[0] == "n00000000", classes
PYEOF

# the same sequence of updates, the same bytes
diff -r --exclude=data.lmdb "$T/a" "$T/b" || fail "two outputs differ"
"$PY" "$TESTS/cli/same_output.py" "$T/a" "$T/b" || fail "LMDBs differ"

# nothing changed: no image opened, no file of the output touched
(cd "$T/a" && find . -type f -exec sha1sum {} + | sort) >"$T/sums"
find "$T/a" -exec touch -d '2001-01-01' {} +
# (LeakSanitizer, in sanitized builds, does not run under ptrace)
ASAN_OPTIONS=detect_leaks=0 strace -f -e trace=open,openat -o "$T/trace" \
    "$BALE" pack "$T/tree" \
    -f "$formats" -o "$T/a" --update --shard-count 16 -q 2>"$T/stderr" ||
    fail "an update with nothing changed failed"
expect_stderr "nothing changed since version 2"
! grep -E '\.(jpe?g|JPEG)"' "$T/trace" || fail "an unchanged update read images"
diff <(cd "$T/a" && find . -type f -exec sha1sum {} + | sort) "$T/sums" ||
    fail "an update with nothing changed rewrote the output"
[ -z "$(cd "$T/a" && find . -newermt '2002-01-01')" ] ||
    fail "an update with nothing changed touched the output"

# only removals: no delta, the removed samples leave (the class keeps
# its number)
rm "$T/tree/a_new_class/x.jpg"
rmdir "$T/tree/a_new_class"
cp "$T/a/data-shards.json" "$T/list-v2"
update "$T/a"
expect_status 0
check_tree "$T/a" "after a removal"
# only the shards of this version and the one before are left
diff <(cd "$T/a" && ls data-*.tar | sort) \
    <( (shards "$T/list-v2"; shards "$T/a/data-shards.json") | sort -u) ||
    fail "an older version's shards stayed, or a kept one went"

# every sample removed, then one back
mkdir -p "$T/one/c"
cp "$T/tree/n00000001/new_3.jpeg" "$T/one/c/x.jpg"
"$BALE" pack "$T/one" -f "$formats" -o "$T/o1" --update -q
rm "$T/one/c/x.jpg"
"$BALE" pack "$T/one" -f "$formats" -o "$T/o1" --update -q 2>/dev/null ||
    fail "an update removing every sample failed"
for o in $outs; do
    [ "$("$BALE" ls "$T/o1/$o" | wc -l)" -eq 0 ] || fail "$o is not empty"
    "$BALE" verify "$T/o1/$o" >/dev/null || fail "an empty $o does not verify"
done
cp "$T/tree/n00000001/new_3.jpeg" "$T/one/c/y.jpg"
"$BALE" pack "$T/one" -f "$formats" -o "$T/o1" --update -q ||
    fail "an update after removing every sample failed"
for o in $outs; do
    [ "$("$BALE" ls "$T/o1/$o" | cut -f6)" = c/y.jpg ] ||
        fail "$o does not hold the one sample"
done

# an update cut short after the formats took it, before the manifest
# did: the next one says so, and changes nothing
cp "$T/o1/data-manifest.jsonl" "$T/manifest-before"
cp "$T/tree/n00000001/new_3.jpeg" "$T/one/c/z.jpg"
"$BALE" pack "$T/one" -f "$formats" -o "$T/o1" --update -q
cp "$T/manifest-before" "$T/o1/data-manifest.jsonl"
"$BALE" ls "$T/o1/data-shards.json" >"$T/ls-before"
run "$BALE" pack "$T/one" -f "$formats" -o "$T/o1" --update -q
expect_status 1
expect_stderr "an earlier update was cut short (add --relabel: the update then rebuilds the output)"
diff "$T/ls-before" <("$BALE" ls "$T/o1/data-shards.json") ||
    fail "a refused update changed the output"

# an output packed without --update cannot be updated: said, with how
# to start (rebuild: --update --force writes the manifest)
"$BALE" pack "$T/tree" -f "$formats" -o "$T/plain" -q
run "$BALE" pack "$T/tree" -f "$formats" -o "$T/plain" --update
expect_status 1
expect_stderr "packed without update: it has no data-manifest.jsonl"
expect_stderr "(add --force: with --update, the rebuild writes the manifest"
run "$BALE" pack "$T/tree" -f "$formats" -o "$T/plain" --update --force
expect_status 0
[ -f "$T/plain/data-manifest.jsonl" ] || fail "the rebuild wrote no manifest"

# refusals, with the output left as it is
run "$BALE" pack "$T/tree" -f wds -o "$T/a" --update
expect_status 2
expect_stderr "an update must name the same ones"
run "$BALE" pack "$T/tree" -f "$formats" -o "$T/a" --update --quality 50
expect_status 2
expect_stderr "an update cannot change how samples are stored"
tar -cf "$T/tree.tar" -C "$T/tree" .
run "$BALE" pack "$T/tree.tar" -f "$formats" -o "$T/c" --update
expect_status 2
expect_stderr "an update needs a folder"
check_tree "$T/a" "after the refusals"

# --relabel rebuilds with torchvision's numbering: the emptied class
# goes, the others are 0 to 3 again
update "$T/a" --relabel
expect_status 0
"$PY" - "$T/a/data.lmdb" <<'PYEOF' || fail "--relabel kept old labels"
import json, lmdb, sys
with lmdb.open(sys.argv[1], readonly=True, lock=False).begin() as t:
    classes = json.loads(t.get(b"__classes__"))
assert classes == ["n0000000%d" % i for i in range(4)], classes
PYEOF
check_tree "$T/a" "after --relabel"

# HDF5's other layouts update too: vlen rows, pixel arrays
[ "$formats" = wds,lmdb ] && exit 0
for layout in "-O hdf5.layout=vlen" "--pixels 24x16 -O hdf5.deflate=1"; do
    rm -rf "$T/h" "$T/fresh"
    # shellcheck disable=SC2086
    "$BALE" pack "$T/tree" -f hdf5 -o "$T/h" --update -q $layout
    cp "$T/tree/n00000001/new_3.jpeg" "$T/tree/n00000003/more.jpeg"
    rm "$(find "$T/tree/n00000002" -name 'new_*' | sort | head -1)"
    # shellcheck disable=SC2086
    "$BALE" pack "$T/tree" -f hdf5 -o "$T/h" --update -q $layout ||
        fail "$layout: the update failed"
    # shellcheck disable=SC2086
    "$BALE" pack "$T/tree" -f hdf5 -o "$T/fresh" -q $layout
    diff <("$BALE" ls "$T/fresh/data.h5" | cut -f3- | sort) \
        <("$BALE" ls "$T/h/data.h5" | cut -f3- | sort) ||
        fail "$layout: the update holds other samples than a fresh pack"
    "$BALE" verify "$T/h/data.h5" >/dev/null || fail "$layout: verify"
done
exit 0
