"""bale.pack: the same outputs as the bale command, its report back as a
dict, failures as exceptions saying what to do, and Ctrl-C stopping the
run cleanly (resume=True then carries on)."""
import json
import os
import signal
import subprocess
import threading
import time
import zlib

import common

import bale

builtins_open = open


def listing(path):
    """bale ls of an output: every sample's index, key, label, size, crc
    and path."""
    return subprocess.run([common.BALE, "ls", path], check=True,
                          capture_output=True, text=True).stdout


class PackTest(common.TempTest):

    def setUp(self):
        super().setUp()
        common.need_any_format()
        self.formats = common.built_formats()
        self.src = os.path.join(self.tmp, "in")
        common.mkdata("tricky", self.src)

    def test_same_as_the_command(self):
        report = bale.pack(self.src, f"{self.tmp}/py", self.formats,
                           resize="shorter:20", quality=80, shuffle=True,
                           seed=5)
        self.assertEqual(report["status"], "complete")
        self.assertEqual(report["packed"], report["inputs_found"])
        self.assertEqual(report["options"]["encode"]["quality"], 80)
        self.assertTrue(report["ignored_files"])     # the tree's .txt
        for fmt in self.formats:
            cli = common.pack(self.src, f"{self.tmp}/cli", fmt,
                              "--resize", "shorter:20", "--quality", "80",
                              "--shuffle", "--seed", "5")
            mine = cli.replace(f"{self.tmp}/cli", f"{self.tmp}/py")
            self.assertEqual(listing(mine), listing(cli), fmt)
            self.assertEqual([s.data for s in bale.open(mine)],
                             [s.data for s in bale.open(cli)])

    def test_parts_and_merge(self):
        """pack(part=...) in any order, then merge(): the same as one
        run, read through bale.open; a missing part is named."""
        self.formats = common.built_formats("merge")
        if not self.formats:
            self.skipTest("no format built that merges")
        one = f"{self.tmp}/one"
        bale.pack(self.src, one, self.formats, shuffle=True, seed=2)
        parts = [f"{self.tmp}/p{i}" for i in range(3)]
        for i in (2, 0, 1):
            spec = (i, 3) if i else "0/3"
            bale.pack(self.src, parts[i], self.formats, shuffle=True,
                      seed=2, part=spec)
        bale.merge(f"{self.tmp}/merged", reversed(parts))
        for out in bale.find_outputs(one):
            merged = out.replace(one, f"{self.tmp}/merged")
            self.assertEqual(listing(merged), listing(out))
            self.assertEqual([s.data for s in bale.open(merged)],
                             [s.data for s in bale.open(out)])
        with self.assertRaisesRegex(bale.Error, "part 1 of 3 is missing"):
            bale.merge(f"{self.tmp}/m2", [parts[0], parts[2]])
        with self.assertRaisesRegex(ValueError, "part 3/3"):
            bale.pack(self.src, parts[0], self.formats, part="3/3")

    def test_update(self):
        """update=True packs only the new file; its report says so."""
        self.formats = common.built_formats("update")
        if not self.formats:
            self.skipTest("no format built that updates")
        out = f"{self.tmp}/u"
        first = bale.pack(self.src, out, self.formats, update=True)
        self.assertTrue(first["update"]["first"])
        with builtins_open(os.path.join(self.src, "9", "new.jpg"),
                           "wb") as f:
            f.write(open(os.path.join(self.src, "9", "nine.jpeg"),
                         "rb").read())
        # a reader of the old version, mid-epoch across five updates made
        # by another process (as a nightly job would)
        old = {p: bale.open(p) for p in bale.find_outputs(out)}
        before = {p: [tuple(r[i]) for i in range(3)] for p, r in old.items()}

        def nightly():
            subprocess.run([common.BALE, "pack", self.src, "-o", out, "-f",
                            ",".join(self.formats), "--update", "-q",
                            "--report", f"{self.tmp}/r.json"], check=True)
            with builtins_open(f"{self.tmp}/r.json") as f:
                return json.load(f)
        second = nightly()
        self.assertEqual(second["update"]["added"], ["9/new.jpg"])
        self.assertEqual(second["packed"], 1)
        for path in bale.find_outputs(out):
            paths = [s.path for s in bale.open(path)]
            self.assertEqual(paths[-1], "9/new.jpg")
        os.remove(os.path.join(self.src, "10", "ten.jpg"))
        third = nightly()
        self.assertIn("10/ten.jpg", third["update"]["removed"])
        for n in range(3):      # LMDB reuses pages two versions on
            with builtins_open(os.path.join(self.src, "9", f"more{n}.jpg"),
                               "wb") as f:
                f.write(b"\xff\xd8" + bytes(5000 * (n + 1)))
            os.remove(os.path.join(self.src, "Zebra", ("B.PNG", "b.png",
                                                        "IMG_002.JPG")[n]))
            nightly()
        for path, reader in old.items():
            whole = [tuple(s) for s in reader]
            self.assertEqual(whole[:3], before[path], path)
            self.assertIn("10/ten.jpg", [s[3] for s in whole], path)
            self.assertTrue(all(zlib.crc32(s[0]) == s[4] for s in whole))

    def test_failures(self):
        out = f"{self.tmp}/out"
        bale.pack(self.src, out, self.formats[0])
        with self.assertRaisesRegex(bale.Error, "replace=True") as cm:
            bale.pack(self.src, out, self.formats[0])
        self.assertEqual(cm.exception.remedy, "replace")
        bale.pack(self.src, out, self.formats[0], replace=True)
        # packed without update: updating it says how to start
        with self.assertRaisesRegex(bale.Error, "replace=True as well") as cm:
            bale.pack(self.src, out, self.formats[0], update=True)
        self.assertEqual(cm.exception.remedy, "start_updates")
        bale.pack(self.src, out, self.formats[0], update=True, replace=True)
        bale.pack(self.src, out, self.formats[0], update=True)
        with self.assertRaises(FileNotFoundError):
            bale.pack(f"{self.tmp}/missing", out, self.formats[0])
        with self.assertRaises(bale.UsageError):
            bale.pack(self.src, out, "no-such-format")
        with self.assertRaises(TypeError):
            bale.pack(self.src, out, self.formats[0], resise="shorter:9")
        with self.assertRaisesRegex(bale.Error, "resize"):
            bale.pack(self.src, out, self.formats[0], replace=True,
                      resize="sideways:9")

    def test_checks_like_the_command(self):
        """What bale pack refuses as misuse, pack() refuses as a
        UsageError (a ValueError) before writing anything; formats must
        be named; pixels takes a (w, h) pair."""
        out = f"{self.tmp}/out"
        fmt = self.formats[0]
        bad = [dict(threads=-1), dict(threads=257), dict(seed=-1),
               dict(quality=0), dict(quality=101), dict(window=-1),
               dict(resize="sideways:9")]
        for kw in bad:
            with self.assertRaises(ValueError, msg=kw) as cm:
                bale.pack(self.src, out, fmt, **kw)
            self.assertIsInstance(cm.exception, bale.UsageError, kw)
        for formats in ("no-such-format", ["wds", "nope"]):
            with self.assertRaisesRegex(bale.UsageError, "unknown format"):
                bale.pack(self.src, out, formats)
        with self.assertRaisesRegex(bale.UsageError, "named twice"):
            bale.pack(self.src, out, [fmt, fmt])
        with self.assertRaisesRegex(bale.UsageError, "inside it"):
            bale.pack(self.src, f"{self.src}/out", fmt)
        self.assertFalse(os.path.exists(out))
        with self.assertRaises(TypeError):
            bale.pack(self.src, out)      # no format: not a silent "wds"
        report = bale.pack(self.src, out, fmt, pixels=(16, 12))
        self.assertEqual(report["packed"], 24)
        self.assertEqual(bale.open(out)[0].data.shape, (12, 16, 3))

    def test_several_sources(self):
        """A list of archives packs as one dataset, as bale pack A B."""
        import tarfile
        src = f"{self.tmp}/plain"
        common.mkdata("random", src, "-n", "20", "--classes", "4",
                      "--min", "16", "--max", "40")
        names = sorted(os.listdir(src))
        halves = (names[:len(names) // 2], names[len(names) // 2:])
        tars = []
        for i, half in enumerate(halves):
            tars.append(f"{self.tmp}/part{i}.tar")
            with tarfile.open(tars[-1], "w") as tar:
                for n in half:
                    tar.add(os.path.join(src, n), arcname=n)
        fmt = self.formats[0]
        bale.pack(tars, f"{self.tmp}/two", fmt)
        common.pack(src, f"{self.tmp}/one", fmt)
        self.assertEqual(listing(f"{self.tmp}/two"),
                         listing(f"{self.tmp}/one"))

    def test_archive_root(self):
        """A tar of a tree with a stray image at its top packs as the
        tree; archive_root="." takes the top level as the root instead."""
        import tarfile
        src = f"{self.tmp}/train"
        common.mkdata("random", src, "-n", "12", "--classes", "3",
                      "--min", "16", "--max", "40")
        with builtins_open(f"{src}/stray.jpg", "wb") as f:
            f.write(bale.open(common.pack(src, f"{self.tmp}/ref",
                                          self.formats[0]))[0].data)
        with tarfile.open(f"{self.tmp}/t.tar", "w") as tar:
            tar.add(src, arcname="train")
        fmt = self.formats[0]
        report = bale.pack(f"{self.tmp}/t.tar", f"{self.tmp}/auto", fmt)
        self.assertEqual(listing(f"{self.tmp}/auto"),
                         listing(f"{self.tmp}/ref"))
        self.assertIn("train/stray.jpg",
                      [w["path"] for w in report["warnings"]])
        bale.pack(f"{self.tmp}/t.tar", f"{self.tmp}/top", fmt,
                  archive_root=".")
        r = bale.open(f"{self.tmp}/top")
        self.assertEqual((len(r), r.classes), (13, ["train"]))
        with self.assertRaises(bale.UsageError):
            bale.pack(src, f"{self.tmp}/folder", fmt, archive_root="x")

    def test_parquet_columns(self):
        """Parquet files pack as the bale command packs them, the columns
        named as by --image-column and --label-column."""
        fixtures = os.path.join(os.path.dirname(__file__), "..",
                                "parquet", "fixtures")
        fmt = self.formats[0]
        flat = os.path.join(fixtures, "flat-columns.parquet")
        report = bale.pack(flat, f"{self.tmp}/flat", fmt,
                           image_column="jpg", label_column="fine_label")
        self.assertEqual(report["packed"], 40)
        subprocess.run([common.BALE, "pack", flat, "-o", f"{self.tmp}/cli",
                        "-f", fmt, "-q", "--image-column", "jpg",
                        "--label-column", "fine_label"], check=True)
        self.assertEqual(listing(f"{self.tmp}/flat"),
                         listing(f"{self.tmp}/cli"))
        with self.assertRaises(bale.Error):
            bale.pack(flat, f"{self.tmp}/none", fmt)

    def test_parquet_without_labels(self):
        """Rows of a file without a label column read back, and train,
        labelled -1 (none), with no classes."""
        fixtures = os.path.join(os.path.dirname(__file__), "..",
                                "parquet", "fixtures")
        out = f"{self.tmp}/nolabel"
        bale.pack(os.path.join(fixtures, "nolabel.parquet"), out,
                  self.formats[0])
        with bale.open(out) as r:
            self.assertEqual((len(r), r.classes), (2, []))
            self.assertEqual([r[i].label for i in range(2)], [-1, -1])
            self.assertEqual(list(r.labels()), [-1, -1])
        got = [y.tolist() for _, y in bale.Loader(out, batch_size=2,
                                                  size=16)]
        self.assertEqual(got, [[-1, -1]])

    def test_reader_close_and_repr(self):
        out = common.pack(self.src, f"{self.tmp}/out", self.formats[0])
        with bale.open(out) as r:
            sample = r[0]
            self.assertRegex(repr(sample), r"^bale\.Sample\(data=<\d+ "
                             r"bytes>, label=\d+, key='\d+', path='.*', "
                             r"crc32=\d+\)$")
        with self.assertRaisesRegex(ValueError, "closed"):
            r[0]
        r.close()       # twice is fine

    def test_bad_input_is_reported(self):
        with open(f"{self.src}/apple/broken.jpg", "wb") as f:
            f.write(b"\xff\xd8\xff\xe0 not really a jpeg")
        report = bale.pack(self.src, f"{self.tmp}/out", self.formats[0],
                           resize="shorter:16")
        skipped = {s["path"]: s["reason"] for s in report["skipped_files"]}
        self.assertIn("apple/broken.jpg", skipped)
        with self.assertRaises(bale.Error):
            bale.pack(self.src, f"{self.tmp}/strict", self.formats[0],
                      resize="shorter:16", strict=True)

    def test_ctrl_c(self):
        """SIGINT mid-run: KeyboardInterrupt, nothing that looks complete;
        resume=True then finishes the run."""
        big = f"{self.tmp}/big"
        common.mkdata("random", big, "-n", "3000", "--classes", "3",
                      "--min", "200", "--max", "400")
        out = f"{self.tmp}/out"
        fmt = self.formats[0]
        timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
        timer.start()
        started = time.monotonic()
        with self.assertRaises(KeyboardInterrupt):
            bale.pack(big, out, fmt, threads=1, resize="exact:300x300",
                      options=["wds.shard_count=100"] if fmt == "wds" else [])
        self.assertLess(time.monotonic() - started, 30)
        self.assertEqual(bale.find_outputs(out) if os.path.isdir(out)
                         else [], [])
        report = bale.pack(big, out, fmt, resize="exact:300x300",
                           resume=True, options=["wds.shard_count=100"]
                           if fmt == "wds" else [])
        self.assertEqual(report["packed"], 3000 - report["resumed_at"])
        self.assertEqual(len(bale.open(out)), 3000)


if __name__ == "__main__":
    common.main()
