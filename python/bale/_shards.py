"""ShardStream: WebDataset shards read in sequence, split across DataLoader
workers and distributed ranks, every sample exactly once per epoch."""
import gzip
import io
import json
import os
import random
import re

import torch.distributed
import torch.utils.data

import bale
from . import _bale
from ._decode import DECODERS, decode_sample

# the member that holds the image, by preference
IMAGE_EXTS = ("jpg", "jpeg", "png", "webp", "ppm", "pgm", "bmp", "tif",
              "tiff", "npy")
_BRACES = re.compile(r"\{(\d+)\.\.(\d+)\}|\{([^{}]*,[^{}]*)\}")


def _expand_braces(pattern):
    """"a-{000..002}.tar" and "{a,b}.tar" as webdataset expands them."""
    m = _BRACES.search(pattern)
    if not m:
        return [pattern]
    head, tail = pattern[:m.start()], pattern[m.end():]
    if m.group(3) is not None:
        items = m.group(3).split(",")
    else:
        lo, hi = m.group(1), m.group(2)
        items = [str(i).zfill(len(lo)) for i in range(int(lo), int(hi) + 1)]
    return [p for item in items for p in _expand_braces(head + item + tail)]


def _remote(path):
    """Is @path a URL of an object store (s3://, https://)?"""
    return "://" in path


class _StoreStream(io.RawIOBase):
    """A file in an object store read front to back, a large ranged GET
    at a time (wrapped in a BufferedReader: reads of any size)."""

    def __init__(self, path):
        is_dir, size = _bale.store_stat(path)   # the store's words if not
        if is_dir:
            raise bale.NotFoundError(f"'{path}' is a folder, not a shard")
        self.path, self.at, self.size = path, 0, size

    def readable(self):
        return True

    def readinto(self, b):
        data = _bale.store_read(self.path, self.at, len(b), self.size)
        b[:len(data)] = data
        self.at += len(data)
        return len(data)


def _open_any(path):
    return io.BufferedReader(_StoreStream(path), 8 << 20) \
        if _remote(path) else open(path, "rb", buffering=1 << 20)


def _shard_list(path):
    """The shards a wids shard list (bale's NAME-shards.json) names, with
    the sample count it records for each (None where it records none)."""
    with _open_any(path) as f:
        index = json.loads(f.read().decode("utf-8"))
    base = path.rsplit("/", 1)[0] if "/" in path else ""
    try:
        entries = [(s["url"], s.get("nsamples")) for s in index["shardlist"]]
    except (KeyError, TypeError, AttributeError):
        raise bale.Error(f"'{path}': not a shard list (no shardlist urls)")
    return [(u if os.path.isabs(u) or _remote(u) else
             f"{base}/{u}" if base else u, n) for u, n in entries]


def _idx_count(tar):
    """The sample count in the .idx bale writes beside a shard, or None."""
    idx = tar[:-len(".tar")] + ".idx" if tar.endswith(".tar") else None
    try:
        with _open_any(idx) as f:
            head = f.readline().split()
        return int(head[1]) if head[:1] == [b"v1.2"] else None
    except (OSError, TypeError, ValueError, IndexError, bale.Error):
        return None


def list_shards_counted(urls):
    """[(shard path, sample count or None)] from: a shard list (.json), a
    folder of .tar files, a brace pattern ("train-{000..099}.tar"), a
    .tar, or a list of these. A folder or a list without a shard is an
    error: an epoch over it would end at once, unnoticed."""
    if not isinstance(urls, (str, bytes, os.PathLike)):
        found = [s for u in urls for s in list_shards_counted(u)]
        if not found:
            raise bale.NotFoundError("no shard in the list given")
        return found
    path = os.fspath(urls)
    st = bale._stat(path)
    if st and st[0]:
        names = sorted(n for n, is_dir in _bale.store_list(path)
                       if not is_dir and
                       n.endswith((".tar", ".tar.gz", ".tgz")))
        if not names:
            raise bale.NotFoundError(f"no shard (.tar, .tar.gz) in the "
                                     f"folder '{path}'")
        base = path.rstrip("/")
        return [(f"{base}/{n}", _idx_count(f"{base}/{n}")) for n in names]
    if path.endswith(".json"):
        return _shard_list(path)
    paths = _expand_braces(path)
    missing = [p for p in paths if not bale._stat(p)]
    if missing:
        raise bale.NotFoundError(f"no such shard: '{missing[0]}'")
    return [(p, _idx_count(p)) for p in paths]


def list_shards(urls):
    """Shard paths (see list_shards_counted)."""
    return [p for p, _ in list_shards_counted(urls)]


def _split_name(name):
    """webdataset's rule: the key is the path up to the first dot of its
    last component; the rest, lowercased, is the field."""
    slash = name.rfind("/") + 1
    dot = name.find(".", slash)
    if dot < 0:
        return name, ""
    return name[:dot], name[dot + 1:].lower()


class _Damaged(Exception):
    pass


def _octal(field):
    """A tar header number: octal text, or GNU's base-256."""
    if field[:1] and field[0] & 0x80:
        return int.from_bytes(field[1:], "big")
    text = field.split(b"\0", 1)[0].strip()
    try:
        return int(text, 8) if text else 0
    except ValueError:
        raise _Damaged(f"bad number {text[:12]!r} in a header")


def _pax_path(data):
    """The "path" record of a pax extended header, or None."""
    while data:
        length = int(data.split(b" ", 1)[0])
        record, data = data[:length], data[length:]
        key, _, value = record.split(b" ", 1)[1].partition(b"=")
        if key == b"path":
            return value[:-1]
    return None


def _read_exactly(f, n, what):
    data = f.read(n)
    if len(data) != n:
        raise _Damaged(f"truncated in {what}")
    return data


def tar_files(f):
    """(name, bytes) of each regular file of the tar stream f, checked:
    header checksums, whole member data, and an end-of-archive block (a
    tar cut short is an error, not a shorter shard)."""
    long_name = None
    while True:
        header = _read_exactly(f, 512, "a header")
        if header == b"\0" * 512:
            return
        stored = _octal(header[148:156])
        if stored != sum(header[:148]) + 256 + sum(header[156:]):
            raise _Damaged("a header's checksum is wrong")
        size = _octal(header[124:136])
        kind = header[156:157]
        data = _read_exactly(f, size, "member data")
        _read_exactly(f, -size % 512, "member padding")
        if kind in (b"L", b"x"):
            long_name = data.rstrip(b"\0") if kind == b"L" else \
                (_pax_path(data) or long_name)
            continue
        name = header[:100].split(b"\0", 1)[0]
        if header[257:262] == b"ustar" and header[345] != 0:
            name = header[345:500].split(b"\0", 1)[0] + b"/" + name
        name, long_name = long_name or name, None
        if kind in (b"0", b"\0", b"7") and not name.endswith(b"/"):
            yield name.decode("utf-8", "surrogateescape"), data


def _open_shard(path):
    if path.endswith((".gz", ".tgz")):
        return gzip.open(_open_any(path) if _remote(path) else path, "rb")
    return _open_any(path)


def read_shard(path):
    """The samples of one shard in order: dicts of field -> bytes, with
    "__key__" and "__url__" (the shard), as webdataset's; consecutive
    members with one key make a sample."""
    sample = {}
    try:
        with _open_shard(path) as f:
            for name, data in tar_files(f):
                key, field = _split_name(name)
                if sample and key != sample["__key__"]:
                    yield sample
                    sample = {}
                sample["__key__"] = key
                sample["__url__"] = path
                sample[field] = data
    except (_Damaged, EOFError, OSError, ValueError) as e:
        raise bale.Error(f"shard '{path}': {e}") from e
    if sample:
        yield sample


def sample_label(sample):
    """The class index: .cls, else a "label" in .json; -1 if none."""
    if "cls" in sample:
        text = sample["cls"].decode("utf-8", "replace").strip()
        if not text.lstrip("-").isdigit():
            raise bale.Error(f"sample '{sample['__key__']}': .cls holds "
                             f"{text[:20]!r}, not a class index")
        return int(text)
    if "json" in sample:
        meta = json.loads(sample["json"])
        if isinstance(meta, dict) and isinstance(meta.get("label"), int):
            return meta["label"]
    return -1


def sample_image(sample):
    """The image member's bytes (a .npy member: its array)."""
    for ext in IMAGE_EXTS:
        if ext in sample:
            if ext == "npy":
                return bale._npy_array(sample[ext])
            return sample[ext]
    raise bale.Error(f"sample '{sample['__key__']}' has no image member "
                     f"(fields: {sorted(k for k in sample if k[:2] != '__')})")


def _assignment(nshards, consumer, consumers):
    """(shard position, stride, offset) triples this consumer reads: whole
    shards when there are enough, else every stride-th sample of one
    shard that several consumers share."""
    if nshards >= consumers:
        return [(j, 1, 0) for j in range(consumer, nshards, consumers)]
    if nshards == 0:
        return []
    shard = consumer % nshards
    sharers = len(range(shard, consumers, nshards))
    return [(shard, sharers, consumer // nshards)]


class ShardStream(torch.utils.data.IterableDataset):
    """Iterate over WebDataset shards: (transform(image), label) pairs.

    urls:       see list_shards (bale's NAME-shards.json, a folder, a brace
                pattern, paths); any WebDataset, not only bale's
    shuffle:    0: shards and samples in order; N: shard order shuffled
                (seeded by seed and epoch) and samples through an N-sample
                shuffle buffer
    rank, world_size: this process's place among distributed ranks;
                default: torch.distributed's when initialised, else 0, 1
    decode:     "pil", "tensor" or "raw" (see bale.torch.decode_sample)
    Every sample comes exactly once per epoch across all DataLoader
    workers of all ranks; call set_epoch(e) before each epoch.
    """

    def __init__(self, urls, shuffle=0, transform=None,
                 target_transform=None, *, seed=0, decode="pil",
                 rank=None, world_size=None):
        if decode not in DECODERS:
            raise ValueError(f"decode must be one of {DECODERS}")
        counted = list_shards_counted(urls)
        self.shards = [p for p, _ in counted]
        self._counts = [n for _, n in counted]
        self.shuffle = int(shuffle)
        self.transform = transform
        self.target_transform = target_transform
        self.seed = seed
        self.decode = decode
        self.rank = rank
        self.world_size = world_size
        self.epoch = 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __len__(self):
        """The samples in all the shards (every rank's, every worker's),
        as the shard list or bale's .idx files record them; a TypeError
        for shards that record no count (foreign .tar without .idx)."""
        if None in self._counts:
            unknown = self.shards[self._counts.index(None)]
            raise TypeError(f"len(): shard '{unknown}' records no sample "
                            f"count (no shard list entry nor .idx)")
        return sum(self._counts)

    def _place(self):
        """(consumer index, consumers) of this worker of this rank."""
        rank, world = self.rank, self.world_size
        if rank is None or world is None:
            dist = torch.distributed
            up = dist.is_available() and dist.is_initialized()
            rank = rank if rank is not None else (dist.get_rank() if up else 0)
            world = world if world is not None else \
                (dist.get_world_size() if up else 1)
        info = torch.utils.data.get_worker_info()
        worker, workers = (info.id, info.num_workers) if info else (0, 1)
        return rank * workers + worker, world * workers

    def _samples(self, order, consumer, consumers):
        for pos, stride, offset in _assignment(len(order), consumer,
                                               consumers):
            for n, sample in enumerate(read_shard(self.shards[order[pos]])):
                if n % stride == offset:
                    yield sample

    def __iter__(self):
        consumer, consumers = self._place()
        order = list(range(len(self.shards)))
        if self.shuffle:
            random.Random(f"{self.seed}/{self.epoch}").shuffle(order)
        stream = self._samples(order, consumer, consumers)
        if self.shuffle > 1:
            rng = random.Random(f"{self.seed}/{self.epoch}/{consumer}")
            stream = _buffer_shuffle(stream, self.shuffle, rng)
        for sample in stream:
            yield self._item(sample)

    def _item(self, sample):
        try:
            image = decode_sample(sample_image(sample), self.decode)
        except bale.Error:
            raise
        except Exception as e:
            raise bale.Error(f"sample '{sample['__key__']}' of shard "
                             f"'{sample['__url__']}' does not decode: "
                             f"{e}") from e
        label = sample_label(sample)
        if self.transform is not None:
            image = self.transform(image)
        if self.target_transform is not None:
            label = self.target_transform(label)
        return image, label


def _buffer_shuffle(stream, size, rng):
    """Samples of stream in an order shuffled within a size-sample window."""
    buf = []
    for sample in stream:
        if len(buf) < size:
            buf.append(sample)
            continue
        i = rng.randrange(size)
        buf[i], sample = sample, buf[i]
        yield sample
    rng.shuffle(buf)
    yield from buf
