"""An LMDB output of bale-conformance, read back with python3-lmdb.
The contract of LAYOUTS is in tests/backend/read_back.py."""
import json
import os


def read_lmdb_default(d, classes):
    import lmdb
    env = lmdb.open(os.path.join(d, "data.lmdb"), readonly=True, lock=False)
    txn = env.begin()
    keys = txn.get(b"__keys__").split()
    if int(txn.get(b"__count__")) != len(keys) or \
            json.loads(txn.get(b"__classes__")) != classes:
        raise ValueError("lmdb metadata differs")

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
            raise ValueError(f"unexpected wire type {wire}")
    return fields


def read_lmdb_caffe(d, classes):
    import lmdb
    env = lmdb.open(os.path.join(d, "data.lmdb"), readonly=True, lock=False)
    txn = env.begin()
    items = list(txn.cursor())

    def get(i):
        key, value = items[i]
        f = datum(value)
        if f.get(7) != 1:
            raise ValueError(f"{key}: encoded flag not set")
        idx, path = key.decode().split("_", 1)
        return ("%010d" % int(idx), f[4], f[5],
                {"path": path} if path else None)
    return len(items), get


LAYOUTS = {"default": (read_lmdb_default, True),
           "caffe": (read_lmdb_caffe, False)}
