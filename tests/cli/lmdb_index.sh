#!/bin/bash
# LMDB's compact label index: __labels__, one int32 a sample in the
# order of __keys__, written by pack, by a resumed pack, by merge and by
# update, so labels() reads 4 bytes a sample from it; one out of step
# with the keys is not used, and verify compares it with each K.cls.
. "$TESTS/cli/lib.sh"
require_backend lmdb
"$MKDATA" random "$T/tree" -n 40 --classes 4 >/dev/null
# labels OUT: __labels__ as numbers, one a line ("none" without it)
labels_record() {
    "$PY" - "$1" <<'PYEOF'
import array, sys, lmdb
env = lmdb.open(sys.argv[1], readonly=True, lock=False,
                subdir=not sys.argv[1].endswith("lmdb") or
                __import__("os").path.isdir(sys.argv[1]))
with env.begin() as t:
    v = t.get(b"__labels__")
    keys = t.get(b"__keys__").decode().split()
    if v is None:
        print("none")
        sys.exit()
    a = array.array("i", v)
    assert len(a) == len(keys), "one label a key"
    for k, l in zip(keys, a):
        assert int(t.get(k.encode() + b".cls")) == l, k
        print(l)
PYEOF
}
check_labels() { # OUT WHAT: __labels__ there, and what K.cls says
    [ "$(labels_record "$1/data.lmdb" | awk "NR == 1")" != none ] ||
        fail "$2: no __labels__"
    labels_record "$1/data.lmdb" >/dev/null || fail "$2: __labels__ wrong"
    run "$BALE" verify "$1"
    expect_status 0
}
"$BALE" pack "$T/tree" -f lmdb -o "$T/out" -q --update
check_labels "$T/out" "pack"
[ "$(labels_record "$T/out/data.lmdb" | wc -l)" = 40 ] || fail "40 labels"

for i in 0 1 2; do
    "$BALE" pack "$T/tree" -f lmdb -o "$T/p$i" -q --part $i/3
done
"$BALE" merge "$T/merged" "$T/p0" "$T/p1" "$T/p2" -f lmdb >/dev/null
check_labels "$T/merged" "merge"
cmp <(labels_record "$T/merged/data.lmdb") <(labels_record "$T/out/data.lmdb") ||
    fail "merge: other labels"

# update: one file added, one removed
first=$(ls "$T/tree" | head -1)
cp "$T/tree/$first/$(ls "$T/tree/$first" | head -1)" "$T/tree/$first/zz.jpg"
rm "$T/tree/$(ls "$T/tree" | tail -1)/$(ls "$T/tree/$(ls "$T/tree" | tail -1)" | head -1)"
"$BALE" pack "$T/tree" -f lmdb -o "$T/out" -q --update
check_labels "$T/out" "update"
[ "$(labels_record "$T/out/data.lmdb" | wc -l)" = 40 ] ||
    fail "update: not 40 labels"

# a K.cls changed behind __labels__'s back: verify says which
"$PY" - "$T/out/data.lmdb" <<'PYEOF'
import sys, lmdb
env = lmdb.open(sys.argv[1], map_size=1 << 30)
with env.begin(write=True) as t:
    key = t.get(b"__keys__").decode().split()[3]
    old = int(t.get(key.encode() + b".cls"))
    t.put(key.encode() + b".cls", str((old + 1) % 4).encode())
PYEOF
run "$BALE" verify "$T/out"
expect_status 1
expect_stderr "in __labels__"
