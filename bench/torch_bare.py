"""The bare reader: a Python loop of r[i] over a random order, every
byte checksummed with zlib.crc32, against C `bale bench` on the same
output, order and thread count (its threads also checksum every byte).

Beside them, for the wds output, a Python loop of os.pread over the
shards' image members: what any Python reader pays per sample (a new
bytes object and a GIL round trip), with nothing of bale's in it.

Each run measures the three one after the other, so a slow spell of the
machine (a shared VM) hits all of them, and the ratios are per run. One
thread runs pinned to CPU 0 for all three: on the bench VM one vCPU is
a third slower than the other, and an unpinned thread lands on either.
"""
import json
import os
import random
import subprocess
import tarfile
import threading
import time
import zlib

OUTPUTS = {"wds": "data-shards.json", "lmdb": "data.lmdb",
           "hdf5": "data.h5"}


ALL_CPUS = os.sched_getaffinity(0)


def cpus(threads):
    """The CPUs a run on @threads threads may use."""
    return {0} if threads == 1 else ALL_CPUS


def threaded(work, order, threads):
    """Samples/s of work(part) over @order split among @threads
    threads (which inherit this thread's CPUs)."""
    parts = [order[t::threads] for t in range(threads)]
    pool = [threading.Thread(target=work, args=(p,)) for p in parts]
    os.sched_setaffinity(0, cpus(threads))
    t0 = time.perf_counter()
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    rate = len(order) / (time.perf_counter() - t0)
    os.sched_setaffinity(0, ALL_CPUS)
    return rate


def reader_loop(reader):
    """The loop as a user writes it."""
    def work(part):
        for i in part:
            zlib.crc32(reader[i].data)
    return work


def pread_loop(preads):
    def work(part):
        for i in part:
            zlib.crc32(os.pread(*preads[i]))
    return work


def c_bench(bale, tree, output, threads, samples, seed):
    """C bale bench's samples/s for @output (warm, one run) on @threads
    threads."""
    tmp = f"/tmp/bale-bench-{os.getpid()}.json"
    subprocess.run([bale, "bench", output, "--against", tree, "-t",
                    str(threads), "-k", str(samples), "--seed", str(seed),
                    "-r", "1", "--json", tmp], check=True,
                   stdout=subprocess.DEVNULL,
                   preexec_fn=lambda: os.sched_setaffinity(0, cpus(threads)))
    with open(tmp) as f:
        result = json.load(f)
    os.unlink(tmp)
    return [row["median_samples_per_s"] for row in result["results"]
            if row["target"] != "folder" and
            not row["target"].endswith("-map")][0]  # not lmdb's map=1


def shard_preads(reader):
    """os.pread arguments (fd, size, offset) of each wds sample's image
    member, in sample order, checked against the reader's sizes."""
    shards = sorted(f for f in reader.files() if f.endswith(".tar"))
    images = []
    for path in shards:
        fd = os.open(path, os.O_RDONLY)
        with tarfile.open(path) as t:
            members = t.getmembers()
        images += [(fd, m.size, m.offset_data) for m in members
                   if m.name.rsplit(".", 1)[-1] not in ("cls", "json")]
    assert len(images) == len(reader)
    for i in range(0, len(reader), max(1, len(reader) // 50)):
        assert images[i][1] == len(reader[i].data), i
    return images


def run(args, log):
    import bale
    for fmt, name in OUTPUTS.items():
        path = f"{args.out}/pass/{name}"
        reader = bale.open(path, meta=False)
        order = list(range(len(reader)))
        random.Random(args.seed).shuffle(order)
        order = order[:args.samples]
        preads = shard_preads(reader) if fmt == "wds" else None
        threaded(reader_loop(reader), order, 1)     # warm the cache
        for n in range(args.runs):
            for threads in (1, 2):
                row = dict(kind="bare_run", format=fmt, threads=threads,
                           run=n, c=c_bench(args.bale, args.tree, path,
                                            threads, args.samples,
                                            args.seed),
                           python=threaded(reader_loop(reader), order,
                                           threads))
                if preads:
                    row["pread"] = threaded(pread_loop(preads), order,
                                            threads)
                log.write(json.dumps(row) + "\n")
                log.flush()
