#!/bin/bash
# What packing buys a PyTorch user, measured at the DataLoader: the 1 GB
# tree of bench/wds_vs_tar.sh (10 000 JPEGs, 110 KB mean) read by
# torchvision's ImageFolder, by bale's Datasets on wds/lmdb/hdf5 outputs
# (pass-through, --resize shorter:256, --pixels 224x224) and by the
# Dataset classes users write by hand; raw reads and full transforms;
# 1 and 2 workers; warm and cold cache; on the local disk and over sshfs
# (loopback). Then the bare reader: a Python loop of r[i] against C
# bale bench.
#
#   bench/torch_loader.sh [-r RUNS] [local] [sshfs] [sshfs-cache] [bare]
#
# Needs root for cold runs (drop_caches), python3-torch/torchvision,
# openssh-server and sshfs. Results: build/bench/torch-results.jsonl
# (appended), summarised by `bench/torch_loader.py report FILE`.
set -eu
cd "$(dirname "$0")/.."
runs=3
if [ "${1:-}" = "-r" ]; then runs=$2; shift 2; fi
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(local sshfs sshfs-cache bare)
dir=${BENCH_DIR:-build/bench}
tree=$PWD/$dir/tree-110k
out=$PWD/$dir/torch-out
results=$PWD/$dir/torch-results.jsonl
PY=/usr/bin/python3
export PYTHONPATH=$PWD/build/python
[ -f "$tree/.complete" ] || { echo "run bench/wds_vs_tar.sh 110k first" >&2; exit 2; }
$PY bench/torch_loader.py prepare "$tree" "$out" --bale build/bale
loader() { # STORAGE TREE OUT
    (cd bench && $PY torch_loader.py loader "$2" "$3" --storage "$1" \
        --runs "$runs" --json "$results")
}
for part in "${parts[@]}"; do
    case $part in
    local) loader local "$tree" "$out" ;;
    sshfs|sshfs-cache)
        # sshfs: its defaults (a file's cached pages dropped at each
        # open); sshfs-cache: -o auto_cache (kept while the file is
        # unchanged: what a read-only dataset mount wants)
        mnt=$dir/sshfs
        [ "$part" = sshfs ] || export SSHFS_OPTIONS=auto_cache
        bench/sshfs_loopback.sh up "$dir" "$mnt"
        trap 'bench/sshfs_loopback.sh down "$mnt"' EXIT
        loader "$part" "$PWD/$mnt/tree-110k" "$PWD/$mnt/torch-out"
        bench/sshfs_loopback.sh down "$mnt"
        trap - EXIT
        unset SSHFS_OPTIONS
        ;;
    bare)
        bale=$PWD/build/bale
        (cd bench && $PY torch_loader.py bare "$tree" "$out" \
            --bale "$bale" --runs 7 --samples 4000 --json "$results")
        ;;
    esac
done
$PY bench/torch_loader.py report "$results"
