#!/bin/bash
# bale merge of HDF5 parts: one file whose images are a virtual dataset
# over the parts' files (no image byte copied, the parts named by
# relative paths), equal to a single run's for every layout (encoded,
# vlen, pixels), for 1 to 4 parts, shuffled or not: the same bale ls,
# the same bytes, and in h5py the same datasets and attributes. So is a
# merge --copy, with the parts gone. The merged folder and the parts
# move together. A part gone or replaced is named by every reader and
# by verify, not read as zeros.
. "$TESTS/cli/lib.sh"
require_backend hdf5
"$MKDATA" tricky "$T/in"
rm "$T/in/9/linked"
check_merge() {    # DIR LABEL: DIR/data.h5 equals the single run's
    diff <("$BALE" ls "$T/single/data.h5") <("$BALE" ls "$1/data.h5") ||
        fail "$2: the merged file lists other samples"
    "$BALE" verify "$1/data.h5" >/dev/null ||
        fail "$2: the merged file does not verify"
    "$PY" "$TESTS/cli/same_output.py" "$T/single" "$1" ||
        fail "$2: h5py reads another file"
    rm -rf "$T/x1" "$T/x2"
    "$BALE" extract "$T/single/data.h5" "$T/x1" >/dev/null
    "$BALE" extract "$1/data.h5" "$T/x2" >/dev/null
    diff -r "$T/x1" "$T/x2" || fail "$2: merged bytes differ"
}
for layout in "" "-O hdf5.layout=vlen" "--pixels 24x16 -O hdf5.deflate=2"; do
    for order in "" "--shuffle --seed 3"; do
        # shellcheck disable=SC2086
        "$BALE" pack "$T/in" -f hdf5 -o "$T/single" -q --force $layout \
            $order
        for n in 1 2 4; do
            rm -rf "$T/parts" "$T/merged"
            for ((i = 0; i < n; i++)); do
                # shellcheck disable=SC2086
                run "$BALE" pack "$T/in" -f hdf5 -o "$T/parts/p$i" -q \
                    --part "$i/$n" $layout $order
            done
            # shellcheck disable=SC2046
            run "$BALE" merge "$T/merged" $(ls -d "$T"/parts/* | sort -r)
            expect_status 0
            check_merge "$T/merged" "$n parts ($layout $order)"
            rm -rf "$T/copied"
            run "$BALE" merge "$T/copied" "$T"/parts/* --copy
            expect_status 0
            mv "$T/parts" "$T/away"
            check_merge "$T/copied" "$n parts copied ($layout $order)"
            mv "$T/away" "$T/parts"
        done
    done
done

# no copy: images is virtual over the parts, named from the merged file
"$PY" - "$T/merged/data.h5" <<'PYEOF' || fail "images is not virtual"
import sys, h5py
d = h5py.File(sys.argv[1], "r")["images"]
assert d.is_virtual, "not virtual"
assert d.id.get_storage_size() == 0, "image bytes in the merged file"
srcs = [m.file_name for m in d.virtual_sources()]
assert srcs == ["../parts/p%d/data.h5" % i for i in range(4)], srcs
PYEOF

# the merged folder and its parts move together
mkdir "$T/moved"
mv "$T/merged" "$T/parts" "$T/moved/"
(cd / && "$BALE" verify "$T/moved/merged/data.h5" >/dev/null) ||
    fail "a merged file moved with its parts does not verify"
mv "$T/moved/merged" "$T/moved/parts" "$T/"

# a part gone: named, by verify, ls, cat, info and bench, not read as 0s
mv "$T/parts/p2" "$T/p2-away"
M="$T/merged/data.h5"
for cmd in "verify $M" "ls $M" "info $M" "cat $M 0" \
    "bench $M -k 5 -r 1 --against $T/in"; do
    # shellcheck disable=SC2086
    run "$BALE" $cmd
    [ "$status" -ne 0 ] || fail "$cmd reads a merged file missing a part"
    expect_stderr "part '$T/merged/../parts/p2/data.h5' of this merged file \
is missing"
done
# a part replaced by a smaller one (another run's)
mkdir "$T/parts/p2"
"$BALE" pack "$T/in/apple" -f hdf5 -o "$T/parts/p2" -q --pixels 24x16
run "$BALE" verify "$T/merged/data.h5"
expect_status 1
expect_stderr "holds fewer images than this merged file maps from it"
rm -rf "$T/parts/p2"
mv "$T/p2-away" "$T/parts/p2"
"$BALE" verify "$T/merged/data.h5" >/dev/null

# an existing merged file stays unless --force; a failed merge leaves
# nothing
run "$BALE" merge "$T/merged" "$T"/parts/*
expect_status 1
expect_stderr "hdf5: '$T/merged/data.h5' exists (use --force to replace it)"
run "$BALE" merge "$T/merged" "$T"/parts/* --force
expect_status 0
rm "$T/parts/p1/data.h5"
run "$BALE" merge "$T/m2" "$T"/parts/*
expect_status 1
expect_stderr "hdf5: cannot open '$T/parts/p1/data.h5'"
[ ! -e "$T/m2/data.h5" ] && [ ! -e "$T/m2/data.h5.partial" ] ||
    fail "a failed merge left a file"
exit 0
