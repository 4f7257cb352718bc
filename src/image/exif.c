/* exif.c - find the orientation tag in a JPEG's APP1 Exif segment.
 *
 * Only IFD0 tag 0x0112 (SHORT, count 1) is read. The bytes are untrusted:
 * every offset is checked against the segment before it is followed, and
 * anything unexpected means "no orientation" (1), never an error: a
 * broken EXIF block does not make the image unusable.
 */
#include "exif.h"

#include "jpegseg.h"

#include <stdint.h>
#include <string.h>

#define EXIF_TAG_ORIENTATION 0x0112
#define EXIF_TYPE_SHORT 3

struct tiff {
	const unsigned char *p;	/* the TIFF header */
	size_t n;
	int big_endian;		/* "MM" */
};

static unsigned tiff_u16(const struct tiff *t, size_t off)
{
	const unsigned char *q = t->p + off;

	return t->big_endian ? (unsigned)(q[0] << 8 | q[1]) :
	    (unsigned)(q[1] << 8 | q[0]);
}

static uint32_t tiff_u32(const struct tiff *t, size_t off)
{
	const unsigned char *q = t->p + off;

	return t->big_endian ?
	    (uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 | q[2] << 8 | q[3] :
	    (uint32_t)q[3] << 24 | (uint32_t)q[2] << 16 | q[1] << 8 | q[0];
}

/* Orientation from the TIFF structure of an Exif segment, or 1. */
static int tiff_orientation(struct tiff *t)
{
	uint32_t ifd;
	unsigned count;
	unsigned i;
	size_t e;

	if (t->n < 8)
		return 1;
	if (memcmp(t->p, "II*\0", 4) != 0 && memcmp(t->p, "MM\0*", 4) != 0)
		return 1;
	t->big_endian = t->p[0] == 'M';
	ifd = tiff_u32(t, 4);
	if (ifd < 8 || ifd > t->n - 2)
		return 1;
	count = tiff_u16(t, ifd);
	for (i = 0; i < count; i++) {
		e = ifd + 2 + (size_t)i * 12;
		if (e + 12 > t->n)
			return 1;
		if (tiff_u16(t, e) != EXIF_TAG_ORIENTATION)
			continue;
		if (tiff_u16(t, e + 2) != EXIF_TYPE_SHORT ||
		    tiff_u32(t, e + 4) != 1)
			return 1;
		return tiff_u16(t, e + 8) >= 1 && tiff_u16(t, e + 8) <= 8 ?
		    (int)tiff_u16(t, e + 8) : 1;
	}
	return 1;
}

int bale_exif_tiff_orientation(const unsigned char *tiff, size_t size)
{
	struct tiff t;

	t.p = tiff;
	t.n = size;
	return tiff_orientation(&t);
}

int bale_exif_orientation(const unsigned char *data, size_t size)
{
	const unsigned char *seg;
	size_t len;

	if (!bale_jpegseg_find(data, size, 0xE1, "Exif\0\0", 6, &seg, &len))
		return 1;
	return bale_exif_tiff_orientation(seg + 6, len - 6);
}
