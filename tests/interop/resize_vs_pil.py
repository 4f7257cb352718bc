"""bale's Lanczos-3 resampler against PIL's LANCZOS on real photos-like
images, down and up: PSNR must be at least 50 dB (it is bit-exact today:
same filter, same fixed-point precision, rows then columns).

Usage: resize_vs_pil.py BALE_RESIZE_RAW DIR_OF_JPEGS
"""
import glob
import math
import subprocess
import sys

import numpy as np
from PIL import Image

tool, folder = sys.argv[1], sys.argv[2]
files = sorted(glob.glob(folder + "/**/*.jp*g", recursive=True))
assert files, "no JPEG in " + folder
worst = math.inf
for f in files[:8]:
    im = Image.open(f).convert("RGB")
    w, h = im.size
    s = min(w, h)
    for dw, dh in [(max(1, w * 64 // s), max(1, h * 64 // s)),
                   (w * 3 // 2 + 1, h * 2), (max(1, w // 7), h)]:
        ref = np.asarray(im.resize((dw, dh), Image.LANCZOS), np.float64)
        out = subprocess.run([tool, str(w), str(h), str(dw), str(dh)],
                             input=im.tobytes(), capture_output=True,
                             check=True).stdout
        got = np.frombuffer(out, np.uint8).reshape(dh, dw, 3)
        mse = ((ref - got) ** 2).mean()
        psnr = 10 * math.log10(255 ** 2 / mse) if mse else math.inf
        assert psnr >= 50, f"{f} {w}x{h} -> {dw}x{dh}: PSNR {psnr:.1f} dB"
        worst = min(worst, psnr)
print(f"resize_vs_pil: {len(files[:8]) * 3} resizes, worst PSNR {worst} dB")

# bilinear over a box (the loader's crop and resize, as torchvision's
# RandomResizedCrop: PIL crop + resize(BILINEAR)), integral and fractional
# boxes: equal to PIL's within 1 per channel
worst_diff = 0
for f in files[:8]:
    im = Image.open(f).convert("RGB")
    w, h = im.size
    for box, (dw, dh) in [((0, 0, w, h), (24, 24)),
                          ((w // 5, h // 7, w - w // 9, h - 1), (31, 17)),
                          ((w / 3.5, h / 5.25, w / 1.5, h / 1.25), (40, 40)),
                          ((1, 1, min(w, 9), min(h, 7)), (30, 20))]:
        ref = np.asarray(im.resize((dw, dh), Image.BILINEAR, box=box),
                         np.int16)
        out = subprocess.run([tool, str(w), str(h), str(dw), str(dh),
                              "bilinear", *map(str, box)],
                             input=im.tobytes(), capture_output=True,
                             check=True).stdout
        got = np.frombuffer(out, np.uint8).reshape(dh, dw, 3)
        diff = int(np.abs(ref - got).max())
        assert diff <= 1, f"{f} {box} -> {dw}x{dh}: off by {diff}"
        worst_diff = max(worst_diff, diff)
print(f"resize_vs_pil: bilinear boxes, worst difference {worst_diff}")
