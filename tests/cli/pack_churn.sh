#!/bin/bash
# Files that shrink, grow, vanish and come back while bale packs them:
# every input the walk found is packed or skipped with its reason, none
# is lost, and what is packed verifies and is the same in every format
# built.
. "$TESTS/cli/lib.sh"
formats=$(need_writers) || exit 77
"$MKDATA" random "$T/in" -n 1000 --classes 3 --min 32 --max 96
# 24 of them made 4 MB long (a JPEG may carry bytes after its end), so
# their reads take long enough to be caught changing
big=$(find "$T/in" -name '*.JPEG' | sort | head -24)
for f in $big; do head -c 4000000 /dev/zero >>"$f"; done
touch "$T/churning"
# rewrite them in place (shorter, longer), remove and restore them, over
# and over until told to stop
"$PY" - "$T/churning" $big <<'PY' &
import os, sys
flag, files = sys.argv[1], sys.argv[2:]
keep = {f: open(f, "rb").read() for f in files}
open(flag + ".ready", "w").close()
while os.path.exists(flag):
    for f in files:
        open(f, "wb").write(keep[f][: len(keep[f]) // 2])
        open(f, "wb").write(keep[f])
        open(f, "wb").write(keep[f] + b"\0" * 4096)
        os.unlink(f)
        open(f, "wb").write(keep[f])
PY
churn=$!
while [ ! -e "$T/churning.ready" ]; do sleep 0.1; done
run timeout 300 "$BALE" pack "$T/in" -f "$formats" -o "$T/out" -j 2 \
    --report "$T/report.json"
rm "$T/churning"
wait "$churn"
[ "$status" -eq 0 ] || [ "$status" -eq 3 ] ||
    { cat "$T/stderr" >&2; fail "pack exited $status"; }
"$PY" - "$T/report.json" <<'PY'
import collections, json, sys
r = json.load(open(sys.argv[1]))
assert r["status"] == "complete", r["status"]
assert r["packed"] + r["skipped"] == r["inputs_found"], \
    (r["packed"], r["skipped"], r["inputs_found"])
assert len(r["skipped_files"]) == r["skipped"], r["skipped_files"]
reasons = collections.Counter(e["reason"] for e in r["skipped_files"])
print("found", r["inputs_found"], "packed", r["packed"], "skipped", dict(reasons))
PY
outputs=$(outputs_in "$T/out")
[ "$(echo "$outputs" | wc -l)" -eq "$(echo "$formats" | tr , '\n' | wc -l)" ] ||
    fail "not one output per format: $outputs"
"$BALE" ls "$(echo "$outputs" | head -1)" >"$T/first.ls"
for o in $outputs; do
    "$BALE" verify "$o" >/dev/null || fail "verify $o"
    "$BALE" ls "$o" | cmp -s - "$T/first.ls" || fail "$o differs from the first"
done
