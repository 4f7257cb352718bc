#!/bin/bash
# The compact index beside each WebDataset shard (NAME-NNNNNN.bidx):
# written with every shard, read in place of the .idx files (an output
# whose .idx files are gone still reads, sample for sample the same),
# kept through merge and update, and passed over for the .idx where a
# shard has none. verify compares each index with its shard.
. "$TESTS/cli/lib.sh"
require_backend wds
"$MKDATA" random "$T/tree" -n 60 --classes 3 >/dev/null
"$BALE" pack "$T/tree" -f wds -o "$T/out" -q --shard-count 25 --update
for no in 0 1 2; do
    [ -f "$T/out/data-00000$no.bidx" ] || fail "shard $no has no .bidx"
done
"$BALE" ls "$T/out" >"$T/ls.want"

same_without() { # DIR WHAT: DIR reads the same with no .idx, and no .bidx
    rm -rf "$T/noidx" "$T/nobidx"
    cp -r "$1" "$T/noidx"
    cp -r "$1" "$T/nobidx"
    rm "$T/noidx"/*.idx
    rm "$T/nobidx"/*.bidx
    cmp <("$BALE" ls "$T/noidx") <("$BALE" ls "$T/nobidx") ||
        fail "$2: the .bidx and the .idx give other samples"
    run "$BALE" verify "$1"
    expect_status 0
}
same_without "$T/out" "a fresh output"

# merged parts: their indexes are linked in with their shards
for i in 0 1; do
    "$BALE" pack "$T/tree" -f wds -o "$T/p$i" -q --part $i/2 --shard-count 25
done
"$BALE" merge "$T/merged" "$T/p0" "$T/p1" -f wds >/dev/null
[ "$(ls "$T/merged"/*.bidx | wc -l)" = "$(ls "$T/merged"/*.tar | wc -l)" ] ||
    fail "merge: not every shard has its .bidx"
cmp <("$BALE" ls "$T/merged") "$T/ls.want" || fail "merge: other samples"
same_without "$T/merged" "merge"

# an update that adds: the delta's shards come in with their indexes
cp "$T/tree/$(ls "$T/tree" | head -1)/$(ls "$T/tree/$(ls "$T/tree" | head -1)" | head -1)" \
    "$T/tree/$(ls "$T/tree" | head -1)/zz-new.jpg"
"$BALE" pack "$T/tree" -f wds -o "$T/out" -q --update --shard-count 25
same_without "$T/out" "an update that adds"

# an update that removes: the shard it rewrites gets an index made from
# the old one's entries, moved with the samples
rm "$T/tree/$(ls "$T/tree" | head -1)/zz-new.jpg"
gone=$(ls "$T/tree/$(ls "$T/tree" | head -1)" | head -1)
rm "$T/tree/$(ls "$T/tree" | head -1)/$gone"
before=$(ls "$T/out"/*.tar | wc -l)
"$BALE" pack "$T/tree" -f wds -o "$T/out" -q --update --shard-count 25
[ "$(ls "$T/out"/*.tar | wc -l)" -gt "$before" ] ||
    fail "the update rewrote no shard"
cmp <("$BALE" ls "$T/out" | cut -f6 | sort) \
    <(cut -f6 "$T/ls.want" | grep -v "/$gone\$" | sort) ||
    fail "after removing a file: other samples"
same_without "$T/out" "an update that removes"

# a .bidx from before its tar changed is passed over (stale), and verify
# says so
cp -r "$T/merged" "$T/stale"
cp "$T/stale/data-000001.bidx" "$T/stale/data-000000.bidx"
cmp <("$BALE" ls "$T/stale") "$T/ls.want" || fail "a stale .bidx was used"
run "$BALE" verify "$T/stale"
expect_status 1
expect_stderr "the .bidx beside"
