#!/bin/bash
# bench runs every target warm and cold with 1 and 2 threads, says how it
# measured, evicts the cache for cold runs, and writes JSON and SVG.
# Correctness only: no timing is asserted. Every format built is a
# target, and so is each one's benchmark variant bench --help names.
. "$TESTS/cli/lib.sh"
formats=$(need_writers) || exit 77
"$MKDATA" tricky "$T/in"
"$BALE" pack "$T/in" -f "$formats" -o "$T/out" -q
# "With a FORMAT output, 'VARIANT' reads ...": the variants of the built
variants=$("$BALE" bench --help | sed -n "s/^With a \([a-z0-9]*\) output, '\([^']*\)'.*/\1 \2/p" |
    while read -r f v; do ! built "$f" || echo "$v"; done | paste -sd, -)
run "$BALE" bench "$T/out" --against "$T/in" -t 1,2 --cache both -r 2 \
    --decode --json "$T/b.json" --svg "$T/b.svg"
expect_status 0
grep -q '^method: 24 samples per run, random order' "$T/stdout" ||
    fail "the method is not stated"
# the residency checks in one line, not one a run (24 cold runs here)
expect_stderr "cold runs: at most 0."
expect_stderr "% of a target's pages were cached when a run began"
expect_no_stderr "resident before"
expect_no_stderr "eviction did not take"
[ "$(wc -l <"$T/stderr")" -le 3 ] || fail "bench says too much: $(cat "$T/stderr")"
"$PY" - "$T/b.json" "$formats" "$variants" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
rows = b["results"]
targets = {r["target"] for r in rows}
want = {"folder"} | set(sys.argv[2].split(",")) | \
    set(v for v in sys.argv[3].split(",") if v)
assert targets == want, (targets, want)
assert {(r["cache"], r["threads"]) for r in rows} == \
    {("warm", 1), ("warm", 2), ("cold", 1), ("cold", 2)}
for r in rows:
    assert len(r["samples_per_s"]) == 2 and min(r["samples_per_s"]) > 0, r
    if r["cache"] == "cold":
        assert max(r["resident_before"]) < 0.05, r
assert b["method"]["decode"] is True
PY
grep -q "<svg" "$T/b.svg" && grep -q ">${formats##*,}<" "$T/b.svg" || fail "no chart"
# one scale for warm and cold alike, and each bar's spread drawn
"$PY" - "$T/b.json" "$T/b.svg" <<'PY'
import json, re, sys
rows = json.load(open(sys.argv[1]))["results"]
svg = open(sys.argv[2]).read()
assert "one scale for every panel" in svg
bars = [float(w) for w in re.findall(r'<rect x="110" y="\d+" width="([\d.]+)"',
                                     svg)]
spreads = re.findall(r'<path d="M([\d.]+) \d+ V\d+ M[\d.]+ \d+ H([\d.]+)', svg)
assert len(bars) == len(spreads) == len(rows), (len(bars), len(rows))
top = max(max(r["samples_per_s"]) for r in rows)
for r, w in zip(rows, bars):
    med = sorted(r["samples_per_s"])
    med = (med[0] + med[-1]) / 2 if len(med) == 2 else med[len(med) // 2]
    assert abs(w - 400 * med / top) < 0.2, (r["target"], w, med, top)
PY
run "$BALE" bench "$T/out" -r 1
expect_status 2
expect_stderr "--against"
# with permission to write drop_caches (root), cold runs say they used it
if [ -w /proc/sys/vm/drop_caches ]; then
    run "$BALE" bench "$T/out" --against "$T/in" --cache cold -r 1 --drop-caches
    expect_status 0
    grep -q 'cold runs: drop_caches=3' "$T/stdout" || fail "drop_caches not used"
fi
# the streaming order, stated as such
run "$BALE" bench "$T/out" --against "$T/in" --sequential -r 1 -k 10
expect_status 0
grep -q '^method: 10 samples per run, sequential order' "$T/stdout" ||
    fail "--sequential is not stated"
# a tree the pack skipped files of (empty ones, sorting first) and
# shuffled: the folder is read image for image as the outputs hold them,
# paired by source path (before, the folder was read by index: other
# images, and it stopped on the first skipped file)
cp -r "$T/in" "$T/skips"
for d in "$T/skips"/*/; do : >"$d/0000-empty.jpg"; done
"$BALE" pack "$T/skips" -f "$formats" -o "$T/skips-out" --shuffle -q 2>/dev/null ||
    [ $? -eq 3 ] || fail "pack of the tree with skips failed"
run "$BALE" bench "$T/skips-out" --against "$T/skips" -r 1 \
    --json "$T/skips.json"
expect_status 0
expect_stderr "'folder' is read image for image as '"
expect_stderr "' holds them (paired by source path)"
"$PY" - "$T/skips.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["results"]
digests = {r["target"]: r["digest"] for r in rows}
assert len(set(digests.values())) == 1, digests
PY
# a tree that lacks an image the output holds: by index, said
cp -r "$T/in" "$T/fewer"
rm "$(find "$T/fewer" -type f | sort | head -1)"
run "$BALE" bench "$T/skips-out" --against "$T/fewer" -r 1
expect_status 0
expect_stderr "is read by index, not paired with '"
# the loader mode: a line per target and thread count, rates and ratios
run "$BALE" bench "$T/out" --against "$T/in" --loader -t 1,2 --size 16 \
    --batch 4 -r 1
expect_status 0
grep -q "^loader: train crops 16x16" "$T/stdout" || fail "loader: no method"
[ "$(grep -cE "^(folder|${formats//,/|}) +[12] " "$T/stdout")" -eq \
    $((2 * ($(echo "$formats" | tr , '\n' | wc -l) + 1))) ] ||
    fail "loader: $(cat "$T/stdout")"
