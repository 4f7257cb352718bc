"""An HDF5 output of bale-conformance, read back with python3-h5py.
The contract of LAYOUTS is in tests/backend/read_back.py."""
import os
import zlib


def read_hdf5(d, classes):
    import h5py
    f = h5py.File(os.path.join(d, "data.h5"), "r")
    if [c.decode() if isinstance(c, bytes) else c
            for c in f.attrs["class_names"]] != classes:
        raise ValueError("class names differ")
    vlen = f.attrs["layout"] == "vlen"
    if vlen:
        if f["images"].dtype.metadata is None:
            raise ValueError("vlen layout has no vlen images")
    else:
        off = f["offsets"][:]

    def get(i):
        img = f["images"][i].tobytes() if vlen else \
            f["images"][off[i]:off[i + 1]].tobytes()
        if f["crc32"][i] != zlib.crc32(img):
            raise ValueError(f"sample {i}: crc32 dataset differs")
        return (f["keys"][i].decode(), img, int(f["labels"][i]),
                {"path": f["paths"][i].decode()})
    return int(f.attrs["count"]), get


LAYOUTS = {"default": (read_hdf5, False), "vlen": (read_hdf5, False)}
