"""The Datasets bench/torch_loader.py compares: torchvision's ImageFolder,
bale's ImageDataset and ShardStream, and the classes users write by hand
from the same files, written the way the practitioners' guides say
(LMDB opened once per worker with readahead off, h5py opened per worker,
webdataset-style sequential tar reading)."""
import io
import json
import os
import tarfile

import numpy as np
import torch
import torchvision
from torch.utils.data import Dataset, IterableDataset, get_worker_info
from torchvision import transforms as T

from bale.torch import ImageDataset, ShardStream


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def full_transform(pixels):
    """PIL decode is the Dataset's; then RandomResizedCrop(224) + flip +
    ToTensor. A --pixels array starts as a tensor instead."""
    crop = [T.RandomResizedCrop(224), T.RandomHorizontalFlip()]
    if pixels:
        return T.Compose([T.ToTensor()] + crop)
    return T.Compose(crop + [T.ToTensor()])


def pil_rgb(data):
    from PIL import Image
    with Image.open(io.BytesIO(data)) as img:
        return img.convert("RGB")


def hand_item(data, label, transform):
    """What a hand-written Dataset returns: the bytes as they are, or
    decoded with PIL and transformed."""
    if transform is None:
        return data, label
    return transform(pil_rgb(data)), label


class HandLMDB(Dataset):
    """py-lmdb, one environment per worker process, readahead off; keys
    from bale's __keys__ record; the image and the label, one get each."""

    def __init__(self, path, transform=None):
        import lmdb
        env = lmdb.open(path, readonly=True, lock=False)
        with env.begin() as txn:
            self.keys = bytes(txn.get(b"__keys__")).split()
        env.close()
        self.path, self.transform = path, transform
        self.env, self.pid = None, None

    def __len__(self):
        return len(self.keys)

    def __getitem__(self, i):
        import lmdb
        if self.pid != os.getpid():
            self.env = lmdb.open(self.path, readonly=True, lock=False,
                                 readahead=False, meminit=False)
            self.txn = self.env.begin()
            self.pid = os.getpid()
        k = self.keys[i]
        return hand_item(self.txn.get(k + b".image"),
                         int(self.txn.get(k + b".cls")), self.transform)


class HandH5(Dataset):
    """h5py on bale's encoded layout: the offsets and labels loaded once,
    the file opened per worker, each sample one slice of 'images'."""

    def __init__(self, path, transform=None):
        import h5py
        with h5py.File(path, "r") as f:
            self.offsets = f["offsets"][:]
            self.labels = f["labels"][:]
        self.path, self.transform = path, transform
        self.file, self.pid = None, None

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        import h5py
        if self.pid != os.getpid():
            self.file = h5py.File(self.path, "r")
            self.images = self.file["images"]
            self.pid = os.getpid()
        a, b = self.offsets[i], self.offsets[i + 1]
        return hand_item(self.images[a:b].tobytes(), int(self.labels[i]),
                         self.transform)


class HandTar(IterableDataset):
    """webdataset-style: the shards split across workers, each read in
    sequence with tarfile, members grouped by key (.jpg, .cls)."""

    def __init__(self, shard_list, transform=None):
        with open(shard_list) as f:
            urls = [s["url"] for s in json.load(f)["shardlist"]]
        base = os.path.dirname(shard_list)
        self.shards = [os.path.join(base, u) for u in urls]
        self.transform = transform

    def __iter__(self):
        info = get_worker_info()
        wid, nw = (info.id, info.num_workers) if info else (0, 1)
        for shard in self.shards[wid::nw]:
            sample = {}
            with tarfile.open(shard, "r|") as tar:
                for m in tar:
                    key, _, ext = m.name.partition(".")
                    if sample and key != sample["key"]:
                        yield self._item(sample)
                        sample = {}
                    sample["key"] = key
                    sample[ext] = tar.extractfile(m).read()
            if sample:
                yield self._item(sample)

    def _item(self, sample):
        ext = next(e for e in ("jpg", "jpeg", "png", "npy") if e in sample)
        data = sample[ext]
        label = int(sample["cls"])
        if ext != "npy":
            return hand_item(data, label, self.transform)
        image = np.load(io.BytesIO(data))
        return (self.transform(image) if self.transform else image), label


class Ceiling(Dataset):
    """No I/O, no decode, no transform: a ready sample of the size the
    others hand over (110 KB of bytes; a 3 x 224 x 224 float tensor with
    transforms). What the DataLoader itself can deliver on this machine."""

    def __init__(self, n, full):
        self.n = n
        self.item = torch.rand(3, 224, 224) if full else bytes(110_000)

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if isinstance(self.item, bytes):    # a new object: pickle would
            return self.item[:-1] + bytes([i % 256]), 0     # share repeats
        return self.item, 0


# name: (what it reads, whether it is random access, a factory taking
# (paths, transform or None))
DATASETS = {
    "ceiling": ("tree", True, lambda p, t: Ceiling(10_000, t is not None)),
    "ImageFolder": ("tree", True, lambda p, t: torchvision.datasets.
                    DatasetFolder(p["tree"], read_bytes if t is None else
                                  torchvision.datasets.folder.pil_loader,
                                  torchvision.datasets.folder.IMG_EXTENSIONS,
                                  t)),
    "hand-lmdb": ("pass", True, lambda p, t: HandLMDB(p["pass"] +
                                                      "/data.lmdb", t)),
    "hand-h5py": ("pass", True, lambda p, t: HandH5(p["pass"] + "/data.h5",
                                                    t)),
    "hand-tar": ("pass", False, lambda p, t: HandTar(
        p["pass"] + "/data-shards.json", t)),
    "bale-ShardStream": ("pass", False, lambda p, t: ShardStream(
        p["pass"] + "/data-shards.json", transform=t,
        decode="pil" if t else "raw")),
}
for variant in ("pass", "r256", "px"):
    for fmt, name in (("wds", "data-shards.json"), ("lmdb", "data.lmdb"),
                      ("hdf5", "data.h5")):
        DATASETS[f"bale-{fmt}-{variant}"] = (
            variant, True,
            lambda p, t, v=variant, n=name: ImageDataset(
                f"{p[v]}/{n}", t, decode="pil" if t else "raw"))
