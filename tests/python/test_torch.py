"""bale.torch.ImageDataset through a DataLoader with two workers yields the
very (image, label) pairs torchvision's ImageFolder yields on the source
tree, for every format and layout, in the same sampler order."""
import os
import random

import common

common.need_torch()

import numpy  # noqa: E402
import torch  # noqa: E402
import torchvision  # noqa: E402
from torch.utils.data import DataLoader  # noqa: E402
from torchvision import transforms as T  # noqa: E402

import bale  # noqa: E402
from bale.torch import ImageDataset  # noqa: E402

# deterministic, and one size, so that batches collate
TRANSFORM = T.Compose([T.Resize((20, 20)), T.PILToTensor()])


def batches(ds, order, workers=2, context=None):
    """Every batch of ds in sampler order @order, as lists."""
    dl = DataLoader(ds, batch_size=4, sampler=order, num_workers=workers,
                    multiprocessing_context=context)
    images, labels = [], []
    for x, y in dl:
        images.append(x)
        labels += y.tolist()
    return torch.cat(images), labels


class TorchTest(common.TempTest):

    def setUp(self):
        super().setUp()
        self.src = os.path.join(self.tmp, "in")
        common.mkdata("tricky", self.src)
        self.folder = torchvision.datasets.ImageFolder(self.src, TRANSFORM)
        self.order = list(range(len(self.folder)))
        random.Random(7).shuffle(self.order)
        self.want = batches(self.folder, self.order, workers=0)

    def test_every_layout_as_image_folder(self):
        def check(fmt, layout, out):
            ds = ImageDataset(out, TRANSFORM)
            self.assertEqual(len(ds), len(self.folder))
            if layout != "caffe":
                self.assertEqual(ds.classes, self.folder.classes)
                self.assertEqual(ds.class_to_idx, self.folder.class_to_idx)
            self.assertEqual(ds.targets, self.folder.targets)
            images, labels = batches(ds, self.order)
            self.assertEqual(labels, self.want[1])
            self.assertTrue(torch.equal(images, self.want[0]))
        self.assertGreater(common.each_layout(self, self.src, check), 0)

    def test_decode_modes(self):
        fmt = next(f for f, _, _ in common.LAYOUTS if common.built(f))
        out = common.pack(self.src, f"{self.tmp}/out", fmt)
        raw = ImageDataset(out, decode="raw")
        tensors = ImageDataset(out, decode="tensor")
        read_mode = torchvision.io.ImageReadMode.RGB
        for i, (path, label) in enumerate(self.folder.samples):
            with open(path, "rb") as f:
                self.assertEqual(raw[i], (f.read(), label))
            want = torchvision.io.read_image(path, read_mode)
            got, got_label = tensors[i]
            self.assertTrue(torch.equal(got, want), path)
            self.assertEqual(got_label, label)
        with self.assertRaises(ValueError):
            ImageDataset(out, decode="jpeg")

    def test_decode_failure_names_the_sample(self):
        """A sample that does not decode raises bale.Error naming its
        index and source path (through a DataLoader worker too), not a
        bare PIL error."""
        fmt = next(f for f, _, _ in common.LAYOUTS if common.built(f))
        with open(os.path.join(self.src, "10", "ten.jpg"), "rb") as f:
            half = f.read()
        with open(os.path.join(self.src, "10", "ten.jpg"), "wb") as f:
            f.write(half[:len(half) // 2])
        out = common.pack(self.src, f"{self.tmp}/cut", fmt)
        ds = ImageDataset(out, TRANSFORM)
        i = [p for p, _ in self.folder.samples].index(
            os.path.join(self.src, "10", "ten.jpg"))
        with self.assertRaisesRegex(bale.Error,
                                    f"sample {i} \\('10/ten.jpg'\\) of "
                                    ".* does not decode"):
            ds[i]
        dl = DataLoader(ds, batch_size=1, sampler=[i], num_workers=1)
        with self.assertRaisesRegex(Exception, "'10/ten.jpg'"):
            next(iter(dl))

    def test_pixels_are_arrays(self):
        fmt = next(f for f, _, _ in common.LAYOUTS if common.built(f))
        out = common.pack(self.src, f"{self.tmp}/px", fmt, "--pixels", "8x8")
        reader = bale.open(out)
        ds = ImageDataset(out, T.ToTensor())
        images, labels = batches(ds, self.order)
        want = torch.stack([T.ToTensor()(reader[i].data) for i in self.order])
        self.assertTrue(torch.equal(images, want))
        self.assertEqual(labels, self.want[1])
        array, _ = ImageDataset(out)[0]
        self.assertIsInstance(array, numpy.ndarray)
        self.assertTrue(array.flags.writeable)


if __name__ == "__main__":
    common.main()
