#!/usr/bin/python3
"""The usual h5py packer: a vlen uint8 'images' dataset and 'labels',
one sample written at a time, one process.

Usage: py_h5py_vlen.py SRC OUT.h5
"""
import os
import sys

import h5py
import numpy as np

EXTS = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff",
        ".webp")


def main():
    src, out = sys.argv[1], sys.argv[2]
    classes = sorted(e.name for e in os.scandir(src) if e.is_dir())
    samples = []
    for label, c in enumerate(classes):
        for d, _, files in sorted(os.walk(os.path.join(src, c))):
            samples += [(os.path.join(d, f), label) for f in sorted(files)
                        if f.lower().endswith(EXTS)]
    with h5py.File(out, "w") as h5:
        images = h5.create_dataset("images", (len(samples),),
                                   dtype=h5py.vlen_dtype(np.uint8))
        labels = h5.create_dataset("labels", (len(samples),), dtype="i8")
        for i, (path, label) in enumerate(samples):
            with open(path, "rb") as fh:
                images[i] = np.frombuffer(fh.read(), dtype=np.uint8)
            labels[i] = label


if __name__ == "__main__":
    main()
