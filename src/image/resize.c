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
#include "resize16.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define RESIZE_BITS 22
/* The bilinear filter's weights, up to this many taps, take 14 bits and
 * the 16-bit passes (twice the sums an instruction): at most 16 * 0.5
 * units of 2^-14 on 255 is 0.12 of a level, so the output stays within
 * +/-1 of PIL's. */
#define RESIZE_BITS16 14

/* An AVX2 build of the hot loop besides the baseline one, picked when the
 * program starts (GCC's function multiversioning, x86-64 only). Not
 * under ThreadSanitizer: the picking runs before its runtime is up. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__SANITIZE_THREAD__)
#define RESIZE_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define RESIZE_CLONES
#endif
#define RESIZE_LOBES 3.0

struct taps {
	int *first;		/* per output: first source index */
	int *count;		/* per output: number of taps */
	int32_t *w;		/* per output: @stride weights */
	int16_t *w16;		/* the same as 16 bits, for bits == 14 */
	int stride;
	int bits;		/* fraction bits of the weights */
};

static double bilinear(double x)
{
	x = x < 0 ? -x : x;
	return x < 1.0 ? 1.0 - x : 0.0;
}

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

/* lround, inline: the weights of the bilinear filter, never negative,
 * are many per image in the loader; the Lanczos ones keep libm's. */
static int32_t weight_round(double v)
{
	return v >= 0 ? (int32_t)(v + 0.5) : (int32_t)lround(v);
}

static void taps_free(struct taps *t)
{
	free(t->first);
	free(t->count);
	free(t->w);
	free(t->w16);
}

/* The 16-bit copy of 14-bit weights. */
static int taps_narrow(struct taps *t, int out)
{
	size_t i, n = (size_t)out * (size_t)t->stride;

	if (t->bits != RESIZE_BITS16)
		return 0;
	if (!(t->w16 = malloc(n * sizeof(*t->w16))))
		return -1;
	for (i = 0; i < n; i++)
		t->w16[i] = (int16_t)t->w[i];
	return 0;
}

/* The weights that map source pixels [@in0, @in1) of @in onto @out
 * output pixels, as PIL computes them (its precompute_coeffs). */
static int taps_make(struct taps *t, int in, double in0, double in1,
    int out, enum bale_resize_filter f)
{
	double (*filter)(double) = f == BALE_RESIZE_BILINEAR ? bilinear :
	    lanczos;
	double scale = (in1 - in0) / out;
	double widen = scale > 1.0 ? scale : 1.0;
	double support = (f == BALE_RESIZE_BILINEAR ? 1.0 : RESIZE_LOBES) *
	    widen;
	double *w;
	double center;
	double sum;
	int lo;
	int hi;
	int i;
	int j;

	t->stride = (int)ceil(support) * 2 + 1;
	t->bits = f == BALE_RESIZE_BILINEAR && t->stride <= RESIZE16_TAPS ?
	    RESIZE_BITS16 : RESIZE_BITS;
	w = malloc((size_t)t->stride * sizeof(double));
	t->first = malloc((size_t)out * sizeof(int));
	t->count = malloc((size_t)out * sizeof(int));
	t->w = calloc((size_t)out * (size_t)t->stride, sizeof(int32_t));
	if (!w || !t->first || !t->count || !t->w) {
		free(w);
		return -1;
	}
	for (i = 0; i < out; i++) {
		center = in0 + (i + 0.5) * scale;
		lo = (int)floor(center - support + 0.5);
		hi = (int)floor(center + support + 0.5);
		lo = lo < 0 ? 0 : lo;
		hi = hi > in ? in : hi;
		hi = hi - lo > t->stride ? lo + t->stride : hi;
		for (sum = 0, j = lo; j < hi; j++) {
			w[j - lo] = filter((j + 0.5 - center) / widen);
			sum += w[j - lo];
		}
		t->first[i] = lo;
		t->count[i] = hi - lo;
		for (j = 0; j < hi - lo; j++)
			t->w[(size_t)i * t->stride + j] = sum == 0 ? 0 :
			    weight_round(w[j] / sum * (1 << t->bits));
	}
	free(w);
	return 0;
}

static unsigned char clip8(int32_t acc)
{
	acc = (acc + (1 << (RESIZE_BITS - 1))) >> RESIZE_BITS;
	return (unsigned char)(acc < 0 ? 0 : acc > 255 ? 255 : acc);
}

/* Resample along lines: output line y is the weighted sum of input
 * lines first[y] .. first[y] + count[y] - 1, each @len bytes. The inner
 * loop runs across a whole line, so it vectorises; with AVX2 (chosen at
 * run time) eight 32-bit products a step. */
RESIZE_CLONES
static void pass_lines(const unsigned char *src, unsigned char *dst,
    size_t len, int out, const struct taps *t, int32_t *acc)
{
	const unsigned char *s;
	int32_t wk;
	size_t x;
	int y;
	int k;

	for (y = 0; y < out; y++) {
		for (x = 0; x < len; x++)
			acc[x] = 0;
		for (k = 0; k < t->count[y]; k++) {
			wk = t->w[(size_t)y * t->stride + k];
			s = src + (size_t)(t->first[y] + k) * len;
			for (x = 0; x < len; x++)
				acc[x] += wk * s[x];
		}
		for (x = 0; x < len; x++)
			dst[(size_t)y * len + x] = clip8(acc[x]);
	}
}

/* The same with weights of RESIZE_BITS16 bits, two lines a multiply. */
static void pass_lines16(const unsigned char *src, unsigned char *dst,
    size_t len, int out, const struct taps *t)
{
	const unsigned char *lines[RESIZE16_TAPS];
	int y;
	int k;

	for (y = 0; y < out; y++) {
		for (k = 0; k < t->count[y]; k++)
			lines[k] = src + (size_t)(t->first[y] + k) * len;
		bale_resize_lines16(lines, t->w16 + (size_t)y * t->stride,
		    t->count[y], t->bits, len, dst + (size_t)y * len);
	}
}

static void pass(const unsigned char *src, unsigned char *dst, size_t len,
    int out, const struct taps *t, int32_t *acc)
{
	if (t->bits == RESIZE_BITS16)
		pass_lines16(src, dst, len, out, t);
	else
		pass_lines(src, dst, len, out, t, acc);
}

/* @dst = @src (@h rows of @w pixels of @ch bytes) with rows and columns
 * swapped. Resampling a transposed image along its lines computes the
 * very same sums as resampling the rows, only in an order that
 * vectorises. Column by column. With 3 or 4 channels each pixel is
 * moved as one 4-byte word whose spare byte the next pixel of the column
 * overwrites; the column's last pixel goes byte by byte, so no word read
 * or written passes the end of a buffer. */
static void transpose(const unsigned char *src, size_t stride,
    unsigned char *dst, int w, int h, int ch)
{
	const unsigned char *s;
	unsigned char *d;
	uint32_t v;
	int x, y, c;

	for (x = 0; x < w; x++) {
		s = src + (size_t)x * ch;
		d = dst + (size_t)x * h * ch;
		for (y = 0; ch >= 3 && y < h - 1; y++, s += stride, d += ch) {
			memcpy(&v, s, sizeof(v));
			memcpy(d, &v, sizeof(v));
		}
		for (; y < h; y++, s += stride, d += ch)
			for (c = 0; c < ch; c++)
				d[c] = s[c];
	}
}

/* Output i takes the taps of output @out - 1 - i: the result mirrored. */
static void taps_reverse(struct taps *t, int out)
{
	int32_t *a, *b, w;
	int i, j, k, n;

	for (i = 0, j = out - 1; i < j; i++, j--) {
		k = t->first[i], t->first[i] = t->first[j], t->first[j] = k;
		k = t->count[i], t->count[i] = t->count[j], t->count[j] = k;
		a = t->w + (size_t)i * t->stride;
		b = t->w + (size_t)j * t->stride;
		for (n = 0; n < t->stride; n++)
			w = a[n], a[n] = b[n], b[n] = w;
	}
}

/* The source pixels the taps reach: [*lo, *hi), and the taps made
 * relative to *lo. */
static void taps_span(struct taps *t, int out, int *lo, int *hi)
{
	int i;

	*lo = t->first[0];
	*hi = t->first[0] + t->count[0];
	for (i = 1; i < out; i++) {
		*lo = t->first[i] < *lo ? t->first[i] : *lo;
		*hi = t->first[i] + t->count[i] > *hi ?
		    t->first[i] + t->count[i] : *hi;
	}
	for (i = 0; i < out; i++)
		t->first[i] -= *lo;
}

void bale_resize_scratch_release(struct bale_resize_scratch *s)
{
	free(s->tin);
	free(s->tout);
	free(s->acc);
	memset(s, 0, sizeof(*s));
}

static int resize_grow(unsigned char **p, size_t *cap, size_t need)
{
	unsigned char *q;

	if (need <= *cap)
		return 0;
	q = realloc(*p, need);
	if (!q)
		return -1;
	*p = q;
	*cap = need;
	return 0;
}

int bale_resize_box(const unsigned char *src, int sw, int sh, size_t stride,
    const struct bale_resize_box *box, unsigned char *dst, int dw, int dh,
    int ch, enum bale_resize_filter f, struct bale_resize_scratch *scratch)
{
	struct bale_resize_scratch own = { 0 };
	struct bale_resize_scratch *s = scratch ? scratch : &own;
	struct taps h = { 0 };
	struct taps v = { 0 };
	unsigned char *tin;	/* columns of src as lines */
	unsigned char *tout;	/* the same after the row pass */
	int32_t *acc;
	int c0, c1, r0, r1;
	size_t big, line;
	int rc = -1;

	if (sw <= 0 || sh <= 0 || dw <= 0 || dh <= 0 || ch <= 0 || ch > 4 ||
	    !(box->x1 > box->x0) || !(box->y1 > box->y0))
		return -1;
	if (taps_make(&h, sw, box->x0, box->x1, dw, f) != 0 ||
	    taps_make(&v, sh, box->y0, box->y1, dh, f) != 0)
		goto out;
	if (box->mirror)
		taps_reverse(&h, dw);
	if (taps_narrow(&h, dw) != 0 || taps_narrow(&v, dh) != 0)
		goto out;
	/* only the rows and columns the taps reach are read */
	taps_span(&h, dw, &c0, &c1);
	taps_span(&v, dh, &r0, &r1);
	big = (size_t)((c1 - c0) > dw ? (c1 - c0) : dw) * (size_t)(r1 - r0) *
	    (size_t)ch;
	line = (size_t)((r1 - r0) > dw ? (r1 - r0) : dw) * (size_t)ch;
	if (resize_grow(&s->tin, &s->tincap, big) != 0 ||
	    resize_grow(&s->tout, &s->toutcap, big) != 0 ||
	    resize_grow(&s->acc, &s->acccap, line * sizeof(int32_t)) != 0)
		goto out;
	tin = s->tin;
	tout = s->tout;
	acc = (int32_t *)(void *)s->acc;
	/* rows: as lines of the transposed image, then back */
	transpose(src + (size_t)r0 * stride + (size_t)c0 * ch, stride, tin,
	    c1 - c0, r1 - r0, ch);
	pass(tin, tout, (size_t)(r1 - r0) * ch, dw, &h, acc);
	transpose(tout, (size_t)(r1 - r0) * ch, tin, r1 - r0, dw, ch);
	/* columns: whole rows are the lines */
	pass(tin, dst, (size_t)dw * ch, dh, &v, acc);
	rc = 0;
out:
	taps_free(&h);
	taps_free(&v);
	bale_resize_scratch_release(&own);
	return rc;
}

int bale_resize(const unsigned char *src, int sw, int sh, unsigned char *dst,
    int dw, int dh, int ch)
{
	struct bale_resize_box all = { 0, 0, sw, sh, 0 };

	return bale_resize_box(src, sw, sh, (size_t)sw * (size_t)ch, &all, dst,
	    dw, dh, ch, BALE_RESIZE_LANCZOS3, NULL);
}
