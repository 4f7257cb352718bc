"""Training input through PyTorch, samples/s, on the 110k tree: the
transforms every ImageNet recipe uses (RandomResizedCrop(224), random
horizontal flip, uint8 tensors), batch 256, warm, for

  imagefolder   torchvision ImageFolder on the raw tree, in a DataLoader
                (2 workers, shuffle, PIL decode + the transforms)
  dataset       bale.torch.ImageDataset on the output, the same DataLoader
  loader        bale.Loader on the output, 2 threads (crop decode in C)

and each output: pass-through (the tree's JPEGs), --resize shorter:256,
--pixels 256x256. Runs rotate; each times BATCHES batches after one
untimed batch; medians of RUNS.

    loader.py TREE OUTDIR [--runs R] [--batches N] [--json FILE] [--cold]
              (--cold: the page cache dropped before each cell; root)
    loader.py --chart JSON SVG        the medians of a run as a bar chart
"""
import argparse
import json
import statistics
import subprocess
import sys
import time

import torch
from torch.utils.data import DataLoader
from torchvision import datasets, transforms as T

import bale
from bale.torch import ImageDataset

VARIANTS = ("pass", "r256", "px256")


def tv_transform(arrays):
    tf = [T.RandomResizedCrop(224), T.RandomHorizontalFlip(),
          T.PILToTensor()]
    if arrays:      # a --pixels array: as a tensor first, then the same
        return T.Compose([lambda a: torch.from_numpy(a).permute(2, 0, 1),
                          T.RandomResizedCrop(224, antialias=True),
                          T.RandomHorizontalFlip()])
    return T.Compose(tf)


def rate(batches, n, batch):
    """Samples/s over n batches of @batches after one untimed."""
    it = iter(batches)
    next(it)
    t0 = time.perf_counter()
    for _ in range(n):
        next(it)
    return n * batch / (time.perf_counter() - t0)


def drop_caches():
    """Every cached page, dentry and inode gone (root only)."""
    subprocess.run(["sync"], check=True)
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def run(kind, tree, out, variant, args):
    if args.cold:
        drop_caches()
    if kind == "imagefolder":
        ds = datasets.ImageFolder(tree, tv_transform(False))
    elif kind == "dataset":
        ds = ImageDataset(f"{out}/{variant}", tv_transform(variant == "px256"))
    else:
        with bale.Loader(f"{out}/{variant}", batch_size=256, size=224,
                         threads=2, seed=int(time.time())) as loader:
            return rate(loader, args.batches, 256)
    dl = DataLoader(ds, batch_size=256, shuffle=True, num_workers=2,
                    persistent_workers=False)
    return rate(dl, args.batches, 256)


def chart(medians, path):
    """A bar chart of the medians: per output, the three rows."""
    names = [("pass-through JPEG", "pass"), ("--resize shorter:256", "r256"),
             ("--pixels 256x256", "px256")]
    kinds = ["ImageFolder (DataLoader, 2 workers)",
             "bale.torch.ImageDataset (same DataLoader)",
             "bale.Loader (2 C threads)"]
    colors = ["#999999", "#6a9fd4", "#d4762c"]
    top = max(max(v) for v in medians.values())
    svg = ['<svg xmlns="http://www.w3.org/2000/svg" width="720" '
           'height="320" font-family="sans-serif" font-size="12">',
           '<text x="10" y="18" font-size="14">Training input, samples/s '
           '(RandomResizedCrop(224) + flip, batch 256, warm, 2 CPUs)</text>']
    for g, (label, key) in enumerate(names):
        x0 = 60 + g * 230
        for k, v in enumerate(medians[key]):
            h = v / top * 220
            x = x0 + k * 60
            svg.append(f'<rect x="{x}" y="{270 - h:.1f}" width="50" '
                       f'height="{h:.1f}" fill="{colors[k]}"/>')
            svg.append(f'<text x="{x + 25}" y="{265 - h:.1f}" '
                       f'text-anchor="middle">{v:.0f}</text>')
        svg.append(f'<text x="{x0 + 85}" y="290" text-anchor="middle">'
                   f'{label}</text>')
    for k, kind in enumerate(kinds):
        svg.append(f'<rect x="{60 + k * 220}" y="302" width="10" '
                   f'height="10" fill="{colors[k]}"/>')
        svg.append(f'<text x="{75 + k * 220}" y="311" font-size="10">'
                   f'{kind}</text>')
    svg.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(svg) + "\n")


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--chart":
        with open(sys.argv[2]) as f:
            chart(json.load(f)["medians"], sys.argv[3])
        return
    p = argparse.ArgumentParser()
    p.add_argument("tree")
    p.add_argument("out")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--batches", type=int, default=8)
    p.add_argument("--json")
    p.add_argument("--cold", action="store_true")
    args = p.parse_args()
    cells = [(v, k) for v in VARIANTS for k in ("imagefolder", "dataset",
                                                "loader")]
    got = {c: [] for c in cells}
    for r in range(args.runs):
        for i in range(len(cells)):
            v, k = cells[(i + r) % len(cells)]
            got[(v, k)].append(run(k, args.tree, args.out, v, args))
            print(f"run {r} {v:6s} {k:12s} {got[(v, k)][-1]:8.0f} "
                  "samples/s", flush=True)
    print("\n| output | ImageFolder | bale.torch.ImageDataset | "
          "bale.Loader (2 threads) |")
    print("|---|---|---|---|")
    table = {}
    for v in VARIANTS:
        base = statistics.median(got[(v, "imagefolder")])
        row = [statistics.median(got[(v, k)]) for k in
               ("imagefolder", "dataset", "loader")]
        table[v] = row
        print(f"| {v} | " + " | ".join(
            f"{x:.0f} ({x / base:.2f}x)" for x in row) + " |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"runs": {f"{v}/{k}": x for (v, k), x in got.items()},
                       "medians": table}, f, indent=1)


if __name__ == "__main__":
    main()
