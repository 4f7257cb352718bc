#!/bin/bash
# bale pack from an archive against the ways a user gets there today.
#
#   bench/archive_source.sh [-r RUNS] [a] [b] [c] [d] [e] [f]
#                                               (default: a b c)
#
# On the 110k tree of bench/wds_vs_tar.sh (10 000 JPEGs, 1.1 GB, 100
# classes; generated once under $BENCH_DIR, default build/bench):
#   a  `bale pack TREE.tar -f wds` against `bale pack TREE -f wds`, warm
#      (both in the page cache) and cold (caches dropped before each run:
#      needs root)
#   b  a tar of 100 per-class tars: `bale pack` of it against extracting
#      it (outer, then every inner tar into its class folder) and packing
#      the folder, warm
#   c  the tree as a .tar.gz (GNU tar's member order, which is not
#      torchvision's): `bale pack` of it, at the default read-ahead bound
#      and with one the archive fits in, against `tar -xzf` and packing
#      the folder; with where bale's time goes (listing pass, passes over
#      the stream) and `gzip -dc` alone
#   d  c for a .tar.gz in torchvision order (`tar --sort=name -czf`)
#   e  a list file naming every image in a shuffled order (other labels):
#      `bale pack TREE.tar --list L` against `bale pack TREE --list L`,
#      warm
#   f  the tree as 4 .tar.gz parts in torchvision order (25 classes
#      each): `bale pack` of the 4 against extracting them all and
#      packing the folder, and against the one sorted .tar.gz of d, warm
# Contenders alternate in order run by run; outputs are removed between
# runs and a sync precedes each. Prints every time, then medians and the
# median of the per-run ratios (above 1.0: bale from the archive is
# faster). Results are appended to bench/results/archive_source.jsonl.
set -eu
cd "$(dirname "$0")/.."
runs=5
if [ "${1:-}" = "-r" ]; then runs=$2; shift 2; fi
[ $# -gt 0 ] || set -- a b c
dir=${BENCH_DIR:-build/bench}
bale=${BALE:-build/bale}
results=bench/results/archive_source.jsonl
src=$dir/tree-110k
work=$dir/arc

make_inputs() {
    bench/make_tree.sh "$dir"
    mkdir -p "$work"
    [ -f "$work/tree.tar" ] ||
        tar -cf "$work/tree.tar" -C "$src" --exclude=.complete .
    [ -f "$work/tree.tar.gz" ] ||
        tar -czf "$work/tree.tar.gz" -C "$src" --exclude=.complete .
    [ -f "$work/sorted.tar.gz" ] || tar --sort=name -czf \
        "$work/sorted.tar.gz" -C "$src" --exclude=.complete .
    [ -f "$work/list.tsv" ] || /usr/bin/python3 - "$src" "$work/list.tsv" <<'PY'
import os, random, sys
src, out = sys.argv[1:3]
paths = sorted(os.path.relpath(os.path.join(d, f), src)
               for d, _, fs in os.walk(src) for f in fs if f != ".complete")
rng = random.Random(1)
rng.shuffle(paths)
with open(out, "w") as f:
    f.writelines("%s\t%d\n" % (p, rng.randrange(1000)) for p in paths)
PY
    if [ ! -f "$work/part4.tar.gz" ]; then
        classes=($(ls "$src"))
        for k in 1 2 3 4; do
            tar --sort=name -czf "$work/part$k.tar.gz" -C "$src" \
                "${classes[@]:$(((k - 1) * 25)):25}"
        done
    fi
    if [ ! -f "$work/tars.tar" ]; then
        rm -rf "$work/classes"
        mkdir "$work/classes"
        for c in "$src"/*/; do
            c=$(basename "$c")
            tar -cf "$work/classes/$c.tar" -C "$src/$c" .
        done
        tar -cf "$work/tars.tar" -C "$work/classes" .
        rm -rf "$work/classes"
    fi
}

cold() { sync; echo 3 >/proc/sys/vm/drop_caches; }
warm() { sync; find "$src" "$work" -maxdepth 2 -type f -exec cat {} + >/dev/null; }

# extract ARCHIVE: what users do first (a tar of tars: every inner tar
# into the class folder it names)
extract() {
    rm -rf "$work/x"
    mkdir "$work/x"
    case $1 in
    parts)
        for k in 1 2 3 4; do tar -xzf "$work/part$k.tar.gz" -C "$work/x"; done ;;
    *.tar.gz) tar -xzf "$1" -C "$work/x" ;;
    *)
        tar -xf "$1" -C "$work/x"
        for t in "$work/x"/*.tar; do
            mkdir "${t%.tar}"
            tar -xf "$t" -C "${t%.tar}"
            rm "$t"
        done ;;
    esac
}

# one CONTENDER: seconds; the report of a bale run is kept in $work/r.json
one() {
    local t0 t1
    rm -rf "$work/o" "$work/x"
    sync
    t0=$(date +%s.%N)
    case $1 in
    folder) "$bale" pack "$src" -f wds -o "$work/o" -q ;;
    tar) "$bale" pack "$work/tree.tar" -f wds -o "$work/o" -q ;;
    tars) "$bale" pack "$work/tars.tar" -f wds -o "$work/o" -q ;;
    tars-extract) extract "$work/tars.tar"
        "$bale" pack "$work/x" -f wds -o "$work/o" -q ;;
    gz) "$bale" pack "$work/tree.tar.gz" -f wds -o "$work/o" -q \
        --report "$work/r.json" ;;
    gz-2g) "$bale" pack "$work/tree.tar.gz" -f wds -o "$work/o" -q \
        --window 2G --report "$work/r.json" ;;
    gz-extract) extract "$work/tree.tar.gz"
        "$bale" pack "$work/x" -f wds -o "$work/o" -q ;;
    sorted-gz) "$bale" pack "$work/sorted.tar.gz" -f wds -o "$work/o" -q \
        --report "$work/r.json" ;;
    sorted-gz-extract) extract "$work/sorted.tar.gz"
        "$bale" pack "$work/x" -f wds -o "$work/o" -q ;;
    gunzip) gzip -dc "$work/tree.tar.gz" >/dev/null ;;
    list-folder) "$bale" pack "$src" --list "$work/list.tsv" -f wds \
        -o "$work/o" -q ;;
    list-tar) "$bale" pack "$work/tree.tar" --list "$work/list.tsv" -f wds \
        -o "$work/o" -q ;;
    parts) "$bale" pack "$work"/part{1,2,3,4}.tar.gz -f wds -o "$work/o" \
        -q --report "$work/r.json" ;;
    parts-extract) extract parts
        "$bale" pack "$work/x" -f wds -o "$work/o" -q ;;
    esac
    t1=$(date +%s.%N)
    rm -rf "$work/o" "$work/x"
    echo "$t1 - $t0" | bc
}

# the stream figures of the last gz run's report
stream_figures() {
    /usr/bin/python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print("walk %.2f s, %d passes in %.2f s, peak %d MB" % (r["walk_seconds"],
      r["stream_passes"], r["stream_seconds"], r["stream_peak_bytes"] >> 20))' \
        "$work/r.json"
}

# series NAME CACHE BASELINE CONTENDER...: alternate them for $runs runs
series() {
    local name=$1 cache=$2 base=$3 r k c t n
    shift 2
    local all=("$@")
    n=${#all[@]}
    declare -A times=()
    for ((r = 0; r < runs; r++)); do
        for ((k = 0; k < n; k++)); do
            c=${all[(k + r) % n]}
            if [ "$cache" = cold ]; then cold; else warm; fi
            t=$(one "$c")
            times[$c]+="$t "
            case $c in
            gz|gz-2g|sorted-gz|parts)
                echo "run $r $c $t s ($(stream_figures))" ;;
            *) echo "run $r $c $t s" ;; esac
        done
    done
    for c in "${all[@]}"; do
        [ "$c" = "$base" ] && continue
        /usr/bin/python3 - "$name" "$cache" "$base" "${times[$base]}" "$c" \
            "${times[$c]}" "$results" <<'PY'
import json, statistics as st, sys
name, cache, base, bt, c, ct, out = sys.argv[1:]
bt = [float(x) for x in bt.split()]
ct = [float(x) for x in ct.split()]
ratio = st.median(b / t for b, t in zip(bt, ct))
print(f"{name} {cache}: {base} median {st.median(bt):.2f} s, {c} median "
      f"{st.median(ct):.2f} s; speed of {c} / {base} (median of per-run) "
      f"{ratio:.2f}")
with open(out, "a") as f:
    f.write(json.dumps({"bench": name, "cache": cache, "baseline": base,
                        "contender": c, "baseline_s": bt, "contender_s": ct,
                        "speed_ratio": round(ratio, 3)}) + "\n")
PY
    done
}

make_inputs
for what in "$@"; do
    case $what in
    a) series a warm folder tar
       series a cold folder tar ;;
    b) series b warm tars-extract tars ;;
    c) series c warm gz-extract gz gz-2g gunzip ;;
    d) series d warm sorted-gz-extract sorted-gz ;;
    e) series e warm list-folder list-tar ;;
    f) series f warm parts-extract parts sorted-gz ;;
    *) echo "unknown benchmark '$what'" >&2; exit 2 ;;
    esac
done
