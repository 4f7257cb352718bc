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

expect_no_stderr() {
    if grep -qF -- "$1" "$T/stderr"; then
        cat "$T/stderr" >&2
        fail "stderr has '$1'"
    fi
}

# nothing that looks complete, nor any temporary file, under $1: a
# failed run leaves no output that bale recognises and, without a resume
# journal, no file at all (whatever the formats' file names); with one,
# the files its checkpoints cover stay for --resume
expect_no_output() {
    local left=
    [ -n "$(find "$1" -name '*-resume.json' 2>/dev/null)" ] ||
        left=$(find "$1" -type f 2>/dev/null || true)
    if [ -n "$left" ] || "$BALE" info "$1" >/dev/null 2>&1; then
        ls -laR "$1" >&2
        fail "'$1' holds output after a failed run"
    fi
}

# same_files DIR1 DIR2: every file of the first (a run's made.json
# aside: it names the source's kind; and an LMDB's lock file: who
# last opened it) the same in both, byte for byte
same_files() {
    local f
    for f in "$1"/*; do
        case $f in *-made.json) continue ;; esac
        if [ -d "$f" ]; then
            diff -r -x lock.mdb "$f" "$2/${f##*/}" >/dev/null ||
                fail "${f##*/} differs in $2"
        else
            cmp -s "$f" "$2/${f##*/}" || fail "${f##*/} differs in $2"
        fi
    done
}

# skip the test (meson's code 77), saying why, unless format $1 is built in
require_backend() {
    "$BALE" --help | grep -q "^Formats built in:.* $1\b" && return 0
    echo "skipped: this test needs format '$1', which is not built in"
    exit 77
}

# the formats built in that write, comma-separated, as bale formats
# lists them (a test packs what the build has, not a list of its own)
writers() {
    writers_that write
}

# writers_that CAP: the formats built in that write and can CAP (resume,
# merge, update: bale formats says), comma-separated
writers_that() {
    "$BALE" formats | awk -v cap="$1" '$2 ~ /(^|,)write(,|$)/ &&
        $2 ~ "(^|,)" cap "(,|$)" {print $1}' | paste -sd, -
}

# built FORMAT: is FORMAT built in, and does it write?
built() {
    case ",$(writers)," in *",$1,"*) return 0 ;; esac
    return 1
}

# need_writers [CAP]: the formats that write (and can CAP: resume,
# merge, update), or skip the test (77) when none is built
need_writers() {
    local w
    w=$(if [ $# -gt 0 ]; then writers_that "$1"; else writers; fi)
    [ -n "$w" ] || { echo "skipped: no format that writes${1:+ and can $1} is built in"; exit 77; }
    echo "$w"
}

# outputs_in DIR: every output bale finds in DIR, a path a line
outputs_in() {
    "$BALE" info "$1" 2>/dev/null | grep -v '^ ' || true
}

# the first format built in that writes, as bale formats lists them
# (any will do for the test)
any_backend() {
    local w
    w=$(writers)
    [ -n "$w" ] || { echo "skipped: no format that writes is built in" >&2; exit 77; }
    echo "${w%%,*}"
}

# tree_listing DIR: DIR's files as bale ls shows them (path, size,
# crc32), sorted
tree_listing() {
    "$PY" - "$1" <<'PYEOF' | sort
import os, sys, zlib
root = sys.argv[1]
for d, _, files in os.walk(root):
    for f in files:
        data = open(os.path.join(d, f), "rb").read()
        rel = os.path.relpath(os.path.join(d, f), root)
        print("%s\t%d\t%08x" % (rel, len(data), zlib.crc32(data)))
PYEOF
}
