#!/bin/bash
# Parquet files as the source (tests/parquet/fixtures: written by
# hyparquet-writer and DuckDB from tree.tar, not by bale): each packs
# into the same files, byte for byte, as the tree the rows came from, in
# every format built in (the same samples, order, labels, class names
# and bytes); labels given as class names; columns named by options;
# --part and merge; a list file picking rows; a file over 4 GiB;
# shuffled with a window that takes several passes, as the shuffled
# tree; several files as one dataset, in order; rows that
# cannot be packed skipped with their reason, whether the listing or
# the feed finds them (a damaged image page among them); rows without
# labels labelled -1; files that disagree or are not Parquet refused
# with a clear message and no output.
. "$TESTS/cli/lib.sh"
formats=$(writers | tr ',' '\n' | grep -E '^(wds|lmdb|hdf5)$' | paste -sd, -)
[ -n "$formats" ] || { echo "skipped: no format that writes is built in"; exit 77; }
one=${formats%%,*}	# a refusal needs one format, any
F="$TESTS/parquet/fixtures"
mkdir "$T/tree"
tar -xf "$F/tree.tar" -C "$T/tree"

"$BALE" pack "$T/tree" -f "$formats" -o "$T/tree-out" -q
for p in hf-snappy duckdb-zstd duckdb-gzip-v2; do
    run "$BALE" pack "$F/$p.parquet" -f "$formats" -o "$T/$p" \
        --report "$T/$p.json"
    expect_status 0
    expect_stderr "40 samples"
    same_files "$T/tree-out" "$T/$p"
    "$PY" -c 'import json, sys
assert json.load(open(sys.argv[1]))["source_kind"] == "parquet"' "$T/$p.json" ||
        fail "$p: not read as Parquet"
done

if writers | grep -qw wds; then
    # shuffled, within a window of a few rows: several passes, the
    # shuffled tree's output
    "$BALE" pack "$T/tree" -f wds -o "$T/tree-shuffled" -q --shuffle \
        --seed 5
    run "$BALE" pack "$F/hf-snappy.parquet" -f wds -o "$T/pq-shuffled" \
        --shuffle --seed 5 --window 20K --report "$T/shuffled.json"
    expect_status 0
    same_files "$T/tree-shuffled" "$T/pq-shuffled"
    # (the sizes, not listed, are learnt as the rows are read: the
    # bytes held still keep within the window, and one image)
    largest=$(find "$T/tree" -type f -printf '%s\n' | sort -n | tail -1)
    "$PY" -c 'import json, sys
r = json.load(open(sys.argv[1]))
assert r["stream_passes"] > 1, r["stream_passes"]
assert r["stream_peak_bytes"] <= 20480 + int(sys.argv[2]), r' \
        "$T/shuffled.json" "$largest" ||
        fail "a shuffled pack in a small window: one pass, or over it"

    # several files: one dataset, the files in the order given
    run "$BALE" pack "$F/duckdb-zstd.parquet" "$F/hf-snappy.parquet" -f wds \
        -o "$T/two"
    expect_status 0
    "$BALE" ls "$T/tree-out" | cut -f3,6 > "$T/one.ls"
    cat "$T/one.ls" "$T/one.ls" > "$T/twice.ls"
    "$BALE" ls "$T/two" | cut -f3,6 | cmp -s - "$T/twice.ls" ||
        fail "two files do not pack as their rows one after the other"
    # the same named by a folder of them, or by a pattern bale expands
    mkdir "$T/files"
    cp "$F/duckdb-zstd.parquet" "$T/files/train-0.parquet"
    cp "$F/hf-snappy.parquet" "$T/files/train-1.parquet"
    "$BALE" pack "$T/files" -f wds -o "$T/folder" -q
    same_files "$T/two" "$T/folder"
    "$BALE" pack "$T/files/train-*.parquet" -f wds -o "$T/pattern" -q
    same_files "$T/two" "$T/pattern"
    run "$BALE" pack "$T/files/test-*.parquet" -f wds -o "$T/none"
    expect_status 2
    expect_stderr "test-*.parquet': No such file or directory"

    # labels as class names (text), the last class's rows first: the
    # classes are the names sorted (torchvision's), each row labelled
    # with its name's place
    run "$BALE" pack "$F/duckdb-text-labels.parquet" -f wds -o "$T/text"
    expect_status 0
    "$BALE" ls "$T/text" | cut -f3,6 | sort > "$T/text.ls"
    sort "$T/one.ls" | cmp -s - "$T/text.ls" ||
        fail "text labels give other labels than the tree's classes"
    [ "$("$BALE" ls "$T/text" | head -1 | cut -f3)" = 2 ] ||
        fail "the rows of text labels were not kept in file order"
    "$PY" - "$T/text/data-shards.json" "$T/tree-out/data-shards.json" <<'PY' ||
import json, sys
a, b = (json.load(open(p))["bale"]["classes"] for p in sys.argv[1:])
assert a == b, (a, b)
PY
        fail "text labels name other classes than the tree's"

    # three parts (each reads only the row groups it packs) merge into
    # the whole run's samples
    for i in 0 1 2; do
        "$BALE" pack "$F/hf-snappy.parquet" -f wds -o "$T/part$i" \
            --part "$i/3" -q
    done
    "$BALE" merge "$T/merged" "$T/part0" "$T/part1" "$T/part2" >/dev/null
    "$BALE" ls "$T/merged" | cmp -s - <("$BALE" ls "$T/hf-snappy") ||
        fail "three parts do not merge into the whole run's samples"

    # flat columns of other names: none is the images by default; named,
    # the images, their labels and checksums are the tree's
    run "$BALE" pack "$F/flat-columns.parquet" -f wds -o "$T/flat-default"
    expect_status 1
    expect_stderr "several binary columns and no 'image' struct"
    run "$BALE" pack "$F/flat-columns.parquet" -f wds -o "$T/flat" \
        --image-column jpg --label-column fine_label
    expect_status 0
    "$BALE" ls "$T/flat" | cut -f3-5 | cmp -s - \
        <("$BALE" ls "$T/tree-out" | cut -f3-5) ||
        fail "named flat columns do not give the tree's samples"
    run "$BALE" pack "$F/flat-columns.parquet" -f wds -o "$T/flat-none" \
        --image-column jpeg
    expect_status 1
    expect_stderr "no column 'jpeg'"
    run "$BALE" pack "$T/tree" -f wds -o "$T/cols-tree" --label-column x
    expect_status 2
    expect_stderr "an image or label column names a column of Parquet files"

    # rows that cannot be packed: skipped with their reason, exit 3
    run "$BALE" pack "$F/nulls.parquet" -f wds -o "$T/nulls" --report \
        "$T/nulls.json"
    expect_status 3
    expect_stderr "skipped 'nulls.parquet/1': no image (null)"
    expect_stderr "skipped 'n00000000/no-bytes.JPEG': no image (null)"
    expect_stderr "skipped 'n00000000/empty.JPEG': empty image (0 bytes)"
    expect_stderr "skipped 'n00000000/no-label.JPEG': no label (null)"
    [ "$("$BALE" ls "$T/nulls" | wc -l)" = 2 ] ||
        fail "the two whole rows of nulls.parquet are not packed"
fi

# the listing leaves the images of a row group unread where its
# statistics count no null image: an empty one among them is skipped
# when the feed reads it (listed, then skipped), saying so; in a file
# without statistics the listing reads them, and skips a null one
listed() { "$PY" -c 'import json, sys
print(json.load(open(sys.argv[1]))["samples_listed"])' "$1"; }
run "$BALE" pack "$F/empty-image.parquet" -f "$one" -o "$T/empty" \
    --report "$T/empty.json"
expect_status 3
expect_stderr "skipped 'n00000000/empty.JPEG': empty image (0 bytes)"
[ "$("$BALE" ls "$T/empty" | wc -l)" = 2 ] && [ "$(listed "$T/empty.json")" = 3 ] ||
    fail "the rows around an unread empty image are not packed"
run "$BALE" pack "$F/no-stats.parquet" -f "$one" -o "$T/no-stats" \
    --report "$T/no-stats.json"
expect_status 3
expect_stderr "skipped 'no-stats.parquet/1': no image (null)"
[ "$("$BALE" ls "$T/no-stats" | wc -l)" = 2 ] &&
    [ "$(listed "$T/no-stats.json")" = 2 ] ||
    fail "a file without statistics: its null image not skipped as listed"

# a list file picks rows by their paths, with its labels, in its order,
# as it picks the tree's files (every format); a line naming no row,
# or a row again (a stream gives it once), is skipped saying so
(cd "$T/tree" && find . -type f | sed 's|^\./||' | sort -r |
    awk '{ print $0 "\t" NR % 5 }') > "$T/list"
"$BALE" pack "$T/tree" --list "$T/list" -f "$formats" -o "$T/tree-listed" -q
run "$BALE" pack "$F/hf-snappy.parquet" --list "$T/list" -f "$formats" \
    -o "$T/pq-listed"
expect_status 0
same_files "$T/tree-listed" "$T/pq-listed"
first=$(head -1 "$T/list" | cut -f1)
printf '%s\t1\nmissing.JPEG\t0\n%s\t2\n' "$first" "$first" > "$T/list2"
run "$BALE" pack "$F/duckdb-zstd.parquet" --list "$T/list2" -f "$one" \
    -o "$T/pq-list2"
expect_status 3
expect_stderr "skipped 'missing.JPEG': listed, but no row of the Parquet files"
expect_stderr "skipped '$first': listed again: what Parquet files give is read once"
# rows of no label, or a file without a label column, take the list's
printf 'n00000000/no-label.JPEG\t4\nn00000000/empty.JPEG\t1\n' > "$T/list3"
run "$BALE" pack "$F/nulls.parquet" --list "$T/list3" -f "$one" \
    -o "$T/pq-list3"
expect_status 3
expect_stderr "skipped 'n00000000/empty.JPEG': empty image (0 bytes)"
[ "$("$BALE" ls "$T/pq-list3" | cut -f3,6)" = \
    "$(printf '4\tn00000000/no-label.JPEG')" ] ||
    fail "a listed row without a label did not take the list's"
"$BALE" ls "$T/tree-out" | head -2 | cut -f6 | awk '{ print $0 "\t" 9 - NR }' \
    > "$T/list4"
run "$BALE" pack "$F/nolabel.parquet" --list "$T/list4" -f "$one" \
    -o "$T/pq-list4"
expect_status 0
[ "$("$BALE" ls "$T/pq-list4" | cut -f3 | paste -sd,)" = "8,7" ] ||
    fail "the rows of a file without labels did not take the list's"

# a file over 4 GiB (its pages moved past a 4.5 GiB hole, a sparse
# file: no disk taken) packs as the small one
"$PY" "$TESTS/parquet/shift_parquet.py" "$F/duckdb-gzip-v2.parquet" \
    "$T/over4g.parquet" 4831838208
[ "$(stat -c %s "$T/over4g.parquet")" -gt 4294967296 ] ||
    fail "the shifted file is not over 4 GiB"
run "$BALE" pack "$T/over4g.parquet" -f "$formats" -o "$T/over4g"
expect_status 0
same_files "$T/tree-out" "$T/over4g"

# refused, saying why, with nothing written
run "$BALE" pack "$F/hf-snappy.parquet" "$F/other-classes.parquet" -f "$one" \
    -o "$T/other"
expect_status 1
expect_stderr "other-classes.parquet' names other classes than the first file"
expect_no_output "$T/other"

# no label column: every row packs with label -1 (none), no classes, in
# every format, kept so when converted and across an update; a row
# labelled -1 (the datasets library's missing ClassLabel) likewise,
# one labelled -2 skipped; labelled and unlabelled files not mixed
run "$BALE" pack "$F/nolabel.parquet" -f "$formats" -o "$T/nolabel" \
    --update
expect_status 0
for o in $(cd "$T/nolabel" && ls -d data-shards.json data.lmdb data.h5 \
    2>/dev/null); do
    [ "$("$BALE" ls "$T/nolabel/$o" | cut -f3 | paste -sd,)" = "-1,-1" ] ||
        fail "$o: the rows without labels are not labelled -1"
    "$BALE" verify "$T/nolabel/$o" >/dev/null || fail "$o: does not verify"
    "$PY" -c 'import json, sys
d = json.load(open(sys.argv[1])) if sys.argv[1].endswith(".json") else None
assert d is None or d["bale"]["classes"] == [], d' "$T/nolabel/$o" ||
        fail "$o: an unlabelled dataset names classes"
    "$BALE" pack "$T/nolabel/$o" -f "$one" -o "$T/nolabel-$o" -q
    [ "$("$BALE" ls "$T/nolabel-$o" | cut -f3 | paste -sd,)" = "-1,-1" ] ||
        fail "$o converted: the labels -1 are not kept"
done
run "$BALE" pack "$F/nolabel.parquet" -f "$formats" -o "$T/nolabel" \
    --update
expect_status 0
expect_stderr "nothing changed"
run "$BALE" pack "$F/minus-one.parquet" -f "$one" -o "$T/minus-one"
expect_status 3
expect_stderr "skipped 'n00000000/img_00000006.JPEG': label outside -1..16777216"
[ "$("$BALE" ls "$T/minus-one" | cut -f3 | paste -sd,)" = "-1,1" ] ||
    fail "a row labelled -1 is not kept so"
run "$BALE" pack "$F/hf-snappy.parquet" "$F/nolabel.parquet" -f "$one" \
    -o "$T/mixed-labels"
expect_status 1
expect_stderr "has no label column, '$F/hf-snappy.parquet' one"
expect_no_output "$T/mixed-labels"
run "$BALE" pack "$F/hf-snappy.parquet" "$T/tree" -f "$one" -o "$T/mixed"
expect_status 2
expect_stderr "several sources must all be Parquet files"
head -c 6000 "$F/hf-snappy.parquet" > "$T/cut.parquet"
run "$BALE" pack "$T/cut.parquet" -f "$one" -o "$T/cut"
expect_status 1
expect_stderr "not a Parquet file"
expect_no_output "$T/cut"
"$PY" - "$F/hf-snappy.parquet" "$T/damaged.parquet" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
for i in range(3000, 3200):	# inside the first row group's image page
    data[i] ^= 0x5A
open(sys.argv[2], "wb").write(data)
PY
run "$BALE" pack "$T/damaged.parquet" -f "$one" -o "$T/damaged"
expect_status 3	# found by the feed: the listing leaves images unread
expect_stderr "skipped 'n00000000/img_00000000.JPEG': damaged Snappy data"
[ "$("$BALE" ls "$T/damaged" | wc -l)" = 0 ] ||
    fail "rows of a damaged page packed"
echo ok
