"""Hostile outputs raise bale.Error with bale's message, never crash the
interpreter: the damaged files of tools_hostile, outputs cut short or
overwritten with garbage, and bad arguments."""
import os
import random
import shutil
import subprocess

import common
import damage

import bale

# what each damaged copy's error says (as the bale command says it)
HDF5_MESSAGES = {
    "count": "count says 1000000000000 samples",
    "layout": "layout 'bogus' is none of bale's",
    "no-labels": "dataset 'labels' is missing",
    "short-crc32": "dataset 'crc32' is missing",
    "wide-keys": "'keys' is missing or not strings of fixed width",
    "offsets": "past the end of images",
    "deflated": "images is not one chunked, unfiltered dimension",
}
LMDB_MESSAGES = {
    "label": "bad label",
    "other-label": "label 7 in .cls",
    "long-key": "is too long",
    "no-image": "records are not all there",
}


def read_all(path, meta=True):
    r = bale.open(path, meta=meta)
    try:
        r.labels()      # may not see the damage (no bytes read): no crash
    except bale.Error:
        pass
    for s in r:
        pass
    return len(r)


def contents(path):
    """Every sample's key, label, path and bytes, and the labels, with
    and without the metadata."""
    r, fast = bale.open(path), bale.open(path, meta=False)
    return ([(s.key, s.label, s.path, bytes(s.data)) for s in r],
            [(s.label, bytes(s.data)) for s in fast], r.labels(),
            fast.labels())


class HostileTest(common.TempTest):

    def setUp(self):
        super().setUp()
        _, self.good = common.random_outputs(self, 12, 3, 40)

    def copy(self, fmt):
        """A fresh copy of the good output of fmt (alone in its folder);
        its path."""
        good = self.good[fmt]
        bad = f"{self.tmp}/bad"
        shutil.rmtree(bad, ignore_errors=True)
        shutil.copytree(os.path.dirname(good), bad)
        return f"{bad}/{os.path.basename(good)}"

    def test_tools_hostile_cases(self):
        cases = []
        if "hdf5" in self.good:
            cases += [("hdf5", c, m) for c, m in HDF5_MESSAGES.items()]
        if "lmdb" in self.good:
            cases += [("lmdb", c, m) for c, m in LMDB_MESSAGES.items()]
        if "wds" in self.good:
            cases.append(("wds", "label", "label 9 in .cls"))
        for fmt, case, message in cases:
            with self.subTest(format=fmt, case=case):
                path = self.copy(fmt)
                if fmt == "wds":
                    damage.wds(os.path.join(os.path.dirname(path),
                                            "data-000000.tar"))
                else:
                    getattr(damage, fmt)(path, case)
                with self.assertRaisesRegex(bale.Error, message):
                    read_all(path)
                try:
                    read_all(path, meta=False)  # may not see it: no crash
                except bale.Error:
                    pass

    def data_files(self, path):
        """The files a reader reads, but the compact indexes: a damaged
        one is passed over for the .idx (test_damaged_bidx)."""
        return [f for f in bale.open(path).files()
                if not f.endswith(".bidx")]

    def test_damaged_bidx(self):
        """A wds shard's or an HDF5 file's .bidx cut short, with a damaged
        head, or left from before its tar changed: every sample reads as
        it did (through the .idx or the rows). Damage in its columns is
        what check_indexes finds, and the others too: read with it, every
        sample still reads as it did (the index is a note, not a bad
        sample), and bale verify names the .bidx."""
        cases = [(f, how) for f in ("wds", "hdf5") if f in self.good
                 for how in ("empty", "head", "stale", "columns")
                 if not (f == "hdf5" and how == "stale")]
        if not cases:
            self.skipTest("neither wds nor hdf5")
        for fmt, how in cases:
            want = contents(self.good[fmt])
            with self.subTest(format=fmt, how=how):
                path = self.copy(fmt)
                folder = os.path.dirname(path)
                bidx = os.path.join(folder, "data-000000.bidx" if
                                    fmt == "wds" else "data.h5.bidx")
                self.assertTrue(os.path.exists(bidx))
                if how == "stale":
                    with open(os.path.join(folder, "data-000000.tar"),
                              "ab") as f:
                        f.write(bytes(512))   # zeros past the end mark
                with open(bidx, "r+b") as f:
                    if how == "empty":
                        f.truncate(0)
                    elif how in ("head", "columns"):
                        f.seek(8 if how == "head" else 64)
                        f.write(random.Random(how).randbytes(8))
                if how != "columns":
                    self.assertEqual(contents(path), want)
                checked = bale.open(path, options={"check_indexes": "1"})
                self.assertEqual([s.data for s in checked],
                                 [s.data for s in bale.open(self.good[fmt])])
                run = subprocess.run([common.BALE, "verify", path],
                                     capture_output=True, text=True)
                self.assertEqual(run.returncode, 1, run.stdout)
                self.assertIn(".bidx beside", run.stderr)
                self.assertIn(" 0 bad; an index beside the data is damaged",
                              run.stdout)

    def test_cut_short_and_garbage(self):
        for fmt in self.good:
            hows = ["empty", "half", "garbage-head", "garbage-middle"]
            if fmt == "lmdb":
                # liblmdb follows the node offsets of a page it reads
                # without checking them: garbage in a branch or leaf page
                # takes it past the file's end (SIGBUS), py-lmdb as much
                # as bale. Checking every page before LMDB walks them is
                # not done yet.
                hows.remove("garbage-middle")
            for how in hows:
                with self.subTest(format=fmt, how=how):
                    path = self.copy(fmt)
                    files = self.data_files(path)
                    victim = files[-1]      # the data, not a shard list
                    size = os.path.getsize(victim)
                    with open(victim, "r+b") as f:
                        if how == "empty":
                            f.truncate(0)
                        elif how == "half":
                            f.truncate(size // 2)
                        else:
                            f.seek(0 if how == "garbage-head" else size // 2)
                            f.write(random.Random(how).randbytes(4096))
                    if how == "garbage-middle":
                        try:        # payload bytes may be all it hit
                            read_all(path)
                        except bale.Error:
                            pass
                    else:
                        with self.assertRaises(bale.Error):
                            read_all(path)

    def test_bad_arguments(self):
        path = next(iter(self.good.values()))
        r = bale.open(path)
        for bad in (None, "1", 1.5, [1]):
            with self.assertRaises(TypeError):
                r[bad]
        with self.assertRaises(TypeError):
            bale.open(None)
        with self.assertRaises(TypeError):
            bale.open(path, options={"meta": "0"}, meta=2, bogus=1)
        with self.assertRaises(ValueError):
            bale.open("with\0nul")
        with self.assertRaises(bale.Error):
            bale.open(path, format="bogus")


if __name__ == "__main__":
    common.main()
