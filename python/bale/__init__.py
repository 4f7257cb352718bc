"""bale: pack image folders into LMDB, HDF5 and WebDataset, and read them.

    import bale
    r = bale.open("out/data.lmdb")      # or any output, or a folder of them
    len(r), r.classes, r.info
    s = r[i]                            # s.data, s.label, s.key, s.path, s.crc32
    bale.pack("imgs", "out", formats=["wds", "lmdb"], resize="shorter:256")

PyTorch Datasets are in bale.torch. Reads release the GIL; a Reader may be
shared by threads, survives fork() (a child opens its own handles) and
pickles (it reopens by path).
"""
import ast
import builtins
import functools
import json
import os
import tempfile

from . import _bale
from ._bale import Error, NotFoundError
from ._labels import Labels

__version__ = _bale.version
__all__ = ["BadSampleWarning", "Error", "Labels", "Loader",
           "NotFoundError", "UsageError", "Reader",
           "Sample", "find_outputs", "formats", "merge", "open",
           "output_format", "pack"]

Sample = _bale.Sample     # a struct sequence, made in C per read

_npy_headers = {}


def formats():
    """The formats this build of bale writes and reads."""
    return _bale.backend_names()


def output_format(path):
    """The format of the output at path, recognised by its content, or None."""
    return _bale.output_format(os.fspath(path))


def _stat(path):
    """(is_dir, size) of a path or a URL (s3://, https://), or None when
    nothing is there; a store's refusal (credentials) raises Error."""
    try:
        return _bale.store_stat(path)
    except NotFoundError:
        return None


def find_outputs(path, format=None):
    """The outputs path names: itself if it is one, else those in the folder."""
    path = os.fspath(path)
    found = output_format(path)
    if found:
        return [path] if format in (None, found) else []
    st = _stat(path)
    if not st or not st[0]:
        raise NotFoundError(f"'{path}' is not an output nor a folder")
    return _bale.outputs_in(path, format)


def _check_format(format):
    """format, when None or a format this build reads; else UsageError."""
    if format is not None and format not in formats():
        raise UsageError(f"unknown format '{format}' (built in: "
                         f"{', '.join(formats())})")
    return format


def _resolve(path, format):
    """The one output path names; a folder holding none is a raw tree."""
    _check_format(format)
    path = os.fspath(path)
    # a store's error says what is wrong, and in an object store comes
    # first: said once, not after a probe's retries as well
    st = _bale.store_stat(path) if "://" in path else None
    if format == "folder" or output_format(path):
        return path
    st = st or _bale.store_stat(path)
    if not st[0]:
        raise Error(f"'{path}' is not a bale output: no format built in "
                    "recognises it")
    outputs = find_outputs(path, format)
    if len(outputs) == 1:
        return outputs[0]
    if not outputs and format is None:
        return path      # read as the raw ImageFolder baseline
    if not outputs:
        raise NotFoundError(f"no {format} output in '{path}'")
    picked = _bale.output_pick(outputs)    # of one dataset's, the
    if picked >= 0:                         # fastest at random reads
        return outputs[picked]
    names = ", ".join(os.path.basename(p) for p in outputs)
    raise Error(f"'{path}' holds {len(outputs)} outputs of different "
                f"datasets ({names}); name one, or choose with format=")


def _npy_array(data):
    """A --pixels sample's .npy bytes as a numpy array, without a copy."""
    import numpy
    if data[6] == 1:
        start = 10
        hlen = int.from_bytes(data[8:10], "little")
    else:
        start = 12
        hlen = int.from_bytes(data[8:12], "little")
    header = data[start:start + hlen]
    spec = _npy_headers.get(header)
    if spec is None:
        d = ast.literal_eval(header.decode("latin1"))
        spec = (numpy.dtype(d["descr"]), tuple(d["shape"]),
                "F" if d["fortran_order"] else "C")
        _npy_headers[header] = spec
    dtype, shape, order = spec
    count = 1
    for n in shape:
        count *= n
    a = numpy.frombuffer(data, dtype=dtype, count=count, offset=start + hlen)
    return a.reshape(shape, order=order)


def _rows_array(data, shape):
    """A row of HDF5's pixels layout as a numpy array, without a copy."""
    import numpy
    return numpy.frombuffer(data, numpy.uint8).reshape(shape)


class Reader(_bale.Reader):
    """Random access to one packed output (see bale.open).

    len(r); r[i] (negative from the end) and r[a:b] read Samples in C,
    with the GIL released while the bytes are read."""

    def __init__(self, path, format=None, *, meta=True, options=None):
        self._args = (os.fspath(path), format, bool(meta),
                      dict(options or {}))
        path, format, meta, options = self._args
        options = {str(k): str(v) for k, v in options.items()}
        if not meta:
            options["meta"] = "0"
        super().__init__(_resolve(path, format), format, options)
        self._info = None
        # an output of bare pixel rows says their shape in its info
        shape = self.info.get("shape")
        if shape:
            self._set_convert(functools.partial(_rows_array,
                                                shape=tuple(shape)), True)
        else:
            self._set_convert(_npy_array)

    @property
    def info(self):
        """What the output records about itself (format-specific keys)."""
        if self._info is None:
            self._info = json.loads(self._info_json())
        return self._info

    @property
    def classes(self):
        """Class names, by label."""
        info = self.info
        return list(info.get("classes") or
                    info.get("bale", {}).get("classes") or [])

    def __reduce__(self):
        return _reopen, self._args     # a new process opens its own

    def __repr__(self):
        return (f"<bale.Reader {self.format} '{self.path}', "
                f"{len(self)} samples>")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _reopen(path, format, meta, options):
    return Reader(path, format, meta=meta, options=options)


def open(path, format=None, *, meta=True, options=None):
    """Open an output for reading.

    path:    a wds shard list, an LMDB environment, an HDF5 file, a folder
             holding one of them (format= chooses among several), or a raw
             image folder (the unpacked baseline)
    format:  one of bale.formats(); None: recognise it
    meta:    False reads data and label only (what training needs)
    options: backend reader options, e.g. {"images_only": "1"} for wds
    """
    return Reader(path, format, meta=meta, options=options)


class UsageError(Error, ValueError):
    """pack() was given options that cannot work (a bad value, two that
    exclude each other, or not for this source or output): nothing was
    written."""


_REMEDIES = {
    "replace": " (pass replace=True to replace it)",
    "resume": ": call again with resume=True to carry on",
    "start_over": ": call again without resume=True to start over",
    "allow_damaged": " (allow_damaged=True packs what comes before the "
                     "damage)",
    "relabel": " (pass relabel=True: the update then rebuilds the output)",
    "start_updates": " (pass replace=True as well: with update=True, the "
                     "rebuild writes the manifest later updates compare "
                     "against)",
    "free_space": ": free space there, then call again",
    "free_space_resume": ": free space there, then call again with "
                         "resume=True to carry on",
}

_ENCODE_KEYS = ("resize", "frame", "upscale", "pixels", "quality",
                "subsampling", "color", "alpha", "background",
                "keep_unchanged", "max_pixels")


def _options_list(options):
    if options is None:
        return []
    if isinstance(options, dict):
        return [f"{k}={v}" for k, v in options.items()]
    return [str(o) for o in options]


def _check_pack_args(threads, seed, window, encode):
    """What the CLI refuses, refused here too, before anything runs: a
    bad value is a UsageError (a ValueError), never wrapped around."""
    def whole(name, v, lo, hi):
        if isinstance(v, bool) or not isinstance(v, int) or \
                not lo <= v <= hi:
            raise UsageError(f"{name}={v!r}: a whole number from {lo} to "
                             f"{hi}")
    whole("threads", threads, 0, 256)
    whole("seed", seed, 0, 2**64 - 1)
    whole("window", window, 0, 2**64 - 1)
    if encode.get("quality") is not None:
        whole("quality", encode["quality"], 1, 100)
    pixels = encode.get("pixels")
    if isinstance(pixels, (tuple, list)):
        if len(pixels) != 2:
            raise UsageError(f"pixels={pixels!r}: (width, height)")
        encode["pixels"] = "%dx%d" % tuple(pixels)


def _check_uploads(upload_part, uploads):
    """The upload's bounds, as bale pack checks them."""
    for name, v, lo, hi in (("upload_part", upload_part, 5 << 20, 5 << 30),
                            ("uploads", uploads, 1, 64)):
        if isinstance(v, bool) or not isinstance(v, int) or \
                (v != 0 and not lo <= v <= hi):
            raise UsageError(f"{name}={v!r}: 0 (the default) or a whole "
                             f"number from {lo} to {hi}")


def _sources(src):
    """src, or the first of several (packed as one dataset), and the
    rest."""
    if isinstance(src, (str, bytes, os.PathLike)):
        return src, None
    srcs = list(src)
    if not srcs:
        raise UsageError("src: no source given")
    return srcs[0], srcs[1:]


def pack(src, out, formats, *, name=None, list_file=None,
         options=None, threads=0, window=0, shuffle=False, seed=0,
         strict=False, replace=False, resume=False, report=None, part=None,
         update=False, relabel=False, allow_damaged=False,
         validate=False, archive_root=None, upload_part=0, uploads=0,
         image_column=None, label_column=None, **encode):
    """Pack the image folder src into the folder out, as bale pack does.

    src:     a folder, an archive, an output to convert; or a list of
             archives packed as one dataset (as bale pack SRC SRC...)
    formats: names, or one comma-separated str ("wds,lmdb")
    options: backend options, {"wds.shard_size": "1G"} or ["key=value"]
    part:    pack only a part of the run: (i, n), "i/n", or "auto" (the
             rank a Slurm array or a Kubernetes Indexed Job gives)
    update:  pack only what changed since out was made with update=True
             (relabel=True rebuilds with torchvision's class numbers)
    encode:  resize="shorter:256", frame, upscale, pixels="224x224",
             quality, subsampling, color, alpha, background,
             keep_unchanged, max_pixels (as bale pack's flags)
    validate: decode every image (stored as it is); those that do not
             decode are skipped with why
    allow_damaged: an archive source damaged part-way packs what comes
             before the damage (a warning) instead of failing the run
    archive_root: an archive source: the folder inside it that holds the
             class folders ("." its top level); None: the rule of
             bale-pack(1) (a lone top folder with sub-folders is the root)
    image_column, label_column: Parquet files: the column of image bytes
             (or a struct whose "bytes" it is; None: "image", else the
             one binary column) and of labels, integers or class names
             (None: "label")
    upload_part, uploads: out in an object store (s3://): the bytes of
             each part of a shard's multipart upload (0: 8 MiB) and the
             parts sent at once (0: 4)
    report:  also keep the JSON report at this path
    Returns the report as a dict (samples packed, skipped with reasons,
    outputs...). Raises bale.Error when the run fails; Ctrl-C stops the
    run cleanly (what its checkpoints cover stays, for resume=True).
    """
    unknown = set(encode) - set(_ENCODE_KEYS)
    if unknown:
        raise TypeError(f"pack() got unknown arguments {sorted(unknown)}")
    _check_pack_args(threads, seed, window, encode)
    _check_uploads(upload_part, uploads)
    src, more = _sources(src)
    if not isinstance(formats, str):
        formats = ",".join(formats)
    if isinstance(part, tuple):
        part = "%d/%d" % part
    kw = dict(name=name, options=_options_list(options), threads=threads,
              window=window, shuffle=shuffle, seed=seed, strict=strict,
              replace=replace, resume=resume, part=part, update=update,
              relabel=relabel, allow_damaged=allow_damaged,
              validate=validate, upload_part=upload_part, uploads=uploads)
    if archive_root is not None:
        kw["archive_root"] = os.fspath(archive_root)
    if image_column is not None:
        kw["image_column"] = image_column
    if label_column is not None:
        kw["label_column"] = label_column
    if list_file is not None:
        kw["list"] = list_file
    if more:
        kw["more"] = more
    if any(v is not None and v is not False and
           not (k == "max_pixels" and v == 0) for k, v in encode.items()):
        kw["encode"] = {k: v for k, v in encode.items() if v is not None}
    with tempfile.TemporaryDirectory(prefix="bale-pack-") as tmp:
        path = os.fspath(report) if report else os.path.join(tmp, "r.json")
        rc, msg, remedy, stats = _bale.pack(src, out, formats, report=path,
                                            **kw)
        result = _load_report(path, stats)
    if rc != 0:
        kind = (NotFoundError if rc == -3 else
                UsageError if remedy == "change_options" else Error)
        err = kind(msg + _REMEDIES.get(remedy, ""))
        err.remedy = remedy
        err.report = result
        raise err
    return result


def merge(out, parts, formats=None, *, name=None, copy=False,
          replace=False):
    """Join the parts of one run (pack(..., part=...)) into the folder
    out, as bale merge does: the same as a single run's output. parts:
    the part folders, in any order; formats: names or a comma-separated
    str (default: all the parts hold); copy=True copies the parts' data
    in (an output that stands alone). Raises bale.Error naming a part
    that is missing, doubled or of another run."""
    if formats is not None and not isinstance(formats, str):
        formats = ",".join(formats)
    _bale.merge(out, [os.fspath(p) for p in parts], formats, name, copy,
                replace)


def _load_report(path, stats):
    """The run's JSON report; the bare counts if it could not be written."""
    try:
        with builtins.open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return stats


from ._loader import BadSampleWarning, Loader  # noqa: E402 (needs Error)
