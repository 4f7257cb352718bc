#!/bin/bash
# Inputs that cannot be packed are skipped with a reason on stderr and in
# the report, the run exits 3, and everything else is packed. --strict
# fails instead and leaves no output.
. "$TESTS/cli/lib.sh"
require_backend wds
"$MKDATA" tricky "$T/in" --bad
run timeout 60 "$BALE" pack "$T/in" -f wds -o "$T/out" --report "$T/report.json"
expect_status 3
expect_stderr "skipped '9/zero.jpg': empty file (0 bytes)"
expect_stderr "skipped '9/broken.jpg': broken symlink"
expect_stderr "skipped '9/fifo.jpg': not a regular file"
expect_stderr "skipped '10/loop': symlink loop"
"$PY" "$CHECK" "$T/out" "$T/in" --count 24
"$PY" - "$T/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
skipped = {e["path"]: e["reason"] for e in r["skipped_files"]}
assert set(skipped) == {"9/zero.jpg", "9/broken.jpg", "9/fifo.jpg",
                        "10/loop", "9/linked/loop"}, skipped
assert r["packed"] == 24 and r["skipped"] == 5, r
# every input met is packed or skipped: those the walk skipped too
assert r["inputs_found"] == r["packed"] + r["skipped"], r
assert [w["path"] for w in r["warnings"]] == ["empty_class"], r["warnings"]
PY
run timeout 60 "$BALE" pack "$T/in" -f wds -o "$T/strict" --strict
expect_status 1
expect_stderr "strict:"
expect_no_output "$T/strict"
