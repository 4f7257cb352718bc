#!/bin/bash
# --update remembers the files it could not pack: one skipped before and
# unchanged since is reported skipped again, with its reason, and not
# tried, so an update with nothing else changed writes nothing (no new
# version); one that changed is tried again; the report's "added" names
# only what was packed.
. "$TESTS/cli/lib.sh"
require_backend wds
require_backend lmdb
formats=wds,lmdb
if "$BALE" --help | grep -q "^Formats built in:.* hdf5\b"; then
    formats=wds,lmdb,hdf5
fi
"$MKDATA" random "$T/tree" -n 30 --classes 3 --min 16 --max 40
good=$(ls "$T/tree/n00000000" | head -1)
: >"$T/tree/n00000000/empty.jpg"
update() {
    run "$BALE" pack "$T/tree" -f "$formats" -o "$T/out" --update \
        --report "$T/report.json" "$@"
}
# report.json's update.KEY and skipped paths, one per line
report() {
    "$PY" - "$T/report.json" "$1" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
if sys.argv[2] == "skipped":
    print("\n".join(sorted(e["path"] + ": " + e["reason"]
                           for e in r["skipped_files"])))
else:
    v = r["update"][sys.argv[2]]
    print(v if isinstance(v, int) else "\n".join(v))
PYEOF
}
sums() { (cd "$T/out" && find . -type f -exec sha1sum {} + | sort); }

update
expect_status 3
[ "$(report skipped)" = "n00000000/empty.jpg: empty file (0 bytes)" ] ||
    fail "the first run: $(report skipped)"
grep -q '"skipped":"empty file (0 bytes)".*"path":"n00000000/empty.jpg"' \
    "$T/out/data-manifest.jsonl" || fail "the manifest forgot the skipped file"

# nothing changed: the skipped file is reported again, nothing written
sums >"$T/sums"
for night in 1 2; do
    update
    expect_status 3
    expect_stderr "nothing changed since version 1"
    [ "$(report skipped)" = "n00000000/empty.jpg: empty file (0 bytes)" ] ||
        fail "night $night: $(report skipped)"
    [ -z "$(report added)" ] || fail "night $night added $(report added)"
    diff "$T/sums" <(sums) || fail "night $night rewrote the output"
done
[ ! -e "$T/out/data-images" ] || fail "an HDF5 image file was added"

# under --strict a file still skipped fails the run, which writes nothing
update --strict
expect_status 1
expect_stderr "strict: 'n00000000/empty.jpg': empty file"
diff "$T/sums" <(sums) || fail "a strict refusal wrote"

# a new file that cannot be packed is skipped, not added: no new version
: >"$T/tree/n00000001/also-empty.jpg"
update
expect_status 3
expect_stderr "nothing changed since version 1"
[ -z "$(report added)" ] || fail "a skipped new file was added"
[ "$(report skipped | wc -l)" -eq 2 ] || fail "$(report skipped)"
diff <(grep -v manifest "$T/sums") <(sums | grep -v manifest) ||
    fail "a skipped new file changed the formats"
grep -q '"path":"n00000001/also-empty.jpg"' "$T/out/data-manifest.jsonl" ||
    fail "the new skipped file is not remembered"

# a file that changes is tried again: a chmod alone (still empty: skipped
# again, still no new version), then real bytes (packed)
chmod 600 "$T/tree/n00000000/empty.jpg"
update
expect_status 3
expect_stderr "nothing changed since version 1"
cp "$T/tree/n00000000/$good" "$T/tree/n00000000/empty.jpg"
cp "$T/tree/n00000000/$good" "$T/tree/n00000002/new.jpg"
update
expect_status 3
expect_stderr "version 2 of the dataset: 2 added"
[ "$(report added)" = "$(printf 'n00000000/empty.jpg\nn00000002/new.jpg')" ] ||
    fail "added: $(report added)"
[ "$(report skipped)" = "n00000001/also-empty.jpg: empty file (0 bytes)" ] ||
    fail "after the fix: $(report skipped)"
"$BALE" ls "$T/out/data-shards.json" | cut -f6 | grep -qx n00000000/empty.jpg ||
    fail "the fixed file is not in the output"
! grep -q '"path":"n00000000/empty.jpg".*skipped\|"skipped".*"path":"n00000000/empty.jpg"' \
    "$T/out/data-manifest.jsonl" || fail "the fixed file is still skipped"
