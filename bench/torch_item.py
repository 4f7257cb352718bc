"""Per-item cost without a DataLoader: ds[i] over a random order, in one
process pinned to CPU 0, for bale's ImageDataset and the hand-written
Dataset on the same pass-through output. Items/s, median of 7
alternating runs after one warm-up each (the page cache and, for
py-lmdb, the mapped pages are warm).

    PYTHONPATH=build/python /usr/bin/python3 bench/torch_item.py [--full] [OUT]

raw (default): the bytes, 4000 items. --full: PIL decode and the full
transforms of bench/torch_loader.py, 600 items, with torch's generator
seeded before every run so both Datasets draw the same crops and flips
(RandomResizedCrop's crop size sets the resize cost, so unseeded runs
differ by more than the read does).
OUT: the outputs of bench/torch_loader.sh (build/bench/torch-out).
"""
import os
import random
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_datasets as D  # noqa: E402
from bale.torch import ImageDataset  # noqa: E402

PAIRS = {"hdf5": ("data.h5", D.HandH5), "lmdb": ("data.lmdb", D.HandLMDB)}


def rate(ds, order):
    torch.manual_seed(0)
    t0 = time.perf_counter()
    for i in order:
        ds[i]
    return len(order) / (time.perf_counter() - t0)


def main():
    args = sys.argv[1:]
    full = "--full" in args
    args = [a for a in args if a != "--full"]
    out = args[0] if args else "build/bench/torch-out"
    transform = D.full_transform(False) if full else None
    count = 600 if full else 4000
    os.sched_setaffinity(0, {0})
    for fmt, (name, Hand) in PAIRS.items():
        path = f"{out}/pass/{name}"
        sets = {"hand": Hand(path, transform),
                "bale": ImageDataset(path, transform,
                                     decode="pil" if full else "raw")}
        order = list(range(len(sets["bale"])))
        random.Random(1).shuffle(order)
        order = order[:count]
        rates = {k: [] for k in sets}
        for k, ds in sets.items():
            rate(ds, order)
        for _ in range(7):
            for k, ds in sets.items():
                rates[k].append(rate(ds, order))
        med = {k: statistics.median(v) for k, v in rates.items()}
        ratio = statistics.median(b / h for b, h in zip(rates["bale"],
                                                         rates["hand"]))
        spread = {k: f"{min(v):,.0f}-{max(v):,.0f}" for k, v in rates.items()}
        print(f"{fmt} {'full' if full else 'raw'}: bale {med['bale']:,.1f}/s"
              f" ({spread['bale']}), hand {med['hand']:,.1f}/s"
              f" ({spread['hand']}), bale/hand per run: median {ratio:.3f}")


if __name__ == "__main__":
    main()
