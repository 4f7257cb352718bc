#!/bin/bash
# Time packing the same folder with several contenders, warm cache.
#
#   bench/pack.sh [-r RUNS] [CONTENDER ...]
#
# Contenders: tar (GNU tar -cf, the copy baseline), tar+sync (the same,
# then fsync of the tar: the baseline for outputs that sync, as bale's
# LMDB does once at the end), tar3 (three tars back to back: the bytes a
# one-pass run of three formats writes), wds, lmdb, hdf5, all
# (bale -f lmdb,hdf5,wds in one pass), lmdb+fsync (durable, compare with
# tar+sync), py-lmdb (bench/py_lmdb_pickle.py),
# py-h5py (bench/py_h5py_vlen.py), resize (bale -f wds --resize
# shorter:256 --quality 90), py-resize (bench/py_pil_resize.py, the same
# with PIL on every core). Default: tar wds lmdb hdf5 all.
#
# Generates (once) an ImageNet-like tree: 10k JPEGs, sides 200..1200 px,
# ~110 KB mean, ~1.1 GB, in $BENCH_DIR (default build/bench). Each run
# times every contender once, in a rotating order, each after a `sync` so
# none pays for another's write-back; outputs go to the same file system.
# Prints every time, then per contender the median time, MB/s and the
# median of its per-run ratios to tar (below 1.0: faster than tar).
set -eu
cd "$(dirname "$0")/.."
runs=5
if [ "${1:-}" = "-r" ]; then runs=$2; shift 2; fi
[ $# -gt 0 ] || set -- tar wds lmdb hdf5 all
dir=${BENCH_DIR:-build/bench}
src=$dir/images
bale=${BALE:-build/bale}
mkdata=${MKDATA:-build/tests/bale-mkdata}

if [ ! -f "$dir/.complete" ]; then
    rm -rf "$src"
    echo "generating $src (10000 JPEGs) ..." >&2
    "$mkdata" random "$src" -n 10000 --classes 100 --min 200 --max 1200 --seed 1
    touch "$dir/.complete"
fi
files=$(find "$src" -type f | wc -l)
bytes=$(du -sb "$src" | cut -f1)
echo "source: $files files, $((bytes / 1000000)) MB; $(nproc) cores; $runs runs" >&2
find "$src" -type f -exec cat {} + >/dev/null	# warm the page cache

run_one() { # run_one CONTENDER: pack into $dir/out
    local out=$dir/out
    case $1 in
    tar) tar -cf "$out.tar" -C "$src" . ;;
    tar+sync) tar -cf "$out.tar" -C "$src" . && sync "$out.tar" ;;
    tar3) mkdir -p "$out" && for k in 1 2 3; do
            tar -cf "$out/$k.tar" -C "$src" .; done ;;
    wds|lmdb|hdf5) "$bale" pack "$src" -f "$1" -o "$out" -q ;;
    all) "$bale" pack "$src" -f lmdb,hdf5,wds -o "$out" -q ;;
    lmdb+fsync) "$bale" pack "$src" -f lmdb -o "$out" -q --fsync ;;
    py-lmdb) /usr/bin/python3 bench/py_lmdb_pickle.py "$src" "$out.lmdb" ;;
    py-h5py) /usr/bin/python3 bench/py_h5py_vlen.py "$src" "$out.h5" ;;
    resize) "$bale" pack "$src" -f wds -o "$out" -q --resize shorter:256 \
        --quality 90 ;;
    py-resize) /usr/bin/python3 bench/py_pil_resize.py "$src" "$out.tar" \
        256 90 ;;
    *) echo "unknown contender '$1'" >&2; exit 2 ;;
    esac
}
time_one() {
    rm -rf "$dir/out" "$dir/out.tar" "$dir/out.lmdb" "$dir/out.h5"; sync
    local t0=$EPOCHREALTIME
    run_one "$1"
    echo "$EPOCHREALTIME - $t0" | bc
}

declare -A times
names=("$@")
for i in $(seq "$runs"); do
    line="run $i:"
    for k in $(seq 0 $((${#names[@]} - 1))); do
        c=${names[$(( (k + i) % ${#names[@]} ))]}
        t=$(time_one "$c")
        times[$c]="${times[$c]:-} $t"
        times[$c@$i]=$t
        line="$line $c $(printf %.3f "$t")"
    done
    echo "$line"
done
rm -rf "$dir/out" "$dir/out.tar" "$dir/out.lmdb" "$dir/out.h5"

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
printf '%-8s %9s %8s %12s\n' contender median_s MB/s ratio_to_tar
for c in "${names[@]}"; do
    # shellcheck disable=SC2086
    m=$(median ${times[$c]})
    r=-
    if [ -n "${times[tar@1]:-}" ]; then
        ratios=()
        for i in $(seq "$runs"); do
            ratios+=("$(echo "scale=4; ${times[$c@$i]} / ${times[tar@$i]}" | bc)")
        done
        r=$(printf %.3f "$(median "${ratios[@]}")")
    fi
    printf '%-8s %9.3f %8.0f %12s\n' "$c" "$m" "$(echo "$bytes / 1000000 / $m" | bc -l)" "$r"
done
