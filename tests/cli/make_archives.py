#!/usr/bin/python3
"""make_archives.py SRC DIR: SRC (an ImageFolder tree) as the archives
bale packs in place, written into DIR:

  gnu.tar       GNU format (long names as 'L' members), members "./CLASS/..."
  pax.tar       POSIX pax (long names as pax records)
  stored.zip    members stored, with folder entries
  deflated.zip  members deflated
  tars.tar      a tar of per-class tars, CLASS.tar each (pax)
  gnu.tar.bz2, tars.tar.gz
                the same, compressed
  shuffled.tar.xz
                pax, members in a seeded random order (not torchvision's)
"""
import bz2
import gzip
import io
import lzma
import os
import random
import sys
import tarfile
import zipfile


def members(src):
    """Every folder and file below SRC, relative, in walk order."""
    for root, dirs, files in os.walk(src):
        dirs.sort()
        rel = os.path.relpath(root, src)
        for d in dirs:
            yield os.path.normpath(os.path.join(rel, d))
        for f in sorted(files):
            yield os.path.normpath(os.path.join(rel, f))


def write_tar(path, src, fmt, prefix="", shuffle=False, mode="w"):
    names = list(members(src))
    if shuffle:
        random.Random(7).shuffle(names)
    with tarfile.open(path, mode, format=fmt) as t:
        for rel in names:
            t.add(os.path.join(src, rel), prefix + rel, recursive=False)


def compress(path, opener, suffix):
    with open(path, "rb") as f, opener(path + suffix, "wb") as out:
        out.write(f.read())


def write_zip(path, src, method):
    with zipfile.ZipFile(path, "w", method) as z:
        for rel in members(src):
            z.write(os.path.join(src, rel), rel)


def write_tar_of_tars(path, src):
    with tarfile.open(path, "w", format=tarfile.PAX_FORMAT) as outer:
        for name in sorted(os.listdir(src)):
            cls = os.path.join(src, name)
            if not os.path.isdir(cls):
                continue
            buf = io.BytesIO()
            with tarfile.open(fileobj=buf, mode="w",
                              format=tarfile.PAX_FORMAT) as inner:
                for rel in members(cls):
                    inner.add(os.path.join(cls, rel), rel, recursive=False)
            info = tarfile.TarInfo(name + ".tar")
            info.size = buf.tell()
            buf.seek(0)
            outer.addfile(info, buf)


def main():
    src, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    write_tar(f"{out}/gnu.tar", src, tarfile.GNU_FORMAT, "./")
    write_tar(f"{out}/pax.tar", src, tarfile.PAX_FORMAT)
    write_zip(f"{out}/stored.zip", src, zipfile.ZIP_STORED)
    write_zip(f"{out}/deflated.zip", src, zipfile.ZIP_DEFLATED)
    write_tar_of_tars(f"{out}/tars.tar", src)
    compress(f"{out}/gnu.tar", bz2.open, ".bz2")
    compress(f"{out}/tars.tar", gzip.open, ".gz")
    write_tar(f"{out}/shuffled.tar.xz", src, tarfile.PAX_FORMAT,
              shuffle=True, mode="w:xz")


if __name__ == "__main__":
    main()
