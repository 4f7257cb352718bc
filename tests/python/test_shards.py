"""bale.torch.ShardStream: every sample exactly once per epoch across
DataLoader workers and distributed ranks, seeded shuffles, and WebDatasets
bale did not write."""
import collections
import io
import os
import tarfile
import zlib

import common

common.need_torch()

from torch.utils.data import DataLoader  # noqa: E402

import bale  # noqa: E402
from bale.torch import ShardStream  # noqa: E402


def epoch(urls, ranks, workers, shuffle=0, seed=0, ep=0):
    """[(crc32 of the bytes, label)] every rank's loader yields, and the
    order each rank saw."""
    seen, orders = [], []
    for rank in range(ranks):
        stream = ShardStream(urls, shuffle=shuffle, seed=seed, decode="raw",
                             rank=rank, world_size=ranks)
        stream.set_epoch(ep)
        dl = DataLoader(stream, batch_size=None, num_workers=workers)
        got = [(zlib.crc32(data), label) for data, label in dl]
        seen += got
        orders.append(got)
    return seen, orders


def add_member(tar, name, data):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


class ShardTest(common.TempTest):

    def setUp(self):
        super().setUp()
        if not common.built("wds"):
            self.skipTest("needs format wds")
        self.src = os.path.join(self.tmp, "in")
        common.mkdata("random", self.src, "-n", "90", "--classes", "5",
                      "--min", "16", "--max", "40")
        self.many = common.pack(self.src, f"{self.tmp}/many", "wds",
                                "--shard-count", "7")    # 13 shards
        self.few = common.pack(self.src, f"{self.tmp}/few", "wds",
                               "--shard-count", "50")    # 2 shards
        r = bale.open(self.many)
        self.want = collections.Counter((zlib.crc32(s.data), s.label)
                                        for s in r)
        self.assertEqual(sum(self.want.values()), 90)

    def test_exactly_once(self):
        """2 workers x 3 ranks: each sample once, with many shards (whole
        shards per worker) and with fewer shards than workers."""
        for urls in (self.many, self.few):
            for shuffle in (0, 20):
                with self.subTest(urls=urls, shuffle=shuffle):
                    seen, orders = epoch(urls, 3, 2, shuffle=shuffle)
                    self.assertEqual(collections.Counter(seen), self.want)
                    self.assertTrue(all(orders), "a rank got nothing")

    def test_in_order_without_shuffle(self):
        seen, _ = epoch(self.many, 1, 0)
        r = bale.open(self.many)
        self.assertEqual(seen, [(zlib.crc32(s.data), s.label) for s in r])

    def test_seeded_shuffle(self):
        a, _ = epoch(self.many, 2, 2, shuffle=10, seed=1)
        b, _ = epoch(self.many, 2, 2, shuffle=10, seed=1)
        c, _ = epoch(self.many, 2, 2, shuffle=10, seed=1, ep=1)
        d, _ = epoch(self.many, 2, 2, shuffle=10, seed=2)
        self.assertEqual(a, b)
        self.assertNotEqual(a, c)
        self.assertNotEqual(a, d)
        self.assertEqual(collections.Counter(c), self.want)

    def test_shard_sources(self):
        """A shard list, the folder, a brace pattern and a list of paths
        all name the same shards."""
        folder = os.path.dirname(self.many)
        tars = sorted(f"{folder}/{n}" for n in os.listdir(folder)
                      if n.endswith(".tar"))
        pattern = f"{folder}/data-{{000000..{len(tars) - 1:06d}}}.tar"
        want, _ = epoch(self.many, 1, 0)
        for urls in (folder, pattern, tars):
            self.assertEqual(epoch(urls, 1, 0)[0], want)
        with self.assertRaises(bale.NotFoundError):
            ShardStream(f"{folder}/data-{{000000..000099}}.tar")

    def test_no_shard_and_len(self):
        """A folder (or a list) without a shard is an error, not an empty
        epoch; len() is the samples the shard list or the .idx files
        record, and a TypeError that says why for shards without them."""
        empty = f"{self.tmp}/empty"
        os.mkdir(empty)
        with self.assertRaisesRegex(bale.NotFoundError, "no shard"):
            ShardStream(empty)
        with self.assertRaisesRegex(bale.NotFoundError, "no shard"):
            ShardStream([])
        folder = os.path.dirname(self.many)
        for urls in (self.many, folder, f"{folder}/data-{{000000..000012}}.tar"):
            self.assertEqual(len(ShardStream(urls)), 90)
        self.assertEqual(len(ShardStream([self.many, self.few])), 180)
        path = f"{self.tmp}/foreign-0.tar"
        with tarfile.open(path, "w") as tar:
            add_member(tar, "a.jpg", b"x")
        with self.assertRaisesRegex(TypeError, "records no sample count"):
            len(ShardStream(path))
        dl = DataLoader(ShardStream(self.few, decode="raw"), batch_size=10)
        self.assertEqual(len(dl), 9)

    def test_foreign_webdataset(self):
        """Shards written with tarfile, as other tools write them: nested
        keys, .jpeg/.png, labels in .cls or .json, extra members, no
        .idx, a directory entry."""
        samples = []
        path = f"{self.tmp}/foreign-0.tar"
        with tarfile.open(path, "w") as tar:
            folder = tarfile.TarInfo("train/")
            folder.type = tarfile.DIRTYPE
            tar.addfile(folder)
            for i, (p, label) in enumerate(common.image_folder(self.src)):
                with open(p, "rb") as f:
                    data = f.read()
                key = f"train/part.{i % 3}/s{i:04d}"   # dots in folders
                ext = ("jpeg", "png", "JPG")[i % 3]
                add_member(tar, f"{key}.txt", b"a caption")
                add_member(tar, f"{key}.{ext}", data)
                if i % 2:
                    add_member(tar, f"{key}.cls", b"%d\n" % label)
                else:
                    add_member(tar, f"{key}.json", b'{"label": %d}' % label)
                samples.append((zlib.crc32(data), label))
        seen, _ = epoch(path, 1, 0)
        self.assertEqual(seen, samples)

    def test_decode_failure_names_the_sample(self):
        path = f"{self.tmp}/bad-0.tar"
        with tarfile.open(path, "w") as tar:
            add_member(tar, "s0001.jpg", b"\xff\xd8\xff\xe0 cut short")
            add_member(tar, "s0001.cls", b"3")
        with self.assertRaisesRegex(bale.Error, "sample 's0001' of shard "
                                    ".*bad-0.tar' does not decode"):
            next(iter(ShardStream(path)))

    def test_damaged_shard(self):
        folder = os.path.dirname(self.few)
        first = f"{folder}/data-000000.tar"
        with open(first, "r+b") as f:
            f.truncate(os.path.getsize(first) // 2 + 100)
        with self.assertRaisesRegex(bale.Error, "data-000000.tar"):
            epoch(self.few, 1, 0)
        with open(first, "r+b") as f:
            f.seek(0)
            f.write(b"\xff" * 512)     # the first header is garbage
        with self.assertRaisesRegex(bale.Error, "data-000000.tar"):
            epoch(self.few, 1, 0)


if __name__ == "__main__":
    common.main()
