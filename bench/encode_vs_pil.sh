#!/bin/bash
# The encode stage against PIL and against libjpeg-turbo's own speed.
#
#   bench/encode_vs_pil.sh [-r RUNS] [-s SAMPLES]
#
# 1. bench/pack.sh times `bale pack --resize shorter:256 --quality 90`
#    (resize) and bench/py_pil_resize.py (py-resize: PIL with draft,
#    LANCZOS and a process per core) on the same tree, alternating.
# 2. bench/tjbench_bound.py: tjbench's decode-at-scale + encode time for
#    SAMPLES random images of the tree (default 100), the bound for a
#    tool that did nothing else, per core; times the cores.
# 3. The PSNR between bale's and PIL's outputs, image by image.
set -eu
cd "$(dirname "$0")/.."
runs=3 samples=100
while [ $# -gt 0 ]; do
    case $1 in
    -r) runs=$2; shift 2 ;;
    -s) samples=$2; shift 2 ;;
    *) echo "usage: $0 [-r RUNS] [-s SAMPLES]" >&2; exit 2 ;;
    esac
done
command -v tjbench >/dev/null ||
    { echo "needs tjbench: apt-get install libjpeg-turbo-progs" >&2; exit 2; }
dir=${BENCH_DIR:-build/bench}
bale=${BALE:-build/bale}
bench/pack.sh -r "$runs" resize py-resize | tee "$dir/encode-times.txt"
bound=$(/usr/bin/python3 bench/tjbench_bound.py "$dir/images" 256 90 \
    "$samples" | awk '{print $2}')
echo "tjbench bound: $bound images/s per core, x $(nproc) cores"
rm -rf "$dir/enc-bale" "$dir/enc-pil.tar"
"$bale" pack "$dir/images" -f wds -o "$dir/enc-bale" -q --resize shorter:256 \
    --quality 90
/usr/bin/python3 bench/py_pil_resize.py "$dir/images" "$dir/enc-pil.tar" 256 90
/usr/bin/python3 - "$dir/enc-bale" "$dir/enc-pil.tar" <<'PYEOF'
import io, os, sys, tarfile
import numpy as np
from PIL import Image
def jpgs(tar):
    with tarfile.open(tar) as t:
        return [t.extractfile(m).read() for m in t.getmembers()
                if m.name.endswith(".jpg")]
bale = [b for f in sorted(os.listdir(sys.argv[1])) if f.endswith(".tar")
        for b in jpgs(os.path.join(sys.argv[1], f))]
pil = jpgs(sys.argv[2])
assert len(bale) == len(pil), (len(bale), len(pil))
ps, same = [], 0
for a, b in zip(bale, pil):
    x = np.asarray(Image.open(io.BytesIO(a))).astype(float)
    y = np.asarray(Image.open(io.BytesIO(b))).astype(float)
    assert x.shape == y.shape
    same += a == b
    mse = np.mean((x - y) ** 2)
    ps.append(99.0 if mse == 0 else 10 * np.log10(255 ** 2 / mse))
print(f"outputs: {len(bale)} images; byte-identical to PIL's: {same}; "
      f"PSNR min {min(ps):.1f} dB, median {np.median(ps):.1f} dB "
      "(99 = identical pixels)")
PYEOF
rm -rf "$dir/enc-bale" "$dir/enc-pil.tar"
