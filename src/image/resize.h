/* resize.h - anti-aliased resampling of 8-bit images: Lanczos-3 (the
 * encode stage) or bilinear (the loader, as torchvision's transforms),
 * computed as PIL computes them. */
#ifndef BALE_RESIZE_H
#define BALE_RESIZE_H

#include <stddef.h>

/** Resample @src (@sw x @sh pixels of @ch interleaved 8-bit channels, rows
 *  packed) into @dst (@dw x @dh, same channels). Downscaling widens the
 *  filter by the scale factor, so every source pixel contributes (no
 *  aliasing), as PIL's LANCZOS does. Deterministic: integer arithmetic
 *  after the weights, which depend only on the sizes.
 *  @return 0, or -1 when a size is not positive or memory runs out */
int bale_resize(const unsigned char *src, int sw, int sh, unsigned char *dst,
    int dw, int dh, int ch);

enum bale_resize_filter {
	BALE_RESIZE_LANCZOS3,	/* PIL's LANCZOS */
	BALE_RESIZE_BILINEAR,	/* PIL's BILINEAR (a triangle, widened) */
};

/** A source region, edges in pixels, fractional allowed (PIL's box);
 *  @mirror: the output flipped left to right, at no cost (the same
 *  bytes as resampling, then mirroring). */
struct bale_resize_box {
	double x0, y0, x1, y1;
	int mirror;
};

/** Buffers a resampler keeps between calls (a thread's own); zeroed to
 *  start, freed with bale_resize_scratch_release(). */
struct bale_resize_scratch {
	unsigned char *tin, *tout;
	size_t tincap, toutcap;
	unsigned char *acc;	/* int32_t accumulators */
	size_t acccap;
};

void bale_resize_scratch_release(struct bale_resize_scratch *s);

/** Resample @box of @src (@sw x @sh pixels of @ch channels, rows @stride
 *  bytes apart) into @dst (@dw x @dh, packed), with filter @f, widened
 *  by the scale factor when shrinking. Only the rows and columns the
 *  filter reaches are read. @scratch: buffers to reuse, or NULL.
 *  @return 0, or -1 when a size or the box is empty, or without memory */
int bale_resize_box(const unsigned char *src, int sw, int sh, size_t stride,
    const struct bale_resize_box *box, unsigned char *dst, int dw, int dh,
    int ch, enum bale_resize_filter f, struct bale_resize_scratch *scratch);

#endif
