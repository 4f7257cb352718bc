#!/bin/bash
# bale pack --update from a tree of objects (s3://bucket/train/): the
# listing's size and ETag say what changed, as a file's stat does on
# disk. A night with nothing changed lists, compares and writes nothing;
# a changed object (even at the same size), a new one and a removed one
# give the output the same update as the same changes to the tree on
# disk (every shard file byte for byte); the version goes on.
# And an output in the bucket updated in place: the same objects as the
# update on disk, the old list's shards kept for its readers, an update
# that fails leaving the output as it was, HDF5 refused.
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

# a changed object of the same size, a new one, a removed one: in the
# tree on disk and in the bucket alike
cls=n00000001
files=($(ls "$T/in/$cls"))
change_both() {
    "$PY" - "$T/disk/$cls/${files[1]}" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, 'rb').read())
b[-3] ^= 0xff       # inside the JPEG's last bytes: still an image file
open(p, 'wb').write(bytes(b))
PY
    # its time alone cannot tell
    touch -d '2001-01-01' "$T/disk/$cls/${files[1]}"
    cp "$T/in/$cls/${files[4]}" "$T/disk/$cls/zz-new.jpg"
    rm "$T/disk/$cls/${files[2]}"
    s3 put "$T/disk/$cls/${files[1]}" "$src/$cls/${files[1]}" >/dev/null
    s3 put "$T/disk/$cls/zz-new.jpg" "$src/$cls/zz-new.jpg" >/dev/null
    s3 del "$src/$cls/${files[2]}" >/dev/null
}
change_both
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

# ---- an output in the bucket, updated there --------------------------------
out="s3://$BUCKET/out"
export TMPDIR="$T/tmp"	# where the runs stage the manifest and delta
mkdir -p "$TMPDIR"
rm -rf "$T/local" "$T/disk"
cp -r "$T/in" "$T/disk"
s3 sync --no-preserve --delete-removed "$T/in/" "$src/" >/dev/null
listing() { s3cmd -c "$T/s3cfg" ls "$out/" | sort > "$1"; }
fetched() { # the bucket's output, downloaded, against the update on disk
    rm -rf "$T/remote"
    mkdir "$T/remote"
    s3 get --recursive "$out/" "$T/remote/" >/dev/null
    same_shards
}
pack "$src/" "$out/"
expect_status 0
expect_stderr "version 1 of the dataset: 60 added"
pack "$T/disk" "$T/local"
fetched

# nothing changed: no object written
listing "$T/objects.before"
pack "$src/" "$out/"
expect_status 0
expect_stderr "nothing changed since version 1"
listing "$T/objects.after"
cmp -s "$T/objects.before" "$T/objects.after" ||
    fail "an update of nothing changed objects: $(diff "$T/objects.before" "$T/objects.after")"

# the same changes as above; readers holding the old list keep reading
s3 get "$out/data-shards.json" "$T/list.v1" >/dev/null
change_both
pack "$src/" "$out/"
expect_status 0
expect_stderr "version 2 of the dataset: 1 added, 1 replaced, 1 removed, 58 unchanged"
pack "$T/disk" "$T/local"
fetched
v1_shards=$("$PY" -c 'import json, sys
print(" ".join(s["url"] for s in json.load(open(sys.argv[1]))["shardlist"]))' \
    "$T/list.v1")
for shard in $v1_shards; do
    s3cmd -c "$T/s3cfg" ls "$out/$shard" | grep -q . ||
        fail "$shard went while the old list's readers may be in it"
done
run "$BALE" verify "$out/"
expect_status 0
"$BALE" ls "$T/local" > "$T/ls.local"
"$BALE" ls "$out/" > "$T/ls.remote"
cmp -s "$T/ls.local" "$T/ls.remote" || fail "bale ls of the bucket differs"

# an update whose list cannot be written fails, the output as it was:
# the same list, no object of the failed version left
rm "$T/disk/$cls/${files[5]}"
s3 del "$src/$cls/${files[5]}" >/dev/null
listing "$T/objects.before"
start_proxy --deny-put data-shards.json
AWS_ENDPOINT_URL=$proxy_url run "$BALE" pack "$src/" -o "$out/" -f wds \
    --update --shard-count 20
stop_proxy
[ "$status" -ne 0 ] || fail "an update that could not write its list passed"
expect_stderr "data-shards.json"
listing "$T/objects.after"
cmp -s "$T/objects.before" "$T/objects.after" ||
    fail "a failed update changed the output: $(diff "$T/objects.before" "$T/objects.after")"
"$BALE" ls "$out/" > "$T/ls.after"
cmp -s "$T/ls.remote" "$T/ls.after" || fail "a failed update changed what reads"

# run again, it is made; the shards only version 1 named go now
pack "$src/" "$out/"
expect_status 0
expect_stderr "version 3 of the dataset: 0 added, 0 replaced, 1 removed"
pack "$T/disk" "$T/local"
fetched
s3 get --force "$out/data-shards.json" "$T/list.v3" >/dev/null
for shard in $v1_shards; do
    grep -q "\"$shard\"" "$T/list.v3" && continue
    ! s3cmd -c "$T/s3cfg" ls "$out/$shard" | grep -q . ||
        fail "$shard, of version 1 only, is still there"
done

# HDF5's library changes its file in place: refused in a bucket
if built hdf5; then
    run "$BALE" pack "$src/" -o "s3://$BUCKET/h5/" -f hdf5 --update
    expect_status 2
    expect_stderr "an output in an object store cannot be updated yet"
    [ -z "$(s3cmd -c "$T/s3cfg" ls "s3://$BUCKET/h5/")" ] ||
        fail "a refused update wrote"
fi
[ -z "$(ls "$TMPDIR")" ] || fail "staging was left in \$TMPDIR: $(ls "$TMPDIR")"
echo ok
