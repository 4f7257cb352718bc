#!/usr/bin/python3
"""bale's sample order and labels equal torchvision's ImageFolder.

Usage: torchvision_labels.py SRC OUTDIR (OUTDIR packed by bale -f wds).
Exits 77 (skip) when torchvision is not installed.
"""
import json
import os
import sys
import tarfile

try:
    from torchvision.datasets import ImageFolder
except ImportError:
    print("torchvision not installed: skipping", file=sys.stderr)
    sys.exit(77)


def bale_samples(out):
    with open(os.path.join(out, "data-shards.json")) as f:
        listing = json.load(f)
    samples = []
    for shard in listing["shardlist"]:
        with tarfile.open(os.path.join(out, shard["url"])) as tar:
            for m in tar:
                if m.name.endswith(".json"):
                    meta = json.load(tar.extractfile(m))
                    samples.append((meta["path"], meta["label"]))
    return samples, listing["bale"]["classes"]


def main():
    src, out = sys.argv[1], sys.argv[2]
    ds = ImageFolder(src)
    want = [(os.path.relpath(p, src), y) for p, y in ds.samples]
    got, classes = bale_samples(out)
    if classes != ds.classes:
        sys.exit(f"classes differ:\n bale {classes}\n torchvision {ds.classes}")
    if got != want:
        for i, (g, w) in enumerate(zip(got, want)):
            if g != w:
                sys.exit(f"sample {i}: bale {g} torchvision {w}")
        sys.exit(f"bale has {len(got)} samples, torchvision {len(want)}")
    print(f"{len(got)} samples, {len(classes)} classes: same as torchvision")


if __name__ == "__main__":
    main()
