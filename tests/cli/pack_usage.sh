#!/bin/bash
# Misuse exits 2 with a hint; an unknown format or option is named;
# every command describes itself with --help.
. "$TESTS/cli/lib.sh"
fmt=$(any_backend) || exit 77
"$MKDATA" tricky "$T/in"
run "$BALE" pack "$T/in" -o "$T/out"
expect_status 2
expect_stderr "choose a format with -f"
run "$BALE" pack -f "$fmt" "$T/in"
expect_status 2
run "$BALE" pack "$T/in" -f nope -o "$T/out"
expect_status 1
expect_stderr "unknown format 'nope'"
run "$BALE" pack "$T/in" -f hdf5 -f lmdb -o "$T/out"
expect_status 2
expect_stderr "-f given twice"
run "$BALE" pack "$T/in" -f "$fmt" -o "$T/out" -O "$fmt.no_such_key=1"
expect_status 1
expect_stderr "no chosen format knows it"
run "$BALE" pack "$T/missing" -f "$fmt" -o "$T/out"
expect_status 1
expect_stderr "cannot open folder"
run "$BALE" frobnicate
expect_status 2
run "$BALE" --version
expect_status 0
# a run that fails still writes its report, saying why
run "$BALE" pack "$T/in" -f nope -o "$T/out" --report "$T/r.json"
expect_status 1
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
