#!/bin/bash
# --part I/N packs the I-th of N contiguous slices of the final order,
# balanced by count, with the whole run's keys: for every N from 1 to 5,
# shuffled or not, the parts in order hold exactly a single run's
# samples (keys, labels, sizes, checksums, paths; the same bytes), in
# every format. Each part leaves NAME-part.json once complete, naming the
# whole run; a rerun of a complete part does nothing; a failed one leaves
# no marker. 'auto' takes the rank and count from Slurm or Kubernetes.
. "$TESTS/cli/lib.sh"
for f in wds lmdb hdf5; do require_backend "$f"; done
"$MKDATA" tricky "$T/in"
rm "$T/in/9/linked"
fmts=wds,lmdb,hdf5
outs=(data-shards.json data.lmdb data.h5)
lsof() { "$BALE" ls "$1" | cut -f2-; }    # key label size crc path
for order in "" "--shuffle --seed 7"; do
    # shellcheck disable=SC2086
    "$BALE" pack "$T/in" -f $fmts -o "$T/single" -q --force $order
    for n in 1 2 3 4 5; do
        rm -rf "$T/parts"
        for ((i = n - 1; i >= 0; i--)); do    # any order of the parts
            # shellcheck disable=SC2086
            run "$BALE" pack "$T/in" -f $fmts -o "$T/parts/p$i" -q \
                --part "$i/$n" $order
            [ "$status" -eq 0 ] || [ "$status" -eq 3 ] ||
                fail "part $i/$n exited $status"
        done
        for o in "${outs[@]}"; do
            diff <(lsof "$T/single/$o") <(for ((i = 0; i < n; i++)); do
                lsof "$T/parts/p$i/$o"; done) ||
                fail "$n parts ($order) of $o are not the single run"
        done
        "$PY" - "$T/parts" "$n" <<'PY'
import json, sys
base, n = sys.argv[1], int(sys.argv[2])
marks = [json.load(open("%s/p%d/data-part.json" % (base, i)))
         for i in range(n)]
assert {m["run"] for m in marks} == {marks[0]["run"]}, marks
assert [m["part"] for m in marks] == list(range(n)), marks
assert all(m["parts"] == n and m["total"] == marks[0]["total"]
           for m in marks), marks
first = 0
for m in marks:  # contiguous, balanced by count
    assert m["first"] == first, marks
    assert m["count"] in (m["total"] // n, -(-m["total"] // n)), marks
    first += m["count"]
assert first == marks[0]["total"], marks
PY
    done
    # the same bytes: each part's samples extracted land on the single
    # run's, file for file
    rm -rf "$T/x1" "$T/x2"
    "$BALE" extract "$T/single/data.lmdb" "$T/x1" >/dev/null
    for ((i = 0; i < 5; i++)); do
        "$BALE" extract "$T/parts/p$i/data.h5" "$T/x2" >/dev/null
    done
    diff -r "$T/x1" "$T/x2" || fail "the parts' bytes differ ($order)"
done

# a Caffe-layout LMDB keys its records by the whole run's position too
"$BALE" pack "$T/in" -f lmdb --lmdb-layout caffe -o "$T/caffe" -q
for i in 0 1 2; do
    "$BALE" pack "$T/in" -f lmdb --lmdb-layout caffe -o "$T/caffe-p$i" -q \
        --part "$i/3"
done
diff <(lsof "$T/caffe/data.lmdb") <(for i in 0 1 2; do
    lsof "$T/caffe-p$i/data.lmdb"; done) || fail "Caffe parts differ"

# another seed is another run: its parts say so
"$BALE" pack "$T/in" -f wds -o "$T/other" -q --part 0/5 --shuffle --seed 8
"$PY" -c 'import json, sys
a, b = (json.load(open(p))["run"] for p in sys.argv[1:])
assert a != b, a' "$T/parts/p0/data-part.json" "$T/other/data-part.json"

# a relaunched array: a complete part is left as it is
before=$(stat -c %Y.%s "$T/parts/p2/data.lmdb/data.mdb" \
    "$T/parts/p2/data-part.json")
run "$BALE" pack "$T/in" -f $fmts -o "$T/parts/p2" --part 2/5 \
    --shuffle --seed 7
expect_status 0
expect_stderr "part 2/5 of this run is already complete"
[ "$before" = "$(stat -c %Y.%s "$T/parts/p2/data.lmdb/data.mdb" \
    "$T/parts/p2/data-part.json")" ] || fail "a complete part was redone"
# a part that fails leaves no marker
mkdir -p "$T/failed"
echo taken >"$T/failed/data.h5"
run "$BALE" pack "$T/in" -f $fmts -o "$T/failed" --part 1/2
expect_status 1
[ ! -e "$T/failed/data-part.json" ] || fail "a failed part left its marker"

# --part auto: Slurm's array (from its first index), its tasks, or a
# Kubernetes indexed Job
mark() { "$PY" -c 'import json, sys
m = json.load(open(sys.argv[1]))
print("%d/%d" % (m["part"], m["parts"]))' "$1/data-part.json"; }
SLURM_ARRAY_TASK_ID=3 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_COUNT=4 \
    "$BALE" pack "$T/in" -f wds -o "$T/auto1" -q --part auto
[ "$(mark "$T/auto1")" = 2/4 ] || fail "Slurm array: $(mark "$T/auto1")"
env -u SLURM_ARRAY_TASK_ID SLURM_PROCID=1 SLURM_NTASKS=3 \
    "$BALE" pack "$T/in" -f wds -o "$T/auto2" -q --part auto
[ "$(mark "$T/auto2")" = 1/3 ] || fail "Slurm tasks: $(mark "$T/auto2")"
env -u SLURM_ARRAY_TASK_ID -u SLURM_PROCID JOB_COMPLETION_INDEX=0 \
    JOB_COMPLETIONS=2 "$BALE" pack "$T/in" -f wds -o "$T/auto3" -q \
    --part auto
[ "$(mark "$T/auto3")" = 0/2 ] || fail "Kubernetes: $(mark "$T/auto3")"

# specs that name no part: a usage error, nothing written
for spec in 3/3 x/2 1/0 -1/2 2 auto; do
    run env -u SLURM_ARRAY_TASK_ID -u SLURM_PROCID -u JOB_COMPLETION_INDEX \
        "$BALE" pack "$T/in" -f wds -o "$T/bad" --part "$spec"
    expect_status 2
    expect_stderr "--part $spec:"
    expect_no_output "$T/bad"
done
exit 0
