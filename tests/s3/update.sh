#!/bin/bash
# bale pack --update from a tree of objects (s3://bucket/train/): the
# listing's size and ETag say what changed, as a file's stat does on
# disk. A night with nothing changed lists, compares and writes nothing;
# a changed object (even at the same size), a new one and a removed one
# give the output the same update as the same changes to the tree on
# disk (every shard file byte for byte); the version goes on.
. "$TESTS/cli/lib.sh"
. "$TESTS/s3/lib.sh"
require_backend wds
make_bucket
src="s3://$BUCKET/train"

"$MKDATA" random "$T/in" -n 60 --classes 3 >/dev/null
upload "$T/in" "$src"
cp -r "$T/in" "$T/disk"
pack() { # SRC OUT: the nightly command
    run "$BALE" pack "$1" -o "$2" -f wds --update --shard-count 20
}
same_shards() { # what the two outputs hold, byte for byte
    local f
    for f in "$T/local"/*; do
        case $f in *-made.json|*-manifest.jsonl) continue ;; esac
        cmp -s "$f" "$T/remote/${f##*/}" ||
            fail "${f##*/} differs from the update on disk"
    done
    [ "$(ls "$T/local" | wc -l)" = "$(ls "$T/remote" | wc -l)" ] ||
        fail "the outputs hold other files: $(ls "$T/remote")"
}

pack "$src/" "$T/remote"
expect_status 0
expect_stderr "version 1 of the dataset: 60 added"
pack "$T/disk" "$T/local"
same_shards

# nothing changed: listed, compared, nothing written
find "$T/remote" -type f -exec md5sum {} + | sort > "$T/before"
touch -d '2001-01-01' "$T/remote"/*
pack "$src/" "$T/remote"
expect_status 0
expect_stderr "nothing changed since version 1"
find "$T/remote" -type f -exec md5sum {} + | sort > "$T/after"
cmp -s "$T/before" "$T/after" || fail "an update of nothing changed files"
[ -z "$(find "$T/remote" -type f -newermt '2002-01-01')" ] ||
    fail "an update of nothing wrote: $(find "$T/remote" -type f -newermt '2002-01-01')"

# a changed object of the same size, a new one, a removed one
cls=n00000001
files=($(ls "$T/in/$cls"))
"$PY" - "$T/disk/$cls/${files[1]}" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, 'rb').read())
b[-3] ^= 0xff       # inside the JPEG's last bytes: still an image file
open(p, 'wb').write(bytes(b))
PY
touch -d '2001-01-01' "$T/disk/$cls/${files[1]}"   # its time alone cannot tell
cp "$T/in/$cls/${files[4]}" "$T/disk/$cls/zz-new.jpg"
rm "$T/disk/$cls/${files[2]}"
s3 put "$T/disk/$cls/${files[1]}" "$src/$cls/${files[1]}" >/dev/null
s3 put "$T/disk/$cls/zz-new.jpg" "$src/$cls/zz-new.jpg" >/dev/null
s3 del "$src/$cls/${files[2]}" >/dev/null
pack "$src/" "$T/remote"
expect_status 0
expect_stderr "version 2 of the dataset: 1 added, 1 replaced, 1 removed, 58 unchanged"
pack "$T/disk" "$T/local"
expect_stderr "version 2 of the dataset: 1 added, 1 replaced, 1 removed"
same_shards
run "$BALE" verify "$T/remote"
expect_status 0
"$BALE" ls "$T/remote" | grep -q "$cls/zz-new.jpg" ||
    fail "the new object is not in the output"

# the next night again writes nothing
pack "$src/" "$T/remote"
expect_status 0
expect_stderr "nothing changed since version 2"
echo ok
