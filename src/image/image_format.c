/* image_format.c - an image file's format by its signature, for the
 * encode stage and the decode check alike. */
#include "image.h"

#include <string.h>

const char *bale_image_format(const unsigned char *d, size_t n)
{
	if (n >= 3 && d[0] == 0xFF && d[1] == 0xD8 && d[2] == 0xFF)
		return "jpeg";
	if (n >= 8 && memcmp(d, "\x89PNG\r\n\x1a\n", 8) == 0)
		return "png";
	if (n >= 4 && memcmp(d, "GIF8", 4) == 0)
		return "gif";
	if (n >= 2 && memcmp(d, "BM", 2) == 0)
		return "bmp";
	if (n >= 4 && (memcmp(d, "II*\0", 4) == 0 ||
	    memcmp(d, "MM\0*", 4) == 0))
		return "tiff";
	if (n >= 12 && memcmp(d, "RIFF", 4) == 0 &&
	    memcmp(d + 8, "WEBP", 4) == 0)
		return "webp";
	if (n >= 2 && d[0] == 'P' && d[1] >= '1' && d[1] <= '7')
		return "pnm";
	return NULL;
}
