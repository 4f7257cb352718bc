#!/bin/bash
# pack -> extract gives the source tree back for every format; verify,
# ls and cat agree with the source.
. "$TESTS/cli/lib.sh"
require_backend wds
require_backend lmdb
require_backend hdf5
"$MKDATA" tricky "$T/in"
"$BALE" pack "$T/in" -f lmdb,hdf5,wds -o "$T/out" --shard-count 5 -q
run "$BALE" verify "$T/out"
expect_status 0
[ "$(grep -c ': 24 samples, 0 bad$' "$T/stdout")" -eq 3 ] || { cat "$T/stdout"; fail "verify did not check 3 outputs"; }
for f in wds lmdb hdf5; do
    run "$BALE" extract "$T/out" "$T/x-$f" -f $f
    expect_status 0
    # the source minus what is not a sample: non-images and the loop
    diff -r -x '*.txt' -x noext -x loop "$T/in" "$T/x-$f" ||
        fail "extract -f $f differs from the source"
    [ "$("$BALE" ls "$T/out" -f $f | wc -l)" -eq 24 ] || fail "ls -f $f"
    "$BALE" ls "$T/out" -f $f | awk -F'\t' '$6 == "10/big.jpg" {print $1, $2}' > "$T/big"
    read -r index key < "$T/big"
    "$BALE" cat "$T/out" "$index" -f $f | cmp - "$T/in/10/big.jpg" || fail "cat index -f $f"
    "$BALE" cat "$T/out" "$key" -f $f | cmp - "$T/in/10/big.jpg" || fail "cat key -f $f"
done
run "$BALE" cat "$T/out" 99 -f wds
expect_status 1
expect_stderr "no sample '99'"
run "$BALE" ls "$T/out"
expect_status 1
expect_stderr "holds 3 outputs"
# info names each output, its count, and the classes it records
run "$BALE" info "$T/out"
expect_status 0
[ "$(grep -c '^  samples: 24$' "$T/stdout")" -eq 3 ] || { cat "$T/stdout"; fail "info counts"; }
for f in wds lmdb hdf5; do grep -q "^  format:  $f$" "$T/stdout" || fail "info: no $f"; done
[ "$(grep -c '"classes":\["-dash",".hidden_class","10","9","Zebra"' "$T/stdout")" -eq 3 ] ||
    fail "info: class names"
