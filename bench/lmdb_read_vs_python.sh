#!/bin/bash
# bale's LMDB reader against Python's lmdb (readahead on and off), warm
# and cold, one thread, same keys in the same seeded order, rounds
# alternating so drift of the machine hits both alike.
#
#   bench/lmdb_read_vs_python.sh [ROUNDS]     (default 5)
#
# Uses the LMDB output in $BENCH_DIR/packed (made by bench/pack.sh's tree:
# `bale pack build/bench/images -f lmdb -o build/bench/packed`).
# Python with readahead off reads 2000 samples a round (cold, it runs at
# a few hundred per second); every other measurement reads 10000. bale is
# measured twice: its default reader (pread) and map=1 (the `lmdb-map`
# line of bale bench: repeat reads from the map). Its figure per round is
# the median of 5 runs; with map=1 the first warm run maps the pages (a
# one-time cost, see formats/lmdb_read.c), which Python does in its
# untimed pass, so the median leaves it out as Python's figure does.
set -eu
cd "$(dirname "$0")/.."
rounds=${1:-5}
dir=${BENCH_DIR:-build/bench}
lmdb=$dir/packed/data.lmdb
[ -d "$lmdb" ] || { echo "no $lmdb: pack the bench tree first" >&2; exit 2; }
out=$(mktemp)
for i in $(seq "$rounds"); do
    build/bale bench "$lmdb" --against "$dir/images" -t 1 \
        --cache both -r 5 2>/dev/null |
        awk '$1 == "lmdb" {print "bale", $2, $4}
             $1 == "lmdb-map" {print "bale-map", $2, $4}' >> "$out"
    /usr/bin/python3 bench/py_lmdb_read.py "$lmdb" --runs 1 --readahead on |
        awk '{print "py-on warm", $6; print "py-on cold", $9}' >> "$out"
    /usr/bin/python3 bench/py_lmdb_read.py "$lmdb" --runs 1 -k 2000 \
        --readahead off | awk '{print "py-off warm", $5; print "py-off cold", $8}' >> "$out"
    echo "round $i done" >&2
done
echo "one thread, median samples/s over $rounds rounds:"
for who in bale bale-map py-on py-off; do
    for cache in warm cold; do
        printf '%-8s %-5s %8.0f\n' "$who" "$cache" "$(awk -v w="$who" -v c="$cache" \
            '$1 == w && $2 == c {print $3}' "$out" | sort -g |
            awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}')"
    done
done
rm -f "$out"
