#!/bin/bash
# The benchmarks' image trees, made once (a .complete says one is whole):
#   DIR/tree-imagenet  10 000 JPEGs sized as ImageNet's are (mostly 500 px
#                      on the longer side; median 500x372, 111 KB; 1.29
#                      GB), in 100 classes, seed 1: make_imagenet_tree.py.
#                      What the training-input figures are measured on.
#   DIR/tree-110k      10 000 random JPEGs of 200-1200 px a side (110 KB
#                      on average, 1.1 GB), in 100 classes, seed 1: the
#                      packing and reading benchmarks' tree.
#
#   bench/make_tree.sh DIR [110k|imagenet]    (default: 110k)
set -eu
cd "$(dirname "$0")/.."
kind=${2:-110k}
src=$1/tree-$kind
mkdata=${MKDATA:-build/tests/bale-mkdata}
[ ! -f "$src/.complete" ] || exit 0
rm -rf "$src"
case $kind in
110k)
    "$mkdata" random "$src" -n 10000 --min 200 --max 1200 \
        --classes 100 --seed 1 -j 2 >&2 ;;
imagenet)
    /usr/bin/python3 bench/make_imagenet_tree.py "$src" -n 10000 \
        --classes 100 --seed 1 >&2 ;;
*)
    echo "make_tree.sh: no tree '$kind' (110k or imagenet)" >&2
    exit 2 ;;
esac
touch "$src/.complete"
