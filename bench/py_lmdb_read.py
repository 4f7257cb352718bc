#!/usr/bin/python3
"""Random reads of a bale LMDB output with Python's lmdb, the usual way.

Usage: py_lmdb_read.py OUT.lmdb [-k K] [--seed S] [--runs R]

Reads the same sample keys in the same seeded order as `bale bench`
(bale's splitmix64 Fisher-Yates, reimplemented here), K.image through the
memory map, consuming every byte (zlib.crc32), with readahead on and off,
warm (after an untimed pass) and cold (environment closed, data.mdb
dropped from the page cache with posix_fadvise, reopened, as bale bench
does). Prints median samples/s.
"""
import argparse
import os
import statistics
import time
import zlib

import lmdb

M64 = (1 << 64) - 1


def splitmix(state):
    state = (state + 0x9E3779B97F4A7C15) & M64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return state, z ^ (z >> 31)


def bale_shuffle(n, seed):
    """The permutation src/shuffle.c makes (Fisher-Yates over splitmix64)."""
    perm, state = list(range(n)), seed
    for i in range(n, 1, -1):
        limit = M64 - M64 % i
        while True:
            state, r = splitmix(state)
            if r < limit:
                break
        j = r % i
        perm[i - 1], perm[j] = perm[j], perm[i - 1]
    return perm


def evict(path):
    fd = os.open(path, os.O_RDONLY)
    os.fdatasync(fd)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)


def one_run(env, keys):
    t0 = time.perf_counter()
    digest = 0
    with env.begin(buffers=True) as txn:
        for k in keys:
            digest ^= zlib.crc32(txn.get(k))
    return len(keys) / (time.perf_counter() - t0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("-k", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--readahead", choices=("on", "off", "both"),
                    default="both")
    a = ap.parse_args()
    data = os.path.join(a.out, "data.mdb")
    for readahead in {"on": (True,), "off": (False,),
                      "both": (True, False)}[a.readahead]:
        env = lmdb.open(a.out, readonly=True, lock=False,
                        readahead=readahead)
        with env.begin() as txn:
            keys = txn.get(b"__keys__").split()
        order = bale_shuffle(len(keys), a.seed)[:a.k]
        wanted = [keys[i] + b".image" for i in order]
        one_run(env, wanted)                      # warm-up pass
        warm = [one_run(env, wanted) for _ in range(a.runs)]
        cold = []
        for _ in range(a.runs):
            # a mapped page cannot be evicted: close, evict, reopen
            env.close()
            evict(data)
            env = lmdb.open(a.out, readonly=True, lock=False,
                            readahead=readahead)
            cold.append(one_run(env, wanted))
        print(f"python lmdb readahead={'on ' if readahead else 'off'}: "
              f"warm {statistics.median(warm):8.0f} samples/s, "
              f"cold {statistics.median(cold):8.0f} samples/s")
        env.close()


if __name__ == "__main__":
    main()
