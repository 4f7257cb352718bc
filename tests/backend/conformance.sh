#!/bin/bash
# conformance.sh BACKEND [LAYOUT [KEY=VALUE ...]]: write through the API,
# read back with the format's Python library and bale's readers, then
# the error paths.
. "$TESTS/cli/lib.sh"
backend=$1 layout=${2:-default}
shift $(( $# < 2 ? $# : 2 ))
"$CONFORMANCE" write "$backend" "$T" "$@" || exit $?
/usr/bin/python3 "$TESTS/backend/read_back.py" "$backend" "$T" "$layout"
"$CONFORMANCE" read "$backend" "$T"
# LMDB: repeat reads from the memory map, on handles sharing one file
if [ "$backend" = lmdb ]; then
    "$CONFORMANCE" read lmdb "$T" map=1 || exit $?
fi
mkdir "$T/err"
"$CONFORMANCE" errors "$backend" "$T/err"
