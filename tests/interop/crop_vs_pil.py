"""The loader's crop decode against PIL, on random boxes of JPEGs (RGB,
grey, CMYK, progressive, odd sizes) and PNGs:
- unscaled, a given box, flipped or not: within 1 per channel of
  PIL's crop + resize(BILINEAR) (+ transpose for the flip);
- at libjpeg's DCT scale (what the loader does when the box is at least
  twice the output), on the photo-like images of the first folder: PSNR
  at least 28 dB against the same (a different low-pass than PIL's
  antialiased bilinear; sharp synthetic test patterns fall lower, and
  are not held to it).

Usage: crop_vs_pil.py BALE_CROP_RAW FOLDER...
"""
import glob
import math
import random
import subprocess
import sys

import numpy as np
from PIL import Image

tool = sys.argv[1]
files = sorted(f for d in sys.argv[2:] for f in
               glob.glob(d + "/**/*", recursive=True)
               if f.lower().endswith((".jpg", ".jpeg", ".png")))
rng = random.Random(5)
worst_diff, checked, psnrs = 0, 0, []
photos = sys.argv[2]


def crop(path, box, size, flip, scaling):
    out = subprocess.run([tool, path, *map(str, box), str(size[0]),
                          str(size[1]), str(int(flip)), str(int(scaling))],
                         capture_output=True)
    if out.returncode != 0:
        return None
    return np.frombuffer(out.stdout, np.uint8).reshape(size[1], size[0], 3)


for path in files:
    try:
        with Image.open(path) as im:
            if im.mode.startswith("I"):
                continue    # 16-bit grey: PIL clips it to RGB, bale scales
            im = im.convert("RGB")
    except Exception:
        continue         # not an image PIL reads (the tricky tree's odd ones)
    w, h = im.size
    for _ in range(3):
        bw, bh = rng.randint(1, w), rng.randint(1, h)
        x, y = rng.randint(0, w - bw), rng.randint(0, h - bh)
        box = (x, y, x + bw, y + bh)
        size = (rng.choice([1, 7, 32, 64]), rng.choice([1, 9, 32, 64]))
        flip = rng.random() < 0.5
        ref = im.crop(box).resize(size, Image.BILINEAR)
        if flip:
            ref = ref.transpose(Image.FLIP_LEFT_RIGHT)
        ref = np.asarray(ref, np.int16)
        got = crop(path, box, size, flip, False)
        assert got is not None, f"{path} {box}: the crop decode failed"
        diff = int(np.abs(ref - got).max())
        assert diff <= 1, f"{path} {box} -> {size}: off by {diff}"
        worst_diff = max(worst_diff, diff)
        checked += 1
    if not path.startswith(photos) or min(w, h) < 128:
        continue
    # a box at least twice the output: decoded at a DCT scale
    box = (w // 10, h // 12, w - w // 9, h - h // 11)
    size = (min(box[2] - box[0], box[3] - box[1]) // 2 // 8 * 8 or 8,) * 2
    ref = np.asarray(im.crop(box).resize(size, Image.BILINEAR), np.float64)
    got = crop(path, box, size, False, True)
    assert got is not None, f"{path} {box}: the scaled crop decode failed"
    mse = ((ref - got) ** 2).mean()
    psnr = 10 * math.log10(255 ** 2 / mse) if mse else math.inf
    assert psnr >= 28, f"{path} {box} -> {size} scaled: PSNR {psnr:.1f} dB"
    psnrs.append(psnr)
assert checked >= 50 and len(psnrs) >= 10, (checked, len(psnrs))
print(f"crop_vs_pil: {checked} crops within {worst_diff}; "
      f"{len(psnrs)} scaled decodes: PSNR worst {min(psnrs):.1f} dB, "
      f"median {sorted(psnrs)[len(psnrs) // 2]:.1f} dB")
