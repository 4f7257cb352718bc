#!/bin/bash
# verify catches a flipped byte, a truncated shard and a missing shard;
# extract writes nothing outside its folder, whatever the output says.
# Each format's damage where the build has it.
. "$TESTS/cli/lib.sh"
formats=$(need_writers) || exit 77
F1=${formats%%,*}	# where any format will do
"$MKDATA" tricky "$T/in"
pack() { # pack FORMAT: a fresh output, several shards for wds
    rm -rf "$T/out"
    if [ "$1" = wds ]; then set -- wds --shard-count 5; fi
    "$BALE" pack "$T/in" -f "$@" -o "$T/out" -q
}
# offset of the image member of 10/ten.jpg in its shard, from the .idx
image_offset() {
    "$PY" - "$T/out" <<'PY'
import json, sys
out = sys.argv[1]
for shard in json.load(open(out + "/data-shards.json"))["shardlist"]:
    tar = out + "/" + shard["url"]
    with open(tar, "rb") as f:
        raw = f.read()
    for line in open(tar[:-4] + ".idx").read().splitlines()[1:]:
        f = line.split()
        m = {f[k]: (int(f[k + 1]), int(f[k + 2])) for k in range(0, len(f), 4)}
        js = raw[m["json"][0]:m["json"][0] + m["json"][1]]
        if json.loads(js)["path"] == "10/ten.jpg":
            print(tar, m["jpg"][0], m["json"][0])
PY
}
flip() { # flip FILE OFFSET: invert one byte
    "$PY" -c 'import sys; f=open(sys.argv[1],"r+b"); o=int(sys.argv[2]); f.seek(o); b=f.read(1); f.seek(o); f.write(bytes([b[0]^0xff]))' "$1" "$2"
}

if built wds; then
pack wds
read -r tar off json < <(image_offset)
flip "$tar" $((off + 100))
run "$BALE" verify "$T/out"
expect_status 1
expect_stderr "checksum"

pack wds
read -r tar off json < <(image_offset)
truncate -s $((off + 10)) "$tar"
run "$BALE" verify "$T/out"
expect_status 1
expect_stderr "(cut short, or its .idx damaged)"

# a shard cut in the middle, its .bidx damaged too: the .bidx is one
# note (the .idx serves), and only the samples past the cut are bad
"$BALE" pack "$T/in" -f wds -o "$T/one" -q
tar=$T/one/data-000000.tar
cut=$(($(stat -c %s "$tar") / 2))
want=$("$PY" - "$tar" "$cut" <<'PY'
import sys
tar, cut = sys.argv[1], int(sys.argv[2])
lines = open(tar[:-4] + ".idx").read().splitlines()[1:]
ends = []
for line in lines:
    f = line.split()
    ends.append(max(int(f[k + 1]) + int(f[k + 2]) for k in range(0, len(f), 4)))
print(len(lines), sum(e > cut for e in ends))
PY
)
truncate -s "$cut" "$tar"
flip "$T/one/data-000000.bidx" 100
run "$BALE" verify "$T/one"
expect_status 1
read -r n bad <<<"$want"
[ "$bad" -gt 0 ] && [ "$bad" -lt "$n" ] || fail "the cut is not mid-shard"
grep -q "$n samples, $bad bad; an index beside the data is damaged" \
    "$T/stdout" || fail "want $n samples, $bad bad: $(cat "$T/stdout")"
[ "$(grep -c "the .bidx beside" "$T/stderr")" -eq 1 ] ||
    fail "the damaged .bidx was not said once: $(cat "$T/stderr")"
expect_stderr "ends at byte $cut, before sample $((n - bad))"

pack wds
rm "$T/out/data-000002.tar"
run "$BALE" verify "$T/out"
expect_status 1
expect_stderr "cannot open"
fi

if built lmdb; then
pack lmdb
size=$(stat -c %s "$T/out/data.lmdb/data.mdb")
"$PY" - "$T/out/data.lmdb/data.mdb" "$T/in/10/big.jpg" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
needle = open(sys.argv[2], "rb").read()[5000:5064]
at = data.index(needle)
with open(sys.argv[1], "r+b") as f:
    f.seek(at); f.write(bytes([data[at] ^ 0xff]))
PY
run "$BALE" verify "$T/out"
expect_status 1
expect_stderr "checksum"
fi

# a stored path that climbs out ("10/ten.jpg" -> "../ten.jpg", same length)
if built wds; then
pack wds
read -r tar off json < <(image_offset)
"$PY" - "$tar" "$json" <<'PY'
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(int(sys.argv[2])); js = f.read(200)
    at = js.index(b'"10/ten.jpg"')
    f.seek(int(sys.argv[2]) + at); f.write(b'"../ten.jpg"')
PY
run "$BALE" extract "$T/out" "$T/x"
expect_status 1
expect_stderr "refusing path '../ten.jpg'"
[ ! -e "$T/ten.jpg" ] || fail "extract wrote outside its folder"
[ -f "$T/x/Zebra/b.png" ] || fail "extract stopped at the bad path"
fi

# a symlink planted in the target folder is not followed
pack "$F1"
mkdir -p "$T/y" "$T/elsewhere"
ln -s "$T/elsewhere" "$T/y/Zebra"
run "$BALE" extract "$T/out" "$T/y"
expect_status 1
[ -z "$(ls -A "$T/elsewhere")" ] || fail "extract followed a symlink out"

# an HDF5 file cut short is said to be, with its sizes
if built hdf5; then
pack hdf5
truncate -s $(($(stat -c %s "$T/out/data.h5") / 2)) "$T/out/data.h5"
run "$BALE" verify "$T/out"
expect_status 1
expect_stderr "data.h5' is cut short: "
expect_stderr "bytes, its superblock says"
fi

# a folder an interrupted pack left: info says so, and how to finish
rm -rf "$T/out"
mkdir "$T/out"
echo '{}' >"$T/out/data-resume.json"
run "$BALE" info "$T/out"
expect_status 1
expect_stderr "a run into it was interrupted"
expect_stderr "--resume finishes it"
