"""Damage a copy of a good output the way hostile files do (the cases of
tests/cli/tools_hostile.sh and tests/python/test_hostile.py).

    damage.py hdf5 FILE CASE | damage.py lmdb DIR CASE | damage.py wds TAR
"""
import sys
import tarfile

HDF5_CASES = ("count", "layout", "no-labels", "short-crc32", "wide-keys",
              "offsets", "deflated")
LMDB_CASES = ("label", "other-label", "long-key", "no-image")


def hdf5(path, case):
    import h5py
    import numpy as np
    with h5py.File(path, "r+") as f:
        if case == "count":
            f.attrs["count"] = np.int64(10**12)
        elif case == "layout":
            f.attrs["layout"] = "bogus"
        elif case == "no-labels":
            del f["labels"]
        elif case == "short-crc32":
            f["crc32"].resize((len(f["crc32"]) - 1,))
        elif case == "wide-keys":
            n = len(f["keys"])
            del f["keys"]
            f.create_dataset("keys", data=np.array([b"k" * 100] * n,
                                                   dtype="S100"))
        elif case == "offsets":
            f["offsets"][-1] = 2**40
        elif case == "deflated":
            data = f["images"][:]
            del f["images"]
            f.create_dataset("images", data=data, chunks=(4096,),
                             compression="gzip")
        else:
            raise ValueError(case)


def lmdb(path, case):
    import lmdb as py_lmdb
    env = py_lmdb.open(path, map_size=1 << 26)
    with env.begin(write=True) as txn:
        keys = bytes(txn.get(b"__keys__")).split(b"\n")
        if case == "label":
            txn.put(keys[3] + b".cls", b"three")
        elif case == "other-label":
            txn.put(keys[3] + b".cls", b"7")
        elif case == "long-key":
            txn.put(b"__keys__", b"\n".join(keys + [b"k" * 700]))
        elif case == "no-image":
            txn.delete(keys[5] + b".image")
        else:
            raise ValueError(case)
    env.close()


def wds(path):
    """Sample 3's one-digit .cls member rewritten in place."""
    with tarfile.open(path) as tar:
        m = tar.getmember("0000000003.cls")
        old = tar.extractfile(m).read()
    assert len(old) == 1, old
    with open(path, "r+b") as f:
        f.seek(m.offset_data)
        f.write(b"9" if old != b"9" else b"8")


if __name__ == "__main__":
    kind, *args = sys.argv[1:]
    {"hdf5": hdf5, "lmdb": lmdb, "wds": wds}[kind](*args)
