#!/bin/bash
# The loader's crop decode gives what torchvision's RandomResizedCrop
# gives (PIL: convert("RGB"), crop, resize(BILINEAR), flip) for the same
# boxes: within 1 per channel when decoded unscaled, and close (a stated
# PSNR) when libjpeg decodes at a DCT scale.
. "$TESTS/cli/lib.sh"
/usr/bin/python3 -c 'import PIL, numpy' 2>/dev/null ||
    { echo "skipped: needs python3-pil and python3-numpy"; exit 77; }
"$MKDATA" random "$T/photos" -n 24 --classes 1 --min 200 --max 900
"$MKDATA" tricky "$T/tricky"
"$MKIMAGES" "$T/kinds" >/dev/null
/usr/bin/python3 "$TESTS/interop/crop_vs_pil.py" "$CROP_RAW" "$T/photos" \
    "$T/tricky" "$T/kinds"
