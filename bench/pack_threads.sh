#!/bin/bash
# How many reader threads bale pack should use: the same pack (-f wds)
# with -j 1, 2, 4, 8, 16 and with the default (adaptive: one per CPU,
# more while reads wait on the disk), warm and cold cache.
#
#   bench/pack_threads.sh [-r RUNS] [SIZE]     SIZE: 110k (default), 25k, 8k
#
# Uses the trees of bench/wds_vs_tar.sh (generated there). Cold runs drop
# the page cache, dentries and inodes first (root: /proc/sys/vm/drop_caches;
# without it, cold runs are skipped). Each run after a sync; the -j values
# alternate in rotating order. Prints the median seconds per -j and
# cache state, and tar's for reference.
set -eu
cd "$(dirname "$0")/.."
runs=5
if [ "${1:-}" = "-r" ]; then runs=$2; shift 2; fi
size=${1:-110k}
dir=${BENCH_DIR:-build/bench}
src=$dir/tree-$size
bale=${BALE:-build/bale}
[ -f "$src/.complete" ] || { echo "run bench/wds_vs_tar.sh $size first" >&2; exit 2; }
caches=(warm)
[ -w /proc/sys/vm/drop_caches ] && caches+=(cold)
jobs=(1 2 4 8 16)

one() { # one CACHE CONTENDER: seconds
    local out=$dir/out t0 t1
    rm -rf "$out" "$out.tar"
    sync
    if [ "$1" = cold ]; then
        echo 3 >/proc/sys/vm/drop_caches
    else
        find "$src" -type f -exec cat {} + >/dev/null
    fi
    t0=$(date +%s.%N)
    case $2 in
    tar) tar --hard-dereference -cf "$out.tar" -C "$src" --exclude=.complete . ;;
    default) "$bale" pack "$src" -f wds -o "$out" -q ;;
    *) "$bale" pack "$src" -f wds -o "$out" -q -j "$2" ;;
    esac
    t1=$(date +%s.%N)
    rm -rf "$out" "$out.tar"
    echo "$t1 - $t0" | bc
}

contenders=(tar default "${jobs[@]}")
declare -A times=()
for ((r = 0; r < runs; r++)); do
    for cache in "${caches[@]}"; do
        for ((k = 0; k < ${#contenders[@]}; k++)); do
            c=${contenders[(k + r) % ${#contenders[@]}]}
            t=$(one "$cache" "$c")
            times[$cache-$c]+="$t "
            echo "run $r $cache $c $t s"
        done
    done
done
for cache in "${caches[@]}"; do
    for c in "${contenders[@]}"; do
        /usr/bin/python3 -c 'import statistics as s, sys
v = [float(x) for x in sys.argv[3].split()]
print(f"{sys.argv[1]} {sys.argv[2]:>4}: median {s.median(v):.2f} s "
      f"(min {min(v):.2f}, max {max(v):.2f})")' "$cache" \
            "$(case $c in tar|default) echo "$c" ;; *) echo "-j$c" ;; esac)" \
            "${times[$cache-$c]}"
    done
done
