#!/bin/bash
# The benchmarks' image tree: DIR/tree-110k, 10 000 random JPEGs of
# 200-1200 px (110 KB on average, 1.1 GB), in 100 classes, seed 1. Made
# once; its .complete says it is whole.
#
#   bench/make_tree.sh DIR
set -eu
cd "$(dirname "$0")/.."
src=$1/tree-110k
mkdata=${MKDATA:-build/tests/bale-mkdata}
if [ ! -f "$src/.complete" ]; then
    rm -rf "$src"
    "$mkdata" random "$src" -n 10000 --min 200 --max 1200 \
        --classes 100 --seed 1 -j 2 >&2
    touch "$src/.complete"
fi
