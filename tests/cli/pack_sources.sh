#!/bin/bash
# The kinds of source are two lists (src/source/source_kinds.c: packed
# outputs; src/walk/kinds.c: read from files): each kind
# listed is the one a run of that kind of source takes (the report's
# source_kind), the list's order decides between kinds that both fit
# (shards and a packed output are folders and files too), and a kind
# added to the list without a case here fails this test.
. "$TESTS/cli/lib.sh"
require_backend wds
"$MKDATA" random "$T/tree" -n 12 --classes 3 >/dev/null
"$BALE" pack "$T/tree" -f wds -o "$T/packed" -q --shard-count 5
mkdir "$T/shards"
cp "$T/packed"/data-00000[0-9].tar "$T/shards/"
tar -cf "$T/tree.tar" -C "$T/tree" .
"$BALE" ls "$T/packed" | awk -F'\t' '{print $6 "\t" $3}' >"$T/list.txt"
kind_of() { # KIND: the kind the report names for the case's run
    "$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["source_kind"])' "$1"
}
check() { # KIND SRC... [-- FLAGS]: a pack of SRC names KIND
    local kind=$1
    shift
    run "$BALE" pack "$@" -f wds -o "$T/out-$kind" -q --report "$T/$kind.json"
    expect_status 0
    [ "$(kind_of "$T/$kind.json")" = "$kind" ] ||
        fail "a $kind source was taken as $(kind_of "$T/$kind.json")"
    tested+=("$kind")
}
tested=()
check packed "$T/packed/data-shards.json"
check shards "$T/shards"
(cd "$T/tree" && "$PY" -c 'import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z:
    for d, _, files in sorted(os.walk(".")):
        for f in sorted(files):
            z.write(os.path.join(d, f))' "$T/tree.zip")
gzip -c "$T/tree.tar" >"$T/tree.tar.gz"
check tar "$T/tree.tar"
check zip "$T/tree.zip"
check compressed_tar "$T/tree.tar.gz"
check list "$T/tree" --list "$T/list.txt"
check folder "$T/tree"
check parquet "$TESTS/parquet/fixtures/hf-snappy.parquet"
# a bucket of objects needs the suite's S3 gateway: tests/s3/pack_source.sh
# checks its kind
tested+=(bucket)
listed=$(sed -n 's/^\t&bale_source_\([a-z_]*\),$/\1/p' \
    "$TESTS/../src/source/source_kinds.c" "$TESTS/../src/walk/kinds.c" |
    sort | tr '\n' ' ')
[ -n "$listed" ] || fail "no kind found in the kinds' lists"
[ "$listed" = "$(printf '%s\n' "${tested[@]}" | sort | tr '\n' ' ')" ] ||
    fail "the list holds '$listed', this test covers '${tested[*]}'"
# several archives are read each by its own kind, as one dataset (the
# run's kind is the first one's): two classes zipped and the third in a
# compressed tar give the samples of the whole tree's tar
classes=($(ls "$T/tree"))
(cd "$T/tree" && "$PY" -c 'import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z:
    for top in sys.argv[2:]:
        for f in sorted(os.listdir(top)):
            z.write(os.path.join(top, f))' "$T/two.zip" "${classes[0]}" \
    "${classes[1]}")
tar -czf "$T/third.tar.gz" -C "$T/tree" "${classes[2]}"
run "$BALE" pack "$T/two.zip" "$T/third.tar.gz" -f wds -o "$T/mixed" -q \
    --report "$T/mixed.json"
expect_status 0
[ "$(kind_of "$T/mixed.json")" = zip ] ||
    fail "a zip and a tar.gz were taken as $(kind_of "$T/mixed.json")"
cmp <("$BALE" ls "$T/mixed") <("$BALE" ls "$T/out-tar") ||
    fail "a zip and a compressed tar differ from the whole tree's tar"
# a list file goes only with what can be listed from
run "$BALE" pack "$T/shards" -f wds -o "$T/bad" --list "$T/list.txt"
expect_status 2
expect_stderr "a list file cannot select from WebDataset shards"
