#!/bin/bash
# bale merge joins the parts of one run into what a single run writes:
# for 1 to 4 parts (given in any order), shuffled or not, the merged
# WebDataset and LMDB (default and Caffe layout, folder or one file)
# list the same samples (index, key, label, size, crc, path) with the
# same bytes and records, and verify; the shards are the parts' own
# files linked in (no copy). A missing, doubled or foreign part, a
# folder that is no part, and a format the parts lack are refused
# by name, with nothing written; a merged output is replaced only with
# --force. An interrupted or failed merge leaves nothing that looks
# complete, and redone it gives the whole output.
. "$TESTS/cli/lib.sh"
require_backend wds
require_backend lmdb
"$MKDATA" tricky "$T/in"
rm "$T/in/9/linked"
for order in "" "--shuffle --seed 3"; do
    # shellcheck disable=SC2086
    "$BALE" pack "$T/in" -f wds,lmdb -o "$T/single" -q --force \
        --shard-count 4 $order
    for n in 1 2 3 4; do
        rm -rf "$T/parts" "$T/merged"
        for ((i = 0; i < n; i++)); do
            # shellcheck disable=SC2086
            run "$BALE" pack "$T/in" -f wds,lmdb -o "$T/parts/p$i" -q \
                --shard-count 3 --part "$i/$n" $order
        done
        # shellcheck disable=SC2046
        run "$BALE" merge "$T/merged" $(ls -d "$T"/parts/* | sort -r)
        expect_status 0
        # how the parts were made is how the merged output was
        cmp "$T/parts/p0/data-made.json" "$T/merged/data-made.json" ||
            fail "the merge did not keep how the parts were made"
        for o in data-shards.json data.lmdb; do
            diff <("$BALE" ls "$T/single/$o") <("$BALE" ls "$T/merged/$o") ||
                fail "$n parts ($order) do not merge into the single $o"
            "$BALE" verify "$T/merged/$o" >/dev/null ||
                fail "the merged $o does not verify"
        done
        mkdir -p "$T/lmdb-only"
        rm -rf "$T/lmdb-only/data.lmdb"
        cp -r "$T/single/data.lmdb" "$T/lmdb-only/"
        "$PY" "$TESTS/cli/same_output.py" "$T/lmdb-only" "$T/merged" ||
            fail "the merged LMDB's records differ"
        rm -rf "$T/x1" "$T/x2"
        "$BALE" extract "$T/single/data-shards.json" "$T/x1" >/dev/null
        "$BALE" extract "$T/merged/data-shards.json" "$T/x2" >/dev/null
        diff -r "$T/x1" "$T/x2" || fail "merged bytes differ"
    done
done
# the other LMDB layouts: Caffe Datums, one file instead of a folder
for lay in "--lmdb-layout caffe" --lmdb-nosubdir; do
    rm -rf "$T/l1" "$T/lp" "$T/lm"
    # shellcheck disable=SC2086
    "$BALE" pack "$T/in" -f lmdb -o "$T/l1" -q $lay
    for i in 0 1 2; do
        # shellcheck disable=SC2086
        "$BALE" pack "$T/in" -f lmdb -o "$T/lp/p$i" -q --part "$i/3" $lay
    done
    run "$BALE" merge "$T/lm" "$T"/lp/*
    expect_status 0
    diff <("$BALE" ls "$T/l1/data.lmdb") <("$BALE" ls "$T/lm/data.lmdb") ||
        fail "$lay parts do not merge into the single run"
done
[ -f "$T/lm/data.lmdb" ] || fail "a one-file LMDB merged into a folder"

# the shards are the parts' files, linked, and their .idx files too
[ "$(stat -c %h "$T/merged/data-000000.tar")" -ge 2 ] ||
    fail "a merged shard is a copy"
cmp "$T/merged/data-000000.idx" "$T/parts/p0/data-000000.idx"

# --copy: the shards are copies, the same bytes
run "$BALE" merge "$T/copied" "$T"/parts/* -f wds --copy
expect_status 0
[ "$(stat -c %h "$T/copied/data-000000.tar")" -eq 1 ] ||
    fail "a --copy shard is a link"
cmp "$T/copied/data-000000.tar" "$T/parts/p0/data-000000.tar"
cmp "$T/copied/data-000000.idx" "$T/parts/p0/data-000000.idx"
diff <("$BALE" ls "$T/single/data-shards.json") \
    <("$BALE" ls "$T/copied/data-shards.json") || fail "--copy differs"

# refusals: each names its part, and writes nothing
nothing() { [ ! -e "$T/$1/data-shards.json" ] || fail "$1 was written"; }
run "$BALE" merge "$T/m1" "$T/parts/p0" "$T/parts/p1" "$T/parts/p3"
expect_status 1
expect_stderr "part 2 of 4 is missing"
nothing m1
run "$BALE" merge "$T/m2" "$T"/parts/* "$T/parts/p2"
expect_status 1
expect_stderr "'$T/parts/p2' and '$T/parts/p2' are both part 2 of 4"
nothing m2
"$BALE" pack "$T/in" -f wds -o "$T/foreign" -q --part 1/4 --seed 4 \
    --shuffle
run "$BALE" merge "$T/m3" "$T/parts/p0" "$T/foreign" "$T/parts/p2" \
    "$T/parts/p3"
expect_status 1
expect_stderr "'$T/foreign' is a part of another run than '$T/parts/p0'"
nothing m3
run "$BALE" merge "$T/m4" "$T"/parts/* "$T/single"
expect_status 1
expect_stderr "'$T/single' holds no complete part"
nothing m4
# -f merges only the formats named
"$BALE" pack "$T/in" -f wds,lmdb -o "$T/both" -q --part 0/1
run "$BALE" merge "$T/m5" "$T/both" -f wds
expect_status 0
[ -e "$T/m5/data-shards.json" ] && [ ! -e "$T/m5/data.lmdb" ] ||
    fail "merge -f wds merged another format"
run "$BALE" merge "$T/m6" "$T/both" -f hdf5
expect_status 1
expect_stderr "the parts hold no 'hdf5' output"
# an existing merged output stays unless --force
run "$BALE" merge "$T/merged" "$T"/parts/*
expect_status 1
expect_stderr "exists (use --force to replace it)"
run "$BALE" merge "$T/merged" "$T"/parts/* --force
expect_status 0
"$BALE" verify "$T/merged/data-shards.json" >/dev/null

# an interrupted merge: what it left is not taken for output, and the
# merge run again gives the whole output
mkdir -p "$T/m7/data.lmdb.partial"
echo junk >"$T/m7/data.lmdb.partial/data.mdb"
echo junk >"$T/m7/data-shards.json.partial"
run "$BALE" merge "$T/m7" "$T"/parts/*
expect_status 0
[ -z "$(find "$T/m7" -name '*.partial')" ] || fail "a merge kept leftovers"
for o in data-shards.json data.lmdb; do
    diff <("$BALE" ls "$T/single/$o") <("$BALE" ls "$T/m7/$o") ||
        fail "a merge over leftovers differs in $o"
done
# a merge that fails part-way (a part's LMDB cut short) leaves nothing
# that looks complete, and does not crash; redone, it is whole
cp -r "$T/parts" "$T/bad"
truncate -s 16384 "$T/bad/p2/data.lmdb/data.mdb"
run "$BALE" merge "$T/m8" "$T"/bad/* -f lmdb
expect_status 1
expect_stderr "is cut short"
[ ! -e "$T/m8/data.lmdb" ] && [ ! -e "$T/m8/data.lmdb.partial" ] ||
    fail "a failed merge left an LMDB"
run "$BALE" merge "$T/m8" "$T"/parts/* -f lmdb
expect_status 0
diff <("$BALE" ls "$T/single/data.lmdb") <("$BALE" ls "$T/m8/data.lmdb") ||
    fail "the merge redone differs"
exit 0
