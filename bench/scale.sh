#!/bin/bash
# bale at millions of samples: for each size (millions of samples), pack
# time and max RSS per format and for all three in one run, with GNU tar
# beside it; then for each output, open time, labels() warm and cold with
# the bytes read, and the anonymous memory each of 8 forked DataLoader
# workers adds (bench/scale_read.py), and for wds the same for
# ShardStream (bench/scale_shards.py); then the CLI tools' time and RSS.
# The trees are hard links to 64 small JPEGs (bench/scale_tree.py), made
# once under $BENCH_DIR/scale (default build/bench). An output that
# would not fit in the free space (with 10% spare) is skipped and said
# so; every output is removed after it is measured. One JSON line per
# measurement goes to $OUT_JSONL (default bench/results/scale.jsonl);
# bench/scale_chart.py draws pack memory against samples from it.
# With --small, the trees link to 64 JPEGs of 8x8 pixels (about 350
# bytes) instead, so that all three formats of 10 M samples fit on a
# smaller disk: what a sample costs in memory does not depend on its
# bytes.
# With --archive, each tree is first made into one tar (tar -h
# --hard-dereference, in readdir order, as people make them) and every
# pack reads the tar instead ("pack tar -f FORMAT" rows; the reading
# and the tools are left out): an archive's members are sorted past
# memory, and this measures what that costs.
# With --convert, each tree is first packed into LMDB and every pack
# reads that output instead ("pack lmdb -f FORMAT" rows, the reading and
# the tools left out): a packed output as the source, a conversion.
# With --update, each format is packed with --update instead, then
# updated with nothing changed (find -printf beside it) and with the
# files of one class moved to another (a thousand added, a thousand
# removed), and moved back.
#
#   bench/scale.sh [-s "1 2 5 10"] [-f "wds lmdb hdf5 all"] [--shuffle]
#                  [--update] [--small] [--pack-only] [--archive]
#                  [--convert]
# --pack-only leaves out the reading and the command-line tools.
set -eu
cd "$(dirname "$0")/.."
sizes="1 2 5 10"
formats="wds lmdb hdf5 all"
shuffle=0
update=0
small=
pack_only=0
archive=0
convert=0
while [ $# -gt 0 ]; do
    case $1 in
    -s) sizes=$2; shift 2 ;;
    -f) formats=$2; shift 2 ;;
    --shuffle) shuffle=1; shift ;;
    --update) update=1; shift ;;
    --small) small=-small; shift ;;
    --pack-only) pack_only=1; shift ;;
    --archive) archive=1; pack_only=1; shift ;;
    --convert) convert=1; pack_only=1; shift ;;
    *) echo "usage: bench/scale.sh [-s SIZES] [-f FORMATS] [--shuffle]" \
           "[--update] [--small] [--pack-only] [--archive] [--convert]" >&2
       exit 2 ;;
    esac
done
dir=${BENCH_DIR:-build/bench}/scale
bale=${BALE:-build/bale}
out_jsonl=${OUT_JSONL:-bench/results/scale.jsonl}
mkdata=${MKDATA:-build/tests/bale-mkdata}
py=${PY:-/usr/bin/python3}	# Debian's, with python3-torch
export PYTHONPATH=${PYTHONPATH:-build/python}
mkdir -p "$dir"
src=$dir/src$small
[ -f "$src/.complete" ] || {
    rm -rf "$src"
    if [ -n "$small" ]; then
        "$mkdata" random "$src" -n 64 --classes 1 --min 8 --max 8 \
            --seed 3 >/dev/null
    else
        "$mkdata" random "$src" -n 64 --classes 1 --min 64 --max 80 \
            --seed 3 >/dev/null
    fi
    touch "$src/.complete"
}
sample_bytes=$(du -sb "$src" | awk '{print int($1 / 64)}')

# bytes an output of N million samples takes, roughly: the image, tar
# headers and the label/JSON members (wds), records and rows (others)
need_bytes() { # FORMAT MILLIONS
    local per=$((sample_bytes + 2048))
    [ "$1" = all ] && per=$((3 * sample_bytes + 2560))
    # the tar read instead of the tree: a header and padding a sample
    [ "$archive" = 1 ] && per=$((per + sample_bytes + 1024))
    # the LMDB read instead: a record and its page share a sample
    [ "$convert" = 1 ] && per=$((per + sample_bytes + 512))
    echo $(($2 * 1000000 * per * 11 / 10))
}
fits() { # FORMAT MILLIONS
    local free
    free=$(df -B1 --output=avail "$dir" | tail -1)
    [ "$(need_bytes "$1" "$2")" -lt "$free" ]
}
record() { # JSON
    local line=$1
    [ -z "$small" ] || line="{\"small\": true, ${line#\{}"
    echo "$line" | tee -a "$out_jsonl"
}
measure() { # NAME MILLIONS CMD...: one line of wall seconds and max RSS
    local name=$1 m=$2 t
    shift 2
    sync
    /usr/bin/time -f '%e %M' -o "$dir/time.txt" "$@" >/dev/null \
        2>"$dir/stderr.txt" || {
        echo "failed: $*" >&2
        cat "$dir/stderr.txt" >&2
        return 1
    }
    t=$(cat "$dir/time.txt")
    record "{\"what\": \"$name\", \"millions\": $m, \"seconds\": ${t% *}, \"max_rss_kib\": ${t#* }}"
}
tree_of() { # MILLIONS: the tree, made when missing
    local tree=$dir/tree$small-${1}M
    if [ ! -f "$tree/.complete" ]; then
        "$py" bench/scale_tree.py "$src" "$tree" "$1"
        touch "$tree/.complete"
    fi
    echo "$tree"
}
# class c0001's files into c0000/moved (or back, with "back")
move_class() { # TREE [back]
    local from=$1/c0001 to=$1/c0000/moved f
    [ $# -gt 1 ] && { from=$1/c0000/moved; to=$1/c0001; }
    mkdir -p "$to"
    for f in "$from"/*; do mv "$f" "$to/"; done
    [ $# -gt 1 ] && rmdir "$from"
    return 0
}
updates() { # MILLIONS TREE FORMAT
    local m=$1 tree=$2 fmt=$3
    rm -rf "$dir/out"
    measure "update first -f $fmt" "$m" "$bale" pack "$tree" -f "$fmt" \
        -o "$dir/out" -q --update
    measure "find -L -printf '%s %T@'" "$m" \
        find -L "$tree" -type f -printf '%s %T@\n'
    measure "update none -f $fmt" "$m" "$bale" pack "$tree" -f "$fmt" \
        -o "$dir/out" -q --update
    move_class "$tree"
    measure "update moved -f $fmt" "$m" "$bale" pack "$tree" -f "$fmt" \
        -o "$dir/out" -q --update || { move_class "$tree" back; return 1; }
    move_class "$tree" back
    measure "update back -f $fmt" "$m" "$bale" pack "$tree" -f "$fmt" \
        -o "$dir/out" -q --update
    rm -rf "$dir/out"
}
for m in $sizes; do
    tree=$(tree_of "$m")
    if [ "$update" = 1 ]; then
        for f in $formats; do
            fmt=$f
            [ "$f" = all ] && fmt=wds,lmdb,hdf5
            if fits "$f" "$m"; then
                updates "$m" "$tree" "$fmt"
            else
                record "{\"what\": \"update first -f $fmt\", \"millions\": $m, \"skipped\": \"needs $(need_bytes "$f" "$m") bytes free\"}"
            fi
        done
        continue
    fi
    find -L "$tree" -type f -printf '%s %T@\n' >/dev/null  # warm
    source=$tree
    pack="pack"
    if [ "$archive" = 1 ]; then
        measure "tar -h --hard-dereference -cf" "$m" \
            tar -h --hard-dereference -cf "$dir/source.tar" -C "$tree" .
        source=$dir/source.tar
        pack="pack tar"
    elif [ "$convert" = 1 ]; then
        rm -rf "$dir/source"
        measure "source: pack -f lmdb" "$m" "$bale" pack "$tree" \
            -f lmdb -o "$dir/source" -q
        source=$dir/source/data.lmdb
        pack="pack lmdb"
    elif [ -z "$small" ] && fits wds "$m"; then	# small: memory only
        measure "tar -h --hard-dereference -cf" "$m" \
            tar -h --hard-dereference -cf "$dir/tar.tar" -C "$tree" .
        rm -f "$dir/tar.tar"
    fi
    for f in $formats; do
        fmt=$f
        [ "$f" = all ] && fmt=wds,lmdb,hdf5
        if ! fits "$f" "$m"; then
            record "{\"what\": \"$pack -f $fmt\", \"millions\": $m, \"skipped\": \"needs $(need_bytes "$f" "$m") bytes free\"}"
            continue
        fi
        rm -rf "$dir/out"
        measure "$pack -f $fmt" "$m" "$bale" pack "$source" -f "$fmt" \
            -o "$dir/out" -q
        if [ "$shuffle" = 1 ]; then
            rm -rf "$dir/out"
            measure "$pack -f $fmt --shuffle" "$m" "$bale" pack "$source" \
                -f "$fmt" -o "$dir/out" -q --shuffle
        fi
        if [ "$f" = all ] || [ "$pack_only" = 1 ]; then
            rm -rf "$dir/out"
            continue
        fi
        record "$("$py" bench/scale_read.py "$dir/out" "$f" |
            sed "s/^{/{\"what\": \"read\", \"millions\": $m, /")"
        if [ "$f" = wds ]; then
            for sh in 0 1000; do
                record "$("$py" -W ignore bench/scale_shards.py \
                    "$dir/out/data-shards.json" 8 20000 $sh |
                    sed "s/^{/{\"millions\": $m, /")"
            done
        fi
        for cmd in info ls verify; do
            measure "$cmd -f $f" "$m" "$bale" "$cmd" "$dir/out" -f "$f"
        done
        rm -rf "$dir/out"
    done
    rm -rf "$dir/source.tar" "$dir/source"
done
