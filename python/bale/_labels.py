"""Labels: every sample's label as a sequence read from the output's
index as it is asked for, not a list of Python ints. A DataLoader worker
forked from the process that made it shares the index's pages through
the page cache and holds no per-sample memory of its own."""
import array
import collections.abc
import operator

_CHUNK = 1 << 16


class Labels(collections.abc.Sequence):
    """len(labels), labels[i] (negative from the end), labels[a:b] (a
    list), iteration, == with any sequence, numpy.asarray(labels) (int64,
    read in one call) and torch.as_tensor(numpy.asarray(labels))."""

    def __init__(self, reader):
        self._reader = reader

    def __len__(self):
        return len(self._reader)

    def _read(self, first, n):
        buf = array.array("q", bytes(8 * n))
        if n:
            self._reader._labels_into(buf, first)
        return buf

    def __getitem__(self, i):
        if isinstance(i, slice):
            start, stop, step = i.indices(len(self))
            if step == 1:
                return self._read(start, max(0, stop - start)).tolist()
            return [self[k] for k in range(start, stop, step)]
        i = operator.index(i)
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("label index out of range")
        return self._read(i, 1)[0]

    def __iter__(self):
        n = len(self)
        for first in range(0, n, _CHUNK):
            yield from self._read(first, min(_CHUNK, n - first))

    def __array__(self, dtype=None, copy=None):
        import numpy
        out = numpy.empty(len(self), dtype=numpy.int64)
        if len(out):
            self._reader._labels_into(out, 0)
        return out if dtype is None else out.astype(dtype)

    def __eq__(self, other):
        if not isinstance(other, collections.abc.Sequence):
            return NotImplemented
        return len(self) == len(other) and all(
            a == b for a, b in zip(self, other))

    __hash__ = None

    def __repr__(self):
        return f"<bale.Labels of {len(self)} samples>"
