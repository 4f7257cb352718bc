#!/bin/bash
# Run one libFuzzer target for FUZZ_SECONDS (default 20) from seeds made
# here: bale-mkimages' images (decode, exif), bale's own JSON (json), or
# a small real wds output (wds).
#   tests/fuzz/run.sh TARGET       (from the fuzz build's tests folder)
# New inputs and crashes are kept in fuzz-TARGET/ beside the fuzzer.
set -eu
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
    esac
fi
"./fuzz_$t" -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 \
    -artifact_prefix="$work/" -print_final_stats=1 "$work/corpus" \
    "$work/seeds" 2>"$work/log" || { tail -40 "$work/log" >&2; exit 1; }
grep -E "stat::number_of_executed_units|stat::new_units_added" "$work/log"
