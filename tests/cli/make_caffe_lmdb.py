#!/usr/bin/python3
"""make_caffe_lmdb.py ROOT OUT: an LMDB of Caffe Datums, as Caffe's
convert_imageset writes one (keys "%08d_<path>", one Datum each), from
the images of the ImageFolder tree ROOT in torchvision order.

Datums are encoded by hand (protobuf's wire format: Debian has no Caffe):
most as `convert_imageset --encoded` writes them (data, label, encoded);
every fifth as scripts that forget the flag write them (data and label
only); and one more of raw pixels, as convert_imageset writes without
--encoded (channels, height, width, data of C*H*W bytes), which is not an
image file. Prints "path<TAB>label" of every encoded Datum, in order.
"""
import os
import sys

import lmdb

from imagefolder import samples


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append(v & 0x7f | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def field_varint(num, v):
    return varint(num << 3) + varint(v)


def field_bytes(num, b):
    return varint(num << 3 | 2) + varint(len(b)) + b


def main():
    root, out = sys.argv[1:3]
    env = lmdb.open(out, map_size=1 << 30)
    with env.begin(write=True) as txn:
        n = 0
        for n, (path, label) in enumerate(samples(root)):
            data = open(os.path.join(root, path), "rb").read()
            datum = field_bytes(4, data) + field_varint(5, label)
            if n % 5:
                datum += field_varint(7, 1)
            txn.put(b"%08d_%s" % (n, os.fsencode(path)), datum)
            print("%s\t%d" % (path, label))
        raw = (field_varint(1, 3) + field_varint(2, 2) + field_varint(3, 4) +
               field_bytes(4, bytes(range(24))) + field_varint(5, 1))
        txn.put(b"%08d_raw/pixels.jpg" % (n + 1), raw)
    env.close()


if __name__ == "__main__":
    main()
