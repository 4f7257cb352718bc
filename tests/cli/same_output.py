#!/usr/bin/python3
"""same_output.py REF OUT [--present]: OUT holds what REF holds.

WebDataset files must be byte-identical; LMDB must hold the same records;
HDF5 the same datasets and attributes (their files may differ in layout
bytes: a resumed run allocates them in another order). With --present,
only the outputs OUT has published are compared (a killed run may have
published some formats and not others), and none may be missing a part.
"""
import os
import sys

import h5py
import lmdb
import numpy as np


def fail(msg):
    sys.exit("same_output: " + msg)


def same_wds(ref, out):
    names = sorted(n for n in os.listdir(ref)
                   if n.endswith((".tar", ".idx", "-shards.json")))
    for n in names:
        p = os.path.join(out, n)
        if not os.path.exists(p):
            fail("%s is missing" % n)
        if open(os.path.join(ref, n), "rb").read() != open(p, "rb").read():
            fail("%s differs" % n)


def same_lmdb(ref, out):
    def items(path):
        env = lmdb.open(path, readonly=True, lock=False)
        with env.begin() as txn:
            return list(txn.cursor())
    a, b = items(ref), items(out)
    if a != b:
        fail("LMDB records differ (%d vs %d)" % (len(a), len(b)))


def same_array(x, y):
    if x.dtype == object:
        return len(x) == len(y) and all(
            np.array_equal(np.asarray(p), np.asarray(q)) for p, q in zip(x, y))
    return x.shape == y.shape and np.array_equal(x, y)


def same_hdf5(ref, out):
    fa, fb = h5py.File(ref, "r"), h5py.File(out, "r")
    if sorted(fa.keys()) != sorted(fb.keys()):
        fail("HDF5 datasets differ: %s vs %s" % (list(fa), list(fb)))
    for k in fa:
        if not same_array(fa[k][()], fb[k][()]):
            fail("HDF5 dataset %s differs" % k)
    if sorted(fa.attrs) != sorted(fb.attrs):
        fail("HDF5 attributes differ")
    for k in fa.attrs:
        if not np.array_equal(fa.attrs[k], fb.attrs[k]):
            fail("HDF5 attribute %s differs" % k)


def main():
    ref, out = sys.argv[1], sys.argv[2]
    present = "--present" in sys.argv[3:]
    checks = [("data-shards.json", lambda: same_wds(ref, out)),
              ("data.lmdb", lambda: same_lmdb(os.path.join(ref, "data.lmdb"),
                                              os.path.join(out, "data.lmdb"))),
              ("data.h5", lambda: same_hdf5(os.path.join(ref, "data.h5"),
                                            os.path.join(out, "data.h5")))]
    for name, check in checks:
        if not os.path.exists(os.path.join(ref, name)):
            continue
        if not os.path.exists(os.path.join(out, name)):
            if present:
                continue
            fail("%s is missing" % name)
        check()


main()
