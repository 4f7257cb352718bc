#!/usr/bin/python3
"""shift_parquet.py IN OUT SHIFT: the Parquet file IN rewritten as OUT with
SHIFT bytes of hole (sparse: no disk taken) between its magic and its
first page, every page offset of its footer moved by SHIFT, so a small
file becomes one whose pages lie past 4 GiB. The footer is re-encoded
with Thrift's compact protocol: only the offsets change."""
import struct
import sys

# Thrift compact types
STOP, TRUE, FALSE, BYTE, I16, I32, I64, DOUBLE, BINARY, LIST, SET, MAP, \
    STRUCT = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12


class Reader:
    def __init__(self, data):
        self.d, self.p = data, 0

    def byte(self):
        b = self.d[self.p]
        self.p += 1
        return b

    def varint(self):
        v = s = 0
        while True:
            b = self.byte()
            v |= (b & 0x7F) << s
            s += 7
            if not b & 0x80:
                return v

    def zigzag(self):
        v = self.varint()
        return (v >> 1) ^ -(v & 1)

    def value(self, t):
        if t in (TRUE, FALSE):
            return t == TRUE
        if t == BYTE:
            return self.byte()
        if t in (I16, I32, I64):
            return self.zigzag()
        if t == DOUBLE:
            self.p += 8
            return self.d[self.p - 8:self.p]
        if t == BINARY:
            n = self.varint()
            self.p += n
            return self.d[self.p - n:self.p]
        if t in (LIST, SET):
            h = self.byte()
            n, et = h >> 4, h & 15
            if n == 15:
                n = self.varint()
            return (et, [self.value(et) for _ in range(n)])
        if t == STRUCT:
            return self.struct()
        raise ValueError("type %d" % t)

    def struct(self):
        fields, last = [], 0
        while True:
            h = self.byte()
            if h == STOP:
                return fields
            delta, t = h >> 4, h & 15
            fid = last + delta if delta else self.zigzag()
            fields.append((fid, t, self.value(t)))
            last = fid


class Writer:
    def __init__(self):
        self.o = bytearray()

    def varint(self, v):
        while True:
            b = v & 0x7F
            v >>= 7
            self.o.append(b | (0x80 if v else 0))
            if not v:
                return

    def zigzag(self, v):
        self.varint((v << 1) ^ (v >> 63))

    def value(self, t, v):
        if t in (TRUE, FALSE):
            return
        if t == BYTE:
            self.o.append(v)
        elif t in (I16, I32, I64):
            self.zigzag(v)
        elif t == DOUBLE:
            self.o += v
        elif t == BINARY:
            self.varint(len(v))
            self.o += v
        elif t in (LIST, SET):
            et, items = v
            if len(items) < 15:
                self.o.append(len(items) << 4 | et)
            else:
                self.o.append(0xF0 | et)
                self.varint(len(items))
            for item in items:
                self.value(et, item)
        elif t == STRUCT:
            self.struct(v)

    def struct(self, fields):
        last = 0
        for fid, t, v in fields:
            if t in (TRUE, FALSE):
                t = TRUE if v else FALSE
            if 0 < fid - last <= 15:
                self.o.append((fid - last) << 4 | t)
            else:
                self.o.append(t)
                self.zigzag(fid)
            self.value(t, v)
            last = fid
        self.o.append(STOP)


def shift(fields, by, path=()):
    """The offsets of FileMetaData's row groups moved by BY: ColumnChunk
    file_offset (2), ColumnMetaData data, index and dictionary page
    offsets (9, 10, 11), RowGroup file_offset (5)."""
    out = []
    for fid, t, v in fields:
        where = path + (fid,)
        if t == STRUCT:
            v = shift(v, by, where)
        elif t == LIST and v[0] == STRUCT:
            v = (STRUCT, [shift(s, by, where) for s in v[1]])
        elif t == I64 and where in ((4, 1, 2), (4, 1, 3, 9),
                                    (4, 1, 3, 10), (4, 1, 3, 11), (4, 5)):
            v += by
        out.append((fid, t, v))
    return out


def main():
    src, dst, by = sys.argv[1], sys.argv[2], int(sys.argv[3])
    data = open(src, "rb").read()
    n = struct.unpack("<I", data[-8:-4])[0]
    footer = data[-8 - n:-8]
    meta = Reader(footer).struct()
    w = Writer()
    w.struct(shift(meta, by))
    with open(dst, "wb") as out:
        out.write(data[:4])
        out.seek(4 + by)
        out.write(data[4:-8 - n])
        out.write(w.o)
        out.write(struct.pack("<I", len(w.o)) + b"PAR1")


main()
