"""bale.open on every format and layout: the source's bytes, labels, paths
and order, as torchvision's ImageFolder sees the tree; indexing, errors,
--pixels arrays, folders of outputs."""
import io
import os
import shutil
import tarfile
import zlib

import common
import numpy

import bale


class ReaderTest(common.TempTest):

    def setUp(self):
        super().setUp()
        self.src = os.path.join(self.tmp, "in")
        common.mkdata("tricky", self.src)
        self.truth = common.image_folder(self.src)

    def check_samples(self, r):
        """r holds exactly the tree's samples, in ImageFolder's order."""
        self.assertEqual(len(r), len(self.truth))
        for i, (path, label) in enumerate(self.truth):
            s = r[i]
            with open(path, "rb") as f:
                self.assertEqual(s.data, f.read(), f"sample {i} ({path})")
            self.assertEqual(s.label, label, path)
            rel = os.path.relpath(path, self.src)
            if s.path is not None:      # meta=False may still give it
                self.assertEqual(s.path, rel)
            if s.crc32 is not None:
                self.assertEqual(s.crc32, zlib.crc32(s.data))

    def check_labels(self, r):
        """labels() and the bale.Labels sequence give the tree's labels,
        whichever way they are asked for."""
        want = [label for _, label in self.truth]
        seq = bale.Labels(r)
        self.assertEqual(r.labels(), want)
        self.assertEqual(len(seq), len(want))
        self.assertEqual(list(seq), want)
        self.assertTrue(seq == want)
        self.assertEqual(seq[-1], want[-1])
        self.assertEqual(seq[3:9], want[3:9])
        self.assertEqual(seq[::-5], want[::-5])
        self.assertEqual(numpy.asarray(seq).tolist(), want)
        self.assertEqual(numpy.asarray(seq).dtype, numpy.int64)
        for bad in (len(want), -len(want) - 1):
            with self.assertRaises(IndexError):
                seq[bad]
        with self.assertRaises(IndexError):
            r._labels_into(numpy.empty(2, numpy.int64), len(want) - 1)

    def test_every_layout(self):
        classes = sorted({os.path.relpath(p, self.src).split(os.sep)[0]
                          for p, _ in self.truth})

        def check(fmt, layout, out):
            r = bale.open(out)
            self.assertEqual(r.format, fmt)
            self.check_samples(r)
            self.check_samples(bale.open(out, meta=False))
            self.check_labels(bale.open(out, meta=False))
            if layout != "caffe":    # a Datum file records no names
                self.assertEqual(r.classes, classes)
        self.assertGreater(common.each_layout(self, self.src, check), 0)

    def test_compact_index(self):
        """The index beside an output gives what its data gives: every
        sample read without the metadata, and the labels, are the same
        with it and with it taken away; after a pack, parts merged (--copy
        and not) and an update."""
        for fmt, index in (("hdf5", "data.h5.bidx"),
                           ("wds", "data-000000.bidx")):
            if not common.built(fmt):
                continue
            base = f"{self.tmp}/ix-{fmt}"
            src = f"{base}/src"
            shutil.copytree(self.src, src)
            outs = {"pack": f"{base}/pack"}
            bale.pack(src, outs["pack"], fmt, update=True)
            for i in range(2):
                bale.pack(src, f"{base}/p{i}", fmt, part=(i, 2))
            for copy in (False, True):
                outs[f"merge-{copy}"] = f"{base}/m{copy}"
                bale.merge(outs[f"merge-{copy}"], [f"{base}/p0",
                           f"{base}/p1"], fmt, copy=copy)
            gone = os.path.relpath(self.truth[len(self.truth) // 2][0],
                                   self.src)
            os.unlink(os.path.join(src, gone))
            bale.pack(src, outs["pack"], fmt, update=True)
            for how, out in outs.items():
                with self.subTest(format=fmt, output=how):
                    self.assertTrue(os.path.exists(f"{out}/{index}"))
                    with_index = self.fast_read(out)
                    os.rename(f"{out}/{index}", f"{out}/{index}.away")
                    self.assertEqual(with_index, self.fast_read(out))
                    os.rename(f"{out}/{index}.away", f"{out}/{index}")

    def test_hdf5_row_windows(self):
        """With the metadata, HDF5 rows are held a window at a time while
        reads go in order: every sample, label, path and checksum comes
        back the same across windows (5 rows here), and a read that jumps
        elsewhere still gets the right sample."""
        if not common.built("hdf5"):
            self.skipTest("hdf5 not built")
        n = len(self.truth)
        for layout, flags in (("encoded", []),
                              ("vlen", ["--hdf5-layout", "vlen"])):
            with self.subTest(layout=layout):
                out = common.pack(self.src, f"{self.tmp}/w-{layout}",
                                  "hdf5", *flags)
                window = {"row_window": "5"}
                self.check_samples(bale.open(out, options=window))
                self.assertEqual(list(bale.open(out, options=window)
                                      .labels()),
                                 [label for _, label in self.truth])
                r = bale.open(out, options=window)
                for i in (0, 1, 7, 3, n - 1, 12):
                    path, label = self.truth[i]
                    with open(path, "rb") as f:
                        self.assertEqual(r[i].data, f.read())
                    self.assertEqual(r[i].label, label)
                with self.assertRaises(bale.Error):
                    bale.open(out, options={"row_window": "0"})

    def fast_read(self, out):
        r = bale.open(out, meta=False)
        return ([(s.key, s.label, bytes(s.data)) for s in r], r.labels(),
                list(bale.Labels(r)))

    def test_indexing(self):
        fmt = next(f for f, _, _ in common.LAYOUTS if common.built(f))
        r = bale.open(common.pack(self.src, f"{self.tmp}/out", fmt))
        n = len(r)
        self.assertEqual(r[-1], r[n - 1])
        self.assertEqual(r[-n], r[0])
        self.assertEqual(list(r), [r[i] for i in range(n)])
        self.assertEqual(r[2:5], [r[2], r[3], r[4]])
        self.assertEqual(r[::-7], [r[i] for i in range(n - 1, -1, -7)])
        for bad in (n, -n - 1, 2**62, -2**62):
            with self.assertRaises(IndexError):
                r[bad]
        with self.assertRaises(TypeError):
            r["3"]
        with self.assertRaises(TypeError):
            r[1.0]

    def test_raw_folder(self):
        """A folder with no output in it is the unpacked baseline."""
        r = bale.open(self.src)
        self.assertEqual(r.format, "folder")
        self.check_samples(r)

    def test_folder_of_outputs(self):
        formats = common.built_formats()
        out = f"{self.tmp}/out"
        common.pack(self.src, out, formats[0])
        self.assertEqual(bale.open(out).format, formats[0])
        if len(formats) < 2:
            return
        common.pack(self.src, out, formats[1])
        prefer = [f for f in ("lmdb", "hdf5", "wds") if f in formats[:2]]
        self.assertEqual(bale.open(out).format, prefer[0])
        self.assertEqual(bale.open(out, formats[1]).format, formats[1])
        self.assertEqual(len(bale.find_outputs(out)), 2)
        common.pack(self.src, out, formats[0], name="other")
        with self.assertRaisesRegex(bale.Error, "different datasets"):
            bale.open(out)

    def test_pixels(self):
        """--pixels outputs read as H x W x 3 arrays, equal in every
        format to the .npy members of the wds shard."""
        formats = common.built_formats()
        arrays = {}
        for fmt in formats:
            out = common.pack(self.src, f"{self.tmp}/px-{fmt}", fmt,
                              "--pixels", "24x16")
            r = bale.open(out)
            arrays[fmt] = [s.data for s in r]
            self.assertEqual([s.label for s in r],
                             [label for _, label in self.truth])
            for a in arrays[fmt]:
                self.assertIsInstance(a, numpy.ndarray)
                self.assertEqual((a.shape, a.dtype), ((16, 24, 3),
                                                      numpy.uint8))
        if "wds" in arrays:
            tar_path = f"{self.tmp}/px-wds/data-000000.tar"
            with tarfile.open(tar_path) as tar:
                npys = [numpy.load(io.BytesIO(tar.extractfile(m).read()))
                        for m in tar if m.name.endswith(".npy")]
            arrays["tar"] = npys
        first = next(iter(arrays.values()))
        for fmt, got in arrays.items():
            self.assertEqual(len(got), len(first))
            for a, b in zip(got, first):
                self.assertTrue(numpy.array_equal(a, b), fmt)

    def test_errors(self):
        with self.assertRaises(FileNotFoundError):
            bale.open(f"{self.tmp}/nothing-here")
        with self.assertRaises(bale.NotFoundError):
            bale.open(f"{self.tmp}/nothing-here")
        junk = f"{self.tmp}/junk.h5"
        with open(junk, "wb") as f:
            f.write(b"not an output at all" * 100)
        with self.assertRaisesRegex(bale.Error, "not a bale output"):
            bale.open(junk)
        with self.assertRaises(bale.Error) as caught:
            bale.open(junk)
        # the file is there: it is no output, not a missing one
        self.assertNotIsInstance(caught.exception, FileNotFoundError)
        with self.assertRaisesRegex(bale.UsageError, "unknown format"):
            bale.open(self.src, "no-such-format")
        with self.assertRaisesRegex(bale.Error, "unknown reader option"):
            bale.open(self.src, options={"no_such_option": 1})


if __name__ == "__main__":
    common.main()
