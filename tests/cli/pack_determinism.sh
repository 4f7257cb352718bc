#!/bin/bash
# The output is a function of the input and options only: -j1 and -j8
# give byte-identical shards, indexes and lists, shuffled or not.
. "$TESTS/cli/lib.sh"
require_backend wds
"$MKDATA" random "$T/in" -n 300 --classes 7 --min 16 --max 300 -j 2
same() { # same DIR1 DIR2: every file byte-identical
    [ "$(ls "$1")" = "$(ls "$2")" ] || fail "$1 and $2 hold different files"
    for f in "$1"/*; do cmp "$f" "$2/$(basename "$f")" || fail "$f differs"; done
}
for opts in "" "--shuffle --seed 7"; do
    for j in 1 8; do
        # shellcheck disable=SC2086
        "$BALE" pack "$T/in" -f wds -o "$T/j$j" --shard-count 40 -j $j $opts -q
    done
    same "$T/j1" "$T/j8"
    "$PY" "$CHECK" "$T/j1" "$T/in" --count 300 --max-count 40
    mv "$T/j1" "$T/run${opts:+-shuffled}"
    rm -rf "$T/j8"
done
# shuffling changes the order, and the seed chooses it
cmp -s "$T/run/data-000000.tar" "$T/run-shuffled/data-000000.tar" &&
    fail "--shuffle did not change the order"
"$BALE" pack "$T/in" -f wds -o "$T/seed8" --shard-count 40 --shuffle --seed 8 -q
cmp -s "$T/seed8/data-000000.tar" "$T/run-shuffled/data-000000.tar" &&
    fail "--seed did not change the order"
exit 0
