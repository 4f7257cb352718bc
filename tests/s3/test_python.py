"""bale's Python readers on S3: an output uploaded with boto3 (a second
client besides s3cmd) opens with bale.open by prefix and by shard list
and reads exactly as the local one; bale.Loader gives byte-identical
batches for two thread counts, after load_state_dict and per rank;
ImageDataset reads it; errors are bale.Error / NotFoundError with the
store's words. bale.pack writes into a bucket and reads one."""
import os
import subprocess
import sys
import uuid
import zlib

sys.path.insert(0, os.path.join(os.environ["TESTS"], "python"))
import common  # noqa: E402

S3 = os.environ.get("BALE_TEST_S3", "")
if not S3.startswith("http"):
    print("skipped: no S3 gateway (scripts/test starts one)" if not S3
          else f"the suite's S3 gateway did not start: {S3}")
    sys.exit(77 if not S3 else 1)
common.need_torch()
if not common.built("wds"):
    print("skipped: needs format wds")
    sys.exit(77)

import boto3  # noqa: E402
import numpy  # noqa: E402
import torch  # noqa: E402

import bale  # noqa: E402
import bale.torch  # noqa: E402

os.environ.update(AWS_ENDPOINT_URL=S3, AWS_ACCESS_KEY_ID="AKTEST",
                  AWS_SECRET_ACCESS_KEY="SKTEST", AWS_REGION="us-east-1")
for var in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_DEFAULT_REGION"):
    os.environ.pop(var, None)


digests = common.loader_digests


class S3ReadTest(common.TempTest):

    @classmethod
    def setUpClass(cls):
        cls.s3 = boto3.client("s3", endpoint_url=S3)
        cls.bucket = f"bale-py-{uuid.uuid4().hex[:12]}"
        cls.s3.create_bucket(Bucket=cls.bucket)

    @classmethod
    def tearDownClass(cls):
        listing = cls.s3.list_objects_v2(Bucket=cls.bucket)
        for o in listing.get("Contents", []):
            cls.s3.delete_object(Bucket=cls.bucket, Key=o["Key"])
        cls.s3.delete_bucket(Bucket=cls.bucket)

    def setUp(self):
        super().setUp()
        src = os.path.join(self.tmp, "in")
        common.mkdata("random", src, "-n", "90", "--classes", "3",
                      "--min", "24", "--max", "80")
        self.local = common.pack(src, f"{self.tmp}/out", "wds",
                                 "--shard-count", "20")
        self.prefix = f"t-{uuid.uuid4().hex[:8]}/out"
        self.h5 = None
        if common.built("hdf5"):
            self.h5 = common.pack(src, f"{self.tmp}/h5", "hdf5")
            self.s3.upload_file(self.h5, self.bucket, f"{self.prefix}/h5/"
                                "data.h5")
            self.s3.upload_file(self.h5 + ".bidx", self.bucket,
                                f"{self.prefix}/h5/data.h5.bidx")
        for name in sorted(os.listdir(f"{self.tmp}/out")):
            self.s3.upload_file(f"{self.tmp}/out/{name}", self.bucket,
                                f"{self.prefix}/{name}")
        self.url = f"s3://{self.bucket}/{self.prefix}/"

    def test_reads_as_local(self):
        local = bale.open(self.local)
        for name in (self.url, self.url + "data-shards.json"):
            with self.subTest(name=name):
                remote = bale.open(name)
                self.assertEqual(len(local), len(remote))
                for i in range(len(local)):
                    self.assertEqual(local[i], remote[i])

    def test_loader_batches_identical(self):
        kw = dict(batch_size=16, size=32, train=True, shuffle=True, seed=5)
        want = digests(bale.Loader(self.local, threads=1, **kw))
        for threads in (1, 3):
            with self.subTest(threads=threads):
                got = digests(bale.Loader(self.url, threads=threads, **kw))
                self.assertEqual(want, got)
        # resumed mid-epoch, and one rank of two
        local = bale.Loader(self.local, threads=2, **kw)
        it = iter(local)
        next(it)
        state = local.state_dict()
        rest = [zlib.crc32(x.numpy().tobytes()) for x, _ in it]
        remote = bale.Loader(self.url, threads=2, **kw)
        remote.load_state_dict(state)
        self.assertEqual(rest, [zlib.crc32(x.numpy().tobytes())
                                for x, _ in remote])
        for rank in (0, 1):
            a = bale.Loader(self.local, rank=rank, world_size=2, **kw)
            b = bale.Loader(self.url, rank=rank, world_size=2, **kw)
            self.assertEqual(digests(a, (0,)), digests(b, (0,)))

    def test_loader_through_faults(self):
        """Dropped connections and SlowDown answers under the Loader's
        GETs in flight: retried, the batches unchanged."""
        kw = dict(batch_size=16, size=32, train=True, seed=3)
        want = digests(bale.Loader(self.local, threads=2, **kw))
        proxy = subprocess.Popen(
            [sys.executable, os.path.join(os.environ["TESTS"], "s3",
                                          "fault_proxy.py"),
             S3.rsplit(":", 1)[1], "--drop-every", "7",
             "--slowdown-every", "5"], stdout=subprocess.PIPE, text=True)
        try:
            port = proxy.stdout.readline().strip()
            os.environ["AWS_ENDPOINT_URL"] = f"http://127.0.0.1:{port}"
            got = digests(bale.Loader(self.url, threads=2, io_requests=8,
                                      **kw))
        finally:
            os.environ["AWS_ENDPOINT_URL"] = S3
            proxy.kill()
            proxy.wait()
        self.assertEqual(want, got)

    def test_loader_requests(self):
        """One GET a sample, the index's aside; the bytes of the samples
        and their members, no more."""
        loader = bale.Loader(self.url, batch_size=16, size=32, threads=2)
        before = bale._bale.store_counts()[0]
        n = sum(x.shape[0] for x, _ in loader)
        after = bale._bale.store_counts()[0]
        self.assertEqual(n, 90)
        self.assertLessEqual(after - before, n)

    def test_run_order(self):
        """order='runs': the batches of the same output on disk, for any
        thread count; a GET a run (two where a run crosses a shard), not
        one a sample."""
        kw = dict(batch_size=16, size=32, train=True, seed=9,
                  order="runs", run_samples=8, run_window=3)
        want = digests(bale.Loader(self.local, threads=1, **kw))
        self.assertNotEqual(want, digests(bale.Loader(
            self.local, threads=1, **dict(kw, order="sample"))))
        for threads in (1, 3):
            loader = bale.Loader(self.url, threads=threads, **kw)
            before = bale._bale.store_counts()[0]
            got = digests(loader)
            after = bale._bale.store_counts()[0]
            self.assertEqual(want, got)
            runs = -(-90 // 8)
            self.assertLessEqual(after - before, 2 * 2 * runs)  # 2 epochs

    def test_hdf5(self):
        """An HDF5 output through bale's HDF5 driver: bale.open and the
        Loader as on disk, the Loader's GETs sent ahead (one a sample,
        one a run in the run order)."""
        if not self.h5:
            self.skipTest("needs format hdf5")
        url = self.url + "h5/data.h5"
        local, remote = bale.open(self.h5), bale.open(url)
        self.assertEqual([local[i] for i in range(90)],
                         [remote[i] for i in range(90)])
        for order, most in (("sample", 90), ("runs", 12)):
            kw = dict(batch_size=16, size=32, seed=4, order=order,
                      run_samples=8)
            want = digests(bale.Loader(self.h5, **kw), (0,))
            loader = bale.Loader(url, threads=2, **kw)
            before = bale._bale.store_counts()[0]
            got = digests(loader, (0,))
            after = bale._bale.store_counts()[0]
            self.assertEqual(want, got)
            self.assertLessEqual(after - before, most, order)

    def test_loader_bad_samples(self):
        """Samples whose GETs keep failing go through the Loader's
        bad-sample rules: skipped and listed with the store's words (a
        server that answers one shard's reads with 503, tried once),
        the other samples all there."""
        server = subprocess.Popen(
            [sys.executable, os.path.join(os.environ["TESTS"], "s3",
                                          "hostile_http.py"),
             f"{self.tmp}/out", "html-503", "--only", "data-000002.tar"],
            stdout=subprocess.PIPE, text=True)
        os.environ["AWS_MAX_ATTEMPTS"] = "1"
        try:
            port = server.stdout.readline().strip()
            loader = bale.Loader(f"http://127.0.0.1:{port}/"
                                 "data-shards.json", batch_size=16,
                                 size=32, threads=2, on_bad="skip")
            with self.assertWarns(bale.BadSampleWarning):
                n = sum(x.shape[0] for x, _ in loader)
        finally:
            del os.environ["AWS_MAX_ATTEMPTS"]
            server.kill()
            server.wait()
        self.assertEqual(n, 70)     # the 20 of data-000002.tar left out
        bad = loader.bad_samples
        self.assertEqual(sorted(i for i, _ in bad), list(range(40, 60)))
        self.assertIn("status 503", bad[0][1])

    def test_image_dataset(self):
        local = bale.torch.ImageDataset(self.local)
        remote = bale.torch.ImageDataset(self.url)
        self.assertEqual(len(local), len(remote))
        for i in (0, 44, 89):
            a, b = local[i], remote[i]
            self.assertEqual(a[1], b[1])
            self.assertEqual(numpy.array(a[0]).tobytes(),
                             numpy.array(b[0]).tobytes())

    def test_shard_stream(self):
        """ShardStream over the shard list, the prefix and a brace
        pattern of s3:// shards, split across two DataLoader workers:
        every sample once, the bytes and labels of the local shards."""
        def epoch(urls):
            stream = bale.torch.ShardStream(urls, decode="raw")
            dl = torch.utils.data.DataLoader(stream, batch_size=None,
                                             num_workers=2)
            return sorted((zlib.crc32(d), label) for d, label in dl)
        want = epoch(self.local)
        self.assertEqual(len(want), 90)
        for urls in (self.url + "data-shards.json", self.url,
                     self.url + "data-{000000..000004}.tar"):
            with self.subTest(urls=urls):
                self.assertEqual(want, epoch(urls))

    def test_dataset_in_forked_workers(self):
        """ImageDataset in a DataLoader of forked workers: each worker
        reads with connections of its own (none of its parent's)."""
        import torchvision.transforms as T
        tf = T.Compose([T.Resize((16, 16)), T.PILToTensor()])
        local = bale.torch.ImageDataset(self.local, transform=tf)
        remote = bale.torch.ImageDataset(self.url, transform=tf)
        remote[0]       # the parent reads first: its connection exists
        def batches(ds):
            dl = torch.utils.data.DataLoader(ds, batch_size=10,
                                             num_workers=2)
            return [(x.numpy().tobytes(), y.tolist()) for x, y in dl]
        self.assertEqual(batches(local), batches(remote))

    def test_pack_into_and_from_the_bucket(self):
        """bale.pack writes into the bucket (the upload's bounds taken
        and checked) and reads a bucket of objects: the same samples."""
        src = os.path.join(self.tmp, "in")
        out = f"s3://{self.bucket}/{self.prefix}/packed/"
        report = bale.pack(src, out, "wds", upload_part=5 << 20, uploads=2)
        self.assertEqual(report["packed"], 90)
        local, remote = bale.open(self.local), bale.open(out)
        self.assertEqual([local[i] for i in range(len(local))],
                         [remote[i] for i in range(len(remote))])
        for name in sorted(os.listdir(src)):
            for f in sorted(os.listdir(os.path.join(src, name))):
                self.s3.upload_file(os.path.join(src, name, f), self.bucket,
                                    f"{self.prefix}/train/{name}/{f}")
        back = os.path.join(self.tmp, "back")
        bale.pack(f"s3://{self.bucket}/{self.prefix}/train/", back, "wds",
                  options={"wds.shard_count": 20})
        for f in sorted(os.listdir(f"{self.tmp}/out")):
            if f.endswith("-made.json"):
                continue
            with open(f"{self.tmp}/out/{f}", "rb") as a, \
                    open(f"{back}/{f}", "rb") as b:
                self.assertEqual(a.read(), b.read(), f)
        for bad in (dict(upload_part=1 << 20), dict(uploads=65)):
            with self.subTest(**bad), self.assertRaises(bale.UsageError):
                bale.pack(src, out, "wds", replace=True, **bad)

    def test_errors(self):
        with self.assertRaises(bale.NotFoundError):
            bale.open(f"s3://{self.bucket}/no-such-prefix/")
        os.environ["AWS_SECRET_ACCESS_KEY"] = "wrong"
        try:
            with self.assertRaisesRegex(bale.Error, "refused key id AKTEST"):
                bale.open(self.url + "data-shards.json")
        finally:
            os.environ["AWS_SECRET_ACCESS_KEY"] = "SKTEST"


if __name__ == "__main__":
    common.unittest.main()
