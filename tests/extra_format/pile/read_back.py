"""A pile output of bale-conformance, read back with plain file reads.
The contract of LAYOUTS is in tests/backend/read_back.py."""
import json
import os
import struct

MAGIC = b"BALEPILE1\n"


def read_pile(d, classes):
    data = open(os.path.join(d, "data.pile"), "rb").read()
    if not data.startswith(MAGIC) or not data.endswith(MAGIC):
        raise ValueError("not a whole pile")
    (n,) = struct.unpack_from("<I", data, len(MAGIC))
    head = json.loads(data[len(MAGIC) + 4:len(MAGIC) + 4 + n])
    if head["classes"] != classes:
        raise ValueError("classes differ")
    count, index_at = struct.unpack_from("<QQ", data, len(data) - 26)
    offsets = struct.unpack_from(f"<{count}Q", data, index_at)

    def get(i):
        at = offsets[i]
        (klen,) = struct.unpack_from("<I", data, at)
        key = data[at + 4:at + 4 + klen].decode()
        at += 4 + klen
        label, plen = struct.unpack_from("<qI", data, at)
        path = data[at + 12:at + 12 + plen].decode()
        at += 12 + plen
        crc, size = struct.unpack_from("<IQ", data, at)
        body = data[at + 12:at + 12 + size]
        return key, body, label, {"path": path, "crc32": "%08x" % crc}
    return count, get


LAYOUTS = {"default": (read_pile, False)}
