#!/bin/bash
# Parquet files as a Hugging Face image dataset comes (Snappy, rows of
# 100 a row group), packed to WebDataset with the bytes passed through,
# against copying the same files with cp to the same disk (the issue's
# baseline: the same bytes read and written; Debian 12's cp copies
# in the kernel, copy_file_range), and against dd (a copy through user
# space, as any packer reads and writes). Also the folder pack of the
# tree the rows came from: time and peak memory. And two floors
# (bench/parquet_floor.c, on bale's Parquet reader): the images read
# and decompressed, nothing done with them; and the least pack on two
# threads (one reads into a ring, the other checksums and writes each
# image behind a tar header: no workers, index or journal). Warm cache;
# runs alternate; medians of RUNS.
#
#   bench/parquet_pack.sh N WORK [RUNS] [FILES]
#
# N random images (~105 KB, 10 classes) in WORK/tree, written as FILES
# Parquet files (default 8) in WORK/parquet by tests/parquet/
# make_dataset.mjs (node and the npm packages of tests/parquet, which
# this installs when missing).
set -euo pipefail
n=${1:?N}
work=${2:?WORK}
runs=${3:-5}
files=${4:-8}
here=$(cd "$(dirname "$0")" && pwd)
bale=${BALE:-$here/../build/bale}
mkdata=${MKDATA:-$here/../build/tests/bale-mkdata}
. "$here/lib.sh"

mkdir -p "$work"
if [ ! -d "$work/tree" ]; then
    "$mkdata" random "$work/tree" -n "$n" --classes 10 >/dev/null
fi
if [ ! -d "$work/parquet" ]; then
    [ -d "$here/../tests/parquet/node_modules" ] ||
        (cd "$here/../tests/parquet" && npm install --no-audit --no-fund)
    node "$here/../tests/parquet/make_dataset.mjs" "$work/tree" \
        "$work/parquet" "$files" 100
fi
bytes=$(cat "$work"/parquet/*.parquet | wc -c)

timed() { # OUTVAR-free: prints "seconds peak_kb" of CMD...
    local t0 mem
    t0=$(now)
    mem=$(/usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1)
    echo "$(since "$t0") $mem"
}
one_cp() {
    rm -rf "$work/copy"
    mkdir "$work/copy"
    timed cp "$work"/parquet/*.parquet "$work/copy/"
}
one_dd() {
    local f t0
    rm -rf "$work/copy"
    mkdir "$work/copy"
    t0=$(now)
    for f in "$work"/parquet/*.parquet; do
        dd if="$f" of="$work/copy/${f##*/}" bs=1M status=none
    done
    echo "$(since "$t0") 0"
}
floor=$work/parquet_floor
src=$here/..
cc -O2 -std=gnu11 -I"$src/include" $(for d in "$src"/src/*/; do
    printf -- '-I%s ' "$d"; done) -o "$floor" "$here/parquet_floor.c" \
    "$src/build/libbale_core.a" -lcurl -lexpat -lsnappy -lzstd -lz \
    -ldeflate -lcrypto -lpthread -lm
one_floor() {
    "$floor" "$work"/parquet/*.parquet
}
one_least_pack() {
    local t
    rm -f "$work/least.tar"
    t=$("$floor" -w "$work/least.tar" "$work"/parquet/*.parquet)
    rm -f "$work/least.tar"
    echo "$t"
}
one_bale() {
    rm -rf "$work/out"
    timed "$bale" pack "$work"/parquet/*.parquet -o "$work/out" -f wds -q
}
one_folder() {
    rm -rf "$work/out-tree"
    timed "$bale" pack "$work/tree" -o "$work/out-tree" -f wds -q
}

cat "$work"/parquet/*.parquet "$work"/tree/*/* >/dev/null	# warm
results=$(mktemp)
for r in $(seq "$runs"); do
    sync
    if [ $((r % 2)) = 1 ]; then
        read -r c _ < <(one_cp)
        read -r b bmem < <(one_bale)
    else
        read -r b bmem < <(one_bale)
        read -r c _ < <(one_cp)
    fi
    read -r d _ < <(one_dd)
    read -r f fmem < <(one_folder)
    lo=$(one_floor)
    sync
    lw=$(one_least_pack)
    printf '{"n":%s,"files":%s,"bytes":%s,"cp_s":%s,"dd_s":%s,' \
        "$n" "$files" "$bytes" "$c" "$d" | tee -a "$results"
    printf '"bale_s":%s,"bale_rss_kb":%s,"folder_s":%s,' "$b" "$bmem" "$f" |
        tee -a "$results"
    printf '"folder_rss_kb":%s,"floor_s":%s,"least_pack_s":%s}\n' \
        "$fmem" "$lo" "$lw" | tee -a "$results"
done
/usr/bin/python3 - "$results" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
med = lambda k: statistics.median(r[k] for r in rows)
ratio = lambda k: statistics.median(r["bale_s"] / r[k] for r in rows)
print("median of %d runs, %d rows in %d files (%.0f MB)" % (len(rows),
      rows[0]["n"], rows[0]["files"], rows[0]["bytes"] / 1e6))
print("bale pack parquet -> wds %.3f s (peak %.0f MiB); cp %.3f s; dd "
      "%.3f s; folder pack %.3f s (peak %.0f MiB)" % (med("bale_s"),
      med("bale_rss_kb") / 1024, med("cp_s"), med("dd_s"), med("folder_s"),
      med("folder_rss_kb") / 1024))
print("ratios: /cp %.2f (each run: %s), /dd %.2f, /folder pack %.2f" % (
      ratio("cp_s"), ", ".join("%.2f" % (r["bale_s"] / r["cp_s"])
                               for r in rows), ratio("dd_s"),
      ratio("folder_s")))
floor = lambda k: statistics.median(r[k] / r["cp_s"] for r in rows)
print("floors: the images read and decompressed, nothing else, %.3f s "
      "(%.2fx cp); the least pack on two threads %.3f s (%.2fx cp)" % (
      med("floor_s"), floor("floor_s"), med("least_pack_s"),
      floor("least_pack_s")))
PY
rm -f "$results"
