#!/bin/bash
# Pack SRC as N parts on a Slurm cluster, then merge them: queues
# pack-array.sbatch as an array of N tasks and merge.sbatch after it
# (afterok). Prints the two job ids. Extra arguments go to every bale
# pack (formats, --shuffle --seed S, ...); BALE names the bale command
# on the nodes (default: bale on PATH); SBATCH_* variables and
# BALE_SBATCH_ARGS (e.g. "--partition gpu --cpus-per-task 8") reach
# sbatch.
#
#   scripts/slurm/submit.sh SRC OUT N [bale pack options...]
#
# The output: OUT/parts/p0..p(N-1) (kept: an HDF5 merge reads its images
# from them, unless BALE_MERGE_ARGS=--copy) and OUT/merged.
set -eu
if [ $# -lt 3 ]; then
    sed -n '2,/^$/s/^# \{0,1\}//p' "$0" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
src=$1 out=$2 n=$3
shift 3
case $n in
    '' | *[!0-9]* | 0) echo "submit.sh: N must be a count of parts" >&2
        exit 2 ;;
esac
mkdir -p "$out/parts"
out=$(cd "$out" && pwd)
src=$(cd "$(dirname "$src")" && pwd)/$(basename "$src")
export BALE_SRC=$src BALE_OUT=$out BALE_PACK_ARGS="$*"
# shellcheck disable=SC2086
pack=$(sbatch --parsable --array="0-$((n - 1))" --chdir="$out" \
    ${BALE_SBATCH_ARGS:-} "$here/pack-array.sbatch")
pack=${pack%%;*}
# shellcheck disable=SC2086
merge=$(sbatch --parsable --dependency="afterok:$pack" --chdir="$out" \
    ${BALE_SBATCH_ARGS:-} "$here/merge.sbatch")
echo "pack array: $pack"
echo "merge: ${merge%%;*}"
