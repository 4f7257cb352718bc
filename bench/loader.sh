#!/bin/bash
# bale.Loader against torchvision's ImageFolder and bale's Datasets in a
# DataLoader (bench/loader.py): the ImageNet-like tree (bench/make_tree.sh
# imagenet, under $BENCH_DIR, default build/bench; TREE=110k for the other
# one), packed three ways into LMDB
# (pass-through, --resize shorter:256, --pixels 256x256), warm; then
# bale bench --loader (C, 1 and 2 threads) on the same outputs, and the
# decode limit: the same crops in one thread over 2000 samples already
# in memory, no pipeline (build/tests/bale-crop-raw --bench).
# With "sshfs": the same three rows read over sshfs on loopback
# (bench/sshfs_loopback.sh, sshfs's default caching); with "cold": the
# three rows with the page cache dropped before each cell (root).
#
#   bench/loader.sh [-r RUNS] [sshfs|cold]
set -eu
cd "$(dirname "$0")/.."
runs=3
if [ "${1:-}" = "-r" ]; then runs=$2; shift 2; fi
dir=${BENCH_DIR:-build/bench}
bale=${BALE:-build/bale}
kind=${TREE:-imagenet}
bench/make_tree.sh "$dir" "$kind"
tree=$dir/tree-$kind
out=$dir/loader-$kind
mkdir -p "$out"
pack() { # NAME FLAGS...
    local name=$1
    shift
    [ -f "$out/$name/.complete" ] && return 0
    "$bale" pack "$tree" -f lmdb -o "$out/$name" -q --force "$@"
    touch "$out/$name/.complete"
}
pack pass
pack r256 --resize shorter:256
pack px256 --pixels 256x256
export PYTHONPATH=${PYTHONPATH:-build/python}
if [ "${1:-}" = sshfs ]; then
    mnt=$dir-sshfs
    bench/sshfs_loopback.sh up "$dir" "$mnt"
    trap 'bench/sshfs_loopback.sh down "$mnt"' EXIT
    find "$mnt/tree-$kind" "$mnt/loader-$kind" -type f -exec cat {} + \
        >/dev/null
    /usr/bin/python3 bench/loader.py "$mnt/tree-$kind" "$mnt/loader-$kind" \
        --runs "$runs" --json "$out/loader-sshfs.json"
    exit 0
fi
if [ "${1:-}" = cold ]; then
    /usr/bin/python3 bench/loader.py "$tree" "$out" --runs "$runs" \
        --cold --json "$out/loader-cold.json"
    exit 0
fi
# warm: every file read once
find "$tree" "$out" -type f -exec cat {} + >/dev/null
/usr/bin/python3 bench/loader.py "$tree" "$out" --runs "$runs" \
    --json "$out/loader.json"
/usr/bin/python3 bench/loader.py --chart "$out/loader.json" \
    "bench/results/loader-$kind.svg"
for v in pass r256 px256; do
    "$bale" bench "$out/$v" --against "$tree" --loader -t 1,2 -k 2560 \
        -r "$runs"
done
for v in pass r256 px256; do
    echo "decode limit, $v: $(build/tests/bale-crop-raw --bench \
        "$out/$v/data.lmdb" 2000 224) samples/s (one thread)"
done
# where a pass-through crop's time goes, against libjpeg-turbo's own
# full decode of the same 2000 files (bench/crop_stages.c)
cc -O2 -o "$dir/crop_stages" bench/crop_stages.c -ljpeg -lm
# shellcheck disable=SC2046
echo "stages, microseconds a sample, one thread: $("$dir/crop_stages" 224 \
    2000 $(find "$tree" -name '*.JPEG' | sort | head -2000))"
