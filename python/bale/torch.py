"""PyTorch Datasets over bale outputs.

ImageDataset: map-style, like torchvision's ImageFolder, over any output
(random access: shuffle=True in a DataLoader). ShardStream: iterable,
over WebDataset shards (bale's or another writer's), read sequentially.

Neither needs a worker_init_fn: a Reader opened in the parent reopens
itself in each DataLoader worker, and both pickle by path, so the fork,
spawn and forkserver start methods all work.
"""
import torch.utils.data

import bale
from ._decode import DECODERS, decode_sample
from ._shards import ShardStream

__all__ = ["ImageDataset", "ShardStream", "decode_sample"]


class ImageDataset(torch.utils.data.Dataset):
    """ds[i] == (transform(image), target_transform(label)) of sample i.

    path:    any bale output, or a folder holding one (see bale.open)
    decode:  "pil" (default), "tensor" or "raw" (see decode_sample)
    format, options: as for bale.open
    Like ImageFolder: .classes, .class_to_idx, .targets (the labels,
    without reading the images), .samples (reads every sample once, on
    first use, for its path).
    """

    def __init__(self, path, transform=None, target_transform=None, *,
                 decode="pil", format=None, options=None):
        if decode not in DECODERS:
            raise ValueError(f"decode must be one of {DECODERS}")
        self.reader = bale.Reader(path, format, meta=False, options=options)
        self.root = self.reader.path
        self.transform = transform
        self.target_transform = target_transform
        self.decode = decode
        self.classes = self.reader.classes
        self.class_to_idx = {c: i for i, c in enumerate(self.classes)}
        self._samples = None
        self._targets = None

    def __len__(self):
        return len(self.reader)

    def __getitem__(self, i):
        s = self.reader[i]
        try:
            image = decode_sample(s.data, self.decode)
        except Exception as e:
            raise bale.Error(f"sample {i} ({self._source_of(i)}) of "
                             f"'{self.root}' does not decode: {e}") from e
        label = s.label
        if self.transform is not None:
            image = self.transform(image)
        if self.target_transform is not None:
            label = self.target_transform(label)
        return image, label

    def _source_of(self, i):
        """Sample i's source path (or key), for a message: read with a
        reader that keeps them, which the fast one does not."""
        r = bale.Reader(self.reader._args[0], self.reader._args[1],
                        options=self.reader._args[3])
        s = r[i]
        return f"'{s.path}'" if s.path is not None else f"key {s.key}"

    @property
    def samples(self):
        """[(source path or key, label)] in order, as ImageFolder's."""
        if self._samples is None:
            r = bale.Reader(self.reader._args[0], self.reader._args[1],
                            options=self.reader._args[3])
            self._samples = [(s.path if s.path is not None else s.key,
                              s.label) for s in r]
        return self._samples

    @property
    def targets(self):
        """Every sample's label, in order, read without the bytes from
        the output's index as asked (a bale.Labels sequence: no list of a
        Python int per sample in every worker; numpy.asarray() for an
        array)."""
        if self._targets is None:
            self._targets = bale.Labels(self.reader)
        return self._targets

    def __repr__(self):
        return (f"ImageDataset({self.reader.format} '{self.root}', "
                f"{len(self)} samples, decode={self.decode!r})")
