"""bale.Loader: the same batches whatever the thread count; resumed from
a state_dict exactly; boxes drawn as torchvision's RandomResizedCrop
draws them; eval batches equal to torchvision's Resize + CenterCrop on the
source tree; numpy arrays without torch; bad arguments refused."""
import math
import os
import subprocess
import sys
import zlib

import common

common.need_torch()

import numpy  # noqa: E402
import torch  # noqa: E402
import torchvision  # noqa: E402
from torchvision import transforms as T  # noqa: E402

import bale  # noqa: E402


digests = common.loader_digests


class LoaderTest(common.TempTest):

    def setUp(self):
        super().setUp()
        if not common.built("lmdb"):
            self.skipTest("needs format lmdb")
        self.src = os.path.join(self.tmp, "in")
        common.mkdata("random", self.src, "-n", "60", "--classes", "3",
                      "--min", "48", "--max", "120")
        self.out = common.pack(self.src, f"{self.tmp}/out", "lmdb")

    def loader(self, **kw):
        kw.setdefault("batch_size", 8)
        kw.setdefault("size", 24)
        kw.setdefault("seed", 3)
        return bale.Loader(self.out, **kw)

    def test_threads_and_resume(self):
        want = digests(self.loader(threads=1))
        self.assertEqual(len(want), 16)
        for threads in (2, 8):
            self.assertEqual(digests(self.loader(threads=threads)), want)
        # stopped after k batches of epoch 1, carried on in a new loader
        for k in (0, 3, 7, 8):
            first = self.loader(threads=2)
            first.set_epoch(1)
            for i, _ in zip(range(k), first):
                pass
            state = first.state_dict()
            self.assertEqual(state, {"epoch": 1, "batch": k})
            again = self.loader(threads=3)
            again.load_state_dict(state)
            rest = [(1, zlib.crc32(x.numpy().tobytes()), y.tolist())
                    for x, y in again]
            self.assertEqual(rest, [d for d in want if d[0] == 1][k:], k)

    def test_boxes_as_torchvision(self):
        """Box areas and aspect ratios: the same distribution as
        RandomResizedCrop.get_params (two-sample Kolmogorov-Smirnov)."""
        from bale._bale import Loader  # noqa: F401  (the module loads)
        w, h = 400, 300
        img = torch.zeros(3, h, w)
        tv_area, tv_ratio = [], []
        torch.manual_seed(0)
        for _ in range(4000):
            i, j, bh, bw = T.RandomResizedCrop.get_params(
                img, (0.08, 1.0), (3 / 4, 4 / 3))
            tv_area.append(bh * bw / (w * h))
            tv_ratio.append(bw / bh)
        ours = subprocess.run([os.environ["BALE_BOXES"], "400", "300",
                               "4000"], capture_output=True, text=True,
                              check=True).stdout.split("\n")
        boxes = [tuple(map(float, line.split())) for line in ours if line]
        area = [(x1 - x0) * (y1 - y0) / (w * h) for x0, y0, x1, y1 in boxes]
        ratio = [(x1 - x0) / (y1 - y0) for x0, y0, x1, y1 in boxes]

        def ks(a, b):
            a, b = sorted(a), sorted(b)
            i = j = 0
            d = 0.0
            while i < len(a) and j < len(b):
                if a[i] <= b[j]:
                    i += 1
                else:
                    j += 1
                d = max(d, abs(i / len(a) - j / len(b)))
            return d
        # critical value at alpha = 0.001 for n = m = 4000: 1.95 * sqrt(2/n)
        limit = 1.95 * math.sqrt(2 / 4000)
        self.assertLess(ks(area, tv_area), limit)
        self.assertLess(ks(ratio, tv_ratio), limit)
        for x0, y0, x1, y1 in boxes:
            self.assertTrue(0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h)

    def test_eval_as_torchvision(self):
        """Resize(40) + CenterCrop(32) on the source tree, in order."""
        tf = T.Compose([T.Resize(40), T.CenterCrop(32), T.PILToTensor()])
        folder = torchvision.datasets.ImageFolder(self.src, tf)
        loader = self.loader(size=32, resize=40, train=False, exact=True,
                             batch_size=7, copy=True)
        batches = list(loader)
        got = torch.cat([x for x, _ in batches])
        labels = sum((y.tolist() for _, y in batches), [])
        want = torch.stack([folder[i][0] for i in range(len(folder))])
        self.assertEqual(labels, folder.targets)
        self.assertLessEqual(int((got.int() - want.int()).abs().max()), 1)

    def test_exif(self):
        """exif=True: as PIL's exif_transpose, then Resize + CenterCrop
        (every orientation, 1 to 8); without it, as stored."""
        from PIL import Image, ImageOps
        src = f"{self.tmp}/orient"
        subprocess.run([os.environ["MKIMAGES"], f"{self.tmp}/kinds"],
                       check=True, stdout=subprocess.DEVNULL)
        os.makedirs(f"{src}/c")
        for o in range(1, 9):
            os.link(f"{self.tmp}/kinds/jpeg/orient{o}.jpg",
                    f"{src}/c/orient{o}.jpg")
        for exif in (True, False):
            def load(p, exif=exif):
                im = Image.open(p)
                return (ImageOps.exif_transpose(im) if exif else
                        im).convert("RGB")
            tf = T.Compose([T.Resize(20), T.CenterCrop(16), T.PILToTensor()])
            folder = torchvision.datasets.ImageFolder(src, tf, loader=load)
            want = torch.stack([folder[i][0] for i in range(8)])
            got = torch.cat([x for x, _ in bale.Loader(
                src, batch_size=3, size=16, resize=20, train=False,
                exact=True, exif=exif, copy=True)])
            self.assertLessEqual(int((got.int() - want.int()).abs().max()),
                                 1, f"exif={exif}")

    def test_numpy_without_torch(self):
        """The same batches, as numpy arrays, where torch is missing."""
        want = [(d[1], d[2]) for d in digests(self.loader(), (0,))]
        code = f"""
import sys, zlib
sys.modules["torch"] = None
import bale
l = bale.Loader({self.out!r}, batch_size=8, size=24, seed=3)
for x, y in l:
    assert type(x).__module__ == "numpy", type(x)
    print(zlib.crc32(x.tobytes()), y.tolist())
import numpy
raw = next(iter(l))[0].astype(numpy.float32) / numpy.float32(255)
f = next(iter(bale.Loader({self.out!r}, batch_size=8, size=24, seed=3,
                          mean=0.5, std=[0.25, 0.5, 1])))[0]
s = numpy.array([0.25, 0.5, 1], numpy.float32).reshape(1, 3, 1, 1)
assert f.dtype == numpy.float32 and (f == (raw - numpy.float32(0.5)) / s).all()
"""
        out = subprocess.run([sys.executable, "-c", code], check=True,
                             capture_output=True, text=True).stdout
        got = [(int(a), eval(b)) for a, b in
               (line.split(" ", 1) for line in out.splitlines())]
        self.assertEqual(got, want)

    def test_views_copies_and_layouts(self):
        loader = self.loader(copy=True)
        batches = [x for x, _ in loader]
        # views: valid until the next batch (then their buffer is reused)
        again = [x.clone() for x, _ in self.loader(copy=False)]
        for a, b in zip(batches, again):
            self.assertTrue(torch.equal(a, b))   # copies stayed intact
        hwc = torch.cat([x for x, _ in self.loader(channels_last=True,
                                                   copy=True)])
        chw = torch.cat(batches)
        self.assertTrue(torch.equal(hwc.permute(0, 3, 1, 2), chw))
        # normalized in C: bit for bit torchvision's ToTensor + Normalize
        mean, std = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
        want = torch.stack([T.functional.normalize(x.float().div(255), mean, std)
                            for x in chw])
        for last in (False, True):
            got = torch.cat([x for x, _ in self.loader(
                mean=mean, std=std, channels_last=last, copy=True)])
            self.assertEqual(got.dtype, torch.float32)
            if last:
                got = got.permute(0, 3, 1, 2)
            self.assertTrue(torch.equal(got, want), last)

    def test_bad_samples(self):
        """Evaluation raises at a bad sample, naming it, or leaves it out
        when asked; training replaces it, with one warning an epoch, and
        bad_samples names each bad sample once."""
        import warnings
        bad = f"{self.tmp}/bad"
        subprocess.run(["cp", "-r", self.src, bad], check=True)
        for name, data in (("n00000001/zzz.jpg", b"not an image"),
                           ("n00000002/zzz.jpg", b"\xff\xd8\xff\xe0cut")):
            with open(f"{bad}/{name}", "wb") as f:
                f.write(data)
        self.out = common.pack(bad, f"{self.tmp}/badout", "lmdb")
        got = []
        with self.assertRaisesRegex(bale.Error, r"sample \d+ \(key '[^']+',"
                                    r" source 'n00000001/zzz.jpg'\) does not"
                                    r" decode"):
            for x, y in self.loader(train=False):
                got.append(len(y))
        self.assertTrue(got)        # the batches before the bad one came
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            ys = [y for _, y in self.loader(train=False, on_bad="skip",
                                            copy=True)]
        self.assertEqual(sum(len(y) for y in ys), 60)
        want = [y for _, y in bale.Loader(self.src, batch_size=60,
                                          size=24, train=False)][0]
        self.assertEqual(torch.cat(ys).tolist(), want.tolist())
        self.assertEqual([str(w.message)[:36] for w in seen],
                         ["epoch 0: 2 samples did not decode an"])
        loader = self.loader()
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            digests(loader)         # two epochs
        self.assertEqual(len(seen), 2)
        self.assertTrue(all(issubclass(w.category, bale.BadSampleWarning)
                            for w in seen))
        self.assertEqual(sorted(i for i, _ in loader.bad_samples),
                         [20 + 20, 20 + 20 + 21])
        with self.assertRaisesRegex(ValueError, "replace is for training"):
            self.loader(train=False, on_bad="replace")

    def test_refusals(self):
        for kw in (dict(batch_size=0), dict(size=0), dict(threads=-1),
                   dict(size=-1), dict(size=100000), dict(size="x"),
                   dict(size=(2, 3, 4)), dict(on_bad="ignore"),
                   dict(strict=True, on_bad="skip"), dict(resize=-3),
                   dict(rank=2, world_size=2), dict(scale=(0.5, 0.1)),
                   dict(seed=-1), dict(mean=[0.5] * 3),
                   dict(mean=[0.5] * 2, std=[0.2] * 2),
                   dict(mean=[0.5] * 3, std=[0.2, 0, 0.2]),
                   dict(mean="abc", std=[1] * 3)):
            with self.assertRaises(ValueError, msg=kw):
                self.loader(**kw)
        with self.assertRaises(bale.NotFoundError):
            bale.Loader(f"{self.tmp}/missing.lmdb", format="lmdb")
        with self.assertRaises(bale.NotFoundError):
            bale.Loader(f"{self.tmp}/missing")
        jpeg = os.path.join(self.src, "n00000000",
                            sorted(os.listdir(f"{self.src}/n00000000"))[0])
        with self.assertRaisesRegex(bale.Error, "not a bale output"):
            bale.Loader(jpeg)
        with self.assertRaises(bale.UsageError):
            bale.Loader(self.out, format="bogus")
        loader = self.loader()
        for state in ({"epoch": 0, "batch": 99999}, {"epoch": -1, "batch": 0},
                      {"batch": 0}, None):
            with self.assertRaises(ValueError, msg=state):
                loader.load_state_dict(state)
        # a folder of two datasets: the loader, as bale.open, names none
        common.pack(self.src, f"{self.tmp}/out", "lmdb", name="other")
        with self.assertRaisesRegex(ValueError, "different datasets"):
            bale.Loader(f"{self.tmp}/out")
        loader = self.loader()
        loader.close()
        with self.assertRaisesRegex(ValueError, "closed"):
            next(iter(loader))


if __name__ == "__main__":
    common.main()
