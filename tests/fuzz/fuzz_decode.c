/* fuzz_decode.c - the encode stage on any bytes: format sniffing, JPEG
 * and PNG headers and decoding (libjpeg-turbo, libspng), EXIF, the size
 * plan, resampling, orientation, cropping and re-encoding. The pixel
 * limit is low so a header may not ask for gigabytes. */
#include "encode.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct bale_encoder *fuzz_encoder(int pixels)
{
	static struct bale_encode_cfg cfg[2];
	static struct bale_encoder *enc[2];
	struct bale_encode_opts o = { 0 };
	struct bale_errbuf err;

	if (enc[pixels])
		return enc[pixels];
	if (pixels)
		o.pixels = "24x16";
	else
		o.resize = "shorter:20";
	o.max_pixels = 4 << 20;
	if (bale_encode_cfg_parse(&cfg[pixels], &o, &err) != 0 ||
	    bale_encoder_new(&enc[pixels], &cfg[pixels]) != 0)
		abort();
	return enc[pixels];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bale_encoded out;
	int rc;

	if (size == 0)
		return 0;
	/* the first byte picks encoded output or a pixel array */
	rc = bale_encoder_run(fuzz_encoder(data[0] & 1), data + 1, size - 1,
	    &out);
	if (rc == BALE_OK && !out.kept)
		free(out.data);
	if (rc == BALE_ENOMEM)
		abort();	/* out of memory with a 4-megapixel limit */
	return 0;
}
