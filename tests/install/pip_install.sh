#!/bin/bash
# pip install --no-build-isolation . (Debian's meson-python, no PyPI)
# installs the Python package alone - the extension with the library
# inside it, the pure-Python modules - and it works from there: it reads
# an output the bale command wrote.
. "$TESTS/cli/lib.sh"
"$PY" -c 'import mesonpy, pip' 2>/dev/null ||
    { echo "skipped: needs python3-mesonpy and python3-pip"; exit 77; }
src=$(dirname "$TESTS")
# a copy of the sources, so that pip's in-tree build leaves no trace
mkdir "$T/src"
tar -C "$src" --exclude='./build*' --exclude='./.git' --exclude='./.mesonpy*' \
    -cf - . | tar -C "$T/src" -xf -
"$PY" -m pip install --no-build-isolation --no-deps --no-index -q \
    --target "$T/site" "$T/src" >"$T/pip.log" 2>&1 ||
    { cat "$T/pip.log" >&2; fail "pip install failed"; }
[ -z "$(find "$T/site" -name 'libbale*' -o -name '*.h' -o -name '*.pc')" ] ||
    fail "pip installed C files: $(find "$T/site" -name 'libbale*' -o -name '*.h')"
fmt=$(any_backend)
"$MKDATA" random "$T/in" -n 20 --classes 2 --min 16 --max 32
"$BALE" pack "$T/in" -f "$fmt" -o "$T/out" -q
cd "$T"
PYTHONPATH="$T/site" "$PY" - "$T/out" "$T/site" <<'PY'
import sys, zlib, bale
assert bale.__file__.startswith(sys.argv[2]), bale.__file__
r = bale.open(sys.argv[1])
assert len(r) == 20, len(r)
assert all(s.crc32 is None or zlib.crc32(s.data) == s.crc32 for s in r)
PY
