"""The encode stage against PIL and numpy, on bale-mkimages' tree.

usage: encode_vs_pil.py BALE SRC WORK

Each check packs SRC with some encode flags and compares what comes out
with what PIL makes of the same input: output sizes for every resize
mode (against an independent rational-arithmetic oracle), where pixels
land for every EXIF orientation, colour conversions (CMYK/YCCK, grey,
16-bit, palette, alpha) and --pixels arrays in HDF5, tar and LMDB.
"""
import io
import json
import os
import subprocess
import sys
import tarfile
from fractions import Fraction

import h5py
import lmdb
import numpy as np
from PIL import Image, ImageOps

BALE, SRC, WORK = sys.argv[1:4]
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def pack(name, *flags, formats="wds"):
    out = os.path.join(WORK, name)
    r = subprocess.run([BALE, "pack", SRC, "-f", formats, "-o", out, "-q",
                        *flags], capture_output=True, text=True)
    if r.returncode not in (0, 3):
        sys.exit(f"bale pack {flags} failed ({r.returncode}): {r.stderr}")
    return out


def samples(out):
    """relpath -> (ext, bytes) from a wds output."""
    got = {}
    for shard in sorted(f for f in os.listdir(out) if f.endswith(".tar")):
        with tarfile.open(os.path.join(out, shard)) as t:
            members = {}
            for m in t.getmembers():
                key, ext = m.name.split(".", 1)
                members.setdefault(key, {})[ext] = t.extractfile(m).read()
            for key, parts in members.items():
                meta = json.loads(parts.pop("json"))
                parts.pop("cls")
                (ext, data), = parts.items()
                got[meta["path"]] = (ext, data)
    return got


def source(rel):
    """The input as PIL shows it: orientation applied."""
    return ImageOps.exif_transpose(Image.open(os.path.join(SRC, rel)))


DECODABLE = [f"{d}/{f}" for d in ("jpeg", "png")
             for f in sorted(os.listdir(os.path.join(SRC, d)))]


def half_up(f):
    return max(1, int(f + Fraction(1, 2)))


def expected_size(mode, frame, upscale, w, h):
    """Output size, from the scale factor in exact rationals."""
    kind, arg = mode.split(":")
    if kind in ("shorter", "longer"):
        bw = bh = int(arg)
    else:
        bw, bh = map(int, arg.split("x"))
    if kind == "exact":
        return bw, bh
    if kind == "shorter":
        s = Fraction(bw, min(w, h))
    elif kind == "longer":
        s = Fraction(bw, max(w, h))
    elif frame == "crop":
        s = max(Fraction(bw, w), Fraction(bh, h))
    else:
        s = min(Fraction(bw, w), Fraction(bh, h))
    sw, sh = half_up(w * s), half_up(h * s)
    if s > 1 and not upscale:
        sw, sh = w, h
    if frame == "crop":
        return min(sw, bw), min(sh, bh)
    if frame == "pad":
        return bw, bh
    return sw, sh


def check_sizes():
    cases = [("shorter:32", None, False), ("longer:32", None, False),
             ("exact:20x30", None, False), ("fit:40x30", None, False),
             ("shorter:32", "crop", False), ("fit:40x30", "crop", False),
             ("fit:40x30", "pad", False), ("longer:32", "pad", False),
             ("shorter:1000", None, False), ("shorter:1000", None, True),
             ("fit:7x5", "crop", True)]
    for i, (mode, frame, up) in enumerate(cases):
        flags = ["--resize", mode]
        flags += {"crop": ["--crop", "center"], "pad": ["--pad"],
                  None: []}[frame]
        flags += ["--upscale"] if up else []
        got = samples(pack(f"size{i}", *flags))
        for rel in DECODABLE:
            w, h = source(rel).size
            want = expected_size(mode, frame, up, w, h)
            if max(want) > 65535:   # must be skipped, not attempted
                check(rel not in got, f"{flags} {rel}: {want} packed")
                continue
            have = Image.open(io.BytesIO(got[rel][1])).size if rel in got \
                else None
            check(have == want, f"{flags} {rel} ({w}x{h}): {have} != {want}")


QUAD = {"R": (255, 0, 0), "G": (0, 255, 0), "B": (0, 0, 255),
        "W": (255, 255, 255)}
# display corners TL, TR, BL, BR of a stored R G / B W image, per EXIF
# orientation, worked out by hand from the EXIF definitions
CORNERS = {1: "RGBW", 2: "GRWB", 3: "WBGR", 4: "BWRG",
           5: "RBGW", 6: "BRWG", 7: "WGBR", 8: "GWRB"}


def corners(img):
    a = np.asarray(img.convert("RGB")).astype(int)
    h, w = a.shape[:2]
    return [a[2, 2], a[2, w - 3], a[h - 3, 2], a[h - 3, w - 3]]


def check_orientation():
    got = samples(pack("orient", "--quality", "100", "--subsampling",
                       "444"))
    for o, names in CORNERS.items():
        ext, data = got[f"jpeg/orient{o}.jpg"]
        img = Image.open(io.BytesIO(data))
        want = (24, 40) if o >= 5 else (40, 24)
        check(img.size == want, f"orientation {o}: size {img.size}")
        check("exif" not in img.info or
              img.getexif().get(0x0112, 1) == 1,
              f"orientation {o}: tag still in the output")
        for corner, name in zip(corners(img), names):
            d = np.abs(corner - np.array(QUAD[name])).max()
            check(d <= 40, f"orientation {o}: corner should be {name}, "
                  f"is {corner.tolist()}")
        ref = corners(source(f"jpeg/orient{o}.jpg"))
        check(all(np.abs(a - b).max() <= 40 for a, b in
                  zip(corners(img), ref)),
              f"orientation {o}: differs from PIL's exif_transpose")
    ext, data = got["png/orient6.png"]
    img = Image.open(io.BytesIO(data))
    check(img.size == (30, 50), f"png eXIf orientation 6: size {img.size}")


def composite_white(rgba):
    a = rgba[..., 3:4].astype(int)
    return (rgba[..., :3].astype(int) * a + 255 * (255 - a) + 127) // 255


def reference_rgb(rel):
    """The RGB PIL makes of a same-size input, alpha on white."""
    img = Image.open(os.path.join(SRC, rel))
    if img.mode in ("I;16", "I;16B", "I"):
        return np.repeat((np.asarray(img).astype(int) >> 8)[..., None], 3, 2)
    if rel.endswith("rgb16.png"):   # PIL gives 8-bit RGB already
        return np.asarray(img.convert("RGB")).astype(int)
    if img.mode in ("RGBA", "LA", "P", "PA") or "transparency" in img.info:
        return composite_white(np.asarray(img.convert("RGBA")))
    return np.asarray(img.convert("RGB")).astype(int)


def npy_of(data):
    return np.load(io.BytesIO(data))


def check_colour():
    cases = {"jpeg/ycck.jpg": "120x80", "png/rgb8.png": "50x30",
             "png/rgb16.png": "50x30", "png/grey8.png": "50x30",
             "png/grey16.png": "50x30", "png/palette.png": "50x30",
             "png/palette_trns.png": "50x30", "png/rgba.png": "50x30",
             "png/greya.png": "50x30", "jpeg/grey.jpg": "300x200"}
    for size in sorted(set(cases.values())):
        got = samples(pack(f"colour{size}", "--pixels", size))
        for rel, s in cases.items():
            if s != size:
                continue
            a = npy_of(got[rel][1]).astype(int)
            ref = reference_rgb(rel)
            d = np.abs(a - ref).max() if a.shape == ref.shape else 999
            check(d <= 1, f"{rel}: RGB differs from PIL's by {d}")


def check_keep_modes():
    got = samples(pack("keep", "--color", "keep", "--alpha", "keep"))
    check(Image.open(io.BytesIO(got["jpeg/grey.jpg"][1])).mode == "L",
          "--color keep: grey JPEG became colour")
    check(Image.open(io.BytesIO(got["png/grey8.png"][1])).mode == "L",
          "--color keep: grey PNG became colour")
    ext, data = got["png/rgba.png"]
    img = Image.open(io.BytesIO(data))
    check(ext == "png" and img.mode == "RGBA", "--alpha keep: not RGBA PNG")
    check(np.array_equal(np.asarray(img),
                         np.asarray(Image.open(f"{SRC}/png/rgba.png"))),
          "--alpha keep: RGBA pixels changed")
    got = samples(pack("unchanged", "--keep-unchanged"))
    with open(f"{SRC}/jpeg/base444.jpg", "rb") as f:
        check(got["jpeg/base444.jpg"][1] == f.read(),
              "--keep-unchanged: an unchanged JPEG was re-encoded")
    for rel in ("jpeg/orient6.jpg", "jpeg/ycck.jpg", "jpeg/grey.jpg"):
        with open(f"{SRC}/{rel}", "rb") as f:
            check(got[rel][1] != f.read(),
                  f"--keep-unchanged: {rel} kept, but it needs changes")


def psnr(a, b):
    mse = np.mean((a.astype(float) - b.astype(float)) ** 2)
    return float("inf") if mse == 0 else 10 * np.log10(255 ** 2 / mse)


def pil_pixels(rel, bw, bh):
    """PIL the usual way: draft, LANCZOS to cover, centre crop."""
    img = Image.open(os.path.join(SRC, rel))
    o = img.getexif().get(0x0112, 1)
    w, h = img.size if o < 5 else img.size[::-1]
    s = max(Fraction(bw, w), Fraction(bh, h))
    sw, sh = half_up(w * s), half_up(h * s)
    stored = (sw, sh) if o < 5 else (sh, sw)
    img.draft("RGB", stored)
    img = ImageOps.exif_transpose(img.convert("RGB").resize(stored,
                                                            Image.LANCZOS))
    x, y = (sw - bw) // 2, (sh - bh) // 2
    return np.asarray(img.crop((x, y, x + bw, y + bh)))


def check_pixels():
    out = pack("pixels", "--pixels", "64x48", formats="wds,lmdb,hdf5")
    got = samples(out)
    env = lmdb.open(os.path.join(out, "data.lmdb"), readonly=True,
                    lock=False)
    with h5py.File(os.path.join(out, "data.h5"), "r") as f, \
            env.begin() as txn:
        images = f["images"]
        # wide.jpg (3000 x 2) would be 72000 px wide before its crop:
        # skipped with a reason, like any image over the size limits
        check("jpeg/wide.jpg" not in got, "wide.jpg: over the limit, packed")
        check(images.shape == (len(DECODABLE) - 1, 48, 64, 3) and
              images.dtype == np.uint8 and images.chunks == (1, 48, 64, 3),
              f"hdf5 images: {images.shape} {images.dtype} {images.chunks}")
        paths = [p.decode() for p in f["paths"][:]]
        keys = [k.decode() for k in f["keys"][:]]
        for i, rel in enumerate(paths):
            a = images[i]
            ext, data = got[rel]
            check(ext == "npy" and np.array_equal(npy_of(data), a),
                  f"{rel}: tar .npy differs from h5py")
            value = txn.get(f"{keys[i]}.image".encode())
            check(value is not None and np.array_equal(npy_of(value), a),
                  f"{rel}: lmdb .npy differs from h5py")
    for rel in ("jpeg/base420.jpg", "jpeg/prog420.jpg", "jpeg/base444.jpg",
                "jpeg/orient6.jpg", "png/rgb8.png"):
        p = psnr(npy_of(got[rel][1]), pil_pixels(rel, 64, 48))
        print(f"{rel}: PSNR against PIL draft+LANCZOS+crop {p:.1f} dB")
        check(p >= 40, f"{rel}: PSNR {p:.1f} dB against PIL, want >= 40")


def check_jpeg_bytes():
    """Same pixels, same settings: the very bytes PIL writes."""
    got = samples(pack("bytes", "--resize", "fit:64x48", "--crop",
                       "center", "--quality", "90"))
    for rel in ("jpeg/base420.jpg", "jpeg/prog420.jpg", "jpeg/base444.jpg"):
        out = io.BytesIO()
        Image.fromarray(pil_pixels(rel, 64, 48)).save(out, "JPEG",
                                                      quality=90)
        check(got[rel][1] == out.getvalue(),
              f"{rel}: JPEG bytes differ from PIL's for the same pixels")


check_sizes()
check_jpeg_bytes()
check_orientation()
check_colour()
check_keep_modes()
check_pixels()
if failures:
    sys.exit(f"{len(failures)} checks failed")
print("encode checks passed")
