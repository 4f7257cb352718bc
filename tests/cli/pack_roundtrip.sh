#!/bin/bash
# Pack the tricky tree; GNU tar extracts every shard; every member's bytes,
# label, checksum and .idx offset match the source, in torchvision order.
. "$TESTS/cli/lib.sh"
require_backend wds
"$MKDATA" tricky "$T/in"
run "$BALE" pack "$T/in" -f wds -o "$T/out" --report "$T/report.json"
expect_status 0
mkdir "$T/x"
for t in "$T"/out/data-*.tar; do tar -xf "$t" -C "$T/x"; done
"$PY" "$CHECK" "$T/out" "$T/in" --order --extracted "$T/x" --count 24
# the report says what was packed and which files were not samples
"$PY" - "$T/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["status"] == "complete" and r["packed"] == 24, r
assert r["skipped"] == 0 and r["skipped_files"] == [], r
ignored = sorted(e["path"] for e in r["ignored_files"])
assert ignored == ["LICENSE.txt", "apple/noext", "apple/readme.txt"], ignored
assert all(e["reason"] for e in r["ignored_files"]), r
PY
