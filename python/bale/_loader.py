"""bale.Loader: training batches decoded, cropped and batched in C threads.

The C loader (bale_loader_*) fills a ring of batch buffers that this
object owns (torch tensors, pinned on request, or numpy arrays without
torch); each batch is handed out as a view of its buffer, valid until
the next one is asked for (copy=True for batches kept longer).
"""
import os
import warnings

from . import _bale

torch = None    # imported when the first Loader is made, so that import
                # bale stays light; False when there is no torch


def _import_torch():
    global torch
    if torch is None:
        try:
            import torch as t
            torch = t
        except ImportError:     # batches as numpy arrays
            torch = False
    return torch


def _distributed(rank, world_size):
    """This process's rank and the world size: as given, else
    torch.distributed's when initialised, else the launcher's environment
    (RANK, WORLD_SIZE), else 0 and 1."""
    if rank is not None and world_size is not None:
        return rank, world_size
    dist = getattr(torch, "distributed", None) if torch else None
    if dist is not None and dist.is_available() and dist.is_initialized():
        return (dist.get_rank() if rank is None else rank,
                dist.get_world_size() if world_size is None else world_size)
    env_rank = int(os.environ.get("RANK", 0))
    env_world = int(os.environ.get("WORLD_SIZE", 1))
    return (env_rank if rank is None else rank,
            env_world if world_size is None else world_size)


_MAX_SIDE = 16384
_ON_BAD = {None: 0, "replace": 1, "skip": 2, "raise": 3}


class BadSampleWarning(UserWarning):
    """Samples of an epoch that did not decode were replaced or left out
    (Loader.bad_samples lists them)."""


def _whole(name, v, lo, hi):
    """v, when a whole number from lo to hi; else ValueError naming it."""
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise ValueError(f"{name}={v!r}: a whole number from {lo} to {hi}")
    return v


def _size(size):
    """(height, width) of an int or a pair, as torchvision takes them."""
    pair = (size, size) if isinstance(size, int) else size
    try:
        h, w = pair
    except (TypeError, ValueError):
        raise ValueError(f"size={size!r}: a whole number or a pair "
                         "(height, width)") from None
    for v in (h, w):
        if isinstance(v, bool) or not isinstance(v, int) or \
                not 1 <= v <= _MAX_SIDE:
            raise ValueError(f"size={size!r}: sides are whole numbers from "
                             f"1 to {_MAX_SIDE}")
    return h, w


def _on_bad(on_bad, strict, train):
    """The C loader's code for what a bad sample does."""
    if on_bad not in _ON_BAD:
        raise ValueError(f"on_bad={on_bad!r}: 'replace', 'skip' or 'raise'")
    if strict and on_bad not in (None, "raise"):
        raise ValueError(f"strict=True and on_bad={on_bad!r} disagree")
    return _ON_BAD["raise" if strict else on_bad]


def _three(name, v):
    """Three floats (per channel) of a number or a sequence of 1 or 3."""
    try:
        v = [float(v)] if isinstance(v, (int, float)) else \
            [float(x) for x in v]
    except (TypeError, ValueError):
        raise ValueError(f"{name}={v!r}: numbers, one or per channel") \
            from None
    if len(v) not in (1, 3):
        raise ValueError(f"{name}: 1 or 3 values, not {len(v)}")
    return tuple(v * 3 if len(v) == 1 else v)


class Loader:
    """Batches of (images, labels) from any output bale reads (or a raw
    ImageFolder tree), made in C threads.

    train=True:  RandomResizedCrop(size, scale, ratio) + horizontal flip
                 (p=0.5), as torchvision, in a new order each epoch;
    train=False: Resize(resize) + CenterCrop(size), in the output's order
                 (shuffle=True for a seeded one).
    images: uint8 [B, 3, H, W] (channels_last=True: [B, H, W, 3]); with
    mean= and std= (per channel, of 0..1 values, as Normalize after
    ToTensor), float32 normalized in the C threads, the same values as
    torchvision's. labels: int64 [B].
    Every choice is a function of (seed, epoch, position): any thread
    count gives the same batches, and state_dict()/load_state_dict()
    resume mid-epoch exactly. Ranks (rank/world_size, or
    torch.distributed's, or RANK/WORLD_SIZE) see disjoint samples and the
    same number of batches.
    A sample that does not decode: on_bad='raise' (evaluation's default)
    raises bale.Error at its batch, naming its index, key and source
    path; 'replace' (training's default) puts the next of the order in
    its place; 'skip' leaves it out (its batch is one smaller, the epoch
    shorter). Replaced or skipped, each epoch that met some ends with one
    BadSampleWarning with the count, and bad_samples lists each once.
    strict=True is on_bad='raise'.
    exif=True shows JPEGs as their EXIF orientation says (torchvision's
    loader applies none, nor does the default).
    An output in an object store (s3://, https://) is read by ranged
    GETs sent ahead of the threads in the epoch's order: at most
    io_requests at once (64) and io_bytes of answers held, queued or on
    their way (128 MiB); the batches are those of the same output on
    disk.
    order='runs' (train, or shuffle): the epoch reads runs of run_samples
    consecutive samples, each one GET from an object store, in a seeded
    order, and shuffles the samples of run_window runs at a time among
    themselves (a batch draws from at most run_window runs: pack with
    --shuffle so that a run is not one class); deterministic and
    resumable as the default order='sample', where any sample can come
    anywhere in the epoch and each costs a GET.
    """

    def __init__(self, path, batch_size=256, size=224, *, train=True,
                 seed=0, rank=None, world_size=None, threads=None,
                 prefetch=2, shuffle=False, drop_last=False, resize=None,
                 scale=(0.08, 1.0), ratio=(3 / 4, 4 / 3), mean=None,
                 std=None, channels_last=False, exact=False, strict=False,
                 copy=False, pin_memory=False, format=None, exif=False,
                 on_bad=None, io_requests=None, io_bytes=None,
                 order="sample", run_samples=64, run_window=16):
        from . import _check_format
        _check_format(format)
        height, width = _size(size)
        bad = _on_bad(on_bad, strict, train)
        _import_torch()
        rank, world_size = _distributed(rank, world_size)
        for name, v, lo, hi in (("batch_size", batch_size, 1, 65536),
                                ("threads", threads or 0, 0, 256),
                                ("prefetch", prefetch, 1, 64),
                                ("io_requests", io_requests or 0, 0, 1024),
                                ("io_bytes", io_bytes or 0, 0, 2**62),
                                ("run_samples", run_samples, 1, 65536),
                                ("run_window", run_window, 1, 65536),
                                ("world_size", world_size, 1, 2**31),
                                ("rank", rank, 0, world_size - 1),
                                ("seed", seed, 0, 2**64 - 1),
                                ("resize", resize or 0, 0, _MAX_SIDE)):
            _whole(name, v, lo, hi)
        if order not in ("sample", "runs"):
            raise ValueError(f"order={order!r}: 'sample' or 'runs'")
        if (mean is None) != (std is None):
            raise ValueError("mean and std go together")
        norm = {} if mean is None else {"mean": _three("mean", mean),
                                        "std": _three("std", std)}
        self.batch_size, self.size = batch_size, (height, width)
        self.channels_last, self.copy = channels_last, copy
        self._ring = self._make_ring(prefetch + 1, batch_size, height,
                                     width, bool(norm),
                                     bool(pin_memory and torch and
                                          torch.cuda.is_available()))
        images, labels = self._ring
        self._c = _bale.Loader(
            os.fspath(path), [self._address(a) for a in images],
            [self._address(a) for a in labels], self._ring,
            batch_size=batch_size, width=width, height=height,
            train=bool(train), resize=int(resize or 0),
            scale_lo=float(scale[0]), scale_hi=float(scale[1]),
            ratio_lo=float(ratio[0]), ratio_hi=float(ratio[1]),
            shuffle=bool(shuffle), seed=seed, rank=rank,
            world_size=world_size, drop_last=bool(drop_last),
            threads=threads or 0, prefetch=prefetch,
            channels_last=bool(channels_last), exact=bool(exact),
            format=format, exif=bool(exif), on_bad=bad,
            io_requests=io_requests or 0, io_bytes=io_bytes or 0,
            run_samples=run_samples if order == "runs" else 0,
            run_window=run_window, **norm)
        self._on_bad = "raise" if strict else on_bad
        self.epoch, self._start = 0, 0
        self._done = 0

    # ---- the ring ----------------------------------------------------

    def _make_ring(self, n, batch, h, w, floats, pin):
        shape = (batch, h, w, 3) if self.channels_last else (batch, 3, h, w)
        if not torch:
            try:
                import numpy
            except ImportError:
                raise ImportError("bale.Loader needs numpy (Debian: "
                                  "python3-numpy), or torch") from None
            kind = numpy.float32 if floats else numpy.uint8
            return ([numpy.zeros(shape, kind) for _ in range(n)],
                    [numpy.zeros(batch, numpy.int64) for _ in range(n)])
        kind = torch.float32 if floats else torch.uint8
        return ([torch.zeros(shape, dtype=kind, pin_memory=pin)
                 for _ in range(n)],
                [torch.zeros(batch, dtype=torch.int64, pin_memory=pin)
                 for _ in range(n)])

    @staticmethod
    def _address(a):
        return a.data_ptr() if torch else a.ctypes.data

    # ---- epochs and batches -------------------------------------------

    def __len__(self):
        """Batches per epoch (this rank's)."""
        return self._c.counts()[0]

    def set_epoch(self, epoch):
        """Start epoch @epoch at its first batch (call before iterating)."""
        self.epoch, self._start = int(epoch), 0

    def __iter__(self):
        self._c.seek(self.epoch, self._start)
        self._done = self._start
        while True:
            got = self._c.next()
            if got is None:
                break
            slot, n, index = got
            self._done = index + 1
            images = self._ring[0][slot][:n]
            labels = self._ring[1][slot][:n]
            if self.copy:
                images = images.clone() if torch else images.copy()
            if self.copy:
                labels = labels.clone() if torch else labels.copy()
            yield images, labels
        self._start = 0
        self._warn_bad()

    def _warn_bad(self):
        """One warning for the epoch just done, when it met bad samples
        (with on_bad='raise' it raised instead)."""
        n = self._c.counts()[3]
        if not n:
            return
        did = "were left out" if self._on_bad == "skip" else \
            "were replaced by the next samples of the order"
        warnings.warn(f"epoch {self.epoch}: {n} sample{'s' * (n > 1)} did "
                      f"not decode and {did} (Loader.bad_samples lists "
                      "them)", BadSampleWarning, stacklevel=3)

    def state_dict(self):
        """Where the loader is: the epoch and the batches done in it."""
        return {"epoch": self.epoch, "batch": self._done}

    def load_state_dict(self, state):
        """Carry on from a state_dict(): the next iteration gives the
        batches after it, as the uninterrupted run would have."""
        try:
            epoch, batch = state["epoch"], state["batch"]
        except (TypeError, KeyError):
            raise ValueError(f"{state!r}: a state_dict() of a Loader, with "
                             "'epoch' and 'batch'") from None
        _whole("epoch", epoch, 0, 2**63 - 1)
        _whole("batch", batch, 0, len(self))
        self.epoch, self._start = epoch, batch

    @property
    def bad_samples(self):
        """[(sample index, why)]: the samples that did not decode, each
        once (the first 1000)."""
        return self._c.bad()

    def close(self):
        """Stop the threads; the batches handed out stay readable."""
        self._c.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
