/* resize16.h - resampling passes with 16-bit weights (the loader's). */
#ifndef BALE_RESIZE16_H
#define BALE_RESIZE16_H

/* the most taps a 16-bit pass takes */
#define RESIZE16_TAPS 16

#include <stddef.h>
#include <stdint.h>

/** @dst[x] = clamp((sum over k of @w[k] * @src[k][x] + half) >> @bits)
 *  for x < @len: the weighted sum of @count input lines, weights with
 *  @bits fraction bits (at most 14, so each fits 16 bits). The same
 *  bytes with or without AVX2. */
void bale_resize_lines16(const unsigned char *const *src, const int16_t *w,
    int count, int bits, size_t len, unsigned char *dst);

#endif
