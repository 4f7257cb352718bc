#!/bin/bash
# A list file chooses the samples, their order and labels; a bad line is
# reported with its number, a label past the largest a source may give
# too.
. "$TESTS/cli/lib.sh"
require_backend wds
"$MKDATA" tricky "$T/in"
printf '10/ten.jpg\t3\nZebra/b.png\t0\r\n\na b/a.jpg\t12\n' > "$T/list"
run "$BALE" pack "$T/in" --list "$T/list" -f wds -o "$T/out"
expect_status 0
"$PY" - "$T/out" <<'PY'
import json, sys, tarfile
out = sys.argv[1]
got = []
with tarfile.open(out + "/data-000000.tar") as tar:
    for m in tar:
        if m.name.endswith(".json"):
            meta = json.load(tar.extractfile(m))
            got.append((meta["path"], meta["label"], meta["class"]))
assert got == [("10/ten.jpg", 3, None), ("Zebra/b.png", 0, None),
               ("a b/a.jpg", 12, None)], got
PY
printf '10/ten.jpg\t3\nZebra/b.png\n' > "$T/bad"
run "$BALE" pack "$T/in" --list "$T/bad" -f wds -o "$T/out2"
expect_status 1
expect_stderr "line 2: expected PATH<TAB>LABEL"
expect_no_output "$T/out2"
# a label indexes the class list every format writes: one past what a
# source may give is refused at once, as a packed output's would be
printf '10/ten.jpg\t3\nZebra/b.png\t16777217\n' > "$T/wild"
run timeout 60 "$BALE" pack "$T/in" --list "$T/wild" -f wds -o "$T/out3"
expect_status 1
expect_stderr "line 2: label '16777217' is not an integer in 0..16777216"
expect_no_output "$T/out3"
