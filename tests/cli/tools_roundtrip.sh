#!/bin/bash
# pack -> extract gives the source tree back for every format; verify,
# ls and cat agree with the source. In every format built.
. "$TESTS/cli/lib.sh"
formats=$(need_writers) || exit 77
n=$(echo "$formats" | tr , '\n' | wc -l)
F1=${formats%%,*}	# any format will do where one is named
FL=${formats##*,}
shards5=() shards9=() made_opts='"options":[]'
if built wds; then
    shards5=(--shard-count 5) shards9=(--shard-count 9)
    made_opts='"options":["wds.shard_count=9"]'
fi
"$MKDATA" tricky "$T/in"
"$BALE" pack "$T/in" -f "$formats" -o "$T/out" "${shards5[@]}" -q
run "$BALE" verify "$T/out"
expect_status 0
[ "$(grep -c ': 24 samples, 0 bad$' "$T/stdout")" -eq "$n" ] || { cat "$T/stdout"; fail "verify did not check $n outputs"; }
# progress: -v says how far each output got even off a terminal, -q not
run "$BALE" verify "$T/out" -v
expect_status 0
[ "$(grep -c '^24/24 (100%) .* samples/s' "$T/stderr")" -eq "$n" ] || { cat "$T/stderr"; fail "verify -v: no progress line per output"; }
run "$BALE" verify "$T/out" -v -q
[ ! -s "$T/stderr" ] || { cat "$T/stderr"; fail "verify -q: progress shown"; }
for f in ${formats//,/ }; do
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
# info counts every file of an output (for wds: the list, and each
# shard's tar, .idx and .bidx) and names the classes once
if built wds; then
    run "$BALE" info "$T/out" -f wds
    expect_status 0
    want=$(ls "$T/out" | grep -cE '^data-([0-9]{6}\.(tar|idx|bidx)|shards\.json)$')
    grep -q "^  files:   $want, " "$T/stdout" ||
        fail "info: not $want files: $(cat "$T/stdout")"
    [ "$(grep -o '"classes"' "$T/stdout" | wc -l)" -eq 1 ] ||
        fail "info: the classes more than once: $(cat "$T/stdout")"
fi
if built hdf5; then
    run "$BALE" info "$T/out" -f hdf5
    grep -q "^  files:   2, " "$T/stdout" || fail "info: data.h5 and its .bidx"
fi
# and how it was made: order, seed, encode settings, format options
"$BALE" pack "$T/in" -f "$formats" -o "$T/made" -q --shuffle --seed 7 \
    --resize shorter:20 --quality 80 "${shards9[@]}"
run "$BALE" info "$T/made"
[ "$(grep -c '^  made:    {"bale_version"' "$T/stdout")" -eq "$n" ] ||
    fail "info: how it was made not shown: $(cat "$T/stdout")"
grep '^  made:' "$T/stdout" | grep -q '"shuffle":1,"seed":7,' &&
    grep '^  made:' "$T/stdout" | grep -qF "$made_opts" &&
    grep '^  made:' "$T/stdout" | grep -q '"resize":"shorter:20",.*"quality":80' ||
    fail "info: the settings are not the run's: $(cat "$T/stdout")"

# a file already in DIR is never overwritten unasked; --force replaces
echo "mine" >"$T/x-$F1/10/big.jpg"
run "$BALE" extract "$T/out" "$T/x-$F1" -f "$F1"
expect_status 1
expect_stderr "/10/big.jpg' exists: left as it was"
expect_stderr "24 files already in '$T/x-$F1' left as they were (--force"
[ "$(cat "$T/x-$F1/10/big.jpg")" = mine ] || fail "extract overwrote a file"
run "$BALE" extract "$T/out" "$T/x-$F1" -f "$F1" --force
expect_status 0
cmp "$T/x-$F1/10/big.jpg" "$T/in/10/big.jpg" || fail "--force did not replace"
run "$BALE" cat "$T/out" 99 -f "$F1"
expect_status 1
expect_stderr "no sample '99'"
# the last sample by a negative index, any sample by its source path
last=$("$BALE" ls "$T/out" -f "$F1" | tail -1 | cut -f6)
"$BALE" cat "$T/out" -1 -f "$F1" | cmp - "$T/in/$last" || fail "cat -1"
"$BALE" cat "$T/out" -f "$FL" -24 | cmp - "$T/in/$("$BALE" ls "$T/out" -f "$F1" |
    head -1 | cut -f6)" || fail "cat -24"
"$BALE" cat "$T/out" "10/big.jpg" -f "$FL" | cmp - "$T/in/10/big.jpg" ||
    fail "cat by path"
run "$BALE" cat "$T/out" -25 -f "$F1"
expect_status 1
# never binary to a terminal
if command -v script >/dev/null; then
    run script -qec "'$BALE' cat '$T/out' 0 -f $F1" /dev/null
    expect_status 2
    grep -q "stdout is a terminal" "$T/stdout" || fail "cat wrote to a tty"
fi
# one dataset in several formats: ls takes one and says so; outputs of
# different datasets are refused
run "$BALE" ls "$T/out"
expect_status 0
[ "$n" -eq 1 ] ||
    expect_stderr "holds dataset 'data' in $n formats: reading '$T/out/data"
diff "$T/stdout" <("$BALE" ls "$T/out" -f "$F1") || fail "ls of the folder"
"$BALE" pack "$T/in" -f "$F1" -o "$T/out" --name other -q
run "$BALE" ls "$T/out"
expect_status 1
expect_stderr "outputs of different datasets"
rm -r "$T/out"/other[-.]*
# info names each output, its count, and the classes it records
run "$BALE" info "$T/out"
expect_status 0
[ "$(grep -c '^  samples: 24$' "$T/stdout")" -eq "$n" ] || { cat "$T/stdout"; fail "info counts"; }
for f in ${formats//,/ }; do grep -q "^  format:  $f$" "$T/stdout" || fail "info: no $f"; done
[ "$(grep -c '"classes":\["-dash",".hidden_class","10","9","Zebra"' "$T/stdout")" -eq "$n" ] ||
    fail "info: class names"
