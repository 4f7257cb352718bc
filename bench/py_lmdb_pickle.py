#!/usr/bin/python3
"""The usual Python LMDB packer, as found in many training repos: walk the
ImageFolder tree, pickle {'image': bytes, 'label': int} per sample, one
process, map_size=1e12, commit every 1000 samples.

Usage: py_lmdb_pickle.py SRC OUT.lmdb
"""
import os
import pickle
import sys

import lmdb

EXTS = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff",
        ".webp")


def main():
    src, out = sys.argv[1], sys.argv[2]
    classes = sorted(e.name for e in os.scandir(src) if e.is_dir())
    env = lmdb.open(out, map_size=int(1e12))
    txn = env.begin(write=True)
    n = 0
    for label, c in enumerate(classes):
        for d, _, files in sorted(os.walk(os.path.join(src, c))):
            for f in sorted(files):
                if not f.lower().endswith(EXTS):
                    continue
                with open(os.path.join(d, f), "rb") as fh:
                    value = pickle.dumps({"image": fh.read(), "label": label})
                txn.put(("%08d" % n).encode(), value)
                n += 1
                if n % 1000 == 0:
                    txn.commit()
                    txn = env.begin(write=True)
    txn.put(b"__len__", str(n).encode())
    txn.commit()
    env.sync()
    env.close()


if __name__ == "__main__":
    main()
