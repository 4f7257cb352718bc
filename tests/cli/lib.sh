# lib.sh - helpers for the end-to-end tests; sourced, never run.
# Environment (set by meson): BALE, MKDATA, and the source dir in TESTS.
set -eu
T=$(mktemp -d)
trap 'chmod -R u+rwx "$T" 2>/dev/null; rm -rf "$T"' EXIT
PY=/usr/bin/python3
CHECK="$TESTS/cli/check_wds.py"

fail() { echo "FAIL: $*" >&2; exit 1; }

# run CMD...: capture stdout/stderr in $T, exit status in $status
run() {
    set +e
    "$@" >"$T/stdout" 2>"$T/stderr"
    status=$?
    set -e
}

expect_status() {
    if [ "$status" -ne "$1" ]; then
        cat "$T/stderr" >&2
        fail "expected exit status $1, got $status"
    fi
}

expect_stderr() {
    grep -qF -- "$1" "$T/stderr" || { cat "$T/stderr" >&2; fail "stderr lacks '$1'"; }
}

# nothing that looks complete, nor any temporary file, under $1
expect_no_output() {
    if [ -n "$(find "$1" -name '*-shards.json' -o -name '*.tar' -o -name '*.idx' -o -name '*.partial' 2>/dev/null)" ]; then
        ls -la "$1" >&2
        fail "'$1' holds output after a failed run"
    fi
}

require_backend() {
    "$BALE" --help | grep -q "^Formats built in:.* $1\b" || exit 77
}
