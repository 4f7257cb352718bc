"""ShardStream over a large WebDataset output: the time to make it in the
parent, and each forked DataLoader worker's own memory (smaps_rollup
Private_Dirty, as bench/scale_read.py counts it) after it streamed K
samples of its shards, minus what it had when it started.

    PYTHONPATH=build/python python3 bench/scale_shards.py OUT/NAME-shards.json
        [WORKERS [K [SHUFFLE]]]

One JSON line on stdout."""
import json
import os
import sys
import tempfile
import time

import torch.utils.data as tud

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scale_read import anon_kib  # noqa: E402
from bale.torch import ShardStream  # noqa: E402

PREFIX = "scale_shards_worker_"


class FirstK(tud.IterableDataset):
    """The first @k samples a worker streams, then its memory noted."""

    def __init__(self, stream, k):
        self.stream = stream
        self.k = k

    def __iter__(self):
        base = anon_kib(os.getpid())
        n = 0
        for _image, _label in self.stream:
            n += 1
            if n == self.k:
                break
            yield n
        path = os.path.join(tempfile.gettempdir(), f"{PREFIX}{os.getpid()}")
        with open(path, "w") as f:
            f.write(f"{anon_kib(os.getpid()) - base}\n")


def main():
    urls = sys.argv[1]
    workers = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    k = int(sys.argv[3]) if len(sys.argv) > 3 else 20000
    shuffle = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    t0 = time.perf_counter()
    stream = ShardStream(urls, shuffle=shuffle, decode="raw")
    made = time.perf_counter() - t0
    loader = tud.DataLoader(FirstK(stream, k), batch_size=None,
                            num_workers=workers)
    t0 = time.perf_counter()
    streamed = sum(1 for _ in loader)
    took = time.perf_counter() - t0
    tmp = tempfile.gettempdir()
    added = []
    for name in os.listdir(tmp):
        if name.startswith(PREFIX):
            with open(os.path.join(tmp, name)) as f:
                added.append(int(f.read()))
            os.unlink(os.path.join(tmp, name))
    print(json.dumps({"what": "ShardStream", "shuffle": shuffle,
                      "shards": len(stream.shards),
                      "samples": sum(stream._counts), "make_s": made,
                      "workers": workers, "streamed": streamed,
                      "stream_s": took,
                      "worker_anon_kib": sorted(added)}))


if __name__ == "__main__":
    main()
