#!/bin/bash
# Run one libFuzzer target for FUZZ_SECONDS (default 20) from seeds made
# here: bale-mkimages' images (decode, exif; crop, behind settings),
# bale's own JSON (json),
# archives of a small tree (archive), a
# small real wds output (wds), the records of real LMDB outputs (lmdb),
# or recipes for bale-like HDF5 files (hdf5), S3's XML answers (s3_xml),
# the footers of the committed Parquet fixtures (parquet).
#   tests/fuzz/run.sh TARGET       (from the fuzz build's tests folder)
# New inputs and crashes are kept in fuzz-TARGET/ beside the fuzzer.
set -eu
# undefined behaviour stops the run like a crash does
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
t=$1
secs=${FUZZ_SECONDS:-20}
work=fuzz-$t
mkdir -p "$work/corpus" "$work/seeds"
if [ -z "$(ls -A "$work/seeds")" ]; then
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    case $t in
    decode|exif)
        "$MKIMAGES" "$tmp/img"
        find "$tmp/img" -type f -exec cp {} "$work/seeds/" \; ;;
    crop)   # eight bytes of crop settings, then an image
        "$MKIMAGES" "$tmp/img"
        i=0
        for f in $(find "$tmp/img" -type f | sort); do
            { printf '\x10\x20\xc0\xa0\x1f\x17\x0%d\x00' $((i % 8))
              cat "$f"; } >"$work/seeds/c$i"
            i=$((i + 1))
        done ;;
    json)
        "$MKDATA" random "$tmp/src" -n 20 --classes 3 --min 16 --max 40
        "$BALE" pack "$tmp/src" -f wds -o "$tmp/out" -q
        cp "$tmp/out/data-shards.json" "$work/seeds/"
        tar -xf "$tmp/out/data-000000.tar" -C "$work/seeds" --wildcards '*.json' ;;
    wds)    # list, index and shard of a real output, renamed f-*
        "$MKDATA" random "$tmp/src" -n 6 --classes 2 --min 8 --max 16
        "$BALE" pack "$tmp/src" -f wds -o "$tmp/out" -q --name f
        /usr/bin/python3 - "$tmp/out" "$work/seeds/real" <<'PYEOF'
import struct, sys
d = sys.argv[1]
parts = [open(f"{d}/f-shards.json", "rb").read(),
         open(f"{d}/f-000000.idx", "rb").read()]
with open(sys.argv[2], "wb") as out:
    for p in parts:
        out.write(struct.pack("<H", len(p)) + p)
    out.write(open(f"{d}/f-000000.tar", "rb").read())
PYEOF
        ;;
    lmdb)   # every record of a default and a caffe layout output
        "$MKDATA" random "$tmp/src" -n 6 --classes 2 --min 48 --max 160
        "$BALE" pack "$tmp/src" -f lmdb -o "$tmp/out" -q --name d
        "$BALE" pack "$tmp/src" -f lmdb -o "$tmp/out" -q --name c \
            -O lmdb.layout=caffe
        /usr/bin/python3 - "$tmp/out" "$work/seeds" <<'PYEOF'
import lmdb, struct, sys
for name in ("d", "c"):
    env = lmdb.open(f"{sys.argv[1]}/{name}.lmdb", readonly=True, lock=False)
    records = b""
    with env.begin() as txn:
        for k, v in txn.cursor():
            records += bytes([len(k)]) + k + struct.pack("<H", len(v)) + v
    for options in (0, 3):  # 3: meta=0 and map=1
        with open(f"{sys.argv[2]}/{name}{options}", "wb") as out:
            out.write(bytes([options]) + records)
PYEOF
        ;;
    archive)    # a small tree as tars, a tar of tars, compressed tars, zips
        "$MKDATA" random "$tmp/src" -n 6 --classes 2 --min 8 --max 16
        /usr/bin/python3 "$(dirname "$0")/../cli/make_archives.py" \
            "$tmp/src" "$work/seeds" ;;
    hdf5)   # recipes (see fuzz_hdf5.c): each layout, 5 samples, as bale
        for layout in 0 1 2; do
            { printf "\\x0$layout\\x05\\x0a\\x0b\\x0c\\x0d\\x0e"
              head -c 400 /dev/zero; } > "$work/seeds/layout$layout"
        done ;;
    s3_xml) # S3's answers: a listing that goes on, a folder's, errors
        printf '%s' '<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>b</Name><Prefix>o/</Prefix><IsTruncated>true</IsTruncated><NextContinuationToken>1ab/+=</NextContinuationToken><Contents><Key>o/a&amp;b.tar</Key><Size>12</Size><ETag>"e"</ETag></Contents><CommonPrefixes><Prefix>o/d/</Prefix></CommonPrefixes></ListBucketResult>' \
            > "$work/seeds/list"
        printf '%s' '<?xml version="1.0"?><Error><Code>NoSuchBucket</Code><Message>The specified bucket does not exist</Message><BucketName>b</BucketName></Error>' \
            > "$work/seeds/error" ;;
    parquet)    # each fixture's footer, behind the bound of its pages;
                # its first page, with each codec; the whole file
        for f in "$(dirname "$0")"/../parquet/fixtures/*.parquet; do
            /usr/bin/python3 - "$f" "$work/seeds/$(basename "$f")" <<'PYEOF'
import struct, sys
d = open(sys.argv[1], "rb").read()
n = struct.unpack("<I", d[-8:-4])[0]
with open(sys.argv[2], "wb") as out:
    out.write(b"\0" + struct.pack(">I", len(d) - 8 - n) + d[-8 - n:-8])
for codec in (0, 1, 2, 6):
    with open(f"{sys.argv[2]}.page{codec}", "wb") as out:
        out.write(bytes([1, codec, 2]) + d[4:4096])
with open(f"{sys.argv[2]}.file", "wb") as out:
    out.write(b"\2" + d)
PYEOF
        done ;;
    esac
fi
"./fuzz_$t" -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 \
    -artifact_prefix="$work/" -print_final_stats=1 "$work/corpus" \
    "$work/seeds" 2>"$work/log" || { tail -40 "$work/log" >&2; exit 1; }
grep -E "stat::number_of_executed_units|stat::new_units_added" "$work/log"
