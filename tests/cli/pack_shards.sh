#!/bin/bash
# Shard limits hold: by count, and by bytes except for a single sample
# larger than the limit, which gets a shard of its own.
. "$TESTS/cli/lib.sh"
require_backend wds
"$MKDATA" tricky "$T/in"
run "$BALE" pack "$T/in" -f wds -o "$T/count" --shard-count 5
expect_status 0
[ "$(ls "$T"/count/data-*.tar | wc -l)" -eq 5 ] || fail "24 samples by 5 should make 5 shards"
"$PY" "$CHECK" "$T/count" "$T/in" --order --max-count 5 --count 24

run "$BALE" pack "$T/in" -f wds -o "$T/size" --shard-size 64K
expect_status 0
"$PY" "$CHECK" "$T/size" "$T/in" --order --max-size 65536 --count 24
big=$(stat -c %s "$T/in/10/big.jpg")
[ "$big" -gt 65536 ] || fail "fixture: big.jpg should exceed 64K"
# the big image's shard holds it alone
"$PY" - "$T/size/data-shards.json" "$big" <<'PY'
import json, sys
shards = json.load(open(sys.argv[1]))["shardlist"]
big = [s for s in shards if s["filesize"] > 65536]
assert big and all(s["nsamples"] == 1 for s in big), shards
assert all(s["filesize"] <= 65536 for s in shards if s["nsamples"] > 1)
PY
run "$BALE" pack "$T/in" -f wds -o "$T/bad" --shard-size 12Q
expect_status 2
expect_stderr "is not a size"
for zero in "--shard-size 0" "--shard-count 0"; do
    # shellcheck disable=SC2086
    run "$BALE" pack "$T/in" -f wds -o "$T/bad" $zero
    expect_status 2
    expect_stderr "must be more than 0"
    [ ! -e "$T/bad" ] || fail "$zero wrote '$T/bad'"
done
