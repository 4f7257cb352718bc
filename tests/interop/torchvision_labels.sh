#!/bin/bash
# torchvision's own ImageFolder agrees with bale on samples, order, labels.
. "$TESTS/cli/lib.sh"
require_backend wds
/usr/bin/python3 -c 'import torchvision' 2>/dev/null ||
    { echo "skipped: needs python3-torchvision"; exit 77; }
"$MKDATA" tricky "$T/in"
"$BALE" pack "$T/in" -f wds -o "$T/out" -q
/usr/bin/python3 "$TESTS/interop/torchvision_labels.py" "$T/in" "$T/out"
