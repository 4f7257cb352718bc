#!/bin/bash
# bale pack --update from Parquet files (tests/parquet/fixtures: the
# tree's rows in split-0 and split-1, and split-1 less its first row):
# a file that changed is read again and its rows packed again (the
# row it lost removed); a file whose size and modification time are
# as the manifest has them is not read at all (its bytes garbled under
# the same stamp, the update still succeeds and keeps its rows); a file
# gone takes its rows with it, one back brings them again. After each
# night every format holds exactly what packing the files afresh gives.
# With a list file, all files are listed and the same rows change.
. "$TESTS/cli/lib.sh"
export LC_ALL=C
require_backend wds
require_backend lmdb
formats=wds,lmdb
F="$TESTS/parquet/fixtures"
mkdir "$T/in" "$T/fresh"
cp "$F/split-0.parquet" "$T/in/train-0.parquet"
cp "$F/split-1.parquet" "$T/in/train-1.parquet"

update() {	# the nightly command
    run "$BALE" pack "$T/in" -f "$formats" -o "$T/out" --update \
        --report "$T/report.json"
}
# OUT/O's samples as label, size, crc32, path; sorted
samples() {
    "$BALE" ls "$1" | cut -f3-6 | sort
}
# the output holds what a fresh pack of the files in FOLDER gives
holds() {
    local o
    rm -rf "$T/fresh-out"
    "$BALE" pack "$1" -f "$formats" -o "$T/fresh-out" -q
    for o in data-shards.json data.lmdb; do
        diff <(samples "$T/fresh-out/$o") <(samples "$T/out/$o") ||
            fail "$2: $o does not hold what the files do"
        "$BALE" verify "$T/out/$o" >/dev/null || fail "$2: $o does not verify"
    done
}
changes() {	# ADDED REPLACED REMOVED UNCHANGED
    "$PY" - "$T/report.json" "$@" <<'PY' || fail "update counts: $(cat "$T/report.json")"
import json, sys
u = json.load(open(sys.argv[1]))["update"]
got = [len(u["added"]), len(u["replaced"]), len(u["removed"]), u["unchanged"]]
assert got == [int(x) for x in sys.argv[2:]], got
PY
}
keys() {	# path -> key, sorted
    "$BALE" ls "$T/out/data.lmdb" | awk -F'\t' '{ print $6 "\t" $2 }' | sort
}

update
expect_status 0
holds "$T/in" "first night"
keys > "$T/keys1"

# train-1 changed (it lost its first row); train-0 garbled past its
# magic under the same size and modification time: bale must believe
# the stamp and leave it unread, or the run fails on its pages
cp "$F/split-1-less.parquet" "$T/in/train-1.parquet"
cp -p "$T/in/train-0.parquet" "$T/fresh/train-0.parquet"
cp "$T/in/train-1.parquet" "$T/fresh/train-1.parquet"
"$PY" - "$T/in/train-0.parquet" <<'PY'
import os, sys
p = sys.argv[1]
st = os.stat(p)
data = bytearray(open(p, "rb").read())
for i in range(4, len(data) - 4):
    data[i] ^= 0x5A
open(p, "wb").write(data)
os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
PY
update
expect_status 0
changes 0 19 1 20
holds "$T/fresh" "train-1 changed"
# train-0's rows keep their keys
grep -F -f <("$BALE" ls "$T/fresh-out/data.lmdb" | head -20 | cut -f6) \
    "$T/keys1" > "$T/kept1"
keys | grep -F -f <(cut -f1 "$T/kept1") | cmp -s - "$T/kept1" ||
    fail "the rows of the unchanged file did not keep their keys"

# nothing changed: nothing read, nothing written
update
expect_status 0
expect_stderr "nothing changed"

# train-1 gone: its rows go; back again: they come back
cp "$T/fresh/train-0.parquet" "$T/in/train-0.parquet"
touch -r "$T/fresh/train-0.parquet" "$T/in/train-0.parquet"
rm "$T/in/train-1.parquet" "$T/fresh/train-1.parquet"
update
expect_status 0
changes 0 0 19 20
holds "$T/fresh" "train-1 gone"
cp "$F/split-1.parquet" "$T/in/train-1.parquet"
update
expect_status 0
changes 20 0 0 20
holds "$T/in" "train-1 back"

# with a list file picking the rows, every file is listed (its lines
# must find their rows), and a changed file's rows are still the ones
# packed again
"$BALE" ls "$T/out/data.lmdb" | awk -F'\t' '{ print $6 "\t" $3 }' |
    sort > "$T/list"
run "$BALE" pack "$T/in" --list "$T/list" -f "$formats" -o "$T/listed" \
    --update
expect_status 0
cp "$F/split-1-less.parquet" "$T/in/train-1.parquet"
run "$BALE" pack "$T/in" --list "$T/list" -f "$formats" -o "$T/listed" \
    --update --report "$T/report.json"
expect_status 3
expect_stderr "listed, but no row of the Parquet files has this path"
changes 0 19 1 20
"$PY" -c 'import json, sys
assert json.load(open(sys.argv[1]))["skipped"] == 1' "$T/report.json" ||
    fail "the unchanged file's rows were not found by the list's lines"
echo ok
