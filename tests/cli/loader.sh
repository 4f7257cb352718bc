#!/bin/bash
# bale_loader from C (tests/loader_run.c prints each batch's crc32 and
# labels): the same batches with 1, 2 and 8 threads, from every format
# and layout of the same samples and from the raw tree; resumed at any
# batch, the rest of the run exactly; every sample once per epoch; equal
# batch counts on every rank; a sample that does not decode replaced by
# the next one (or, strict, a failure).
. "$TESTS/cli/lib.sh"
formats=$(need_writers) || exit 77
F1=${formats%%,*}	# where any format will do
"$MKDATA" random "$T/in" -n 90 --classes 3 --min 40 --max 160 -j 2
"$BALE" pack "$T/in" -f "$formats" -o "$T/out" -q
outputs=$(outputs_in "$T/out")
first=$(echo "$outputs" | head -1)
vlen=
if built hdf5; then
    "$BALE" pack "$T/in" -f hdf5 -o "$T/vlen" -q --hdf5-layout vlen
    vlen=$T/vlen/data.h5
fi
run_loader() { "$LOADER_RUN" "$@" 2>"$T/loader.err" ||
    { cat "$T/loader.err" >&2; fail "bale-loader-run $*"; }; }

# threads, formats, layouts, the raw tree: the same bytes
run_loader "$first" 1 2 >"$T/ref"
[ "$(wc -l <"$T/ref")" -eq 24 ] || fail "expected 12 batches an epoch"
for threads in 2 8; do
    run_loader "$first" $threads 2 | cmp - "$T/ref" ||
        fail "$threads threads give other batches"
done
# shellcheck disable=SC2086
for o in $outputs $vlen \
    "$T/in" "$T/out"; do
    run_loader "$o" 3 2 | cmp - "$T/ref" || fail "$o gives other batches"
done
run_loader "$T/out" 2 1 --eval --exact >"$T/eval"
run_loader "$T/in" 1 1 --eval --exact | cmp - "$T/eval" ||
    fail "eval batches differ"
# epochs differ from each other
[ "$(awk '$1 == 0 {print $4}' "$T/ref" | sort)" != \
  "$(awk '$1 == 1 {print $4}' "$T/ref" | sort)" ] || fail "epochs repeat"

# resumed at batch k of epoch 1: the rest of the uninterrupted run
for k in 0 1 5 11 12; do
    run_loader "$first" 2 2 --from 1 $k |
        cmp - <(awk -v k=$k '$1 == 1 && $2 >= k' "$T/ref") ||
        fail "resumed at batch $k"
done

# every sample once per epoch: labels made the sample's index
(cd "$T/in" && find . -type f | sort | awk '{print substr($0, 3) "\t" NR - 1}') \
    >"$T/list"
"$BALE" pack "$T/in" --list "$T/list" -f "$F1" -o "$T/indexed" -q
run_loader "$T/indexed" 2 3 >"$T/idx"
for e in 0 1 2; do
    awk -v e=$e '$1 == e {for (i = 5; i <= NF; i++) print $i}' "$T/idx" |
        sort -n | cmp - <(seq 0 89) || fail "epoch $e: not each sample once"
done
# ranks: disjoint shares, padded to equal batch counts (or cut)
for world in 2 3 4 5; do
    counts=$(for ((r = 0; r < world; r++)); do
        run_loader "$T/indexed" 2 1 --world $world --rank $r |
            wc -l; done | sort -u)
    [ "$(echo "$counts" | wc -l)" -eq 1 ] ||
        fail "world $world: unequal batch counts"
    for ((r = 0; r < world; r++)); do
        run_loader "$T/indexed" 2 1 --world $world --rank $r
    done | awk '{for (i = 5; i <= NF; i++) print $i}' | sort -nu |
        cmp - <(seq 0 89) || fail "world $world: a sample is missing"
    for ((r = 0; r < world; r++)); do
        run_loader "$T/indexed" 2 1 --world $world --rank $r \
            --drop-last
    done | awk '{if ($3 != 8) exit 1}' || fail "drop_last left a short batch"
done

# a sample that does not decode is replaced: batches stay full
cp -r "$T/in" "$T/bad"
echo "not an image" >"$T/bad/n00000001/zzz.jpg"
head -c 300 "$T/in/n00000002/$(ls "$T/in/n00000002" | head -1)" \
    >"$T/bad/n00000002/cut.jpg"
"$BALE" pack "$T/bad" -f "$F1" -o "$T/badout" -q
run_loader "$T/badout" 2 1 --exact >"$T/badrun"
awk '{n += $3} END {if (n != 92) exit 1}' "$T/badrun" ||
    fail "batches lost samples"
grep -q "not an image" "$T/loader.err" || fail "the bad sample is not listed"
run "$LOADER_RUN" "$T/badout" 2 1 --strict --exact
expect_status 1
expect_stderr "does not decode"
# over two epochs, and when a replacement is bad too, each bad sample is
# listed once
run_loader "$T/badout" 2 2 --exact >/dev/null
[ "$(grep -c '^bad ' "$T/loader.err")" -eq 2 ] ||
    fail "bad samples listed more than once: $(cat "$T/loader.err")"
# evaluation never scores a copy in a bad sample's place: it fails at
# the bad sample's batch (the batches before it come), naming it
run "$LOADER_RUN" "$T/badout" 2 1 --eval --exact
expect_status 1
expect_stderr "key '"
expect_stderr "source 'n00000001/zzz.jpg') does not decode"
[ -s "$T/stdout" ] || fail "no batch came before the bad one's"
# or, asked to, leaves it out: every other sample once, in the output's
# order, the same crops as from the tree without the bad files
run_loader "$T/in" 2 1 --eval --exact --batch 1 >"$T/good-eval"
run_loader "$T/badout" 3 1 --eval --exact --batch 1 --skip >"$T/skip-eval"
cut -d' ' -f3- "$T/good-eval" >"$T/good-crops"
cut -d' ' -f3- "$T/skip-eval" | cmp - "$T/good-crops" ||
    fail "eval with bad samples left out differs from the good tree's"
run_loader "$T/badout" 2 1 --eval --exact --batch 8 --skip >"$T/skip8"
awk '{n += $3} END {if (n != 90) exit 1}' "$T/skip8" ||
    fail "left-out samples: not 90 samples in the epoch"
run "$LOADER_RUN" "$T/badout" 2 1 --eval --replace
expect_status 1
expect_stderr "replace is for training"

# libjpeg's warnings: stray bytes between segments leave every pixel
# decoded (the same rule as the encode stage's), a cut file does not
one=$(ls "$T/in/n00000000" | head -1)
"$PY" - "$T/in/n00000000/$one" "$T/stray.jpg" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
end = 4 + int.from_bytes(data[4:6], "big")      # past SOI and APP0
assert data[2:4] == b"\xff\xe0", data[:4]
open(sys.argv[2], "wb").write(data[:end] + b"\x00\x00" + data[end:])
PY
"$CROP_RAW" "$T/in/n00000000/$one" 0 0 30 30 16 16 0 0 >"$T/plain.rgb" ||
    fail "the plain JPEG does not crop"
"$CROP_RAW" "$T/stray.jpg" 0 0 30 30 16 16 0 0 >"$T/stray.rgb" ||
    fail "stray bytes between segments failed the crop"
cmp "$T/plain.rgb" "$T/stray.rgb" || fail "stray bytes changed the pixels"
head -c 400 "$T/in/n00000000/$one" >"$T/cutoff.jpg"
run "$CROP_RAW" "$T/cutoff.jpg" 0 0 30 30 16 16 0 0
[ "$status" -ne 0 ] || fail "a cut JPEG cropped as if whole"
