#!/bin/bash
# Misuse exits 2 with a hint, also when the library finds it (a bad
# option value, options that exclude each other, the output inside the
# source), before anything is written; an unknown format or option is
# named with those that exist; every command describes itself with
# --help.
. "$TESTS/cli/lib.sh"
fmt=$(any_backend) || exit 77
"$MKDATA" tricky "$T/in"
run "$BALE" pack "$T/in" -o "$T/out"
expect_status 2
expect_stderr "choose a format with -f"
run "$BALE" pack -f "$fmt" "$T/in"
expect_status 2
run "$BALE" pack "$T/in" -f nope -o "$T/out"
expect_status 2
expect_stderr "unknown format 'nope' (this build writes "
expect_stderr "$fmt"
run "$BALE" pack "$T/in" -f hdf5 -f lmdb -o "$T/out"
expect_status 2
expect_stderr "-f given twice"
# a format named twice would write its files twice over: misuse, and
# nothing is written
run "$BALE" pack "$T/in" -f "$fmt,$fmt" -o "$T/twice"
expect_status 2
expect_stderr "format '$fmt' is named twice"
[ ! -e "$T/twice" ] || fail "-f $fmt,$fmt wrote '$T/twice'"
run "$BALE" pack "$T/in" -f "$fmt" -o "$T/out" -O "$fmt.no_such_key=1"
expect_status 2
expect_stderr "no chosen format takes 'no_such_key' (they take $fmt: "
expect_stderr "fsync"
# options the library refuses before writing anything are misuse too
for bad in "--resize bogus" "--pixels 0x3" "--crop center" \
    "--update --resume"; do
    # shellcheck disable=SC2086
    run "$BALE" pack "$T/in" -f "$fmt" -o "$T/out" $bad
    expect_status 2
    [ ! -e "$T/out" ] || fail "$bad: wrote '$T/out'"
done
run "$BALE" pack "$T/in" -f "$fmt" -o "$T/out" -j -1
expect_status 2
[ "$(grep -c "^bale pack:" "$T/stderr")" -eq 1 ] || fail "-j -1: $(cat "$T/stderr")"
expect_stderr "-j: '-1' is not a whole number of 0 or more"
run "$BALE" pack "$T/in" -f "$fmt" -o "$T/out" --seed -1
expect_status 2
expect_stderr "--seed: '-1' is not a whole number of 0 or more"
# an unknown option, or one without its value: said as every message
# is, with where to read on
for bad in --bogus -Z --seed; do
    run "$BALE" pack "$T/in" -f "$fmt" -o "$T/out" $bad
    expect_status 2
    head -1 "$T/stderr" | grep -q "^bale pack: " ||
        fail "$bad: $(cat "$T/stderr")"
    expect_stderr "Try 'bale pack --help'."
done
expect_stderr "option '--seed' needs a value"
for cmd in verify merge bench info; do
    run "$BALE" $cmd --bogus x y
    expect_status 2
    expect_stderr "bale $cmd: unknown option '--bogus'"
done
# -j 0 is one thread per CPU, as threads=0 is from Python
run "$BALE" pack "$T/in" -f "$fmt" -o "$T/auto" -j 0 -q
[ "$status" -eq 0 ] || [ "$status" -eq 3 ] || fail "-j 0: exit $status"
for cmd in info verify ls; do
    run "$BALE" $cmd -f bogus "$T/in"
    expect_status 2
    expect_stderr "-f: unknown format 'bogus' (this build reads "
done
# the output inside the source (or the source itself): the next walk
# would take it for a class; refused, nothing written
cp -r "$T/in" "$T/src"
for out in "$T/src" "$T/src/packed" "$T/src/../src/x/y"; do
    run "$BALE" pack "$T/src" -f "$fmt" -o "$out"
    expect_status 2
    expect_stderr "is the source folder '$T/src' or inside it"
done
diff -r "$T/in" "$T/src" || fail "a refused pack wrote into the source"
# the output named is a file
: >"$T/afile"
run "$BALE" pack "$T/in" -f "$fmt" -o "$T/afile"
expect_status 2
expect_stderr "the output '$T/afile' is a file"
ln -s "$T/src" "$T/link"
run "$BALE" pack "$T/link" -f "$fmt" -o "$T/src/packed"
expect_status 2
# a source that is not there is a mistyped command line (exit 2); one
# that is there but no dataset is a failure (exit 1)
run "$BALE" pack "$T/missing" -f "$fmt" -o "$T/out"
expect_status 2
expect_stderr "source '$T/missing': No such file or directory"
echo "notes" >"$T/notes.txt"
run "$BALE" pack "$T/notes.txt" -f "$fmt" -o "$T/out"
expect_status 1
expect_stderr "is not a tar, compressed tar or zip archive"
run "$BALE" frobnicate
expect_status 2
run "$BALE" --version
expect_status 0
# a run that fails still writes its report, saying why
run "$BALE" pack "$T/in" -f nope -o "$T/out" --report "$T/r.json"
expect_status 2
"$PY" -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["status"]=="failed" and "nope" in r["error"], r' "$T/r.json"
# every command's --help (and -h) prints its usage and exits 0, as
# 'bale --help' promises
for cmd in $("$BALE" --help | sed -n 's/^  \([a-z]*\)  .*/\1/p'); do
    for flag in --help -h; do
        out=$("$BALE" "$cmd" $flag) || fail "bale $cmd $flag failed"
        case "$out" in
        "usage: bale $cmd"*) ;;
        *) fail "bale $cmd $flag printed no usage" ;;
        esac
    done
done
