"""Per-item cost without a DataLoader: ds[i] over a random order, in one
process pinned to CPU 0, for bale's ImageDataset (decode="raw") and the
hand-written Dataset on the same pass-through output. Items/s, median of
7 alternating runs after one warm-up each (the page cache and, for
py-lmdb, the mapped pages are warm).

    PYTHONPATH=build/python /usr/bin/python3 bench/torch_item.py [OUT]

OUT: the outputs of bench/torch_loader.sh (build/bench/torch-out).
"""
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_datasets as D  # noqa: E402
from bale.torch import ImageDataset  # noqa: E402

PAIRS = {"hdf5": ("data.h5", D.HandH5), "lmdb": ("data.lmdb", D.HandLMDB)}


def rate(ds, order):
    t0 = time.perf_counter()
    for i in order:
        ds[i]
    return len(order) / (time.perf_counter() - t0)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "build/bench/torch-out"
    os.sched_setaffinity(0, {0})
    for fmt, (name, Hand) in PAIRS.items():
        path = f"{out}/pass/{name}"
        sets = {"hand": Hand(path), "bale": ImageDataset(path, decode="raw")}
        order = list(range(len(sets["bale"])))
        random.Random(1).shuffle(order)
        order = order[:4000]
        rates = {k: [] for k in sets}
        for k, ds in sets.items():
            rate(ds, order)
        for _ in range(7):
            for k, ds in sets.items():
                rates[k].append(rate(ds, order))
        med = {k: statistics.median(v) for k, v in rates.items()}
        print(f"{fmt}: bale {med['bale']:,.0f}/s, hand {med['hand']:,.0f}/s"
              f" ({med['bale'] / med['hand']:.2f}x)")


if __name__ == "__main__":
    main()
