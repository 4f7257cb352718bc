#!/bin/bash
# doc/python.md's way, as written: a virtual environment of Debian's
# /usr/bin/python3 that sees its packages, then pip install
# --no-build-isolation . (Debian's meson-python, no PyPI) installs the
# Python package alone - the extension with the library inside it, the
# pure-Python modules - and it works from there: it reads an output the
# bale command wrote.
. "$TESTS/cli/lib.sh"
"$PY" -c 'import mesonpy, pip, venv, ensurepip' 2>/dev/null ||
    fail "scripts/deps --python did not install what doc/python.md needs"
src=$(dirname "$TESTS")
# a copy of the sources, so that pip's in-tree build leaves no trace
mkdir "$T/src"
tar -C "$src" --exclude='./build*' --exclude='./.git' --exclude='./.mesonpy*' \
    -cf - . | tar -C "$T/src" -xf -
/usr/bin/python3 -m venv --system-site-packages "$T/env" >"$T/venv.log" 2>&1 ||
    { cat "$T/venv.log" >&2; fail "python3 -m venv failed"; }
(cd "$T/src" && "$T/env/bin/pip" install --no-build-isolation -q .) \
    >"$T/pip.log" 2>&1 || { cat "$T/pip.log" >&2; fail "pip install failed"; }
site=$("$T/env/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
[ -d "$site/bale" ] || fail "pip did not install bale into the environment"
[ -z "$(find "$site" -name 'libbale*' -o -name 'bale*.h' -o -name 'bale.pc')" ] ||
    fail "pip installed C files: $(find "$site" -name 'libbale*' -o -name 'bale*.h')"
fmt=$(any_backend)
"$MKDATA" random "$T/in" -n 20 --classes 2 --min 16 --max 32
"$BALE" pack "$T/in" -f "$fmt" -o "$T/out" -q
cd "$T"
env -u PYTHONPATH "$T/env/bin/python" - "$T/out" "$site" <<'PY'
import sys, zlib, bale
assert bale.__file__.startswith(sys.argv[2]), bale.__file__
r = bale.open(sys.argv[1])
assert len(r) == 20, len(r)
assert all(s.crc32 is None or zlib.crc32(s.data) == s.crc32 for s in r)
PY
