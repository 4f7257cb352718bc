#!/bin/bash
# bale merge against packing: the 110k tree (10 000 JPEGs, 1.1 GB, 100
# classes; bench/make_tree.sh, under $BENCH_DIR, default build/bench)
# packed whole, and as 8 parts (--part I/8) merged, per format (-f wds,
# -f lmdb, -f hdf5 and hdf5 with --copy), warm: the runs of the pack,
# then those of the merge. Prints every time and the medians, and each
# merge's time as a share of the whole pack's of its format, and what
# starting the process alone takes (bale --help).
#
#   bench/merge.sh [-r RUNS]
set -eu
cd "$(dirname "$0")/.."
. bench/lib.sh
runs=5
if [ "${1:-}" = "-r" ]; then runs=$2; shift 2; fi
dir=${BENCH_DIR:-build/bench}
bale=${BALE:-build/bale}
src=$dir/tree-110k
work=$dir/merge
bench/make_tree.sh "$dir"
rm -rf "$work"
mkdir -p "$work"
find "$src" -type f -exec cat {} + >/dev/null
for i in 0 1 2 3 4 5 6 7; do
    "$bale" pack "$src" -f wds,lmdb,hdf5 -o "$work/p$i" -q --part "$i/8"
done
starts=()
for ((r = 0; r < runs; r++)); do
    starts+=("$(secs sh -c "'$bale' --help >/dev/null")")
done
echo "process start alone (bale --help): ${starts[*]} s"
for how in wds lmdb hdf5 "hdf5 --copy"; do
    f=${how%% *}
    copy=${how#"$f"}
    packs=() merges=()
    # the packs, then the merges: a merge right after a 1 GB pack would
    # pay for the pack's page-cache churn
    for ((r = 0; r < runs; r++)); do
        rm -rf "$work/whole"
        packs+=("$(secs "$bale" pack "$src" -f "$f" -o "$work/whole" -q)")
    done
    rm -rf "$work/whole"
    for ((r = 0; r < runs; r++)); do
        rm -rf "$work/merged"
        # shellcheck disable=SC2086
        merges+=("$(secs "$bale" merge "$work/merged" "$work"/p? -f "$f" \
            $copy)")
    done
    echo "$how: packs ${packs[*]} s; merges of 8 parts ${merges[*]} s"
    /usr/bin/python3 - "$how" "${packs[*]}" "${merges[*]}" <<'PY'
import statistics as st, sys
f = sys.argv[1]
p, m = ([float(x) for x in a.split()] for a in sys.argv[2:4])
print(f"{f}: pack median {st.median(p):.3f} s, merge median "
      f"{st.median(m):.3f} s, merge / pack {st.median(m) / st.median(p):.4f}")
PY
done
rm -rf "$work"
