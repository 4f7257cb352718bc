#!/bin/bash
# bale pack --update against a full repack: the 110k tree (10 000 JPEGs,
# 1.1 GB, 100 classes; bench/make_tree.sh, under $BENCH_DIR, default
# build/bench), -f wds,lmdb,hdf5, warm. Each run times
#   - the full pack (--force);
#   - an update after adding 1% new files (100 copies, new names);
#   - an update after removing them again;
#   - an update with nothing changed (a walk and a stat per file);
# and the script prints the medians and each update's share of the full
# pack, and how many image files the unchanged update opened (strace).
#
#   bench/update.sh [-r RUNS]
set -eu
cd "$(dirname "$0")/.."
. bench/lib.sh
runs=5
if [ "${1:-}" = "-r" ]; then runs=$2; shift 2; fi
dir=${BENCH_DIR:-build/bench}
bale=${BALE:-build/bale}
formats=${FORMATS:-wds,lmdb,hdf5}
bench/make_tree.sh "$dir"
work=$dir/update
rm -rf "$work"
mkdir -p "$work"
# a tree of hard links: files added and removed here leave the original
cp -al "$dir/tree-110k" "$work/tree"
rm -f "$work/tree/.complete"
find "$work/tree" -type f -exec cat {} + >/dev/null
"$bale" pack "$work/tree" -f "$formats" -o "$work/out" -q --update
mapfile -t picks < <(find "$work/tree" -type f | sort | awk 'NR % 100 == 1')
fulls=() adds=() removes=() sames=()
for ((r = 0; r < runs; r++)); do
    fulls+=("$(secs "$bale" pack "$work/tree" -f "$formats" \
        -o "$work/full" -q --force)")
    for f in "${picks[@]}"; do cp "$f" "${f%.*}_new$r.jpg"; done
    adds+=("$(secs "$bale" pack "$work/tree" -f "$formats" \
        -o "$work/out" -q --update)")
    for f in "${picks[@]}"; do rm "${f%.*}_new$r.jpg"; done
    removes+=("$(secs "$bale" pack "$work/tree" -f "$formats" \
        -o "$work/out" -q --update)")
    sames+=("$(secs "$bale" pack "$work/tree" -f "$formats" \
        -o "$work/out" -q --update 2>/dev/null)")
    echo "run $r: full ${fulls[-1]} s, +1% ${adds[-1]} s," \
        "-1% ${removes[-1]} s, nothing ${sames[-1]} s"
done
strace -f -e trace=openat -o "$work/trace" "$bale" pack "$work/tree" \
    -f "$formats" -o "$work/out" -q --update 2>/dev/null
echo "images opened by an update with nothing changed:" \
    "$(grep -cE '\.(jpe?g|JPEG)"' "$work/trace" || true)"
for o in data-shards.json data.lmdb data.h5; do
    [ ! -e "$work/out/$o" ] || "$bale" verify "$work/out/$o" >/dev/null
done
/usr/bin/python3 - "${fulls[*]}" "${adds[*]}" "${removes[*]}" \
    "${sames[*]}" <<'PY'
import statistics as st, sys
full, add, rem, same = ([float(x) for x in a.split()] for a in sys.argv[1:5])
f = st.median(full)
print(f"full pack median {f:.3f} s")
for name, v in (("update, 1% added", add), ("update, 1% removed", rem),
                ("update, nothing changed", same)):
    print(f"{name}: median {st.median(v):.3f} s, {st.median(v) / f:.4f} "
          "of the full pack")
PY
rm -rf "$work"
