#!/usr/bin/python3
"""The reading side of bench/scale.sh for one output: open time, labels()
warm and cold (with the bytes the process read from the disk), and the
anonymous memory 8 forked DataLoader workers each add. Prints one JSON
line. Cold runs evict the output's files from the page cache first.

    scale_read.py OUT FORMAT [--workers 8]"""
import argparse
import json
import os
import tempfile
import time

import bale


def read_bytes():
    with open("/proc/self/io") as f:
        for line in f:
            if line.startswith("read_bytes:"):
                return int(line.split()[1])
    return 0


def evict(out):
    """Drop the output's files from the page cache (as bale bench does):
    the libraries' pages stay, so read_bytes counts the output's."""
    os.sync()
    folder = out if os.path.isdir(out) else os.path.dirname(out)
    for d, _, files in os.walk(folder):
        for name in files:
            fd = os.open(os.path.join(d, name), os.O_RDONLY)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            os.close(fd)


def timed_open(out, fmt):
    t0 = time.perf_counter()
    r = bale.open(out, format=fmt, meta=False)
    return r, time.perf_counter() - t0


def timed_labels(out, fmt, cold):
    if cold:
        evict(out)
    before = read_bytes()
    r, opened = timed_open(out, fmt)
    t0 = time.perf_counter()
    labels = r.labels()
    took = time.perf_counter() - t0
    return {"open_s": opened, "labels_s": took, "count": len(labels),
            "read_bytes": read_bytes() - before}


def anon_kib(pid):
    """Memory @pid holds for itself alone (smaps_rollup Private_Dirty):
    in a forked worker, the pages it allocated or copied on write since
    the fork; the page cache it maps (an index) is shared, not counted."""
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            if line.startswith("Private_Dirty:"):
                return int(line.split()[1])
    return 0


def worker_memory(out, fmt, workers):
    """Each forked worker's anonymous memory after it built the Dataset's
    targets and read a few samples, minus what it had at the fork."""
    import torch.utils.data as tud
    from bale.torch import ImageDataset

    ds = ImageDataset(out, format=fmt, decode="raw", transform=len)
    report = {}

    def init(_):
        report_path = os.path.join(tempfile.gettempdir(),
                                   f"scale_worker_{os.getpid()}")
        base = anon_kib(os.getpid())
        targets = ds.targets
        targets[len(targets) // 2]
        for i in range(0, len(ds), max(1, len(ds) // 64)):
            ds[i]
        with open(report_path, "w") as f:
            f.write(f"{anon_kib(os.getpid()) - base}\n")

    loader = tud.DataLoader(ds, batch_size=64, num_workers=workers,
                            worker_init_fn=init, sampler=range(64 * workers))
    for _ in loader:
        pass
    added = []
    tmp = tempfile.gettempdir()
    for name in os.listdir(tmp):
        if name.startswith("scale_worker_"):
            with open(os.path.join(tmp, name)) as f:
                added.append(int(f.read()))
            os.unlink(os.path.join(tmp, name))
    report["worker_anon_kib"] = sorted(added)
    return report


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("format")
    ap.add_argument("--workers", type=int, default=8)
    a = ap.parse_args()
    res = {"format": a.format}
    res["warm"] = timed_labels(a.out, a.format, False)
    res["warm"] = timed_labels(a.out, a.format, False)
    res["cold"] = timed_labels(a.out, a.format, True)
    if a.workers:
        res.update(worker_memory(a.out, a.format, a.workers))
    print(json.dumps(res))


if __name__ == "__main__":
    main()
