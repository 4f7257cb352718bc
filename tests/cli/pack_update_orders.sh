#!/bin/bash
# bale pack --update reads the manifest a line at a time beside the walk
# when both come in path order, and sorts both by path past memory
# otherwise. Every way an update can meet its manifest gives
# the same output: after a shuffled first run, with a manifest in the
# dataset order manifests had before (skips last, no "order"), with one
# that claims path order but is not in it, and with a list file out of
# path order. After two nights of changes each output holds exactly the
# tree, the samples that stayed keep their keys, and the manifest left
# is in path order (class, folder, file name), which a class named like
# another plus a suffix ("n00000001-x" after "n00000001") and subfolders
# put to the test. An older manifest lists its skipped files last: they
# are known still, so with nothing changed nothing is tried or written.
. "$TESTS/cli/lib.sh"
export LC_ALL=C
require_backend wds
require_backend lmdb
"$MKDATA" random "$T/tree" -n 60 --classes 3 --min 16 --max 40 --seed 9
mkdir -p "$T/tree/n00000001-x" "$T/tree/n00000000/sub" \
    "$T/tree/n00000000/sub x"
for f in $(find "$T/tree/n00000002" -type f | sort | head -n 6); do
    cp "$f" "$T/tree/n00000001-x/"
done
for f in $(find "$T/tree/n00000002" -type f | sort | tail -n 4); do
    cp "$f" "$T/tree/n00000000/sub/"
    cp "$f" "$T/tree/n00000000/sub x/"
done
: >"$T/tree/n00000000/sub/empty.jpg"    # skipped, every night

# the tree as a list file, in reverse path order: label by class
write_list() {
    "$PY" - "$T/tree" >"$T/list" <<'PYEOF'
import os, sys
root = sys.argv[1]
classes = sorted(os.listdir(root))
rows = []
for c in classes:
    for d, _, files in os.walk(os.path.join(root, c)):
        for f in files:
            rows.append((os.path.relpath(os.path.join(d, f), root),
                         classes.index(c)))
for path, label in sorted(rows, reverse=True):
    print("%s\t%d" % (path, label))
PYEOF
}
update() {    # NAME [more options]: exit 3, the empty file skipped
    local name=$1
    shift
    run "$BALE" pack "$T/tree" -f wds,lmdb -o "$T/$name" --update \
        --shard-count 4 "$@"
    [ "$status" = 3 ] || fail "$name: exit $status: $(cat "$T/stderr")"
    expect_stderr "skipped 'n00000000/sub/empty.jpg': empty file"
}
check() {    # NAME WHEN
    local o
    for o in data-shards.json data.lmdb; do
        diff <(tree_listing "$T/tree" | awk -F'\t' '$2 != 0') \
            <("$BALE" ls "$T/$1/$o" |
            awk -F'\t' '{print $6 "\t" $4 "\t" $5}' | sort) ||
            fail "$1, $2: $o does not hold the tree"
    done
    "$PY" - "$T/$1/data-manifest.jsonl" <<'PYEOF' || fail "$1, $2: manifest"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert lines[0]["order"] == "path", lines[0]
paths = [l["path"] for l in lines[1:] if "skipped" not in l]
def walk_key(p):
    d, _, name = p.rpartition("/")
    return (p.split("/")[0].encode(), d.encode(), name.encode())
assert paths == sorted(paths, key=walk_key), paths
assert lines[0]["count"] == len(paths)
PYEOF
}
keys() {    # NAME: path and key
    "$BALE" ls "$T/$1/data.lmdb" | awk -F'\t' '{print $6 "\t" $2}' | sort
}
# an older bale's manifest: samples in key order, skips last, no order
to_old_format() {
    "$PY" - "$T/$1/data-manifest.jsonl" <<'PYEOF'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
head = {k: v for k, v in lines[0].items() if k not in ("order", "count")}
samples = sorted((l for l in lines[1:] if "skipped" not in l),
                 key=lambda l: l["key"], reverse=True)
skips = [l for l in lines[1:] if "skipped" in l]
with open(sys.argv[1], "w") as f:
    for l in [head] + samples + skips:
        f.write(json.dumps(l, separators=(",", ":")) + "\n")
PYEOF
}
# a manifest that says path order and is not in it
to_disorder() {
    "$PY" - "$T/$1/data-manifest.jsonl" <<'PYEOF'
import sys
lines = open(sys.argv[1]).readlines()
open(sys.argv[1], "w").writelines(lines[:1] + lines[1:][::-1])
PYEOF
}

update_all() {    # every output, each its own way
    update plain
    update shuffled --shuffle --seed 3
    update old
    update disorder
    update listed --list "$T/list"
}

write_list
update_all
for o in plain shuffled old disorder listed; do
    check $o "first run"
done

to_old_format old
cp "$T/old/data-manifest.jsonl" "$T/old-manifest"
update old
expect_stderr "nothing changed since version 1"
cmp -s "$T/old-manifest" "$T/old/data-manifest.jsonl" ||
    fail "an older manifest's skipped file was tried again"

for night in 1 2; do
    for o in plain shuffled old disorder listed; do
        keys $o >"$T/keys-$o"
    done
    # the night's changes: 5 new files, 3 changed, 4 gone
    i=0
    for f in $(find "$T/tree/n00000001" -type f | sort | head -n 5); do
        cp "$f" "$T/tree/n00000001-x/new_${night}_$i.jpeg"
        i=$((i + 1))
    done
    changed=$(find "$T/tree/n00000000" -type f | sort | head -n 3)
    for f in $changed; do
        cat "$f" "$f" >"$T/twice" && mv "$T/twice" "$f"
    done
    find "$T/tree/n00000002" -type f | sort | tail -n 4 | xargs rm
    write_list
    to_old_format old
    to_disorder disorder
    update_all
    for o in plain shuffled old disorder listed; do
        check $o "night $night"
        # the samples whose file stayed as it was keep their keys
        join -t "$(printf '\t')" "$T/keys-$o" <(keys $o) |
            awk -F'\t' '$2 != $3' |
            grep -v -F -f <(for f in $changed; do
                printf '%s\t\n' "${f#"$T/tree/"}"; done) >"$T/moved" ||
            true
        [ ! -s "$T/moved" ] || fail "$o, night $night: keys moved: $(
            cat "$T/moved")"
    done
done
exit 0
