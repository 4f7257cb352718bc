/* test_resize.c - Lanczos-3 resampling: sizes, exactness, anti-aliasing. */
#include "check.h"
#include "resize.h"
#include "resize16.h"

#include <stdlib.h>

static unsigned char *image(int w, int h, int ch, unsigned seed)
{
	unsigned char *p = malloc((size_t)w * h * ch);
	size_t i;

	for (i = 0; p && i < (size_t)w * h * ch; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (unsigned char)(seed >> 16);
	}
	return p;
}

/* Same size: every weight but the centre one is a zero of sinc. */
static void test_identity(void)
{
	unsigned char *src = image(37, 23, 3, 1);
	unsigned char *dst = malloc(37 * 23 * 3);

	CHECK_EQ(0, bale_resize(src, 37, 23, dst, 37, 23, 3));
	CHECK(memcmp(src, dst, 37 * 23 * 3) == 0);
	free(src);
	free(dst);
}

/* A flat image stays exactly flat, at any scale, up or down. */
static void test_flat(void)
{
	static const int sizes[][4] = { { 640, 480, 224, 224 },
	    { 5000, 3, 1, 1 }, { 1, 1, 5, 3 }, { 7, 5, 300, 2 } };
	unsigned char *src;
	unsigned char *dst;
	size_t i;
	size_t j;
	int bad;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		const int *s = sizes[i];

		src = malloc((size_t)s[0] * s[1] * 4);
		dst = malloc((size_t)s[2] * s[3] * 4);
		memset(src, 200, (size_t)s[0] * s[1] * 4);
		CHECK_EQ(0, bale_resize(src, s[0], s[1], dst, s[2], s[3], 4));
		for (bad = 0, j = 0; j < (size_t)s[2] * s[3] * 4; j++)
			bad |= dst[j] != 200;
		CHECK_EQ(0, bad);
		free(src);
		free(dst);
	}
}

/* Downscaling a one-pixel checkerboard gives grey, not a moire: every
 * source pixel is weighted in. Nearest-neighbour would give 0 or 255. */
static void test_antialias(void)
{
	unsigned char *src = malloc(400 * 300);
	unsigned char dst[37 * 29];
	int x;
	int y;
	int lo = 255;
	int hi = 0;

	for (y = 0; y < 300; y++)
		for (x = 0; x < 400; x++)
			src[y * 400 + x] = (x + y) % 2 ? 255 : 0;
	CHECK_EQ(0, bale_resize(src, 400, 300, dst, 37, 29, 1));
	for (x = 0; x < 37 * 29; x++) {
		lo = dst[x] < lo ? dst[x] : lo;
		hi = dst[x] > hi ? dst[x] : hi;
	}
	CHECK(lo >= 120 && hi <= 135);
	free(src);
}

/* A horizontal ramp stays a non-decreasing ramp from about 0 to 255. */
static void test_ramp(void)
{
	unsigned char src[256 * 4];
	unsigned char dst[100 * 2];
	int x;
	int ok = 1;

	for (x = 0; x < 256 * 4; x++)
		src[x] = (unsigned char)(x % 256);
	CHECK_EQ(0, bale_resize(src, 256, 4, dst, 100, 2, 1));
	for (x = 1; x < 100; x++)
		ok &= dst[x] >= dst[x - 1] && dst[100 + x] == dst[x];
	CHECK(ok);
	CHECK(dst[0] <= 2 && dst[99] >= 253);
}

/* Same input, same output; bad sizes are refused. */
static void test_contract(void)
{
	unsigned char *src = image(333, 222, 3, 7);
	unsigned char *a = malloc(100 * 67 * 3);
	unsigned char *b = malloc(100 * 67 * 3);

	CHECK_EQ(0, bale_resize(src, 333, 222, a, 100, 67, 3));
	CHECK_EQ(0, bale_resize(src, 333, 222, b, 100, 67, 3));
	CHECK(memcmp(a, b, 100 * 67 * 3) == 0);
	CHECK_EQ(-1, bale_resize(src, 0, 222, a, 100, 67, 3));
	CHECK_EQ(-1, bale_resize(src, 333, 222, a, 100, -1, 3));
	free(src);
	free(a);
	free(b);
}

/* The 16-bit pass gives the integers its contract states, whichever
 * code the CPU runs (AVX2 here, when it has it): every tap count, line
 * lengths around the vector width, weights of both signs. */
static void test_lines16(void)
{
	unsigned char *lines = image(100, RESIZE16_TAPS, 1, 3);
	const unsigned char *src[RESIZE16_TAPS];
	unsigned char got[100];
	int16_t w[RESIZE16_TAPS];
	unsigned seed = 5;
	int32_t acc;
	int count, k, bad = 0;
	size_t len, x;

	for (k = 0; k < RESIZE16_TAPS; k++)
		src[k] = lines + k * 100;
	for (count = 1; count <= RESIZE16_TAPS; count++)
		for (len = 1; len <= 100; len += len < 40 ? 1 : 13) {
			for (k = 0; k < count; k++) {
				seed = seed * 1103515245u + 12345u;
				w[k] = (int16_t)((int)(seed >> 16) % 9000 -
				    1000);
			}
			bale_resize_lines16(src, w, count, 14, len, got);
			for (x = 0; x < len; x++) {
				acc = 1 << 13;
				for (k = 0; k < count; k++)
					acc += w[k] * src[k][x];
				acc >>= 14;
				bad += got[x] != (acc < 0 ? 0 : acc > 255 ?
				    255 : acc);
			}
		}
	CHECK_EQ(0, bad);
	free(lines);
}

/* A mirrored box gives the plain result mirrored, byte for byte, for
 * both filters, up and down. */
static void test_mirror(void)
{
	static const int sizes[][2] = { { 224, 224 }, { 37, 61 } };
	unsigned char *src = image(190, 170, 3, 9);
	unsigned char *a = malloc(224 * 224 * 3);
	unsigned char *b = malloc(224 * 224 * 3);
	struct bale_resize_box box = { 3.5, 7.25, 181.0, 160.5, 0 };
	int f, i, x, y, dw, dh, bad = 0;

	for (f = 0; f < 2; f++)
		for (i = 0; i < 2; i++) {
			dw = sizes[i][0], dh = sizes[i][1];
			box.mirror = 0;
			CHECK_EQ(0, bale_resize_box(src, 190, 170, 190 * 3,
			    &box, a, dw, dh, 3, f ? BALE_RESIZE_BILINEAR :
			    BALE_RESIZE_LANCZOS3, NULL));
			box.mirror = 1;
			CHECK_EQ(0, bale_resize_box(src, 190, 170, 190 * 3,
			    &box, b, dw, dh, 3, f ? BALE_RESIZE_BILINEAR :
			    BALE_RESIZE_LANCZOS3, NULL));
			for (y = 0; y < dh; y++)
				for (x = 0; x < dw; x++)
					bad += memcmp(a + (y * dw + x) * 3,
					    b + (y * dw + dw - 1 - x) * 3,
					    3) != 0;
		}
	CHECK_EQ(0, bad);
	free(src);
	free(a);
	free(b);
}

int main(void)
{
	test_mirror();
	test_lines16();
	test_identity();
	test_flat();
	test_antialias();
	test_ramp();
	test_contract();
	return CHECK_DONE();
}
