#!/bin/bash
# Archives kept as objects (s3://bucket/train.tar), read in place: a tar
# (GNU and pax), a zip (stored and deflated), a tar of class tars and
# compressed tars pack into the same files, byte for byte, as the same
# archive on disk, in every format built in; a tar's listing reads the
# object in large ranges (not a request a member), a zip's its directory
# alone; through SlowDown answers and dropped connections the output is
# the same; an archive cut short in the store fails as it does on disk. Several archives there
# make one dataset, and a list file picks members, as on disk. Parquet
# files there pack as on disk, and update an output as they change.
. "$TESTS/cli/lib.sh"
. "$TESTS/s3/lib.sh"
require_backend wds	# the counts, faults, lists and cuts write it
formats=$(writers | tr ',' '\n' | grep -E '^(wds|lmdb|hdf5)$' | paste -sd, -)
[ -n "$formats" ] || { echo "skipped: no format that writes is built in"; exit 77; }
make_bucket
"$MKDATA" random "$T/in" -n 150 --classes 3 >/dev/null
"$PY" "$TESTS/cli/make_archives.py" "$T/in" "$T/arc"
tar -C "$T/in" -cf "$T/arc/gnutar.tar" .
tar -C "$T/in" -czf "$T/arc/gnutar.tar.gz" .
upload "$T/arc" "s3://$BUCKET/arc"
for a in gnutar.tar pax.tar stored.zip deflated.zip tars.tar \
    gnutar.tar.gz tars.tar.gz shuffled.tar.xz; do
    run "$BALE" pack "$T/arc/$a" -f "$formats" -o "$T/local-$a"
    expect_status 0
    grep '^bale pack' "$T/stderr" | sed 's/ in [0-9.]* s.*//; s/local-/at-/' \
        > "$T/said.local"
    run "$BALE" pack "s3://$BUCKET/arc/$a" -f "$formats" -o "$T/remote-$a"
    expect_status 0
    grep '^bale pack' "$T/stderr" | sed 's/ in [0-9.]* s.*//; s/remote-/at-/' \
        > "$T/said.remote"
    diff "$T/said.local" "$T/said.remote" || fail "$a: the runs said otherwise"
    same_files "$T/local-$a" "$T/remote-$a"
done

# Parquet files kept as objects: as the same files on disk
pq="$TESTS/parquet/fixtures"
s3 put "$pq/hf-snappy.parquet" "s3://$BUCKET/pq/a.parquet" >/dev/null
s3 put "$pq/duckdb-gzip-v2.parquet" "s3://$BUCKET/pq/b.parquet" >/dev/null
"$BALE" pack "$pq/hf-snappy.parquet" "$pq/duckdb-gzip-v2.parquet" \
    -f "$formats" -o "$T/pq-local" -q
run "$BALE" pack "s3://$BUCKET/pq/a.parquet" "s3://$BUCKET/pq/b.parquet" \
    -f "$formats" -o "$T/pq-remote"
expect_status 0
same_files "$T/pq-local" "$T/pq-remote"
# the folder of them, and a wildcard pattern: the files listed, sorted
# by name, as on disk
for src in "s3://$BUCKET/pq/" "s3://$BUCKET/pq/*.parquet"; do
    rm -rf "$T/pq-set"
    run "$BALE" pack "$src" -f "$formats" -o "$T/pq-set"
    expect_status 0
    same_files "$T/pq-local" "$T/pq-set"
done
run "$BALE" pack "s3://$BUCKET/pq/none-*.parquet" -f wds -o "$T/pq-none"
expect_status 1
expect_stderr "no such object or prefix"
# row groups of images over 1 MiB: their chunks fetched whole, in one
# request each
s3 put "$pq/large.parquet" "s3://$BUCKET/pq/large.parquet" >/dev/null
"$BALE" pack "$pq/large.parquet" -f "$formats" -o "$T/pq-large-local" -q
run "$BALE" pack "s3://$BUCKET/pq/large.parquet" -f "$formats" \
    -o "$T/pq-large-remote"
expect_status 0
expect_stderr "12 samples"
same_files "$T/pq-large-local" "$T/pq-large-remote"
# updated from objects: one that changed (its ETag moved) is read again,
# its rows packed again; the other's stay
s3 put "$pq/split-0.parquet" "s3://$BUCKET/pq/u/0.parquet" >/dev/null
s3 put "$pq/split-1.parquet" "s3://$BUCKET/pq/u/1.parquet" >/dev/null
upd_pq() {
    run "$BALE" pack "s3://$BUCKET/pq/u/0.parquet" \
        "s3://$BUCKET/pq/u/1.parquet" -f wds -o "$T/pq-upd" --update \
        --report "$T/pq-upd.json"
    expect_status 0
}
upd_pq
upd_pq
expect_stderr "nothing changed"
s3 put "$pq/split-1-less.parquet" "s3://$BUCKET/pq/u/1.parquet" >/dev/null
upd_pq
"$PY" - "$T/pq-upd.json" <<'PY' || fail "the update from objects: $(cat "$T/pq-upd.json")"
import json, sys
u = json.load(open(sys.argv[1]))["update"]
assert [len(u["added"]), len(u["replaced"]), len(u["removed"]),
        u["unchanged"]] == [0, 19, 1, 20], u
PY
"$BALE" pack "$pq/split-0.parquet" "$pq/split-1-less.parquet" -f wds \
    -o "$T/pq-upd-local" -q
diff <("$BALE" ls "$T/pq-upd-local" | cut -f3-6 | sort) \
    <("$BALE" ls "$T/pq-upd" | cut -f3-6 | sort) ||
    fail "the update from objects does not hold the files' rows"

# several archives as one dataset, and a list file naming members: as
# the same archives on disk
cut_half() { "$PY" - "$1" "$2" "$3" <<'PY'
import sys, tarfile
src, first, second = sys.argv[1:]
with tarfile.open(src) as t:
    members = t.getmembers()
half = len(members) // 2
for name, part in ((first, members[:half]), (second, members[half:])):
    with tarfile.open(src) as t, tarfile.open(name, "w") as out:
        for m in part:
            out.addfile(m, t.extractfile(m) if m.isfile() else None)
PY
}
cut_half "$T/arc/gnutar.tar" "$T/one.tar" "$T/two.tar"
s3 put "$T/one.tar" "s3://$BUCKET/one.tar" >/dev/null
s3 put "$T/two.tar" "s3://$BUCKET/two.tar" >/dev/null
"$BALE" pack "$T/one.tar" "$T/two.tar" -f wds -o "$T/two-local" -q
run "$BALE" pack "s3://$BUCKET/one.tar" "s3://$BUCKET/two.tar" -f wds \
    -o "$T/two-remote"
expect_status 0
same_files "$T/two-local" "$T/two-remote"
(cd "$T/in" && find . -name '*.JPEG' | sed 's|^\./||' | sort | sed -n '1~4p' |
    awk '{ print $0 "\t" NR % 3 }' | tac) > "$T/list"
"$BALE" pack "$T/arc/pax.tar" --list "$T/list" -f wds -o "$T/list-local" -q
run "$BALE" pack "s3://$BUCKET/arc/pax.tar" --list "$T/list" -f wds \
    -o "$T/list-remote"
expect_status 0
same_files "$T/list-local" "$T/list-remote"

# the listing reads the tar in large ranges: far fewer GETs than members
start_proxy --log "$T/requests"
AWS_ENDPOINT_URL=$proxy_url run "$BALE" pack "s3://$BUCKET/arc/gnutar.tar" \
    -f wds -o "$T/counted"
stop_proxy
expect_status 0
gets=$(grep -c '^GET' "$T/requests")
[ "$gets" -lt 50 ] || fail "$gets GETs for a tar of 150 members"

# members read out of the tar's order (1100 in a shuffled tar: three
# batches ahead of the workers, blocks wanted by several, members
# across two blocks) come in blocks asked ahead, not in a request each,
# and the output is the local one's; the report counts the requests
"$MKDATA" random "$T/small" -n 1100 --classes 4 --min 100 --max 200 >/dev/null
"$PY" - "$T/small" "$T/shuffled.tar" <<'PY'
import os, random, sys, tarfile
src, out = sys.argv[1:]
names = sorted(os.path.relpath(os.path.join(r, f), src)
               for r, _, fs in os.walk(src) for f in fs)
random.Random(5).shuffle(names)
with tarfile.open(out, "w") as t:
    for n in names:
        t.add(os.path.join(src, n), n)
PY
s3 put "$T/shuffled.tar" "s3://$BUCKET/shuffled.tar" >/dev/null
"$BALE" pack "$T/shuffled.tar" -f wds -o "$T/shuffled-local" -q
start_proxy --log "$T/shuffled-requests"
AWS_ENDPOINT_URL=$proxy_url run "$BALE" pack "s3://$BUCKET/shuffled.tar" \
    -f wds -o "$T/shuffled-remote" --report "$T/shuffled.json"
stop_proxy
expect_status 0
same_files "$T/shuffled-local" "$T/shuffled-remote"
gets=$(grep -c '^GET' "$T/shuffled-requests")
[ "$gets" -lt 100 ] || fail "$gets GETs for a shuffled tar of 1100 members"
"$PY" -c 'import json, sys
r = json.load(open(sys.argv[1]))
assert r["http_requests"] >= '"$gets"', r' "$T/shuffled.json" ||
    fail "the report counts fewer requests than were sent"

# a zip's listing reads its directory alone (each member's local header
# is read with it): a list naming one member costs a few GETs
printf '%s\t0\n' "$(head -1 "$T/list" | cut -f1)" > "$T/one.list"
start_proxy --log "$T/zip-requests"
AWS_ENDPOINT_URL=$proxy_url run "$BALE" pack "s3://$BUCKET/arc/deflated.zip" \
    --list "$T/one.list" -f wds -o "$T/one"
stop_proxy
expect_status 0
gets=$(grep -c '^GET' "$T/zip-requests")
[ "$gets" -le 6 ] || fail "$gets GETs to list a zip and read one member"

# faults: retried, the same output
start_proxy --slowdown-every 5 --drop-every 7
AWS_ENDPOINT_URL=$proxy_url run "$BALE" pack "s3://$BUCKET/arc/deflated.zip" \
    -f wds -o "$T/faults-zip"
AWS_ENDPOINT_URL=$proxy_url run "$BALE" pack "s3://$BUCKET/arc/gnutar.tar.gz" \
    -f wds -o "$T/faults-tgz"
stop_proxy
expect_status 0
cmp -s "$T/local-gnutar.tar.gz/data-000000.tar" "$T/faults-tgz/data-000000.tar" ||
    fail "the shard packed through faults differs"

# cut short in the store: the same failure as on disk
head -c 3000000 "$T/arc/gnutar.tar" > "$T/cut.tar"
s3 put "$T/cut.tar" "s3://$BUCKET/cut.tar" >/dev/null
run "$BALE" pack "$T/cut.tar" -f wds -o "$T/cut-local"
local_status=$status
grep '^bale pack' "$T/stderr" | sed "s|$T/cut.tar|CUT|; s/ in [0-9.]* s.*//; s/cut-local/at/" \
    > "$T/said.local"
run "$BALE" pack "s3://$BUCKET/cut.tar" -f wds -o "$T/cut-remote"
[ "$status" = "$local_status" ] ||
    fail "exit $status, where the archive on disk gave $local_status"
grep '^bale pack' "$T/stderr" | sed "s|s3://$BUCKET/cut.tar|CUT|; s/ in [0-9.]* s.*//; s/cut-remote/at/" \
    > "$T/said.remote"
diff "$T/said.local" "$T/said.remote" || fail "a cut archive fails otherwise"
echo ok
