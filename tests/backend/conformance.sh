#!/bin/bash
# conformance.sh BACKEND [LAYOUT [KEY=VALUE ...]]: write through the API,
# read back with the format's Python library, then the error paths.
. "$TESTS/cli/lib.sh"
backend=$1 layout=${2:-default}
shift $(( $# < 2 ? $# : 2 ))
"$CONFORMANCE" write "$backend" "$T" "$@" || exit $?
/usr/bin/python3 "$TESTS/backend/read_back.py" "$backend" "$T" "$layout"
"$CONFORMANCE" read "$backend" "$T"
mkdir "$T/err"
"$CONFORMANCE" errors "$backend" "$T/err"
