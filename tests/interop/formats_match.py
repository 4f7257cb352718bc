#!/usr/bin/python3
"""One pass, three formats: the same samples, keys, labels and bytes.

Usage: formats_match.py OUTDIR SRC. OUTDIR holds data-*.tar (checked
against SRC by check_wds.py first), data.lmdb and data.h5; every sample of
the tar shards must be in LMDB (python3-lmdb) and HDF5 (python3-h5py) at
the same index, with the same key, bytes, label and metadata.
"""
import json
import os
import sys
import tarfile

import h5py
import lmdb


def fail(msg):
    sys.exit("formats_match: " + msg)


def wds_samples(out):
    listing = json.load(open(os.path.join(out, "data-shards.json")))
    samples = []
    for shard in listing["shardlist"]:
        with tarfile.open(os.path.join(out, shard["url"])) as tar:
            group = {}
            for m in tar:
                key, ext = m.name.split(".", 1)
                group.setdefault(key, {})[ext] = tar.extractfile(m).read()
            for key, members in group.items():
                meta = json.loads(members.pop("json"))
                label = int(members.pop("cls"))
                (data,) = members.values()
                samples.append((key, data, label, meta))
    return samples, listing["bale"]["classes"]


def main():
    out, src = sys.argv[1], sys.argv[2]
    samples, classes = wds_samples(out)
    env = lmdb.open(os.path.join(out, "data.lmdb"), readonly=True, lock=False)
    h5 = h5py.File(os.path.join(out, "data.h5"), "r")
    off = h5["offsets"][:]
    with env.begin() as txn:
        keys = txn.get(b"__keys__").decode().split()
        if json.loads(txn.get(b"__classes__")) != classes:
            fail("lmdb classes differ")
        if keys != [k for k, *_ in samples] or \
                int(h5.attrs["count"]) != len(samples):
            fail("sample keys or counts differ between formats")
        for i, (key, data, label, meta) in enumerate(samples):
            with open(os.path.join(os.fsencode(src),
                                   os.fsencode(meta["path"])), "rb") as f:
                if f.read() != data:
                    fail(f"{key}: tar bytes differ from the source")
            k = key.encode()
            if txn.get(k + b".image") != data or \
                    int(txn.get(k + b".cls")) != label or \
                    json.loads(txn.get(k + b".json")) != meta:
                fail(f"{key}: lmdb differs")
            if h5["images"][off[i]:off[i + 1]].tobytes() != data or \
                    h5["labels"][i] != label or \
                    h5["keys"][i].decode() != key or \
                    h5["paths"][i] != os.fsencode(meta["path"]):
                fail(f"{key}: hdf5 differs")
    names = [c.decode() if isinstance(c, bytes) else c
             for c in h5.attrs["class_names"]]
    if names != classes:
        fail("hdf5 class names differ")
    print(f"formats_match: {len(samples)} samples identical in wds, lmdb, "
          "hdf5")


if __name__ == "__main__":
    main()
