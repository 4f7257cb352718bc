#!/usr/bin/python3
"""make_hostile_archives.py IMAGE DIR: archives that try to break an
archive source, written into DIR. IMAGE gives the member bytes.

  bad.tar      unsafe paths, links, devices, a FIFO, a duplicate name
               (the second copy is IMAGE reversed), an empty member,
               a file outside any class, a non-image
  cut.tar      three members, cut inside the third
  nested.tar   a tar of tars whose class tar holds a tar
  bad.zip      a stored member with a wrong CRC-32, a deflated one that
               claims 1.25 GiB, one marked encrypted, one in an unknown
               method, one that inflates past its declared size, a
               symlink, and one good member
  cut.zip      a zip without its end (central directory lost)
  garbage.tar  bytes that are no archive
  bad.tar.gz   bad.tar, gzipped
  cut.tar.gz   six members a-f.jpg, gzipped, the stream cut off inside f
  bomb.tar.gz  a good member, then one whose header claims 2 GiB
  garbage.tar.gz
               a gzip header, then bytes that are no archive
"""
import gzip
import io
import os
import struct
import sys
import tarfile
import zipfile
import zlib


def add(t, name, data=b"", **kw):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    for k, v in kw.items():
        setattr(info, k, v)
    t.addfile(info, io.BytesIO(data) if data else None)


def bad_tar(path, img):
    with tarfile.open(path, "w", format=tarfile.GNU_FORMAT) as t:
        add(t, "cls/good.jpg", img)
        add(t, "../evil.jpg", img)
        add(t, "/abs/x.jpg", img)
        add(t, "cls/../../up.jpg", img)
        add(t, "cls/link.jpg", type=tarfile.SYMTYPE, linkname="good.jpg")
        add(t, "cls/hard.jpg", type=tarfile.LNKTYPE, linkname="cls/good.jpg")
        add(t, "cls/dev.jpg", type=tarfile.CHRTYPE, devmajor=1, devminor=3)
        add(t, "cls/fifo.jpg", type=tarfile.FIFOTYPE)
        add(t, "cls/dup.jpg", img)
        add(t, "cls/dup.jpg", img[::-1])
        add(t, "cls/empty.jpg", b"")
        add(t, "top.jpg", img)
        add(t, "cls/inner.tar", img)


def cut_tar(path, img):
    with tarfile.open(path, "w") as t:
        for name in ("cls/a.jpg", "cls/b.jpg", "cls/c.jpg"):
            add(t, name, img)
    data = open(path, "rb").read()
    cut = data.rindex(img[:64]) + len(img) // 2    # inside c.jpg
    open(path, "wb").write(data[:cut])


def nested_tar(path, img):
    inner = io.BytesIO()
    with tarfile.open(fileobj=inner, mode="w") as t:
        add(t, "x.jpg", img)
        add(t, "deeper.tar", img)
    with tarfile.open(path, "w") as t:
        add(t, "animal.tar", inner.getvalue())


def patch_central(data, name, fmt, offset, value):
    """Set a field of NAME's central directory entry."""
    at = data.index(b"PK\x01\x02")
    while True:
        n = struct.unpack_from("<H", data, at + 28)[0]
        if data[at + 46:at + 46 + n] == name.encode():
            struct.pack_into(fmt, data, at + offset, value)
            return
        at = data.index(b"PK\x01\x02", at + 4)


def bad_zip(path, img):
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("cls/ok.jpg", img)
        z.writestr("cls/crc.jpg", img)
        z.writestr("cls/bomb.jpg", img, zipfile.ZIP_DEFLATED)
        z.writestr("cls/enc.jpg", img)
        z.writestr("cls/method.jpg", img)
        z.writestr("cls/lies.jpg", img, zipfile.ZIP_DEFLATED)
        link = zipfile.ZipInfo("cls/link.jpg")
        link.create_system = 3
        link.external_attr = (0o120777 << 16)
        z.writestr(link, "ok.jpg")
    data = bytearray(open(path, "rb").read())
    crc_at = data.index(img, data.index(b"cls/crc.jpg"))
    data[crc_at + 100] ^= 0xff                     # the data, not the CRC
    patch_central(data, "cls/bomb.jpg", "<I", 24, 0x50000000)
    patch_central(data, "cls/enc.jpg", "<H", 8, 1)
    patch_central(data, "cls/method.jpg", "<H", 10, 12)
    patch_central(data, "cls/lies.jpg", "<I", 24, len(img) - 1)
    open(path, "wb").write(bytes(data))


def cut_tar_gz(path, img):
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as t:
        for name in "abcdef":
            add(t, f"cls/{name}.jpg", img)
    data = raw.getvalue()
    cut = data.rindex(img[:64]) + len(img) // 2    # inside f.jpg
    # a gzip stream flushed at the cut and never ended, as a download
    # cut off there would leave it
    z = zlib.compressobj(6, zlib.DEFLATED, 31)
    open(path, "wb").write(z.compress(data[:cut]) +
                           z.flush(zlib.Z_SYNC_FLUSH))


def bomb_tar_gz(path, img):
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.GNU_FORMAT) as t:
        add(t, "cls/good.jpg", img)
    data = raw.getvalue().rstrip(b"\0")
    data += b"\0" * (-len(data) % 512)
    info = tarfile.TarInfo("cls/bomb.jpg")
    info.size = 2 << 30
    data += info.tobuf(tarfile.GNU_FORMAT) + b"\0" * (1 << 20)
    open(path, "wb").write(gzip.compress(data))


def main():
    img = open(sys.argv[1], "rb").read()
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)
    bad_tar(f"{out}/bad.tar", img)
    cut_tar(f"{out}/cut.tar", img)
    nested_tar(f"{out}/nested.tar", img)
    bad_zip(f"{out}/bad.zip", img)
    good = open(f"{out}/bad.zip", "rb").read()
    open(f"{out}/cut.zip", "wb").write(good[:good.rindex(b"PK\x01\x02")])
    open(f"{out}/garbage.tar", "wb").write(bytes(range(256)) * 8)
    bad = open(f"{out}/bad.tar", "rb").read()
    open(f"{out}/bad.tar.gz", "wb").write(gzip.compress(bad))
    cut_tar_gz(f"{out}/cut.tar.gz", img)
    bomb_tar_gz(f"{out}/bomb.tar.gz", img)
    open(f"{out}/garbage.tar.gz", "wb").write(
        b"\x1f\x8b\x08\x00" + bytes(range(256)) * 8)


if __name__ == "__main__":
    main()
