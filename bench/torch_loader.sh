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
#   bench/torch_loader.sh [-r RUNS] [local] [sshfs] [bare]
#
# Needs root for cold runs (drop_caches), python3-torch/torchvision,
# openssh-server and sshfs. Results: build/bench/torch-results.jsonl
# (appended), summarised by `bench/torch_loader.py report FILE`.
set -eu
cd "$(dirname "$0")/.."
runs=3
if [ "${1:-}" = "-r" ]; then runs=$2; shift 2; fi
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(local sshfs bare)
dir=${BENCH_DIR:-build/bench}
tree=$dir/tree-110k
out=$dir/torch-out
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
    local) loader local "$PWD/$tree" "$PWD/$out" ;;
    sshfs)
        mnt=$dir/sshfs
        bench/sshfs_loopback.sh up "$dir" "$mnt"
        trap 'bench/sshfs_loopback.sh down "$mnt"' EXIT
        loader sshfs "$PWD/$mnt/tree-110k" "$PWD/$mnt/torch-out"
        bench/sshfs_loopback.sh down "$mnt"
        trap - EXIT
        ;;
    bare)
        (cd bench && $PY torch_loader.py bare "$PWD/$tree" "$PWD/$out" \
            --bale "$PWD/build/bale" --runs 5 --samples 4000 --json "$results")
        ;;
    esac
done
$PY bench/torch_loader.py report "$results"
