/* test_exif.c - EXIF orientation from JPEG headers, well-formed or not. */
#include "check.h"
#include "exif.h"

#include <stdint.h>

/* A JPEG header: SOI, optionally an APP0, an APP1 Exif segment whose IFD0
 * holds @ntags entries with the orientation last (@value, @type, @count),
 * then SOS. Big- or little-endian TIFF. Returns the length. */
static size_t make(unsigned char *b, int big, unsigned value, unsigned type,
    unsigned count, int ntags)
{
	size_t n = 0;
	size_t seg;
	size_t tiff;
	int i;

#define P16(v) do { unsigned v_ = (v); if (big) { b[n++] = v_ >> 8; \
	b[n++] = v_ & 0xFF; } else { b[n++] = v_ & 0xFF; b[n++] = v_ >> 8; } \
	} while (0)
#define P32(v) do { uint32_t w_ = (v); if (big) { P16(w_ >> 16); \
	P16(w_ & 0xFFFF); } else { P16(w_ & 0xFFFF); P16(w_ >> 16); } \
	} while (0)
	memcpy(b, "\xFF\xD8\xFF\xE0\x00\x04\x00\x00", 8);	/* SOI, APP0 */
	n = 8;
	b[n++] = 0xFF;
	b[n++] = 0xE1;
	seg = n;
	n += 2;
	memcpy(b + n, "Exif\0\0", 6);
	n += 6;
	tiff = n;
	memcpy(b + n, big ? "MM\0*" : "II*\0", 4);
	n += 4;
	P32(8);
	P16((unsigned)ntags);
	for (i = 0; i < ntags - 1; i++) {	/* other tags first */
		P16(0x010F);
		P16(2);
		P32(4);
		P32(0);
	}
	P16(0x0112);
	P16(type);
	P32(count);
	P16(value);
	P16(0);
	P32(0);		/* no next IFD */
	(void)tiff;
	b[seg] = (unsigned char)((n - seg) >> 8);
	b[seg + 1] = (unsigned char)((n - seg) & 0xFF);
	memcpy(b + n, "\xFF\xDA\x00\x02", 4);
	return n + 4;
#undef P16
#undef P32
}

int main(void)
{
	unsigned char b[512];
	size_t n;
	size_t cut;
	unsigned v;

	for (v = 1; v <= 8; v++) {
		n = make(b, 0, v, 3, 1, 3);
		CHECK_EQ(v, bale_exif_orientation(b, n));
		n = make(b, 1, v, 3, 1, 1);
		CHECK_EQ(v, bale_exif_orientation(b, n));
	}
	/* out of range, wrong type or count: as stored */
	n = make(b, 0, 9, 3, 1, 2);
	CHECK_EQ(1, bale_exif_orientation(b, n));
	n = make(b, 0, 0, 3, 1, 2);
	CHECK_EQ(1, bale_exif_orientation(b, n));
	n = make(b, 1, 6, 4, 1, 2);
	CHECK_EQ(1, bale_exif_orientation(b, n));
	n = make(b, 1, 6, 3, 2, 2);
	CHECK_EQ(1, bale_exif_orientation(b, n));
	/* every truncation reads nothing past the end and gives 1 */
	n = make(b, 1, 6, 3, 1, 4);
	for (cut = 0; cut < n - 4; cut++)
		CHECK_EQ(1, bale_exif_orientation(b, cut));
	/* an IFD offset pointing outside the segment */
	n = make(b, 0, 6, 3, 1, 1);
	b[24] = 0xF0;
	CHECK_EQ(1, bale_exif_orientation(b, n));
	/* a segment length past the end of the file */
	n = make(b, 0, 6, 3, 1, 1);
	b[10] = 0xFF;
	CHECK_EQ(1, bale_exif_orientation(b, n));
	/* not a JPEG, no EXIF, fill bytes before the marker */
	CHECK_EQ(1, bale_exif_orientation((const unsigned char *)"\x89PNG",
	    4));
	CHECK_EQ(1, bale_exif_orientation((const unsigned char *)
	    "\xFF\xD8\xFF\xDA\x00\x02", 6));
	n = make(b, 0, 8, 3, 1, 1);
	memmove(b + 3, b + 2, n - 2);
	b[2] = 0xFF;
	CHECK_EQ(8, bale_exif_orientation(b, n + 1));
	return CHECK_DONE();
}
