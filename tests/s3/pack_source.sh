#!/bin/bash
# An ImageFolder tree kept as small objects in a bucket, packed in place
# (bale pack s3://bucket/train/): the same classes, order, labels and
# bytes as packing the tree on disk, in every format; the same notes
# (a stray image, a non-image, an empty object); through SlowDown
# answers and dropped connections; and clear refusals (no such prefix,
# no class, wrong credentials, several trees); a list file naming
# objects below the prefix.
. "$TESTS/cli/lib.sh"
. "$TESTS/s3/lib.sh"
require_backend wds	# the runs through faults and the refusals write it
make_bucket

"$MKDATA" random "$T/in" -n 120 --classes 3 >/dev/null
one=$(ls "$T/in/n00000001" | head -1)
# torchvision orders a class by folder, then file name: S3's key order
# differs ("sub-x.jpg" < "sub/" < "sub.d/" by folder, not by key)
mkdir -p "$T/in/n00000001/sub" "$T/in/n00000001/sub.d" "$T/in/.hidden"
cp "$T/in/n00000001/$one" "$T/in/n00000001/sub/zz.jpg"
cp "$T/in/n00000001/$one" "$T/in/n00000001/sub.d/a.JPG"
cp "$T/in/n00000001/$one" "$T/in/n00000001/sub-x.jpg"
cp "$T/in/n00000001/$one" "$T/in/.hidden/h.jpg"
echo notes > "$T/in/n00000000/readme.txt"
echo stray > "$T/in/stray.jpg"
: > "$T/in/n00000002/empty.jpg"
upload "$T/in" "s3://$BUCKET/train"

formats=$(writers | grep -v '^empty$' | paste -sd, -)
run "$BALE" pack "$T/in" -o "$T/local" -f "$formats"
expect_status 3
grep '^bale pack' "$T/stderr" | sed 's/ in [0-9.]* s.*//' > "$T/said.local"
run "$BALE" pack "s3://$BUCKET/train/" -o "$T/remote" -f "$formats" \
    --report "$T/report.json"
expect_status 3
[ "$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["source_kind"])' \
    "$T/report.json")" = bucket ] || fail "the run's source kind is not bucket"
grep '^bale pack' "$T/stderr" | sed 's/ in [0-9.]* s.*//; s/remote/local/' \
    > "$T/said.remote"
diff "$T/said.local" "$T/said.remote" || fail "the runs said different things"
grep -q "skipped 'n00000002/empty.jpg': empty file" "$T/stderr" ||
    fail "the empty object was not reported"

# every file of every format, byte for byte (the record of how it was
# made names its source)
(cd "$T/local" && find . -type f ! -name data-made.json ! -name lock.mdb) \
    > "$T/files"
[ "$(wc -l < "$T/files")" -ge 3 ] || fail "the local pack wrote too little"
while read -r f; do
    cmp -s "$T/local/$f" "$T/remote/$f" ||
        fail "$f differs from the local pack's"
done < "$T/files"
"$BALE" ls "$T/remote" > "$T/ls"
# .hidden sorts first: a class, as torchvision takes it
[ "$(awk -F'\t' '$6 == ".hidden/h.jpg" { print $3 }' "$T/ls")" = 0 ] ||
    fail "the hidden class folder is not class 0"
[ "$(awk -F'\t' '$6 == "n00000001/sub-x.jpg" { print $3 }' "$T/ls")" = 2 ] ||
    fail "n00000001/sub-x.jpg is not in class 2"

# the bytes come through faults unchanged
start_proxy --slowdown-every 5 --drop-every 7
AWS_ENDPOINT_URL=$proxy_url run "$BALE" pack "s3://$BUCKET/train" \
    -o "$T/faults" -f wds
stop_proxy
expect_status 3
cmp -s "$T/local/data-000000.tar" "$T/faults/data-000000.tar" ||
    fail "the shard packed through faults differs"

# refusals: no such prefix, no class below it, refused credentials
run "$BALE" pack "s3://$BUCKET/nothing/" -o "$T/x1" -f wds
expect_status 2
expect_stderr "nothing/': no such object or prefix"
[ ! -e "$T/x1" ] || fail "a refused run made its output folder"
printf 'x' > "$T/flat.jpg"
s3 put "$T/flat.jpg" "s3://$BUCKET/flat/a.jpg" >/dev/null
run "$BALE" pack "s3://$BUCKET/flat/" -o "$T/x2" -f wds
expect_status 1
expect_stderr "no class folder in 's3://$BUCKET/flat/'"
# a list file names objects below the prefix: its order and labels, as
# the same list names files below the tree on disk; a line naming no
# object is reported skipped
(cd "$T/in" && find . -name '*.JPEG' | sed 's|^\./||' | sort | sed -n '1~3p' |
    awk '{ print $0 "\t" (NR * 7) % 5 }' | tac) > "$T/list"
printf 'n00000000/gone.jpg\t1\n' >> "$T/list"
run "$BALE" pack "$T/in" --list "$T/list" -o "$T/listed-local" -f wds
expect_status 3
run "$BALE" pack "s3://$BUCKET/train/" --list "$T/list" \
    -o "$T/listed-remote" -f wds
expect_status 3
expect_stderr "skipped 'n00000000/gone.jpg': listed, but no object under the prefix has this name"
for f in "$T/listed-local"/*; do
    case $f in *-made.json) continue ;; esac
    cmp -s "$f" "$T/listed-remote/${f##*/}" ||
        fail "${f##*/} of the listed objects differs from the listed files"
done
# several trees are not one dataset (as on disk; several archives are)
run "$BALE" pack "s3://$BUCKET/train/" "s3://$BUCKET/train/" -o "$T/no" -f wds
expect_status 2
expect_stderr "not a source bale reads"
[ ! -e "$T/no" ] || fail "a refused run made its output folder"
AWS_SECRET_ACCESS_KEY=wrong run "$BALE" pack "s3://$BUCKET/train/" \
    -o "$T/x3" -f wds
expect_status 1
expect_stderr "AKTEST"
echo ok
