#!/bin/bash
# bale pack -f wds against GNU tar -cf of the same folder, warm cache.
#
#   bench/pack_vs_tar.sh [RUNS]     (default 5; needs a built ./build)
#
# Generates (once) an ImageNet-like tree: 10k JPEGs, sides 200..1200 px,
# ~110 KB mean, ~1.1 GB, in $BENCH_DIR (default build/bench). Each run
# times the two commands back to back, in alternating order, after a
# `sync` so neither pays for the other's write-back; outputs go to the
# same file system. Prints each pair, then medians and the median of the
# per-pair ratios bale/tar (below 1.0 means bale is faster).
set -eu
cd "$(dirname "$0")/.."
runs=${1:-5}
dir=${BENCH_DIR:-build/bench}
src=$dir/images
bale=${BALE:-build/bale}
mkdata=${MKDATA:-build/tests/bale-mkdata}

if [ ! -f "$src/.complete" ]; then
    rm -rf "$src"
    echo "generating $src (10000 JPEGs) ..." >&2
    "$mkdata" random "$src" -n 10000 --classes 100 --min 200 --max 1200 --seed 1
    touch "$src/.complete"
fi
files=$(find "$src" -name '*.JPEG' | wc -l)
bytes=$(du -sb --exclude=.complete "$src" | cut -f1)
echo "source: $files files, $((bytes / 1000000)) MB; $(nproc) cores; bale -j default" >&2
# warm the page cache with every input (tar -cf /dev/null would not read)
find "$src" -type f -exec cat {} + >/dev/null

now() { echo "$EPOCHREALTIME"; }
time_tar() {
    rm -f "$dir/out.tar"; sync
    local t0; t0=$(now)
    tar -cf "$dir/out.tar" -C "$src" .
    echo "$(now) - $t0" | bc
}
time_bale() {
    rm -rf "$dir/wds"; sync
    local t0; t0=$(now)
    "$bale" pack "$src" -f wds -o "$dir/wds" -q
    echo "$(now) - $t0" | bc
}

tars=() bales=() ratios=()
for i in $(seq "$runs"); do
    if [ $((i % 2)) -eq 1 ]; then t=$(time_tar); b=$(time_bale)
    else b=$(time_bale); t=$(time_tar); fi
    r=$(echo "scale=4; $b / $t" | bc)
    printf 'run %d: tar %.3f s  bale %.3f s  ratio %.3f\n' "$i" "$t" "$b" "$r"
    tars+=("$t") bales+=("$b") ratios+=("$r")
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
mt=$(median "${tars[@]}") mb=$(median "${bales[@]}") mr=$(median "${ratios[@]}")
printf 'median: tar %.3f s  bale %.3f s  (%.0f MB/s)  bale/tar ratio %.3f\n' \
    "$mt" "$mb" "$(echo "$bytes / 1000000 / $mb" | bc -l)" "$mr"
printf '{"bench":"pack_vs_tar","runs":%d,"files":%d,"bytes":%d,"tar_s":%s,"bale_s":%s,"ratio":%s}\n' \
    "$runs" "$files" "$bytes" "$mt" "$mb" "$mr"
rm -rf "$dir/out.tar" "$dir/wds"
