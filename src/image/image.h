/* image.h - a decoded 8-bit image and the pixel steps of the encode stage:
 * orientation, crop or pad, and channel conversions.
 */
#ifndef BALE_IMAGE_H
#define BALE_IMAGE_H

#include <stddef.h>

struct bale_plan;

/** Rows packed top to bottom, channels interleaved: 1 grey, 3 RGB,
 *  4 RGBA (straight alpha, or premultiplied between the calls that say
 *  so). */
struct bale_image {
	unsigned char *px;
	int w, h, ch;
};

/** An image file's format by its first bytes: "jpeg" and "png", which
 *  bale decodes; "gif", "bmp", "tiff", "webp", "pnm", which it does not;
 *  NULL for none of these. */
const char *bale_image_format(const unsigned char *d, size_t n);

/** What a file's header says about its image, read without decoding:
 *  filled by the JPEG and PNG header readers alike. */
struct bale_image_info {
	int w, h;		/* as stored */
	int grey;		/* one colour component */
	int alpha;		/* an alpha channel or a tRNS chunk (PNG) */
	int cmyk;		/* CMYK or YCCK (JPEG) */
	int orientation;	/* EXIF, 1..8 */
};

/** a * b / 255 rounded to nearest, exact for all 8-bit a and b (the
 *  rule PIL uses for alpha and CMYK). */
static inline unsigned bale_mul255(unsigned a, unsigned b)
{
	unsigned t = a * b + 128;

	return (t + (t >> 8)) >> 8;
}

/** Allocate the pixels of a @w x @h x @ch image (contents undefined).
 *  @return 0, or -1 when out of memory */
int bale_image_alloc(struct bale_image *img, int w, int h, int ch);
void bale_image_release(struct bale_image *img);

/** Replace @img by its display form for EXIF orientation @o (1..8):
 *  2 mirror, 3 rotate 180, 4 flip, 5 transpose, 6 rotate 90 clockwise,
 *  7 transverse, 8 rotate 90 anticlockwise. @return 0, or -1 (memory) */
int bale_image_orient(struct bale_image *img, int o);

/** Mirror @px (@w x @h pixels of @ch bytes, rows packed) left to right,
 *  in place. */
void bale_image_mirror(unsigned char *px, int w, int h, int ch);

/** Replace @img (of the plan's scaled size) by the plan's centre crop or
 *  padded canvas. Padding is @bg (RGB; its luma for grey), or transparent
 *  for RGBA. @return 0, or -1 (memory) */
int bale_image_frame(struct bale_image *img, const struct bale_plan *p,
    const unsigned char bg[3]);

/** Grey to RGB. @return 0, or -1 (memory) */
int bale_image_expand(struct bale_image *img);

/** RGBA composited over opaque @bg, in place, becoming RGB. */
void bale_image_composite(struct bale_image *img, const unsigned char bg[3]);

/** RGB to grey by taking one channel (for images known to be grey). */
void bale_image_take_grey(struct bale_image *img);

/** RGBA to and from premultiplied alpha, in place, so resampling does not
 *  bleed the colour of transparent pixels into visible ones. */
void bale_image_premultiply(struct bale_image *img);
void bale_image_unpremultiply(struct bale_image *img);

#endif
