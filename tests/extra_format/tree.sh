#!/bin/bash
# tree.sh DEST: a copy of this source tree at DEST with the throwaway
# format added as HACKING.md says a format is added: its folder in
# formats/ and its name in formats/meson.build's list; nothing else.
# scripts/test builds and tests it.
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
dest=$1
mkdir -p "$dest"
tar -C "$src" --exclude='./build*' --exclude='./.git' --exclude='./.mesonpy*' \
    -cf - . | tar -C "$dest" -xf -
cp -r "$src/tests/extra_format/pile" "$dest/formats/pile"
sed -i "s/^backend_list = \[\(.*\)\]$/backend_list = [\1, 'pile']/" \
    "$dest/formats/meson.build"
grep -q "^backend_list = .*'pile'\]$" "$dest/formats/meson.build" || {
    echo "tree.sh: formats/meson.build has no backend_list line to extend" >&2
    exit 1
}
