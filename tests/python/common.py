"""Helpers of the Python tests: data made with bale-mkdata, packed with the
bale command, and torchvision's view of the source tree."""
import faulthandler
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

BALE = os.environ["BALE"]
MKDATA = os.environ["MKDATA"]
BUILT = subprocess.run([BALE, "--help"], capture_output=True,
                       text=True).stdout

# The formats built, with their conformance runs (tests/meson.build
# writes them from formats/*/meson.build): [layout, option...] each.
with open(os.environ["FORMATS_JSON"]) as f:
    RUNS = json.load(f)


def layouts(runs):
    """(format, layout name, bale pack flags) of each layout of @runs,
    its default first: a run's layout=... option chooses it."""
    found = []
    for fmt, fmt_runs in runs.items():
        for layout, *options in fmt_runs:
            flags = [x for o in options if o.startswith("layout=")
                     for x in ("-O", f"{fmt}.{o}")]
            if not any(f == fmt and n == layout for f, n, _ in found):
                found.append((fmt, layout, flags))
    return found


# every layout of every format built: what the tests cover
LAYOUTS = layouts(RUNS)


def built(fmt):
    return any(line.startswith("Formats built in:") and
               f" {fmt}" in line.split(":", 1)[1] + " "
               for line in BUILT.splitlines())


def built_formats(can=None):
    """The formats that write, of those built in; with @can ("resume",
    "merge", "update"), those bale formats says can do it too."""
    if can is None:
        return list(RUNS)
    listing = subprocess.run([BALE, "formats"], capture_output=True,
                             text=True, check=True).stdout
    able = {line.split()[0] for line in listing.splitlines()
            if can in line.split()[1].split(",")}
    return [f for f in RUNS if f in able]


def need_torch():
    """Skip the whole test (meson's 77) without torch and torchvision."""
    try:
        import torch  # noqa: F401
        import torchvision  # noqa: F401
    except ImportError as e:
        print(f"skipped: needs python3-torch and python3-torchvision ({e})")
        sys.exit(77)


def loader_digests(loader, epochs=(0, 1)):
    """[(epoch, crc32 of the images, labels)] of every batch."""
    import zlib
    out = []
    for e in epochs:
        loader.set_epoch(e)
        for x, y in loader:
            out.append((e, zlib.crc32(x.numpy().tobytes()), y.tolist()))
    return out


def need_any_format():
    if not any(built(f) for f, _, _ in LAYOUTS):
        print("skipped: no format that writes is built in")
        sys.exit(77)


def mkdata(*args):
    subprocess.run([MKDATA, *args], check=True, stdout=subprocess.DEVNULL)


def pack(src, out, fmt, *flags, name="data"):
    """Pack src into out (one format); the output's path."""
    subprocess.run([BALE, "pack", src, "-f", fmt, "-o", out, "-q",
                    "--name", name, *flags], check=True)
    return output_of(out, fmt, name)


def output_of(out, fmt, name="data"):
    """The output of format fmt called name in folder out."""
    import bale
    found = [p for p in bale.find_outputs(out, fmt)
             if re.match(re.escape(name) + r"[.-]", os.path.basename(p))]
    assert len(found) == 1, f"{fmt} output {name} in {out}: {found}"
    return found[0]


def each_layout(test, src, check):
    """check(fmt, layout, output) for src packed in every layout built,
    each a subTest of @test; the number of layouts checked."""
    ran = 0
    for fmt, layout, flags in LAYOUTS:
        if built(fmt):
            with test.subTest(format=fmt, layout=layout):
                check(fmt, layout, pack(src, f"{test.tmp}/{fmt}-{layout}",
                                        fmt, *flags))
            ran += 1
    return ran


def random_outputs(test, n, classes, max_px):
    """A random tree of @n images in @test's scratch folder, packed once
    per format built, each in a folder of its own (skips the test when
    none is built). (tree, {format: output path})."""
    need_any_format()
    src = os.path.join(test.tmp, "in")
    mkdata("random", src, "-n", str(n), "--classes", str(classes),
           "--min", "16", "--max", str(max_px))
    return src, {f: pack(src, f"{test.tmp}/{f}", f) for f in built_formats()}


def image_folder(src):
    """torchvision's ImageFolder samples of src: [(path, label)]."""
    import torchvision
    return torchvision.datasets.ImageFolder(src).samples


class TempTest(unittest.TestCase):
    """A test case with a scratch folder self.tmp."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="bale-pytest-")
        # a cleanup, not tearDown: it runs even when setUp goes on to
        # skip the test (a format not built), which tearDown would not
        self.addCleanup(shutil.rmtree, self.tmp, True)


def main():
    # a test that hangs says where before meson's 300 s timeout kills it
    # (each test is named as it starts, and the stacks are dumped)
    faulthandler.dump_traceback_later(240)
    result = unittest.main(exit=False, verbosity=2).result
    sys.exit(0 if result.wasSuccessful() else 1)
