/* fuzz_crop.c - the loader's crop decode on any bytes: the first eight
 * pick a crop box (as fractions of the image), an output size, the flip,
 * DCT scaling and eval's context; the rest is the sample (JPEG through
 * the libjpeg API with its error exit, PNG, .npy arrays). libjpeg's long
 * jump must land in the cropper's own call, never take the process. */
#include "crop_decode.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define FUZZ_MAX_PIXELS (4 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct bale_cropper *c;
	static unsigned char dst[64 * 64 * 3];
	struct bale_errbuf err;
	struct bale_crop_box box;
	struct bale_crop_out out;
	int w, h, rc;

	if (size < 8)
		return 0;
	if (!c && bale_cropper_new(&c) != BALE_OK)
		abort();
	rc = bale_cropper_open(c, data + 8, size - 8, NULL, &w, &h, &err);
	if (rc != BALE_OK || (uint64_t)w * (uint64_t)h > FUZZ_MAX_PIXELS)
		return 0;	/* (a header may claim gigapixels) */
	box.x0 = w * (data[0] / 256.0);
	box.y0 = h * (data[1] / 256.0);
	box.x1 = box.x0 + (w - box.x0) * ((data[2] + 1) / 256.0);
	box.y1 = box.y0 + (h - box.y0) * ((data[3] + 1) / 256.0);
	out = (struct bale_crop_out){ 1 + data[4] % 64, 1 + data[5] % 64,
	    data[6] & 1, (data[6] >> 1) & 1, (data[6] >> 2) & 1, dst };
	rc = bale_cropper_run(c, &box, &out, &err);
	if (rc == BALE_ENOMEM)
		abort();
	return 0;
}
