#!/bin/bash
# The encode stage gives what PIL gives: sizes, orientation, colour,
# pixel arrays in every format (see encode_vs_pil.py).
. "$TESTS/cli/lib.sh"
$PY -c 'import PIL, numpy, h5py, lmdb' 2>/dev/null ||
    { echo "skipped: needs python3-pil, -numpy, -h5py, -lmdb"; exit 77; }
require_backend hdf5
require_backend lmdb
require_backend wds
"$MKIMAGES" "$T/in"
$PY "$TESTS/interop/encode_vs_pil.py" "$BALE" "$T/in" "$T"
