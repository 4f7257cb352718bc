#!/bin/bash
# A bucket of small image objects packed into WebDataset shards in the
# same bucket: bale pack s3://B/train/ -o s3://B/bale/ (no local copy)
# against the fastest pipeline a user builds on the same machine today,
# rclone copy --transfers 64 down, bale pack on local disk, rclone copy
# up. Also the upload alone: bale pack of the tree on local disk (warm)
# into the bucket against rclone copy of the same shards from local disk.
# Peak memory of bale's runs. Runs alternate; medians of RUNS.
#
#   bench/s3_pack.sh N WORK [RUNS]
#
# N random images (~105 KB, 100 classes) in WORK/tree; AWS_ENDPOINT_URL,
# AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY name an S3 endpoint whose
# store holds 4 x the tree (tests/s3/gateway.sh up DIR PORT with
# MEMSTORE_BYTES=8589934592 starts a one-node Ceph). Needs rclone (a
# Debian package) and s3cmd; prints one JSON line a run, then the medians.
set -euo pipefail
n=${1:?N}
work=${2:?WORK}
runs=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
bale=${BALE:-$here/../build/bale}
mkdata=${MKDATA:-$here/../build/tests/bale-mkdata}
: "${AWS_ENDPOINT_URL:?the S3 endpoint}"
bucket=bale-bench-pack
. "$here/lib.sh"
s3_bench_setup
purge() { rc purge "s3:$bucket/$1" 2>/dev/null || true; }

mkdir -p "$work"
if [ ! -d "$work/tree" ]; then
    "$mkdata" random "$work/tree" -n "$n" --classes 100 >/dev/null
fi
rc mkdir "s3:$bucket"
count=$(rc size "s3:$bucket/train" --json 2>/dev/null |
    sed 's/.*"count":\([0-9]*\).*/\1/')
if [ "$count" != "$n" ]; then
    purge train
    rc copy "$work/tree" "s3:$bucket/train" --transfers 64
fi
bytes=$(du -sb "$work/tree" | cut -f1)

one_bale() { # bale pack from the bucket into it
    local t0 mem
    t0=$(now)
    mem=$(/usr/bin/time -f %M "$bale" pack "s3://$bucket/train/" \
        -o "s3://$bucket/bale/" -f wds -q 2>&1 >/dev/null | tail -1)
    echo "$(since "$t0") $mem"
}
one_pipeline() { # rclone down, bale pack, rclone up
    local t0 t1 t2 t3
    rm -rf "$work/down" "$work/shards"
    sync
    t0=$(now)
    rc copy "s3:$bucket/train" "$work/down" --transfers 64
    t1=$(now)
    "$bale" pack "$work/down" -o "$work/shards" -f wds -q
    t2=$(now)
    rc copy "$work/shards" "s3:$bucket/rclone" --transfers 64
    t3=$(now)
    echo "$(elapsed "$t3" "$t0") $(elapsed "$t1" "$t0")" \
        "$(elapsed "$t2" "$t1") $(elapsed "$t3" "$t2")"
}
one_upload() { # bale pack of the local tree (warm) into the bucket
    local t0 mem
    cat "$work"/tree/*/* >/dev/null
    t0=$(now)
    mem=$(/usr/bin/time -f %M "$bale" pack "$work/tree" \
        -o "s3://$bucket/up/" -f wds -q 2>&1 >/dev/null | tail -1)
    echo "$(since "$t0") $mem"
}

results=$(mktemp)
for r in $(seq "$runs"); do
    # the last round's outputs go, and the store's collection of their
    # bytes (seconds, tests/s3/gateway.sh) ends before the clock starts
    purge bale
    purge rclone
    purge up
    sleep 15
    if [ $((r % 2)) = 1 ]; then
        read -r b bmem < <(one_bale)
        read -r p down pk up < <(one_pipeline)
    else
        read -r p down pk up < <(one_pipeline)
        read -r b bmem < <(one_bale)
    fi
    read -r u umem < <(one_upload)
    printf '{"n":%s,"bytes":%s,"bale_s":%s,"bale_rss_kb":%s,' \
        "$n" "$bytes" "$b" "$bmem" | tee -a "$results"
    printf '"pipeline_s":%s,"down_s":%s,"pack_s":%s,"up_s":%s,' \
        "$p" "$down" "$pk" "$up" | tee -a "$results"
    printf '"upload_s":%s,"upload_rss_kb":%s}\n' "$u" "$umem" |
        tee -a "$results"
done
/usr/bin/python3 - "$results" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
med = lambda k: statistics.median(r[k] for r in rows)
print("median of %d runs, %d objects (%.0f MB)" % (len(rows), rows[0]["n"],
      rows[0]["bytes"] / 1e6))
print("bale s3->s3 %.2f s (peak %.0f MiB); rclone pipeline %.2f s "
      "(down %.2f, pack %.2f, up %.2f)" % (med("bale_s"),
      med("bale_rss_kb") / 1024, med("pipeline_s"), med("down_s"),
      med("pack_s"), med("up_s")))
print("ratio bale / pipeline: %.2f (each run: %s)" % (
      statistics.median(r["bale_s"] / r["pipeline_s"] for r in rows),
      ", ".join("%.2f" % (r["bale_s"] / r["pipeline_s"]) for r in rows)))
print("upload: bale pack local->s3 %.2f s (peak %.0f MiB), rclone copy "
      "up %.2f s; ratio %.2f" % (med("upload_s"), med("upload_rss_kb") / 1024,
      med("up_s"), statistics.median(r["upload_s"] / r["up_s"]
                                     for r in rows)))
PY
rm -f "$results"
