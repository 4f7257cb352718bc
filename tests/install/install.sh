#!/bin/bash
# meson install puts the library (shared with its soname, and static), the
# two public headers and a pkg-config file in place; a program built with
# `pkg-config --cflags --libs bale` and nothing else runs; the shared
# library exports exactly the functions the headers declare; every global
# the static library defines starts with bale_ (a static link into
# someone's program must not clash with their names; a sanitizer's own
# symbols aside).
. "$TESTS/cli/lib.sh"
meson install -C "$BUILD_ROOT" --no-rebuild --quiet --destdir "$T/inst" \
    >/dev/null || fail "meson install failed"
pc=$(find "$T/inst" -name bale.pc)
[ -n "$pc" ] || fail "no bale.pc installed"
prefix=$(sed -n 's/^prefix=//p' "$pc")
export PKG_CONFIG_PATH=$(dirname "$pc")
export PKG_CONFIG_SYSROOT_DIR="$T/inst"
libdir=$T/inst$(pkg-config --variable=libdir bale | sed "s|^$T/inst||")
for f in "$T/inst$prefix/include/bale.h" "$T/inst$prefix/include/bale_backend.h" \
    "$libdir/libbale.a" "$libdir/libbale.so"; do
    [ -e "$f" ] || fail "'${f#$T/inst}' was not installed"
done
# the man pages, where scdoc built them
if command -v scdoc >/dev/null; then
    for m in man1/bale.1 man1/bale-pack.1 man1/bale-verify.1 \
        man5/bale-formats.5; do
        [ -n "$(find "$T/inst" -path "*/man/$m")" ] ||
            fail "man page $m was not installed"
    done
fi
readelf -d "$libdir/libbale.so" | grep -q 'SONAME.*libbale\.so\.0\]' ||
    fail "libbale.so has no soname libbale.so.0"
# shellcheck disable=SC2046,SC2086
cc ${SANITIZE:+-fsanitize=$SANITIZE} -o "$T/use_bale" \
    "$TESTS/install/use_bale.c" $(pkg-config --cflags --libs bale) ||
    fail "a program using only pkg-config's flags does not build"
# the installed command runs from wherever the prefix was put, with no
# library path set (it links the static library)
bindir=$T/inst$prefix/bin
[ -x "$bindir/bale" ] || fail "bale was not installed in $prefix/bin"
run env -u LD_LIBRARY_PATH "$bindir/bale" --version
expect_status 0
grep -q "^bale " "$T/stdout" || fail "the installed bale does not run: $(cat "$T/stderr")"
mv "$T/inst" "$T/moved"	# the prefix moved as a whole: it still runs
run env -u LD_LIBRARY_PATH "$T/moved$prefix/bin/bale" formats
expect_status 0
mv "$T/moved" "$T/inst"
LD_LIBRARY_PATH=$libdir run "$T/use_bale"
expect_status 0
grep -q "^$(pkg-config --modversion bale) folder" "$T/stdout" ||
    fail "unexpected output: $(cat "$T/stdout")"
# exports == declarations (BALE_API) of the installed headers
nm -D --defined-only "$libdir/libbale.so" | awk '$2 ~ /[TDRB]/ {print $3}' |
    sort >"$T/exported"
"$PY" - "$T/inst$prefix/include" >"$T/declared" <<'PY'
import re, sys, pathlib
names = set()
for h in pathlib.Path(sys.argv[1]).glob("bale*.h"):
    text = h.read_text()
    for m in re.finditer(r"^BALE_API [^;{]*?(\w+)\(", text, re.M):
        names.add(m.group(1))
print("\n".join(sorted(names)))
PY
diff "$T/declared" "$T/exported" >"$T/diff" ||
    fail "exports differ from the declarations (< declared only, > exported only): $(cat "$T/diff")"
nm -g --defined-only "$libdir/libbale.a" |
    awk 'NF == 3 && $2 ~ /[TDRBCVW]/ && $3 !~ /^bale_/ &&
        $3 !~ /^__(odr_asan|asan|ubsan|tsan|sancov)/ {print $3}' |
    sort -u >"$T/unprefixed"
[ ! -s "$T/unprefixed" ] ||
    fail "libbale.a defines globals without the bale_ prefix: $(cat "$T/unprefixed" | tr '\n' ' ')"
echo "install: $(wc -l <"$T/exported") symbols exported, all declared"
