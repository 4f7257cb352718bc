#!/usr/bin/python3
"""Read back what bale-conformance wrote, with each format's own Python
library, in a seeded random order, and compare every byte and label.

Usage: read_back.py BACKEND DIR [layout]
Keep the sample generator in step with conformance.c.
"""
import json
import os
import random
import sys
import zlib

SAMPLES = 40
CLASSES = ["c0", "c1", "c2 with space", "\u00e9t\u00e9", "c4"]
SIZES = [0, 1, 511, 512, 513, 4096, 65536, (5 << 20) + 3]


def fail(msg):
    sys.exit("read_back: " + msg)


def expected(allow_empty):
    import numpy as np
    out = []
    for i in range(SAMPLES):
        size = SIZES[i] if i < len(SIZES) else 100 + i * 997 % 30000
        if size == 0 and not allow_empty:
            continue
        data = ((np.arange(size, dtype=np.uint64) * 7 + i * 31) & 0xff)
        out.append({"key": "%010d" % (2 * i + 1), "label": i % 5,
                    "path": "c%d/s%03d.bin" % (i % 5, i),
                    "data": data.astype(np.uint8).tobytes()})
    return out


def check_meta(want, meta):
    if meta != {"path": want["path"], "size": len(want["data"]),
                "crc32": "%08x" % zlib.crc32(want["data"]),
                "label": want["label"], "class": CLASSES[want["label"]]}:
        fail(f"{want['key']}: metadata {meta}")


def read_wds(d, samples):
    listing = json.load(open(os.path.join(d, "data-shards.json")))
    if listing["bale"]["classes"] != CLASSES:
        fail("classes differ")
    index = []
    for shard in listing["shardlist"]:
        tar = os.path.join(d, shard["url"])
        lines = open(tar[:-4] + ".idx").read().splitlines()[1:]
        for line in lines:
            f = line.split()
            index.append((tar, {f[k]: (int(f[k + 1]), int(f[k + 2]))
                                for k in range(0, len(f), 4)}, f[3]))

    def get(i):
        tar, members, name = index[i]
        with open(tar, "rb") as fh:
            def member(ext):
                fh.seek(members[ext][0])
                return fh.read(members[ext][1])
            return (name.split(".")[0], member("bin"), int(member("cls")),
                    json.loads(member("json")))
    return len(index), get


def read_lmdb_default(d, samples):
    import lmdb
    env = lmdb.open(os.path.join(d, "data.lmdb"), readonly=True, lock=False)
    txn = env.begin()
    keys = txn.get(b"__keys__").split()
    if int(txn.get(b"__count__")) != len(keys) or \
            json.loads(txn.get(b"__classes__")) != CLASSES:
        fail("lmdb metadata differs")

    def get(i):
        k = keys[i]
        return (k.decode(), txn.get(k + b".image"),
                int(txn.get(k + b".cls")), json.loads(txn.get(k + b".json")))
    return len(keys), get


def varint(b, i):
    v = shift = 0
    while True:
        v |= (b[i] & 0x7f) << shift
        shift += 7
        i += 1
        if b[i - 1] < 0x80:
            return v, i


def datum(b):
    """Hand-decode the Caffe Datum fields bale writes (4, 5, 7)."""
    fields, i = {}, 0
    while i < len(b):
        tag, i = varint(b, i)
        num, wire = tag >> 3, tag & 7
        if wire == 2:
            n, i = varint(b, i)
            fields[num] = b[i:i + n]
            i += n
        elif wire == 0:
            fields[num], i = varint(b, i)
        else:
            fail(f"unexpected wire type {wire}")
    return fields


def read_lmdb_caffe(d, samples):
    import lmdb
    env = lmdb.open(os.path.join(d, "data.lmdb"), readonly=True, lock=False)
    txn = env.begin()
    items = list(txn.cursor())

    def get(i):
        key, value = items[i]
        f = datum(value)
        if f.get(7) != 1:
            fail(f"{key}: encoded flag not set")
        idx, path = key.decode().split("_", 1)
        return ("%010d" % int(idx), f[4], f[5],
                {"path": path} if path else None)
    return len(items), get


def read_hdf5(d, samples):
    import h5py
    f = h5py.File(os.path.join(d, "data.h5"), "r")
    if [c.decode() if isinstance(c, bytes) else c
            for c in f.attrs["class_names"]] != CLASSES:
        fail("class names differ")
    vlen = f.attrs["layout"] == "vlen"
    if vlen:
        if f["images"].dtype.metadata is None:
            fail("vlen layout has no vlen images")
    else:
        off = f["offsets"][:]

    def get(i):
        img = f["images"][i].tobytes() if vlen else \
            f["images"][off[i]:off[i + 1]].tobytes()
        if f["crc32"][i] != zlib.crc32(img):
            fail(f"sample {i}: crc32 dataset differs")
        return (f["keys"][i].decode(), img, int(f["labels"][i]),
                {"path": f["paths"][i].decode()})
    return int(f.attrs["count"]), get


def main():
    backend, d = sys.argv[1], sys.argv[2]
    layout = sys.argv[3] if len(sys.argv) > 3 else "default"
    readers = {("wds", "default"): read_wds,
               ("lmdb", "default"): read_lmdb_default,
               ("lmdb", "caffe"): read_lmdb_caffe,
               ("hdf5", "default"): read_hdf5, ("hdf5", "vlen"): read_hdf5}
    samples = expected(allow_empty=True)
    count, get = readers[(backend, layout)](d, samples)
    if count != len(samples):
        fail(f"{count} samples stored, {len(samples)} written")
    order = list(range(count))
    random.Random(5).shuffle(order)
    for i in order:
        want = samples[i]
        key, data, label, meta = get(i)
        if key != want["key"] or data != want["data"] or \
                label != want["label"]:
            fail(f"sample {i} ({want['key']}): got key {key}, "
                 f"{len(data)} bytes, label {label}")
        if backend == "wds" or (backend, layout) == ("lmdb", "default"):
            check_meta(want, meta)
        elif meta["path"] != want["path"]:
            fail(f"sample {i}: path {meta['path']}")
    print(f"read_back: {backend}/{layout}: {count} samples, random order, "
          "bytes and labels equal")


if __name__ == "__main__":
    main()
