#!/bin/bash
# Permission denied, met by a user who is not root (as root the test
# drops to nobody with setpriv): an unreadable file and an unreadable
# folder in the tree are skipped with the reason and all else is packed;
# an output folder or extract target it cannot write is an error that
# names it; an output it cannot read fails verify with the reason.
. "$TESTS/cli/lib.sh"
require_backend wds
require_backend lmdb
require_backend hdf5
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

run as_user "$BALE" pack "$T/in" -f wds,lmdb,hdf5 -o "$T/out" \
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
for f in data-shards.json data.lmdb data.h5; do
    run "$BALE" verify "$T/out/$f"
    expect_status 0
    grep -q "7 samples, 0 bad" "$T/stdout" || fail "verify $f: $(cat "$T/stdout")"
done

run as_user "$BALE" pack "$T/in" -f wds -o "$T/out/strict" --strict
expect_status 1
expect_no_output "$T/out/strict"

run as_user "$BALE" pack "$T/in" -f wds,lmdb,hdf5 -o "$T/ro/out"
expect_status 1
expect_stderr "cannot create output folder '$T/ro/out': Permission denied"
[ ! -e "$T/ro/out" ] || fail "an output appeared in an unwritable folder"

run as_user "$BALE" extract "$T/out/data.h5" "$T/ro"
expect_status 1
expect_stderr "cannot write '$T/ro/n00000000/img_00000000.JPEG': Permission denied"
[ -z "$(ls -A "$T/ro")" ] || fail "extract wrote into an unwritable folder"

chmod 000 "$T/out/data-000000.tar" "$T/out/data.lmdb/data.mdb" "$T/out/data.h5"
for f in data-shards.json data.lmdb data.h5; do
    run as_user "$BALE" verify "$T/out/$f"
    expect_status 1
    expect_stderr "Permission denied"
done
