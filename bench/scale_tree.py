#!/usr/bin/python3
"""The scale benchmark's tree: DIR holds 1000 class folders of 1000
hard links each to a few small JPEGs (1 M samples, made in seconds), and
COPIES - 1 more sets of 1000 class folders that are symbolic links to
the first (torchvision and bale follow them): COPIES million samples.
ext4 allows 65 000 links to one file, so the links go round 64 sources.

    scale_tree.py SOURCES_DIR DIR COPIES"""
import os
import sys

CLASSES = 1000
PER_CLASS = 1000


def sources(folder):
    files = sorted(os.path.join(d, f) for d, _, fs in os.walk(folder)
                   for f in fs if f.endswith(".JPEG"))
    if len(files) * 65000 < CLASSES * PER_CLASS:
        sys.exit(f"{folder}: too few source images for the links")
    return files


def base_tree(src, out):
    files = sources(src)
    for c in range(CLASSES):
        cls = os.path.join(out, f"c{c:04d}")
        os.makedirs(cls, exist_ok=True)
        for i in range(PER_CLASS):
            path = os.path.join(cls, f"img_{i:06d}.JPEG")
            if not os.path.exists(path):
                os.link(files[(c * PER_CLASS + i) % len(files)], path)


def copies(out, n):
    for k in range(1, n):
        for c in range(CLASSES):
            link = os.path.join(out, f"c{c:04d}-{k:02d}")
            if not os.path.islink(link):
                os.symlink(f"c{c:04d}", link)


def check_room(out, n):
    """Each set of class folders takes 1000 inodes (a symbolic link is
    one), and a count mistaken for samples (10000000 for 10 M) would use
    up the filesystem's: refuse what does not fit with room to spare."""
    st = os.statvfs(os.path.dirname(os.path.abspath(out)))
    need = CLASSES * (PER_CLASS // 1000 + n)
    if n < 1 or need > st.f_favail // 2:
        sys.exit(f"{out}: COPIES is in millions of samples; {n} sets need "
                 f"{need} inodes, and the filesystem has {st.f_favail} "
                 "free (at most half of them are used)")


def main():
    src, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    check_room(out, n)
    base_tree(src, out)
    copies(out, n)


if __name__ == "__main__":
    main()
