/* resize.c - separable Lanczos-3 resampling: rows, then columns.
 *
 * For each output position the weights of the source pixels it covers are
 * computed once (in double), normalised to sum 1, and kept as fixed-point
 * integers with RESIZE_BITS fraction bits; the passes then use integer
 * multiply-adds only. The intermediate image is rounded to 8 bits, like
 * the output. With 22 fraction bits, 255 times the largest sum of positive
 * weights (under 1.25 for Lanczos-3) stays below 2^31.
 */
#include "resize.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#define RESIZE_BITS 22
#define RESIZE_LOBES 3.0

struct taps {
	int *first;		/* per output: first source index */
	int *count;		/* per output: number of taps */
	int32_t *w;		/* per output: @stride weights */
	int stride;
};

static double lanczos(double x)
{
	double px;

	if (x == 0.0)
		return 1.0;
	if (x <= -RESIZE_LOBES || x >= RESIZE_LOBES)
		return 0.0;
	px = M_PI * x;
	return RESIZE_LOBES * sin(px) * sin(px / RESIZE_LOBES) / (px * px);
}

static void taps_free(struct taps *t)
{
	free(t->first);
	free(t->count);
	free(t->w);
}

/* The weights that map @in source pixels onto @out output pixels. */
static int taps_make(struct taps *t, int in, int out)
{
	double scale = (double)in / out;
	double widen = scale > 1.0 ? scale : 1.0;
	double support = RESIZE_LOBES * widen;
	double *w;
	double center;
	double sum;
	int lo;
	int hi;
	int i;
	int j;

	t->stride = (int)ceil(support) * 2 + 1;
	w = malloc((size_t)t->stride * sizeof(double));
	t->first = malloc((size_t)out * sizeof(int));
	t->count = malloc((size_t)out * sizeof(int));
	t->w = calloc((size_t)out * (size_t)t->stride, sizeof(int32_t));
	if (!w || !t->first || !t->count || !t->w) {
		free(w);
		return -1;
	}
	for (i = 0; i < out; i++) {
		center = (i + 0.5) * scale;
		lo = (int)floor(center - support + 0.5);
		hi = (int)floor(center + support + 0.5);
		lo = lo < 0 ? 0 : lo;
		hi = hi > in ? in : hi;
		hi = hi - lo > t->stride ? lo + t->stride : hi;
		for (sum = 0, j = lo; j < hi; j++) {
			w[j - lo] = lanczos((j + 0.5 - center) / widen);
			sum += w[j - lo];
		}
		t->first[i] = lo;
		t->count[i] = hi - lo;
		for (j = 0; j < hi - lo; j++)
			t->w[(size_t)i * t->stride + j] = (int32_t)lround(
			    w[j] / sum * (1 << RESIZE_BITS));
	}
	free(w);
	return 0;
}

static unsigned char clip8(int32_t acc)
{
	acc = (acc + (1 << (RESIZE_BITS - 1))) >> RESIZE_BITS;
	return (unsigned char)(acc < 0 ? 0 : acc > 255 ? 255 : acc);
}

/* Resample each of @rows rows of @in pixels into @t's output width. */
static void pass_rows(const unsigned char *src, unsigned char *dst,
    int rows, int in, int out, int ch, const struct taps *t)
{
	const unsigned char *s;
	const int32_t *w;
	int32_t acc;
	int y;
	int x;
	int c;
	int k;

	for (y = 0; y < rows; y++)
		for (x = 0; x < out; x++) {
			w = t->w + (size_t)x * t->stride;
			for (c = 0; c < ch; c++) {
				s = src + ((size_t)y * in + t->first[x]) * ch + c;
				for (acc = 0, k = 0; k < t->count[x]; k++)
					acc += w[k] * s[(size_t)k * ch];
				dst[((size_t)y * out + x) * ch + c] = clip8(acc);
			}
		}
}

/* Resample every column of @src (@in rows of @width pixels) into @out
 * rows: each output row is a weighted sum of whole input rows. */
static void pass_cols(const unsigned char *src, unsigned char *dst,
    int width, int out, int ch, const struct taps *t, int32_t *acc)
{
	size_t row = (size_t)width * ch;
	const unsigned char *s;
	int32_t wk;
	size_t x;
	int y;
	int k;

	for (y = 0; y < out; y++) {
		for (x = 0; x < row; x++)
			acc[x] = 0;
		for (k = 0; k < t->count[y]; k++) {
			wk = t->w[(size_t)y * t->stride + k];
			s = src + (size_t)(t->first[y] + k) * row;
			for (x = 0; x < row; x++)
				acc[x] += wk * s[x];
		}
		for (x = 0; x < row; x++)
			dst[(size_t)y * row + x] = clip8(acc[x]);
	}
}

int bale_resize(const unsigned char *src, int sw, int sh, unsigned char *dst,
    int dw, int dh, int ch)
{
	struct taps h = { 0 };
	struct taps v = { 0 };
	unsigned char *mid = NULL;
	int32_t *acc = NULL;
	int rc = -1;

	if (sw <= 0 || sh <= 0 || dw <= 0 || dh <= 0 || ch <= 0)
		return -1;
	mid = malloc((size_t)dw * sh * ch);
	acc = malloc((size_t)dw * ch * sizeof(int32_t));
	if (!mid || !acc || taps_make(&h, sw, dw) != 0 ||
	    taps_make(&v, sh, dh) != 0)
		goto out;
	pass_rows(src, mid, sh, sw, dw, ch, &h);
	pass_cols(mid, dst, dw, dh, ch, &v, acc);
	rc = 0;
out:
	taps_free(&h);
	taps_free(&v);
	free(mid);
	free(acc);
	return rc;
}
