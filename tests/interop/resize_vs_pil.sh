#!/bin/bash
# bale's resampler gives what PIL's LANCZOS gives on the same pixels,
# and what its BILINEAR gives over a box (the loader's crop and resize).
. "$TESTS/cli/lib.sh"
/usr/bin/python3 -c 'import PIL, numpy' 2>/dev/null ||
    { echo "skipped: needs python3-pil and python3-numpy"; exit 77; }
"$MKDATA" tricky "$T/in"
/usr/bin/python3 "$TESTS/interop/resize_vs_pil.py" "$RESIZE_RAW" "$T/in"
