/* fuzz_exif.c - the EXIF orientation reader on any bytes, both as a JPEG
 * stream and as a bare TIFF block (PNG's eXIf). */
#include "exif.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int o = bale_exif_orientation(data, size);
	int t = bale_exif_tiff_orientation(data, size);

	if (o < 1 || o > 8 || t < 1 || t > 8)
		abort();
	return 0;
}
