#!/usr/bin/python3
"""make_wds.py ROOT OUT: the images of ImageFolder tree ROOT as WebDataset
shards the way other writers make them: Python's tarfile, no .idx, no
shard list, 5 samples a shard (OUT/shard-000000.tar ...), keys that are
not bale's, member names bale never writes (.jpeg, .png, .txt captions),
labels as "N\\n" in KEY.cls or only as "label" in KEY.json (which then
also records the path), .cls before the image in some samples. Two
more samples cannot be packed: one with no image, one with no label.

Prints what a conversion must give, per sample in order:
"label<TAB>size<TAB>crc32<TAB>path" (the columns `bale ls` ends with).
"""
import io
import json
import os
import sys
import tarfile
import zlib

from imagefolder import samples


def add(tar, name, data):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


def members(n, rel, label, data):
    """The members of sample @n, and the path a conversion records."""
    key = "%s%06d" % ("train/" if n % 2 else "", n)
    ext = os.path.splitext(rel)[1].lower()[1:]
    image = ("%s.%s" % (key, "jpeg" if ext == "jpg" and n % 3 else ext),
             data)
    caption = ("%s.txt" % key, b"a photo of class %d" % label)
    if n % 4 == 1:  # the label only in the JSON, with the path
        meta = json.dumps({"label": label, "path": rel}).encode()
        return [image, ("%s.json" % key, meta), caption], rel
    cls = ("%s.cls" % key, b"%d\n" % label)
    return ([cls, image, caption] if n % 3 == 0 else [image, cls, caption],
            image[0])


def main():
    root, out = sys.argv[1:3]
    os.makedirs(out, exist_ok=True)
    groups = []
    for n, (rel, label) in enumerate(samples(root)):
        data = open(os.path.join(root, rel), "rb").read()
        group, path = members(n, rel, label, data)
        groups.append(group)
        print("%d\t%d\t%08x\t%s" % (label, len(data), zlib.crc32(data), path))
    groups.append([("nopic.txt", b"no image here")])
    groups.append([("nolabel.png", open(os.path.join(root, rel), "rb").read())])
    for s in range(0, len(groups), 5):
        with tarfile.open(os.path.join(out, "shard-%06d.tar" % (s // 5)),
                          "w") as tar:
            for group in groups[s:s + 5]:
                for name, data in group:
                    add(tar, name, data)


if __name__ == "__main__":
    main()
