"""Readers across threads and processes: threads share one Reader or take
one each; a Reader opened in a parent is used in forked children, which
open handles of their own (LMDB's included: never the parent's
environment); Readers and Datasets pickle, so spawn and forkserver work."""
import multiprocessing
import os
import pickle
import random
import threading
import zlib

import common

import bale

READER = None   # the reader forked children use, opened by the parent


def digest(reader, order):
    return [(zlib.crc32(reader[i].data), reader[i].label) for i in order]


def data_file_fds(path):
    """This process's file descriptors open on LMDB output @path's data."""
    data = os.path.realpath(os.path.join(path, "data.mdb"))
    fds = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}") == data:
                fds.add(int(fd))
        except OSError:
            pass
    return fds


def forked_child(order):
    """In a forked child: read with the parent's Reader."""
    usable = READER._handle_pids()     # what the next read may use
    if any(pid != os.getpid() for pid in usable):
        return "the child would read with the parent's handles", usable
    got = digest(READER, order)
    fds = data_file_fds(READER.path) if READER.format == "lmdb" else set()
    return os.getpid(), READER._handle_pids(), got, fds


def pickled_child(blob):
    reader = pickle.loads(blob)
    return digest(reader, range(len(reader)))


class ProcessTest(common.TempTest):

    def setUp(self):
        super().setUp()
        _, outputs = common.random_outputs(self, 60, 4, 48)
        self.outputs = list(outputs.values())

    def test_threads(self):
        """Four threads on one Reader, and four with one each, read what
        one thread reads (the C handles are pooled, the GIL released)."""
        for out in self.outputs:
            with self.subTest(output=out):
                shared = bale.open(out)
                want = digest(shared, range(len(shared)))
                results = {}

                def work(n, reader):
                    order = list(range(len(reader)))
                    random.Random(n).shuffle(order)
                    got = dict(zip(order, digest(reader, order)))
                    results[n] = [got[i] for i in range(len(reader))]
                threads = [threading.Thread(target=work, args=(n, shared))
                           for n in range(4)]
                threads += [threading.Thread(target=work,
                                             args=(n, bale.open(out)))
                            for n in range(4, 8)]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
                self.assertEqual(len(results), 8)
                for got in results.values():
                    self.assertEqual(got, want)
                # the shared reader grew a handle per concurrent thread
                self.assertGreaterEqual(len(shared._handle_pids()), 1)

    def test_fork(self):
        global READER
        for out in self.outputs:
            with self.subTest(output=out):
                READER = bale.open(out)
                order = list(range(len(READER)))
                want = digest(READER, order)     # the parent has handles
                parent_pids = READER._handle_pids()
                parent_fds = data_file_fds(READER.path) \
                    if READER.format == "lmdb" else set()
                self.assertEqual(set(parent_pids), {os.getpid()})
                ctx = multiprocessing.get_context("fork")
                with ctx.Pool(2) as pool:
                    results = pool.map(forked_child, [order] * 4)
                for result in results:
                    self.assertEqual(len(result), 4, result)
                    pid, handle_pids, got, fds = result
                    self.assertEqual(got, want)
                    # the child read with handles it opened itself
                    self.assertNotEqual(pid, os.getpid())
                    self.assertTrue(handle_pids)
                    self.assertEqual(set(handle_pids), {pid})
                    if READER.format == "lmdb":
                        # its own environment, not the parent's
                        self.assertTrue(fds - parent_fds, "the child used "
                                        "the parent's LMDB environment")
                # and the parent's reader still works
                self.assertEqual(digest(READER, order), want)
                self.assertEqual(READER._handle_pids(), parent_pids)

    def test_pickle_spawn_forkserver(self):
        for out in self.outputs:
            reader = bale.open(out)
            want = digest(reader, range(len(reader)))
            again = pickle.loads(pickle.dumps(reader))
            self.assertEqual(digest(again, range(len(again))), want)
            for method in ("spawn", "forkserver"):
                with self.subTest(output=out, method=method):
                    ctx = multiprocessing.get_context(method)
                    with ctx.Pool(1) as pool:
                        got = pool.map(pickled_child, [pickle.dumps(reader)])
                    self.assertEqual(got, [want])


if __name__ == "__main__":
    common.main()
