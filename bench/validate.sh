#!/bin/bash
# The cost of bale pack --validate: the 110k tree (10 000 JPEGs, 1.1 GB,
# bench/make_tree.sh under $BENCH_DIR, default build/bench), warm, -f wds,
# each run in rotating order:
#   plain     bale pack -f wds
#   validate  bale pack -f wds --validate (every JPEG decoded at 1/8 scale)
#   pil       what a user would write: PIL Image.open(f).load() on every
#             file, in as many processes as CPUs (the check alone, no pack)
# and prints the medians and each one's ratio to plain.
#
#   bench/validate.sh [-r RUNS]
set -eu
cd "$(dirname "$0")/.."
. bench/lib.sh
runs=5
if [ "${1:-}" = "-r" ]; then runs=$2; shift 2; fi
dir=${BENCH_DIR:-build/bench}
bale=${BALE:-build/bale}
bench/make_tree.sh "$dir"
tree=$dir/tree-110k
work=$dir/validate
rm -rf "$work"
mkdir -p "$work"
find "$tree" -type f -exec cat {} + >/dev/null
pil() {
    /usr/bin/python3 - "$tree" <<'PY'
import os, sys
from multiprocessing import Pool
from PIL import Image

def load(path):
    try:
        with Image.open(path) as im:
            im.load()
        return 1
    except Exception:
        return 0

files = [os.path.join(d, f) for d, _, fs in os.walk(sys.argv[1])
         for f in fs if f.lower().endswith((".jpg", ".jpeg"))]
with Pool(os.cpu_count()) as pool:
    sum(pool.imap_unordered(load, files, chunksize=64))
PY
}
names=(plain validate pil)
declare -A times
for ((r = 0; r < runs; r++)); do
    for ((k = 0; k < 3; k++)); do
        name=${names[$(((k + r) % 3))]}
        case $name in
        plain) t=$(secs "$bale" pack "$tree" -f wds -o "$work/out" -q \
            --force) ;;
        validate) t=$(secs "$bale" pack "$tree" -f wds -o "$work/out" -q \
            --force --validate) ;;
        pil) t=$(secs pil) ;;
        esac
        times[$name]="${times[$name]:-} $t"
    done
    echo "run $r: plain${times[plain]##* } s, validate${times[validate]##* }" \
        "s, pil${times[pil]##* } s"
done
/usr/bin/python3 - "${times[plain]}" "${times[validate]}" "${times[pil]}" <<'PY'
import statistics as st, sys
plain, val, pil = ([float(x) for x in a.split()] for a in sys.argv[1:4])
p = st.median(plain)
for name, v in (("pack -f wds", plain), ("pack -f wds --validate", val),
                ("PIL load() of every file", pil)):
    m = st.median(v)
    print(f"{name:28s} median {m:7.3f} s  ({min(v):.3f}..{max(v):.3f})"
          f"  {m / p:5.2f}x plain")
PY
