#!/bin/bash
# A list file may name a file more than once (to weigh it): each line is
# a sample, and updates keep them all. With nothing changed an update
# removes nothing (an update used to match both lines to one sample and
# drop the other); a line dropped removes one sample, lines added add
# as many, and the file changed replaces each. The same with the list in
# path order and shuffled (the update sorts both sides then).
. "$TESTS/cli/lib.sh"
export LC_ALL=C
fmt=$(any_backend)
"$MKDATA" random "$T/tree" -n 12 --classes 2 --min 16 --max 32 --seed 5
twice=$(cd "$T/tree" && find . -type f | sed 's|^\./||' | sort | head -n 1)

# list ORDER COPIES: every file once, $twice COPIES times in all
list() {
    "$PY" - "$T/tree" "$twice" "$@" >"$T/list" <<'PYEOF'
import os, random, sys
root, twice, order, copies = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
classes = sorted(os.listdir(root))
rows = sorted("%s/%s\t%d" % (c, f, i) for i, c in enumerate(classes)
              for f in os.listdir(os.path.join(root, c)))
rows += [r for r in rows if r.startswith(twice + "\t")] * (copies - 1)
if order == "shuffled":
    random.Random(7).shuffle(rows)
else:
    rows.sort()
print("\n".join(rows))
PYEOF
}
update() {    # OUT WANT: the report's line
    run "$BALE" pack "$T/tree" --list "$T/list" -f "$fmt" -o "$T/$1" \
        --update
    expect_status 0
    expect_stderr "$2"
}
copies() {    # OUT N: the output holds $twice N times, 11 + N samples
    local n
    n=$("$BALE" ls "$T/$1" | awk -F'\t' -v p="$twice" '$NF == p' | wc -l)
    [ "$n" = "$2" ] || fail "$1: '$twice' $n times, not $2"
    n=$("$BALE" ls "$T/$1" | wc -l)
    [ "$n" = $((11 + $2)) ] || fail "$1: $n samples, not $((11 + $2))"
}

for order in sorted shuffled; do
    out=out-$order
    list $order 2
    update $out "13 added, 0 replaced, 0 removed"
    copies $out 2
    update $out "nothing changed since version 1"
    copies $out 2
    list $order 1
    update $out "0 added, 0 replaced, 1 removed, 12 unchanged"
    copies $out 1
    list $order 3
    update $out "2 added, 0 replaced, 0 removed, 12 unchanged"
    copies $out 3
done
# changed: each of its samples is packed again, in both outputs
cat "$T/tree/$twice" "$T/tree/$twice" >"$T/grown"
mv "$T/grown" "$T/tree/$twice"
for order in sorted shuffled; do
    list $order 3
    update out-$order "0 added, 3 replaced, 0 removed, 11 unchanged"
    copies out-$order 3
    update out-$order "nothing changed since version 4"
done
exit 0
