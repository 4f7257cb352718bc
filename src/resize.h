/* resize.h - anti-aliased Lanczos-3 resampling of 8-bit images. */
#ifndef BALE_RESIZE_H
#define BALE_RESIZE_H

/** Resample @src (@sw x @sh pixels of @ch interleaved 8-bit channels, rows
 *  packed) into @dst (@dw x @dh, same channels). Downscaling widens the
 *  filter by the scale factor, so every source pixel contributes (no
 *  aliasing), as PIL's LANCZOS does. Deterministic: integer arithmetic
 *  after the weights, which depend only on the sizes.
 *  @return 0, or -1 when a size is not positive or memory runs out */
int bale_resize(const unsigned char *src, int sw, int sh, unsigned char *dst,
    int dw, int dh, int ch);

#endif
