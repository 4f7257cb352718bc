#!/usr/bin/python3
"""Read back what bale-conformance wrote, with each format's own Python
library, in a seeded random order, and compare every byte and label.

Usage: read_back.py BACKEND DIR [layout]
Keep the sample generator in step with conformance.c.

Each backend's reader is formats/BACKEND/read_back.py ($FORMATS). Its
LAYOUTS maps a layout to (open, full_meta): open(dir, classes) returns
(count, get); get(i) returns (key, bytes, label, meta); full_meta says
whether meta is the whole per-sample JSON. It raises ValueError on
anything that differs.
"""
import importlib.util
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


def backend_layouts(backend):
    """The LAYOUTS of formats/BACKEND/read_back.py."""
    path = os.path.join(os.environ.get("FORMATS", os.path.join(
        os.path.dirname(__file__), "..", "..", "formats")), backend,
        "read_back.py")
    spec = importlib.util.spec_from_file_location(backend + "_read_back",
                                                  path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.LAYOUTS


def main():
    backend, d = sys.argv[1], sys.argv[2]
    layout = sys.argv[3] if len(sys.argv) > 3 else "default"
    open_output, full_meta = backend_layouts(backend)[layout]
    samples = expected(allow_empty=True)
    try:
        count, get = open_output(d, CLASSES)
    except ValueError as e:
        fail(str(e))
    if count != len(samples):
        fail(f"{count} samples stored, {len(samples)} written")
    order = list(range(count))
    random.Random(5).shuffle(order)
    for i in order:
        want = samples[i]
        try:
            key, data, label, meta = get(i)
        except ValueError as e:
            fail(str(e))
        if key != want["key"] or data != want["data"] or \
                label != want["label"]:
            fail(f"sample {i} ({want['key']}): got key {key}, "
                 f"{len(data)} bytes, label {label}")
        if full_meta:
            check_meta(want, meta)
        elif meta["path"] != want["path"]:
            fail(f"sample {i}: path {meta['path']}")
    print(f"read_back: {backend}/{layout}: {count} samples, random order, "
          "bytes and labels equal")


if __name__ == "__main__":
    main()
