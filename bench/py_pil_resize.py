#!/usr/bin/python3
"""The usual Python resize-and-pack script: a multiprocessing pool (one
process per core) opens each image with PIL, asks libjpeg for a
downscaled decode with Image.draft(), applies the EXIF orientation,
resizes the shorter side to N with LANCZOS and re-encodes at quality Q;
the parent writes the results in order into a WebDataset-style tar.

Usage: py_pil_resize.py SRC OUT.tar N Q
"""
import io
import os
import sys
import tarfile
from multiprocessing import Pool

from PIL import Image, ImageOps

EXTS = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff",
        ".webp")
SIDE = QUALITY = 0


def walk(src):
    classes = sorted(e.name for e in os.scandir(src) if e.is_dir())
    for label, c in enumerate(classes):
        for d, _, files in sorted(os.walk(os.path.join(src, c))):
            for f in sorted(files):
                if f.lower().endswith(EXTS):
                    yield os.path.join(d, f), label


def resize(job):
    path, label = job
    img = Image.open(path)
    w, h = img.size     # the target comes from the full size, not the draft
    if img.getexif().get(0x0112, 1) >= 5:
        w, h = h, w
    img.draft("RGB", (SIDE, SIDE))
    img = ImageOps.exif_transpose(img.convert("RGB"))
    m = min(w, h)
    if m > SIDE:    # sizes rounded half up, as bale does
        img = img.resize(((w * SIDE + m // 2) // m, (h * SIDE + m // 2) // m),
                         Image.LANCZOS)
    out = io.BytesIO()
    img.save(out, "JPEG", quality=QUALITY)
    return out.getvalue(), label


def init(side, quality):
    global SIDE, QUALITY
    SIDE, QUALITY = side, quality


def add(tar, name, data):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


def main():
    src, out, side, quality = sys.argv[1], sys.argv[2], int(sys.argv[3]), \
        int(sys.argv[4])
    with Pool(os.cpu_count(), init, (side, quality)) as pool, \
            tarfile.open(out, "w") as tar:
        for i, (data, label) in enumerate(pool.imap(resize, walk(src),
                                                    chunksize=16)):
            add(tar, "%010d.jpg" % i, data)
            add(tar, "%010d.cls" % i, str(label).encode())


if __name__ == "__main__":
    main()
