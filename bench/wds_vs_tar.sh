#!/bin/bash
# bale pack -f wds against GNU tar on small samples, warm cache.
#
#   bench/wds_vs_tar.sh [-r RUNS] [SIZE ...]     SIZE: 8k 25k 110k (all)
#
# For each mean sample size, a tree of JPEGs (generated once under
# $BENCH_DIR, default build/bench): 8k and 25k hold 200 000 files (1.6 GB,
# 5 GB), 110k 10 000 (1.1 GB). Each run times, in alternating order,
# `tar --hard-dereference -cf` of the tree and `bale pack -f wds` of it
# ($BALE, default build/bale; with $BALE_OLD set, that build too), each
# after a sync, outputs on the same file system. Prints every time, then
# per size and contender the median and the median of the per-run ratios
# to tar (below 1.0: faster than tar).
set -eu
cd "$(dirname "$0")/.."
runs=5
if [ "${1:-}" = "-r" ]; then runs=$2; shift 2; fi
[ $# -gt 0 ] || set -- 8k 25k 110k
dir=${BENCH_DIR:-build/bench}
bale=${BALE:-build/bale}
mkdata=${MKDATA:-build/tests/bale-mkdata}

tree() { # tree SIZE: the source folder for SIZE, generated once
    local src=$dir/tree-$1 spec
    case $1 in
    8k) spec="-n 200000 --min 60 --max 300" ;;
    25k) spec="-n 200000 --min 140 --max 520" ;;
    110k) spec="-n 10000 --min 200 --max 1200" ;;
    *) echo "unknown size '$1'" >&2; exit 2 ;;
    esac
    if [ ! -f "$src/.complete" ]; then
        rm -rf "$src"
        echo "generating $src ..." >&2
        # shellcheck disable=SC2086
        "$mkdata" random "$src" $spec --classes 100 --seed 1 -j 2 >&2
        touch "$src/.complete"
    fi
    echo "$src"
}

one() { # one CONTENDER SRC: seconds
    local out=$dir/out t0 t1
    rm -rf "$out" "$out.tar"
    sync
    t0=$(date +%s.%N)
    case $1 in
    tar) tar --hard-dereference -cf "$out.tar" -C "$2" --exclude=.complete . ;;
    wds) "$bale" pack "$2" -f wds -o "$out" -q ;;
    wds-old) "$BALE_OLD" pack "$2" -f wds -o "$out" -q ;;
    esac
    t1=$(date +%s.%N)
    rm -rf "$out" "$out.tar"
    echo "$t1 - $t0" | bc
}

contenders=(tar wds)
[ -z "${BALE_OLD:-}" ] || contenders+=(wds-old)
for size in "$@"; do
    src=$(tree "$size")
    n=$(find "$src" -type f -name '*.*' ! -name .complete | wc -l)
    bytes=$(du -sb "$src" | cut -f1)
    echo "== $size: $n files, mean $((bytes / n)) bytes; $runs runs"
    find "$src" -type f -exec cat {} + >/dev/null	# warm the page cache
    declare -A times=()
    for ((r = 0; r < runs; r++)); do
        for ((k = 0; k < ${#contenders[@]}; k++)); do
            c=${contenders[(k + r) % ${#contenders[@]}]}
            t=$(one "$c" "$src")
            times[$c]+="$t "
            echo "run $r $c $t s"
        done
    done
    /usr/bin/python3 - "$size" "${times[tar]}" "${times[wds]}" \
        "${times[wds-old]:-}" <<'PY'
import statistics as st, sys
size, tar = sys.argv[1], [float(x) for x in sys.argv[2].split()]
for name, arg in (("wds", sys.argv[3]), ("wds-old", sys.argv[4])):
    if not arg:
        continue
    v = [float(x) for x in arg.split()]
    ratios = [a / b for a, b in zip(v, tar)]
    print(f"{size}: tar median {st.median(tar):.2f} s, {name} median "
          f"{st.median(v):.2f} s, ratio to tar (median of per-run) "
          f"{st.median(ratios):.2f}")
PY
    unset times
done
