#!/bin/bash
# Outputs are recognised by what they hold, not by their names: an OUTDIR
# called like an output (train.lmdb/, t.h5/, x-shards.json/) is a folder of
# outputs to every reading command; renamed outputs still open; a
# *.partial output is never taken for a complete one.
. "$TESTS/cli/lib.sh"
"$MKDATA" random "$T/in" -n 6 --classes 2 --min 16 --max 64
n=6
formats=()
for f in wds lmdb hdf5; do
    "$BALE" --help | grep -q "^Formats built in:.* $f\b" && formats+=("$f")
done
[ ${#formats[@]} -gt 0 ] || { echo "skipped: no format that writes is built in"; exit 77; }
for out in train.lmdb t.h5 x-shards.json; do
    for f in "${formats[@]}"; do
        "$BALE" pack "$T/in" -f "$f" -o "$T/$out-$f/$out" -q
        for cmd in verify ls info; do
            run "$BALE" $cmd "$T/$out-$f/$out"
            expect_status 0
        done
        grep -q "$n samples, 0 bad" <("$BALE" verify "$T/$out-$f/$out") ||
            fail "verify $out ($f) does not see $n samples"
        run "$BALE" extract "$T/$out-$f/$out" "$T/ex-$out-$f"
        expect_status 0
        diff -r "$T/in" "$T/ex-$out-$f" >/dev/null ||
            fail "extract from OUTDIR $out ($f) differs from the source"
    done
done
# renamed outputs open by content, alone or in their folder
mkdir "$T/renamed"
for f in "${formats[@]}"; do
    "$BALE" pack "$T/in" -f "$f" -o "$T/r-$f" -q
done
[ -d "$T/r-lmdb" ] && mv "$T/r-lmdb/data.lmdb" "$T/renamed/imagenet-train"
[ -d "$T/r-hdf5" ] && mv "$T/r-hdf5/data.h5" "$T/renamed/images.hdf5"
if [ -d "$T/r-wds" ]; then
    mv "$T/r-wds/data-shards.json" "$T/r-wds/index.json"
    run "$BALE" verify "$T/r-wds/index.json"
    expect_status 0
fi
for p in "$T/renamed"/*; do
    run "$BALE" verify "$p"
    expect_status 0
    grep -q "$n samples, 0 bad" "$T/stdout" || fail "renamed '$p' not read"
done
if [ "$(ls "$T/renamed" | wc -l)" -gt 0 ]; then
    run "$BALE" verify "$T/renamed"
    expect_status 0
    [ "$(grep -c "$n samples, 0 bad" "$T/stdout")" -eq "$(ls "$T/renamed" | wc -l)" ] ||
        fail "the folder of renamed outputs: $(cat "$T/stdout")"
fi
# an output still being written is never listed
for f in "${formats[@]}"; do
    d=$T/partial-$f
    "$BALE" pack "$T/in" -f "$f" -o "$d" -q
    for p in "$d"/*; do mv "$p" "$p.partial"; done
    run "$BALE" verify "$d"
    expect_status 1
    expect_stderr "no bale output in"
done
