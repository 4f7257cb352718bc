#!/bin/bash
# Permission denied, met by a user who is not root (as root the test
# drops to nobody with setpriv): an unreadable file and an unreadable
# folder in the tree are skipped with the reason and all else is packed;
# an output folder or extract target it cannot write is an error that
# names it; an output it cannot read fails verify with the reason. In
# every format built.
. "$TESTS/cli/lib.sh"
formats=$(need_writers) || exit 77
first=${formats%%,*}
if [ "$(id -u)" -eq 0 ]; then
    as_user() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
else
    as_user() { "$@"; }
fi
chmod 755 "$T"
if ! as_user "$BALE" --version >/dev/null 2>&1; then
    echo "cannot run bale as an unprivileged user here: skipped"
    exit 77
fi
"$MKDATA" random "$T/in" -n 8 --classes 2 --min 16 --max 24
mkdir "$T/in/n00000000/sub" "$T/out" "$T/ro"
cp "$T/in/n00000000/img_00000000.JPEG" "$T/in/n00000000/sub/x.JPEG"
chmod 000 "$T/in/n00000000/sub" "$T/in/n00000001/img_00000001.JPEG"
chmod 555 "$T/ro"
[ "$(id -u)" -ne 0 ] || chown nobody "$T/out"

run as_user "$BALE" pack "$T/in" -f "$formats" -o "$T/out" \
    --report "$T/out/report.json"
expect_status 3
expect_stderr "skipped 'n00000000/sub': cannot open folder: Permission denied"
expect_stderr "skipped 'n00000001/img_00000001.JPEG': cannot open: Permission denied"
"$PY" - "$T/out/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
skipped = {e["path"]: e["reason"] for e in r["skipped_files"]}
assert set(skipped) == {"n00000000/sub", "n00000001/img_00000001.JPEG"}, \
    skipped
assert all("Permission denied" in why for why in skipped.values()), skipped
assert r["packed"] == 7 and r["status"] == "complete", r
PY
outputs=$(outputs_in "$T/out")
for o in $outputs; do
    run "$BALE" verify "$o"
    expect_status 0
    grep -q "7 samples, 0 bad" "$T/stdout" || fail "verify $o: $(cat "$T/stdout")"
done

run as_user "$BALE" pack "$T/in" -f "$first" -o "$T/out/strict" --strict
expect_status 1
expect_no_output "$T/out/strict"

run as_user "$BALE" pack "$T/in" -f "$formats" -o "$T/ro/out"
expect_status 1
expect_stderr "cannot create output folder '$T/ro/out': Permission denied"
[ ! -e "$T/ro/out" ] || fail "an output appeared in an unwritable folder"

run as_user "$BALE" extract "$(echo "$outputs" | head -1)" "$T/ro"
expect_status 1
expect_stderr "cannot write '$T/ro/n00000000/img_00000000.JPEG': Permission denied"
[ -z "$(ls -A "$T/ro")" ] || fail "extract wrote into an unwritable folder"

# every file of the outputs unreadable (the folders stay open)
find "$T/out" -type f ! -name report.json -exec chmod 000 {} +
for o in $outputs; do
    run as_user "$BALE" verify "$o"
    expect_status 1
    expect_stderr "Permission denied"
done
