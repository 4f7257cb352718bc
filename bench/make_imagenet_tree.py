#!/usr/bin/python3
"""The benchmarks' ImageNet-like tree: N JPEGs whose sizes follow the
shape of ImageNet-1k's training images, in C classes, seeded.

ImageNet's photos are mostly 500 px on their longer side (500x375,
500x333 and their portrait turns make most of them), with a tail of
larger and smaller ones; their median file is about 500x375 and 107 KB.
The 110k tree (make_tree.sh: uniform 200-1200 px sides, 700x700 on
average) has larger images, where a crop saves more of the decoding, so
its loader figures flatter bale. This tree draws each image's size from
the table below and its content from a photo-like texture (smooth colour
waves, edges and grain, as tests/mkdata.c makes), encoded 4:2:0 at
quality 92 with a grain set so that the median file is near ImageNet's.
The table is a model of ImageNet's shape, not a measurement of it.

    make_imagenet_tree.py DIR [-n 10000] [--classes 100] [--seed 1]
    make_imagenet_tree.py --stats DIR       sizes and bytes of a tree
"""
import argparse
import os
import statistics
import sys

import numpy
from PIL import Image

# (weight, width, height): a drawn size gets +-2% of jitter, as
# ImageNet's are not all exactly 500 x 375
SIZES = [
    (40, 500, 375), (18, 500, 333), (8, 375, 500), (5, 333, 500),
    (5, 500, 500), (4, 500, 400), (3, 400, 500), (3, 500, 281),
    (4, 640, 480), (2, 800, 600), (2, 1024, 768), (1, 1600, 1200),
    (2, 300, 225), (1, 200, 150), (2, 450, 300),
]
QUALITY = 92
GRAIN = 36          # noise amplitude: sets the bytes per pixel
TEXTURE = 2048


def texture(rng):
    """Colour waves with sharp bands (edges) and grain: photo-like in
    what JPEG makes of it."""
    y, x = numpy.mgrid[0:TEXTURE, 0:TEXTURE].astype(numpy.float32)
    planes = []
    for c in range(3):
        a, b = rng.uniform(0.004, 0.02, 2)
        wave = 110 + 70 * numpy.sin(a * x + b * y + c) * \
            numpy.cos(b * x - a * y)
        bands = 40 * (numpy.floor((x * (c + 2) + y * (4 - c)) / 97) % 2)
        planes.append(wave + bands)
    img = numpy.stack(planes, axis=2)
    img += rng.normal(0, GRAIN / 2.0, img.shape).astype(numpy.float32)
    return numpy.clip(img, 0, 255).astype(numpy.uint8)


def draw_size(rng):
    weights = numpy.array([w for w, _, _ in SIZES], dtype=float)
    _, w, h = SIZES[rng.choice(len(SIZES), p=weights / weights.sum())]
    j = rng.uniform(0.98, 1.02)
    return max(16, int(w * j)), max(16, int(h * j))


def make(root, n, classes, seed):
    rng = numpy.random.default_rng(seed)
    tex = texture(rng)
    for c in range(classes):
        os.makedirs(os.path.join(root, "n%08d" % c), exist_ok=True)
    for i in range(n):
        w, h = draw_size(rng)
        x = int(rng.integers(0, TEXTURE - w + 1)) if w < TEXTURE else 0
        y = int(rng.integers(0, TEXTURE - h + 1)) if h < TEXTURE else 0
        tile = tex[y:y + h, x:x + w]
        if tile.shape[0] < h or tile.shape[1] < w:     # larger than it
            tile = numpy.array(Image.fromarray(tile).resize((w, h)))
        path = os.path.join(root, "n%08d" % (i % classes),
                            "img_%08d.JPEG" % i)
        Image.fromarray(tile).save(path, quality=QUALITY, subsampling=2)


def stats(root):
    sizes, pixels, sides = [], [], []
    for d, _, files in os.walk(root):
        for f in files:
            if not f.endswith(".JPEG"):
                continue
            p = os.path.join(d, f)
            sizes.append(os.path.getsize(p))
            with Image.open(p) as im:
                pixels.append(im.size[0] * im.size[1])
                sides.append(max(im.size))
    print(f"{len(sizes)} images, {sum(sizes) / 1e9:.2f} GB; median file "
          f"{statistics.median(sizes) / 1e3:.0f} KB (mean "
          f"{statistics.mean(sizes) / 1e3:.0f}); median "
          f"{statistics.median(pixels) / 1e3:.0f} kpixels; longer side "
          f"500 +-2%: {sum(490 <= s <= 510 for s in sides) / len(sides):.0%}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("-n", type=int, default=10000)
    ap.add_argument("--classes", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--stats", action="store_true")
    a = ap.parse_args()
    if a.stats:
        stats(a.dir)
        return 0
    make(a.dir, a.n, a.classes, a.seed)
    stats(a.dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
