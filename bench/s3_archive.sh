#!/bin/bash
# An archive kept as an object packed in place, bale pack s3://B/t.tar
# -o OUT (nothing of it on local disk), against what a user does
# without that: rclone copy of the archive down, then bale pack of the
# local copy. Three archives of the same tree: a tar in directory order
# (tar -cf, its members in another order than torchvision's), a tar in
# name order (tar --sort=name, as Python's tarfile writes), a stored
# zip. Wall time, peak memory and the HTTP requests bale sent (its
# report). Runs alternate; medians of RUNS.
#
#   bench/s3_archive.sh N WORK [RUNS]
#
# N random images (~105 KB, 10 classes) in WORK/tree; AWS_ENDPOINT_URL,
# AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY name an S3 endpoint
# (tests/s3/gateway.sh up DIR PORT starts a one-node Ceph). Needs
# rclone (a Debian package), tar and zip; prints one JSON line a run
# and archive, then the medians.
set -euo pipefail
n=${1:?N}
work=${2:?WORK}
runs=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
bale=${BALE:-$here/../build/bale}
mkdata=${MKDATA:-$here/../build/tests/bale-mkdata}
: "${AWS_ENDPOINT_URL:?the S3 endpoint}"
bucket=bale-bench-archive
. "$here/lib.sh"
s3_bench_setup

mkdir -p "$work"
if [ ! -d "$work/tree" ]; then
    "$mkdata" random "$work/tree" -n "$n" --classes 10 >/dev/null
fi
archives="dirorder.tar sorted.tar stored.zip"
if [ ! -f "$work/stored.zip" ]; then
    tar -C "$work" -cf "$work/dirorder.tar" tree
    tar -C "$work" --sort=name -cf "$work/sorted.tar" tree
    (cd "$work" && zip -q -0 -r stored.zip tree)
fi
rc mkdir "s3:$bucket"
for a in $archives; do
    rc copyto "$work/$a" "s3:$bucket/$a"
done

one_bale() { # ARCHIVE: packed from the bucket
    local t0 mem
    rm -rf "$work/out"
    t0=$(now)
    mem=$(/usr/bin/time -f %M "$bale" pack "s3://$bucket/$1" \
        -o "$work/out" -f wds -q --report "$work/report.json" 2>&1 \
        >/dev/null | tail -1)
    echo "$(since "$t0") $mem $(/usr/bin/python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["http_requests"])' "$work/report.json")"
}
one_copy() { # ARCHIVE: rclone copy down, bale pack of the copy
    local t0 t1 t2
    rm -rf "$work/down" "$work/out"
    sync
    t0=$(now)
    rc copyto "s3:$bucket/$1" "$work/down/$1"
    t1=$(now)
    "$bale" pack "$work/down/$1" -o "$work/out" -f wds -q
    t2=$(now)
    echo "$(elapsed "$t2" "$t0") $(elapsed "$t1" "$t0") $(elapsed "$t2" "$t1")"
}

results=$(mktemp)
for r in $(seq "$runs"); do
    for a in $archives; do
        if [ $((r % 2)) = 1 ]; then
            read -r b mem req < <(one_bale "$a")
            read -r c down pk < <(one_copy "$a")
        else
            read -r c down pk < <(one_copy "$a")
            read -r b mem req < <(one_bale "$a")
        fi
        printf '{"archive":"%s","n":%s,"bytes":%s,"bale_s":%s,' "$a" \
            "$n" "$(stat -c %s "$work/$a")" "$b" | tee -a "$results"
        printf '"bale_rss_kb":%s,"requests":%s,"copy_pack_s":%s,' \
            "$mem" "$req" "$c" | tee -a "$results"
        printf '"down_s":%s,"pack_s":%s}\n' "$down" "$pk" |
            tee -a "$results"
    done
done
/usr/bin/python3 - "$results" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
for a in dict.fromkeys(r["archive"] for r in rows):
    rs = [r for r in rows if r["archive"] == a]
    med = lambda k: statistics.median(r[k] for r in rs)
    print("%s (%.0f MB, %d images), median of %d runs: bale in place "
          "%.2f s (peak %.0f MiB, %d requests); rclone copy + pack %.2f s "
          "(down %.2f, pack %.2f); ratio %.2f (each run: %s)" % (
              a, rs[0]["bytes"] / 1e6, rs[0]["n"], len(rs), med("bale_s"),
              med("bale_rss_kb") / 1024, med("requests"),
              med("copy_pack_s"), med("down_s"), med("pack_s"),
              statistics.median(r["bale_s"] / r["copy_pack_s"] for r in rs),
              ", ".join("%.2f" % (r["bale_s"] / r["copy_pack_s"])
                        for r in rs)))
PY
rm -f "$results"
