#!/usr/bin/python3
"""Check a bale WebDataset output against its source folder.

Independent of bale's code: it reads the tars with Python's tarfile, the
.idx files and the shard list as text/JSON, and recomputes labels with
torchvision's ImageFolder rule written out here. Exits non-zero with a
message on the first mismatch.
"""
import argparse
import json
import os
import sys
import tarfile
import zlib

IMG_EXTENSIONS = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif",
                  ".tiff", ".webp")


def fail(msg):
    print("check_wds: " + msg, file=sys.stderr)
    sys.exit(1)


def torchvision_rule(root):
    """(relpath, label) in torchvision's make_dataset order, and classes."""
    classes = sorted(e.name for e in os.scandir(root) if e.is_dir())
    index = {c: i for i, c in enumerate(classes)}
    samples = []
    for c in classes:
        for d, _, files in sorted(os.walk(os.path.join(root, c),
                                          followlinks=True)):
            for f in sorted(files):
                if f.lower().endswith(IMG_EXTENSIONS):
                    rel = os.path.relpath(os.path.join(d, f), root)
                    samples.append((rel, index[c]))
    return samples, classes


def read_idx(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    head = lines[0].split()
    if head[0] != "v1.2" or int(head[1]) != len(lines) - 1:
        fail(f"{path}: bad header {lines[0]!r}")
    entries = []
    for line in lines[1:]:
        fields = line.split(" ")
        if len(fields) % 4:
            fail(f"{path}: bad line {line!r}")
        entries.append([fields[i:i + 4] for i in range(0, len(fields), 4)])
    return entries


def check_member_header(raw, m, tarpath):
    if m.type != tarfile.REGTYPE or m.pax_headers:
        fail(f"{tarpath}: {m.name} is not a plain ustar file")
    if m.mode != 0o644 or m.mtime != 0 or m.uid or m.gid:
        fail(f"{tarpath}: {m.name} has non-fixed mode/mtime/owner")
    if raw[m.offset + 257:m.offset + 265] != b"ustar\x0000":
        fail(f"{tarpath}: {m.name} header is not ustar")


def read_shard(tarpath):
    """Samples of one shard: list of (key, {ext: (offset, bytes)})."""
    with open(tarpath, "rb") as f:
        raw = f.read()
    samples = []
    with tarfile.open(tarpath, format=tarfile.USTAR_FORMAT) as tar:
        for m in tar:
            check_member_header(raw, m, tarpath)
            key, ext = m.name.split(".", 1)
            if not samples or samples[-1][0] != key:
                samples.append((key, {}))
            data = raw[m.offset_data:m.offset_data + m.size]
            samples[-1][1][ext] = (m.offset_data, data)
    return samples, raw


def check_idx(idxpath, samples, raw):
    entries = read_idx(idxpath)
    if len(entries) != len(samples):
        fail(f"{idxpath}: {len(entries)} samples, tar has {len(samples)}")
    for (key, members), entry in zip(samples, entries):
        if len(entry) != len(members):
            fail(f"{idxpath}: {key}: members differ")
        for ext, off, size, name in entry:
            off, size = int(off), int(size)
            if name != f"{key}.{ext}" or members[ext][0] != off:
                fail(f"{idxpath}: {name} offset {off} is wrong")
            if raw[off:off + size] != members[ext][1]:
                fail(f"{idxpath}: {name}: bytes at offset differ")


def check_sample(src, key, members, extracted):
    if len(members) != 3 or "cls" not in members or "json" not in members:
        fail(f"{key}: expected image, cls and json members")
    meta = json.loads(members["json"][1])
    ext = next(e for e in members if e not in ("cls", "json"))
    path = os.fsencode(meta["path"])
    with open(os.path.join(os.fsencode(src), path), "rb") as f:
        original = f.read()
    image = members[ext][1]
    if image != original:
        fail(f"{key}: bytes differ from {meta['path']!r}")
    if meta["size"] != len(original):
        fail(f"{key}: size {meta['size']} != {len(original)}")
    if meta["crc32"] != "%08x" % zlib.crc32(original):
        fail(f"{key}: crc32 {meta['crc32']} is wrong")
    if int(members["cls"][1]) != meta["label"]:
        fail(f"{key}: .cls and .json labels differ")
    if ext != os.path.splitext(meta["path"])[1][1:].lower():
        fail(f"{key}: member extension {ext!r} does not match the path")
    if extracted:
        with open(os.path.join(extracted, f"{key}.{ext}"), "rb") as f:
            if f.read() != original:
                fail(f"{key}: tar -x gave different bytes")
    return meta


def check_shard_list(out, name, args):
    with open(os.path.join(out, f"{name}-shards.json")) as f:
        listing = json.load(f)
    if listing["__kind__"] != "wids-shard-index-v1" or \
            listing["wids_version"] != 1:
        fail("shard list is not wids-shard-index-v1")
    for i, shard in enumerate(listing["shardlist"]):
        if shard["url"] != f"{name}-{i:06d}.tar":
            fail(f"shard {i} is named {shard['url']}")
        size = os.path.getsize(os.path.join(out, shard["url"]))
        if shard["filesize"] != size:
            fail(f"{shard['url']}: filesize {shard['filesize']} != {size}")
        if args.max_count and shard["nsamples"] > args.max_count:
            fail(f"{shard['url']}: {shard['nsamples']} samples")
        if args.max_size and size > args.max_size and shard["nsamples"] > 1:
            fail(f"{shard['url']}: {size} bytes over the limit")
    return listing


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("src")
    ap.add_argument("--name", default="data")
    ap.add_argument("--extracted", help="folder where tar -x put every shard")
    ap.add_argument("--order", action="store_true",
                    help="expect exactly torchvision's samples and order")
    ap.add_argument("--max-count", type=int, default=0)
    ap.add_argument("--max-size", type=int, default=0)
    ap.add_argument("--count", type=int, default=-1)
    args = ap.parse_args()

    listing = check_shard_list(args.out, args.name, args)
    got = []
    for shard in listing["shardlist"]:
        tarpath = os.path.join(args.out, shard["url"])
        samples, raw = read_shard(tarpath)
        if len(samples) != shard["nsamples"]:
            fail(f"{shard['url']}: nsamples {shard['nsamples']} is wrong")
        check_idx(tarpath[:-4] + ".idx", samples, raw)
        for key, members in samples:
            meta = check_sample(args.src, key, members, args.extracted)
            got.append((key, meta))
    keys = [k for k, _ in got]
    if keys != sorted(keys) or len(set(keys)) != len(keys):
        fail("keys are not unique and increasing")
    if listing["bale"]["samples"] != len(got):
        fail("shard list sample count is wrong")
    if args.count >= 0 and len(got) != args.count:
        fail(f"{len(got)} samples, expected {args.count}")
    # os.walk(followlinks=True) never ends on a symlink loop, so the full
    # torchvision walk is only redone for --order; labels need the classes
    classes = sorted(e.name for e in os.scandir(args.src) if e.is_dir())
    if listing["bale"]["classes"] != classes:
        fail(f"classes {listing['bale']['classes']} != {classes}")
    for key, meta in got:
        cls = meta["path"].split("/")[0]
        if classes.index(cls) != meta["label"] or cls != meta["class"]:
            fail(f"{key}: label {meta['label']} wrong for {meta['path']!r}")
    if args.order:
        expected, _ = torchvision_rule(args.src)
        paths = [m["path"] for _, m in got]
        if paths != [p for p, _ in expected]:
            fail("order differs from torchvision's:\n%s\n%s" %
                 (paths, [p for p, _ in expected]))
    print(f"check_wds: {len(got)} samples in "
          f"{len(listing['shardlist'])} shards verified")


if __name__ == "__main__":
    main()
