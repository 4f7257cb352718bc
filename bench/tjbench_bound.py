#!/usr/bin/python3
"""What libjpeg-turbo alone allows for --resize shorter:N --quality Q:
for a random sample of the tree's JPEGs, tjbench times the decode at the
DCT scale bale picks (1/2, 1/4, 1/8 when the image stays at least N
on its shorter side, as PIL's draft does) and the 4:2:0 encode, with the
accurate DCT as bale and PIL use, of an image of the output size. The
bound, per core, is the sample count over the summed times; resampling,
file I/O and packing are free in it.

Usage: tjbench_bound.py SRC N Q [SAMPLES]
Prints: bound_per_core IMAGES_PER_S
"""
import os
import random
import subprocess
import sys
import tempfile

from PIL import Image


def tjbench(*args):
    r = subprocess.run(["tjbench", *args, "-rgb", "-quiet", "-nowrite", "-benchtime",
                        "0.3", "-warmup", "0.1"], capture_output=True,
                       text=True, check=True)
    rows = [ln.split() for ln in r.stdout.splitlines() if ln.strip()]
    return rows[-1]


def scale(w, h, n):
    for d in (8, 4, 2):
        if n * d <= w and n * d <= h:
            return d
    return 1


def main():
    src, n, q = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    count = int(sys.argv[4]) if len(sys.argv) > 4 else 30
    files = sorted(os.path.join(d, f) for d, _, fs in os.walk(src)
                   for f in fs)
    random.seed(1)
    total = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for path in random.sample(files, count):
            img = Image.open(path)
            w, h = img.size
            d = scale(w, h, n)
            # decode: Mpixels/s of the full-size image, at scale 1/d
            perf = float(tjbench(path, "-scale", f"1/{d}")[-1])
            total += w * h / (perf * 1e6)
            s = n / min(w, h)
            ow, oh = max(1, round(w * s)), max(1, round(h * s))
            ppm = os.path.join(tmp, "out.ppm")
            img.convert("RGB").resize((ow, oh)).save(ppm)
            # compress row: format subsamp quality w h comp-perf ratio decomp
            row = tjbench(ppm, q, "-subsamp", "420", "-accuratedct")
            total += ow * oh / (float(row[-3]) * 1e6)
    print(f"bound_per_core {count / total:.1f}")


if __name__ == "__main__":
    main()
